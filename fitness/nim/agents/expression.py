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


def candidate_moves(positions: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal move of every position, in (position, row, take) order:
    which position each belongs to, its row and its take."""
    p = np.asarray(positions, dtype=np.int64)
    limit = p if k is None else np.minimum(p, k)
    max_take = int(limit.max()) if limit.size else 0
    legal = np.arange(1, max_take + 1)[None, None, :] <= limit[:, :, None]
    owner, row, take_index = np.nonzero(legal)
    return owner, row, take_index + 1


class ExpressionAgent(Agent):
    """Plays argmax of a move-scoring expression; deterministic, so tabulated on small boards."""

    deterministic = True

    def __init__(self, name: str, rules: Rules, expression: str) -> None:
        super().__init__(name, rules)
        self.tree = parse(expression)
        self.expression = to_string(self.tree)
        self._score = compile_expression(self.tree)
        self._k = UNBOUNDED_K if rules.k is None else rules.k

    def scores(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(owner, row, take, score) of every candidate move of `positions`."""
        owner, row, take = candidate_moves(positions, self.rules.k)
        after = positions[owner].copy()
        before = after[np.arange(len(owner)), row]
        after[np.arange(len(owner)), row] = before - take
        score = self._score(Context(after, take, before, self._k))
        return owner, row, take, np.broadcast_to(score, owner.shape)

    def act(self, positions: np.ndarray, rng: np.random.Generator | None) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        rows = np.zeros(len(p), dtype=np.int64)
        takes = np.zeros(len(p), dtype=np.int64)
        for lo in range(0, len(p), _BLOCK):
            block = p[lo:lo + _BLOCK]
            owner, row, take, score = self.scores(block)
            # Best score first, then the earliest candidate (lowest row, smallest take).
            order = np.lexsort((np.arange(len(owner)), ~score, owner))  # ~x: descending, no overflow
            first = np.ones(len(order), dtype=bool)
            first[1:] = owner[order][1:] != owner[order][:-1]
            chosen = order[first]
            rows[lo:lo + len(block)] = row[chosen]
            takes[lo:lo + len(block)] = take[chosen]
        return rows, takes


def _decode_expression(genome: Any, config: dict, rules: Rules, name: str) -> Agent:
    """`expression` genome: the expression as a string (DEAP's notation)."""
    return ExpressionAgent(name, rules, genome)


register_decoder("expression", _decode_expression)
