"""How right a policy is, position by position, judged by the exact solver."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..agents.base import Agent
from ..solver import solve
from .space import CanonicalSpace

__all__ = ["WinningMoves", "winning_moves"]


@dataclass(frozen=True)
class WinningMoves:
    """Among the canonical winning positions, those where the agent's move keeps the win."""

    kept: int
    winning: int

    @property
    def rate(self) -> float:
        return self.kept / self.winning if self.winning else 1.0


def winning_moves(agent: Agent) -> WinningMoves:
    """Ask a deterministic agent about every canonical winning position of its board."""
    space = CanonicalSpace.of(agent.rules)
    solved = solve(agent.rules)
    positions = space.raw_positions(np.arange(1, space.n_states))
    positions = positions[solved.winning(positions)]
    rows, takes = agent(positions, np.random.default_rng(0))
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    return WinningMoves(kept=int(np.count_nonzero(~solved.winning(after))), winning=len(positions))
