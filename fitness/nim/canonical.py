"""Canonical positions: row sizes sorted, empty rows dropped, numbered densely.

Every position with the same multiset of row sizes is the same game, which
shrinks the 9-row board from 185 million raw positions to 690,690. The exact
solver labels these states and the RL agents learn values on them; both
number them here. A state is stored sorted ascending and zero-padded to the
board's row count; a state is reachable iff it is at most the sorted board,
element by element.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

__all__ = ["CanonicalStates", "TooManyStates", "canonical", "count_states", "require_enumerable"]

# Enumerating and solving costs about 16 bytes per row per state (the sorted
# states and their codes, sorts, labels) plus a little: measured ~140 B per
# state on the 9-row board, ~185 B on 10 rows (4 million states, 0.8 GB, 7 s).
MEMORY_BUDGET = int(float(os.environ.get("EVO_SOLVER_MEMORY_GB", "2")) * 2**30)


class TooManyStates(ValueError):
    """A board whose canonical states would not fit the memory budget."""


def bytes_per_state(n_rows: int) -> int:
    return 16 * n_rows + 32


def count_states(board) -> int:
    """How many canonical states a board has, counted without enumerating them.

    Non-decreasing vectors under the sorted caps: a running prefix sum per
    row, O(rows x largest row) whatever the count.
    """
    caps = sorted(int(v) for v in board)
    if not caps:
        return 1
    ways = [1] * (caps[0] + 1)  # ways[v]: partial states whose last value is v
    for cap in caps[1:]:
        total, grown = 0, []
        for v in range(cap + 1):
            total += ways[v] if v < len(ways) else 0
            grown.append(total)
        ways = grown
    return sum(ways)


def require_enumerable(board, budget: int = MEMORY_BUDGET) -> int:
    """The board's state count, or `TooManyStates` if enumerating it would exceed `budget` bytes."""
    n = count_states(board)
    need = n * bytes_per_state(len(tuple(board)))
    if need > budget:
        raise TooManyStates(
            f"board {list(board)} has {n:,} canonical states (~{need / 2**30:,.1f} GiB to enumerate), "
            f"over the {budget / 2**30:g} GiB budget (EVO_SOLVER_MEMORY_GB)")
    return n


def canonical(position) -> tuple[int, ...]:
    """The canonical form of one position: row sizes sorted, empty rows dropped."""
    return tuple(sorted(int(v) for v in position if v > 0))


def _sorted_states(caps: np.ndarray) -> np.ndarray:
    """Every non-decreasing vector `s` with `0 <= s[i] <= caps[i]` (caps sorted)."""
    states = np.zeros((1, 0), dtype=np.int64)
    low = np.zeros(1, dtype=np.int64)  # each partial state's last value
    for cap in caps:
        counts = int(cap) + 1 - low
        parent = np.repeat(np.arange(len(states)), counts)
        start = np.repeat(np.cumsum(counts) - counts, counts)
        value = low[parent] + np.arange(int(counts.sum())) - start
        states = np.column_stack([states[parent], value])
        low = value
    return states


class CanonicalStates:
    """The canonical states of one board, ordered by code, with vectorised lookups."""

    def __init__(self, board: tuple[int, ...]) -> None:
        require_enumerable(board)
        self.caps = np.sort(np.asarray(board, dtype=np.int64))
        self.n_rows = len(self.caps)
        self._weights = (int(self.caps[-1]) + 1) ** np.arange(self.n_rows, dtype=np.int64)
        states = _sorted_states(self.caps)
        codes = states @ self._weights
        order = np.argsort(codes, kind="stable")
        self.states = states[order]  # row i: state i
        self._codes = codes[order]
        self.states.setflags(write=False)

    @staticmethod
    @lru_cache(maxsize=16)
    def of(board: tuple[int, ...]) -> "CanonicalStates":
        """Cached per board (rows in any order give the same states)."""
        return CanonicalStates(tuple(sorted(board)))

    @property
    def n_states(self) -> int:
        return len(self._codes)

    def index_sorted(self, states: np.ndarray) -> np.ndarray:
        """Index of states already in canonical form (sorted, zero-padded, reachable)."""
        return np.searchsorted(self._codes, np.asarray(states, dtype=np.int64) @ self._weights)

    def index(self, positions: np.ndarray) -> np.ndarray:
        """State index of each raw position `(games, rows)` (any row order), checked."""
        p = np.sort(np.asarray(positions, dtype=np.int64), axis=1)
        if p.ndim != 2 or p.shape[1] != self.n_rows:
            raise ValueError(f"positions must have shape (games, {self.n_rows}), got {p.shape}")
        if (p < 0).any() or (p > self.caps).any():
            raise ValueError("position is not reachable from this board")
        return self.index_sorted(p)
