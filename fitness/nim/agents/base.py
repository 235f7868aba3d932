"""What an agent is: a batched policy, plus an optional fast path on codes.

Every agent maps a batch of positions `(games, rows)` and a
`numpy.random.Generator` to one move `(row, take)` per game. On boards small
enough to number every position (`StateSpace`), an agent can also act on
position codes; deterministic agents get that for free by being tabulated
(over the whole space on small boards, position by position as games reach
them on large ones), after which a move costs an array lookup or two.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..distribution import MoveDistribution
from ..rules import Rules
from ..space import StateSpace

__all__ = ["Agent", "CodedPolicy", "IllegalMoveError", "LazyTable", "Moves", "cap", "check_moves", "row_values"]

Moves = tuple[np.ndarray, np.ndarray]

# Deterministic agents are tabulated over whole boards up to this many positions (6 rows:
# 46,080). Beyond (7 rows: 645,120) a one-off match would spend longer building the table
# than playing, so each position is worked out when a game first reaches it.
EAGER_LIMIT = 1 << 16


def row_values(positions: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Objects in row `rows[i]` of position `i`."""
    return positions[np.arange(len(positions)), rows]


def cap(values: np.ndarray, k: int | None) -> np.ndarray:
    """At most `k` (no bound when `k` is None)."""
    return values if k is None else np.minimum(values, k)


class IllegalMoveError(ValueError):
    """An agent returned a move the rules forbid; raised, never played."""


def check_moves(agent_name: str, rules: Rules, positions: np.ndarray, rows, takes) -> Moves:
    """Validate one move per position; raise naming the agent and the position."""
    rows = np.asarray(rows)
    takes = np.asarray(takes)
    n = len(positions)
    if rows.shape != (n,) or takes.shape != (n,):
        raise IllegalMoveError(
            f"agent {agent_name!r} returned moves of shape {rows.shape}/{takes.shape} "
            f"for {n} positions"
        )
    if not (np.issubdtype(rows.dtype, np.integer) and np.issubdtype(takes.dtype, np.integer)):
        raise IllegalMoveError(f"agent {agent_name!r} returned non-integer moves")
    ok = rules.legal_mask(positions, rows, takes)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise IllegalMoveError(
            f"agent {agent_name!r} played an illegal move (row {int(rows[i])}, take "
            f"{int(takes[i])}) in position {positions[i].tolist()} ({rules.describe()})"
        )
    return rows.astype(np.int64), takes.astype(np.int64)


class CodedPolicy:
    """A policy on position codes of one `StateSpace`.

    `trusted` policies produce legal moves by construction (checked once when
    they were built), so the engine skips the per-move check for them.
    """

    def __init__(
        self,
        act: Callable[[np.ndarray, np.random.Generator], Moves],
        trusted: bool,
        step_table: np.ndarray | None = None,
        step: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self.act = act
        self.trusted = trusted
        # For deterministic policies: how much each code drops, so the engine
        # moves every game with a single lookup (`step`: the same, filled lazily).
        self.step_table = step_table
        self.step = step

    @classmethod
    def tabulate(cls, agent: "Agent", space: StateSpace) -> "CodedPolicy":
        """Ask a deterministic agent once about every position; then look moves up."""
        positions = space.all_positions()[1:]  # code 0 is the empty board: no move
        rows, takes = agent.act(positions, np.random.default_rng(0))
        rows, takes = check_moves(agent.name, agent.rules, positions, rows, takes)
        return cls.from_moves(space, rows, takes)

    @classmethod
    def from_moves(cls, space: StateSpace, rows: np.ndarray, takes: np.ndarray) -> "CodedPolicy":
        """The policy playing (rows[c - 1], takes[c - 1]) from every non-empty code c,
        moves already known legal."""
        row_table = np.zeros(space.size, dtype=np.int8 if space.n_rows < 128 else np.int64)
        row_table[1:] = rows
        step_table = np.zeros(space.size, dtype=np.int64)
        step_table[1:] = takes * space.radix[rows]
        take_table = np.zeros(space.size, dtype=np.int64)
        take_table[1:] = takes

        def act(codes: np.ndarray, rng: np.random.Generator) -> Moves:
            return row_table[codes], take_table[codes]

        return cls(act, trusted=True, step_table=step_table)

    @classmethod
    def lazy(cls, agent: "Agent", space: StateSpace) -> "CodedPolicy":
        """A deterministic agent asked about each code the first time a game reaches it
        (see `LazyTable`), never about the whole board; each answer is checked once."""

        def moves(positions: np.ndarray) -> tuple[np.ndarray, ...]:
            rows, takes = check_moves(agent.name, agent.rules, positions,
                                      *agent.act(positions, np.random.default_rng(0)))
            return rows, takes, takes * space.radix[rows]

        table = LazyTable(space, moves)

        def act(codes: np.ndarray, rng: np.random.Generator) -> Moves:
            return table(codes)[:2]

        def step(codes: np.ndarray) -> np.ndarray:
            table.fill(codes)
            return table.columns[2][codes]

        return cls(act, trusted=True, step=step)


class LazyTable:
    """A deterministic procedure's outputs per position code, computed on first sight.

    Whole-space tabulation costs a pass over every position of the board
    (645,120 on 7 rows) per agent; a match or a genome's few hundred games only
    ever meet a small part of that, so each code is worked out once, when
    first seen.
    """

    def __init__(self, space: StateSpace, compute: Callable[[np.ndarray], tuple[np.ndarray, ...]]) -> None:
        self.space = space
        self.compute = compute
        self.known = np.zeros(space.size, dtype=bool)
        self.columns: list[np.ndarray] = []

    def fill(self, codes: np.ndarray) -> None:
        """Work out the codes not seen yet."""
        missing = ~self.known[codes]
        if missing.any():
            fresh = np.unique(codes[missing])
            values = self.compute(self.space.decode(fresh))
            if not self.columns:
                self.columns = [np.zeros(self.space.size, dtype=v.dtype) for v in values]
            for column, v in zip(self.columns, values):
                column[fresh] = v
            self.known[fresh] = True

    def __call__(self, codes: np.ndarray) -> tuple[np.ndarray, ...]:
        self.fill(codes)
        return tuple(column[codes] for column in self.columns)


class Agent:
    """A named batched Nim policy bound to one set of rules.

    Subclasses implement `act(positions, rng)`. `deterministic` agents ignore
    `rng`; they are tabulated over small boards automatically.
    """

    deterministic: bool = False

    def __init__(self, name: str, rules: Rules) -> None:
        self.name = name
        self.rules = rules
        self._coded: dict[tuple[int, ...], CodedPolicy] = {}
        self._distributions: dict[tuple[int, ...], MoveDistribution | None] = {}

    def __repr__(self) -> str:
        return f"<agent {self.name} on {self.rules.describe()}>"

    def __call__(self, positions: np.ndarray, rng: np.random.Generator | None = None) -> Moves:
        """One legal move per position (checked: an illegal move raises)."""
        positions = np.asarray(positions, dtype=np.int64)
        if positions.ndim != 2 or positions.shape[1] != self.rules.n_rows:
            raise ValueError(
                f"positions must be an int array (games, {self.rules.n_rows}), got shape "
                f"{positions.shape}"
            )
        if (positions < 0).any() or (positions.sum(axis=1) == 0).any():
            raise ValueError("positions must be non-negative and not empty (the game is over)")
        if rng is None:
            rng = np.random.default_rng()
        rows, takes = self.act(positions, rng)
        return check_moves(self.name, self.rules, positions, rows, takes)

    def act(self, positions: np.ndarray, rng: np.random.Generator) -> Moves:
        raise NotImplementedError

    def coded(self, space: StateSpace) -> CodedPolicy | None:
        """A policy on codes of `space`, built once, or None if this agent has none."""
        if space.board not in self._coded:
            policy = self._build_coded(space)
            if policy is None:
                return None
            self._coded[space.board] = policy
        return self._coded[space.board]

    def _build_coded(self, space: StateSpace) -> CodedPolicy | None:
        if not self.deterministic:
            return None
        if space.size <= EAGER_LIMIT:
            return CodedPolicy.tabulate(self, space)
        return CodedPolicy.lazy(self, space)

    def distribution(self, space: StateSpace) -> MoveDistribution:
        """The probability of each move from every code of `space`, built once.

        Exact evaluation plays from this instead of sampling; an agent that
        cannot state it is refused in one line.
        """
        if space.board not in self._distributions:
            self._distributions[space.board] = self._build_distribution(space)
        dist = self._distributions[space.board]
        if dist is None:
            raise ValueError(
                f"agent {self.name!r} cannot give its move distribution, so it cannot be scored exactly; "
                f"give a number of games for it instead of \"exact\""
            )
        return dist

    def _build_distribution(self, space: StateSpace) -> MoveDistribution | None:
        """Deterministic agents: where they move from every code. Others override or return None."""
        if not self.deterministic:
            return None
        policy = self.coded(space)
        if policy is None or policy.step_table is None:
            policy = CodedPolicy.tabulate(self, space)
        successors = np.arange(space.size, dtype=np.int64) - policy.step_table
        successors.setflags(write=False)
        return MoveDistribution.deterministic(space, successors)
