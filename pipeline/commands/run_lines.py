"""What `evo run` and `evo resume` say around the progress bar.

The start line says what will happen (in-process, a local process pool, or
Ray actors now, or Ray only if the run grows long: the handover rule); the done
line says what did happen, read back from the run directory (how the run
stopped, the share of this invocation's evaluations that ran on workers, from
the `worker` column, and in seconds when the first evaluation came back, when
every worker was ready and what the workers saved, from run.json); and a finished run that `evo resume` cannot take further is told so,
with why and how to go on, instead of "resuming" and doing nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

__all__ = ["already_finished", "done_line", "execution_plan"]


def _handover_seconds() -> int:
    from ..evaluation.handover import WORTH_SECONDS

    return round(WORTH_SECONDS)


def execution_plan(execution: Mapping[str, Any], runners: bool = False) -> str:
    """Where the run will evaluate, as `make_evaluator` will decide it (`runners`: its islands
    evolve on runner actors, `spec_islands.on_runners`)."""
    from ..evaluation.engines import chosen_engine, ray_initialized
    from ..evaluation.ray_connect import cluster_address
    from ..runner import hands_over

    workers = execution.get("workers", 2)
    engine = chosen_engine(execution.get("engine", "auto"), workers, execution.get("address"), runners)
    if engine == "in-process":
        return "in-process, no Ray"
    if engine == "processes":
        count = os.cpu_count() if workers == "auto" else workers
        return f"{count} worker process{'' if count == 1 else 'es'} on this machine"
    actors = "Ray workers (one per CPU)" if workers == "auto" else f"{workers} Ray worker{'' if workers == 1 else 's'}"
    address = cluster_address(execution.get("address"))
    if address is not None:
        return f"{actors} on the cluster at {address}"
    if ray_initialized():
        return f"{actors} on the Ray already running in this process"
    if not hands_over(execution.get("handover", True), runners):
        return f"{actors} on an embedded Ray (loopback), started now"
    return (f"in-process; {actors} on an embedded Ray join{'s' if workers == 1 else ''} only if the run "
            f"grows past ~{_handover_seconds()} s of evaluation")


def _stop(meta: Mapping[str, Any], last: int) -> str:
    spec = meta["spec"]
    total, stop = spec.get("generations"), spec.get("stop") or {}
    reason = meta.get("stop_reason")
    if reason == "target":
        return f"stopped at generation {last} of {total}: target {stop.get('target')} reached"
    if reason == "stagnation":
        return f"stopped at generation {last} of {total}: no improvement in {stop.get('stagnation')} generations"
    if reason == "callback":
        return f"stopped at generation {last} of {total} by on_generation"
    return f"generation {last} of {total}"


def _where(workers: list[str], execution: Mapping[str, Any], logged: int | None = None) -> str:
    """The evaluations this process ran and where, from the `worker` column; `logged`: all the
    log holds, when a resume ran only some of them."""
    from ..evaluation.local import LOCAL_WORKER

    total = len(workers)
    on_actors = sum(worker != LOCAL_WORKER for worker in workers)
    count = f"{total:,} evaluation{'' if total == 1 else 's'}"
    if logged is not None and logged != total:
        count = f"{logged:,} evaluations ({total:,} in this resume)"
    if execution.get("workers", 2) == 0:
        return f"{count} in-process"
    if on_actors == 0:
        embedded = execution.get("engine", "auto") == "ray" and execution.get("handover", True) \
            and execution.get("address") is None
        why = (f" (the embedded Ray starts only once the evaluation still to do is expected to take over "
               f"~{_handover_seconds()} s; breeding, repair and logging do not count)") if embedded else ""
        return f"{count}, all in-process{why}"
    on = "Ray actors" if any(worker.startswith("actor-") for worker in workers) else "worker processes"
    if on_actors == total:
        return f"{count}, all on {on}"
    share = min(max(on_actors / total, 0.01), 0.99)
    here = f"the first {total - on_actors:,} in-process" if on == "Ray actors" else "the rest in-process, where that was faster"
    return f"{count}, {share:.0%} on {on} ({here})"


def _evaluated(rundir, generations: range, workers: bool = True) -> tuple[int, list[str]]:
    """How many evaluations `generations` hold (`schema.was_evaluated`: placed migrants are
    copies) and, with `workers`, the worker of each, reading those columns of those generations
    only. Logs from before islands have no `born` column, and no migrants."""
    from ..records.dataset import piece_table, retrying
    from ..records.schema import was_evaluated

    wanted = (["worker"] if workers else []) + ["origin", "born", "generation"]

    def read(pieces) -> tuple[int, list[str]]:
        count, names = 0, []
        for piece in pieces.holding(generations):
            table = piece_table(piece, wanted, generations)
            if "born" in table.column_names:
                kept = was_evaluated(*(table.column(name).to_numpy(zero_copy_only=False)
                                       for name in ("origin", "born", "generation")))
                table = table.filter(kept)
            count += table.num_rows
            names += table.column("worker").to_pylist() if workers else []
        return count, names
    return retrying(rundir.pieces, read)


def done_line(path: str | Path, first: int) -> str:
    """How the run ended and where its evaluations ran, counting generations `first` on
    (those this process ran) besides all the log holds, then where to read the logs."""
    from ..records.rundir import RunDir

    rundir = RunDir(path)
    meta = rundir.read_run()
    last = rundir.last_generation()
    where_to = os.path.abspath(rundir.path)  # the default runs/<name> is under the current folder: say which
    tail = f"pandas.read_parquet('{where_to}/individuals')  ·  evo report {where_to}"
    if last < first:
        return f"done: {where_to}  ·  nothing ran: the run still meets its stop rule  ·  {tail}"
    _, workers = _evaluated(rundir, range(first, last + 1))
    earlier = _evaluated(rundir, range(first), workers=False)[0] if first > 0 else 0
    execution = meta["spec"].get("execution") or {}
    where = _where(workers, execution, len(workers) + earlier if first > 0 else None)
    return f"done: {where_to}  ·  {_stop(meta, last)}  ·  {where}{_seconds(meta)}  ·  {tail}"


def _seconds(meta: Mapping[str, Any]) -> str:
    """What the workers did, in seconds (`clock.ClockedEvaluator`, kept in run.json), or nothing."""
    seconds = meta.get("worker_seconds") or {}
    said = []
    if seconds.get("first_evaluation") is not None:
        said.append(f"first evaluation after {seconds['first_evaluation']:.1f} s")
    if seconds.get("workers_ready") is not None:
        said.append(f"every worker ready after {seconds['workers_ready']:.1f} s")
    saved = seconds.get("saved")
    if saved is not None:
        said.append(f"the workers saved {saved:.1f} s of {seconds['evaluation']:.1f} s evaluating" if saved >= 0
                    else f"the workers cost {-saved:.1f} s more than {seconds['evaluation']:.1f} s evaluating here")
    if seconds.get("finished_on_workers"):
        said.append(f"{seconds['finished_on_workers']:,} bred children finished (repaired) on the workers")
    return f" ({', '.join(said)})" if said else ""


def already_finished(meta: Mapping[str, Any], path: str | Path, last: int,
                     generations: int | None, target: float | None, stagnation: int | None) -> str | None:
    """Why resuming a finished run would run nothing, and how to go on; None if it would run."""
    if meta.get("status") != "finished":
        return None
    spec = meta["spec"]
    reason, stop, total = meta.get("stop_reason"), spec.get("stop") or {}, spec.get("generations")
    if reason == "generations" and (generations is None or generations <= last):
        return (f"{path} already finished: it ran all its generations, to generation {last}. "
                f"To go on: evo resume {path} --generations N, with N above {last}")
    if reason == "target" and target is None:
        return (f"{path} already finished at generation {last} of {total}: it reached its target "
                f"{stop.get('target')} (stop.target). To go on, give it one it has not reached: "
                f"evo resume {path} --target T")
    if reason == "stagnation" and stagnation is None:
        patience = int(stop.get("stagnation") or 0)
        return (f"{path} already finished at generation {last} of {total}: no improvement in {patience} "
                f"generations (stop.stagnation). To go on, allow more: "
                f"evo resume {path} --stagnation {2 * patience}")
    return None
