"""`evo run SPEC`: start a run from a TOML spec."""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from typing import Any

from ..cli import UserError
from ..display import console
from ..spec_notes import run_notes
from .run_lines import done_line, execution_plan


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="start an evolution run from a TOML spec",
                       description="Start an evolution run. By default an embedded local Ray is started; "
                       "--address auto joins an existing cluster (ray start --head).")
    p.add_argument("spec", metavar="SPEC", help="a run spec, e.g. runs/nim-table.toml")
    add_execution_arguments(p)
    p.add_argument("--generations", type=int, default=None, help="override the spec's generations")
    p.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    p.add_argument("--out", default=None, help="run directory (default runs/<spec name>)")
    p.add_argument("--force", action="store_true", help="overwrite an existing run directory")
    p.add_argument("--set", dest="settings", action="append", type=setting, default=[], metavar="KEY=VALUE",
                   help="set any spec key (repeatable): dotted keys, TOML values, e.g. --set population.size=50 "
                   "--set setcover.instance=data/scp41.txt (a bare word is a string)")
    p.set_defaults(handler=run)


_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")


def setting(text: str) -> tuple[str, Any]:
    """`--set KEY=VALUE`: a dotted key and a TOML value; a value that is not TOML is a plain string
    (so paths need no quotes), unless it starts like a TOML string, array or table."""
    key, equals, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not equals or not _KEY.match(key):
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with a dotted key (e.g. population.size=50), "
                                         f"got {text!r}")
    if not value:
        raise argparse.ArgumentTypeError(f"{key}: no value after '=' (a string needs quotes: {key}='\"\"')")
    try:
        return key, tomllib.loads(f"value = {value}")["value"]
    except tomllib.TOMLDecodeError as exc:
        if value[0] in "\"'[{":
            raise argparse.ArgumentTypeError(f"{key}: {value!r} is not a TOML value ({exc})") from None
        return key, value


def workers_count(text: str) -> int | str:
    """`--workers`: a number of actors, or "auto" (one per CPU)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number or 'auto', got {text!r}") from None


def add_execution_arguments(p) -> None:
    """Where a run evaluates: shared by `evo run` and `evo resume`."""
    p.add_argument("--workers", type=workers_count, default=None,
                   help="Ray actors (0: evaluate in-process, no Ray; auto: one per CPU of the cluster or machine)")
    p.add_argument("--address", default=None,
                   help="an existing cluster: host:port of `ray start --head`, 'auto', or ray://host:10001")
    p.add_argument("--connect-timeout", type=float, default=None, metavar="SECONDS",
                   help="give up joining the cluster after this long (default 30)")
    p.add_argument("--no-handover", dest="handover", action="store_false", default=None,
                   help="on one machine, start the embedded Ray's actors at once (default: evaluate "
                   "in-process until the run is long enough for Ray to pay)")


def run(args) -> int:
    from ..spec import load_spec

    flags = {
        "execution.workers": (args.workers, "--workers"),
        "execution.address": (args.address, "--address"),
        "execution.connect_timeout": (args.connect_timeout, "--connect-timeout"),
        "execution.handover": (args.handover, "--no-handover"),
        "generations": (args.generations, "--generations"),
        "seed": (args.seed, "--seed"),
        "execution.output": (args.out, "--out"),
    }
    settings = dict(args.settings)  # a key set twice: the last one counts
    for key, (value, flag) in flags.items():
        if value is not None and key in settings:
            raise UserError(f"--set {key}=... and {flag} both set {key}; give one of them")
    settings.update({key: value for key, (value, _) in flags.items() if value is not None})
    spec = load_spec(args.spec, settings)
    return execute(spec, force=args.force)


def execute(spec, force: bool = False) -> int:
    from ..outputs import check_run_dir
    from ..runner import fit_spec, output_dir, start_run
    from ..spec_islands import on_runners

    target = output_dir(spec)
    check_run_dir(target, "; give --out a new path or a run directory")  # before the start line
    spec, capped = fit_spec(spec)
    if capped:
        print(f"evo run: {capped}", file=sys.stderr)
    execution, runners = spec.execution.model_dump(), on_runners(spec.population.algorithm, spec.islands)
    return show_run(spec.name, target, spec.seed, execution_plan(execution, runners),
                    lambda on_generation, on_start: start_run(spec, force, on_generation, on_start),
                    notes=run_notes(spec))


def show_run(name: str, target, seed: int, plan: str, run, notes: list[str] | None = None) -> int:
    """Say what will happen, run `run(on_generation, on_start)` under a progress bar, then
    say what happened (`done_line`) and where the logs are."""
    from rich.markup import escape

    from ..progress import RunProgress

    console.print(f"[bold]{escape(str(name))}[/bold] → {escape(f'{target} (seed {seed}, {plan})')}", markup=True)
    for note in notes or []:
        console.print(note)
    first = [0]  # the first generation this process runs (0: a new run)

    with RunProgress() as progress:
        def on_start(generations: int, start: int, primary: str) -> None:
            first[0] = start
            progress.on_start(generations, start, primary)

        path = run(progress.on_generation, on_start)
    console.print(done_line(path, first[0]))
    return 0
