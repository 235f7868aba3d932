"""A steady-state island's own asynchronous loop (`[islands] loop = "own"`), an epoch at a time.

Each island runs the run's steady-state algorithm as a population of its own,
with `AsyncLoop`'s batching: batches in flight on the island's evaluators (its
runner's actors on Ray), bred from the population as it stands, arrivals told
in arrival order. A batch aims at `ISLAND_BATCH_SECONDS` of evaluation, twice
the driver's loop's: a runner's CPU per evaluation is what an island run
measures, and each batch costs it a call, its waits and its draws. Its
generation g is its g-th run of `offspring` arrivals after its first `size`.
Arrivals take the plan's ids of that generation in arrival order
(`Plan.next_id`: so the driver's log, migrations and resume are the
generational islands'), and are born in the generation they arrive in: an id
is given on arrival, not when bred, as a child bred in one generation may
arrive in the next. An epoch ends when its last generation is complete; the
batches still in flight, and arrivals past its end, go into the island's next
epoch after the migration, so its evaluators never wait for the migration
unless its sources are late.

With workers = 0 one child at a time is bred, scored and told, its draws keyed
by (seed, island, births so far): deterministic, and a resume from any recorded
generation goes on exactly. On workers the trajectory depends on timing, as
for every steady-state run.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from typing import Any, Callable

from ..evolution.algorithms import Algorithm
from ..evolution.async_loop import AsyncLoop, batch_rngs
from ..evolution.islands import Plan
from ..evolution.members import Member
from ..evolution.scoring import Scorer
from ..evolution.state import State
from .epochs import IslandGeneration, Rows, evolve

__all__ = ["ISLAND_BATCH_SECONDS", "Epochs", "SteadyIsland", "island_epochs"]

# An island's epoch: (island, its population after first - 1, first, last) -> its generations, its population
Epochs = Callable[[int, list[Member], int, int], tuple[list[IslandGeneration], list[Member]]]

_ISLAND_BATCH_STREAM = 4  # variation is stream 1, a steady-state run's batches 2, migration 3
ISLAND_BATCH_SECONDS = 0.4  # evaluation time an island's batch aims at, at least: each batch costs its runner
# ~1.5 ms of CPU (the call, the waits, the result, the draws), so at 5 ms an evaluation 0.2 s batches (40 children)
# cost an 8-island run on 32 workers 8.6-10.3 us of every runner's CPU an evaluation, 0.4 s (64) 7.0-8.4
_PROVISIONAL_IDS = 1 << 62  # ids of children in flight, replaced by the plan's on arrival


def island_epochs(algorithm: Algorithm, scorer: Scorer, rows: Rows, plan: Plan, in_flight: int | str) -> Epochs:
    """How each island runs an epoch: the generational `evolve`, or for an asynchronous algorithm
    (steady-state) each island's own `SteadyIsland`, kept from epoch to epoch."""
    if not getattr(algorithm, "asynchronous", False):
        return partial(evolve, algorithm, scorer, rows, plan)
    loops: dict[int, SteadyIsland] = {}

    def epoch(island: int, population: list[Member], first: int, last: int) -> \
            tuple[list[IslandGeneration], list[Member]]:
        if island not in loops:
            loops[island] = SteadyIsland(algorithm, scorer, rows, plan, island, in_flight)
        return loops[island].epoch(population, first, last)

    return epoch


def single_island(algorithm: Any) -> Any:
    """The run's algorithm for one island alone: built from the spec without its `[islands]`."""
    context = algorithm.context
    return type(algorithm)(replace(context, spec=context.spec.model_copy(update={"islands": None})))


class SteadyIsland(AsyncLoop):
    """One island's asynchronous loop (see the module docstring)."""

    def __init__(self, algorithm: Algorithm, scorer: Scorer, rows: Rows, plan: Plan, island: int,
                 in_flight: int | str) -> None:
        # no tracker, recorder or hooks: an epoch's generations go to `rows`, the driver keeps the books
        super().__init__(single_island(algorithm), scorer, None, None, plan.seed,  # type: ignore[arg-type]
                         in_flight=in_flight, least_batch_seconds=ISLAND_BATCH_SECONDS,
                         rngs=batch_rngs((plan.seed, island), _ISLAND_BATCH_STREAM))  # its own stream of batches
        self.rows, self.plan, self.island = rows, plan, island
        self.pending: dict[int, list[Member]] = {}  # batches in flight: ticket -> members
        self.later: list[Member] = []  # arrived past the last epoch's end: told in the next
        self.filling: list[Member] = []  # the arrivals of the generation being filled
        self.births: int | None = None  # bred so far (None: as many as arrived: nothing in flight)

    def epoch(self, population: list[Member], first: int, last: int) -> tuple[list[IslandGeneration], list[Member]]:
        """Generations `first`..`last` of this island from its population after `first - 1`
        (migrants placed); and its population after `last`."""
        births = self._arrivals_before(first) if self.births is None else self.births
        state = State(generation=first - 1, populations=[population], next_id=_PROVISIONAL_IDS + births,
                      extra={"births": births, "batches": births})
        self._failures = 0
        done: list[IslandGeneration] = []
        later, self.later = self.later, []
        state = self._take(state, later, done, last)
        while state.generation < last:
            state, returned = self._returned(state, self.pending)
            for members, result in returned:
                self._scored(members, result)
                state = self._take(state, members, done, last)
        self.births = int(state.extra["births"])
        return self.rows.built(done), state.populations[0]

    def _take(self, state: State, members: list[Member], done: list[IslandGeneration], last: int) -> State:
        """Tell `members` in arrival order, each generation they complete made a log generation
        (`Rows.of`); those past `last` wait for the next epoch."""
        while members and state.generation < last:
            generation = state.generation + 1
            wanted = self.plan.size if generation == 0 else self.plan.offspring
            now, members = members[:wanted - len(self.filling)], members[wanted - len(self.filling):]
            first_id = self.plan.next_id(generation) + self.island * wanted + len(self.filling)
            first_order = self._arrivals_before(generation) + len(self.filling)
            for k, m in enumerate(now):
                m.id, m.born, m.order = first_id + k, generation, first_order + k
            state = self.algorithm.tell(state, now)  # (the algorithm's one island is island 0)
            for m in now:
                m.island = self.island
            self.filling += now
            if len(self.filling) < wanted:
                break
            state = replace(state, generation=generation)
            done.append(self.rows.of(self.island, generation, self.filling, state.populations[0], self._failures,
                                     time.time()))
            self.filling, self._failures = [], 0
        self.later += members
        return state

    def _arrivals_before(self, generation: int) -> int:
        """The island's arrivals before `generation`: its first `size`, then `offspring` a generation."""
        return 0 if generation <= 0 else self.plan.size + (generation - 1) * self.plan.offspring

    def _seeds(self, batch: int, n: int) -> list[int]:
        return self.scorer.noise.batch_seeds(batch * self.plan.count + self.island, n)
