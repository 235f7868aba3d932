"""The local process pool: every core of one machine, without Ray's start and stop.

On one machine a run's workers need no cluster: `workers` processes, each holding
the task, fed chunks of genomes through a pipe. On Linux they are forked from the
driver right after it built the task, so a worker is ready in milliseconds and
never builds the task again (elsewhere they are spawned and build it, and the
driver scores chunks itself until the first is ready: no core waits for another).
A batch is cut into one chunk per worker (a task may cost much per call), and a
batch submitted alone is scored where batches went faster, in the driver or on
the workers (`here_or_pool`). One spare worker is forked with them, idle: the
first worker to die is replaced by it, not by a fork made once the run's writer
and tracker threads exist (a fork copies no other thread, so a lock one of them
held stays held in the child; Python 3.12 warns). A later death forks.

Failures are handled as on Ray actors (`ray_pool`): a chunk whose task raises is
narrowed to the raising genomes in the worker (`core.narrowed`); `eval_timeout`
is the in-process SIGALRM timer (`deadline.py`), run in the worker's main
thread; a worker that dies is replaced and its chunk re-run, up to `max_retries`
attempts. Results are placed by chunk, so they never depend on who ran what.

The driver's own pure functions named at the start (`helpers`: set cover's repair of
bred children, ~65% of that run's driver time) run on the workers too, inherited with
the fork: `map_pure` spreads one call over the idle workers where that went faster
than the driver alone (`here_or_pool`, as for batches), else runs it here.

A task may say what scoring taught it that the driver would compute again: a
worker sends `task.learned(genomes)` with the scores and the driver's task takes
it (`task.learn(genomes, learned)`). Nim's expression task sends its training
boards' outcomes, whose digests `distinct_by = "moves"` compares in the driver:
without them the driver played every child on every board again.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import signal
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait as wait_for
from typing import Any, Callable, Sequence

from fitness.plugins import install_bundle
from fitness.tasks import build_task

from ..heap import freeze_forked_children
from . import shares
from .batches import Batch, WorkerPool
from .core import (Evaluated, EvaluationError, TaskCache, auto_chunk_size, check_batch, chunk_bounds,
                   learned_by, narrowed, one_line)
from .deadline import timed
from .here_or_pool import HERE, POOL, HereOrPool
from .local import LocalEvaluator
from .timing import SecondsPerMember

__all__ = ["ProcessEvaluator", "START_METHOD"]

# fork where the platform makes it safe (Linux): the worker inherits the built task;
# elsewhere (macOS, Windows) spawn, and each worker builds it.
START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() and os.uname().sysname == "Linux" \
    else "spawn"
# One chunk per worker and batch: a task's own cost per call (exact Nim fitness: ~5 ms a call,
# 150 ms for 160 rule genomes in one call, 194 ms in four) is paid once per worker.
CHUNKS_PER_WORKER = 1
# While other batches are in flight (an asynchronous loop), a batch expected to take less than
# this is scored in the driver: a round trip through the workers costs ~1 ms on an idle machine
# and tens of ms on a busy one. A batch submitted alone goes where batches went faster (`here_or_pool`).
INLINE_SECONDS = 0.02
POLL_SECONDS = 1.0  # a worker checks this often that its driver is still alive
SHARES_PER_WORKER = 4  # a `map_pure` call's shares, handed out as workers free: calls differ (a
# repaired crossover child costs several times a mutant), and one share each waited for the slowest

_tasks: TaskCache | None = None  # the driver's task, inherited by forked workers
_helpers: tuple[Callable[..., Any], ...] = ()  # the driver's pure functions (`map_pure`), inherited too
MAP = "map"  # a worker's message for a share of a `map_pure` call: (MAP, key, helper, args)


def _worker_main(conn: Connection, task_spec: dict, code: bytes | None, eval_timeout: float | None,
                 driver: int) -> None:
    """A worker: build (or inherit) the task, say ready, then score chunks until told to stop
    or the driver is gone (a SIGKILLed driver leaves no worker behind)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's: it stops the pool
    tasks, helpers = _tasks, _helpers
    try:
        if tasks is None:
            if code is not None:
                install_bundle(code)
            tasks = TaskCache(task_spec, build_task)
    except Exception as error:  # noqa: BLE001 - said by the driver, in one line
        conn.send(("broken", one_line(error)))
        return
    gc.freeze()  # the task it built (spawned), or its own first objects (forked: what it inherited was
    # frozen at the fork, `heap.freeze_forked_children`): no collection walks them and copies their pages
    conn.send(("ready", os.getpid()))
    while True:
        if not conn.poll(POLL_SECONDS):
            if os.getppid() != driver:
                return
            continue
        message = conn.recv()
        if message is None:
            return
        if message[0] == MAP:
            conn.send(shares.run_share(helpers, *message[1:]))
            continue
        key, genomes, seeds, spec = message
        start = time.perf_counter()
        try:
            task = tasks.get(spec)
            columns = narrowed(timed(task.evaluate, eval_timeout), genomes, seeds, "a chunk")
            seconds = time.perf_counter() - start
            learned = learned_by(task, genomes, spec)
        except Exception as error:  # noqa: BLE001 - malformed columns: the task's bug, said by the driver
            conn.send(("error", key, one_line(error)))
            continue
        conn.send(("done", key, columns, seconds, learned))


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Connection
    number: int
    label: str = ""  # set once ready: "process-2/41234"
    start_failures: int = 0  # failed predecessors that never got ready
    running: tuple[Batch, int] | shares.Share | None = None  # the chunk it scores, or its share of a map


class ProcessEvaluator(WorkerPool):
    """`workers` local processes holding the task; see the module docstring."""

    def __init__(self, task_spec: dict, workers: int, *, chunk_size: int | None = None, max_retries: int = 3,
                 code: bytes | None = None, eval_timeout: float | None = None,
                 helpers: Sequence[Callable[..., Any]] = ()) -> None:
        if workers < 1:
            raise ValueError(f"a process pool needs workers >= 1, got {workers}")
        super().__init__(workers, chunk_size, max_retries)
        self.local = LocalEvaluator(task_spec, eval_timeout)  # builds the task here, first
        self._args = (task_spec, code, eval_timeout, os.getpid())
        self._context = multiprocessing.get_context(START_METHOD)
        self._pool: list[_Worker] = []
        self._numbers = itertools.count(1)
        self._per_genome = SecondsPerMember()  # the run's evaluation seconds a genome (`_short`)
        self._where = HereOrPool()  # where a batch submitted alone is scored
        self._timed: dict[int, float] = {}  # ticket -> when a batch for the workers was submitted
        self._last_ticket = -1
        self._helpers = tuple(helpers) if START_METHOD == "fork" else ()  # spawned workers have none
        self._shares: dict[int, list | None] = {}  # a `map_pure` call's shares back (None: run here)
        self._map_where = HereOrPool()  # where a `map_pure` call runs
        self.mapped_on_workers = 0  # `map_pure` calls run on the workers (bred children they finished)
        self._pool.extend(self._spawn() for _ in range(workers))
        self._spare = self._spawn() if START_METHOD == "fork" else None  # forked before any thread

    def _spawn(self, start_failures: int = 0) -> _Worker:
        global _tasks, _helpers
        here, there = self._context.Pipe()
        number = next(self._numbers)
        process = self._context.Process(target=_worker_main, args=(there, *self._args), daemon=True,
                                        name=f"evo-worker-{number}")
        _tasks, _helpers = (self.local.tasks, self._helpers) if START_METHOD == "fork" else (None, ())
        if START_METHOD == "fork":
            freeze_forked_children()
        try:
            process.start()
        finally:
            _tasks, _helpers = None, ()
        there.close()
        return _Worker(process, here, number, start_failures=start_failures)

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        if self._closed:
            raise RuntimeError("evaluator is closed")
        check_batch(genomes, seeds)
        here = task_spec is None and self._here(len(genomes))
        size = max(len(genomes), 1) if here else \
            chunk_size or self.chunk_size or auto_chunk_size(len(genomes), self.workers, CHUNKS_PER_WORKER)
        batch = Batch(next(self._tickets), genomes, seeds, chunk_bounds(len(genomes), size), task_spec,
                      self._failures)
        self._last_ticket = batch.ticket
        if here:  # one call of the task, timed
            start = time.perf_counter()
            self._score_here(batch, 0)
            self._where.learn(HERE, len(genomes), time.perf_counter() - start)
            return batch.ticket
        if task_spec is None:
            self._timed[batch.ticket] = time.perf_counter()
        self._queue.extend((batch, chunk) for chunk in range(len(batch.bounds)))
        self._dispatch()
        return batch.ticket

    def _here(self, n: int) -> bool:
        """Whether a batch of `n` genomes is scored in the driver: a short one always; one
        submitted while the workers are idle where batches went faster (`here_or_pool`)."""
        if self._short(n):
            return True
        idle = not self._queue and all(worker.running is None for worker in self._pool)
        return idle and not self._where.on_pool(self._per_genome.value)

    def _short(self, n: int) -> bool:
        """Whether `n` genomes are expected to take less than INLINE_SECONDS: scored here, they
        cost no round trip through the workers (measured on the batches that came back)."""
        per_genome = self._per_genome.value
        return per_genome is not None and per_genome * n < INLINE_SECONDS

    def map_pure(self, fn: Callable[..., Any], args: list[tuple]) -> list[Any]:
        """`[fn(*a) for a in args]` for a pure function of the driver's (no draws, no state it
        changes: set cover's repair of bred children, `operators.variation.finish_all`), in shares
        over the workers if `fn` is one of the `helpers`, every worker is ready and idle, and
        calls went faster there (`here_or_pool`); else here."""
        idle = [worker for worker in self._pool if worker.label and worker.running is None]
        if fn not in self._helpers or self._queue or len(idle) < len(self._pool) or len(args) < 2 \
                or not self._map_where.on_pool():
            start = time.perf_counter()
            done = [fn(*a) for a in args]
            self._map_where.learn(HERE, len(args), time.perf_counter() - start)
            return done
        start, parts = time.perf_counter(), shares.split(args, SHARES_PER_WORKER * len(idle))
        self._shares, helper, waiting = {}, self._helpers.index(fn), list(enumerate(parts))[::-1]
        while len(self._shares) < len(parts):
            for worker in self._pool:  # each free worker takes the next share
                if waiting and worker.label and worker.running is None:
                    key, part = waiting.pop()
                    worker.running = shares.Share(key)
                    try:
                        worker.conn.send((MAP, key, helper, shares.pack_args(part)))
                    except OSError:
                        self._lost(worker)
            self._receive_all(POLL_SECONDS)
        done = [x for key, part in enumerate(parts)
                for x in (self._shares[key] if self._shares[key] is not None else [fn(*a) for a in part])]
        self._map_where.learn(POOL, len(args), time.perf_counter() - start)
        self.mapped_on_workers += sum(len(part) for key, part in enumerate(parts) if self._shares[key] is not None)
        return done

    def close(self) -> None:
        """Stop the workers and wait for them: a forked worker shares the run's lock until it exits."""
        if self._closed:
            return
        self._closed = True
        everyone = self._pool + ([self._spare] if self._spare is not None else [])
        self._spare = None
        for worker in everyone:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        for worker in everyone:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._pool.clear()

    # -- scheduling ---------------------------------------------------------

    def _dispatch(self) -> None:
        """Give each free ready worker the next queued chunk."""
        for worker in self._pool:
            if not self._queue:
                return
            if worker.label and worker.running is None:
                batch, chunk = self._queue.popleft()
                start, stop = batch.bounds[chunk]
                worker.running = (batch, chunk)
                try:
                    worker.conn.send((chunk, list(batch.genomes[start:stop]), list(batch.seeds[start:stop]),
                                      batch.task_spec))
                except OSError:
                    self._lost(worker)

    def _pump(self, timeout: float | None) -> None:
        """Wait for a message from any worker; while none is ready yet, score a chunk here."""
        if self._receive_all(0):
            return  # what came may be what the caller waits for: it looks before waiting again
        if self._queue and not any(worker.label for worker in self._pool):
            self._score_here(*self._queue.popleft())
        else:
            self._receive_all(timeout)

    def _receive_all(self, timeout: float | None) -> int:
        """Handle the messages that come within `timeout` seconds (0: those waiting), then
        dispatch; returns how many came."""
        conns = {worker.conn: worker for worker in self._pool}
        ready = wait_for(list(conns), timeout)
        for conn in ready:
            if conns[conn] in self._pool:  # not a worker lost meanwhile
                self._receive(conns[conn])
        self._dispatch()
        return len(ready)

    def _score_here(self, batch: Batch, chunk: int) -> None:
        """A chunk scored by the driver while the workers come up (spawned workers build the task)."""
        start, stop = batch.bounds[chunk]
        scored = self.local.evaluate(batch.genomes[start:stop], batch.seeds[start:stop], batch.task_spec)
        self._finish(batch, chunk, (scored.columns, float(scored.eval_seconds.sum()), scored.worker[0]))

    def _receive(self, worker: _Worker) -> None:
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._lost(worker)
            return
        kind = message[0]
        if kind == "ready":
            worker.label = f"process-{worker.number}/{message[1]}"
            self._note_ready(all(w.label for w in self._pool))
        elif kind == "broken":
            raise EvaluationError(f"building the task in worker process {worker.number}: {message[1]}")
        else:
            assert worker.running is not None
            running, worker.running = worker.running, None
            if isinstance(running, shares.Share):  # its results, or None: an error, the driver runs that share
                self._shares[running.key] = shares.unpack_results(message[2]) if kind == "mapped" else None
                return
            batch, chunk = running
            if kind == "error":
                raise EvaluationError(f"{batch.describe(chunk)} on {worker.label}: {message[2]}")
            batch.learned(chunk, message[4], self.local.task)  # what the driver's task would compute again
            self._finish(batch, chunk, (message[2], message[3], worker.label))

    def _finish(self, batch: Batch, chunk: int, result: tuple[dict, float, str]) -> Evaluated | None:
        """As any pool's, and a whole batch of the run's task teaches the timings (`_here`)."""
        merged = super()._finish(batch, chunk, result)
        if merged is not None and batch.task_spec is None:
            self._per_genome.learn(merged.eval_seconds)
            submitted = self._timed.pop(batch.ticket, None)
            if submitted is not None and batch.ticket == self._last_ticket:  # alone in flight: its wall time counts
                self._where.learn(POOL, len(batch.genomes), time.perf_counter() - submitted)
        return merged

    def _lost(self, worker: _Worker) -> None:
        """A worker died: replace it; its chunk counts one attempt and goes back first in line."""
        self._failures += 1
        self._pool.remove(worker)
        worker.process.join(timeout=1)
        code = worker.process.exitcode
        cause = f"worker process {worker.number} died (exit code {code})"
        worker.conn.close()
        failed_starts = 0 if worker.label else worker.start_failures + 1
        if failed_starts >= self.max_retries:
            raise EvaluationError(f"{cause} before it was ready ({failed_starts} attempts)")
        if failed_starts == 0 and self._spare is not None:  # the spare: ready, and forked before the threads
            self._pool.append(self._spare)
            self._spare = None
        else:
            self._pool.append(self._spawn(failed_starts))
        if isinstance(worker.running, shares.Share):
            self._shares[worker.running.key] = None
        elif worker.running is not None:
            batch, chunk = worker.running
            batch.attempts[chunk] += 1
            if batch.attempts[chunk] >= self.max_retries:
                raise EvaluationError(f"{batch.describe(chunk)} failed {batch.attempts[chunk]} attempts; "
                                      f"last cause: {cause}")
            self._queue.appendleft((batch, chunk))
