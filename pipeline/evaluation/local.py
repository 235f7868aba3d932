"""The in-process back end: no Ray, for tests, debugging and tiny runs."""

from __future__ import annotations

import itertools
import time
from typing import Any, Sequence

import numpy as np

from fitness.tasks import build_task

from .core import Evaluated, Evaluator, TaskCache, check_batch, narrowed
from .deadline import timed

LOCAL_WORKER = "local"  # the `worker` the log gives genomes scored in-process (actors: "actor-3@IP/NODE")


class LocalEvaluator(Evaluator):
    """Scores each batch with one call of a task built once in this process.

    `submit` scores at once, so results come back in submission order: an
    asynchronous algorithm on workers = 0 is deterministic."""

    workers = 0

    def __init__(self, task_spec: dict, eval_timeout: float | None = None) -> None:
        self.tasks = TaskCache(task_spec, build_task)
        self.eval_timeout = eval_timeout  # seconds a genome (`deadline.py`)
        self._tickets = itertools.count()
        self._done: dict[int, Evaluated] = {}

    @property
    def task(self) -> Any:
        return self.tasks.task

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        ticket = next(self._tickets)
        self._done[ticket] = self._score(genomes, seeds, task_spec)
        return ticket

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        return {t: self._done.pop(t) for t in tickets if t in self._done}

    def _score(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None) -> Evaluated:
        check_batch(genomes, seeds)
        n = len(genomes)
        where = f"genomes 0-{n - 1} (local)"
        start = time.perf_counter()
        columns = narrowed(timed(self.tasks.get(task_spec).evaluate, self.eval_timeout), genomes, seeds, where)
        seconds = time.perf_counter() - start
        return Evaluated(
            columns=columns,
            eval_seconds=np.full(n, seconds / max(n, 1)),
            worker=[LOCAL_WORKER] * n,
            failures=0,
        )

    def close(self) -> None:
        """Nothing to release: the task lives in this process."""
