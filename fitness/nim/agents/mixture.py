"""Strategy-probability tables (the `table` genome kind, seeds 002 and 003).

A table has one row per value of a game-state feature and one column per
named agent; entry (f, j) is the probability of letting agent j move when
the position's feature is f. Seed 002 used the nim-sum as the feature, seed
003 a single probability vector (feature `none`).

Every move draws one uniform per game to pick the column, then asks *every*
column agent about *every* game and keeps the chosen move, so how much
randomness a move consumes never depends on the positions or on the draw.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

# This module is imported at the end of the package's __init__, after
# `agent` exists there.
from . import agent
from ..distribution import MoveDistribution
from ..genomes import register_decoder
from ..rules import Rules
from ..space import StateSpace
from .base import Agent, CodedPolicy, Moves

__all__ = ["MixtureAgent", "FEATURES", "feature_size", "feature_values", "stack_mixtures"]


def _nimsum(positions: np.ndarray) -> np.ndarray:
    return np.bitwise_xor.reduce(positions, axis=1)


def _active_rows(positions: np.ndarray) -> np.ndarray:
    return (positions > 0).sum(axis=1) - 1  # never empty: 1..rows -> 0..rows-1


def _none(positions: np.ndarray) -> np.ndarray:
    return np.zeros(len(positions), dtype=np.int64)


# name -> (number of buckets on a board, bucket of each position)
FEATURES: dict[str, tuple[Callable[[Rules], int], Callable[[np.ndarray], np.ndarray]]] = {
    # Every nim-sum is below the next power of two above the longest row.
    "nimsum": (lambda rules: 1 << max(rules.rows).bit_length(), _nimsum),
    "active_rows": (lambda rules: rules.n_rows, _active_rows),
    "none": (lambda rules: 1, _none),
}


def _feature(name: Any) -> tuple[Callable[[Rules], int], Callable[[np.ndarray], np.ndarray]]:
    if not isinstance(name, str) or name not in FEATURES:
        raise ValueError(f"unknown feature {name!r}; valid features: {', '.join(FEATURES)}")
    return FEATURES[name]


def feature_size(feature: str, rules: Rules) -> int:
    """How many rows a table over `feature` has on this board."""
    return _feature(feature)[0](rules)


def feature_values(feature: str, positions: np.ndarray) -> np.ndarray:
    """The table row of each (non-empty) position."""
    return _feature(feature)[1](np.asarray(positions, dtype=np.int64))


class MixtureAgent(Agent):
    """Plays, per position, the move of a column agent drawn from the feature's row."""

    def __init__(
        self,
        name: str,
        rules: Rules,
        table: Any,
        columns: Sequence[str],
        feature: str = "nimsum",
    ) -> None:
        super().__init__(name, rules)
        if isinstance(columns, str) or not len(columns):
            raise ValueError(f"columns must be a non-empty list of agent names, got {columns!r}")
        self.columns = tuple(columns)
        self.feature = feature
        self.table = _check_table(table, feature_size(feature, rules), len(self.columns))
        self._agents = [_column_agent(column, rules) for column in self.columns]
        self._cumulative = np.cumsum(self.table, axis=1)
        # The last column with any mass: a draw landing past a row's rounded
        # total must not pick a trailing zero-probability column.
        self._last = (self.table.shape[1] - 1 - np.argmax(self.table[:, ::-1] > 0, axis=1)).astype(np.int64)

    def _columns_for(self, buckets: np.ndarray, u: np.ndarray) -> np.ndarray:
        picked = (self._cumulative[buckets] <= u[:, None]).sum(axis=1)
        return np.minimum(picked, self._last[buckets])

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        p = np.asarray(positions, dtype=np.int64)
        u = rng.random(len(p))
        chosen = self._columns_for(feature_values(self.feature, p), u)
        moves = [player.act(p, rng) for player in self._agents]
        return _select(chosen, moves)

    def _build_coded(self, space: StateSpace) -> CodedPolicy:
        buckets = _coded_buckets(self.feature, space.board)
        agents = self._agents
        policies = [player.coded(space) for player in agents]

        def column_moves(codes: np.ndarray, rng: np.random.Generator) -> list[Moves]:
            moves = []
            for player, policy in zip(agents, policies):
                if policy is None:
                    moves.append(player.act(space.decode(codes), rng))
                else:
                    moves.append(policy.act(codes, rng))
            return moves

        def act(codes: np.ndarray, rng: np.random.Generator) -> Moves:
            u = rng.random(len(codes))
            return _select(self._columns_for(buckets[codes], u), column_moves(codes, rng))

        trusted = all(policy is not None and policy.trusted for policy in policies)
        return CodedPolicy(act, trusted=trusted)

    def _build_distribution(self, space: StateSpace) -> MoveDistribution:
        """Column j's distribution weighted by the table's entry (feature of c, j)."""
        per_code = self.table[_coded_buckets(self.feature, space.board)]
        return MoveDistribution.mix(space, [column.distribution(space).scaled(per_code[:, j])
                                            for j, column in enumerate(self._agents)])


@lru_cache(maxsize=8)
def _coded_buckets(feature: str, board: tuple[int, ...]) -> np.ndarray:
    """The feature bucket of every code of a board's space, shared by all tables."""
    space = StateSpace(board)
    buckets = np.zeros(space.size, dtype=np.int64)
    buckets[1:] = feature_values(feature, space.decode(np.arange(1, space.size)))
    buckets.setflags(write=False)
    return buckets


@lru_cache(maxsize=256)
def _column_agent(name: str, rules: Rules) -> Agent:
    """Column agents are shared between tables, so each is tabulated once per board."""
    return agent(name, rules)


def _select(chosen: np.ndarray, moves: list[Moves]) -> Moves:
    """Game i gets the move of column chosen[i] (any number of columns)."""
    games = np.arange(len(chosen))
    rows = np.stack([np.asarray(m[0], dtype=np.int64) for m in moves])[chosen, games]
    takes = np.stack([np.asarray(m[1], dtype=np.int64) for m in moves])[chosen, games]
    return rows, takes


def stack_mixtures(players: Sequence[Agent], space: StateSpace):
    """One policy moving the games of many tables at once, `act(owner, codes, rng)`.

    For tables over the same columns and feature (a population of table
    genomes); None when the players are not such tables. Draws in the same
    order as each table's own coded policy, so results are identical.
    """
    if not players or not all(isinstance(p, MixtureAgent) for p in players):
        return None
    first = players[0]
    if any((p.columns, p.feature, p.rules) != (first.columns, first.feature, first.rules) for p in players):
        return None
    policies = [column.coded(space) for column in first._agents]
    if any(policy is None or not policy.trusted for policy in policies):
        return None
    cumulative = np.stack([p._cumulative for p in players])
    last = np.stack([p._last for p in players])
    buckets = _coded_buckets(first.feature, space.board)

    def act(owner: np.ndarray, codes: np.ndarray, rng) -> Moves:
        u = rng.random(len(codes))
        bucket = buckets[codes]
        picked = (cumulative[owner, bucket] <= u[:, None]).sum(axis=1)
        chosen = np.minimum(picked, last[owner, bucket])
        return _select(chosen, [policy.act(codes, rng) for policy in policies])

    return act


def _check_table(table: Any, n_rows: int, n_columns: int) -> np.ndarray:
    """A float table of the right shape, non-negative, each row rescaled to sum to 1."""
    try:
        t = np.array(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"table must be a 2-d array of probabilities, got {table!r}") from None
    if t.shape != (n_rows, n_columns):
        raise ValueError(f"table must have shape ({n_rows}, {n_columns}) (feature rows, columns), got {t.shape}")
    if not np.isfinite(t).all() or (t < 0).any():
        raise ValueError("table entries must be finite and >= 0")
    sums = t.sum(axis=1)
    if (sums <= 0).any():
        raise ValueError(f"every table row needs some probability; rows {np.flatnonzero(sums <= 0).tolist()} are all 0")
    return t / sums[:, None]


def _decode_table(genome: Any, config: dict, rules: Rules, name: str) -> Agent:
    """`table` genome: rows x columns probabilities; config {"columns": [...], "feature": "nimsum"}."""
    if "columns" not in config:
        raise ValueError('table genomes need config {"columns": [agent names], "feature": ...}')
    return MixtureAgent(name, rules, genome, config["columns"], config.get("feature", "nimsum"))


register_decoder("table", _decode_table)
