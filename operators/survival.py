"""Survivor selection: who of parents and offspring lives on (DEAP's `selBest`/`selNSGA2`/`selNSGA3` shapes).

Every function takes individuals with a DEAP `.fitness` and returns the
survivors fittest first, failed evaluations (an invalid fitness) last; `key` (a genome's hashable identity) makes survivors
distinct genomes while there are enough, because an elitist population of
clones stops exploring.
"""

from __future__ import annotations

from math import comb
from typing import Any, Callable, Sequence

import numpy as np
from deap import tools

from .selection import best_first

__all__ = ["SURVIVAL", "comma", "nsga2", "nsga3", "plus", "reference_points"]

Key = Callable[[Any], Any] | None


def _best(pool: Sequence[Any], mu: int, key: Key) -> list[Any]:
    ranked = best_first(pool)
    if key is None:
        return ranked[:mu]
    seen, first, copies, failed = set(), [], [], []
    for ind in ranked:
        if not ind.fitness.valid:  # ranked last: after every valid copy too
            failed.append(ind)
            continue
        identity = key(ind)
        if identity in seen:
            copies.append(ind)
            continue
        first.append(ind)
        if len(first) == mu:  # the mu fittest distinct ones: nobody ranked later enters (no key more to make)
            return first
        seen.add(identity)
    return (first + copies + failed)[:mu]


def plus(parents: Sequence[Any], offspring: Sequence[Any], mu: int, key: Key = None) -> list[Any]:
    """(mu + lambda): the best `mu` of parents and offspring together."""
    return _best(list(parents) + list(offspring), mu, key)


def comma(parents: Sequence[Any], offspring: Sequence[Any], mu: int, key: Key = None) -> list[Any]:
    """(mu, lambda): the best `mu` of the offspring; parents die."""
    return _best(list(offspring), mu, key)


def nsga2(parents: Sequence[Any], offspring: Sequence[Any], mu: int, key: Key = None) -> list[Any]:
    """NSGA-II: non-dominated fronts, then crowding distance (DEAP's `selNSGA2`; `key` unused);
    invalid fitnesses (failed evaluations) only fill places no valid one takes."""
    pool = list(parents) + list(offspring)
    valid = [ind for ind in pool if ind.fitness.valid]
    chosen = tools.selNSGA2(valid, mu)  # all valid: `valid` is `pool`, in its order
    return chosen + [ind for ind in pool if not ind.fitness.valid][: mu - len(chosen)]


def reference_points(objectives: int, mu: int) -> list[list[float]]:
    """NSGA-III's reference points: DEAP's `uniform_reference_points` with the most divisions
    `p` that still give no more points than survivors (Deb & Jain's rule of one per survivor)."""
    if objectives == 1:
        return [[1.0]]
    p = 1
    while comb(objectives + p, p + 1) <= mu:
        p += 1
    return tools.uniform_reference_points(objectives, p).tolist()


def nsga3(parents: Sequence[Any], offspring: Sequence[Any], mu: int, key: Key = None, *,
          points: Sequence[Sequence[float]], seed: int) -> list[Any]:
    """NSGA-III: non-dominated fronts, then niching on `points` (DEAP's `selNSGA3`; `key` unused).
    DEAP's niching shuffles with numpy's global generator: it is seeded with `seed` for the call
    and put back as it was after, so survivors replay; failed evaluations fill places last."""
    pool = list(parents) + list(offspring)
    valid = [ind for ind in pool if ind.fitness.valid]
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        chosen = tools.selNSGA3(valid, min(mu, len(valid)), np.asarray(points, dtype=float)) if valid else []
    finally:
        np.random.set_state(saved)
    return chosen + [ind for ind in pool if not ind.fitness.valid][: mu - len(chosen)]


SURVIVAL = {"mu+lambda": plus, "mu,lambda": comma, "nsga2": nsga2}
