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
    player_sides = [Side(p, space) for p in players]
    opponent_side = Side(opponent, space)

    def player_step(codes: np.ndarray, gid: np.ndarray) -> np.ndarray:
        owner = gid // games
        if stacked is not None:
            rows, takes = stacked(owner, codes, streams.for_games(gid))
            return takes * space.radix[rows]
        step = np.empty(len(codes), dtype=np.int64)
        order = np.argsort(owner, kind="stable")
        bounds = np.searchsorted(owner[order], np.arange(n_players + 1))
        for p in range(n_players):
            mine = order[bounds[p]:bounds[p + 1]]
            if mine.size:
                step[mine] = player_sides[p].step_codes(codes[mine], streams.for_games(gid[mine]))
        return step

    def opponent_step(codes: np.ndarray, gid: np.ndarray) -> np.ndarray:
        return opponent_side.step_codes(codes, streams.for_games(gid))

    start = np.full(len(ids), space.start, dtype=np.int64)
    to_move = [(start[player_first], ids[player_first]), (start[~player_first], ids[~player_first])]
    steps = (player_step, opponent_step)
    player_won = np.zeros(len(ids), dtype=bool)
    plies = np.zeros(n_players, dtype=np.int64)
    mover_wins = not rules.misere
    while to_move[0][0].size or to_move[1][0].size:
        moved = []
        for who in (0, 1):
            codes, gid = to_move[who]
            if codes.size:
                codes = codes - steps[who](codes, gid)
                plies += np.bincount(gid // games, minlength=n_players)
                done = codes == 0
                if done.any():
                    player_won[gid[done]] = (who == 0) == mover_wins
                    codes, gid = codes[~done], gid[~done]
            moved.append((codes, gid))
        to_move = [moved[1], moved[0]]

    won = player_won.reshape(n_players, games)
    seconds = (time.perf_counter() - started) / max(n_players, 1)
    results = []
    for p in range(n_players):
        wins = int(won[p].sum())
        results.append(MatchResult(games=games, wins_a=wins, wins_b=games - wins, games_a_first=n_first,
                                   wins_a_first=int(won[p, :n_first].sum()), plies=int(plies[p]), seconds=seconds))
    return results
