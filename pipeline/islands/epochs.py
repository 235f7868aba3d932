"""An island's epoch: its generations between two migrations, run wherever it lives.

Between two migrations an island needs nobody: `evolve` runs its generations
(the run's generational algorithm, ask -> score -> tell) on whatever scores
members, in this process or in an island runner on the cluster, with the
draws and ids of `evolution/islands.py`'s plan.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..evolution.islands import Plan
from ..evolution.members import Member
from ..evolution.state import State, variation_rng

if TYPE_CHECKING:
    from ..evolution.algorithms import Algorithm
    from ..evolution.scoring import Scorer

__all__ = ["IslandGeneration", "IslandsLost", "evolve", "populations"]


class IslandsLost(RuntimeError):
    """An island runner (its node lost) or all of an island's evaluation actors died: the driver
    starts every island again from the last recorded generation (the same members)."""


@dataclass
class IslandGeneration:
    """What one island did in one generation: the members it scored and who is alive after."""

    generation: int
    scored: list[Member]  # in the order they were scored
    population: list[int]  # ids alive after it (before any migration)
    failures: int  # worker failures recovered while scoring
    finished: float = 0.0  # when it ended (time.time(), wherever it ran)


def evolve(algorithm: Algorithm, scorer: Scorer, plan: Plan, island: int, population: list[Member],
           first: int, last: int) -> tuple[list[IslandGeneration], list[Member]]:
    """Generations `first`..`last` of one island, from its population after `first - 1`;
    and its population after `last` (before any migration)."""
    done = []
    for generation in range(first, last + 1):
        state = State(generation=generation - 1, populations=[population],
                      next_id=plan.next_id(generation) + island * plan.offspring)
        batch = algorithm.ask(state, variation_rng(plan.seed, generation, island))
        if generation == 0:  # the algorithm numbers from 0: island i's block starts at i * size
            batch = [replace(m, id=m.id + island * plan.size) for m in batch]
        elif sum(m.born == generation for m in batch) > plan.offspring:
            raise ValueError(f"island {island} made more than population.offspring = {plan.offspring} children "
                             f"in generation {generation}")
        for m in batch:
            m.island = island
        failures = scorer.score(generation, batch, island)
        population = algorithm.tell(state, batch).populations[0]
        done.append(IslandGeneration(generation, batch, [m.id for m in population], failures, time.time()))
    return done, population


def populations(home: list[Member], done: list[IslandGeneration]) -> list[list[Member]]:
    """The members alive after each generation of an epoch that started from `home`."""
    known = {m.id: m for m in home}
    alive = []
    for generation in done:
        known.update((m.id, m) for m in generation.scored)  # a re-scored survivor: its new row
        alive.append([known[i] for i in generation.population])
        known = {m.id: m for m in alive[-1]}
    return alive
