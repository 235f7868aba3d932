"""The one Nim game loop: many games at once, one array op per ply.

As in OpenSpiel, where one generic loop asks the game whose turn it is, the
bots for their actions and the game for the returns, three things are kept
apart here:

* the game: a Nim board is over when it is empty (a code of 0, or a position
  whose rows are all 0); who emptied it decides the game;
* the seats, each moving a whole batch of boards at once (an agent on codes,
  a population of genomes, a learner choosing epsilon-greedily) and naming
  the seat that moves next in the games it leaves unfinished;
* what a caller keeps: the loop returns which games each seat's move ended
  in which round (all a match needs); a seat's `record` hook sees every
  ply it plays (what a learner needs for its transitions).

Every game carries its own number through the loop (0..n-1 in all callers),
so seats can index per-game arrays; finished games leave the batches. A seat
always receives its games in ascending order of their numbers, so its random
draws never depend on how the games reached it.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional, Sequence, Union

import numpy as np

__all__ = ["Batch", "Ended", "Seat", "lockstep"]

# Boards of unfinished games (codes `(n,)` or positions `(n, rows)`) and their numbers `(n,)`.
Batch = tuple[np.ndarray, np.ndarray]
# (round, seat, games): the games that seat's move emptied in that round (it won them in normal play).
Ended = tuple[int, int, np.ndarray]


class Seat(NamedTuple):
    """Who moves a batch, who moves next in the games it leaves, what it records.

    `move(boards, games)` returns the boards one ply later (it may update
    `boards` in place). `then` is the next seat of every unfinished game, or
    a function of the game numbers giving each one's next seat.
    `record(games, boards, over)`, if given, sees the boards after each of
    this seat's plies and which of those games it just ended.
    """

    move: Callable[[np.ndarray, np.ndarray], np.ndarray]
    then: Union[int, Callable[[np.ndarray], np.ndarray]]
    record: Optional[Callable[[np.ndarray, np.ndarray, np.ndarray], None]] = None


def lockstep(seats: Sequence[Seat], waiting: Sequence[Batch], same_round: bool = False) -> list[Ended]:
    """Play every game to its end; `waiting[s]` holds the games seat `s` opens.

    The loop goes round the seats in order. By default a seat moves the games
    that were waiting for it when the round began, so every unfinished game
    advances one ply per round and a game that ends in round r lasted r + 1
    plies (a match: `a`'s games, then `b`'s). With `same_round`, a seat also
    moves the games an earlier seat handed it in this round (training: the
    learner's move and the opponent's reply). Returns the games ended, turn
    by turn.
    """
    if len(waiting) != len(seats):
        raise ValueError(f"{len(seats)} seats but {len(waiting)} batches of waiting games")
    # Per seat, the batches of games waiting for it (tuples: a new one on every change).
    pending: list[tuple[Batch, ...]] = [(batch,) if len(batch[1]) else () for batch in waiting]
    # The seats unpacked once: number, move, next seat, whether that is one seat for all games, hook.
    turns = [(s, seat.move, seat.then, isinstance(seat.then, int), seat.record) for s, seat in enumerate(seats)]
    codes = not waiting or waiting[0][0].ndim == 1  # boards are codes (n,), else positions (n, rows)
    ended: list[Ended] = []
    rounds = 0
    while any(pending):
        if same_round:
            due = pending
        else:  # games handed on during the round wait for the next one
            due, pending = pending, [()] * len(seats)
        for s, move, then, one_seat, record in turns:
            chunks = due[s]
            if not chunks:
                continue
            if same_round:
                pending[s] = ()
            boards, games = chunks[0] if len(chunks) == 1 else _join(chunks)
            boards = move(boards, games)
            over = boards == 0 if codes else ~boards.any(axis=1)  # empty boards
            if record is not None:
                record(games, boards, over)
            if over.any():
                ended.append((rounds, s, games[over]))
                going = ~over
                boards, games = boards[going], games[going]
                if not len(games):
                    continue
            if one_seat:
                pending[then] += ((boards, games),)
            else:
                _hand_on(pending, then(games), boards, games)
        rounds += 1
    return ended


def _hand_on(pending: list[tuple[Batch, ...]], nxt: np.ndarray, boards: np.ndarray, games: np.ndarray) -> None:
    """Queue each game for its own next seat `nxt[i]`."""
    for s in range(len(pending)):
        mine = nxt == s
        n = np.count_nonzero(mine)
        if n == len(games):
            pending[s] += ((boards, games),)
            return
        if n:
            pending[s] += ((boards[mine], games[mine]),)


def _join(chunks: tuple[Batch, ...]) -> Batch:
    """The games waiting for one seat as one batch, in ascending game order."""
    boards = np.concatenate([b for b, _ in chunks])
    games = np.concatenate([g for _, g in chunks])
    order = np.argsort(games, kind="stable")
    return boards[order], games[order]
