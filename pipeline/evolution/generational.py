"""Generational evolution: (mu + lambda), (mu, lambda) and NSGA-II as one ask/tell algorithm.

Each generation breeds `offspring` children by DEAP's `varOr` (tournament
parents; uniform ones for NSGA-II, whose pressure is in survival), scores
them (and, with sampled fitness, the survivors again), and keeps `size`
survivors. Every draw comes from the generation's rng, so a run replays.

With `population.restart_after = N`, a generation that follows N generations
without improvement of the population's best (counted since the last restart)
re-seeds instead of breeding: the best `restart_keep` stay, fresh random
genomes take the other places, and the count starts again. The count lives in
the state's `extra` (`"plateau"`), which every checkpoint holds, so a resumed
run restarts where an uninterrupted one would.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from operators import selection
from operators.survival import SURVIVAL
from operators.variation import var_or

from .algorithms import Context, new_members, register
from .members import Member, viable
from .state import State

__all__ = ["Generational", "first_population", "rescored", "restarting"]


def first_population(context: Context, rng: np.random.Generator, size: int, first_id: int = 0,
                     born: int = 0, origin: str = "init") -> list[Member]:
    """`size` new genomes (repaired if the spec says so), ids from `first_id`."""
    kind = context.kind
    genomes = kind.init(size, rng)
    if context.spec.operators.repair:
        genomes = [kind.repair(g, rng) for g in genomes]
    return [Member(first_id + i, born, g, [], origin, {}) for i, g in enumerate(genomes)]


def restarting(state: State, restart_after: int | None) -> bool:
    """Whether the generation after `state` re-seeds: its population's best has not improved
    for `restart_after` generations since the last restart (None: never)."""
    plateau = state.extra.get("plateau")
    return restart_after is not None and plateau is not None and plateau["stagnant"] >= restart_after


def rescored(population: list[Member]) -> list[Member]:
    """Survivors to be scored again: copies whose new counts will pool with the old."""
    return [replace(m, columns=dict(m.columns), fitness=None, selected=False) for m in population]


@register("mu+lambda", "mu,lambda", "nsga2")
class Generational:
    """One population; `population.algorithm` names its survivor selection."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.settings = context.spec.population
        self.survive = SURVIVAL[self.settings.algorithm]

    def breed(self, population: list[Member], generation: int, next_id: int, count: int,
              rng: np.random.Generator) -> list[Member]:
        """`count` children of `population` (ids from `next_id`), scored next: a kind's children
        to finish (set cover's repair) come unfinished, for the scorer to finish on the workers
        (`operators.variation.Unfinished`)."""
        ops = self.context.spec.operators
        parents = selection.viable_indices(population)  # all of them unless evaluations failed
        if self.settings.algorithm in ("nsga2", "nsga3", "map-elites"):  # their pressure is in survival
            def select(k: int, rng: np.random.Generator) -> np.ndarray:
                return parents[selection.uniform(len(parents), k, rng)]
        else:  # keys as a list, winners as they come where every member may breed (`tournament`)
            keys = selection.tournament_keys([population[i] for i in parents]).tolist()
            size, every = self.settings.tournament, len(parents) == len(population)

            def select(k: int, rng: np.random.Generator) -> Sequence[int]:
                winners = selection.tournament(keys, k, size, rng)
                return winners if every else parents[winners]
        children = var_or(self.context.kind, [m.genome for m in population], select, count,
                          ops.crossover_rate, ops.mutation_rate, rng, repair=ops.repair, finish_later=True)
        return new_members(children, population, generation, next_id)

    def survivors(self, previous: list[Member], offspring: list[Member]) -> list[Member]:
        key = (lambda m: self.context.kind.identity(m.genome)) if self.settings.distinct else None
        return self.survive(previous, offspring, self.settings.size, key)

    def elite(self, population: list[Member]) -> list[Member]:
        """Who a restart keeps: the best `restart_keep`."""
        return selection.best_first(population)[: self.settings.restart_keep]

    def ask(self, state: State, rng: np.random.Generator) -> list[Member]:
        if state.generation < 0:
            return first_population(self.context, rng, self.settings.size)
        population = state.populations[0]
        generation = state.generation + 1
        if restarting(state, self.settings.restart_after):
            kept = self.elite(population)
            fresh = first_population(self.context, rng, self.settings.size - len(kept), state.next_id,
                                     born=generation, origin="restart")
            return fresh + (rescored(kept) if self.context.reevaluate else [])
        children = self.breed(population, generation, state.next_id, self.settings.offspring, rng)
        return children + (rescored(population) if self.context.reevaluate else [])

    def tell(self, state: State, scored: list[Member]) -> State:
        told = self._told(state, scored)
        if self.settings.restart_after is None:
            return told
        return replace(told, extra={**state.extra, "plateau": self._plateau(state, told.populations[0])})

    def _plateau(self, state: State, population: list[Member]) -> dict:
        """The population's best since the last restart, and the generations it has stood."""
        objectives, plateau = self.context.objectives, state.extra.get("plateau")
        best = objectives.best_of(population)
        if plateau is None or restarting(state, self.settings.restart_after) \
                or objectives.better(best, plateau["best"]):
            return {"best": best, "stagnant": 0}
        return {"best": plateau["best"], "stagnant": plateau["stagnant"] + 1}

    def _told(self, state: State, scored: list[Member]) -> State:
        generation = state.generation + 1
        if state.generation < 0:  # the first population: its failed evaluations left out
            population, next_id = viable(scored) or scored, max(m.id for m in scored) + 1
        else:
            offspring = [m for m in scored if m.born == generation]
            previous = [m for m in scored if m.born < generation] if self.context.reevaluate \
                else state.populations[0]
            if restarting(state, self.settings.restart_after):  # the elite (as scored now) and the fresh
                population = self.elite(previous) + (viable(offspring) or offspring)
            else:
                population = self.survivors(previous, offspring)
            next_id = state.next_id + len(offspring)
        return replace(state, generation=generation, populations=[population], next_id=next_id)
