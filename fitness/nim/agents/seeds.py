"""The strategies of the seed write-ups, re-derived and batched.

Each keeps the behaviour its seed describes (including its blind spots: none
of them knows misère play), but all respect the bound `k`.
"""

from __future__ import annotations

import numpy as np

from .base import Agent, Moves, cap, row_values

__all__ = [
    "GabrieleAgent",
    "LongestAgent",
    "SillyAgent",
    "SingleRowAgent",
    "EvenOddAgent",
    "FixedRulesAgent",
    "uniform_legal_moves",
]


def _smallest_nonempty(positions: np.ndarray) -> np.ndarray:
    big = np.iinfo(np.int64).max
    return np.where(positions > 0, positions, big).argmin(axis=1)


def uniform_legal_moves(positions: np.ndarray, k: int | None, u: np.ndarray) -> Moves:
    """A move drawn uniformly from all legal (row, take) pairs, one uniform per game."""
    per_row = cap(positions, k)
    ends = np.cumsum(per_row, axis=1)
    pick = (u * ends[:, -1]).astype(np.int64)
    rows = (ends > pick[:, None]).argmax(axis=1)
    before = row_values(ends, rows) - row_values(per_row, rows)
    return rows, pick - before + 1


class GabrieleAgent(Agent):
    """The course's `gabriele`: as many objects as allowed from the lowest-index non-empty row."""

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        rows = (positions > 0).argmax(axis=1)
        return rows, cap(row_values(positions, rows), self.rules.k)


class LongestAgent(Agent):
    """Seed 002's `strategy1`: the whole longest row (as much as `k` allows)."""

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        rows = positions.argmax(axis=1)
        return rows, cap(row_values(positions, rows), self.rules.k)


class SillyAgent(Agent):
    """Seed 001's silly agent: all it may from the smallest non-empty row."""

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        rows = _smallest_nonempty(positions)
        return rows, cap(row_values(positions, rows), self.rules.k)


class SingleRowAgent(Agent):
    """Seed 003's single-row optimiser: plays each row as if it were the only one.

    Takes a whole row when it may (the largest such row); otherwise leaves a
    multiple of k+1 in the first row where that is possible, so the opponent
    cannot clear that row; otherwise takes one from the largest row.
    """

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        k = self.rules.k
        largest = positions.argmax(axis=1)
        if k is None:
            return largest, row_values(positions, largest)
        clearable = (positions > 0) & (positions <= k)
        best_clear = np.where(clearable, positions, -1).argmax(axis=1)
        residue = positions % (k + 1)
        row_mod, has_mod = (residue > 0).argmax(axis=1), (residue > 0).any(axis=1)
        rows = np.where(has_mod, row_mod, largest)
        takes = np.where(has_mod, row_values(residue, row_mod), 1)
        can_clear = clearable.any(axis=1)
        rows = np.where(can_clear, best_clear, rows)
        takes = np.where(can_clear, row_values(positions, best_clear), takes)
        return rows, takes


class EvenOddAgent(Agent):
    """Seed 003's total even/odd rule.

    Even total: as many as allowed from the smallest heap. Odd total: of the
    heap sizes held by an odd number of heaps, take the largest, and cut one
    such heap down to the next smaller heap size on the board (or to zero).
    """

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        k = self.rules.k
        p = positions
        nonempty = p > 0
        smallest = _smallest_nonempty(p)
        even_rows, even_takes = smallest, cap(row_values(p, smallest), k)

        same = (p[:, :, None] == p[:, None, :]) & nonempty[:, None, :]
        multiplicity = same.sum(axis=2)
        odd = nonempty & (multiplicity % 2 == 1)
        # A total that is odd always has some size held an odd number of times.
        odd_row = np.where(odd, p, -1).argmax(axis=1)
        v = row_values(p, odd_row)
        below = np.where(nonempty & (p < v[:, None]), p, 0).max(axis=1)
        odd_takes = cap(np.maximum(v - below, 1), k)

        total_odd = (p.sum(axis=1) % 2 == 1) & odd.any(axis=1)
        return np.where(total_odd, odd_row, even_rows), np.where(total_odd, odd_takes, even_takes)


class FixedRulesAgent(Agent):
    """Seed 000's fixed-rule agent, as its code actually behaves.

    One row left: take a single object (the seed draws from 1..1). Even number
    of non-empty rows: if every row holds at most one object take one from the
    longest, else leave one object in a random row holding more. Three
    non-empty rows on a three-row board with two equal rows: cut the longest
    row down to the shortest. Otherwise a move drawn uniformly from all legal
    ones (the seed's `n - 1 equal piles` rule can never fire with 4+ rows).
    """

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        k = self.rules.k
        p = positions
        n, n_rows = p.shape
        u_row = rng.random(n)
        u_any = rng.random(n)
        rows, takes = uniform_legal_moves(p, k, u_any)

        active = (p > 0).sum(axis=1)
        longest = p.argmax(axis=1)
        longest_value = row_values(p, longest)

        if n_rows == 3:
            pair = (
                (p[:, 0] == p[:, 1]) | (p[:, 0] == p[:, 2]) | (p[:, 1] == p[:, 2])
            ) & ~((p[:, 0] == p[:, 1]) & (p[:, 1] == p[:, 2]))
            three = (active == 3) & pair
            shortest_value = row_values(p, _smallest_nonempty(p))
            cut = cap(np.maximum(longest_value - shortest_value, 1), k)
            rows = np.where(three, longest, rows)
            takes = np.where(three, cut, takes)

        even = (active % 2 == 0) & (active > 0)
        many = p > 1
        n_many = many.sum(axis=1)
        slot = (u_row * n_many).astype(np.int64)
        random_many = (np.cumsum(many, axis=1) > slot[:, None]).argmax(axis=1)
        leave_one = cap(np.maximum(row_values(p, random_many) - 1, 1), k)
        all_ones = longest_value == 1
        rows = np.where(even, np.where(all_ones, longest, random_many), rows)
        takes = np.where(even, np.where(all_ones, 1, leave_one), takes)

        single = active == 1
        only = (p > 0).argmax(axis=1)
        rows = np.where(single, only, rows)
        takes = np.where(single, 1, takes)
        return rows, takes
