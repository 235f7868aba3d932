"""Exact Nim solver: retrograde analysis over canonical positions.

A canonical position is the multiset of row sizes (rows sorted, empty rows
dropped): every position with the same multiset has the same value, which
shrinks the 9-row board from 185 million raw positions to about a million.
The solver uses no Nim theory at all, only the rules: a position is winning
iff some move leads to a losing one. That independence is what lets the tests
use it as the oracle for the expert.

Positions are labelled level by level (total objects ascending). Every
position of a level that no losing position below has reached is losing, and
all of its predecessors (one row larger by 1..k) are then marked winning, so
the work is proportional to the losing positions, a small minority.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .canonical import CanonicalStates, canonical
from .rules import Rules

__all__ = ["SolvedGame", "solve", "canonical"]


class SolvedGame:
    """Win/loss labels of every canonical position reachable from a board."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._space = CanonicalStates.of(rules.rows)
        self._caps = self._space.caps
        self._win = self._label()

    # -- construction -------------------------------------------------------
    def _label(self) -> np.ndarray:
        states, caps = self._space.states, self._caps
        n_states, n_rows = states.shape
        win = np.zeros(n_states, dtype=bool)
        totals = states.sum(axis=1, dtype=np.int64)
        by_level = np.argsort(totals, kind="stable")
        bounds = np.searchsorted(totals[by_level], np.arange(totals.max() + 2))
        max_take = int(caps[-1]) if self.rules.k is None else self.rules.k
        empty = by_level[0]
        if self.rules.misere:
            win[empty] = True  # the previous player took the last object and lost
        for level in range(totals.max() + 1):
            members = by_level[bounds[level]:bounds[level + 1]]
            losing = members[~win[members]]
            if losing.size == 0:
                continue
            lose_states = states[losing].astype(np.int64)
            # Raising any one of several equal rows gives the same multiset:
            # raise only the last of each run of equal values.
            last_of_run = np.ones_like(lose_states, dtype=bool)
            last_of_run[:, :-1] = lose_states[:, :-1] != lose_states[:, 1:]
            for j in range(n_rows):
                src = lose_states[last_of_run[:, j]]
                if src.size == 0:
                    continue
                for take in range(1, max_take + 1):
                    pred = src.copy()
                    pred[:, j] += take
                    pred.sort(axis=1)
                    ok = (pred <= caps).all(axis=1)
                    if not ok.any():
                        break  # larger takes only overflow further
                    win[self._space.index_sorted(pred[ok])] = True
        return win

    # -- queries ------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return self._space.n_states

    @property
    def n_losing(self) -> int:
        return int(np.count_nonzero(~self._win))

    def states(self) -> np.ndarray:
        """Every canonical position (sorted ascending, zero-padded) and its label."""
        return self._space.states.copy(), self._win.copy()

    def _lookup(self, positions: np.ndarray) -> np.ndarray:
        return self._win[self._space.index(positions)]

    def winning(self, positions: np.ndarray) -> np.ndarray:
        """Vectorised: True where the player to move wins with perfect play."""
        return self._lookup(np.atleast_2d(positions))

    def is_winning(self, position) -> bool:
        return bool(self._lookup(np.asarray(position, dtype=np.int64)[None, :])[0])

    def best_moves(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A move to a losing position where one exists (lowest row, then smallest
        take); otherwise one object off the largest row, to make the game last."""
        p = np.atleast_2d(np.asarray(positions, dtype=np.int64))
        n, n_rows = p.shape
        rows = p.argmax(axis=1)
        takes = np.ones(n, dtype=np.int64)
        open_ = self.winning(p)
        max_take = int(self._caps[-1]) if self.rules.k is None else self.rules.k
        for r in range(n_rows):
            for take in range(1, max_take + 1):
                todo = open_ & (p[:, r] >= take)
                if not todo.any():
                    break
                succ = p[todo].copy()
                succ[:, r] -= take
                hit = ~self._lookup(succ)
                chosen = np.flatnonzero(todo)[hit]
                rows[chosen] = r
                takes[chosen] = take
                open_[chosen] = False
        return rows, takes

    def best_move(self, position) -> tuple[int, int]:
        rows, takes = self.best_moves(np.asarray(position, dtype=np.int64)[None, :])
        return int(rows[0]), int(takes[0])


@lru_cache(maxsize=32)
def solve(rules: Rules) -> SolvedGame:
    """Solve a board exactly (cached: each process solves a given variant once)."""
    return SolvedGame(rules)
