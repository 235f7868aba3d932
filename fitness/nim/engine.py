"""The match engine: many Nim games of two agents played in lockstep.

`a` and `b` are the two seats of the lockstep loop (`lockstep.py`): each
ply, `a` moves all the games where it is to move, then `b` moves its own.
On boards small enough to number (`StateSpace`), games are single integer
codes; otherwise position arrays.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .agents.base import Agent, CodedPolicy, check_moves
from .lockstep import Seat, lockstep
from .rules import Rules
from .space import StateSpace

__all__ = ["MatchResult", "Side", "play", "wilson_interval"]


def wilson_interval(wins: int, games: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (sane at 0% and 100%)."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    low = 0.0 if wins == 0 else max(0.0, centre - half)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return (low, high)


@dataclass(frozen=True)
class MatchResult:
    """Outcome of `play(a, b, ...)`: `a` moved first in `games_a_first` games."""

    games: int
    wins_a: int
    wins_b: int
    games_a_first: int
    wins_a_first: int  # games `a` won when it moved first
    plies: int
    seconds: float

    @property
    def win_rate_a(self) -> float:
        return self.wins_a / self.games if self.games else 0.0

    @property
    def win_rate_b(self) -> float:
        return self.wins_b / self.games if self.games else 0.0

    def interval_a(self) -> tuple[float, float]:
        return wilson_interval(self.wins_a, self.games)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


class Side:
    """One agent as the engine drives it: on codes when it can, else on positions."""

    def __init__(self, agent: Agent, space: StateSpace | None) -> None:
        self.agent = agent
        self.space = space
        self.coded: CodedPolicy | None = agent.coded(space) if space is not None else None

    def step_codes(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """How much each game's code drops with this agent's move."""
        space = self.space
        coded = self.coded
        if coded is not None and coded.step_table is not None:
            return coded.step_table[codes]
        if coded is not None and coded.step is not None:
            return coded.step(codes)
        if coded is not None:
            rows, takes = coded.act(codes, rng)
            if not coded.trusted:  # the rules decide, on the decoded positions
                check_moves(self.agent.name, self.agent.rules, space.decode(codes), rows, takes)
            return takes * space.radix[rows]
        positions = space.decode(codes)
        rows, takes = check_moves(
            self.agent.name, self.agent.rules, positions, *self.agent.act(positions, rng)
        )
        return takes * space.radix[rows]

    def seat(self, rng: np.random.Generator, then: int) -> Seat:
        """This agent as a seat of the lockstep loop, drawing from `rng`."""
        if self.space is None:
            return Seat(lambda positions, games: self.move_positions(positions, rng), then)
        table = self.coded.step_table if self.coded is not None else None
        if table is not None:  # deterministic: a ply is one lookup
            return Seat(lambda codes, games: codes - table[codes], then)
        return Seat(lambda codes, games: codes - self.step_codes(codes, rng), then)

    def move_positions(self, positions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        rows, takes = check_moves(
            self.agent.name, self.agent.rules, positions, *self.agent.act(positions, rng)
        )
        out = positions.copy()
        out[np.arange(len(out)), rows] -= takes
        return out


def _check_agents(a: Agent, b: Agent, rules: Rules) -> None:
    for side, agent in (("a", a), ("b", b)):
        if not isinstance(agent, Agent):
            raise TypeError(f"play(): {side} must be an Agent (see fitness.nim.agent), got {agent!r}")
        if agent.rules != rules:
            raise ValueError(
                f"play(): agent {agent.name!r} was built for {agent.rules.describe()}, "
                f"but the match is {rules.describe()}"
            )


def play(a: Agent, b: Agent, rules: Rules, games: int, seed: int | None = None) -> MatchResult:
    """Play `games` matches of `a` against `b`; `a` moves first in ceil(games/2).

    Deterministic for a given `seed`. An illegal move raises `IllegalMoveError`.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 0:
        raise ValueError(f"games must be a non-negative integer, got {games!r}")
    games = int(games)
    _check_agents(a, b, rules)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    space = StateSpace.of(rules.rows)
    n_first = (games + 1) // 2
    boards = rules.start(games) if space is None else np.full(games, space.start, dtype=np.int64)
    ids = np.arange(games, dtype=np.int64)
    seats = [Side(a, space).seat(rng, then=1), Side(b, space).seat(rng, then=0)]
    ended = lockstep(seats, [(boards[:n_first], ids[:n_first]), (boards[n_first:], ids[n_first:])])
    a_wins = 1 if rules.misere else 0  # the seat whose emptying move wins for a (seat 0)
    won = [done for _, seat, done in ended if seat == a_wins]
    wins_a = sum(map(len, won))
    return MatchResult(
        games=games,
        wins_a=wins_a,
        wins_b=games - wins_a,
        games_a_first=n_first,
        wins_a_first=int(np.count_nonzero(np.concatenate(won) < n_first)) if won else 0,
        plies=sum((rounds + 1) * len(done) for rounds, _, done in ended),  # a game ended in round r lasted r + 1
        seconds=time.perf_counter() - started,
    )
