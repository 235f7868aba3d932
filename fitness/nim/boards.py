"""Optimal play judged on several boards at once: training that rewards general play.

A board-independent genome (an expression) can fit one training board with
tricks that fail elsewhere: the number of rows, a constant that happens to
match its rows. Scoring it exactly on a few boards of different shapes (row
counts, row sizes beyond k + 1) leaves only rules that hold on all of them.
Each board counts equally, however many positions it has.

Only the winning positions of a board matter to the optimal-move rate, so
an extra board keeps just their candidate moves, each marked by whether it
leaves the opponent lost (the solver's verdict).

A canonical board keeps one position per multiset of row sizes (sorted): an
expression scores a move the same whatever the order of the rows, so the
permutations teach it nothing new: the 7-row board 2,4,5,7,9,11,12 has 22,345
canonical states against 1,123,200 raw positions. A fixed sample of them
(drawn from the board itself, the same in every run) bounds the cost further.
A sample can be overfit, so with `confirm` an expression perfect on every
training board, samples included, is scored on all the winning canonical
positions instead: rare, so nearly free, and a sample-perfect expression that
errs elsewhere is no longer perfect.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from functools import lru_cache
from typing import Sequence

import numpy as np

from .exact import winning_codes
from .expression import Node
from .expression.board import BoardMoves
from .rules import Rules
from .solver import solve
from .space import StateSpace

__all__ = ["BOARDS_SOLVED", "TrainingBoards"]

BOARDS_SOLVED = "boards_solved"
_REMEMBERED = 1 << 15  # outcomes kept per board (a few generations of a GP run)


class _Board:
    """The candidates of some winning positions, and which of them win."""

    def __init__(self, moves: BoardMoves, good: np.ndarray) -> None:
        self.moves = moves
        self.good = good
        self._seen: OrderedDict[Node, tuple[float, bytes]] = OrderedDict()

    def outcome(self, tree: Node) -> tuple[float, bytes]:
        """The expression's optimal-move rate here, and a digest of the move it plays from
        every winning position (remembered: the task and the genome kind both ask)."""
        if tree in self._seen:
            self._seen.move_to_end(tree)
            return self._seen[tree]
        chosen = self.moves.best(tree)
        rate = float(self.good[chosen].mean()) if len(chosen) else 1.0
        self._seen[tree] = rate, hashlib.blake2b(chosen.astype(np.int64).tobytes(), digest_size=16).digest()
        if len(self._seen) > _REMEMBERED:
            self._seen.popitem(last=False)
        return self._seen[tree]

    def remember(self, tree: Node, outcome: tuple[float, bytes]) -> None:
        """`outcome` as another process found it for `tree` (`TrainingBoards.learn`)."""
        if tree not in self._seen:
            self._seen[tree] = outcome
            if len(self._seen) > _REMEMBERED:
                self._seen.popitem(last=False)


@lru_cache(maxsize=64)
def _board(rules: Rules) -> _Board:
    """Every winning position of the board: one per board and rules in a process, shared by
    every task and genome kind."""
    space = StateSpace.of(rules.rows)
    if space is None:
        raise ValueError(f"boards: {list(rules.rows)} has too many positions to be scored exactly "
                         f"(limit 2,097,152)")
    win = winning_codes(rules)
    moves = BoardMoves(space.all_positions()[np.flatnonzero(win[1:]) + 1], rules.k)
    return _Board(moves, ~win[space.encode(moves.context.rows)])


@lru_cache(maxsize=64)
def _canonical_board(rules: Rules, limit: int | None) -> _Board:
    """The board's winning canonical positions (at most `limit`, drawn once from the board's
    rows: the same sample in every run and process)."""
    solved = solve(rules)
    states, win = solved.states()
    winning = states[win & (states.sum(axis=1) > 0)].astype(np.int64)
    if limit is not None and limit < len(winning):
        rng = np.random.default_rng(np.random.SeedSequence(list(rules.rows)))
        winning = winning[np.sort(rng.choice(len(winning), limit, replace=False))]
    moves = BoardMoves(winning, rules.k)
    return _Board(moves, ~solved.winning(moves.context.rows))


class TrainingBoards:
    """Extra training boards, with the run's k and rule: whole (`extra`) or canonical."""

    def __init__(self, rules: Rules, extra: Sequence[Sequence[int]], canonical: Sequence[Sequence[int]] = (),
                 canonical_limit: int | None = None, confirm: bool = False) -> None:
        whole, sorted_ = ([Rules(rows=tuple(b), k=rules.k, misere=rules.misere) for b in given]
                          for given in (extra, canonical))
        if len({b.rows for b in whole} | {rules.rows}) != len(whole) + 1:
            raise ValueError("boards: each training board must be given once, and not the run's own board")
        if len({b.rows for b in sorted_}) != len(sorted_):
            raise ValueError("canonical_boards: each board must be given once")
        self.boards = [_board(b) for b in whole] + [_canonical_board(b, canonical_limit) for b in sorted_]
        # (index in self.boards, rules) of each sampled board whose perfect scores are confirmed on all
        self._confirmed = [(len(whole) + i, b) for i, b in enumerate(sorted_)] if confirm else []

    def rates(self, trees: Sequence[Node], main: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per expression: the mean optimal-move rate over the run's board and these, and on
        how many of them it is perfect. `main` holds the rates on the run's board."""
        per_board = np.stack([np.asarray(main, dtype=np.float64)]
                             + [np.asarray([b.outcome(t)[0] for t in trees]) for b in self.boards])
        if self._confirmed:
            for j in np.flatnonzero((per_board == 1.0).all(axis=0)):  # perfect everywhere: confirm
                for i, rules in self._confirmed:
                    per_board[i + 1, j] = _canonical_board(rules, None).outcome(trees[j])[0]
        return per_board.mean(axis=0), (per_board == 1.0).sum(axis=0).astype(np.int64)

    def outcomes(self, trees: Sequence[Node]) -> list[tuple[tuple[float, bytes], ...]]:
        """Each tree's outcome on every board, as scoring it left them remembered: what a worker
        process sends its driver (`learn`), whose genome kind reads the digests (`signature`)
        and would otherwise play every board again for every child."""
        return [tuple(b.outcome(t) for b in self.boards) for t in trees]

    def learn(self, trees: Sequence[Node], outcomes: Sequence[tuple[tuple[float, bytes], ...]]) -> None:
        """Remember `outcomes` (another process's `outcomes` of `trees`)."""
        for tree, per_board in zip(trees, outcomes):
            for board, outcome in zip(self.boards, per_board):
                board.remember(tree, outcome)

    def signature(self, tree: Node) -> bytes:
        """What the expression plays on these boards' winning positions, as a digest: equal
        for expressions that differ only in text (the same moves everywhere here)."""
        return b"".join(b.outcome(tree)[1] for b in self.boards)
