"""`evo run SPEC`: start a run from a TOML spec."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

from ..cli import UserError
from ..display import console
from ..spec_execution import ENGINES
from ..sigterm import EXIT_CODE, Terminated, stopping_on_sigterm
from ..spec_notes import run_notes
from .run_lines import done_line, execution_plan


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="start an evolution run from a TOML spec",
                       description="Start an evolution run. On one machine it evaluates on --workers local "
                       "processes (--engine ray: an embedded Ray, started once the run is expected to spend over "
                       "~30 s evaluating, --no-handover: at once; --workers 0: in-process); --address auto joins "
                       "an existing cluster (ray start --head).")
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


class Setting(tuple):
    """`(key, value)` of one `--set`, keeping the text as typed (`text`) to name it in an error."""

    text: str

    def __new__(cls, key: str, value: Any, text: str) -> "Setting":
        made = super().__new__(cls, (key, value))
        made.text = text
        return made


def setting(text: str) -> Setting:
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
        return Setting(key, tomllib.loads(f"value = {value}")["value"], text)
    except tomllib.TOMLDecodeError as exc:
        if value[0] in "\"'[{":
            raise argparse.ArgumentTypeError(f"{key}: {value!r} is not a TOML value ({exc})") from None
        return Setting(key, value, text)


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
    p.add_argument("--engine", choices=ENGINES, default=None,
                   help="what evaluates (default auto: Ray on a cluster, else local worker processes)")
    p.add_argument("--no-handover", dest="handover", action="store_false", default=None,
                   help="--engine ray on one machine: start the embedded Ray's actors at once (default: "
                   "evaluate in-process until the run is long enough for Ray to pay)")


def run(args) -> int:
    flags = {
        "execution.workers": (args.workers, "--workers"),
        "execution.address": (args.address, "--address"),
        "execution.connect_timeout": (args.connect_timeout, "--connect-timeout"),
        "execution.handover": (args.handover, "--no-handover"),
        "execution.engine": (args.engine, "--engine"),
        "generations": (args.generations, "--generations"),
        "seed": (args.seed, "--seed"),
        "execution.output": (args.out, "--out"),
    }
    return execute(load_flagged(args.spec, args.settings, flags), force=args.force)


def load_flagged(path: str, settings: list[Setting], flags: dict[str, tuple[Any, str]] | None = None):
    """`load_spec` with the `--set` settings and the flags (key -> (value or None, flag)); an
    error about a key a flag set names the flag, not the spec file."""
    from ..spec import SpecError, load_spec
    from ..spec_errors import blame_flags

    given = {key: flag for key, (value, flag) in (flags or {}).items() if value is not None}
    overrides = dict(settings)  # a key set twice: the last one counts
    for key, flag in given.items():
        if key in overrides:
            raise UserError(f"--set {key}=... and {flag} both set {key}; give one of them")
    overrides.update({key: flags[key][0] for key in given})
    named = {**given, **{item[0]: f"--set {item.text}" for item in settings}}  # the last --set of a key
    try:
        return load_spec(path, overrides)
    except SpecError as exc:
        raise SpecError(blame_flags(str(exc), str(Path(path)), named)) from None


def execute(spec, force: bool = False) -> int:
    from ..outputs import check_run_dir
    from ..runner import check_can_start, fit_spec, output_dir, start_run
    from ..spec_islands import on_runners

    target = output_dir(spec)
    check_run_dir(target, "; give --out a new path or a run directory")  # before the start line
    check_can_start(target, force)  # a live run there, another run there: refused before it too
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

    where = os.path.abspath(target)  # the default runs/<name> is under the current folder: say which
    console.print(f"[bold]{escape(str(name))}[/bold] → {escape(f'{where} (seed {seed}, {plan})')}", markup=True)
    for note in notes or []:
        console.print(note)
    first = [0]  # the first generation this process runs (0: a new run)

    with RunProgress() as progress:
        def on_start(generations: int, start: int, primary: str, evaluations: int = 0) -> None:
            first[0] = start
            progress.on_start(generations, start, primary, evaluations)

        try:
            with stopping_on_sigterm():
                path = run(progress.on_generation, on_start)
        except KeyboardInterrupt as stop:
            raise Interrupted(target, terminated=isinstance(stop, Terminated)) from None
    console.print(done_line(path, first[0]))
    return 0


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM: `terminated`) in a run: `evo` says how to go on (`hint`), in its one
    `interrupted` line, and exits `exit_code` (130, or 143 as a shell reports SIGTERM)."""

    def __init__(self, target, terminated: bool = False) -> None:
        from ..records.rundir import RunDir

        super().__init__()
        self.what, self.exit_code = ("terminated (SIGTERM)", EXIT_CODE) if terminated else ("interrupted", 130)
        written = RunDir(target).run_json.exists()  # stopped before it wrote anything: nothing to resume
        self.hint = f"; `evo resume {shlex.quote(str(target))}` continues it" if written else ""
