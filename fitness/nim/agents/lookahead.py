"""Depth-limited minimax with seed 004's evaluation at the horizon.

For boards too large to solve. Search runs on canonical positions (sorted
rows), a whole frontier at a time, with duplicate positions merged at every
level and values memoised per depth across calls.

The horizon evaluation is seed 004's, seen from the player to move: -1 if
the nim-sum of the rows is 0, +1 if a single row is left, else 0. It is exact
only for normal, unbounded play; in misère or bounded play it misleads the
search, which is worth seeing when teaching.
"""

from __future__ import annotations

import numpy as np

from ..rules import Rules
from .base import Agent, Moves

__all__ = ["LookaheadAgent"]


class LookaheadAgent(Agent):
    """`minimax:D`: looks D plies ahead, then trusts seed 004's heuristic."""

    deterministic = True

    def __init__(self, name: str, rules: Rules, depth: int) -> None:
        super().__init__(name, rules)
        self.depth = depth
        width = max(rules.rows) + 1
        self._weights = width ** np.arange(rules.n_rows, dtype=object)
        self._use_object = width ** rules.n_rows >= 2**62
        if not self._use_object:
            self._weights = self._weights.astype(np.int64)
        self._memo: list[dict[int, int]] = [dict() for _ in range(depth + 1)]
        self._max_take = max(rules.rows) if rules.k is None else rules.k

    # Canonical positions are rows sorted ascending, zero-padded.
    def _codes(self, states: np.ndarray) -> list[int]:
        return (states.astype(object if self._use_object else np.int64) @ self._weights).tolist()

    def _horizon(self, states: np.ndarray) -> np.ndarray:
        nim_sum = np.bitwise_xor.reduce(states, axis=1)
        single = (states > 0).sum(axis=1) == 1
        return np.where(nim_sum == 0, -1, np.where(single, 1, 0))

    def _successors(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All positions one move away, as (parent index, sorted successor)."""
        parents, children = [], []
        n_rows = states.shape[1]
        last_of_run = np.ones_like(states, dtype=bool)
        last_of_run[:, :-1] = states[:, :-1] != states[:, 1:]
        for j in range(n_rows):
            for take in range(1, self._max_take + 1):
                ok = last_of_run[:, j] & (states[:, j] >= take)
                if not ok.any():
                    break
                child = states[ok].copy()
                child[:, j] -= take
                parents.append(np.flatnonzero(ok))
                children.append(child)
        child_states = np.sort(np.concatenate(children), axis=1)
        return np.concatenate(parents), child_states

    def _value(self, states: np.ndarray, depth: int) -> np.ndarray:
        """Negamax value for the player to move, for unique canonical positions."""
        codes = self._codes(states)
        memo = self._memo[depth]
        values = np.array([memo.get(c, 2) for c in codes], dtype=np.int64)
        todo = values == 2
        if todo.any():
            fresh = states[todo]
            empty = fresh.sum(axis=1) == 0
            result = np.empty(len(fresh), dtype=np.int64)
            result[empty] = 1 if self.rules.misere else -1
            live = fresh[~empty]
            if len(live):
                if depth == 0:
                    result[~empty] = self._horizon(live)
                else:
                    parent, child = self._successors(live)
                    unique, inverse = np.unique(child, axis=0, return_inverse=True)
                    child_value = self._value(unique, depth - 1)[inverse.ravel()]
                    best = np.full(len(live), -2, dtype=np.int64)
                    np.maximum.at(best, parent, -child_value)
                    result[~empty] = best
            values[todo] = result
            memo.update(zip((c for c, t in zip(codes, todo) if t), result.tolist()))
        return values

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        n, n_rows = p.shape
        moves_row, moves_take, owners, children = [], [], [], []
        for r in range(n_rows):
            for take in range(1, self._max_take + 1):
                ok = p[:, r] >= take
                if not ok.any():
                    break
                child = p[ok].copy()
                child[:, r] -= take
                owners.append(np.flatnonzero(ok))
                children.append(child)
                moves_row.append(np.full(ok.sum(), r))
                moves_take.append(np.full(ok.sum(), take))
        owner = np.concatenate(owners)
        row = np.concatenate(moves_row)
        take = np.concatenate(moves_take)
        unique, inverse = np.unique(np.sort(np.concatenate(children), axis=1), axis=0, return_inverse=True)
        score = -self._value(unique, self.depth - 1)[inverse.ravel()]
        # Best score per position; the first such move in (row, take) order.
        best = np.full(n, -3, dtype=np.int64)
        np.maximum.at(best, owner, score)
        is_best = score == best[owner]
        first = np.full(n, len(owner), dtype=np.int64)
        np.minimum.at(first, owner[is_best], np.flatnonzero(is_best))
        return row[first], take[first]
