"""Exact fitness: win probabilities and optimal-move rates, with no sampling at all.

`win_probabilities` is dynamic programming over the coded positions of a
board, level by level in the number of objects left (every move lowers it):

    V_player(c)   = sum over the player's moves m   of P(m | c) * V_opponent(c - m)
    V_opponent(c) = sum over the opponent's moves m of P(m | c) * V_player(c - m)

where V_x(c) is the chance that the player wins when x is to move at c; at the
empty board the player to move has lost (normal play) or won (misère). A
match is scored as `play` plays it, the player moving first in half of the
games: 0.5 * (V_player(start) + V_opponent(start)). All players of a
population move through the levels together, one array operation per
component and level.

`optimal_move_rates` asks the exact solver which positions are winning and
scores the share of them where an agent's move keeps the win.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from .distribution import KERNELS, Kernel, MoveDistribution, kernel
from .rules import Rules
from .solver import solve
from .space import StateSpace

__all__ = ["mean_successor_values", "optimal_move_rates", "win_probabilities", "winning_codes"]

# Players are evaluated in chunks whose value and weight arrays stay near this
# many float64 entries (~128 MB), so a large board never needs all at once.
_CHUNK_ENTRIES = 1 << 24


@dataclass
class _Stacked:
    """The components of several players, aligned so each is one array op."""

    # Arrays are code-major, (size, n): a level's codes then gather whole rows.
    deterministic: list[tuple[np.ndarray, np.ndarray]]  # (weights (size, n), successors (size,) or (size, n))
    kernels: dict[str, np.ndarray]  # kernel name -> weights (size, n)

    @property
    def n_slots(self) -> int:
        return len(self.deterministic) + len(self.kernels)


def _stack(dists: Sequence[MoveDistribution], size: int) -> _Stacked:
    n = len(dists)
    kernels: dict[str, np.ndarray] = {}
    slots: list[tuple[list, list]] = []  # slot j: the j-th deterministic component of each player
    for i, dist in enumerate(dists):
        j = 0
        for component, weight in zip(dist.components, dist.weights()):
            if isinstance(component.target, str):
                kernels.setdefault(component.target, np.zeros((size, n)))[:, i] += weight
                continue
            if j == len(slots):
                slots.append(([None] * n, [None] * n))
            slots[j][0][i], slots[j][1][i] = weight, component.target
            j += 1
    deterministic = []
    for weights, successors in slots:
        w = np.stack([np.zeros(size) if x is None else x for x in weights], axis=1)
        present = [s for s in successors if s is not None]
        if all(s is present[0] for s in present):
            succ = present[0]  # shared by every player that has it (the others weigh it 0)
        else:
            succ = np.stack([np.zeros(size, dtype=np.int64) if s is None else s for s in successors], axis=1)
        deterministic.append((w, succ))
    return _Stacked(deterministic, kernels)


class _RowSums:
    """Sums of a value array along each row's axis below every code, kept level by level.

    below[r][:, c] = sum of values over the codes that differ from c only by
    fewer objects in row r. A level's entries need only the level below, so
    they are filled in just before that level's values are computed.
    """

    def __init__(self, values: np.ndarray, space: StateSpace) -> None:
        self.values = values
        self.space = space
        self.below = np.zeros((space.n_rows, *values.shape))

    def advance(self, codes: np.ndarray) -> None:
        digits = self.space.decode(codes)
        for r in range(self.space.n_rows):
            c = codes[digits[:, r] > 0]
            previous = c - self.space.radix[r]
            self.below[r][c] = self.below[r][previous] + self.values[previous]

    def expect(self, kern: Kernel, codes: np.ndarray) -> np.ndarray:
        total = np.zeros((len(codes), self.values.shape[1]))
        for r in range(self.space.n_rows):
            window = self.below[r][codes] - self.below[r][kern.lowest[r, codes]]
            total += kern.coef[r, codes][:, None] * window
        return total


def _expect(stacked: _Stacked, values: np.ndarray, sums: _RowSums | None, codes: np.ndarray,
            kernels: dict[str, Kernel]) -> np.ndarray:
    """E[values(successor)] under each player's move distribution, at each of `codes`."""
    total = np.zeros((len(codes), values.shape[1]))
    for weights, succ in stacked.deterministic:
        if succ.ndim == 1:
            after = values[succ[codes]]
        else:
            after = np.take_along_axis(values, succ[codes], axis=0)
        total += weights[codes] * after
    for name, weights in stacked.kernels.items():
        total += weights[codes] * sums.expect(kernels[name], codes)
    return total


@lru_cache(maxsize=16)
def _levels(board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Codes ordered by objects left, and where each level starts (level 0 is the empty board)."""
    space = StateSpace(board)
    totals = space.all_positions().sum(axis=1)
    order = np.argsort(totals, kind="stable")
    bounds = np.searchsorted(totals[order], np.arange(totals.max() + 2))
    return order, bounds


def _space_of(rules: Rules) -> StateSpace:
    space = StateSpace.of(rules.rows)
    if space is None:
        raise ValueError(
            f"exact evaluation needs a board whose positions can be numbered; {rules.describe()} has "
            f"{int(np.prod([r + 1 for r in rules.rows], dtype=object)):,} (limit 2,097,152): give a number of games"
        )
    return space


def _check(dists: Sequence[MoveDistribution], space: StateSpace) -> None:
    for dist in dists:
        if dist.space.board != space.board:
            raise ValueError(f"a move distribution is for board {dist.space.board}, not {space.board}")


def win_probabilities(players: Sequence[MoveDistribution], opponent: MoveDistribution,
                      rules: Rules) -> np.ndarray:
    """Each player's exact expected win rate against `opponent`, first mover alternating."""
    space = _space_of(rules)
    _check([*players, opponent], space)
    if not players:
        return np.zeros(0)
    order, bounds = _levels(space.board)
    against = _stack([opponent], space.size)
    kernels = {name: kernel(name, space.board, rules.k) for name in KERNELS}
    per_player = 2 + 2 * len(players[0].components) + 2 * space.n_rows  # arrays of `size` floats
    chunk = max(1, _CHUNK_ENTRIES // (space.size * per_player))
    out = []
    for first in range(0, len(players), chunk):
        mine = _stack(players[first:first + chunk], space.size)
        n = len(players[first:first + chunk])
        # Zeros, not np.empty: a component of weight 0 may point at a code of the level being
        # computed (rule-dict's "no rule applies" successor is the code itself), and 0 * a
        # stale NaN would be NaN.
        player_to_move = np.zeros((space.size, n))
        opponent_to_move = np.zeros((space.size, n))
        player_to_move[0] = 1.0 if rules.misere else 0.0
        opponent_to_move[0] = 0.0 if rules.misere else 1.0
        # Row sums are kept only for the values a side's kernels average over.
        sums_o = _RowSums(opponent_to_move, space) if mine.kernels else None
        sums_p = _RowSums(player_to_move, space) if against.kernels else None
        for lo, hi in zip(bounds[1:-1], bounds[2:]):
            codes = order[lo:hi]
            for sums in (sums_o, sums_p):
                if sums is not None:
                    sums.advance(codes)
            player_to_move[codes] = _expect(mine, opponent_to_move, sums_o, codes, kernels)
            opponent_to_move[codes] = _expect(against, player_to_move, sums_p, codes, kernels)
        out.append(0.5 * (player_to_move[space.start] + opponent_to_move[space.start]))
    return np.concatenate(out)


@lru_cache(maxsize=16)
def winning_codes(rules: Rules) -> np.ndarray:
    """Per code of the board's space: True where the player to move wins (the solver's label)."""
    space = _space_of(rules)
    win = np.zeros(space.size, dtype=bool)
    win[1:] = solve(rules).winning(space.decode(np.arange(1, space.size)))
    win[0] = rules.misere  # the empty board: the previous player took the last object
    win.setflags(write=False)
    return win


def optimal_move_rates(players: Sequence[MoveDistribution], rules: Rules) -> np.ndarray:
    """Share of the board's winning positions where each player's move keeps the win.

    A stochastic player counts the probability that its move is a winning one.
    """
    win = winning_codes(rules)
    return mean_successor_values(players, rules, (~win).astype(np.float64), np.flatnonzero(win[1:]) + 1)


def mean_successor_values(players: Sequence[MoveDistribution], rules: Rules, values: np.ndarray,
                          codes: np.ndarray) -> np.ndarray:
    """Per player: over the positions `codes`, the mean of the expected `values` (one per code)
    of the position its move leaves (0 where `codes` is empty)."""
    space = _space_of(rules)
    _check(players, space)
    values = values[None, :]
    rates = np.zeros(len(players))
    if not codes.size:
        return rates
    after: dict[int, np.ndarray] = {}  # per target: the expected value its move from each code leaves
    for i, dist in enumerate(players):
        kept = np.zeros(len(codes))
        for component, weight in zip(dist.components, dist.weights()):
            key = id(component.target)
            if key not in after:
                if isinstance(component.target, str):
                    kern = kernel(component.target, space.board, rules.k)
                    after[key] = kern.expect_all(values, space)[0, codes]
                else:
                    after[key] = values[0, component.target[codes]]
            kept += weight[codes] * after[key]
        rates[i] = kept.mean()
    return rates
