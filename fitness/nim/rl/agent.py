"""The trained agent: a value table's greedy policy as a batched `Agent`.

It is deterministic, so the match engine tabulates it over small boards and
it plays as fast as the expert. The table may come from a permutation of the
board it is asked to play (the values are keyed canonically); a canonical
action `(size, take)` is played on the lowest-index row of that size.
"""

from __future__ import annotations

import numpy as np

from ..agents.base import Agent, Moves
from ..rules import Rules
from .policy import greedy_policy
from .space import same_game
from .values import QTable

__all__ = ["RLAgent"]


class RLAgent(Agent):
    """Plays argmax Q on canonical states (see `policy.greedy_policy` for unseen ones)."""

    deterministic = True

    def __init__(self, name: str, rules: Rules, table: QTable) -> None:
        if not same_game(rules, table.space.rules):
            raise ValueError(
                f"agent {name!r} was trained on {table.space.rules.describe()}, "
                f"not {rules.describe()}"
            )
        super().__init__(name, rules)
        self.table = table
        self.policy = greedy_policy(table)

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        space = self.table.space
        actions = self.policy[space.index(positions)]
        rows = space.raw_rows(positions, space.sizes[actions])
        return rows, space.takes[actions].astype(np.int64)
