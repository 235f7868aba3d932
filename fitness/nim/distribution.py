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
    """A stochastic move rule over a space, as weights on windowed row sums.

    Every kernel here spreads its probability evenly over the takes of a row:
    from code c it moves in row r with probability `coef[r, c] * m` where
    m = `limit[r, c]` is how many takes row r allows, each take equally likely.
    So E[V(successor)] = sum_r coef[r, c] * W_r(c), with W_r(c) the sum of V
    over the m codes below c along row r — a difference of prefix sums, O(rows)
    per position instead of O(moves).
    """

    coef: np.ndarray  # (rows, size)
    limit: np.ndarray  # (rows, size): legal takes per row, min(k, digit)
    lowest: np.ndarray  # (rows, size): the code `limit` steps below along the row (its window's start)

    def expect_all(self, values: np.ndarray, space: StateSpace) -> np.ndarray:
        """E[values(successor)] at every code, for values known everywhere: (n, size) -> (n, size)."""
        n = values.shape[0]
        shape = (n, *space.base[::-1])  # row 0 is the fastest-varying digit: the last axis
        total = np.zeros_like(values)
        for r in range(space.n_rows):
            axis = space.n_rows - r
            inclusive = np.cumsum(values.reshape(shape), axis=axis).reshape(n, -1)
            below = inclusive - values  # sum over digits < d of this row
            window = below - below[:, self.lowest[r]]
            total += self.coef[r] * window
        return total


@lru_cache(maxsize=16)
def kernel(name: str, board: tuple[int, ...], k: int | None) -> Kernel:
    """The kernel called `name` on this board and bound, built once per process."""
    if name not in KERNELS:
        raise ValueError(f"unknown move kernel {name!r}; valid: {', '.join(KERNELS)}")
    space = StateSpace(board)
    digits = space.all_positions().T  # (rows, size)
    limit = digits if k is None else np.minimum(digits, k)
    lowest = np.arange(space.size)[None, :] - limit * space.radix[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == RANDOM:  # a non-empty row uniformly, then one of its takes uniformly
            coef = np.where(limit > 0, 1.0 / ((digits > 0).sum(axis=0) * limit), 0.0)
        else:  # every legal (row, take) equally likely
            coef = np.where(limit > 0, 1.0 / limit.sum(axis=0), 0.0)
    for array in (coef, limit, lowest):
        array.setflags(write=False)
    return Kernel(coef, limit, lowest)
