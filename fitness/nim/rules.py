"""Nim rules: the starting board, the bound on a move, and who wins.

Kept apart from agents and the match engine (as OpenSpiel keeps game rules
apart from players) so every other module can ask the rules, and only the
rules, what a legal move is.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["Rules"]


def _as_count(value: object, what: str) -> int:
    """An exact non-negative integer, or a ValueError naming `what`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            raise ValueError(f"{what} must be an integer, got the float {value!r}")
        raise ValueError(f"{what} must be an integer, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Rules:
    """A Nim variant: starting rows, optional bound `k` per move, normal or misère.

    Normal play: whoever takes the last object wins. Misère: whoever takes it
    loses. With `k`, a move removes between 1 and `k` objects from one row.
    """

    rows: tuple[int, ...]
    k: int | None = None
    misere: bool = False

    def __post_init__(self) -> None:
        try:
            raw = tuple(self.rows)
        except TypeError:
            raise ValueError(f"rows must be a sequence of integers, got {self.rows!r}") from None
        if not raw:
            raise ValueError("rows must not be empty")
        rows = tuple(_as_count(r, f"rows[{i}]") for i, r in enumerate(raw))
        for i, r in enumerate(rows):
            if r < 0:
                raise ValueError(f"rows[{i}] must be >= 0, got {r}")
        if sum(rows) == 0:
            raise ValueError("rows must hold at least one object (all rows are zero)")
        k = self.k
        if k is not None:
            k = _as_count(k, "k")
            if k < 1:
                raise ValueError(f"k must be >= 1 (or None for unbounded), got {k}")
        if not isinstance(self.misere, (bool, np.bool_)):
            raise ValueError(f"misere must be True or False, got {self.misere!r}")
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "k", k)
        object.__setattr__(self, "misere", bool(self.misere))

    @classmethod
    def standard(cls, n: int, k: int | None = None, misere: bool = False) -> "Rules":
        """The course board with `n` rows of 1, 3, 5, ... objects."""
        n = _as_count(n, "n (number of rows)")
        if n < 1:
            raise ValueError(f"n (number of rows) must be >= 1, got {n}")
        return cls(rows=tuple(2 * i + 1 for i in range(n)), k=k, misere=misere)

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def max_take(self) -> int:
        """The most objects one move can remove from this board."""
        biggest = max(self.rows)
        return biggest if self.k is None else min(self.k, biggest)

    def describe(self) -> str:
        bound = "unbounded" if self.k is None else f"k={self.k}"
        play = "misère" if self.misere else "normal"
        return f"rows={list(self.rows)} {bound} {play}"

    def start(self, games: int) -> np.ndarray:
        """`games` copies of the starting board as an int array (games, rows)."""
        return np.tile(np.asarray(self.rows, dtype=np.int64), (games, 1))

    def legal_mask(self, positions: np.ndarray, rows: np.ndarray, takes: np.ndarray) -> np.ndarray:
        """Which (row, take) moves are legal in the given positions (one per game)."""
        positions = np.asarray(positions)
        rows = np.asarray(rows)
        takes = np.asarray(takes)
        in_range = (rows >= 0) & (rows < positions.shape[1])
        safe_rows = np.where(in_range, rows, 0)
        available = positions[np.arange(len(positions)), safe_rows]
        ok = in_range & (takes >= 1) & (takes <= available)
        if self.k is not None:
            ok &= takes <= self.k
        return ok

    def mover_wins_on_empty(self) -> bool:
        """Who wins once the board is empty, seen from the player now to move.

        In normal play the previous player took the last object and won, so the
        player to move has lost; in misère it is the other way round.
        """
        return self.misere
