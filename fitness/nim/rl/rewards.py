"""Rewards, always zero-sum: what one player gains on a ply, the other loses.

Each ply is scored for the player who just moved, from the position it left:

* the board is empty: `+terminal` if that wins (normal play), `-terminal` if
  it loses (misère);
* exactly one non-empty row is left: `-one_row`, since the opponent may now
  finish the game (seed 004's shaping; 0 by default);
* anything else: 0.

Seed 004's shaping is `terminal=5, one_row=3`. It is a heuristic, not a
potential-based shaping: it can shift learned values (with a bound `k`, or in
misère, a single row left is not always a win for the player to move), so the
unshaped ±1 is the default.

Keeping rewards zero-sum is what makes the self-play backup exact: a
position's value for the player to move is minus its value for the other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Rewards"]


@dataclass(frozen=True)
class Rewards:
    """Reward magnitudes: the end of the game and (optionally) a single row left."""

    terminal: float = 1.0
    one_row: float = 0.0

    def __post_init__(self) -> None:
        if not self.terminal > 0:
            raise ValueError(f"the terminal reward must be positive, got {self.terminal}")

    @classmethod
    def shaped(cls) -> "Rewards":
        """Seed 004's rewards: ±5 for the end of the game, ±3 for one row left."""
        return cls(terminal=5.0, one_row=3.0)

    def ply(self, after: np.ndarray, misere: bool) -> np.ndarray:
        """Reward of the player who just moved, given the raw positions it left."""
        rows_left = np.count_nonzero(np.asarray(after), axis=1)
        out = np.zeros(len(rows_left))
        out[rows_left == 0] = -self.terminal if misere else self.terminal
        out[rows_left == 1] = -self.one_row
        return out
