"""The cheapest cover that uses only some of the lists, found exactly when the choice is small.

Two good covers share most of their lists; within their union, the lists
that alone hold some element are forced, and what is left to decide is a
tiny set-cover problem (tens of elements and lists).  Solving it exactly is
*optimal recombination* (Eremeev's term for the set-covering GA): the child
is the cheapest cover the parents' lists (plus any a mutation brings in) can
make, never dearer than the cheaper parent.

The residual problem is solved by depth-first branch and bound over
bitmasks: branch on the uncovered element with the fewest lists, cheapest
cost per newly covered element first; prune with the price bound (each
uncovered element charged the lowest ``cost / newly covered`` any list
offers it, which no completion can beat).  A node budget keeps the worst
case bounded; the greedy completion is the incumbent it must beat.
"""

from __future__ import annotations

import math

import numpy as np

from .instance import Instance

__all__ = ["cheapest_subcover"]


def cheapest_subcover(instance: Instance, pool: np.ndarray, *, incumbent: np.ndarray | None = None,
                      node_limit: int = 2000) -> np.ndarray | None:
    """The cheapest cover of every coverable element using only lists in the mask ``pool``.

    Returns a bool mask over the lists, or None if the pool leaves some
    coverable element uncovered.  ``incumbent``, a cover inside the pool
    (say, the cheaper parent), is the cover to beat; without one (or if it
    is no cover), the greedy completion is.  Exact unless the search exceeds ``node_limit`` nodes; it
    then returns the best cover found.  Ties go to the cover found first
    (the incumbent before any other), so the answer is deterministic.
    """
    columns = np.flatnonzero(pool)
    hits = instance.incidence_t[:, columns]  # elements x pool lists
    holders = hits.sum(axis=1)
    if (holders[instance.coverable] == 0).any():
        return None
    forced = hits[holders == 1].any(axis=0)  # lists alone on some element
    open_rows = np.flatnonzero(instance.coverable & ~hits[:, forced].any(axis=1))
    chosen = np.zeros(instance.n_lists, dtype=bool)
    chosen[columns[forced]] = True
    if open_rows.size == 0:
        return chosen
    free = np.flatnonzero(~forced & hits[open_rows].any(axis=0))
    masks = _bitmasks(hits[np.ix_(open_rows, free)])
    costs = instance.list_costs[columns[free]].tolist()
    start = None
    if incumbent is not None and (hits[open_rows][:, incumbent[columns]].any(axis=1)).all():
        start = np.flatnonzero(incumbent[columns[free]]).tolist()
    picked = _Search(masks, costs, (1 << len(open_rows)) - 1, node_limit, start).run()
    chosen[columns[free[picked]]] = True
    return chosen


def _bitmasks(matrix: np.ndarray) -> list[int]:
    """Each column of a 0/1 (rows x columns) matrix as an int, bit i for row i."""
    weights = [1 << i for i in range(matrix.shape[0])]
    return [sum(w for w, hit in zip(weights, column) if hit) for column in matrix.T.tolist()]


class _Search:
    """Branch and bound for min-cost set cover over int bitmasks (small problems only)."""

    def __init__(self, masks: list[int], costs: list[int], goal: int, node_limit: int,
                 start: list[int] | None = None) -> None:
        self.masks, self.costs, self.goal, self.node_limit = masks, costs, goal, node_limit
        self.by_row = {bit: [j for j, m in enumerate(masks) if m >> bit & 1] for bit in range(goal.bit_length())}
        self.best = self._greedy() if start is None else start
        self.best_cost = sum(costs[j] for j in self.best)
        self.nodes = 0

    def run(self) -> list[int]:
        self._branch(self.goal, 0, [])
        return sorted(self.best)

    def _greedy(self) -> list[int]:
        uncovered, picked = self.goal, []
        while uncovered:
            gain = [(m & uncovered).bit_count() for m in self.masks]
            j = min((j for j in range(len(self.masks)) if gain[j]), key=lambda j: (self.costs[j] / gain[j], j))
            picked.append(j)
            uncovered &= ~self.masks[j]
        return picked

    def _bound(self, uncovered: int) -> tuple[float, int]:
        """The price bound on completing ``uncovered``, and the uncovered element with the fewest lists."""
        price = {}
        for j, mask in enumerate(self.masks):
            gain = (mask & uncovered).bit_count()
            if gain:
                price[j] = self.costs[j] / gain
        total, branch_row, fewest = 0.0, -1, math.inf
        row_bits = uncovered
        while row_bits:
            low = row_bits & -row_bits
            row = low.bit_length() - 1
            row_bits ^= low
            options = self.by_row[row]
            total += min(price[j] for j in options)
            if len(options) < fewest:
                branch_row, fewest = row, len(options)
        return total, branch_row

    def _branch(self, uncovered: int, cost: int, picked: list[int]) -> None:
        if uncovered == 0:
            if cost < self.best_cost:
                self.best, self.best_cost = list(picked), cost
            return
        if self.nodes >= self.node_limit:
            return
        self.nodes += 1
        bound, row = self._bound(uncovered)
        if math.ceil(cost + bound - 1e-9) >= self.best_cost:
            return
        options = self.by_row[row]
        gains = {j: (self.masks[j] & uncovered).bit_count() for j in options}
        for j in sorted(options, key=lambda j: (self.costs[j] / gains[j], j)):
            picked.append(j)
            self._branch(uncovered & ~self.masks[j], cost + self.costs[j], picked)
            picked.pop()
