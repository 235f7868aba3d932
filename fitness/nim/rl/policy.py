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


_CHUNK = 1 << 15  # states per step: bounds the padded temporaries on big boards


def greedy_policy(table: QTable) -> np.ndarray:
    """Flat action index per canonical state (-1 for the empty board)."""
    space = table.space
    policy = np.full(space.n_states, -1, dtype=np.int64)
    known = table.known_states()
    live = np.flatnonzero(np.diff(space.offsets) > 0)
    for lo in range(0, len(live), _CHUNK):
        states = live[lo:lo + _CHUNK]
        policy[states] = table.greedy(states)
    # Each state's value for the player to move, as the table sees it.
    to_move = np.full(space.n_states, table.initial)
    to_move[known] = table.q[policy[known]]
    unknown = live[~known[live]]
    for lo in range(0, len(unknown), _CHUNK):
        states = unknown[lo:lo + _CHUNK]
        policy[states] = _look_ahead(table, states, to_move)
    return policy


def _look_ahead(table: QTable, states: np.ndarray, to_move: np.ndarray) -> np.ndarray:
    space = table.space
    idx, mask = space.padded_actions(states)
    after = space.after(idx[mask])
    value = -to_move[after]
    ends = space.offsets[after + 1] == space.offsets[after]  # the empty board: no actions
    # Emptying the board in misère loses: rank it below every other move
    # (but above the padding, in case it is the only move).
    value[ends] = -np.finfo(np.float64).max if space.rules.misere else np.inf
    scores = np.full(idx.shape, -np.inf)
    scores[mask] = value
    return idx[np.arange(len(states)), np.argmax(scores, axis=1)]
