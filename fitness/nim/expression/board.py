"""Every candidate move of a whole board, laid out once and shared by all expressions.

Scoring an expression over a board used to rebuild the candidate moves, the
positions after them and an argsort for every genome; none of that depends
on the genome. `BoardMoves` builds it once per (board, k) and keeps, per
board, the values of subexpressions already computed (GP populations share
many subtrees), so scoring a genome costs one numpy op per *new* node and a
linear pass for the best move per position. The ops run over the moves an
expression can tell apart (`distinct_candidates`), subtrees of `rows` alone
over the sorted positions after them: misère k = 5, 3,000 expressions on the
five training boards of `runs/nim-gp.toml`, 14.3 s before, 8.7 s after.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .language import Context, Node, UNBOUNDED_K, evaluate_node, unique_rows

__all__ = ["BoardMoves", "Candidates", "best_per_segment", "board_moves", "candidate_moves", "distinct_candidates"]

# Boards whose candidate arrays (moves x rows) exceed this many entries are
# scored block by block instead (the standard 6-row board has ~5 million).
_MAX_ENTRIES = 1 << 23
# Bytes of subexpression values kept per board (least recently used go first).
_MEMO_BYTES = 96 << 20


def candidate_moves(positions: np.ndarray, k: int | None,
                    rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every legal move of every position (only from the rows where the mask `rows` is
    True, if given), in (position, row, take) order: which position each belongs to,
    its row and its take."""
    p = np.asarray(positions, dtype=np.int64)
    limit = p if k is None else np.minimum(p, k)
    if rows is not None:
        limit = np.where(rows, limit, 0)
    max_take = int(limit.max()) if limit.size else 0
    legal = np.arange(1, max_take + 1)[None, None, :] <= limit[:, :, None]
    owner, row, take_index = np.nonzero(legal)
    return owner, row, take_index + 1


def best_per_segment(score: np.ndarray, starts: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Index of the first highest score in each segment `starts[i]:starts[i+1]` (none empty;
    `owner[j]` is the segment of entry j).

    Candidates are in (row, take) order within a position, so this is the
    best move with ties to the lowest row, then the smallest take."""
    best = np.maximum.reduceat(score, starts)
    hits = np.flatnonzero(score == best[owner])
    return hits[np.searchsorted(hits, starts)]


@dataclass(frozen=True)
class Candidates:
    """The candidate moves of some positions as an expression context: each one's position
    (`owner`), row and take, and where each position's candidates start."""

    context: Context
    owner: np.ndarray
    row: np.ndarray
    take: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, positions: np.ndarray, k: int | None, rows: np.ndarray | None = None) -> "Candidates":
        owner, row, take = candidate_moves(positions, k, rows)
        after = positions[owner]  # a copy: fancy indexing
        before = after[np.arange(len(owner)), row]
        after[np.arange(len(owner)), row] = before - take
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else np.zeros(0, np.int64)
        return cls(Context(after, take, before, UNBOUNDED_K if k is None else k), owner, row, take, starts)

    def best(self, score: np.ndarray) -> np.ndarray:
        """Which candidate scores best for each position."""
        return best_per_segment(np.broadcast_to(score, self.take.shape), self.starts, self.owner)


def distinct_candidates(context: Context) -> tuple[Context, np.ndarray]:
    """The candidates as an expression tells them apart, once each, and where each candidate is.

    Every primitive treats the rows alike whatever their order (row-wise maps,
    symmetric reductions), so a move's score depends only on the sorted rows
    after it, the take and the row before it: moves from equal rows, or to the
    same sorted position, score alike (a 5-row board's 37,152 winning moves are
    6,746 such triples, over 727 sorted positions after the move)."""
    rows = np.sort(np.asarray(context.rows, dtype=np.int64), axis=1)
    triples, spread = unique_rows(np.column_stack([rows, context.take, context.before]))
    width = rows.shape[1]
    distinct = Context(np.ascontiguousarray(triples[:, :width]), np.ascontiguousarray(triples[:, width]),
                       np.ascontiguousarray(triples[:, width + 1]), context.k)
    return distinct.with_distinct(), spread


class BoardMoves:
    """The candidates of every non-empty position of a board (in code order), built once."""

    def __init__(self, positions: np.ndarray, k: int | None) -> None:
        self.candidates = Candidates.of(positions, k)
        self.context = self.candidates.context
        self._distinct, self._spread = distinct_candidates(self.context)  # what the expressions score
        self._memo: OrderedDict[Node, np.ndarray] = OrderedDict()
        self._bytes = 0

    @staticmethod
    def fits(positions: np.ndarray, k: int | None) -> bool:
        """Whether a board's candidate arrays are small enough to keep whole."""
        p = np.asarray(positions, dtype=np.int64)
        moves = int((p if k is None else np.minimum(p, k)).sum())
        return moves * max(p.shape[1], 1) <= _MAX_ENTRIES

    def best(self, tree: Node) -> np.ndarray:
        """Which candidate the expression plays from every position."""
        score = evaluate_node(tree, self._distinct, self._recall, self._remember)
        return self.candidates.best(np.take(score, self._spread))

    def moves(self, tree: Node) -> tuple[np.ndarray, np.ndarray]:
        """(row, take) of the best-scoring move from every position."""
        chosen = self.best(tree)
        return self.candidates.row[chosen], self.candidates.take[chosen]

    def _recall(self, node: Node) -> np.ndarray | None:
        value = self._memo.get(node)
        if value is not None:
            self._memo.move_to_end(node)
        return value

    def _remember(self, node: Node, value: np.ndarray) -> None:
        if node in self._memo or value.nbytes > _MEMO_BYTES // 8:
            return
        self._memo[node] = value
        self._bytes += value.nbytes
        while self._bytes > _MEMO_BYTES:
            _, old = self._memo.popitem(last=False)
            self._bytes -= old.nbytes


@lru_cache(maxsize=16)
def board_moves(board: tuple[int, ...], k: int | None) -> BoardMoves | None:
    """The shared candidates of a board's whole state space, or None when too large."""
    from ..space import StateSpace

    space = StateSpace.of(board)
    if space is None:
        return None
    positions = space.all_positions()[1:]  # code 0 is the empty board: no move
    return BoardMoves(positions, k) if BoardMoves.fits(positions, k) else None
