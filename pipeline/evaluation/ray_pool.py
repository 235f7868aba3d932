"""The Ray back end: a pool of actors, each holding the task, fed chunks of genomes.

Import this only after `ray_connect.connect()` (it imports Ray, and the
loopback setting must be in place first).

Each actor builds the task once (`setup`), then scores chunks. Work starts
as soon as the first actor is ready; the others join as they come up. Any
number of batches may be in flight (`submit`); their chunks queue in
submission order and up to `IN_FLIGHT_PER_ACTOR` sit on an actor, so it never
idles while the driver collects a result (a chunk queued behind a running one
goes to the actor whose chunk started first, the next to finish). A failed
actor (crash, `ray.kill`, lost node, chunk timeout) is killed and replaced;
the chunk it was running counts one attempt and, like any chunk queued behind
it, goes back to the front of the queue for a live actor. Results are placed
by chunk index, so their order and values never depend on which actor ran
what. An actor that cannot start says why (`ray_errors`); a head or GCS gone
silent raises `ClusterLost` (`ray_gcs`) before Ray would end the process.
What a task learned scoring a chunk that the driver would compute again comes
back with its scores (`task.learned`, as on the local pool: `processes.py`).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import ray
from ray.exceptions import RayError, RayTaskError

from fitness.plugins import install_bundle
from fitness.tasks import build_task

from ..heap import freeze_heap
from .batches import Batch, WorkerPool
from .core import (Evaluated, EvaluationError, TaskCache, auto_chunk_size, check_batch, chunk_bounds,
                   failed_columns, learned_by, narrowed, one_line)
from .deadline import timeout_line
from .ray_errors import death_reason, kill_actor
from .ray_gcs import GcsWatch, current_gcs
from .transport import opened, sealed, unpack

# Automatic chunking: one chunk per worker. Each call costs ~1-5 ms on top of
# compute (Ray round trip, shipping genomes), and a cheap task (set cover:
# ~0.1 ms per genome) pays that per chunk; measured in benchmarks/README.md.
CHUNKS_PER_WORKER = 1
IN_FLIGHT_PER_ACTOR = 2  # with small chunks: one running, one queued behind it
POLL_SECONDS = 0.5  # how often timeouts are checked while waiting
Slot = tuple[Any, int, Any]  # an actor's handle, number and setup ref (`RayEvaluator.slots`)
DEFAULT_ACTOR_OPTIONS = {"num_cpus": 1, "max_restarts": 0, "scheduling_strategy": "SPREAD"}


class _TaskActor:
    """Runs on a Ray worker: builds the task from its plain spec once, then scores chunks."""

    def setup(self, task_spec: dict, code: bytes | None = None) -> tuple[str, str]:
        if code is not None:  # the spec's own modules, zipped by the driver
            install_bundle(code)
        self.tasks = TaskCache(task_spec, build_task)
        freeze_heap()  # the task and Ray's objects live as long as the actor: no collection walks them
        return ray.util.get_node_ip_address(), ray.get_runtime_context().get_node_id()

    def evaluate(self, call: bytes) -> bytes:
        """A chunk (`Batch.call`): its columns, its seconds, and what the task learned scoring it
        that the driver would compute again (`task.learned`; None for most tasks), `sealed`."""
        start = time.perf_counter()
        packed, seeds, task_spec = opened(call)
        task, genomes = self.tasks.get(task_spec), unpack(packed)
        columns = narrowed(task.evaluate, genomes, seeds, "a chunk")
        seconds = time.perf_counter() - start
        return sealed((columns, seconds, learned_by(task, genomes, task_spec)))

    def cpu(self) -> float:
        """This process's CPU seconds so far (a run's per-process figures, `cpu.py`)."""
        return time.process_time()


@dataclass(eq=False)
class _Actor:
    handle: Any
    number: int
    created: float  # monotonic
    start_failures: int = 0  # failed predecessors that never got ready
    label: str = ""  # set once the task is built: "actor-3@127.0.0.1/1a2b3c4d"
    running: deque = field(default_factory=deque)  # refs, in submission (= execution) order
    busy_since: float = 0.0  # when its oldest running chunk could start
    setup: Any = None  # the ref of its setup call (ready once it resolves)


class RayEvaluator(WorkerPool):
    """A pool of `workers` Ray actors holding the task; see the module docstring."""

    def __init__(self, task_spec: dict, workers: int, *, chunk_size: int | None = None, max_retries: int = 3,
                 chunk_timeout: float | None = None, start_timeout: float = 120.0, owns_ray: bool = False,
                 code: bytes | None = None, wait_for_all: bool = False, eval_timeout: float | None = None,
                 **actor_options: Any) -> None:
        super().__init__(workers, chunk_size, max_retries)
        self.eval_timeout = eval_timeout  # seconds a genome: a chunk running longer is cut (`_time_out`)
        self.chunk_timeout = chunk_timeout
        self.start_timeout = start_timeout
        self._task_spec = dict(task_spec)
        self._code = None if code is None else ray.put(code)  # one copy in the object store, not one per actor
        self._owns_ray = owns_ray
        self._actor_options = {**DEFAULT_ACTOR_OPTIONS, **actor_options}
        self._remote = ray.remote(_TaskActor).options(**self._actor_options)
        self._pool: list[_Actor] = []
        self._setups: dict[Any, _Actor] = {}  # setup ref -> actor still building its task
        self._running: dict[Any, tuple[Batch, int, _Actor]] = {}  # chunk ref -> where it runs
        self._numbers = 0
        self.park: Callable[[RayEvaluator], None] | None = None  # set: close() hands the pool to it
        self._learning: Any = None  # `_learner`
        self._watch = GcsWatch(current_gcs())  # a lost head or GCS: ClusterLost, not Ray's 60 s exit
        try:
            for _ in range(workers):
                self._spawn()
            while not any(actor.label for actor in self._pool):  # work starts with the first ready actor
                self._pump(POLL_SECONDS)
            if wait_for_all:
                self.wait_until_ready()
        except BaseException:
            self.close()
            raise

    def wait_until_ready(self) -> None:
        """Block until every actor has built its task (runs need not: work starts on the first)."""
        while self._setups:
            self._pump(POLL_SECONDS)

    @property
    def actors(self) -> list[Any]:
        """Handles of the pool's current actors (replacements included)."""
        return [actor.handle for actor in self._pool]

    def slots(self) -> list[Slot]:
        """(handle, number, setup ref) of every current actor, for another dispatcher to use
        (the island runners', `islands/on_ray.py`)."""
        return [(actor.handle, actor.number, actor.setup) for actor in self._pool]

    def ask_cpu(self) -> dict[Any, str]:
        """Each current actor asked its CPU seconds so far (ref -> "actor-<n>"; `pool_cpu.py`)."""
        return {actor.handle.cpu.remote(): f"actor-{actor.number}" for actor in self._pool}

    def replace(self, number: int, cause: str) -> None:
        """Kill and replace actor `number`, found dead by another dispatcher, if still here."""
        self._poll_setups()  # an actor that got ready and died later is no failed start
        for actor in list(self._pool):
            if actor.number == number:
                self._replace(actor, cause)

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        if self._closed:
            raise RuntimeError("evaluator is closed")
        check_batch(genomes, seeds)
        self._poll_setups()  # replacements that got ready since the last call join in from the start
        size = chunk_size or self.chunk_size or auto_chunk_size(len(genomes), self.workers, CHUNKS_PER_WORKER)
        batch = Batch(next(self._tickets), genomes, seeds, chunk_bounds(len(genomes), size), task_spec,
                       self._failures)
        self._queue.extend((batch, chunk) for chunk in range(len(batch.bounds)))
        self._dispatch()
        return batch.ticket

    def _poll_setups(self) -> None:
        if self._setups:
            for ref in ray.wait(list(self._setups), num_returns=len(self._setups), timeout=0)[0]:
                self._finish_setup(ref)

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        try:
            return super().wait(tickets, every, timeout)
        except BaseException:  # the batches in flight are forgotten; the actors stay for the next call
            self._queue.clear()
            self._running.clear()
            for actor in self._pool:
                actor.running.clear()
            raise

    def reopen(self) -> "RayEvaluator":
        """This parked pool back in service for a new run of its task: actors kept, bookkeeping fresh."""
        self._closed = False
        self.started = time.monotonic()
        self.first_ready = self.all_ready = 0.0
        self._done.clear()
        return self

    def discard(self) -> None:
        """Close for good, even a pool that would park."""
        self.park = None
        self._closed = False
        self.close()

    def close(self) -> None:
        """Park the pool if asked (`park`: every actor ready and idle), else kill the actors; shut
        Ray down if `make_evaluator` started it, or if the cluster is lost (its connection is dead,
        and Ray would end this process)."""
        if self._closed:
            return
        self._closed = True
        if self.park is not None and not (self._queue or self._running or self._setups or self._watch.lost):
            self.park(self)  # kept, actors and all, for the next run of the same task (`ray_embedded`)
            return
        if not self._watch.lost:
            for actor in self._pool:
                kill_actor(actor.handle)  # a handle from a Ray session gone by: nothing left to kill
        self._pool.clear()
        self._setups.clear()
        if self._owns_ray or self._watch.lost:
            ray.shutdown()

    # -- the pool -----------------------------------------------------------

    def _spawn(self, start_failures: int = 0) -> None:
        self._numbers += 1
        try:
            handle = self._remote.remote()
        except RayError as error:  # the cluster refused to register it: a failed start, said as any other
            self._check_starts(self._numbers, start_failures + 1, death_reason(error)[0])
            return self._spawn(start_failures + 1)
        actor = _Actor(handle, self._numbers, time.monotonic(), start_failures)
        self._pool.append(actor)
        actor.setup = actor.handle.setup.remote(self._task_spec, self._code)
        self._setups[actor.setup] = actor

    def _replace(self, actor: _Actor, cause: str) -> None:
        """Kill `actor` (it may be alive but stuck) and start a successor."""
        self._failures += 1
        self._pool.remove(actor)
        kill_actor(actor.handle)
        failed_starts = 0 if actor.label else actor.start_failures + 1
        self._check_starts(actor.number, failed_starts, cause)
        self._spawn(failed_starts)

    def _check_starts(self, number: int, failed_starts: int, cause: str) -> None:
        if failed_starts >= self.max_retries:
            raise EvaluationError(f"actor-{number} could not start ({failed_starts} attempts): {cause}")

    def _finish_setup(self, ref: Any) -> None:
        actor = self._setups.pop(ref)
        try:
            ip, node = ray.get(ref)
        except RayTaskError as error:  # the task spec itself is broken: retrying cannot help
            cause = error.cause
            raise EvaluationError(f"building the task on actor-{actor.number}: {one_line(cause)}") from cause
        except RayError as error:
            reason, final = death_reason(error)
            if final:
                raise EvaluationError(f"actor-{actor.number} could not start: {reason}") from None
            self._replace(actor, reason)
            return
        actor.label = f"actor-{actor.number}@{ip}/{node[:8]}"
        self._note_ready(not self._setups and all(a.label for a in self._pool))

    def _check_start_timeout(self) -> None:
        """Fail if no actor is ready and one has waited longer than `start_timeout`."""
        if any(actor.label for actor in self._pool):
            return
        now = time.monotonic()
        late = [actor for actor in self._setups.values() if now - actor.created > self.start_timeout]
        if late:
            raise EvaluationError(
                f"actor-{late[0].number} not started after {self.start_timeout:g} s: "
                f"does the cluster have free resources for {self.workers} actors "
                f"({self._actor_options['num_cpus']} CPU each)?"
            )

    # -- scheduling ---------------------------------------------------------

    def _pump(self, timeout: float | None) -> None:
        """Dispatch, wait for one result or ready actor (at most `timeout` s, and POLL_SECONDS),
        handle what came."""
        timeout = POLL_SECONDS if timeout is None else min(POLL_SECONDS, timeout)
        self._dispatch()
        waiting = [*self._running, *self._setups]
        if waiting:
            ready, _ = ray.wait(waiting, num_returns=1, timeout=self._wait_seconds(timeout))
            for ref in ready:
                if ref in self._setups:
                    self._finish_setup(ref)
                elif ref in self._running:
                    self._finish_chunk(ref)
        self._check_timeouts()
        self._watch.check()

    def _dispatch(self) -> None:
        """Queue waiting chunks on ready actors, up to IN_FLIGHT_PER_ACTOR each (`_placement`)."""
        for depth in range(IN_FLIGHT_PER_ACTOR):
            for actor in _placement(self._pool, depth):
                if not self._queue:
                    return
                batch, chunk = self._queue.popleft()
                ref = actor.handle.evaluate.remote(batch.call(chunk))
                if not actor.running:
                    actor.busy_since = time.monotonic()
                actor.running.append(ref)
                self._running[ref] = (batch, chunk, actor)

    def _finish_chunk(self, ref: Any) -> None:
        batch, chunk, actor = self._running[ref]
        try:
            columns, seconds, learned = opened(ray.get(ref))
        except RayTaskError as error:  # the task raised: a bad genome, not a bad worker
            raise EvaluationError(f"{batch.describe(chunk)} on {actor.label}: {one_line(error.cause)}") from error.cause
        except RayError as error:
            self._fail(actor, death_reason(error)[0])
            return
        del self._running[ref]
        actor.running.remove(ref)
        actor.busy_since = time.monotonic()
        batch.learned(chunk, learned, self._learner() if learned is not None else None)
        self._finish(batch, chunk, (columns, seconds, actor.label))

    def _learner(self) -> Any:
        """The run's task in this process, built at the first chunk that says what it learned
        (Nim expressions with training boards; see `processes.py`)."""
        if self._learning is None:
            self._learning = build_task(self._task_spec)
        return self._learning

    def _fail(self, actor: _Actor, cause: str) -> None:
        """Requeue every chunk on a failed actor; the one it was running counts an attempt."""
        chunks = [self._running.pop(ref)[:2] for ref in actor.running]
        batch, culprit = chunks[0]
        batch.attempts[culprit] += 1
        if batch.attempts[culprit] >= self.max_retries:
            self._replace(actor, cause)
            raise EvaluationError(
                f"{batch.describe(culprit)} failed {batch.attempts[culprit]} attempts; last cause: {cause}"
            )
        self._queue.extendleft(reversed(chunks))
        self._replace(actor, cause)

    def _time_out(self, actor: _Actor) -> None:
        """`eval_timeout`: the actor's running chunk took longer than its genomes' budget. The actor is
        killed and replaced; the chunk is scored again genome by genome, and a single genome that
        times out fails (`deadline.timeout_line`). Chunks queued behind it go back to the queue."""
        chunks = [self._running.pop(ref)[:2] for ref in actor.running]
        (batch, culprit), behind = chunks[0], chunks[1:]
        start, stop = batch.bounds[culprit]
        self._queue.extendleft(reversed(behind))
        if stop - start > 1:
            self._queue.extendleft(reversed([(batch, c) for c in batch.split(culprit)]))
        self._replace(actor, f"a chunk ran past execution.eval_timeout ({self.eval_timeout:g} s a genome)")
        if stop - start == 1:
            assert self.eval_timeout is not None
            self._finish(batch, culprit, (failed_columns(timeout_line(self.eval_timeout), 1), self.eval_timeout,
                                          actor.label))

    def _deadline(self, actor: _Actor) -> float | None:
        """When the actor's running chunk times out: `chunk_timeout`, or `eval_timeout` a genome."""
        if not actor.running or (self.chunk_timeout is None and self.eval_timeout is None):
            return None
        if self.eval_timeout is None:
            return actor.busy_since + self.chunk_timeout
        batch, chunk, _ = self._running[actor.running[0]]
        start, stop = batch.bounds[chunk]
        return actor.busy_since + self.eval_timeout * max(stop - start, 1)

    def _wait_seconds(self, timeout: float) -> float:
        """How long to wait for a result: until the next chunk deadline, at most `timeout`."""
        deadlines = [d for d in map(self._deadline, self._pool) if d is not None]
        return min([timeout, *(max(0.0, d - time.monotonic()) for d in deadlines)])

    def _check_timeouts(self) -> None:
        now = time.monotonic()
        for actor in list(self._pool):
            deadline = self._deadline(actor)
            if deadline is not None and now > deadline:
                if self.eval_timeout is not None:
                    self._time_out(actor)
                else:
                    self._fail(actor, f"no result within the chunk timeout of {self.chunk_timeout:g} s")
        self._check_start_timeout()


def _placement(pool: list[_Actor], depth: int) -> list[_Actor]:
    """The ready actors holding `depth` chunks or fewer, in the order they take one more: in the
    pool's order while idle; behind a running chunk, the actor whose chunk started first (the
    next to finish, chunks being alike) first, so a chunk sent ahead starts as soon as it can."""
    ready = [actor for actor in pool if actor.label and len(actor.running) <= depth]
    return sorted(ready, key=lambda actor: actor.busy_since) if depth else ready
