"""One queue of chunks for every island, pulled by every evaluation actor.

Import only after `ray_connect.connect()` (it imports Ray).

Why one queue: an island's generation is a barrier, and while an island waits
for its slowest chunk the other islands' chunks must keep every actor busy.
Letting each island runner dispatch its own chunks over all the actors needs
chunks small enough for every island to reach every actor (2 genomes at
W = 64, 8 islands of 128), and that many Ray calls hold a 2-core machine to
0.31 of its workers before any evolution; with chunks the machine can carry
(8 genomes) each runner, knowing only its own chunks, fills the same few
actors while others idle: measured 0.46 of 64 workers at t = 20 ms, σ = 1.
The `Dispatcher` (an asyncio actor, no CPU of its own) holds one queue and
sends each chunk to the least loaded actor (join the shortest queue: an idle
actor first, at most `LANES` chunks on one), so an actor idles only when no
island has a chunk waiting. When none is waiting and `execution.steal` is
on, an idle actor steals (`stealing.py`): a chunk queued on another actor
whole, or the unstarted half of a running one, the piece with the most
genomes first; the actor's answer says where the piece now stops, and the
rest becomes a piece of its own at the front of the queue. A chunk's result
is its pieces' slices in genome order, whoever ran them.

A dead actor's pieces go back to the front of the queue for the others
(counting one attempt, `max_retries` at most) and the actor is reported to
the driver (`lost`), which replaces it; the successor takes chunks once it
has built its task (`adopt`).
"""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Sequence

import ray
from ray.exceptions import RayError, RayTaskError

from .core import MAX_AUTO_CHUNK, Evaluated, EvaluationError, Evaluator, check_batch, chunk_bounds, merge_chunks, \
    one_line
from .ray_pool import Slot
from .timing import SecondsPerMember
from .transport import pack

__all__ = ["DispatchedEvaluator", "Dispatcher", "LANES"]

LANES = 2  # chunks on an actor at once: one running, the next beside it
FINE_CHUNK_SECONDS = 0.1  # chunks half the default size once one takes at least this long


@dataclass(eq=False)
class _Job:
    """A chunk as a runner sent it; evaluated in pieces once actors steal from it."""

    packed: tuple | list  # transport.pack's form
    seeds: list[int]
    future: asyncio.Future
    slices: dict[int, tuple] = field(default_factory=dict)  # start -> (columns, seconds, start, stop, label)
    covered: int = 0  # genomes back
    attempts: int = 0  # failures counted against this chunk
    requeued: int = 0  # times a piece of it went back to the queue


@dataclass(eq=False)
class _Piece:
    """Genomes [start, stop) of a job; `stop` moves back when an idle actor steals the rest."""

    job: _Job
    start: int
    stop: int
    ticket: int | None = None  # its current dispatch, as the actor knows it
    stealing: bool = False  # a steal from it is under way
    spent: bool = False  # a steal took nothing: the rest has begun


@dataclass(eq=False)
class _Lane:
    """An evaluation actor as the dispatcher sees it."""

    handle: Any
    label: str = ""  # set once it has built its task
    load: int = 0  # pieces on it now (and a steal it waits for)
    started: int = 0  # when it last got a piece (a counter): ties go to the one idle longest
    pieces: list[_Piece] = field(default_factory=list)  # on it now, in execution order


class Dispatcher:
    """A Ray actor (asyncio): the island model's shared queue of chunks (module docstring)."""

    def __init__(self, max_retries: int = 3, steal: bool = False, first_ticket: int = 1) -> None:
        """`first_ticket`: where this dispatcher's numbering of dispatches starts; a successor
        starts past its predecessor's, as stealing actors remember tickets across them."""
        self.max_retries = max_retries
        self.steal = steal  # the actors are `_StealingTaskActor`s: idle ones take work from busy ones
        self.actors: dict[int, _Lane] = {}  # by actor number; dead ones removed
        self.gone: set[int] = set()  # actors found dead
        self.unreported: list[tuple[int, str]] = []  # (number, cause) not yet told to the driver
        self.broken: EvaluationError | None = None  # the task cannot be built: every chunk would fail
        self.waiting: deque[_Piece] = deque()
        self._clock = itertools.count(first_ticket)

    async def adopt(self, slots: list[Slot]) -> int:
        """Take in the actors of `slots` it does not know yet; returns how many are ready."""
        for handle, number, setup in slots:
            if number not in self.actors and number not in self.gone:
                self.actors[number] = _Lane(handle)
                asyncio.get_running_loop().create_task(self._start(number, setup))
        return sum(1 for lane in self.actors.values() if lane.label)

    async def lost(self) -> list[tuple[int, str]]:
        """Actors found dead since the last call, with the cause (the driver replaces them)."""
        told, self.unreported = self.unreported, []
        return told

    async def evaluate(self, chunks: list[list]) -> tuple[list[list[tuple]], int]:
        """Per chunk, its slices' (columns, seconds, start, stop, worker label) in genome order;
        and the failures recovered. `chunks`: [packed genomes, seeds] each."""
        if self.broken is not None:
            raise self.broken
        loop = asyncio.get_running_loop()
        jobs = [_Job(packed, seeds, loop.create_future()) for packed, seeds in chunks]
        self.waiting.extend(_Piece(job, 0, len(job.seeds)) for job in jobs)
        self._dispatch()
        results = await asyncio.gather(*(job.future for job in jobs))
        return list(results), sum(job.requeued for job in jobs)

    def _dispatch(self) -> None:
        """Waiting pieces to the least loaded ready actors (an idle actor first), `LANES` at most
        each; then idle actors steal, if nothing waits."""
        while self.waiting:
            ready = [(lane.load, lane.started, number) for number, lane in self.actors.items() if lane.label]
            if not ready or min(ready)[0] >= LANES:
                return
            piece = self.waiting.popleft()
            if piece.job.future.done():  # another chunk of its batch failed for good
                continue
            number = min(ready)[2]
            lane = self.actors[number]
            lane.load += 1
            lane.started = next(self._clock)
            piece.ticket, piece.spent = next(self._clock), False
            lane.pieces.append(piece)
            asyncio.get_running_loop().create_task(self._run(number, lane, piece))
        if self.steal:
            self._steal_for_idle()

    def _steal_for_idle(self) -> None:
        """Each idle actor starts taking the unstarted part of a piece on another actor: queued
        pieces first, then the biggest."""
        thieves = [lane for lane in self.actors.values() if lane.label and not lane.load]
        if not thieves:
            return
        pieces = sorted(((index > 0, piece.stop - piece.start, lane.started, piece, lane)
                         for lane in self.actors.values() for index, piece in enumerate(lane.pieces)
                         if not piece.stealing and not piece.spent and piece.stop - piece.start > 1),
                        key=lambda p: p[:3], reverse=True)
        for thief, (*_, piece, victim) in zip(thieves, pieces):
            thief.load += 1  # held for the piece it will get
            piece.stealing = True
            asyncio.get_running_loop().create_task(self._steal(thief, victim, piece))

    async def _steal(self, thief: _Lane, victim: _Lane, piece: _Piece) -> None:
        ticket, stop = piece.ticket, piece.stop
        try:
            cut = await victim.handle.steal.remote(ticket, piece.start, stop)
        except RayError:  # the victim is dead: its pieces go back to the queue anyway
            cut = stop
        piece.stealing = False
        thief.load -= 1
        if cut < stop and piece.ticket == ticket:  # still the dispatch the actor cut
            piece.stop = cut
            self.waiting.appendleft(_Piece(piece.job, cut, stop))
        else:
            piece.spent = True
        self._dispatch()

    async def _start(self, number: int, setup: Any) -> None:
        try:
            ip, node = await setup
        except RayTaskError as error:
            self.broken = EvaluationError(f"building the task on actor-{number}: {one_line(error.cause)}")
            for piece in self.waiting:
                if not piece.job.future.done():
                    piece.job.future.set_exception(self.broken)
            return
        except RayError as error:
            self._gone(number, one_line(error))
            return
        if number in self.actors:
            self.actors[number].label = f"actor-{number}@{ip}/{node[:8]}"
            self._dispatch()

    async def _run(self, number: int, lane: _Lane, piece: _Piece) -> None:
        job = piece.job
        try:
            if self.steal:
                slices = await lane.handle.evaluate_range.remote(piece.ticket, job.packed, job.seeds, piece.start,
                                                                 piece.stop)
            else:  # the whole chunk in one call
                slices = [(*await lane.handle.evaluate.remote(job.packed, job.seeds), 0, len(job.seeds))]
        except RayTaskError as error:  # the task raised: a bad genome, not a bad worker
            if not job.future.done():
                job.future.set_exception(EvaluationError(f"a chunk on {lane.label}: {one_line(error.cause)}"))
        except RayError as error:
            self._retry(piece, number, one_line(error))
        else:
            self._collect(job, [(*part, lane.label) for part in slices])
        finally:
            lane.load -= 1
            lane.pieces.remove(piece)
            self._dispatch()

    @staticmethod
    def _collect(job: _Job, slices: list[tuple]) -> None:
        for part in slices:
            if part[2] not in job.slices and (part[3] > part[2] or not job.seeds):  # an empty batch's names
                job.slices[part[2]] = part
                job.covered += part[3] - part[2]
        if job.covered == len(job.seeds) and not job.future.done():
            job.future.set_result([job.slices[start] for start in sorted(job.slices)])

    def _gone(self, number: int, cause: str) -> bool:
        """Mark actor `number` dead (True the first time)."""
        if number in self.gone:
            return False
        self.gone.add(number)
        self.actors.pop(number, None)
        self.unreported.append((number, cause))
        return True

    def _retry(self, piece: _Piece, number: int, cause: str) -> None:
        job = piece.job
        piece.ticket = None  # a steal answered late by the dead actor cuts nothing
        if self._gone(number, cause):  # a piece only queued behind the culprit counts no attempt
            job.attempts += 1
        job.requeued += 1
        if job.future.done() or (piece.start == piece.stop and job.seeds):  # or all of it stolen before it began
            return
        if job.attempts >= self.max_retries:
            job.future.set_exception(EvaluationError(f"a chunk failed {job.attempts} attempts; last cause: {cause}"))
        else:
            self.waiting.appendleft(piece)


class DispatchedEvaluator(Evaluator):
    """An island runner's evaluator: its batches go to the shared `Dispatcher` in chunks."""

    def __init__(self, dispatcher: Any, workers: int, islands: int, chunk_size: int | None = None,
                 per_member: SecondsPerMember | None = None) -> None:
        self.dispatcher = dispatcher
        self.workers = workers
        self.islands = islands
        self.chunk_size = chunk_size
        self.per_member = per_member or SecondsPerMember()  # learnt from the batches back (the runner keeps it)
        self._tickets = itertools.count()
        self._running: dict[int, tuple[Any, list[tuple[int, int]]]] = {}

    def size(self, n: int) -> int:
        """Genomes per chunk: every island's batch in flight fills `LANES` lanes per actor.
        Measured (8 islands of 128, t = 20 ms, lognormal jitter, 4 nodes on a 2-core machine):
        at W = 32, two per actor (16 genomes) 0.79-0.82, four 0.80-0.86, one 0.68;
        at W = 64, where 64 actors and the evolution saturate the 2 cores, fewer and bigger
        chunks did better (0.43 against 0.31-0.41): `execution.chunk_size` sets it.
        Chunks half that size (four per actor) once they still take `FINE_CHUNK_SECONDS`: the
        slowest chunk of an island's generation is shorter. Measured later on a quieter machine
        (local Ray, sigma = 1, t = 20 ms, two runs each): W = 32, 8 genomes 0.88 and 0.88 against
        16 genomes 0.78 and 0.78; W = 8, 32 genomes 0.96 against 64 genomes 0.95; at W = 64
        (4 against 8 genomes, 0.47 against 0.49) and at t = 2 ms (32 against 64 genomes, 0.73
        against 0.81) they would be smaller than that, and are not used."""
        if self.chunk_size is not None:
            return self.chunk_size
        coarse = math.ceil(n * self.islands / (LANES * max(self.workers, 1)))
        fine = math.ceil(coarse / 2)
        seconds = self.per_member.value
        if seconds is not None and fine * seconds >= FINE_CHUNK_SECONDS:
            return max(1, min(MAX_AUTO_CHUNK, fine))
        return max(1, min(MAX_AUTO_CHUNK, coarse))

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        check_batch(genomes, seeds)
        bounds = chunk_bounds(len(genomes), chunk_size or self.size(len(genomes)))
        chunks = [[pack(genomes[a:b]), list(seeds[a:b])] for a, b in bounds]  # lists: msgpack, not pickle
        ticket = next(self._tickets)
        self._running[ticket] = (self.dispatcher.evaluate.remote(chunks), bounds)
        return ticket

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        done = {}
        for ticket in tickets:
            ref, bounds = self._running.pop(ticket)
            try:
                chunks, failures = ray.get(ref)
            except RayTaskError as error:  # the dispatcher's own EvaluationError, unwrapped
                raise error.cause from None
            slices = [(offset + a, offset + b, (columns, seconds, label))
                      for (offset, _), parts in zip(bounds, chunks) for columns, seconds, a, b, label in parts]
            done[ticket] = merge_chunks([s[2] for s in slices], [s[:2] for s in slices], failures)
            if len(done[ticket].eval_seconds):  # the runner's first batch (the actors' warm-up) left out
                self.per_member.learn(done[ticket].eval_seconds)
        return done

    def close(self) -> None:
        """Nothing to release: the dispatcher and the actors are the driver's."""
