"""`evo resume RUN_DIR`: continue a stopped or killed run from its last complete generation."""

from __future__ import annotations

import json

from ..display import console
from ..spec_notes import resume_notes
from .run import add_execution_arguments
from .run_lines import already_finished, done_line, execution_plan


def add_parser(sub) -> None:
    p = sub.add_parser("resume", help="continue a run from its last complete generation",
                       description="Continue a stopped, interrupted or killed run from its last complete "
                       "generation, checking and repairing its files first (each repair is reported); "
                       "--generations extends a finished run; --target and --stagnation change its stop rule. "
                       "The log comes out as if the run never stopped.")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("--generations", type=int, default=None, help="run until this generation (extend a finished run)")
    p.add_argument("--target", type=float, default=None,
                   help="a new stop.target (go on after a run stopped on its target)")
    p.add_argument("--stagnation", type=int, default=None,
                   help="a new stop.stagnation (go on after a run stopped on stagnation)")
    add_execution_arguments(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    import sys

    from ..outputs import check_run_dir
    from ..records.lock import check_unlocked
    from ..records.rundir import RunDir
    from ..runner import check_generations, fit_recorded, resume_run
    from ..spec import SpecError, apply_overrides, parse_spec
    from ..spec_errors import blame_flags
    from ..spec_islands import on_runners
    from .run import show_run

    check_run_dir(args.run_dir)
    rundir = RunDir(args.run_dir)
    check_unlocked(rundir.path)  # a live run there: refused before the start line
    meta = rundir.read_run()
    flags = {"generations": (args.generations, "--generations"), "execution.workers": (args.workers, "--workers"),
             "execution.address": (args.address, "--address"),
             "execution.connect_timeout": (args.connect_timeout, "--connect-timeout"),
             "execution.handover": (args.handover, "--no-handover"), "execution.engine": (args.engine, "--engine"), "stop.target": (args.target, "--target"),
             "stop.stagnation": (args.stagnation, "--stagnation")}
    overrides = {key: value for key, (value, _) in flags.items()}
    spec = apply_overrides(json.loads(json.dumps(meta["spec"])), overrides)
    try:  # the spec with the flags, checked before the start line (resume_run checks it again)
        parse_spec(json.loads(json.dumps(spec)), str(rundir.run_json), resolved=True, recorded=True)
    except SpecError as exc:  # a key a flag set: the flag is named, not run.json
        named = {key: flag for key, (value, flag) in flags.items() if value is not None}
        raise SpecError(blame_flags(str(exc), str(rundir.run_json), named)) from None
    execution = spec.get("execution") if isinstance(spec.get("execution"), dict) else {}

    def note(text: str) -> None:  # each repair resume made, so none is silent
        print(f"evo resume: repaired: {text}", file=sys.stderr)

    def resume(on_generation, on_start):
        return resume_run(rundir.path, on_generation, on_start, overrides, on_note=note)

    last = max(rundir.last_generation(), 0)
    finished = already_finished(meta, rundir.path, last, args.generations, args.target, args.stagnation)
    if finished:  # nothing will run: the files are checked, the run's length and stop rule kept
        overrides.update({"generations": None, "stop.target": None, "stop.stagnation": None})
        return tell_finished(resume, rundir.path, finished)
    check_generations(rundir.path, meta, args.generations, last)  # before the start line
    capped = fit_recorded(spec, overrides)
    if capped:
        print(f"evo resume: {capped}", file=sys.stderr)
    population = spec.get("population") if isinstance(spec.get("population"), dict) else {}
    runners = on_runners(population.get("algorithm"), spec.get("islands"))
    return show_run(spec.get("name", "run"), rundir.path, spec.get("seed", 0), execution_plan(execution, runners),
                    resume, notes=resume_notes(spec))


def tell_finished(resume, path, message: str) -> int:
    """A run that already finished: checked (and repaired) as any resume checks its files,
    then, when no generation ran, why it stopped and how to go on, rather than
    "resuming after generation G" into nothing."""
    ran: list[dict] = []
    resume(ran.append, None)
    console.print(message if not ran else done_line(path, int(ran[0]["generation"])))
    return 0
