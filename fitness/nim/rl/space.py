"""Canonical states and canonical actions of one Nim variant, numbered densely.

Positions that are permutations of each other (or differ only by empty rows)
are the same game, so learned values are keyed on the canonical state: the
non-empty row sizes, sorted. A canonical action is `(row size, take)`: taking
from any of several equal rows gives the same game, so they share one value.
Playing it on a raw position means taking from the lowest-index row of that
size.

Canonical states are numbered by `fitness.nim.canonical` (as for the
solver), and each state's actions sit in one contiguous slice of a flat
array (CSR layout, ordered by row size then take), so value tables are
plain float arrays and a whole batch of games is looked up with a few
vectorised operations.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..canonical import CanonicalStates
from ..rules import Rules

__all__ = ["CanonicalSpace", "same_game"]

_CHUNK = 1 << 16  # states per chunk when building actions (bounds temporary memory)


def same_game(a: Rules, b: Rules) -> bool:
    """Whether two variants share their canonical states: same rows in any order, k, play."""
    return sorted(a.rows) == sorted(b.rows) and a.k == b.k and a.misere == b.misere


class CanonicalSpace:
    """The canonical states and actions of `rules`, with vectorised lookups."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._states = CanonicalStates.of(rules.rows)
        self.n_rows = self._states.n_rows
        self.states = self._states.states  # row i: state i, sorted ascending, zero-padded
        self.n_states = self._states.n_states
        self.max_take = rules.max_take
        self._build_actions()

    @staticmethod
    @lru_cache(maxsize=16)
    def of(rules: Rules) -> "CanonicalSpace":
        """The (cached) space of a variant: building it is the costly part."""
        return CanonicalSpace(rules)

    # -- construction -------------------------------------------------------
    def _build_actions(self) -> None:
        sizes, takes, counts = [], [], []
        take_range = np.arange(1, self.max_take + 1, dtype=np.int64)
        for lo in range(0, self.n_states, _CHUNK):
            s = self.states[lo:lo + _CHUNK]
            # One action per distinct non-empty size: keep the last of each run.
            distinct = s > 0
            distinct[:, :-1] &= s[:, :-1] != s[:, 1:]
            ok = distinct[:, :, None] & (take_range[None, None, :] <= s[:, :, None])
            state_of, col, t = np.nonzero(ok)  # C order: by state, size, take
            sizes.append(s[state_of, col])
            takes.append(take_range[t])
            counts.append(np.bincount(state_of, minlength=len(s)))
        self.sizes = np.concatenate(sizes).astype(np.int32)
        self.takes = np.concatenate(takes).astype(np.int32)
        self.offsets = np.concatenate(([0], np.cumsum(np.concatenate(counts)))).astype(np.int64)
        self.n_actions = int(self.offsets[-1])

    # -- lookups ------------------------------------------------------------
    def index(self, positions: np.ndarray) -> np.ndarray:
        """State index of each raw position `(games, rows)` (any row order)."""
        return self._states.index(positions)

    def state_index(self, state) -> int:
        """Index of one canonical state given as row sizes (order and zeros ignored)."""
        sizes = [int(v) for v in state]
        if any(v < 0 for v in sizes):
            raise ValueError(f"state {list(state)} has a negative row")
        sizes = [v for v in sizes if v > 0]
        if len(sizes) > self.n_rows:
            raise ValueError(f"state {list(state)} has more rows than the board")
        padded = np.zeros((1, self.n_rows), dtype=np.int64)
        padded[0, self.n_rows - len(sizes):] = sorted(sizes)
        return int(self.index(padded)[0])

    def action_slice(self, state: int) -> slice:
        return slice(int(self.offsets[state]), int(self.offsets[state + 1]))

    def action_index(self, state: int, size: int, take: int) -> int:
        """Flat index of canonical action `(size, take)` in `state`, or ValueError."""
        where = self.action_slice(state)
        hit = np.flatnonzero((self.sizes[where] == size) & (self.takes[where] == take))
        if hit.size == 0:
            raise ValueError(
                f"(size {size}, take {take}) is not a legal action in state "
                f"{self.describe(state)} ({self.rules.describe()})"
            )
        return where.start + int(hit[0])

    def padded_actions(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat action indices of each state, padded to one row per state, and the mask."""
        start = self.offsets[states]
        count = self.offsets[states + 1] - start
        width = int(count.max()) if len(states) else 0
        slot = np.arange(width)
        mask = slot[None, :] < count[:, None]
        return np.where(mask, start[:, None] + slot[None, :], 0), mask

    def owner(self, actions: np.ndarray) -> np.ndarray:
        """The state each flat action belongs to."""
        return np.searchsorted(self.offsets, actions, side="right") - 1

    def after(self, actions: np.ndarray) -> np.ndarray:
        """The canonical state each flat action leads to."""
        actions = np.asarray(actions, dtype=np.int64)
        states = self.states[self.owner(actions)]
        # The size occurs in a sorted run; lowering its last member keeps the
        # multiset right, and sorting restores canonical order.
        col = self.n_rows - 1 - np.argmax((states == self.sizes[actions, None])[:, ::-1], axis=1)
        states[np.arange(len(actions)), col] -= self.takes[actions]
        return self.index(states)

    def raw_rows(self, positions: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """The lowest-index row of each raw position holding `sizes[i]` objects."""
        return np.argmax(np.asarray(positions) == np.asarray(sizes)[:, None], axis=1)

    def raw_positions(self, states: np.ndarray) -> np.ndarray:
        """A raw position of the board for each canonical state (sizes dealt to rows
        in the order of the rows' starting sizes, so each fits)."""
        out = np.zeros((len(states), self.n_rows), dtype=np.int64)
        out[:, np.argsort(self.rules.rows, kind="stable")] = self.states[states]
        return out

    def describe(self, state: int) -> str:
        return str([int(v) for v in self.states[state] if v > 0])
