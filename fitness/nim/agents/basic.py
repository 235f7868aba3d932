"""The reference agents: random, expert, exact minimax, and the sloppy expert."""

from __future__ import annotations

import numpy as np

from ..canonical import TooManyStates, require_enumerable
from ..distribution import RANDOM, MoveDistribution
from ..rules import Rules
from ..solver import solve
from ..space import StateSpace
from ..theory import expert_moves
from .base import EAGER_LIMIT, Agent, CodedPolicy, Moves, cap, row_values

__all__ = ["RandomAgent", "ExpertAgent", "MinimaxAgent", "SloppyAgent", "random_moves"]


def random_moves(positions: np.ndarray, k: int | None, u: np.ndarray) -> Moves:
    """The course's pure random move, driven by one uniform number per game.

    The integer part of u * (non-empty rows) picks the row; the fraction left
    over, itself uniform, picks how many to take (1..min(k, row)).
    """
    nonempty = positions > 0
    count = nonempty.sum(axis=1)
    scaled = u * count
    slot = scaled.astype(np.int64)
    frac = scaled - slot
    rows = (np.cumsum(nonempty, axis=1) > slot[:, None]).argmax(axis=1)
    limit = cap(row_values(positions, rows), k)
    takes = 1 + (frac * limit).astype(np.int64)
    return rows, takes


class RandomAgent(Agent):
    """Picks a non-empty row uniformly, then a legal count uniformly."""

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        return random_moves(positions, self.rules.k, rng.random(len(positions)))

    def _build_coded(self, space: StateSpace) -> CodedPolicy:
        if space.size > EAGER_LIMIT:  # a table of the whole board would cost more than a match
            return CodedPolicy(lambda codes, rng: self.act(space.decode(codes), rng), trusted=True)
        # Per position code: how many rows are non-empty, which they are, and
        # how many objects each may lose; then the same arithmetic as `act`.
        positions = space.all_positions()
        n_rows = space.n_rows
        nonempty = positions > 0
        count = nonempty.sum(axis=1)
        order = np.argsort(~nonempty, axis=1, kind="stable")  # non-empty rows first
        slot_row = order.astype(np.int64).ravel()
        slot_limit = cap(np.take_along_axis(positions, order, axis=1), self.rules.k).ravel()

        def act(codes: np.ndarray, rng: np.random.Generator) -> Moves:
            scaled = rng.random(len(codes)) * count[codes]
            slot = scaled.astype(np.int64)
            flat = codes * n_rows + slot
            rows = slot_row[flat]
            takes = 1 + ((scaled - slot) * slot_limit[flat]).astype(np.int64)
            return rows, takes

        return CodedPolicy(act, trusted=True)

    def _build_distribution(self, space: StateSpace) -> MoveDistribution:
        return MoveDistribution.of_kernel(space, RANDOM)


class ExpertAgent(Agent):
    """Exact in all four variants: a winning move whenever one exists.

    From a losing position it takes one object from the largest row, making
    the game last and giving the opponent the most chances to go wrong.
    """

    deterministic = True

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        return expert_moves(positions, self.rules)


class MinimaxAgent(Agent):
    """Plays the exact solver's best move (full-depth minimax, memoised)."""

    deterministic = True

    def __init__(self, name: str, rules: Rules) -> None:
        super().__init__(name, rules)
        try:  # refused here, in one line, rather than at the first move after a long wait
            require_enumerable(rules.rows)
        except TooManyStates as exc:
            raise TooManyStates(f"agent {name!r}: the exact solver is too large here: {exc}; "
                                "use 'minimax:D' (a D-ply search) or a smaller board") from None

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        return solve(self.rules).best_moves(positions)


class SloppyAgent(Agent):
    """The expert, distracted: a random move with probability `p` (seed 001's sloppy agent)."""

    def __init__(self, name: str, rules: Rules, p: float) -> None:
        super().__init__(name, rules)
        self.p = p
        self._expert = ExpertAgent("expert", rules)
        self._random = RandomAgent("random", rules)

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        distracted = rng.random(len(positions)) < self.p
        r_rows, r_takes = self._random.act(positions, rng)
        e_rows, e_takes = self._expert.act(positions, rng)
        return np.where(distracted, r_rows, e_rows), np.where(distracted, r_takes, e_takes)

    def _build_coded(self, space: StateSpace) -> CodedPolicy:
        expert = self._expert.coded(space)
        randomly = self._random.coded(space)
        p = self.p

        def act(codes: np.ndarray, rng: np.random.Generator) -> Moves:
            distracted = rng.random(len(codes)) < p
            r_rows, r_takes = randomly.act(codes, rng)
            e_rows, e_takes = expert.act(codes, rng)
            return np.where(distracted, r_rows, e_rows), np.where(distracted, r_takes, e_takes)

        return CodedPolicy(act, trusted=True)

    def _build_distribution(self, space: StateSpace) -> MoveDistribution:
        return MoveDistribution.mix(space, [self._expert.distribution(space).scaled(1.0 - self.p),
                                            MoveDistribution.of_kernel(space, RANDOM).scaled(self.p)])
