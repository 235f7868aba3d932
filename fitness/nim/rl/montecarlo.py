"""Monte Carlo learning: whole-episode returns, propagated backwards at the end.

    G_t = r_t + gamma * sign_t * G_{t+1}        Q(s_t, a_t) <- Q + alpha * (G_t - Q)

With `sign` as in TD (+1 towards the learner's own next decision, -1 towards
the other side's in self-play), this is the discounted return of the
learner's decisions, and in self-play the negamax return of each mover.

Every-visit and first-visit coincide in Nim: every move removes objects, so
no canonical state (let alone state–action pair) recurs within an episode.
Monte Carlo is on-policy: the returns are those of the epsilon-greedy
behaviour, which is why epsilon decays towards a small floor.
"""

from __future__ import annotations

import numpy as np

from .episodes import Transitions
from .values import QTable

__all__ = ["MonteCarloLearner"]


class MonteCarloLearner:
    """Buffers the transitions of a batch of episodes; learns when they are over."""

    method = "mc"

    def __init__(self, table: QTable, gamma: float) -> None:
        self.table = table
        self.gamma = gamma
        self._buffer: list[Transitions] = []

    def observe(self, t: Transitions, alpha: float) -> None:
        """Keep the transition until its episode's return is known."""
        self._buffer.append(t)

    def finish(self, alpha: float) -> None:
        """Compute every return backwards, then update all visited pairs at once."""
        if not self._buffer:
            return
        games = 1 + max(int(t.game.max()) for t in self._buffer)
        following = np.zeros(games)  # return from each game's later decision
        actions, targets = [], []
        for t in reversed(self._buffer):
            g = t.game
            following[g] = t.reward + self.gamma * t.sign * following[g]
            actions.append(t.action)
            targets.append(following[g].copy())
        self._buffer = []
        self.table.update(np.concatenate(actions), np.concatenate(targets), alpha)
