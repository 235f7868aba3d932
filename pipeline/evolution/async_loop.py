"""The asynchronous run loop (LEAP's `steady_state` driver): no barrier, every worker busy.

It keeps batches in flight on the evaluator (`submit`); as batches come back
(`wait` for any), new children are bred and sent to the freed workers first,
from the population as it stands, and only then are the returned members told
to the algorithm one by one in arrival order: a worker does not wait for the
driver's insertions and logging (W = 32, t = 2 ms: 0.75 busy against 0.65
telling first; a child is bred from one batch fewer of the arrivals). Every
`offspring` arrivals (the first `size` for generation 0; with `[islands]`,
`count` times those) make a generation: islands migrate if it is one of
theirs (`migrate`), the tracker keeps the books, the recorder commits it
(the migrants after the arrivals), hooks hear its row and the stop rules are
checked. A batch goes to one worker in one call, sized to take about
max(`BATCH_SECONDS`, 0.004 W) s of evaluation, so the driver's cost per call
stays a small share of its time. What is in flight is bounded twice: two
batches a worker (one running, the next beside it), and `in_flight`
generations' children in all (how stale a parent can be; `[execution]
in_flight`), so a batch holds at most in_flight x a generation's
arrivals / W members (and one island's `offspring`). Where evaluations are
short and workers many that cap makes the batches small and the calls many
(W = 64, t = 2 ms, lambda = 1,024: 32 members, a call every 1 ms); a larger
`in_flight` trades staler parents for fewer calls. The default, `"auto"`,
chooses it from the measured evaluation time and the workers
(`auto_in_flight`): W = 64, t = 2 ms, lambda = 1,024 gets 8 (0.98 of the
ceiling on 16 cores against 0.49 with 2), long evaluations keep 2.
Where the evaluation is so short that the time asks for more than half of
that, fewer, larger batches are in flight (down to one a worker): the same
staleness with fewer calls, which is what the driver runs out of at t = 2 ms
(W = 32, before the freed workers came first: 0.69 busy against 0.62-0.65
with two batches of half the size). One batch a worker would leave each
freed worker idle until the driver gets to it (a median 6 ms of a 145 ms
batch at W = 32, t = 2 ms, and the tail when it is recording), so one batch
more for every `WORKERS_PER_BATCH_AHEAD` workers is sent ahead; the pool
queues it behind the actor whose batch started first (`ray_pool`), the next
to finish: the median gap fell to 1.4-2 ms, for ceil(W / 8) batches more in
flight (a quarter of a generation's children where W is a multiple of 8).

With workers = 0 one child at a time is bred, scored and told, in that order
(the next is bred after it is told): the run is deterministic and resumes
exactly.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from functools import partial

import numpy as np

from ..evaluation import Evaluated
from ..evaluation.seeds import Ahead, generator_states, seeded_generator
from ..evaluation.timing import SecondsPerMember
from ..spec_execution import DEFAULT_IN_FLIGHT, FIXED_IN_FLIGHT
from .algorithms import AsynchronousAlgorithm
from .loop import Hook, Loop, Recording
from .members import Member
from .scoring import Scorer
from .state import State
from .tracking import Tracker

__all__ = ["AsyncLoop", "auto_in_flight", "batch_rngs"]

BATCH_SECONDS = 0.2  # evaluation time a batch aims at, at least (0.05 kept 0.83-0.93 of 1-8 workers busy, 0.2 0.93-0.97) ...
CALL_SECONDS_PER_WORKER = 0.004  # ... and this per worker: a Ray call costs the driver ~1 ms, so W
# workers finishing a batch every 0.004 W s take at most a quarter of its time
IN_FLIGHT_PER_WORKER = 2  # batches a worker holds at most
WORKERS_PER_BATCH_AHEAD = 8  # a batch more in flight for every 8 workers, where the bounds leave one a worker
AUTO_MOST_IN_FLIGHT = 16  # generations' children in flight "auto" chooses at most (W = 128, t = 2 ms, lambda = 2,048)
_BATCH_STREAM = 2  # variation draws of batch b: SeedSequence([seed, b, 2]), apart from generations' stream 1


def batch_rngs(words: tuple[int, ...], stream: int) -> Ahead:
    """The seeding of batch b's variation draws, `default_rng(SeedSequence([*words, b, stream]))`,
    64 batches' at once (`seeded_generator` makes each: one alone cost an in-process steady-state
    run ~16 us of its ~130 an arrival)."""
    return Ahead(partial(generator_states, words, after=(stream,)), partial(_generator_state, words, stream))


def _generator_state(words: tuple[int, ...], stream: int, batch: int) -> np.ndarray:
    return np.random.SeedSequence([*words, batch, stream]).generate_state(4, np.uint64)


def auto_in_flight(seconds_per_member: float | None, workers: int, offspring: int) -> int:
    """`[execution] in_flight = "auto"`: the fewest generations' children in flight whose share per
    worker holds a batch of CALL_SECONDS_PER_WORKER x W s of evaluation, so the driver's calls
    (~1 ms each, W workers each back once a batch) take at most a quarter of its time; from
    FIXED_IN_FLIGHT (long evaluations: parents as fresh as before "auto") to AUTO_MOST_IN_FLIGHT.
    `offspring`: a generation's arrivals; until an evaluation time is measured, FIXED_IN_FLIGHT."""
    if not seconds_per_member or seconds_per_member <= 0 or workers <= 0 or offspring <= 0:
        return FIXED_IN_FLIGHT
    batch = CALL_SECONDS_PER_WORKER * workers / seconds_per_member  # members a batch should hold
    generations = math.ceil(batch * workers / offspring * (1 - 1e-9))  # 8.000000001 is 8
    return min(AUTO_MOST_IN_FLIGHT, max(FIXED_IN_FLIGHT, generations))


class AsyncLoop(Loop):
    """Runs an `algorithms.AsynchronousAlgorithm` (its optional `islands` and `migrate` included)."""

    def __init__(self, algorithm: AsynchronousAlgorithm, scorer: Scorer, tracker: Tracker, recorder: Recording,
                 seed: int, hooks: list[Hook] | None = None, in_flight: int | str = DEFAULT_IN_FLIGHT,
                 least_batch_seconds: float = BATCH_SECONDS, rngs: Ahead | None = None) -> None:
        """`least_batch_seconds`: the evaluation a batch aims at, at least (an island's own loop
        aims higher: `islands.steady.ISLAND_BATCH_SECONDS`); `rngs`: the seeding of each batch's
        variation draws (`batch_rngs`; default the run's stream, an island's loop its own)."""
        super().__init__(algorithm, scorer, tracker, recorder, seed, hooks)
        settings, islands = algorithm.settings, int(getattr(algorithm, "islands", 1))
        self.size, self.offspring = settings.size * islands, settings.offspring * islands  # of all islands
        self.island_offspring = settings.offspring
        self.workers = max(int(getattr(scorer.evaluator, "workers", 0)), 0)
        self.in_flight = in_flight  # `[execution] in_flight`: generations, or "auto" (`auto_in_flight`)
        self.batch_seconds = max(least_batch_seconds, CALL_SECONDS_PER_WORKER * self.workers)
        self._per_member = SecondsPerMember()
        self._rngs = rngs or batch_rngs((seed,), _BATCH_STREAM)

    @property
    def stale_children(self) -> int:
        """Children in flight at most: `in_flight` generations' arrivals."""
        generations = (auto_in_flight(self._per_member.value, self.workers, self.offspring)
                       if self.in_flight == "auto" else int(self.in_flight))
        return generations * self.offspring

    @property
    def max_batch(self) -> int:
        """A batch is of one island: at most its share of the children in flight (one in-process)."""
        return 1 if self.workers == 0 else max(1, min(self.stale_children // self.workers, self.island_offspring))

    def run(self, state: State) -> tuple[State, str]:
        pending: dict[int, list[Member]] = {}
        generation: list[Member] = []  # arrivals since the last recorded generation
        self._started, self._failures = time.perf_counter(), 0
        reason = self.tracker.stop_reason(state)
        while reason is None:
            state, returned = self._returned(state, pending)
            for members, result in returned:
                self._scored(members, result)
                state, generation, reason = self._arrive(state, generation, members)
                if reason is not None:
                    return state, reason
        return state, reason

    def _returned(self, state: State, pending: dict[int, list[Member]]) -> \
            tuple[State, list[tuple[list[Member], Evaluated]]]:
        """Top up what is in flight, wait for any batch back, and send the freed workers theirs
        first: the batches back (members, result), in submission order, not yet applied."""
        state = self._top_up(state, pending)
        done = self.scorer.evaluator.wait(list(pending))
        returned = [(pending.pop(ticket), done[ticket]) for ticket in sorted(done)]
        if self.workers:  # in-process the next child waits for this one's telling
            state = self._top_up(state, pending)
        return state, returned

    def _scored(self, members: list[Member], result: Evaluated) -> None:
        """A batch's result applied to its members, its failures and timing counted."""
        self.scorer.apply(members, result)
        self._failures += int(result.failures)
        self._per_member.learn([m.eval_seconds for m in members], members[0].worker if members else None)

    def _top_up(self, state: State, pending: dict[int, list[Member]]) -> State:
        """Breed and send batches until `_in_flight()` are pending."""
        while len(pending) < self._in_flight():
            state = self._send(state, pending)
        return state

    def _send(self, state: State, pending: dict[int, list[Member]]) -> State:
        batch = int(state.extra.get("batches", 0))
        members = self.algorithm.ask(state, self._rng(batch), self._batch_size())
        state = self.algorithm.bred(state, members)
        state = replace(state, extra={**state.extra, "batches": batch + 1})
        ticket = self.scorer.submit(members, self._seeds(batch, len(members)), chunk_size=len(members))
        pending[ticket] = members
        return state

    def _rng(self, batch: int) -> np.random.Generator:
        """The variation draws of the `batch`-th batch."""
        return seeded_generator(self._rngs(batch))

    def _seeds(self, batch: int, n: int) -> list[int]:
        """The evaluation seeds of the `batch`-th batch's `n` members."""
        return self.scorer.noise.batch_seeds(batch, n)

    def _arrive(self, state: State, generation: list[Member], members: list[Member]) -> \
            tuple[State, list[Member], str | None]:
        """Tell `members` in arrival order, recording each generation they complete. They are told
        a generation's share at a time: the same insertions as one by one, and at W = 64 the
        driver's time per arrival is what the workers wait for."""
        while members:
            arrivals = int(state.extra.get("arrivals", 0))
            boundary = self.size + max(state.generation + 1, 0) * self.offspring
            now, members = members[:boundary - arrivals], members[boundary - arrivals:]
            for order, member in enumerate(now, start=arrivals):
                member.order = order
            state = self.algorithm.tell(state, now)
            state = replace(state, extra={**state.extra, "arrivals": arrivals + len(now)})
            generation = generation + now
            if arrivals + len(now) < boundary:
                break
            state, migrants = self._migrate(replace(state, generation=state.generation + 1))
            state = self.tracker.update(state, generation)
            state = self.recorder.record(state, generation + migrants, self._failures, self._started)
            self._started, self._failures, generation = time.perf_counter(), 0, []
            self.announce(state)
            reason = self.tracker.stop_reason(state)
            if reason is not None:
                return state, generation, reason
        return state, generation, None

    def _migrate(self, state: State) -> tuple[State, list[Member]]:
        """The migration after this generation, if the algorithm has islands (`migrate`) and one is due."""
        migrate = getattr(self.algorithm, "migrate", None)
        return (state, []) if migrate is None else migrate(state)

    def _in_flight(self) -> int:
        """Batches to keep in flight: two a worker, fewer when batches are large (see the module
        docstring), never fewer than one a worker and the batches sent ahead."""
        if self.workers == 0:
            return 1
        by_staleness = self.stale_children // self._batch_size()
        ahead = -(-self.workers // WORKERS_PER_BATCH_AHEAD)
        return min(IN_FLIGHT_PER_WORKER * self.workers, max(self.workers + ahead, by_staleness))

    def _batch_size(self) -> int:
        per_member = self._per_member.value
        if self.max_batch == 1 or per_member is None:
            return 1
        return max(1, min(self.max_batch, math.ceil(self.batch_seconds / per_member)))
