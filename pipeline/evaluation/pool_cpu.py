"""Asking Ray actors for their CPU, and a run's CPU per evaluation by process where its
evaluations run on a pool of Ray actors (not islands: their runners ask theirs, `islands/on_ray.py`).

The measure and what it shows: `cpu.py`. A run measures itself only where its
actors are up from the loop's start (a cluster's, or `--no-handover`): one that
evaluates in-process first and hands over to Ray mid-run spends the driver's CPU
on evaluations, and would blame the driver for them.
"""

from __future__ import annotations

import time
from typing import Any

import ray
from ray.exceptions import RayError

from .cpu import CpuLedger, cpu_summary

__all__ = ["ANSWER_SECONDS", "PoolCpu", "cpu_answers"]

ANSWER_SECONDS = 2.0  # how long a reading waits for the processes asked (a busy actor answers after its chunks)


def cpu_answers(asked: dict[Any, str], ledger: CpuLedger, timeout: float = ANSWER_SECONDS) -> None:
    """Counts in `ledger` the answers (`cpu.remote()` ref -> label) that come within `timeout`;
    a process lost meanwhile, or too slow, keeps what it had."""
    if not asked:
        return
    answered, _ = ray.wait(list(asked), num_returns=len(asked), timeout=timeout)
    for ref in answered:
        try:
            ledger.count(asked[ref], ray.get(ref))
        except RayError:
            continue


class PoolCpu:
    """The driver's, the log writer's and each actor's CPU over one session's loop."""

    def __init__(self, ask: Any) -> None:
        """`ask`: the pool's `ask_cpu` (each actor's answer comes once its setup is done and
        before its first chunk: nothing waits for it here)."""
        self._ask, self._ledger = ask, CpuLedger()
        self._first = ask()
        self._driver = time.process_time()

    def summary(self, evaluations: int, writer: float | None) -> dict[str, Any] | None:
        """`cpu.cpu_summary` of the loop so far: `evaluations` made in it, `writer` the log
        writer process's CPU seconds (None: a thread of the driver). An actor that answered
        once (started meanwhile, or still busy with chunks sent before the stop) is left out."""
        driver = time.process_time() - self._driver
        cpu_answers(self._first, self._ledger)
        cpu_answers(self._ask(), self._ledger)
        ledger = self._ledger
        spent = {label: seconds for label, seconds in ledger.spent.items() if ledger.answers[label] > 1}
        return cpu_summary(spent, driver, evaluations, writer)
