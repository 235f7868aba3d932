"""Starting and resuming runs: the glue between a spec, a run directory, an
evaluator and the evolution loop, with the status kept in run.json."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from .evaluation import ClusterLost, make_evaluator
from .evaluation.clock import ClockedEvaluator
from .evaluation.engines import chosen_engine
from .evolution import AsyncLoop, Loop, Scorer, State, Tracker
from .islands.loop import island_loop
from .evolution.parts import build_parts
from .heap import frozen_heap
from .plugins import code_bundle
from .records import Recorder, Recovered, RunDir, RunLock, Schema, check_identity, describe_os_error, \
    package_versions, recover
from .records.lock import check_unlocked
from .spec import RunSpec, apply_overrides, parse_spec
from .spec_islands import on_runners
from .trackers import start_tracking

__all__ = ["RunExists", "RunStopped", "check_generations", "failure_reason", "fit_recorded", "fit_spec", "hands_over", "start_run",
           "resume_run", "output_dir"]


class RunExists(ValueError):
    """`evo run` into a directory that already holds a run (use --force or resume)."""


class RunStopped(RuntimeError):
    """A `SystemExit` under a running run: Ray's core ends a driver's wait with SystemExit(0)
    when Ray is stopped under it, which would otherwise end `evo` with exit code 0. The run
    failed: said in one line, with how to go on."""


def output_dir(spec: RunSpec) -> Path:
    return Path(spec.execution.output or Path("runs") / spec.name)


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _run_id(spec: RunSpec) -> str:
    return f"{spec.name}-s{spec.seed}-{spec.fingerprint()}"


Progress = Callable[[dict[str, Any]], bool | None]  # True: stop after this generation


class _Prepared:
    """Everything a run needs that can fail before the first file is written."""

    def __init__(self, spec: RunSpec) -> None:
        began = time.monotonic()
        self.spec = spec
        task_spec = spec.task_spec()
        self.parts = build_parts(spec)
        self.kind, self.objectives, self.noise, self.algorithm = \
            self.parts.kind, self.parts.objectives, self.parts.noise, self.parts.algorithm
        self.code = code_bundle(spec)  # the spec's own modules, for the workers
        self.runners = on_runners(spec.population.algorithm, spec.islands)  # islands on runner actors
        self.asynchronous = bool(getattr(self.algorithm, "asynchronous", False))  # runs in AsyncLoop
        self.engine = chosen_engine(spec.execution.engine, spec.execution.workers, spec.execution.address,
                                    self.runners)
        self.evaluator = make_evaluator(task_spec, workers=spec.execution.workers, address=spec.execution.address,
                                        engine=self.engine,
                                        chunk_size=spec.execution.chunk_size,
                                        connect_timeout=spec.execution.connect_timeout,
                                        expected_batches=_expected_batches(spec, self.asynchronous, self.runners),
                                        code=self.code,
                                        wait_for_all=spec.execution.wait_for_workers and not self.runners,
                                        eval_timeout=spec.execution.eval_timeout,
                                        helpers=[self.kind.finishing.finish] if self.kind.finishing else [])
        if not self.runners:  # islands on runners send their work around the driver's evaluator
            self.evaluator = ClockedEvaluator(self.evaluator, began)


def _fit(execution: Mapping[str, Any], algorithm: Any, islands: Any) -> tuple[Any, str | None]:
    """`capacity.fit_workers` for a spec's execution section; island runners are actors too."""
    from .evaluation.capacity import fit_workers

    runners = on_runners(algorithm, islands)
    count = islands.get("count", 1) if isinstance(islands, Mapping) else getattr(islands, "count", 1)
    return fit_workers(execution.get("workers", 2), execution.get("address"), count if runners else 0)


def fit_spec(spec: RunSpec) -> tuple[RunSpec, str | None]:
    """`spec` with no more workers than an embedded Ray on this machine holds, and the line that
    says so (None: unchanged). Called once, before the start line, so both say the same number."""
    workers, note = _fit(spec.execution.model_dump(), spec.population.algorithm, spec.islands)
    if note is None:
        return spec, None
    return spec.model_copy(update={"execution": spec.execution.model_copy(update={"workers": workers})}), note


def fit_recorded(spec: Mapping[str, Any], overrides: dict[str, Any]) -> str | None:
    """`fit_spec` for a resume: `spec` as run.json holds it with `overrides` applied; a cap is
    set in `overrides` (and in `spec`'s execution section) and said."""
    def section(name: str) -> dict[str, Any]:
        return spec.get(name) if isinstance(spec.get(name), dict) else {}

    workers, note = _fit(section("execution"), section("population").get("algorithm"), spec.get("islands"))
    if note is not None:
        overrides["execution.workers"] = workers
        section("execution")["workers"] = workers
    return note


def hands_over(handover: bool, runners: bool) -> bool:
    """Whether a run on an embedded Ray starts in-process and hands over to the actors once the
    run proves long (`execution.handover`): never for islands on runners (`spec_islands.on_runners`),
    which need the actors from the start."""
    return bool(handover) and not runners


def _expected_batches(spec: RunSpec, asynchronous: bool, runners: bool) -> int | None:
    """How many submissions the hand-over may expect: one a generation, or for an asynchronous
    algorithm at most one per genome (its batches hold one or more; every island's). None: no
    hand-over (islands on runners need the actors from the start)."""
    if not hands_over(spec.execution.handover, runners):
        return None
    if asynchronous:
        islands = 1 if spec.islands is None else spec.islands.count
        return islands * (spec.population.size + spec.generations * spec.population.offspring)
    return spec.generations + 1


def _drive(prepared: _Prepared, rundir: RunDir, recovered: Recovered | None,
           on_generation: Progress | None, on_start: Callable[[int, int, str, int], None] | None) -> str:
    """Run generations until a stop condition; returns the stop reason."""
    spec = prepared.spec
    recorder = Recorder(spec, rundir, Schema(_run_id(spec), prepared.kind, prepared.objectives), prepared.noise)
    tracking = None
    failed = True  # until the verdict is written (sys.exc_info() would also see a caller's exception)
    try:
        state = State()
        if recovered is not None and recovered.state is not None:
            state = recorder.restore(recovered.state, recovered.rows)
            recorder.rewrite_derived(state)  # a crash may have left them a generation behind
        if on_start:
            on_start(spec.generations, state.generation + 1, prepared.objectives.primary, state.evaluations)
        tracking = start_tracking(spec, rundir, state.rows)  # [log]'s trackers, handed the log so far
        hooks = [hook for hook in (tracking, on_generation) if hook is not None]
        tracker = Tracker(spec, prepared.objectives)
        if prepared.runners:
            loop = island_loop(spec, prepared.parts, prepared.evaluator, tracker, recorder, hooks, prepared.code)
        else:
            scorer = Scorer(prepared.evaluator, prepared.noise, prepared.objectives, spec.execution.on_error)
            loop_args = (prepared.algorithm, scorer, tracker, recorder, spec.seed, hooks)
            loop = (AsyncLoop(*loop_args, in_flight=spec.execution.in_flight) if prepared.asynchronous
                    else Loop(*loop_args))
        meter = _pool_meter(prepared)
        evaluated = state.evaluations
        with frozen_heap():
            state, reason = loop.run(state)
        cpu = getattr(loop, "cpu", None) or (meter and meter.summary(state.evaluations - evaluated,
                                                                      recorder.writer_cpu()))
        if cpu:  # CPU per evaluation by process: which would cap a bigger cluster
            rundir.update_run(cpu_per_evaluation=cpu)
        recorder.write_verdict(state, prepared.evaluator)
        failed = False
        return reason
    finally:
        try:
            recorder.close()  # everything evaluated is on disk before the status says so
        finally:
            if tracking is not None:
                tracking.close(failed=failed)
            prepared.evaluator.close()


def _pool_meter(prepared: _Prepared) -> Any:
    """A run's CPU meter where it evaluates on Ray actors from the start (`pool_cpu.py`; island
    runs measure their own); imported here: only such a run has loaded Ray."""
    ask = None if prepared.runners else getattr(prepared.evaluator, "ask_cpu", None)
    if ask is None:
        return None
    from .evaluation.pool_cpu import PoolCpu

    return PoolCpu(ask)


def _identity(spec: RunSpec) -> dict[str, Any]:
    return {"run_id": _run_id(spec), "seed": spec.seed, "fingerprint": spec.fingerprint()}


def _refuse_another_run(rundir: RunDir, force: bool) -> None:
    if rundir.has_run() and not force:
        raise RunExists(f"{rundir.path} already holds a run; use `evo resume {rundir.path}` or --force to overwrite")


def check_can_start(path: str | Path, force: bool = False) -> None:
    """`start_run`'s refusals (a live run writing `path`, a run already there without `force`),
    said before anything else is: `evo run` checks first, then prints its start line."""
    rundir = RunDir(path)
    check_unlocked(rundir.path)
    _refuse_another_run(rundir, force)


def start_run(spec: RunSpec, force: bool = False, on_generation: Progress | None = None,
              on_start: Callable[[int, int, str, int], None] | None = None) -> Path:
    """Start a fresh run of `spec`; refuses an existing run directory unless `force`,
    and always refuses one that another process is writing."""
    rundir = RunDir(output_dir(spec))
    created = not rundir.path.exists()
    with rundir.lock() as lock:  # checks the directory is writable, before Ray starts
        _refuse_another_run(rundir, force)
        try:
            prepared = _Prepared(spec)  # connects to Ray: fails before anything is written
        except BaseException:
            if created:  # a run that never started leaves no directory behind
                rundir.remove_if_empty()
            raise
        try:
            if force:
                rundir.clear()
            rundir.clean_temp_files()
            rundir.identity = _identity(spec)
            rundir.versions = package_versions()
            rundir.write_run({
                **rundir.identity,
                "spec": spec.model_dump(mode="json"),
                **({"path_names": spec.path_names} if spec.path_names else {}),  # the run id's data paths
                "versions": rundir.versions,
                "status": "running",
                "started": _now(),
            })
        except BaseException:
            prepared.evaluator.close()
            raise
        return _finish(prepared, rundir, lock, None, on_generation, on_start)


def resume_run(path: str | Path, on_generation: Progress | None = None,
               on_start: Callable[[int, int, str, int], None] | None = None,
               overrides: dict[str, Any] | None = None,
               on_note: Callable[[str], None] | None = None) -> Path:
    """Continue a run from its last complete generation, after verifying its files
    (`on_note` hears each repair made; what cannot be repaired exactly is refused)."""
    rundir = RunDir(path)
    if not rundir.path.is_dir():
        raise FileNotFoundError(f"{rundir.path}: no such run directory")
    with rundir.lock() as lock:
        meta = rundir.read_run()
        spec = parse_spec(apply_overrides(meta["spec"], overrides or {}), str(rundir.run_json),
                          resolved=True, recorded=True).naming_paths(meta.get("path_names") or {})
        rundir.identity = _identity(spec)
        rundir.versions = package_versions()
        check_identity(meta, spec, rundir.identity["run_id"], str(rundir.run_json))
        recovered = recover(rundir, rundir.identity["run_id"])
        for note in recovered.notes:
            (on_note or (lambda text: None))(note)
        check_generations(rundir.path, meta, (overrides or {}).get("generations"), recovered.generation)
        prepared = _Prepared(spec)
        try:
            changes: dict[str, Any] = {"status": "running", "resumed": _now()}
            if overrides:
                changes["spec"] = spec.model_dump(mode="json")
            rundir.update_run(**changes)
        except BaseException:
            prepared.evaluator.close()
            raise
        return _finish(prepared, rundir, lock, recovered, on_generation, on_start)


def check_generations(path: Path, meta: dict[str, Any], requested: int | None, done: int) -> None:
    """Refuse a resume asked to stop before generations the run has already done: it would
    run nothing and still rewrite the run's length (refused before its status or spec change)."""
    if requested is not None and requested < done:
        raise ValueError(f"{path} has already run to generation {done}: generations = {requested} would "
                         f"run nothing; give {done} or more (it was set to run {meta['spec']['generations']})")


def failure_reason(exc: BaseException) -> str:
    """One line for run.json's `error` and the CLI: a file error names its path and cause."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return describe_os_error(exc)
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _finish(prepared: _Prepared, rundir: RunDir, lock: RunLock, recovered: Recovered | None,
            on_generation: Progress | None, on_start: Callable[[int, int, str, int], None] | None) -> Path:
    try:
        reason = _drive(prepared, rundir, recovered, on_generation, on_start)
    except KeyboardInterrupt:
        _record_stop(rundir, lock, status="interrupted", stopped=_now())
        raise
    except SystemExit as exit_:  # not a success, whatever its code: named, recorded, raised as an error
        stopped = _stopped(exit_, prepared, rundir)
        _record_stop(rundir, lock, status="failed", error=failure_reason(stopped), stopped=_now())
        raise stopped from None
    except ClusterLost as lost:  # said with the last committed generation and how to resume
        lost = lost.after(max(rundir.generation_files(), default=None), str(rundir.path))
        _record_stop(rundir, lock, status="failed", error=failure_reason(lost), stopped=_now())
        raise lost from None
    except BaseException as exc:
        _record_stop(rundir, lock, status="failed", error=failure_reason(exc), stopped=_now())
        raise
    clocked = prepared.evaluator.seconds() if isinstance(prepared.evaluator, ClockedEvaluator) else None
    rundir.update_run(status="finished", stop_reason=reason, finished=_now(), worker_seconds=clocked)
    return rundir.path


def _stopped(exit_: SystemExit, prepared: _Prepared, rundir: RunDir) -> RunStopped:
    """What raised `exit_` under the run (Ray stopping, if the run was on Ray actors) and how to go on."""
    last = max(rundir.generation_files(), default=None)
    done = f"after generation {last}" if last is not None else "before generation 0 was done"
    on_ray = prepared.engine == "ray" and getattr(prepared.evaluator, "handed_over", True)
    cause = "Ray stopped under the run" if on_ray else f"sys.exit({exit_.code!r}) was called during the run"
    return RunStopped(f"{cause} {done} (SystemExit: {exit_.code}); its status is failed; "
                      f"`evo resume {rundir.path}` continues it")


def _record_stop(rundir: RunDir, lock: RunLock, **changes: Any) -> None:
    """Record why the run stopped; the lock's disk reserve is given back first (disk full)."""
    lock.give_back_reserve()
    try:
        rundir.update_run(**changes)
    except (OSError, ValueError):
        pass  # the original error is what the user needs to see
