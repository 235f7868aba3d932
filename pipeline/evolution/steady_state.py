"""Asynchronous steady-state evolution (LEAP's `steady_state`): no generations to wait for.

Children are bred a few at a time from the current population and scored
wherever a worker is free; each result is inserted as it arrives. Insertion
(Cantú-Paz's "replace worst"): a newcomer replaces the population's worst
member if it is fitter, unless its genome is already in the population
(with `distinct`). Until the population holds `size` members, arrivals
just join it. A failed evaluation never joins. The first `size` births are random genomes (generation 0).

The log keeps generations: generation g is the g-th run of `offspring`
arrivals after the first `size` (of every island's: `count` times those),
recorded in arrival order (`order`).
What is bred depends on what has arrived when, so on workers the trajectory
depends on timing; with workers = 0 it is deterministic. A batch draws its
children's parents in one tournament call (`var_or`'s `parents_first`): on
workers that saves a third of the driver's Python time a child; in-process a
batch is one child, which draws the same as it always did.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import replace

import numpy as np

from operators import selection
from operators.variation import var_or

from .algorithms import Context, new_members, register
from .generational import first_population
from .islands import Plan, migrate_all
from .members import Member
from .state import State

__all__ = ["SteadyState"]


@register("steady-state")
class SteadyState:
    """Breeds `count` children per `ask`; `tell` inserts arrivals one by one.

    With `[islands]`, each island is such a population of its own: a batch is bred
    from the island with the fewest members arrived or in flight (the lowest first:
    in-process, the fewest births; after a resume on workers, the batches lost in
    flight do not count), its arrivals go back to it, and after every `interval`
    generations of all islands' arrivals `migrate` sends copies of each island's
    best along the topology (`islands.immigrants`), numbered after every id
    handed out so far."""

    asynchronous = True

    def __init__(self, context: Context) -> None:
        self.context = context
        self.settings = context.spec.population
        self.plan = None if context.spec.islands is None else Plan.of(context.spec)
        self.islands = 1 if self.plan is None else self.plan.count
        self._books: dict[int, tuple[list[Member], _Book]] = {}  # island -> its last population told, and book
        self._in_flight = [0] * self.islands  # members bred by this object and not yet told, per island
        if context.reevaluate:
            raise ValueError("population.algorithm 'steady-state' scores each individual once: set "
                             "sampling.reevaluate = false (or use exact opponents)")

    def births(self, state: State) -> list[int]:
        """Members bred so far, per island (one population: kept as one number, as runs always had)."""
        births = state.extra.get("births", 0)
        return [int(b) for b in births] if isinstance(births, list) else [int(births)] + [0] * (self.islands - 1)

    def _populations(self, state: State) -> list[list[Member]]:
        return [*state.populations, *[[] for _ in range(self.islands - len(state.populations))]]

    def ask(self, state: State, rng: np.random.Generator, count: int = 1) -> list[Member]:
        """`count` new members: random while an island's first population is being made, else children."""
        births = self.births(state)
        arrived = state.extra.get("arrived", [0] * self.islands)
        island = min(range(self.islands), key=lambda i: arrived[i] + self._in_flight[i])
        population = self._populations(state)[island]
        generation = max(state.generation, 0) + (1 if births[island] >= self.settings.size else 0)
        random = min(count, max(self.settings.size - births[island], 0))
        if not population:  # all of generation 0 still in flight (many workers, small size)
            random = count
        members = first_population(self.context, rng, random, first_id=state.next_id) if random else []
        if count > random:
            members += self._children(population, island, generation, state.next_id + random, count - random, rng)
        for m in members:
            m.born, m.island = generation, island
        return members

    def _children(self, population: list[Member], island: int, generation: int, next_id: int, count: int,
                  rng: np.random.Generator) -> list[Member]:
        ops = self.context.spec.operators
        keys = self._book_of(population, island).tournament_keys()
        children = var_or(self.context.kind, _Genomes(population),
                          lambda k, rng: selection.tournament(keys, k, self.settings.tournament, rng),
                          count, ops.crossover_rate, ops.mutation_rate, rng, repair=ops.repair, parents_first=True)
        return new_members(children, population, generation, next_id)

    def bred(self, state: State, members: list[Member]) -> State:
        """The state once `members` (from `ask`, of one island) are on their way: ids and births counted."""
        births = self.births(state)
        if members:
            births[members[0].island] += len(members)
            self._in_flight[members[0].island] += len(members)
        extra = {**state.extra, "births": births[0] if self.islands == 1 else births}
        return replace(state, next_id=state.next_id + len(members), extra=extra)

    def tell(self, state: State, scored: list[Member]) -> State:
        populations = self._populations(state)
        arrived = list(state.extra.get("arrived", [0] * self.islands))
        for island in sorted({m.island for m in scored}):
            mine = [m for m in scored if m.island == island]
            populations[island] = self._insert(populations[island], island, mine)
            arrived[island] += len(mine)
            self._in_flight[island] = max(self._in_flight[island] - len(mine), 0)
        extra = state.extra if self.islands == 1 else {**state.extra, "arrived": arrived}
        return replace(state, populations=populations, extra=extra)

    def _insert(self, told: list[Member], island: int, scored: list[Member]) -> list[Member]:
        population = list(told)
        book = self._book_of(told, island)
        self._books.pop(island, None)  # until `population` is final
        for m in scored:
            if m.error is not None:  # a failed evaluation never joins: viable arrivals fill its place
                continue
            if len(population) < self.settings.size:
                book.add(len(population), m, self.context.kind.identity(m.genome))
                population.append(m)
                continue
            worst, worst_values = book.worst(population)
            if not m.fitness.wvalues > worst_values:  # no place for it: no identity to make
                continue
            key = self.context.kind.identity(m.genome)
            if self.settings.distinct and book.holds(key):
                continue
            book.remove(population[worst])
            book.add(worst, m, key)
            population[worst] = m
        self._books[island] = (population, book)
        return population

    def migrate(self, state: State) -> tuple[State, list[Member]]:
        """The state after the migration that follows generation `state.generation` (if one does),
        and the migrants placed; a run without islands has none."""
        if self.plan is None or not self.plan.migrates_after(state.generation):
            return state, []
        populations, migrants = migrate_all(self.plan, state.generation, state.populations, state.next_id)
        return replace(state, populations=populations, next_id=state.next_id + len(migrants)), migrants

    def _book_of(self, population: list[Member], island: int) -> _Book:
        """The book of the population `tell` last returned for `island`, or a new one (first call, resume)."""
        kept = self._books.get(island)
        if kept is not None and kept[0] is population:
            return kept[1]
        book = _Book()
        for place, m in enumerate(population):
            book.add(place, m, self.context.kind.identity(m.genome))
        self._books[island] = (population, book)
        return book


class _Genomes:
    """The population's genomes by index, without a list built per batch of children."""

    def __init__(self, population: list[Member]) -> None:
        self.population = population

    def __getitem__(self, index: int) -> object:
        return self.population[index].genome

    def __len__(self) -> int:
        return len(self.population)


class _Book:
    """The population's worst member in O(log n) and its genome identities, so an arrival costs
    no pass over the population (at 64 workers thousands arrive each second).

    The heap holds (weighted values, place, id): its top is the least fit member, a tie going to
    the earlier place, as `min` over the population would choose; entries of replaced members are
    dropped when they surface."""

    def __init__(self) -> None:
        self.heap: list[tuple[tuple, int, int]] = []
        self.keys: dict[int, object] = {}  # member id -> genome identity
        self.counts: Counter = Counter()  # genome identity -> members holding it
        self.values: list[tuple] = []  # weighted values by place
        self._keys: np.ndarray | None = None  # `selection.keys_of_values(values)`, kept up to date

    def add(self, place: int, member: Member, key: object) -> None:
        heapq.heappush(self.heap, (member.fitness.wvalues, place, member.id))
        self.keys[member.id] = key
        self.counts[key] += 1
        wvalues = member.fitness.wvalues
        if place == len(self.values):
            self.values.append(wvalues)
            self._keys = None
        else:
            self.values[place] = wvalues
            if self._keys is not None and len(wvalues) == 1:  # one objective: a key is the value's own
                self._keys[place] = -wvalues[0]
            else:
                self._keys = None  # ranks: one arrival may move them all

    def tournament_keys(self) -> np.ndarray:
        """`selection.tournament_keys` of the population, from the values kept here (with one
        objective, updated in place as members arrive: no pass over the population a batch)."""
        if self._keys is None:
            self._keys = selection.keys_of_values(np.array(self.values, dtype=np.float64))
        return self._keys

    def remove(self, member: Member) -> None:
        key = self.keys.pop(member.id)
        self.counts[key] -= 1
        if not self.counts[key]:
            del self.counts[key]

    def holds(self, key: object) -> bool:
        return key in self.counts

    def worst(self, population: list[Member]) -> tuple[int, tuple]:
        while True:
            values, place, member_id = self.heap[0]
            if population[place].id == member_id:
                return place, values
            heapq.heappop(self.heap)
