"""Continuous test functions as evo problems (`problem = "fitness.continuous:Rosenbrock"`).

They score 1-D float arrays (the `operators.vector:FloatVector` kind, or any
kind whose genomes are such arrays) and are what CMA-ES is measured on.
Each value is an exactly rounded sum (`math.fsum`), so a log holds the same
bits on every machine, whichever CPU features numpy dispatches to.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["Rosenbrock"]


class Rosenbrock:
    """f(x) = sum_i 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2, minimised; 0 at x = (1, ..., 1).

    Options: `dimension` (default 10): the length every genome must have."""

    objectives = ("f",)
    weights = (-1.0,)
    uses_seeds = False  # deterministic: evaluations draw nothing

    def __init__(self, options: dict[str, Any]) -> None:
        unknown = set(options) - {"dimension"}
        if unknown:
            raise ValueError(f"unknown option {sorted(unknown)[0]!r}; options: dimension")
        dimension = options.get("dimension", 10)
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 2:
            raise ValueError(f"dimension: must be an integer >= 2 (got {dimension!r})")
        self.dimension = dimension

    def evaluate(self, genomes: Sequence[np.ndarray], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        x = np.asarray(np.stack([np.asarray(g, dtype=np.float64) for g in genomes]), dtype=np.float64)
        if x.shape[1] != self.dimension:
            raise ValueError(f"Rosenbrock of dimension {self.dimension} got genomes of length {x.shape[1]}")
        terms = 100.0 * (x[:, 1:] - x[:, :-1] ** 2) ** 2 + (1.0 - x[:, :-1]) ** 2
        return {"f": np.array([math.fsum(row) for row in terms.tolist()])}
