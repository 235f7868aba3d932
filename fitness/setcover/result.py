"""The common answer of every set-cover baseline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .instance import Instance


@dataclass(frozen=True)
class CoverResult:
    """Chosen list indices (in the order taken), their total cost, and how much they cover.

    ``feasible`` is False only when the instance has elements no list holds;
    the baselines then cover everything that can be covered.
    ``nodes_visited`` is reported by search algorithms (A*), None otherwise.
    """

    chosen: tuple[int, ...]
    cost: int
    covered: int
    feasible: bool
    nodes_visited: int | None = None

    @classmethod
    def of(cls, instance: Instance, chosen: Iterable[int], nodes_visited: int | None = None) -> CoverResult:
        """Compute cost and coverage of ``chosen`` on ``instance``."""
        chosen = tuple(int(j) for j in chosen)
        covered = int(np.count_nonzero(instance.incidence[list(chosen)].any(axis=0))) if chosen else 0
        return cls(
            chosen=chosen,
            cost=int(instance.list_costs[list(chosen)].sum()),
            covered=covered,
            feasible=covered == instance.N,
            nodes_visited=nodes_visited,
        )

    def mask(self, instance: Instance) -> np.ndarray:
        """The result as a genome: a bool array over the instance's lists."""
        genome = np.zeros(instance.n_lists, dtype=bool)
        genome[list(self.chosen)] = True
        return genome
