"""Scoring members on an evaluator: their seeds, their columns, their DEAP fitness.

The only place where evaluation results meet individuals, for every
algorithm: blocking (`score`) or in flight (`submit`, then `collect`).
"""

from __future__ import annotations

from typing import Any

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
        for i, m in enumerate(members):
            fresh = {name: scalar(values[i]) for name, values in result.columns.items()}
            m.columns = self.noise.pool(m.columns, fresh) if m.columns else fresh
            m.eval_seconds = float(result.eval_seconds[i])
            m.worker = str(result.worker[i])
            m.fitness = self.objectives.fitness(m.columns)
