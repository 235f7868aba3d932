"""The in-process back end: no Ray, for tests, debugging and tiny runs."""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from fitness.tasks import build_task

from .core import Evaluated, EvaluationError, Evaluator, checked_columns, one_line


class LocalEvaluator(Evaluator):
    """Scores each batch with one call of a task built once in this process."""

    workers = 0

    def __init__(self, task_spec: dict) -> None:
        self.task = build_task(task_spec)

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> Evaluated:
        if len(genomes) != len(seeds):
            raise ValueError(f"{len(genomes)} genomes but {len(seeds)} seeds")
        n = len(genomes)
        where = f"genomes 0-{n - 1} (local)"
        start = time.perf_counter()
        try:
            columns = self.task.evaluate(list(genomes), list(seeds))
        except Exception as error:
            raise EvaluationError(f"{where}: {one_line(error)}") from error
        seconds = time.perf_counter() - start
        return Evaluated(
            columns=checked_columns(columns, n, where),
            eval_seconds=np.full(n, seconds / max(n, 1)),
            worker=["local"] * n,
            failures=0,
        )

    def close(self) -> None:
        """Nothing to release: the task lives in this process."""
