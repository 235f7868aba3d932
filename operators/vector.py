"""The float-vector genome kind (`[genome] kind = "operators.vector:FloatVector"`): 1-D float
arrays, for continuous problems such as `fitness.continuous:Rosenbrock`.

Its `record_type` is `list<double>`, which is what CMA-ES looks for: it
samples such genomes itself and starts from `init`'s vector. For the
generational algorithms it brings blend crossover and Gaussian mutation.
Options (`[genome.options]`): `dimension` (default: the task's, else 10),
`low`, `high` (init draws each coordinate uniformly in [low, high]; default
-1, 1), `sigma` (Gaussian mutation's standard deviation; default 0.1).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyarrow as pa

from .kind import mean_pairwise_l1

__all__ = ["FloatVector"]

_OPTIONS = ("dimension", "low", "high", "sigma")


class FloatVector:
    """A plug-in genome kind (`Kind(options, task)`) of float64 arrays of one length."""

    record_type = pa.list_(pa.float64())

    def __init__(self, options: dict[str, Any], task: Any = None) -> None:
        unknown = set(options) - set(_OPTIONS)
        if unknown:
            raise ValueError(f"unknown option {sorted(unknown)[0]!r}; options: {', '.join(_OPTIONS)}")
        self.dimension = int(options.get("dimension", getattr(task, "dimension", 10)))
        self.low, self.high = float(options.get("low", -1.0)), float(options.get("high", 1.0))
        self.sigma = float(options.get("sigma", 0.1))
        if self.dimension < 1 or not self.low <= self.high or not self.sigma >= 0:
            raise ValueError("dimension must be >= 1, low <= high and sigma >= 0 "
                             f"(got {self.dimension}, {self.low}, {self.high}, {self.sigma})")

    def init(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        return list(rng.uniform(self.low, self.high, size=(n, self.dimension)))

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Blend (BLX-0.5, DEAP's `cxBlend`): each coordinate from a + u (b - a), u in [-0.5, 1.5)."""
        u = rng.uniform(-0.5, 1.5, size=len(a))
        return a + u * (b - a)

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return genome + self.sigma * rng.standard_normal(len(genome))

    def to_record(self, genome: np.ndarray) -> list[float]:
        return np.asarray(genome, dtype=np.float64).tolist()

    def from_record(self, record: Sequence[float]) -> np.ndarray:
        return np.asarray(record, dtype=np.float64)

    def diversity(self, genomes: list[np.ndarray]) -> float:
        """Mean |a - b| per coordinate over pairs."""
        return mean_pairwise_l1(np.stack(genomes))
