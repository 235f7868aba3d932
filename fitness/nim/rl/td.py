"""Temporal-difference learning: Q-learning, one backup per transition as it completes.

    Q(s, a) <- Q(s, a) + alpha * (r + gamma * sign * max_a' Q(s', a') - Q(s, a))

`sign` is +1 when s' is the learner's own next decision (after the fixed
opponent replied), -1 when s' belongs to the other side in self-play (the
negamax backup of a zero-sum game: my value is minus yours), 0 when the game
is over. Q-learning is off-policy: it learns the greedy policy's values while
exploring epsilon-greedily.
"""

from __future__ import annotations

from .episodes import Transitions
from .values import QTable

__all__ = ["TDLearner"]


class TDLearner:
    """Updates the table immediately, so later plies of the same batch already use it."""

    method = "td"

    def __init__(self, table: QTable, gamma: float) -> None:
        self.table = table
        self.gamma = gamma

    def observe(self, t: Transitions, alpha: float) -> None:
        """Back up each transition from the current values of its next state."""
        targets = t.reward + self.gamma * t.sign * self.table.best_value(t.next_state)
        self.table.update(t.action, targets, alpha)

    def finish(self, alpha: float) -> None:
        """Nothing is buffered between plies."""
