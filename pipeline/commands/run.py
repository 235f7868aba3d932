"""`evo run SPEC`: start a run from a TOML spec."""

from __future__ import annotations

from ..display import console


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="start an evolution run from a TOML spec",
                       description="Start an evolution run. By default an embedded local Ray is started; "
                       "--address auto joins an existing cluster (ray start --head).")
    p.add_argument("spec", metavar="SPEC", help="a run spec, e.g. runs/nim-table.toml")
    p.add_argument("--workers", type=int, default=None, help="Ray actors (0: evaluate in-process, no Ray)")
    p.add_argument("--address", default=None, help="'auto' or ray://host:port to use an existing cluster")
    p.add_argument("--generations", type=int, default=None, help="override the spec's generations")
    p.add_argument("--seed", type=int, default=None, help="override the spec's seed")
    p.add_argument("--out", default=None, help="run directory (default runs/<spec name>)")
    p.add_argument("--force", action="store_true", help="overwrite an existing run directory")
    p.set_defaults(handler=run)


def run(args) -> int:
    from ..spec import load_spec

    spec = load_spec(args.spec, {
        "execution.workers": args.workers,
        "execution.address": args.address,
        "generations": args.generations,
        "seed": args.seed,
        "execution.output": args.out,
    })
    return execute(spec, force=args.force)


def execute(spec, force: bool = False, resume_dir=None, overrides=None) -> int:
    from ..progress import RunProgress
    from ..runner import output_dir, resume_run, start_run

    from fitness.tasks import build_task

    from ..evolution import Objectives

    task = build_task(spec.task_spec())
    primary = Objectives(spec, tuple(task.objectives), tuple(task.weights), getattr(task, "primary", None)).primary
    target = resume_dir or output_dir(spec)
    console.print(f"[bold]{spec.name}[/bold] → {target} (seed {spec.seed}, "
                  f"{'in-process' if spec.execution.workers == 0 else f'{spec.execution.workers} Ray workers'})")
    with RunProgress(primary) as progress:
        if resume_dir is not None:
            path = resume_run(resume_dir, progress.on_generation, progress.on_start, overrides)
        else:
            path = start_run(spec, force, progress.on_generation, progress.on_start)
    console.print(f"done: {path}  ·  pandas.read_parquet('{path}/individuals')  ·  evo report {path}")
    return 0
