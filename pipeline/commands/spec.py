"""`evo spec`: a spec as resolved (defaults filled in), the JSON Schema of run specs,
or the Markdown reference of every key."""

from __future__ import annotations

import json

from ..cli import UserError
from .run import setting


def add_parser(sub) -> None:
    p = sub.add_parser("spec", help="print a spec as resolved, the specs' JSON Schema, or their reference",
                       description="Print SPEC as a run would resolve it, every default filled in (TOML "
                       "that runs as a spec; --json: as run.json records it); or, with no SPEC, the JSON "
                       "Schema of run specs (--schema, for "
                       "editors: a spec's first line `#:schema ../schema/run-spec.json`) or the Markdown "
                       "reference of every key (--reference).")
    p.add_argument("spec", metavar="SPEC", nargs="?", help="a run spec, e.g. runs/nim-table.toml")
    p.add_argument("--set", dest="settings", action="append", type=setting, default=[], metavar="KEY=VALUE",
                   help="set any spec key first (repeatable), as `evo run --set` does")
    p.add_argument("--json", action="store_true", help="print the resolved spec as JSON (as run.json holds it)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--schema", action="store_true", help="print the JSON Schema of a run spec")
    what.add_argument("--reference", action="store_true", help="print the Markdown reference of every spec key")
    p.set_defaults(handler=run)


def run(args) -> int:
    if args.schema or args.reference:
        if args.spec or args.settings or args.json:
            flag = "--schema" if args.schema else "--reference"
            raise UserError(f"{flag} describes every spec: give no SPEC, --set or --json with it")
        print(_schema_text() if args.schema else _reference_text(), end="")
        return 0
    if args.spec is None:
        raise UserError("give a SPEC to resolve (e.g. evo spec runs/nim-table.toml), --schema or --reference")
    from ..toml_text import dumps
    from .run import load_flagged

    resolved = load_flagged(args.spec, args.settings).model_dump(mode="json")
    if args.json:
        print(json.dumps(resolved, indent=2, ensure_ascii=False))
    else:
        print(dumps(runnable(resolved)), end="")
    return 0


def runnable(resolved: dict) -> dict:
    """The resolved spec without the genome keys its kind does not take (run.json keeps them all,
    a spec file may not name them): the TOML printed runs as a spec."""
    from ..spec_checks import GENOME_KEYS, USER_KIND_KEYS

    keys = GENOME_KEYS.get(resolved["genome"]["kind"], USER_KIND_KEYS)
    return {**resolved, "genome": {k: v for k, v in resolved["genome"].items() if k in keys}}


def _schema_text() -> str:
    from ..spec_schema import run_spec_schema

    return json.dumps(run_spec_schema(), indent=2, ensure_ascii=False) + "\n"


def _reference_text() -> str:
    from ..spec_reference import spec_reference

    return spec_reference()
