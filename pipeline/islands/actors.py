"""An island's own evaluation actors, driven from its runner: no process between them.

Import only after `ray_connect.connect()` (it imports Ray).

The driver's pool (`ray_pool.RayEvaluator`) starts the actors and replaces
dead ones; each island runner gets a share of them (`shares`, the actors of
its node first) and sends them its chunks itself. Every chunk is one Ray call
of the runner's CPU (a few hundred µs, more on busy cores), so a batch goes
out as one chunk per actor (`island_chunk`): a generation waits for its last
genome whatever the chunks, and smaller ones, all sent at once as they were,
only cost calls. An
actor that dies gives its chunks back to the queue for the island's others
(one attempt counted for the chunk it ran, `max_retries` at most) and is
reported (`lost`) so that the driver replaces it; with none left the island
raises `ActorsLost` and the driver starts the islands again.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from typing import Any, Sequence

import ray
from ray.exceptions import RayError, RayTaskError

from ..evaluation.batches import Batch
from ..evaluation.core import MAX_AUTO_CHUNK, Evaluated, EvaluationError, Evaluator, check_batch, chunk_bounds, one_line
from ..evaluation.ray_pool import Slot
from ..evaluation.transport import opened
from .epochs import IslandsLost

__all__ = ["ActorsLost", "IslandActors", "island_chunk", "shares"]

LANES = 2  # chunks in flight per actor where a batch has more than one each: one running, one queued


class ActorsLost(IslandsLost):
    """Every evaluation actor of an island died: the islands start again on fresh ones."""


def island_chunk(n: int, workers: int) -> int:
    """Genomes a chunk for a batch of `n` on `workers` actors: one chunk per actor (at most
    `MAX_AUTO_CHUNK` genomes; a bigger batch queues the rest, `LANES` chunks in flight per actor)."""
    return max(1, min(MAX_AUTO_CHUNK, math.ceil(n / max(workers, 1))))


def shares(slots: Sequence[Slot], nodes: Sequence[str], islands: int) -> list[list[Slot]]:
    """The actors of each island (`nodes`: each slot's node id): as even a split as the pool allows
    (sizes differ by one at most), actors of one node kept together, so that a runner placed on its
    first actor's node has them beside it."""
    ordered = [slot for _, _, slot in sorted(zip(nodes, (s[1] for s in slots), slots), key=lambda t: t[:2])]
    cut = [round(i * len(ordered) / islands) for i in range(islands + 1)]
    if len(ordered) < islands:  # fewer actors than islands: islands share them
        return [[ordered[i % len(ordered)]] for i in range(islands)] if ordered else [[] for _ in range(islands)]
    return [ordered[cut[i]:cut[i + 1]] for i in range(islands)]


class IslandActors(Evaluator):
    """An island runner's evaluator over its share of the pool's actors (see the module docstring)."""

    def __init__(self, slots: Sequence[Slot], max_retries: int = 3, fixed_chunk: int | None = None,
                 learner: Any = None) -> None:
        """`learner`: the runner's task, which takes what the actors' tasks learned (`task.learn`)."""
        self.max_retries, self.fixed_chunk, self.learner = max_retries, fixed_chunk, learner
        self.actors: dict[int, Any] = {}  # number -> handle, ready
        self.labels: dict[int, str] = {}  # number -> "actor-3@127.0.0.1/1a2b3c4d" (the log's worker)
        self.starting: dict[Any, tuple[int, Any]] = {}  # setup ref -> (number, handle)
        self.load: dict[int, deque] = {}  # number -> its chunk refs, in submission order
        self.lost: list[tuple[int, str]] = []  # (number, cause) of actors found dead, for the driver
        self.adopt(slots)
        self._queue: deque[tuple[Batch, int]] = deque()
        self._running: dict[Any, tuple[Batch, int, int]] = {}  # chunk ref -> (batch, chunk, actor number)
        self._done: dict[int, Evaluated] = {}
        self._tickets = itertools.count()
        self._failures = 0

    @property
    def workers(self) -> int:
        return len(self.actors) + len(self.starting)

    def adopt(self, slots: Sequence[Slot]) -> None:
        """Take these actors (a successor of a dead one among them) once they have built the task."""
        known = set(self.actors) | {number for number, _ in self.starting.values()}
        gone = {number for number, _ in self.lost}
        for handle, number, setup in slots:
            if number not in known and number not in gone:
                self.starting[setup] = (number, handle)

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        check_batch(genomes, seeds)
        size = chunk_size or self.fixed_chunk or island_chunk(len(genomes), self.workers)
        batch = Batch(next(self._tickets), genomes, seeds, chunk_bounds(len(genomes), size), task_spec,
                      self._failures)
        self._queue.extend((batch, chunk) for chunk in range(len(batch.bounds)))
        self._dispatch()
        return batch.ticket

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        while True:
            ready = [t for t in tickets if t in self._done]
            if ready and (not every or len(ready) == len(tickets)):
                return {t: self._done.pop(t) for t in ready}
            self._pump(every)

    def close(self) -> None:
        """Nothing to release: the actors are the driver's pool's."""

    def _pump(self, every: bool) -> None:
        """Wait for a chunk (or an actor's setup), then take in every one that is back. `every`:
        the caller waits for all its batches (a generation), not the first back (steady-state)."""
        self._dispatch()
        waiting = [*self._running, *self.starting]
        if not waiting:
            raise ActorsLost(f"no evaluation actor left; last lost: {self.lost[-1][1] if self.lost else '-'}")
        # every chunk of a generation sent and no actor starting: one wait for all of them (each
        # Ray call costs the runner CPU); else the first back, to send the next chunk to its actor
        every = every and not self._queue and not self.starting
        ready, _ = ray.wait(waiting, num_returns=len(waiting) if every else 1)
        if not every:
            ready, _ = ray.wait(waiting, num_returns=len(waiting), timeout=0)
        chunks = [ref for ref in ready if ref in self._running]
        for ref in ready:
            if ref in self.starting:
                self._started(ref)
        try:
            values = ray.get(chunks)
        except RayError:  # one failed: each on its own, to say which
            values = [None] * len(chunks)
        for ref, value in zip(chunks, values):
            if ref in self._running:  # not given back already with its dead actor's others
                self._finished(ref, value)

    def _started(self, ref: Any) -> None:
        number, handle = self.starting.pop(ref)
        try:
            ip, node = ray.get(ref)
        except RayTaskError as error:  # the task spec itself is broken
            raise EvaluationError(f"building the task on actor-{number}: {one_line(error.cause)}") from None
        except RayError as error:
            self.lost.append((number, one_line(error)))
            return
        self.actors[number], self.load[number] = handle, deque()
        self.labels[number] = f"actor-{number}@{ip}/{node[:8]}"

    def _dispatch(self) -> None:
        """Waiting chunks to the least loaded actors, `LANES` at most each."""
        while self._queue and self.actors:
            number = min(self.actors, key=lambda n: len(self.load[n]))
            if len(self.load[number]) >= LANES:
                return
            batch, chunk = self._queue.popleft()
            ref = self.actors[number].evaluate.remote(batch.call(chunk))
            self.load[number].append(ref)
            self._running[ref] = (batch, chunk, number)

    def _finished(self, ref: Any, value: bytes | None = None) -> None:
        batch, chunk, number = self._running.pop(ref)
        try:
            columns, seconds, learned = opened(value if value is not None else ray.get(ref))
        except RayTaskError as error:  # the task raised: a bad genome, not a bad worker
            raise EvaluationError(f"{batch.describe(chunk)} on {self.labels[number]}: {one_line(error.cause)}") \
                from None
        except RayError as error:
            self._running[ref] = (batch, chunk, number)
            self._fail(number, one_line(error))
            return
        self.load[number].remove(ref)
        batch.learned(chunk, learned, self.learner)
        batch.results[chunk] = (columns, seconds, self.labels[number])
        batch.remaining -= 1
        if batch.remaining == 0:
            self._done[batch.ticket] = batch.merged(self._failures - batch.failures_before)

    def _fail(self, number: int, cause: str) -> None:
        """Actor `number` died: its chunks back to the front of the queue (the one it ran counts
        an attempt), the actor reported."""
        refs = self.load.pop(number)
        del self.actors[number]
        self.lost.append((number, cause))
        self._failures += 1
        chunks = [self._running.pop(ref)[:2] for ref in refs]
        batch, culprit = chunks[0]
        batch.attempts[culprit] += 1
        if batch.attempts[culprit] >= self.max_retries:
            raise EvaluationError(f"{batch.describe(culprit)} failed {batch.attempts[culprit]} attempts; "
                                  f"last cause: {cause}")
        self._queue.extendleft(reversed(chunks))
