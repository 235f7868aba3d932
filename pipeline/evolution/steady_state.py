"""Asynchronous steady-state evolution (LEAP's `steady_state`): no generations to wait for.

Children are bred a few at a time from the current population and scored
wherever a worker is free; each result is inserted as it arrives. Insertion
(Cantú-Paz's "replace worst"): a newcomer replaces the population's worst
member if it is fitter, unless its genome is already in the population
(with `distinct`). Until the population holds `size` members, arrivals
just join it. The first `size` births are random genomes (generation 0).

The log keeps generations: generation g is the g-th run of `offspring`
arrivals after the first `size`, recorded in arrival order (`order`).
What is bred depends on what has arrived when, so on workers the trajectory
depends on timing; with workers = 0 it is deterministic.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from operators import selection
from operators.variation import var_or

from .algorithms import Context, new_members, register
from .generational import first_population
from .members import Member
from .state import State

__all__ = ["SteadyState"]


@register("steady-state")
class SteadyState:
    """Breeds `count` children per `ask`; `tell` inserts arrivals one by one."""

    asynchronous = True

    def __init__(self, context: Context) -> None:
        self.context = context
        self.settings = context.spec.population
        self._keys: dict[int, object] = {}  # member id -> genome identity, for the distinct check
        if context.reevaluate:
            raise ValueError("population.algorithm 'steady-state' scores each individual once: set "
                             "sampling.reevaluate = false (or use exact opponents)")

    def births(self, state: State) -> int:
        return int(state.extra.get("births", 0))

    def ask(self, state: State, rng: np.random.Generator, count: int = 1) -> list[Member]:
        """`count` new members: random while the first population is being made, else children."""
        births = self.births(state)
        generation = max(state.generation, 0) + (1 if births >= self.settings.size else 0)
        random = min(count, max(self.settings.size - births, 0))
        members = first_population(self.context, rng, random, first_id=state.next_id) if random else []
        if count > random:
            members += self._children(state.populations[0], generation, state.next_id + random, count - random, rng)
        for m in members:
            m.born = generation
        return members

    def _children(self, population: list[Member], generation: int, next_id: int, count: int,
                  rng: np.random.Generator) -> list[Member]:
        ops = self.context.spec.operators
        ranks = selection.dense_ranks(population)
        children = var_or(self.context.kind, [m.genome for m in population],
                          lambda k, rng: selection.tournament(ranks, k, self.settings.tournament, rng),
                          count, ops.crossover_rate, ops.mutation_rate, rng, repair=ops.repair)
        return new_members(children, population, generation, next_id)

    def bred(self, state: State, members: list[Member]) -> State:
        """The state once `members` (from `ask`) are on their way: ids and births counted."""
        extra = {**state.extra, "births": self.births(state) + len(members)}
        return replace(state, next_id=state.next_id + len(members), extra=extra)

    def tell(self, state: State, scored: list[Member]) -> State:
        population = list(state.populations[0])
        keys = self._keys_of(population)
        for m in scored:
            key = self.context.kind.identity(m.genome)
            if len(population) < self.settings.size:
                population.append(m)
                keys[m.id] = key
                continue
            if self.settings.distinct and key in keys.values():
                continue
            values = [p.fitness.wvalues for p in population]  # tuples compare in C, DEAP's Fitness in Python
            worst = min(range(len(population)), key=values.__getitem__)
            if m.fitness.wvalues > values[worst]:
                del keys[population[worst].id]
                population[worst] = m
                keys[m.id] = key
        return replace(state, populations=[population])

    def _keys_of(self, population: list[Member]) -> dict[int, object]:
        """Genome identities of the population, kept between calls (rebuilt after a resume)."""
        if set(self._keys) != {m.id for m in population}:
            self._keys = {m.id: self.context.kind.identity(m.genome) for m in population}
        return self._keys
