"""What a run's workers did for it, in seconds: said by the done line (`run_lines`).

`ClockedEvaluator` wraps any evaluator and measures, from the moment the run
began to set up its evaluation: when the first batch came back, when every
worker was ready (as the back end says: `all_ready`), how long the driver
waited for evaluations, and how much evaluation the batches held (the sum of
their `eval_seconds`: what in-process scoring would have taken, about). The
workers saved the difference of the last two.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from .core import Evaluated, Evaluator

__all__ = ["ClockedEvaluator"]


class ClockedEvaluator(Evaluator):
    """`inner`, timed; any other attribute is `inner`'s (`workers`, `handed_over`, ...)."""

    def __init__(self, inner: Evaluator, began: float) -> None:
        self.inner = inner
        self.began = began  # time.monotonic() when the run began to set up its evaluation
        self.first_result: float | None = None  # seconds from `began` to the first batch back
        self.waited = 0.0  # seconds the driver spent in `wait`
        self.evaluation = 0.0  # evaluation seconds of every batch back

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["inner"], name)

    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        started = time.monotonic()
        try:
            return self.inner.submit(genomes, seeds, task_spec, chunk_size)
        finally:
            self.waited += time.monotonic() - started  # in-process scoring happens here

    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        started = time.monotonic()
        try:
            done = self.inner.wait(tickets, every, timeout)
        finally:
            self.waited += time.monotonic() - started
        if done and self.first_result is None:
            self.first_result = time.monotonic() - self.began
        self.evaluation += sum(float(result.eval_seconds.sum()) for result in done.values())
        return done

    def close(self) -> None:
        self.inner.close()

    def seconds(self) -> dict[str, float | None]:
        """The figures for run.json's `worker_seconds` (None: not known, or no workers)."""
        ready = getattr(self.inner, "all_ready", None)
        pool = getattr(self.inner, "pool", None)  # a hand-over to Ray: its pool's, from Ray's start
        if pool is not None:
            ready = getattr(pool, "all_ready", None)
        return {"first_evaluation": _rounded(self.first_result), "workers_ready": _rounded(ready),
                "waited": _rounded(self.waited), "evaluation": _rounded(self.evaluation),
                "saved": _rounded(self.evaluation - self.waited) if self.inner.workers else None,
                "finished_on_workers": getattr(self.inner, "mapped_on_workers", 0)}  # bred children (`map_pure`)


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)
