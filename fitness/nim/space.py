"""Every position reachable from a board, numbered by a mixed-radix code.

Row i of a position is digit i of its code (row 0 least significant), so a
move (row, take) subtracts `take * radix[row]` and the empty board is code 0.
Small boards get whole policies tabulated over this space, which turns a
move into two array lookups: that is what makes the match engine fast.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["StateSpace", "TABLE_LIMIT"]

# Boards with more raw positions than this are played on position arrays
# instead of codes (the standard 7-row board has 645,120; 8 rows, 10 million).
TABLE_LIMIT = 1 << 21


class StateSpace:
    """Mixed-radix numbering of the positions bounded by a starting board."""

    def __init__(self, board: tuple[int, ...]) -> None:
        self.board = tuple(int(r) for r in board)
        self.base = np.asarray([r + 1 for r in self.board], dtype=np.int64)
        self.radix = np.concatenate(([1], np.cumprod(self.base)[:-1])).astype(np.int64)
        self.size = int(np.prod(self.base, dtype=object))
        self.start = int(np.dot(self.board, self.radix))
        self._positions: np.ndarray | None = None

    @staticmethod
    @lru_cache(maxsize=64)
    def of(board: tuple[int, ...]) -> "StateSpace | None":
        """The (cached) space of a board, or None when it is too large to tabulate."""
        space = StateSpace(board)
        return space if space.size <= TABLE_LIMIT else None

    @property
    def n_rows(self) -> int:
        return len(self.board)

    def encode(self, positions: np.ndarray) -> np.ndarray:
        return np.asarray(positions, dtype=np.int64) @ self.radix

    def decode(self, codes: np.ndarray) -> np.ndarray:
        codes = np.asarray(codes, dtype=np.int64)
        return (codes[:, None] // self.radix) % self.base

    def digit(self, codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Objects left in row `rows[i]` of position `codes[i]`."""
        return (codes // self.radix[rows]) % self.base[rows]

    def all_positions(self) -> np.ndarray:
        """Every position of the space, row `c` holding the position of code `c` (read-only).

        Decoded once per space and shared: every deterministic genome of a run
        is tabulated over the same positions (the spaces of `of` are shared too).
        """
        if self._positions is None:
            positions = self.decode(np.arange(self.size, dtype=np.int64))
            positions.flags.writeable = False
            self._positions = positions
        return self._positions
