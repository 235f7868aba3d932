"""`evo resume RUN_DIR`: continue a stopped or killed run from its last complete generation."""

from __future__ import annotations


from .run import add_execution_arguments


def add_parser(sub) -> None:
    p = sub.add_parser("resume", help="continue a run from its last complete generation",
                       description="Continue a stopped, interrupted or killed run from its last complete "
                       "generation, checking and repairing its files first (each repair is reported); "
                       "--generations extends a finished run. The log comes out as if the run never stopped.")
    p.add_argument("run_dir", metavar="RUN_DIR")
    p.add_argument("--generations", type=int, default=None, help="run until this generation (extend a finished run)")
    add_execution_arguments(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    import sys

    from ..records.rundir import RunDir
    from ..runner import resume_run
    from .run import show_run

    rundir = RunDir(args.run_dir)
    spec = rundir.read_run()["spec"]  # validated by resume_run, with the overrides
    overrides = {"generations": args.generations, "execution.workers": args.workers,
                 "execution.address": args.address, "execution.connect_timeout": args.connect_timeout,
                 "execution.handover": args.handover}
    execution = spec.get("execution") if isinstance(spec.get("execution"), dict) else {}
    workers = execution.get("workers", 0) if args.workers is None else args.workers

    def note(text: str) -> None:  # each repair resume made, so none is silent
        print(f"evo resume: repaired: {text}", file=sys.stderr)

    return show_run(spec.get("name", "run"), rundir.path, spec.get("seed", 0), workers,
                    lambda on_generation, on_start: resume_run(rundir.path, on_generation, on_start, overrides,
                                                               on_note=note))
