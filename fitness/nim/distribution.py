"""Move distributions on position codes: which move an agent plays, with what probability.

Exact evaluation needs, for every position of a board, the probability of
each move. An agent gives it as a mixture of a few *components*, each with a
weight per position code:

    P(move | c) = sum_i weight_i(c) * component_i(move | c)

A component is either a deterministic successor table (where a tabulated
agent moves from every code) or a named stochastic *kernel* shared by many
agents (`random`: a non-empty row uniformly, then a count uniformly;
`uniform-legal`: every legal (row, take) equally likely). Tables over the
same columns then share their components and differ only in weights, which
is what lets a whole population be evaluated exactly in one pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .space import StateSpace

__all__ = ["Component", "Kernel", "KERNELS", "MoveDistribution", "RANDOM", "UNIFORM_LEGAL", "kernel"]

RANDOM = "random"
UNIFORM_LEGAL = "uniform-legal"
KERNELS = (RANDOM, UNIFORM_LEGAL)


@dataclass(frozen=True)
class Component:
    """One part of a mixture: `weight` (a constant or one per code) times `target`.

    `target` is an int array of successor codes (a deterministic move from
    every code; entry 0, the empty board, is unused) or a kernel name.
    """

    weight: float | np.ndarray
    target: np.ndarray | str


class MoveDistribution:
    """An agent's move distribution on the codes of one `StateSpace`."""

    def __init__(self, space: StateSpace, components: list[Component]) -> None:
        for c in components:
            if isinstance(c.target, str) and c.target not in KERNELS:
                raise ValueError(f"unknown move kernel {c.target!r}; valid: {', '.join(KERNELS)}")
        self.space = space
        self.components = components

    @classmethod
    def deterministic(cls, space: StateSpace, successors: np.ndarray) -> "MoveDistribution":
        return cls(space, [Component(1.0, successors)])

    @classmethod
    def of_kernel(cls, space: StateSpace, name: str) -> "MoveDistribution":
        return cls(space, [Component(1.0, name)])

    def scaled(self, weight: float | np.ndarray) -> "MoveDistribution":
        """Every component's weight multiplied by `weight` (a constant or one per code)."""
        return MoveDistribution(self.space, [Component(c.weight * weight, c.target) for c in self.components])

    @staticmethod
    def mix(space: StateSpace, parts: list["MoveDistribution"]) -> "MoveDistribution":
        """The sum of already weighted distributions (weights must add up to 1 per code)."""
        return MoveDistribution(space, [c for part in parts for c in part.components])

    def weights(self) -> list[np.ndarray]:
        """Each component's weight as one float per code."""
        return [np.broadcast_to(np.asarray(c.weight, dtype=np.float64), (self.space.size,))
                for c in self.components]


@dataclass(frozen=True)
class Kernel:
    """A stochastic move rule over a space, as a sparse matrix in CSR form.

    Row c (a code) lists `succ[start[c]:start[c+1]]` with probabilities
    `prob[...]`; the empty board (code 0) has no row entries.
    """

    start: np.ndarray  # (size + 1,)
    succ: np.ndarray
    prob: np.ndarray

    def expect(self, values: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """E[values[..., successor]] for each code of `codes` (none of them empty).

        `values` is (players, size); the result (players, len(codes)).
        """
        lo, hi = self.start[codes], self.start[codes + 1]
        counts = hi - lo
        flat = np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))
        terms = values[:, self.succ[flat]] * self.prob[flat]
        offsets = np.cumsum(counts) - counts
        return np.add.reduceat(terms, offsets, axis=1)


@lru_cache(maxsize=16)
def kernel(name: str, board: tuple[int, ...], k: int | None) -> Kernel:
    """The kernel called `name` on this board and bound, built once per process."""
    if name not in KERNELS:
        raise ValueError(f"unknown move kernel {name!r}; valid: {', '.join(KERNELS)}")
    space = StateSpace(board)
    positions = space.all_positions()
    max_take = max(board) if k is None else min(k, max(board))
    limit = positions if k is None else np.minimum(positions, k)  # legal takes per row
    takes = np.arange(1, max_take + 1)
    legal = takes[None, None, :] <= limit[:, :, None]  # (codes, rows, takes)
    code, row, take_index = np.nonzero(legal)
    succ = code - takes[take_index] * space.radix[row]
    if name == RANDOM:
        nonempty = (positions > 0).sum(axis=1)
        prob = 1.0 / (nonempty[code] * limit[code, row])
    else:
        prob = 1.0 / limit.sum(axis=1)[code]
    start = np.zeros(space.size + 1, dtype=np.int64)
    np.add.at(start, code + 1, 1)
    np.cumsum(start, out=start)
    for array in (start, succ, prob):
        array.setflags(write=False)
    return Kernel(start, succ.astype(np.int64), prob)
