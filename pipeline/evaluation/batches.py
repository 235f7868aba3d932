"""A batch as a pool of workers tracks it (its chunks, their attempts and results), and what
both pools keep alike (`WorkerPool`: the Ray actors' `ray_pool`, the processes' `processes`).

Kept free of Ray. A chunk that runs past `eval_timeout` is cut into chunks of one genome
(`split`), so the batch's chunks grow while it is in flight; results are merged by position.
"""

from __future__ import annotations

import itertools
import time
from abc import abstractmethod
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Sequence

from .core import Evaluated, Evaluator, merge_chunks
from .transport import pack, sealed

__all__ = ["Batch", "WorkerPool"]


@dataclass(eq=False)
class Batch:
    ticket: int
    genomes: Sequence[Any]
    seeds: Sequence[int]
    bounds: list[tuple[int, int]]
    task_spec: dict | None
    failures_before: int  # the pool's failure count when the batch was submitted
    attempts: list[int] = field(init=False)
    results: list[tuple[dict, float, str] | None] = field(init=False)
    remaining: int = field(init=False)

    def __post_init__(self) -> None:
        self.attempts = [0] * len(self.bounds)
        self.results = [None] * len(self.bounds)
        self.remaining = len(self.bounds)

    def describe(self, chunk: int) -> str:
        start, stop = self.bounds[chunk]
        return f"chunk {chunk + 1} of {len(self.bounds)} (genomes {start}-{stop - 1})"

    def call(self, chunk: int) -> bytes:
        """Chunk `chunk` as an actor's `evaluate` takes it: genomes `pack`ed, seeds, task spec, `sealed`."""
        start, stop = self.bounds[chunk]
        return sealed((pack(self.genomes[start:stop]), list(self.seeds[start:stop]), self.task_spec))

    def learned(self, chunk: int, learned: Any, task: Any) -> None:
        """Hand `task` (in this process) what a worker's task learned scoring chunk `chunk`, if
        anything (`core.learned_by`)."""
        if learned is not None and task is not None:
            start, stop = self.bounds[chunk]
            task.learn(self.genomes[start:stop], learned)

    def split(self, chunk: int) -> list[int]:
        """Chunk `chunk` cut into chunks of one genome each (a timed-out chunk); their indices."""
        start, stop = self.bounds[chunk]
        self.bounds[chunk] = (start, start + 1)
        added = list(range(len(self.bounds), len(self.bounds) + stop - start - 1))
        self.bounds += [(i, i + 1) for i in range(start + 1, stop)]
        self.attempts += [0] * len(added)
        self.results += [None] * len(added)
        self.remaining += len(added)
        return [chunk, *added]

    def merged(self, failures: int) -> Evaluated:
        """The batch's result once every chunk is back (split chunks in genome order)."""
        order = sorted(range(len(self.bounds)), key=lambda chunk: self.bounds[chunk])
        return merge_chunks([self.results[c] for c in order], [self.bounds[c] for c in order], failures)


class WorkerPool(Evaluator):
    """What a pool of workers keeps whatever runs the chunks: the queue of chunks, the batches
    done, when its workers got ready, and `wait` over a `_pump` of the back end's messages."""

    def __init__(self, workers: int, chunk_size: int | None, max_retries: int) -> None:
        self.workers = workers
        self.chunk_size = chunk_size
        self.max_retries = max_retries
        self.started = time.monotonic()
        self.first_ready: float | None = None  # seconds from start to the first ready worker
        self.all_ready: float | None = None  # ... and to the last
        self._queue: deque[tuple[Batch, int]] = deque()  # chunks waiting for a worker
        self._done: dict[int, Evaluated] = {}
        self._tickets = itertools.count()
        self._failures = 0
        self._closed = False

    @abstractmethod
    def _pump(self, timeout: float | None) -> None:
        """Handle what the workers send within `timeout` seconds (None: the back end's own wait)."""

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        if self._closed:
            raise RuntimeError("evaluator is closed")
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            ready = [t for t in tickets if t in self._done]
            left = None if deadline is None else deadline - time.monotonic()
            if (ready and (not every or len(ready) == len(tickets))) or (left is not None and left <= 0):
                return {t: self._done.pop(t) for t in ready}
            self._pump(left)

    def _finish(self, batch: Batch, chunk: int, result: tuple[dict, float, str]) -> Evaluated | None:
        """Place a chunk's (columns, seconds, worker label); the batch's result once it is whole."""
        batch.results[chunk] = result
        batch.remaining -= 1
        if batch.remaining:
            return None
        merged = self._done[batch.ticket] = batch.merged(self._failures - batch.failures_before)
        return merged

    def _note_ready(self, every_worker: bool) -> None:
        """A worker got ready (`every_worker`: the last of them): the first and last such seconds."""
        now = time.monotonic() - self.started
        self.first_ready = now if self.first_ready is None else self.first_ready
        if every_worker and self.all_ready is None:
            self.all_ready = now
