"""Agents that play the best-scoring move of an expression (the `expression` genome kind).

Every legal move of every position is scored by the expression over the
position after the move (and the move itself); the agent plays the highest
score, ties going to the lowest row, then the smallest take. Only row values,
the number of rows and `k` enter, never a row's index, so the same
expression plays any board with the same `k` and misère rule.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

# This module is imported at the end of the package's __init__.
from ..expression import compile_expression, parse, to_string
from ..expression.board import Candidates, board_moves, candidate_moves
from ..genomes import register_decoder
from ..rules import Rules
from ..space import StateSpace
from .base import Agent, CodedPolicy, Moves

__all__ = ["ExpressionAgent", "candidate_moves"]

# Positions scored per block: bounds the candidate arrays on large boards.
_BLOCK = 1 << 14


class ExpressionAgent(Agent):
    """Plays argmax of a move-scoring expression.

    Deterministic, so tabulated like any such agent (see `Agent._build_coded`):
    over the whole board on small boards, position by position as games reach
    them on larger ones (7 rows).

    Every primitive maps rows one by one or reduces them without regard to
    order, so a move's score depends on the rows after it as a multiset, the
    take and the row's value before: positions that are permutations of one
    another, and rows of equal value within one, score alike. `act` therefore
    scores each distinct sorted position once (remembered across calls), from
    the first row of each value, and maps the best moves back (lowest row,
    then smallest take).
    """

    deterministic = True

    def __init__(self, name: str, rules: Rules, expression: str) -> None:
        super().__init__(name, rules)
        self.tree = parse(expression)
        self.expression = to_string(self.tree)
        self._score = compile_expression(self.tree)
        self._memo = _SortedMemo(max(rules.rows) + 1, rules.n_rows)

    def scores(self, positions: np.ndarray,
               rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(owner, row, take, score) of every candidate move of `positions` (from `rows` only)."""
        block = Candidates.of(positions, self.rules.k, rows)
        return block.owner, block.row, block.take, np.broadcast_to(self._score(block.context), block.owner.shape)

    def act(self, positions: np.ndarray, rng: np.random.Generator | None) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        rows = np.zeros(len(p), dtype=np.int64)
        takes = np.zeros(len(p), dtype=np.int64)
        for lo in range(0, len(p), _BLOCK):
            rows[lo:lo + _BLOCK], takes[lo:lo + _BLOCK] = self._best_moves(p[lo:lo + _BLOCK])
        return rows, takes

    def _build_coded(self, space: StateSpace) -> CodedPolicy | None:
        """Small boards: the whole board's moves from its shared candidates (and the
        subexpression values other genomes computed there)."""
        shared = board_moves(space.board, self.rules.k)
        if shared is None:
            return super()._build_coded(space)
        rows, takes = shared.moves(self.tree)
        return CodedPolicy.from_moves(space, rows, takes)

    def _best_moves(self, p: np.ndarray) -> Moves:
        """The first best move of each position, each distinct sorted position scored once."""
        ordered, first, slot = _sorted_rows(p)
        keys = self._memo.keys_of(ordered)
        if keys is None:  # values too large for one integer key per position: no memo
            distinct, index, inverse = np.unique(ordered, axis=0, return_index=True, return_inverse=True)
            least_take = self._least_takes(distinct, first[index])
        else:
            distinct_keys, index, inverse = np.unique(keys, return_index=True, return_inverse=True)
            least_take = self._memo.get(distinct_keys, lambda fresh: self._least_takes(
                ordered[index[fresh]], first[index[fresh]]))
        per_row = least_take[inverse.reshape(-1)[:, None], slot]  # 0 where the row has no best move
        chosen = np.argmax(per_row > 0, axis=1)
        return chosen, per_row[np.arange(len(p)), chosen]

    def _least_takes(self, ordered: np.ndarray, first: np.ndarray) -> np.ndarray:
        """Per sorted position and value slot (the first row of each value): the smallest
        take among the position's best-scoring moves, 0 if none is best."""
        owner, row, take, score = self.scores(ordered, first & (ordered > 0))
        best = np.maximum.reduceat(score, np.searchsorted(owner, np.arange(len(ordered))))
        winners = np.flatnonzero(score == best[owner])  # in (position, row, take) order
        fresh = np.ones(len(winners), dtype=bool)
        fresh[1:] = (owner[winners][1:] != owner[winners][:-1]) | (row[winners][1:] != row[winners][:-1])
        winners = winners[fresh]
        least_take = np.zeros(ordered.shape, dtype=np.int64)
        least_take[owner[winners], row[winners]] = take[winners]
        return least_take


def _sorted_rows(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each position's rows sorted; which sorted slots start a run of equal values; and for
    each row, the slot where its value's run starts."""
    order = np.argsort(p, axis=1, kind="stable")
    ordered = np.take_along_axis(p, order, axis=1)
    first = np.ones(ordered.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    run_start = np.maximum.accumulate(np.where(first, np.arange(p.shape[1]), 0), axis=1)
    slot = np.empty_like(order)
    np.put_along_axis(slot, order, run_start, axis=1)
    return ordered, first, slot


class _SortedMemo:
    """Rows of results per sorted position, kept across calls: a match meets the same rows
    in many orders (10,000 random games on 7 rows reach 26,000 positions, 5,500 sorted)."""

    LIMIT = 1 << 20  # sorted positions remembered at most (LIMIT x rows x 8 bytes)

    def __init__(self, base: int, n_rows: int) -> None:
        self.base = base  # every value below it: one integer key per sorted position
        self.weights = base ** np.arange(n_rows, dtype=np.int64) if base ** n_rows < 1 << 62 else None
        self.keys = np.empty(0, dtype=np.int64)  # sorted
        self.values = np.empty((0, n_rows), dtype=np.int64)

    def keys_of(self, ordered: np.ndarray) -> np.ndarray | None:
        if self.weights is None or ordered.max(initial=0) >= self.base:
            return None
        return ordered @ self.weights

    def get(self, keys: np.ndarray, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """The rows for distinct `keys`; `compute(mask)` gives those of the keys not met yet."""
        at = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        known = self.keys[at] == keys if len(self.keys) else np.zeros(len(keys), dtype=bool)
        out = np.empty((len(keys), self.values.shape[1]), dtype=np.int64)
        out[known] = self.values[at[known]]
        fresh = ~known
        if fresh.any():
            out[fresh] = compute(fresh)
            if len(self.keys) < self.LIMIT:
                merged = np.concatenate([self.keys, keys[fresh]])
                order = np.argsort(merged, kind="stable")
                self.keys, self.values = merged[order], np.concatenate([self.values, out[fresh]])[order]
        return out


def _decode_expression(genome: Any, config: dict, rules: Rules, name: str) -> Agent:
    """`expression` genome: the expression as a string (DEAP's notation)."""
    return ExpressionAgent(name, rules, genome)


register_decoder("expression", _decode_expression)
