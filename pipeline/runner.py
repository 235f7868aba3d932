"""Starting and resuming runs: the glue between a spec, a run directory, an
evaluator and the evolution loop, with the status kept in run.json."""

from __future__ import annotations

import datetime as dt
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from .evaluation import make_evaluator
from .evolution import Evolution, Objectives
from .kinds import make_kind
from .rundir import RunDir
from .spec import RunSpec, parse_spec

__all__ = ["RunExists", "start_run", "resume_run", "output_dir"]


class RunExists(ValueError):
    """`evo run` into a directory that already holds a run (use --force or resume)."""


def output_dir(spec: RunSpec) -> Path:
    return Path(spec.execution.output or Path("runs") / spec.name)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for package in ("numpy", "deap", "ray", "pandas", "pyarrow", "pydantic"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return out


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _run_id(spec: RunSpec) -> str:
    return f"{spec.name}-s{spec.seed}-{spec.fingerprint()}"


Progress = Callable[[dict[str, Any]], None]


class _Prepared:
    """Everything a run needs that can fail before the first file is written."""

    def __init__(self, spec: RunSpec) -> None:
        from fitness.tasks import build_task

        self.spec = spec
        task_spec = spec.task_spec()
        task = build_task(task_spec)
        self.kind = make_kind(spec, task)
        self.objectives = Objectives(spec, tuple(task.objectives), tuple(task.weights), getattr(task, "primary", None))
        self.evaluator = make_evaluator(task_spec, workers=spec.execution.workers, address=spec.execution.address,
                                        chunk_size=spec.execution.chunk_size,
                                        connect_timeout=spec.execution.connect_timeout,
                                        expected_batches=spec.generations + 1)


def _drive(prepared: _Prepared, rundir: RunDir, resume_from: dict[str, Any] | None,
           on_generation: Progress | None, on_start: Callable[[int, int, str], None] | None) -> str:
    """Run generations until a stop condition; returns the stop reason."""
    spec = prepared.spec
    evolution = Evolution(spec, rundir, prepared.evaluator, prepared.kind, prepared.objectives,
                          _run_id(spec), on_generation)
    try:
        state = evolution.restore(resume_from) if resume_from else None
        if on_start:
            on_start(spec.generations, 0 if state is None else state.generation + 1,
                     prepared.objectives.primary)
        if state is None:
            state = evolution.start()
        reason = evolution.should_stop(state)
        while reason is None:
            state = evolution.step(state)
            reason = evolution.should_stop(state)
        return reason
    finally:
        try:
            evolution.close()  # everything evaluated is on disk before the status says so
        finally:
            prepared.evaluator.close()


def start_run(spec: RunSpec, force: bool = False, on_generation: Progress | None = None,
              on_start: Callable[[int, int, str], None] | None = None) -> Path:
    """Start a fresh run of `spec`; refuses an existing run directory unless `force`."""
    rundir = RunDir(output_dir(spec))
    if rundir.has_run():
        if not force:
            raise RunExists(f"{rundir.path} already holds a run; use `evo resume {rundir.path}` or --force to overwrite")
    prepared = _Prepared(spec)  # connects to Ray: fails before anything is written
    if force:
        rundir.clear()
    rundir.create()
    rundir.write_run({
        "run_id": _run_id(spec),
        "spec": spec.model_dump(mode="json"),
        "seed": spec.seed,
        "versions": _versions(),
        "status": "running",
        "started": _now(),
    })
    return _finish(prepared, rundir, None, on_generation, on_start)


def resume_run(path: str | Path, on_generation: Progress | None = None,
               on_start: Callable[[int, int, str], None] | None = None,
               overrides: dict[str, Any] | None = None) -> Path:
    """Continue a run from its last complete generation."""
    rundir = RunDir(path)
    meta = rundir.read_run()
    data = meta["spec"]
    for key, value in (overrides or {}).items():
        if value is not None:
            *sections, leaf = key.split(".")
            node = data
            for section in sections:
                node = node.setdefault(section, {})
            node[leaf] = value
    spec = parse_spec(data, str(rundir.run_json))
    prepared = _Prepared(spec)
    if overrides:
        rundir.update_run(spec=spec.model_dump(mode="json"))
    checkpoint = rundir.read_checkpoint()
    if checkpoint is None:  # killed before generation 0 was complete: start over
        rundir.discard_after(-1)
    rundir.update_run(status="running", resumed=_now())
    return _finish(prepared, rundir, checkpoint, on_generation, on_start)


def _finish(prepared, rundir, checkpoint, on_generation, on_start) -> Path:
    try:
        reason = _drive(prepared, rundir, checkpoint, on_generation, on_start)
    except KeyboardInterrupt:
        rundir.update_run(status="interrupted", stopped=_now())
        raise
    except BaseException as exc:
        rundir.update_run(status="failed", error=f"{type(exc).__name__}: {exc}", stopped=_now())
        raise
    rundir.update_run(status="finished", stop_reason=reason, finished=_now())
    return rundir.path
