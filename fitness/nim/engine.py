"""The match engine: many Nim games played in lockstep, one array op per ply.

Games are split in two groups, those where `a` is to move and those where
`b` is; each ply both agents move all of their games at once and the groups
swap. Finished games leave the arrays. On boards small enough to number
(`StateSpace`), games are single integer codes; otherwise position arrays.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .agents.base import Agent, CodedPolicy, check_moves
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
    side_a, side_b = Side(a, space), Side(b, space)
    n_first = (games + 1) // 2
    if space is not None:
        counts = _play_codes(side_a, side_b, space, rules, games, n_first, rng)
    else:
        counts = _play_positions(side_a, side_b, rules, games, n_first, rng)
    wins_a, wins_a_first, plies = counts
    return MatchResult(
        games=games,
        wins_a=wins_a,
        wins_b=games - wins_a,
        games_a_first=n_first,
        wins_a_first=wins_a_first,
        plies=plies,
        seconds=time.perf_counter() - started,
    )


def _play_codes(side_a, side_b, space, rules, games, n_first, rng):
    # Each group: codes of unfinished games and whether `a` started them.
    to_move = [
        (np.full(n_first, space.start, dtype=np.int64), np.ones(n_first, dtype=bool)),
        (np.full(games - n_first, space.start, dtype=np.int64), np.zeros(games - n_first, dtype=bool)),
    ]
    sides = (side_a, side_b)
    wins_a = wins_a_first = plies = 0
    mover_wins = not rules.misere  # the player who empties the board
    while to_move[0][0].size or to_move[1][0].size:
        moved = []
        for who in (0, 1):
            codes, a_started = to_move[who]
            if codes.size:
                codes = codes - sides[who].step_codes(codes, rng)
                plies += codes.size
                done = codes == 0
                if done.any():
                    n_done = int(np.count_nonzero(done))
                    n_done_a_first = int(np.count_nonzero(a_started[done]))
                    a_won = (who == 0) == mover_wins
                    if a_won:
                        wins_a += n_done
                        wins_a_first += n_done_a_first
                    codes, a_started = codes[~done], a_started[~done]
            moved.append((codes, a_started))
        to_move = [moved[1], moved[0]]
    return wins_a, wins_a_first, plies


def _play_positions(side_a, side_b, rules, games, n_first, rng):
    start = rules.start
    to_move = [
        (start(n_first), np.ones(n_first, dtype=bool)),
        (start(games - n_first), np.zeros(games - n_first, dtype=bool)),
    ]
    sides = (side_a, side_b)
    wins_a = wins_a_first = plies = 0
    mover_wins = not rules.misere
    while len(to_move[0][0]) or len(to_move[1][0]):
        moved = []
        for who in (0, 1):
            positions, a_started = to_move[who]
            if len(positions):
                positions = sides[who].move_positions(positions, rng)
                plies += len(positions)
                done = ~positions.any(axis=1)
                if done.any():
                    if (who == 0) == mover_wins:
                        wins_a += int(np.count_nonzero(done))
                        wins_a_first += int(np.count_nonzero(a_started[done]))
                    positions, a_started = positions[~done], a_started[~done]
            moved.append((positions, a_started))
        to_move = [moved[1], moved[0]]
    return wins_a, wins_a_first, plies
