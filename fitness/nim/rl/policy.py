"""The trained agent's greedy policy: one canonical action per canonical state.

A state training has visited plays argmax_a Q(s, a); ties go to the first
action in canonical order (smallest row size, then smallest take), so the
policy is deterministic. Its never-tried actions keep the initial value.

A state training never visited has no values of its own, so it looks one ply
ahead instead: emptying the board scores as the win (normal play) or loss
(misère) it is; a move to a visited state scores minus that state's best
value for the opponent (the zero-sum reading of the table); a move to an
unvisited state scores minus the initial value. Ties again go to the first
action in canonical order.
"""

from __future__ import annotations

import numpy as np

from .values import QTable

__all__ = ["greedy_policy"]


def greedy_policy(table: QTable) -> np.ndarray:
    """Flat action index per canonical state (-1 for the empty board)."""
    space = table.space
    live = np.flatnonzero(np.diff(space.offsets) > 0)
    policy = np.full(space.n_states, -1, dtype=np.int64)
    policy[live] = table.greedy(live)
    known = table.known_states()
    unknown = live[~known[live]]
    if unknown.size:
        policy[unknown] = _look_ahead(table, unknown, known)
    return policy


def _look_ahead(table: QTable, states: np.ndarray, known: np.ndarray) -> np.ndarray:
    space = table.space
    idx, mask = space.padded_actions(states)
    after = space.after(idx[mask])
    value = np.where(known[after], -table.best_value(after), -table.initial)
    ends = space.offsets[after + 1] == space.offsets[after]  # the empty board: no actions
    # Emptying the board in misère loses: rank it below every other move
    # (but above the padding, in case it is the only move).
    value[ends] = -np.finfo(np.float64).max if space.rules.misere else np.inf
    scores = np.full(idx.shape, -np.inf)
    scores[mask] = value
    return idx[np.arange(len(states)), np.argmax(scores, axis=1)]
