"""Closed-form theory of Nim in its four variants, vectorised over positions.

With g = row mod (k+1) (g = row when unbounded):

* normal play: the mover loses (P-position) iff xor(g) == 0;
* misère: P iff (every g <= 1 and an odd number of g == 1) or
  (some g >= 2 and xor(g) == 0).

The expert agent plays from this; the exact solver (`solver.py`) checks it
independently in the tests, so nothing here is taken on trust.
"""

from __future__ import annotations

import numpy as np

from .rules import Rules

__all__ = ["grundy", "is_p_position", "expert_moves"]


def grundy(positions: np.ndarray, k: int | None) -> np.ndarray:
    """Per-row Grundy value: the row itself, or row mod (k+1) when bounded."""
    positions = np.asarray(positions, dtype=np.int64)
    return positions if k is None else positions % (k + 1)


def is_p_position(positions: np.ndarray, rules: Rules) -> np.ndarray:
    """True where the player to move loses against perfect play."""
    g = grundy(positions, rules.k)
    x = np.bitwise_xor.reduce(g, axis=1)
    if not rules.misere:
        return x == 0
    endgame = (g <= 1).all(axis=1)
    odd_ones = (np.count_nonzero(g == 1, axis=1) % 2) == 1
    return np.where(endgame, odd_ones, x == 0)


def _first_true(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first True per row, and whether there is one."""
    return mask.argmax(axis=1), mask.any(axis=1)


def expert_moves(positions: np.ndarray, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """A winning move from every N-position; one object off the largest row otherwise.

    The winning move is the one on the lowest-index row that works.
    """
    p = np.asarray(positions, dtype=np.int64)
    n = len(p)
    idx = np.arange(n)
    g = grundy(p, rules.k)
    x = np.bitwise_xor.reduce(g, axis=1)
    target = g ^ x[:, None]
    if rules.k is None:
        take = g - target  # only valid where target < g
        zero_xor_ok = (take >= 1) & (take <= p)
    else:
        # The row's new residue must be the target, so the target must be a
        # residue (<= k); then take = (g - target) mod (k+1) is in 1..k.
        take = (g - target) % (rules.k + 1)
        zero_xor_ok = (target <= rules.k) & (take >= 1) & (take <= p)
    row, found = _first_true(zero_xor_ok)
    take_out = take[idx, row]

    # Fallback for P-positions: stall by taking one from the largest row.
    largest = p.argmax(axis=1)
    rows = np.where(found, row, largest)
    takes = np.where(found, take_out, 1)

    if rules.misere:
        big = g >= 2
        n_big = big.sum(axis=1)
        ones = np.count_nonzero(g == 1, axis=1)
        # Exactly one row with g >= 2: bring it to 0 or 1 so an odd number of
        # ones is left (always possible, since 2 <= g <= k).
        big_row = big.argmax(axis=1)
        g_big = g[idx, big_row]
        keep = np.where(ones % 2 == 0, 1, 0)
        one_big = n_big == 1
        rows = np.where(one_big, big_row, rows)
        takes = np.where(one_big, g_big - keep, takes)
        # Endgame (all g <= 1) with an even number of ones: make it odd.
        endgame = n_big == 0
        even = endgame & (ones % 2 == 0)
        row_one, has_one = _first_true(g == 1)
        row_zero_g, _ = _first_true((g == 0) & (p > 0))
        with_one = even & has_one
        rows = np.where(with_one, row_one, rows)
        takes = np.where(with_one, 1, takes)
        # No ones at all (bounded only): take k from a multiple of k+1 to leave g = 1.
        no_one = even & ~has_one & (p.sum(axis=1) > 0)
        if rules.k is not None:
            rows = np.where(no_one, row_zero_g, rows)
            takes = np.where(no_one, rules.k, takes)
        # Odd ones in the endgame is a P-position: stall.
        lost = endgame & ~even
        rows = np.where(lost, largest, rows)
        takes = np.where(lost, 1, takes)
        # With two or more big rows the normal-play move above is right, and
        # from a P-position (xor == 0) it already falls back to stalling.
    return rows, takes
