"""The island model: `count` populations evolve apart and exchange migrants every `interval` generations.

Here: the plan (ids, routes, schedule) and the migration, shared by the
islands that run their own loops (`pipeline/islands/`: generational, and
steady-state with `[islands] loop = "own"`) and the steady-state islands of
the driver's asynchronous loop (`migrate_all`, which number their migrants
from the run's next id).

Between two migrations an island needs nobody (`pipeline/islands/epochs.py`
runs its generations). Every draw
and every id is a function of (seed, island, generation), never of timing or
of which island finished first, so a run writes the same log on any number
of workers and resumes exactly:

* variation draws from `variation_rng(seed, g, island)`, evaluation seeds
  from `NoiseControl.seeds(g, n, island)`, the random topology from
  `migration_rng(seed, g)`;
* island i's first members are ids i*size .. i*size+size-1; generation g's
  children of island i are `next_id(g) + i*offspring + j`; the migrants
  placed after generation g take the ids after all of g's children, island
  by island (`migrant_id`).

A migration happens after every generation g > 0 that is a multiple of
`interval`: each island sends copies of its best `migrants` along the
topology; each copy is a new member (origin "migrant", its parent the
emigrant, born g, the emigrant's scores, not evaluated again) that replaces
one of the worst of its destination; the best of an island always stays.
With `lag = 1` the copies are of the best of each source as it was after
g - interval, before that migration (after generation 0 for the first), so
an island's next epoch waits for no other island's current one.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Mapping

import numpy as np

from operators.migration import destinations, emigrants, place

from .members import Member

if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["Plan", "immigrants", "migrate_all", "migrated", "migration_rng", "settle"]

_MIGRATION_STREAM = 3  # variation is stream 1 (state.variation_rng)


def migration_rng(seed: int, generation: int) -> np.random.Generator:
    """The draws of the migration after `generation` (the random topology's routes)."""
    return np.random.default_rng(np.random.SeedSequence([seed, generation, _MIGRATION_STREAM]))



@dataclass(frozen=True)
class Plan:
    """The island model of a run: sizes, schedule, routes and ids, all from the spec."""

    count: int
    interval: int
    migrants: int
    topology: str
    size: int  # per island
    offspring: int  # per island and generation
    seed: int
    lag: int = 0  # 1: migrants leave from their source's population one migration earlier
    _routes: dict[int, list[list[int]]] = field(default_factory=dict, compare=False, hash=False, repr=False)
    _placed: list[int] = field(default_factory=lambda: [0], compare=False, hash=False, repr=False)

    @classmethod
    def of(cls, spec: RunSpec) -> Plan:
        islands = spec.islands
        assert islands is not None
        return cls(islands.count, islands.interval, islands.migrants, islands.topology, spec.population.size,
                   spec.population.offspring, spec.seed, islands.lag)

    def migrates_after(self, generation: int) -> bool:
        return self.count > 1 and self.migrants > 0 and self.is_epoch_end(generation)

    def is_epoch_end(self, generation: int) -> bool:
        return generation > 0 and generation % self.interval == 0

    def epoch_last(self, first: int, end: int) -> int:
        """The last generation of an epoch starting at `first`: the next multiple of `interval`
        (islands report back there, migrating or not), at most the run's `end`. With `lag`,
        generation 0 is an epoch of its own: the first migration's emigrants leave from it."""
        if first == 0 and self.lagged():
            return 0
        return min(-(-max(first, 1) // self.interval) * self.interval, end)

    def lagged(self) -> bool:
        """Whether migrants leave from their sources' populations one migration earlier."""
        return self.lag > 0 and self.count > 1 and self.migrants > 0

    def emigration(self, generation: int) -> int:
        """The generation whose populations the migrants placed after `generation` leave from:
        `generation` itself, or with `lag` the migration point before (0 for the first)."""
        return generation - self.interval if self.lagged() else generation

    def keeps_pools_after(self, generation: int) -> bool:
        """With `lag`: whether the emigrants chosen after `generation` are kept for a later
        migration (an epoch that ends at 0 or at a multiple of `interval`)."""
        return self.lagged() and generation == self.pool_point(generation)

    def pool_point(self, generation: int) -> int:
        """With `lag`: the latest generation <= `generation` whose emigrant pools a later migration
        takes (0 or a multiple of `interval`)."""
        return generation - generation % self.interval

    def sources(self, generation: int, island: int) -> list[int]:
        """The islands whose emigrants arrive at `island` after `generation`, in island order."""
        if generation not in self._routes:
            self._routes[generation] = destinations(self.topology, self.count, migration_rng(self.seed, generation))
        return [source for source, targets in enumerate(self._routes[generation]) if island in targets]

    def rooms(self, generation: int) -> list[int]:
        """How many migrants each island takes in after `generation` (at most size - 1)."""
        return [min(self.migrants * len(self.sources(generation, i)), self.size - 1) for i in range(self.count)]

    def next_id(self, generation: int) -> int:
        """The id of generation `generation`'s first child (0: the first members)."""
        if generation <= 0:
            return 0
        points = (generation - 1) // self.interval if self.count > 1 and self.migrants > 0 else 0
        return (self.count * self.size + (generation - 1) * self.count * self.offspring
                + self._placed_by(points))

    def _placed_by(self, migrations: int) -> int:
        """Migrants placed by the first `migrations` migrations (remembered: ids are asked for often)."""
        while len(self._placed) <= migrations:
            self._placed.append(self._placed[-1] + sum(self.rooms(len(self._placed) * self.interval)))
        return self._placed[migrations]

    def migrant_id(self, generation: int, island: int) -> int:
        """The id of the first migrant placed in `island` after `generation`."""
        return (self.next_id(generation) + self.count * self.offspring
                + sum(self.rooms(generation)[:island]))


def migrated(plan: Plan, generation: int, island: int, leaving: Mapping[int, list[Member]]) -> \
        tuple[list[Member], list[Member]]:
    """`island`'s population after the migration that follows `generation` (as it was, if none
    does), and the migrants it took in; `leaving` holds it and its sources before the migration."""
    if not plan.migrates_after(generation):
        return leaving[island], []
    arrivals = immigrants(plan, generation, island, leaving)
    return settle(leaving[island], arrivals), arrivals


def immigrants(plan: Plan, generation: int, island: int, homes: Mapping[int, list[Member]],
               first: int | None = None) -> list[Member]:
    """The migrants `island` takes in after `generation`: copies of the best of each source
    island (`homes[source]`, its population before the migration), with their new ids (from
    `first`; None: the generational numbering, `Plan.migrant_id`)."""
    arriving = [m for source in plan.sources(generation, island) for m in emigrants(homes[source], plan.migrants)]
    first = plan.migrant_id(generation, island) if first is None else first
    room = plan.rooms(generation)[island]
    return [replace(m, id=first + k, born=generation, parents=[m.id], origin="migrant", columns=dict(m.columns),
                    eval_seconds=0.0, worker="", fitness=copy.deepcopy(m.fitness), selected=True, island=island,
                    order=None)
            for k, m in enumerate(arriving[:room])]


def migrate_all(plan: Plan, generation: int, populations: list[list[Member]], next_id: int) -> \
        tuple[list[list[Member]], list[Member]]:
    """Every island's population after the migration that follows `generation`, all at once (the
    steady-state islands, which hold every island in one place), and the migrants placed,
    numbered from `next_id` island by island."""
    homes = dict(enumerate(populations))
    after: list[list[Member]] = []
    placed: list[Member] = []
    for island in range(plan.count):
        home = populations[island]
        arrivals = immigrants(plan, generation, island, homes, next_id + len(placed))
        free = max(plan.size - len(home), 0)  # an island not yet full (on workers, its arrivals late)
        arrivals = arrivals[:free + max(len(home) - 1, 0)]  # fill its empty places, then replace its worst
        after.append(settle(home, arrivals[free:]) + arrivals[:free])
        placed += arrivals
    return after, placed


def settle(population: list[Member], arrivals: list[Member]) -> list[Member]:
    """The island's population after the migration: the arrivals replace its worst."""
    return place(population, arrivals)
