"""Behaviour descriptors of Nim agents, for quality-diversity (MAP-Elites) archives.

Each is a share in [0, 1], computed exactly from the agent's move distribution
over every position of the board with objects left, each position counted once:

- `empty_row_rate`: how often the agent's move empties a row (takes all of it);
- `zero_nimsum_rate`: how often its move leaves a nim-sum of zero (the expert's
  aim in normal play: a greedy "row-emptier" and a nim-sum player sit apart).

Two agents with the same fitness can differ in both, which is what an archive
over them keeps apart.
"""

from __future__ import annotations

from functools import reduce
from typing import Sequence

import numpy as np

from .distribution import MoveDistribution
from .exact import mean_successor_values
from .rules import Rules
from .space import StateSpace

__all__ = ["DESCRIPTORS", "descriptor_values"]

DESCRIPTORS = ("empty_row_rate", "zero_nimsum_rate")


def descriptor_values(names: Sequence[str], players: Sequence[MoveDistribution], rules: Rules
                      ) -> dict[str, np.ndarray]:
    """Each named descriptor of each player (`players`: move distributions on the rules' board)."""
    space = StateSpace(rules.rows)
    positions = space.decode(np.arange(space.size))
    codes = np.arange(1, space.size)  # every position with objects left (code 0 is the empty board)
    out = {}
    if "empty_row_rate" in names:  # a move lowers one row: it empties one iff the non-empty rows drop by 1
        rows_left = (positions > 0).sum(axis=1).astype(np.float64)
        out["empty_row_rate"] = rows_left[codes].mean() - mean_successor_values(players, rules, rows_left, codes)
    if "zero_nimsum_rate" in names:
        zero = (reduce(np.bitwise_xor, positions.T) == 0).astype(np.float64)
        out["zero_nimsum_rate"] = mean_successor_values(players, rules, zero, codes)
    return {name: out[name] for name in names}
