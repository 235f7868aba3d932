"""Exact minimum-cost set cover by A*, for small instances (cost = size on course instances).

A state is the set of covered elements.  From a state, only the lists holding
its lowest uncovered element are tried: some list of every cover holds it, so
no optimum is lost, and each cover is reached in one order instead of all.
The path cost is the total cost of the lists taken.  The heuristic charges
every uncovered element the cheapest price per new element any list offers it,
``min over lists j holding e of cost_j / |j ∩ uncovered|``; any completion pays
at least that for each element, so it never overestimates, and A* may reopen
states, so it stays exact even where the heuristic is not consistent.
"""

from __future__ import annotations

import heapq
import math
import time
from typing import Callable

import numpy as np

from .instance import Instance
from .result import CoverResult


class SearchLimitExceeded(RuntimeError):
    """A* hit its node or time budget before proving an optimum."""


def astar(instance: Instance, *, max_nodes: int = 200_000, time_limit: float = 10.0) -> CoverResult:
    """Return a minimum-cost cover of every coverable element, with the number of nodes visited.

    A node is visited when it leaves the queue as the cheapest open state
    (the goal included); stale queue entries do not count.

    Raises ``SearchLimitExceeded`` (naming N, the budget and the bound reached)
    once ``max_nodes`` expansions or ``time_limit`` seconds are used up, so a
    large instance fails fast instead of hanging.
    """
    if max_nodes < 1 or time_limit <= 0:
        raise ValueError(f"max_nodes must be >= 1 and time_limit > 0, got {max_nodes} and {time_limit}")
    masks = [sum(1 << int(e) for e in members) for members in instance.members]
    holders = [np.flatnonzero(column).tolist() for column in instance.incidence.T]
    goal = sum(1 << int(e) for e in np.flatnonzero(instance.coverable))
    costs = instance.list_costs.tolist()
    heuristic = _price_heuristic(instance, goal)
    deadline = time.monotonic() + time_limit
    nodes = 0

    def give_up(bound: int) -> SearchLimitExceeded:
        return SearchLimitExceeded(
            f"A* gave up on N={instance.N} ({instance.n_lists} lists) after {nodes:,} nodes "
            f"({max_nodes:,} allowed, {time_limit:g} s) with the optimum proven >= {bound}; "
            "use a greedy baseline or raise max_nodes / time_limit"
        )

    best_cost = {0: 0}
    parent: dict[int, tuple[int, int]] = {}
    frontier = [(heuristic(0), 0, 0, 0)]  # (f, -g, tie, covered): deeper first on equal f
    tie = 0
    while frontier:
        bound, neg_cost, _, covered = heapq.heappop(frontier)
        cost = -neg_cost
        if cost > best_cost[covered]:
            continue
        if covered == goal:
            return CoverResult.of(instance, _path(parent, covered), nodes_visited=nodes + 1)
        if nodes == max_nodes:
            raise give_up(bound)
        nodes += 1
        lowest = ((goal & ~covered) & -(goal & ~covered)).bit_length() - 1
        for j in holders[lowest]:
            if time.monotonic() > deadline:
                raise give_up(bound)
            child = covered | masks[j]
            child_cost = cost + costs[j]
            if child_cost < best_cost.get(child, math.inf):
                best_cost[child] = child_cost
                parent[child] = (covered, j)
                tie += 1
                heapq.heappush(frontier, (child_cost + heuristic(child), -child_cost, tie, child))
    raise AssertionError("unreachable: the goal is a union of lists")


def _price_heuristic(instance: Instance, goal: int) -> Callable[[int], int]:
    """The admissible bound of a state (a bitmask of covered elements): each uncovered element at its cheapest price."""
    width = (instance.N + 7) // 8

    def heuristic(covered: int) -> int:
        bits = np.frombuffer((goal & ~covered).to_bytes(width, "little"), dtype=np.uint8)
        uncovered = np.unpackbits(bits, bitorder="little", count=instance.N).astype(bool)
        if not uncovered.any():
            return 0
        hits = instance.incidence[:, uncovered]
        gain = hits.sum(axis=1)
        price = np.divide(instance.list_costs, gain, out=np.full(gain.shape, np.inf), where=gain > 0)
        per_element = np.where(hits, price[:, None], np.inf).min(axis=0)
        return math.ceil(per_element.sum() - 1e-9)

    return heuristic


def _path(parent: dict[int, tuple[int, int]], covered: int) -> list[int]:
    chosen = []
    while covered in parent:
        covered, j = parent[covered]
        chosen.append(j)
    return chosen[::-1]
