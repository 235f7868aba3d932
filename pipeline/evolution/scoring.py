"""Scoring members on an evaluator: their seeds, their columns, their DEAP fitness.

The only place where evaluation results meet individuals, for every
algorithm: blocking (`score`) or in flight (`submit`, then `collect`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..evaluation import Evaluated, Evaluator
from .members import Member, Objectives, scalar
from .noise import NoiseControl

__all__ = ["Scorer"]


class Scorer:
    def __init__(self, evaluator: Evaluator, noise: NoiseControl, objectives: Objectives) -> None:
        self.evaluator = evaluator
        self.noise = noise
        self.objectives = objectives

    def score(self, generation: int, members: list[Member], island: int | None = None) -> int:
        """Score `members` (a generation's batch, of one island for island runs); returns the
        worker failures recovered."""
        seeds = self.noise.seeds(generation, len(members), island)
        result = self.evaluator.evaluate([m.genome for m in members], seeds)
        self.apply(members, result)
        return int(result.failures)

    def submit(self, members: list[Member], seeds: list[int], chunk_size: int | None = None) -> Any:
        """Start scoring `members` with the given seeds; `apply` applies the result."""
        return self.evaluator.submit([m.genome for m in members], seeds, chunk_size=chunk_size)

    def apply(self, members: list[Member], result: Evaluated) -> None:
        """Each member's columns (sampled counts pooled with earlier ones), timing, worker, fitness."""
        columns = {name: _python_values(values) for name, values in result.columns.items()}
        seconds, workers = _python_values(result.eval_seconds), _python_values(result.worker)
        for i, m in enumerate(members):
            fresh = {name: values[i] for name, values in columns.items()}
            m.columns = self.noise.pool(m.columns, fresh) if m.columns else fresh
            m.eval_seconds = float(seconds[i])
            m.worker = str(workers[i])
            m.fitness = self.objectives.fitness(m.columns)


def _python_values(values: Any) -> list[Any]:
    """A column as Python values, each what `scalar` makes of it: one `tolist` instead of an
    indexing and an `item` per member (2.6 -> 0.8 us a member)."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values.tolist()
    return [scalar(v) for v in values]
