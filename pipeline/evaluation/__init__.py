"""Evaluators score genomes: in-process, on a local process pool, or on a pool of Ray actors.

    with make_evaluator({"problem": "setcover", "N": 1000, "seed": 42}, workers=2) as evaluator:
        scored = evaluator.evaluate(genomes, evaluation_seeds(run_seed, generation, len(genomes)))

Results are the same whatever the back end, the number of workers, the chunk
size or the actor failures along the way: every genome's randomness comes from
its own seed, and results come back in input order.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable, Sequence

from .core import ERROR, Evaluated, EvaluationError, Evaluator, evaluation_seeds
from .engines import chosen_engine, ray_initialized
from .local import LocalEvaluator
from .ray_connect import DEFAULT_CONNECT_TIMEOUT, ClusterUnreachable, cluster_address, connect
from .ray_embedded import parked_key, parker, unpark, warm_for
from .ray_gcs import ClusterLost

__all__ = ["ERROR", "ClusterLost", "ClusterUnreachable", "Evaluated", "Evaluator", "EvaluationError", "evaluation_seeds",
           "make_evaluator", "LocalEvaluator"]


def make_evaluator(
    task_spec: dict,
    workers: int | str = 0,
    address: str | None = None,
    chunk_size: int | None = None,
    max_retries: int = 3,
    *,
    chunk_timeout: float | None = None,
    start_timeout: float = 120.0,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    expected_batches: int | None = None,
    code: bytes | None = None,
    wait_for_all: bool = False,
    eval_timeout: float | None = None,
    engine: str = "ray",
    helpers: Sequence[Callable[..., Any]] = (),
    **ray_options: Any,
) -> Evaluator:
    """An evaluator for `task_spec`: in-process if `workers == 0`, else `workers` Ray actors,
    or with `engine="processes"` `workers` local processes (`engines.chosen_engine`: "auto").

    `workers="auto"`: one actor per CPU of the cluster (or of this machine);
    `address=None` starts an embedded Ray (loopback, CPUs for `workers` actors), kept warm
    for the next evaluator until exit (`ray_embedded`), unless RAY_ADDRESS names a cluster;
    "auto", "host:port" or "ray://host:port" joins a cluster that is left running,
    within `connect_timeout` seconds (else `ClusterUnreachable`, one line).
    A Ray already initialised in this process is reused as is.
    `chunk_size=None` gives each worker one chunk per batch (calls are few).
    `max_retries`: failures of one chunk (actor death, or `chunk_timeout` s
    without a result) before `EvaluationError`; `start_timeout`: seconds the
    pool may wait for actors to be scheduled.
    `ray_options` go to the actors (`num_cpus`, `resources`, `runtime_env`, ...).
    `expected_batches` (a run's generations): for an embedded Ray, evaluate
    in-process and start Ray only if the rest of the run is long enough for
    it to pay, handing over once the actors are ready (`HandoverEvaluator`).
    `code`: a zip of the spec's own modules, unpacked on each actor before it
    builds the task. `wait_for_all`: return once every actor is ready (default:
    once the first is; the others join as they come up).
    `eval_timeout`: seconds a genome's evaluation may take before it fails (in-process a
    SIGALRM timer, `deadline.py`; on actors the driver kills and replaces a hung actor).
    `helpers`: pure functions of the driver's that `map_pure` may run on a process pool's
    workers (forked with them); elsewhere `map_pure` runs them in the driver.
    """
    if workers == "auto":
        workers = _auto_workers(address, connect_timeout, ray_options.get("num_cpus", 1), engine)
    _check_pool_settings(workers, max_retries, chunk_size)
    engine = chosen_engine(engine, workers, address)
    if engine == "in-process":
        return LocalEvaluator(task_spec, eval_timeout)
    if engine == "processes":
        from .processes import ProcessEvaluator

        return ProcessEvaluator(task_spec, workers, chunk_size=chunk_size, max_retries=max_retries, code=code,
                                eval_timeout=eval_timeout, helpers=helpers)
    pool_options = dict(chunk_size=chunk_size, max_retries=max_retries, chunk_timeout=chunk_timeout,
                        start_timeout=start_timeout, code=code, wait_for_all=wait_for_all,
                        eval_timeout=eval_timeout, **ray_options)
    return _ray_evaluator(task_spec, workers, address, connect_timeout, expected_batches, pool_options)


def _check_pool_settings(workers: Any, max_retries: int, chunk_size: int | None) -> None:
    if not isinstance(workers, int) or workers < 0 or max_retries < 1 or (chunk_size is not None and chunk_size < 1):
        raise ValueError(
            f"need workers >= 0, max_retries >= 1, chunk_size >= 1; got {workers}, {max_retries}, {chunk_size}"
        )


def _ray_evaluator(task_spec: dict, workers: int, address: str | None, connect_timeout: float,
                   expected_batches: int | None, pool_options: dict) -> Evaluator:
    """The pool of `workers` actors, or on an embedded Ray the hand-over to it (`make_evaluator`)."""
    cpus = math.ceil(workers * pool_options.get("num_cpus", 1))
    embedded = cluster_address(address) is None and not ray_initialized()
    if expected_batches is not None and embedded and not warm_for(cpus):  # a warm Ray's start is paid
        from .handover import HandoverEvaluator

        def start_pool() -> Evaluator:
            from .ray_pool import RayEvaluator

            return RayEvaluator(task_spec, workers, **pool_options)  # the embedded Ray stays warm

        return HandoverEvaluator(task_spec, workers, start_pool, expected_batches,
                                 start_ray=lambda: connect(None, cpus, connect_timeout),
                                 eval_timeout=pool_options["eval_timeout"])
    key = parked_key(task_spec, workers, pool_options)
    parked = unpark(key) if embedded else None
    if parked is not None:  # the last run's pool on our warm Ray, its task built: ready at once
        return parked.reopen()
    started = connect(address, cpus, connect_timeout)
    from .ray_pool import RayEvaluator  # imports Ray: only after connect() chose loopback or not

    # A cluster joined is left by close(); our embedded Ray stays warm, its pool parked, for the next run.
    pool = RayEvaluator(task_spec, workers, owns_ray=started and not embedded, **pool_options)
    pool.park = parker(key) if embedded else None
    return pool


def _auto_workers(address: str | None, connect_timeout: float, per_actor: float, engine: str) -> int:
    """`workers="auto"`: every CPU of the cluster joined, or of this machine for a process pool
    or an embedded Ray."""
    if chosen_engine(engine, "auto", address) == "processes" or \
            (cluster_address(address) is None and not ray_initialized()):
        return max(1, int((os.cpu_count() or 1) // per_actor))
    connect(address, 1, connect_timeout)
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1) // per_actor))
