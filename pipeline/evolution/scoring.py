"""Scoring members on an evaluator: their seeds, their columns, their DEAP fitness.

The only place where evaluation results meet individuals, for every
algorithm: blocking (`score`) or in flight (`submit`, then `collect`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from operators.variation import finish_all

from ..evaluation import ERROR, Evaluated, EvaluationError, Evaluator
from .members import Member, Objectives, scalar
from .noise import NoiseControl

__all__ = ["Scorer"]


class Scorer:
    """`on_error`: "skip" (a failed evaluation makes its member not viable, the run goes on) or
    "fail" (the first one ends the run with `EvaluationError`)."""

    def __init__(self, evaluator: Evaluator, noise: NoiseControl, objectives: Objectives,
                 on_error: str = "skip") -> None:
        self.evaluator = evaluator
        self.noise = noise
        self.objectives = objectives
        self.on_error = on_error

    def score(self, generation: int, members: list[Member], island: int | None = None) -> int:
        """Score `members` (a generation's batch, of one island for island runs); returns the
        worker failures recovered."""
        seeds = self.noise.seeds(generation, len(members), island)
        result = self.evaluator.evaluate(self.genomes(members), seeds)
        self.apply(members, result)
        return int(result.failures)

    def start(self, generation: int, members: list[Member], island: int | None = None) -> int:
        """Start scoring a generation's batch, as `score` would; `finish` waits and applies it.
        Meanwhile the caller does work that needs no result (an island runner: the last
        generation's log rows), so its evaluation actors are not idle while it does."""
        return self.evaluator.submit(self.genomes(members), self.noise.seeds(generation, len(members), island))

    def finish(self, ticket: int, members: list[Member]) -> int:
        """`start`'s batch applied to `members`; returns the worker failures recovered."""
        result = self.evaluator.wait([ticket], every=True)[ticket]
        self.apply(members, result)
        return int(result.failures)

    def submit(self, members: list[Member], seeds: list[int], chunk_size: int | None = None) -> Any:
        """Start scoring `members` with the given seeds; `apply` applies the result."""
        return self.evaluator.submit(self.genomes(members), seeds, chunk_size=chunk_size)

    def genomes(self, members: list[Member]) -> list[Any]:
        """The members' genomes, those bred unfinished (`Unfinished`: set cover's repair) finished
        first, and kept by their members: on the evaluator's workers where it has a `map_pure`
        (the process pool, `ClockedEvaluator` passing it on), else here."""
        genomes = [m.genome for m in members]
        finished = finish_all(genomes, getattr(self.evaluator, "map_pure", None))
        if finished is not genomes:
            for m, genome in zip(members, finished):
                m.genome = genome
        return finished

    def apply(self, members: list[Member], result: Evaluated) -> None:
        """Each member's columns (sampled counts pooled with earlier ones), timing, worker, fitness;
        and its error if its evaluation failed (raised, or values `Objectives.failure` refuses):
        a member whose evaluate raised has None for every column."""
        columns = {name: _python_values(values) for name, values in result.columns.items()}
        raised = columns.pop(ERROR, None) or [None] * len(members)
        suspect = self._non_finite(result.columns, len(members))
        seconds, workers = _python_values(result.eval_seconds), _python_values(result.worker)
        for i, m in enumerate(members):
            if raised[i] is not None:
                m.columns, m.error = dict.fromkeys(columns), raised[i]
            else:
                fresh = {name: values[i] for name, values in columns.items()}
                m.columns = self.noise.pool(m.columns, fresh) if m.columns and m.error is None else fresh
                m.error = self.objectives.failure(m.columns) if suspect[i] else None
            m.eval_seconds = float(seconds[i])
            m.worker = str(workers[i])
            m.fitness = self.objectives.fitness(m.columns, m.error)
            if m.error is not None and self.on_error == "fail":
                raise EvaluationError(f"individual {m.id} (born in generation {m.born}): {m.error} "
                                      '(execution.on_error = "fail"; "skip" goes on without it)')


    def _non_finite(self, columns: dict[str, Any], n: int) -> list[bool]:
        """Per member, whether an objective is not finite: only those are classified one by one
        (`Objectives.failure`), so a batch without failures costs one vectorised check."""
        suspect = np.zeros(n, dtype=bool)
        for name in self.objectives.names:
            values = columns.get(name)
            try:
                suspect |= ~np.isfinite(np.asarray(values, dtype=np.float64))
            except (TypeError, ValueError):  # not plain numbers (None, objects): classify each member
                return [True] * n
        return suspect.tolist()


def _python_values(values: Any) -> list[Any]:
    """A column as Python values, each what `scalar` makes of it: one `tolist` instead of an
    indexing and an `item` per member (2.6 -> 0.8 us a member)."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values.tolist()
    return [scalar(v) for v in values]
