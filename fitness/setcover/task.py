"""The set-cover task: a genome's fitness is what it covers and what it costs."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .instance import Instance
from .scoring import score

__all__ = ["SetCoverTask"]


class SetCoverTask:
    """Scores bitstring genomes (one bool per list) on one instance, all at once.

    Spec (plain dict): either `N` and `seed` (the course generator) or
    `instance` (an OR-Library, JSON or .npy file). Objectives: `covered`
    (maximise), then `cost`, the chosen lists' total cost (minimise); DEAP
    compares them in that order.
    """

    objectives = ("covered", "cost")
    weights = (1.0, -1.0)
    primary = "cost"  # what progress bars and stop targets follow
    uses_seeds = False  # scoring a cover draws nothing: the loop need not make seeds for it

    def __init__(self, spec: dict) -> None:
        if spec.get("instance"):
            self.instance = Instance.load(spec["instance"])
        else:
            self.instance = Instance.from_problem(int(spec["N"]), spec.get("seed"))

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        population = np.asarray([np.asarray(g, dtype=bool) for g in genomes], dtype=bool)
        if population.ndim != 2:
            population = population.reshape(len(genomes), self.instance.n_lists)
        scores = score(self.instance, population)
        return {
            "covered": scores.covered.astype(np.int64),
            "cost": scores.cost.astype(np.int64),
            "feasible": scores.feasible.astype(bool),
        }

