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
from ..expression import parse, to_string
from ..expression.board import Candidates, board_moves, candidate_moves
from ..expression.language import compile_expression
from ..genomes import register_decoder
from ..rules import Rules
from ..space import StateSpace
from .base import Agent, CodedPolicy, Moves

__all__ = ["ExpressionAgent", "candidate_moves"]

# Positions scored per block: bounds the candidate arrays on large boards.
_BLOCK = 1 << 14


class ExpressionAgent(Agent):
    """Plays argmax of a move-scoring expression; deterministic, so tabulated on small boards."""

    deterministic = True

    def __init__(self, name: str, rules: Rules, expression: str) -> None:
        super().__init__(name, rules)
        self.tree = parse(expression)
        self.expression = to_string(self.tree)
        self._score = compile_expression(self.tree)

    def act(self, positions: np.ndarray, rng: np.random.Generator | None) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        rows = np.zeros(len(p), dtype=np.int64)
        takes = np.zeros(len(p), dtype=np.int64)
        for lo in range(0, len(p), _BLOCK):
            block = Candidates.of(p[lo:lo + _BLOCK], self.rules.k)
            chosen = block.best(self._score(block.context))
            rows[lo:lo + len(chosen)] = block.row[chosen]
            takes[lo:lo + len(chosen)] = block.take[chosen]
        return rows, takes

    def _build_coded(self, space: StateSpace) -> CodedPolicy | None:
        """The whole board's moves from its shared candidates (and subexpression values)."""
        shared = board_moves(space.board, self.rules.k)
        if shared is None:
            return super()._build_coded(space)
        rows, takes = shared.moves(self.tree)
        return CodedPolicy.from_moves(space, rows, takes)


def _decode_expression(genome: Any, config: dict, rules: Rules, name: str) -> Agent:
    """`expression` genome: the expression as a string (DEAP's notation)."""
    return ExpressionAgent(name, rules, genome)


register_decoder("expression", _decode_expression)
