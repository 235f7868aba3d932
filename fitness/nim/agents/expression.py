"""Agents that play the best-scoring move of an expression (the `expression` genome kind).

Every legal move of every position is scored by the expression over the
position after the move (and the move itself); the agent plays the highest
score, ties going to the lowest row, then the smallest take. Only row values,
the number of rows and `k` enter, never a row's index, so the same
expression plays any board with the same `k` and misère rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# This module is imported at the end of the package's __init__.
from ..expression import Context, compile_expression, parse, to_string
from ..expression.language import UNBOUNDED_K
from ..genomes import register_decoder
from ..rules import Rules
from .base import Agent, Moves

__all__ = ["ExpressionAgent", "candidate_moves"]

# Positions scored per block: bounds the candidate arrays on large boards.
_BLOCK = 1 << 14


def candidate_moves(positions: np.ndarray, k: int | None,
                    rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal move of every position (only from the rows where the mask `rows` is
    True, if given), in (position, row, take) order: which position each belongs to,
    its row and its take."""
    p = np.asarray(positions, dtype=np.int64)
    limit = p if k is None else np.minimum(p, k)
    if rows is not None:
        limit = np.where(rows, limit, 0)
    max_take = int(limit.max()) if limit.size else 0
    legal = np.arange(1, max_take + 1)[None, None, :] <= limit[:, :, None]
    owner, row, take_index = np.nonzero(legal)
    return owner, row, take_index + 1


class ExpressionAgent(Agent):
    """Plays argmax of a move-scoring expression.

    Deterministic, so tabulated like any such agent (see `Agent._build_coded`):
    over the whole board on small boards, position by position as games reach
    them on larger ones (7 rows).

    Every primitive maps rows one by one or reduces them without regard to
    order, so a move's score depends on the rows after it as a multiset, the
    take and the row's value before: positions that are permutations of one
    another, and rows of equal value within one, score alike. `act` therefore
    scores each distinct sorted position once, from the first row of each
    value, and maps the best moves back (lowest row, then smallest take).
    """

    deterministic = True

    def __init__(self, name: str, rules: Rules, expression: str) -> None:
        super().__init__(name, rules)
        self.tree = parse(expression)
        self.expression = to_string(self.tree)
        self._score = compile_expression(self.tree)
        self._k = UNBOUNDED_K if rules.k is None else rules.k

    def scores(self, positions: np.ndarray,
               rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(owner, row, take, score) of every candidate move of `positions` (from `rows` only)."""
        owner, row, take = candidate_moves(positions, self.rules.k, rows)
        after = positions[owner]
        before = after[np.arange(len(owner)), row]
        after[np.arange(len(owner)), row] = before - take
        score = self._score(Context(after, take, before, self._k))
        return owner, row, take, np.broadcast_to(score, owner.shape)

    def act(self, positions: np.ndarray, rng: np.random.Generator | None) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        rows = np.zeros(len(p), dtype=np.int64)
        takes = np.zeros(len(p), dtype=np.int64)
        for lo in range(0, len(p), _BLOCK):
            rows[lo:lo + _BLOCK], takes[lo:lo + _BLOCK] = self._best_moves(p[lo:lo + _BLOCK])
        return rows, takes

    def _best_moves(self, p: np.ndarray) -> Moves:
        """The first best move of each position, scoring each distinct sorted position once."""
        order = np.argsort(p, axis=1, kind="stable")
        ordered = np.take_along_axis(p, order, axis=1)
        first = np.ones(ordered.shape, dtype=bool)  # the first row of each value, in sorted order
        first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
        run_start = np.maximum.accumulate(np.where(first, np.arange(p.shape[1]), 0), axis=1)
        slot = np.empty_like(order)  # each row's value: where it first appears in sorted order
        np.put_along_axis(slot, order, run_start, axis=1)
        distinct, index, inverse = _distinct_rows(ordered)
        owner, row, take, score = self.scores(distinct, first[index] & (distinct > 0))
        # Per distinct position and value slot: the smallest take among the best-scoring moves.
        best = np.maximum.reduceat(score, np.searchsorted(owner, np.arange(len(distinct))))
        winners = np.flatnonzero(score == best[owner])
        fresh = np.ones(len(winners), dtype=bool)
        fresh[1:] = (owner[winners][1:] != owner[winners][:-1]) | (row[winners][1:] != row[winners][:-1])
        winners = winners[fresh]
        least_take = np.zeros(distinct.shape, dtype=np.int64)
        least_take[owner[winners], row[winners]] = take[winners]
        per_row = least_take[inverse[:, None], slot]  # 0 where the row has no best move
        chosen = np.argmax(per_row > 0, axis=1)
        return chosen, per_row[np.arange(len(p)), chosen]


def _distinct_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`np.unique(a, axis=0, return_index=True, return_inverse=True)`, through one integer
    key per row where the values allow it (ten times faster than unique over rows)."""
    base = int(a.max(initial=0)) + 1
    if base ** a.shape[1] >= 1 << 62:
        distinct, index, inverse = np.unique(a, axis=0, return_index=True, return_inverse=True)
        return distinct, index, inverse.reshape(-1)
    keys = a @ (base ** np.arange(a.shape[1], dtype=np.int64))
    _, index, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return a[index], index, inverse.reshape(-1)


def _decode_expression(genome: Any, config: dict, rules: Rules, name: str) -> Agent:
    """`expression` genome: the expression as a string (DEAP's notation)."""
    return ExpressionAgent(name, rules, genome)


register_decoder("expression", _decode_expression)
