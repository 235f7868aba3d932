"""Lagrangian lower bounds for weighted set cover, and what they tell a heuristic.

Relaxing the covering constraints with multipliers ``u >= 0``, one per
element, gives ``L(u) = sum(u) + sum_j min(0, c_j - sum_{e in j} u_e)``, a
lower bound on the cost of every cover.  Subgradient ascent (Held and Karp's
step rule, as Beasley 1990 uses it) finds good multipliers in a few hundred
sparse passes.  Two things follow for a heuristic:

- Reduced costs ``r_j = c_j - sum_{e in j} u_e``: any cover ``x`` costs at
  least ``L(u) + sum_{j in x} max(0, r_j)``, so a list with
  ``L(u) + max(0, r_j) >= upper`` lies in no cover cheaper than ``upper`` and
  the search can leave it out without losing a better cover.
- The Lagrangian heuristic: the lists of negative reduced cost, completed
  greedily and pruned, are good covers, and the multipliers met along the
  ascent give many different ones.

Everything here is deterministic: the same instance gives the same answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .greedy import complete_cover, pruned_greedy, remove_redundant
from .instance import Instance

__all__ = ["Relaxation", "relax"]


@dataclass(frozen=True)
class Relaxation:
    """The best multipliers found, their bound and reduced costs, and the covers met on the way."""

    multipliers: np.ndarray
    bound: float  # L(multipliers): no cover costs less
    reduced: np.ndarray  # per list, c_j - sum of its elements' multipliers
    upper: int  # the cheapest cover found
    covers: tuple[np.ndarray, ...]  # distinct covers found, cheapest first (the cheapest costs `upper`)
    iterations: int

    @property
    def gap(self) -> float:
        """How far the cheapest cover may be from the optimum, relative to the bound."""
        return (self.upper - self.bound) / max(self.bound, 1e-9)

    def useful(self, slack: float = 0.0) -> np.ndarray:
        """The lists that can lie in a cover costing less than ``upper + slack``, plus the best cover's.

        With integer costs and ``slack = 0`` no cover cheaper than the best one
        found is lost by searching only these lists; the best cover's own
        lists keep every element covered.
        """
        possible = self.bound + np.maximum(self.reduced, 0.0) < self.upper + slack - 1e-6
        return possible | self.covers[0]


def relax(instance: Instance, *, max_iterations: int = 2000, patience: int = 30,
          heuristic_every: int = 5) -> Relaxation:
    """Subgradient ascent on ``L(u)`` from ``u_e = min over lists j holding e of c_j / |j|``.

    The step is ``f * (1.05 * upper - L) / |s|^2`` along the subgradient
    ``s_e = 1 - (lists of negative reduced cost holding e)``; ``f`` starts at
    2 and halves after ``patience`` iterations without a better bound; the
    ascent stops when ``f < 0.005``, when the bound proves the best cover
    optimal (costs are integers), or after ``max_iterations``.  Every
    ``heuristic_every`` iterations the lists of negative reduced cost are
    completed into a cover (ratio greedy, then redundant lists dropped,
    dearest first).  Results are cached per instance.
    """
    return _relax(instance, max_iterations, patience, heuristic_every)


@lru_cache(maxsize=4)
def _relax(instance: Instance, max_iterations: int, patience: int, heuristic_every: int) -> Relaxation:
    lists, elements = instance.entries
    costs = instance.list_costs.astype(np.float64)
    u = np.full(instance.N, np.inf)
    np.minimum.at(u, elements, costs[lists] / instance.sizes[lists])
    u[~instance.coverable] = 0.0  # an element no list holds binds nothing
    covers = _CoverPool(instance)
    covers.add(pruned_greedy(instance).mask(instance))
    best_bound, best_u, step, stale, iteration = -math.inf, u.copy(), 2.0, 0, 0
    for iteration in range(1, max_iterations + 1):
        reduced = costs - np.bincount(lists, weights=u[elements], minlength=instance.n_lists)
        taken = reduced < 0
        bound = float(u.sum() + reduced[taken].sum())
        if bound > best_bound + 1e-9:
            best_bound, best_u, stale = bound, u.copy(), 0
        else:
            stale += 1
            if stale >= patience:
                step, stale = step / 2, 0
        if iteration % heuristic_every == 1 or heuristic_every == 1:
            covers.add(remove_redundant(instance, complete_cover(instance, taken)))
        if math.ceil(best_bound - 1e-6) >= covers.upper or step < 0.005:
            break
        slack = 1.0 - np.bincount(elements, weights=taken[lists], minlength=instance.N)
        slack[((u <= 0) & (slack < 0)) | ~instance.coverable] = 0.0
        norm = float(slack @ slack)
        if norm == 0:  # complementary slackness: the taken lists are an optimal cover
            break
        u = np.maximum(0.0, u + step * (1.05 * covers.upper - bound) / norm * slack)
    reduced = costs - np.bincount(lists, weights=best_u[elements], minlength=instance.n_lists)
    return Relaxation(_frozen(best_u), best_bound, _frozen(reduced), covers.upper, covers.sorted(), iteration)


class _CoverPool:
    """Distinct covers met during the ascent, with the cheapest cost."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.found: dict[bytes, tuple[int, np.ndarray]] = {}
        self.upper = math.inf

    def add(self, cover: np.ndarray) -> None:
        cost = int(self.instance.list_costs[cover].sum())
        self.found.setdefault(np.packbits(cover).tobytes(), (cost, cover))
        self.upper = min(self.upper, cost)

    def sorted(self) -> tuple[np.ndarray, ...]:
        ranked = sorted(self.found.values(), key=lambda item: item[0])  # stable: ties keep the order met
        return tuple(_frozen(cover) for _, cover in ranked)


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array)
    array.flags.writeable = False
    return array
