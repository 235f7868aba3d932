"""Tasks score genomes. Built once from plain data, then asked to score chunks.

A task spec is a plain dict (it travels to Ray actors, which build the task
themselves, once). `build_task(spec)` dispatches on `spec["problem"]`.
A task's `evaluate(genomes, seeds)` returns one array per column, each with
one entry per genome: the objectives (named in `objectives`, DEAP-style
`weights` say +1 maximise / -1 minimise) plus raw counts. All randomness of an
evaluation comes from that genome's seed, never from the worker.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

import numpy as np

__all__ = ["Task", "build_task", "register_task", "problems"]

Columns = dict[str, np.ndarray]


class Task(Protocol):
    objectives: tuple[str, ...]
    weights: tuple[float, ...]

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> Columns: ...


_BUILDERS: dict[str, Callable[[dict], Task]] = {}


def register_task(problem: str, builder: Callable[[dict], Task]) -> None:
    _BUILDERS[problem] = builder


def problems() -> list[str]:
    _load_builtin()
    return sorted(_BUILDERS)


def _load_builtin() -> None:
    # Imported lazily so `fitness.tasks` stays light and free of import cycles.
    from .nim import task as _nim_task  # noqa: F401

    try:
        from .setcover import task as _setcover_task  # noqa: F401
    except ImportError:  # set cover not installed in this tree yet
        pass


def build_task(spec: dict) -> Task:
    """Build the task a spec describes (`spec["problem"]` picks the family)."""
    _load_builtin()
    problem = spec.get("problem")
    if problem not in _BUILDERS:
        raise ValueError(f"unknown problem {problem!r}; valid problems: {', '.join(sorted(_BUILDERS))}")
    return _BUILDERS[problem](spec)
