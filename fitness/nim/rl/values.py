"""The state–action value table and the greedy policy read from it.

One float per canonical action of a `CanonicalSpace` (CSR layout), all
starting at `initial`, plus a flag per action saying whether training ever
updated it. A state is *known* once any of its actions was updated.
"""

from __future__ import annotations

import numpy as np

from .space import CanonicalSpace

__all__ = ["QTable"]


class QTable:
    """Q(s, a) over canonical states and actions, updated in vectorised groups."""

    def __init__(self, space: CanonicalSpace, initial: float = 0.0) -> None:
        self.space = space
        self.initial = float(initial)
        self.q = np.full(space.n_actions, self.initial, dtype=np.float64)
        self.seen = np.zeros(space.n_actions, dtype=bool)

    # -- reading ------------------------------------------------------------
    def _padded_values(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        idx, mask = self.space.padded_actions(states)
        return idx, np.where(mask, self.q[idx], -np.inf)

    def greedy(self, states: np.ndarray) -> np.ndarray:
        """Flat index of argmax_a Q(s, a) per state; ties go to the first action
        in canonical order (smallest row size, then smallest take)."""
        idx, values = self._padded_values(states)
        return idx[np.arange(len(states)), np.argmax(values, axis=1)]

    def best_value(self, states: np.ndarray) -> np.ndarray:
        """max_a Q(s, a) per state; 0 for the empty board (no actions, game over)."""
        states = np.asarray(states, dtype=np.int64)
        out = np.zeros(len(states))
        live = self.space.offsets[states + 1] > self.space.offsets[states]
        if live.any():
            out[live] = self._padded_values(states[live])[1].max(axis=1)
        return out

    def known_states(self) -> np.ndarray:
        """Per state: whether training updated any of its actions."""
        running = np.concatenate(([0], np.cumsum(self.seen)))
        offsets = self.space.offsets
        return running[offsets[1:]] > running[offsets[:-1]]

    @property
    def n_known(self) -> int:
        return int(np.count_nonzero(self.known_states()))

    # -- learning -----------------------------------------------------------
    def update(self, actions: np.ndarray, targets: np.ndarray, alpha: float) -> None:
        """Move Q towards the targets: Q <- Q + alpha (target - Q).

        A group of m updates of the same action in one call counts as m
        successive steps towards the mean of their targets, i.e. one step of
        size 1 - (1 - alpha)^m. That equals sequential updates when the targets
        agree, never overshoots when they do not, and needs no ordering.
        """
        actions = np.asarray(actions, dtype=np.int64)
        if actions.size == 0:
            return
        unique, inverse, counts = np.unique(actions, return_inverse=True, return_counts=True)
        mean = np.bincount(inverse, weights=np.asarray(targets, dtype=np.float64)) / counts
        step = np.where(counts == 1, alpha, 1.0 - integer_power(1.0 - alpha, counts))
        self.q[unique] += step * (mean - self.q[unique])
        self.seen[unique] = True

    def set(self, actions: np.ndarray, values: np.ndarray) -> None:
        """Overwrite values (when loading a saved table); marks them seen."""
        self.q[actions] = values
        self.seen[actions] = True


def integer_power(base: float, exponents: np.ndarray) -> np.ndarray:
    """`base ** exponents` (integers >= 0) by repeated squaring: IEEE multiplications only.

    numpy's float power calls a vector math library on some CPUs (AVX-512) and libm on
    others, which differ in the last bits, and a trained table with them; products do not."""
    result = np.ones(len(exponents))
    remaining = np.asarray(exponents, dtype=np.int64).copy()
    square = float(base)
    while remaining.any():
        odd = (remaining & 1).astype(bool)
        result[odd] *= square
        square *= square
        remaining >>= 1
    return result
