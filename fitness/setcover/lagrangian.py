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
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

import numpy as np

from .greedy import complete_cover, pruned_greedy, remove_redundant
from .instance import Instance

__all__ = ["Relaxation", "dive", "lagrangian_greedy", "relax"]


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


@dataclass(frozen=True)
class Schedule:
    """How a subgradient ascent steps: ``step`` to start, divided by ``shrink`` after
    ``patience`` iterations without a better bound; it aims ``lift`` times above the best cover."""

    step: float = 2.0
    patience: int = 30
    shrink: float = 2.0
    lift: float = 1.05
    iterations: int = 2000
    heuristic_every: int = 5
    min_step: float = 0.005


RELAX = Schedule()
DIVE = Schedule(step=0.1, patience=10, shrink=1.5, lift=1.02, iterations=100)


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
    covers = _CoverPool(instance)
    covers.add(pruned_greedy(instance).mask(instance))
    schedule = replace(RELAX, iterations=max_iterations, patience=patience, heuristic_every=heuristic_every)
    best_u, best_bound, iterations = _ascend(
        instance, u, covers, lambda taken, _: remove_redundant(instance, complete_cover(instance, taken)), schedule)
    reduced = costs - np.bincount(lists, weights=best_u[elements], minlength=instance.n_lists)
    return Relaxation(_frozen(best_u), best_bound, _frozen(reduced), covers.upper, covers.sorted(), iterations)


def _ascend(instance: Instance, u: np.ndarray, covers: _CoverPool, heuristic: Callable[[np.ndarray, np.ndarray], np.ndarray],
            schedule: Schedule, rows: np.ndarray | None = None, lists_left: np.ndarray | None = None,
            fixed_cost: int = 0) -> tuple[np.ndarray, float, int]:
    """Subgradient ascent from ``u`` on the elements ``rows`` left to cover with ``lists_left`` (default: all).

    ``heuristic(taken, u)`` turns the lists of negative reduced cost into a
    cover for ``covers``; ``fixed_cost`` is what the lists already fixed
    cost.  Stops as ``schedule`` says, or when the bound proves no cover
    through the fixed lists beats the best one.  Returns the best
    multipliers, their bound (without ``fixed_cost``) and the iterations run.
    """
    lists, elements = instance.entries
    if rows is None:
        rows = instance.coverable
    else:  # a residual problem: only the pairs of its elements and lists
        keep = lists_left[lists] & rows[elements]
        lists, elements = lists[keep], elements[keep]
    costs = instance.list_costs.astype(np.float64)
    u = np.where(rows, u, 0.0)  # an element no list holds (or one already covered) binds nothing
    best_bound, best_u, step, stale, iteration = -math.inf, u.copy(), schedule.step, 0, 0
    for iteration in range(1, schedule.iterations + 1):
        reduced = costs - np.bincount(lists, weights=u[elements], minlength=instance.n_lists)
        taken = reduced < 0
        bound = float(u.sum() + reduced[taken].sum())
        if bound > best_bound + 1e-9:
            best_bound, best_u, stale = bound, u.copy(), 0
        else:
            stale += 1
            if stale >= schedule.patience:
                step, stale = step / schedule.shrink, 0
        if iteration % schedule.heuristic_every == 1 or schedule.heuristic_every == 1:
            covers.add(heuristic(taken, u))
        if math.ceil(fixed_cost + best_bound - 1e-6) >= covers.upper or step < schedule.min_step:
            break
        slack = rows - np.bincount(elements, weights=taken[lists], minlength=instance.N)
        slack[((u <= 0) & (slack < 0)) | ~rows] = 0.0
        norm = float(slack @ slack)
        if norm == 0:  # complementary slackness: the taken lists are an optimal cover
            break
        u = np.maximum(0.0, u + step * (schedule.lift * (covers.upper - fixed_cost) - bound) / norm * slack)
    return best_u, best_bound, iteration


def dive(instance: Instance, *, shares: tuple[float, ...] = (0.05, 0.1, 0.2)) -> Relaxation:
    """``relax(instance)`` with the covers of Lagrangian dives added (cheapest first; cached per instance).

    Caprara, Fischetti and Toth's scheme: fix the lists of least reduced cost
    that cover about a ``share`` of the elements still open, re-optimise the
    multipliers on the residual problem (a short ascent from the last ones,
    each step building a cover with ``lagrangian_greedy``), and repeat until
    everything is covered or the bound proves that the fixed lists cannot
    beat the best cover.  Small residual problems price the remaining
    choices far better than the full problem does: on a class-C instance
    whose optimum is 276 the first ascent's best cover costs 287, the dives'
    277-279.  A dive is chaotic (a tiny change of the multipliers changes
    what it fixes), so one dive per share, all from the first ascent's
    multipliers, gives several good, different covers.
    """
    return _dive(instance, tuple(shares))


@lru_cache(maxsize=4)
def _dive(instance: Instance, shares: tuple[float, ...]) -> Relaxation:
    relaxation = relax(instance)
    allowed = relaxation.useful()
    covers = _CoverPool(instance)
    for cover in relaxation.covers:
        covers.add(cover)
    for share in shares:
        _dive_once(instance, relaxation.multipliers, allowed, covers, share)
    return replace(relaxation, upper=covers.upper, covers=covers.sorted())


def _dive_once(instance: Instance, u: np.ndarray, allowed: np.ndarray, covers: _CoverPool, share: float) -> None:
    fixed = np.zeros(instance.n_lists, dtype=bool)
    lists, elements = instance.entries
    per_list = max(float(instance.sizes.mean()), 1.0)
    while True:
        rows = instance.coverable.copy()
        rows[instance.elements_of(np.flatnonzero(fixed))] = False
        left = allowed & ~fixed
        fixed_cost = int(instance.list_costs[fixed].sum())
        if not rows.any() or not left.any():
            return
        frozen = fixed.copy()
        u, bound, _ = _ascend(instance, u, covers, lambda _, v: lagrangian_greedy(instance, v, frozen, allowed),
                              DIVE, rows, left, fixed_cost)
        if math.ceil(fixed_cost + bound - 1e-6) >= covers.upper:
            return  # no cover through these fixed lists is cheaper than the best one
        reduced = instance.list_costs - np.bincount(lists, weights=u[elements], minlength=instance.n_lists)
        opens = np.bincount(lists, weights=rows[elements], minlength=instance.n_lists)
        reduced[~left | (opens == 0)] = np.inf
        order = np.argsort(reduced, kind="stable")[: max(1, int(share * np.count_nonzero(rows) / per_list))]
        fixed[order[np.isfinite(reduced[order])]] = True


def lagrangian_greedy(instance: Instance, multipliers: np.ndarray, fixed: np.ndarray | None = None,
                      allowed: np.ndarray | None = None) -> np.ndarray:
    """A cover completed from ``fixed`` by Caprara, Fischetti and Toth's greedy score, redundant lists dropped.

    A list's score weighs its Lagrangian cost on the open elements,
    ``g = c_j - sum of their multipliers``, against how many it opens, ``m``:
    ``g / m`` if ``g > 0``, else ``g * m``; the lowest wins (ties: lowest
    index).  Lists outside ``allowed`` are taken only where no allowed one
    covers an open element.
    """
    selected = np.zeros(instance.n_lists, dtype=bool) if fixed is None else np.array(fixed, dtype=bool)
    open_ = instance.coverable.copy()
    open_[instance.elements_of(np.flatnonzero(selected))] = False
    lists, elements = instance.entries
    weights = np.where(open_, multipliers, 0.0)
    opens = np.bincount(lists, weights=open_[elements], minlength=instance.n_lists)
    gain = instance.list_costs - np.bincount(lists, weights=weights[elements], minlength=instance.n_lists)
    barred = selected | (False if allowed is None else ~allowed)
    while open_.any():
        score = np.where(gain > 0, gain / np.maximum(opens, 1), gain * opens)
        score[(opens == 0) | barred] = np.inf
        j = int(np.argmin(score))
        if score[j] == np.inf:  # the allowed lists cover no open element: any list may
            barred = selected.copy()
            continue
        selected[j] = barred[j] = True
        new = instance.members[j][open_[instance.members[j]]]
        open_[new] = False
        holders = [instance.holders[e] for e in new]
        touched = np.concatenate(holders)
        opens -= np.bincount(touched, minlength=instance.n_lists)
        gain += np.bincount(touched, weights=np.repeat(weights[new], [len(h) for h in holders]),
                            minlength=instance.n_lists)
    return remove_redundant(instance, selected)


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
