"""An embedded Ray that never costs more than it gives: evaluate in-process, hand over when it pays.

On one machine Ray takes seconds to start and stop (and its processes share
the cores with the work), so a short run is fastest with no Ray at all. This
evaluator scores batches in-process; once the batches show that the
expected remaining evaluation is long enough (`worth_seconds`) and a third of
that has already been spent in-process (so a run that stops early on a target
never pays for Ray), it starts the
embedded Ray (a few seconds, in the main thread: Ray wants it) and then the
actor pool in a background thread, keeps evaluating in-process while the
actors start and build the task, and hands over at the first batch after
they are ready. Results never depend on who scored them (seeds come with the
genomes), so the log is the same either way, except the `worker` column.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any, Callable, Sequence

from .core import Evaluated, Evaluator
from .local import LocalEvaluator

# Start Ray only if the remaining evaluation is expected to take longer than
# this: Ray's start and stop cost about 5-10 s of this 2-core machine's time
# (benchmarks/README.md, "One machine: in-process, then Ray").
WORTH_SECONDS = 30.0
# ... and only once this share of it has been spent evaluating in-process: a run
# with a stop target or stagnation limit may end long before its generations
# (runs/nim-gp.toml reaches its target in seconds), and must not pay Ray's start.
PATIENCE_SHARE = 1 / 3


class HandoverEvaluator(Evaluator):
    """In-process first; a Ray actor pool (built by `start_pool`) once it is worth it and ready."""

    def __init__(self, task_spec: dict, workers: int, start_pool: Callable[[], Evaluator],
                 expected_batches: int | None, worth_seconds: float = WORTH_SECONDS,
                 start_ray: Callable[[], None] = lambda: None, eval_timeout: float | None = None) -> None:
        self.workers = workers
        self.local = LocalEvaluator(task_spec, eval_timeout)
        self.pool: Evaluator | None = None
        self.start_error: BaseException | None = None
        self._start_pool = start_pool
        self._start_ray = start_ray
        self._remaining = expected_batches
        self._worth = worth_seconds
        self._local_seconds = 0.0  # evaluation done in-process so far
        self._starter: threading.Thread | None = None
        self._closed = False
        self._tickets = itertools.count()
        self._routes: dict[int, tuple[Evaluator, int]] = {}  # ticket -> (back end, its ticket)

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None) -> Evaluated:
        ticket = self.submit(genomes, seeds, task_spec)
        return self.wait([ticket], every=True)[ticket]

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        if self._closed:
            raise RuntimeError("evaluator is closed")
        if self._remaining is not None and task_spec is None:
            self._remaining -= 1
        ticket = next(self._tickets)
        if self.pool is not None:
            self._routes[ticket] = (self.pool, self.pool.submit(genomes, seeds, task_spec, chunk_size))
            return ticket
        started = time.perf_counter()
        self._routes[ticket] = (self.local, self.local.submit(genomes, seeds, task_spec))
        if task_spec is None:
            self._maybe_start(time.perf_counter() - started)
        return ticket

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        """Local tickets are done already; the pool's are waited for there."""
        done = {}
        for ticket in tickets:
            backend, inner = self._routes[ticket]
            if backend is self.local:
                done[ticket] = self.local.wait([inner])[inner]
        pooled = {self._routes[t][1]: t for t in tickets if t not in done}
        if pooled and (every or not done):
            assert self.pool is not None
            for inner, result in self.pool.wait(list(pooled), every, timeout).items():
                done[pooled[inner]] = result
        for ticket in done:
            del self._routes[ticket]
        return done

    def _maybe_start(self, batch_seconds: float) -> None:
        """After a local batch: start the pool in the background if the rest of the run is long."""
        if self._starter is not None:
            return
        self._local_seconds += batch_seconds
        remaining = float("inf") if self._remaining is None else self._remaining
        if batch_seconds * remaining < self._worth or self._local_seconds < self._worth * PATIENCE_SHARE:
            return
        try:
            self._start_ray()  # Ray's own start wants the main thread (signal handlers)
        except Exception as error:  # noqa: BLE001 - the run goes on in-process
            self.start_error = error
            self._starter = threading.Thread()  # never again
            return
        self._starter = threading.Thread(target=self._start, name="ray-start", daemon=True)
        self._starter.start()

    def _start(self) -> None:
        try:
            pool = self._start_pool()
        except BaseException as error:  # noqa: BLE001 - the run goes on in-process
            self.start_error = error
            return
        if self._closed:
            pool.close()
        else:
            self.pool = pool

    @property
    def handed_over(self) -> bool:
        return self.pool is not None

    def close(self) -> None:
        """Stop the pool (and the Ray it started) if it ever came up."""
        if self._closed:
            return
        self._closed = True
        if self._starter is not None and self._starter.is_alive():
            self._starter.join()  # a half-started Ray must not outlive the run
        if self.pool is not None:
            self.pool.close()
