"""Many players against one opponent in a single lockstep match.

Evaluating a population one genome at a time pays the engine's per-ply
overhead once per genome; here all genomes' games move together. Each game
draws its randomness from its own counter-based stream (draw j of a game is a
hash of the game's key and j), so a genome's result does not depend on which
other genomes share the batch: the chunking of a population cannot change a
log.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

from .agents.base import Agent, CodedPolicy, Moves
from .engine import MatchResult, Side, play
from .lockstep import Seat, lockstep
from .rules import Rules
from .space import StateSpace

__all__ = ["GameStreams", "play_population", "stack_tabulated"]

# Deterministic players on boards up to this many positions are tabulated in
# full and stacked (the 5-row board has 3,840; 6 rows, 46,080).
STACK_LIMIT = 1 << 16

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: a bijective 64-bit scramble."""
    z = z.astype(np.uint64, copy=True)
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


class GameStreams:
    """One random stream per game; `for_games(ids)` is the `rng` an agent call gets."""

    def __init__(self, keys: np.ndarray) -> None:
        self.keys = np.asarray(keys, dtype=np.uint64)
        self.drawn = np.zeros(len(self.keys), dtype=np.uint64)

    @classmethod
    def for_seeds(cls, seeds: Sequence[int], games: int) -> "GameStreams":
        """Keys for `games` games of each seed (seed i owns games i*games ...)."""
        seed_keys = _mix(np.asarray([int(s) & (2**64 - 1) for s in seeds], dtype=np.uint64))
        index = _mix(np.arange(games, dtype=np.uint64) * _GOLDEN + np.uint64(1))
        return cls((seed_keys[:, None] ^ index[None, :]).ravel())

    def for_games(self, ids: np.ndarray) -> "_Draws":
        return _Draws(self, ids)


class _Draws:
    """Quacks like the part of `numpy.random.Generator` agents use: `random(n)`,
    one uniform per game of the call, in the order of the call's games."""

    def __init__(self, streams: GameStreams, ids: np.ndarray) -> None:
        self._streams = streams
        self._ids = ids

    def random(self, size: int | None = None) -> np.ndarray:
        if size != len(self._ids):
            raise TypeError(
                f"batched evaluation draws one number per game: random({len(self._ids)}), not random({size})"
            )
        streams, ids = self._streams, self._ids
        counter = streams.drawn[ids]
        streams.drawn[ids] = counter + np.uint64(1)
        bits = _mix(streams.keys[ids] + (counter + np.uint64(1)) * _GOLDEN)
        return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


StackedAct = Callable[[np.ndarray, np.ndarray, _Draws], Moves]


def stack_tabulated(players: Sequence[Agent], space: StateSpace) -> StackedAct | None:
    """Deterministic players as one (players x positions) move table, or None."""
    if not players or space.size > STACK_LIMIT or not all(p.deterministic for p in players):
        return None
    tables = [CodedPolicy.tabulate(p, space) for p in players]
    rows = np.stack([t.act(np.arange(space.size), None)[0] for t in tables])
    takes = np.stack([t.act(np.arange(space.size), None)[1] for t in tables])

    def act(owner: np.ndarray, codes: np.ndarray, rng) -> Moves:
        return rows[owner, codes], takes[owner, codes]

    return act


def play_population(
    players: Sequence[Agent],
    opponent: Agent,
    rules: Rules,
    games: int,
    seeds: Sequence[int],
    stacked: StackedAct | None = None,
) -> list[MatchResult]:
    """`games` matches of every player against `opponent`; player i's games draw
    from streams keyed by `seeds[i]`. Each player moves first in ceil(games/2).

    `stacked(owner, codes, rng)` may move all players' games in one call (see
    `MixtureAgent.stack`); otherwise each player moves its own games.
    Boards too large to number fall back to one `play` per player.
    """
    if len(players) != len(seeds):
        raise ValueError(f"{len(players)} players but {len(seeds)} seeds")
    space = StateSpace.of(rules.rows)
    if space is None:
        return [play(p, opponent, rules, games, seed=int(s)) for p, s in zip(players, seeds)]
    started = time.perf_counter()
    n_players = len(players)
    streams = GameStreams.for_seeds(seeds, games)
    n_first = (games + 1) // 2
    ids = np.arange(n_players * games, dtype=np.int64)
    player_first = (ids % games) < n_first
    opponent_side = Side(opponent, space)

    def opponent_move(codes: np.ndarray, gid: np.ndarray) -> np.ndarray:
        return codes - opponent_side.step_codes(codes, streams.for_games(gid))

    seats = [Seat(_players_move(players, space, games, streams, stacked), then=1), Seat(opponent_move, then=0)]
    start = np.full(len(ids), space.start, dtype=np.int64)
    ended = lockstep(seats, [(start[player_first], ids[player_first]), (start[~player_first], ids[~player_first])])
    won = np.zeros(len(ids), dtype=bool)
    length = np.zeros(len(ids), dtype=np.int64)
    player_wins = 1 if rules.misere else 0  # the seat whose emptying move wins for the player (seat 0)
    for rounds, seat, gid in ended:
        won[gid] = seat == player_wins
        length[gid] = rounds + 1  # a game that ended in round r lasted r + 1 plies
    won = won.reshape(n_players, games)
    wins, wins_first = won.sum(axis=1).tolist(), won[:, :n_first].sum(axis=1).tolist()
    plies = length.reshape(n_players, games).sum(axis=1).tolist()
    seconds = (time.perf_counter() - started) / max(n_players, 1)
    return [
        MatchResult(games=games, wins_a=w, wins_b=games - w, games_a_first=n_first, wins_a_first=f, plies=n,
                    seconds=seconds)
        for w, f, n in zip(wins, wins_first, plies)
    ]


def _players_move(
    players: Sequence[Agent], space: StateSpace, games: int, streams: GameStreams, stacked: StackedAct | None
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The players' seat: game `gid` belongs to player gid // games, who moves it
    with its own policy (or all at once through `stacked`)."""
    n_players = len(players)
    sides = [Side(p, space) for p in players]

    def move(codes: np.ndarray, gid: np.ndarray) -> np.ndarray:
        owner = gid // games
        if stacked is not None:
            rows, takes = stacked(owner, codes, streams.for_games(gid))
            return codes - takes * space.radix[rows]
        step = np.empty(len(codes), dtype=np.int64)
        order = np.argsort(owner, kind="stable")
        bounds = np.searchsorted(owner[order], np.arange(n_players + 1))
        for p in range(n_players):
            mine = order[bounds[p]:bounds[p + 1]]
            if mine.size:
                step[mine] = sides[p].step_codes(codes[mine], streams.for_games(gid[mine]))
        return codes - step

    return move
