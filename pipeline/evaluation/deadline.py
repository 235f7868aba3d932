"""`execution.eval_timeout` in this process: a SIGALRM timer around a task's `evaluate` call.

A hung evaluation in-process cannot be killed the way an actor is, but a signal handler runs
between two bytecodes of the main thread (a `time.sleep` is interrupted too), so the call
raises `EvaluationTimeout` and `core.narrowed` scores the chunk's genomes one by one, each
with its own budget, so only the hanging ones fail. Ray actors are timed from the driver
instead (`ray_pool`), which kills and replaces a hung actor.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["EvaluationTimeout", "alarm", "timed"]


class EvaluationTimeout(Exception):
    """A call of a task's `evaluate` ran past its budget: `eval_timeout` seconds a genome."""


def timeout_line(seconds: float) -> str:
    """The error a timed-out genome is logged with."""
    return f"timeout after {seconds:g} s"


@contextmanager
def alarm(seconds: float) -> Iterator[None]:
    """Raise `EvaluationTimeout` in the block once `seconds` have passed (main thread only)."""
    _require_main_thread()

    def expire(signum: int, frame: Any) -> None:
        raise EvaluationTimeout(timeout_line(seconds))

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(evaluate: Callable[[list, list], Any], per_genome: float | None) -> Callable[[list, list], Any]:
    """`evaluate` with a budget of `per_genome` seconds per genome of each call (None: unbounded)."""
    if per_genome is None:
        return evaluate
    _require_main_thread()  # here, not in the call: narrowing would log it as every genome's failure

    def call(genomes: list, seeds: list) -> Any:
        with alarm(per_genome * max(len(genomes), 1)):
            return evaluate(genomes, seeds)

    return call


def _require_main_thread() -> None:
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("execution.eval_timeout: in-process evaluation is timed with SIGALRM, which only "
                           "the main thread receives; run it from the main thread, or on Ray workers")
