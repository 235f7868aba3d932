"""Tasks score genomes. Built once from plain data, then asked to score chunks.

A task spec is a plain dict (it travels to Ray actors, which build the task
themselves, once). `build_task(spec)` dispatches on `spec["problem"]`: a
built-in problem ("nim", "setcover") or a user-defined one, `module:Factory` or an installed `evo.problems` entry point,
built as `Factory(spec["options"])`.

A task's `evaluate(genomes, seeds)` returns one array per column, each with
one entry per genome: the objectives (named in `objectives`, DEAP-style
`weights` say +1 maximise / -1 minimise) plus any other columns to log. All
randomness of an evaluation comes from that genome's seed, never from the worker.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, Sequence

import numpy as np

from .plugins import PluginError, resolve

__all__ = ["Task", "build_task", "problems", "check_task"]

Columns = dict[str, np.ndarray]


class Task(Protocol):
    objectives: tuple[str, ...]
    weights: tuple[float, ...]

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> Columns: ...


# Built-in problems by module, imported on first use: this module stays light
# and the task modules need not import it back to register themselves. Other
# problems are named by reference (`module:Factory`), which any Ray worker can
# import too; a per-process registry could not reach the workers.
_BUILTIN = {"nim": "fitness.nim.task:NimTask", "setcover": "fitness.setcover.task:SetCoverTask"}


def problems() -> list[str]:
    return sorted(_BUILTIN)


def build_task(spec: dict) -> Task:
    """Build the task a spec describes (`spec["problem"]` picks the family)."""
    problem = spec.get("problem")
    if problem in _BUILTIN:
        module, name = _BUILTIN[problem].split(":")
        return getattr(importlib.import_module(module), name)(spec)
    if not isinstance(problem, str):
        raise ValueError(f"unknown problem {problem!r}; valid problems: {', '.join(problems())}")
    factory = resolve(problem, "problem")
    try:
        task = factory(dict(spec.get("options") or {}))
    except PluginError:
        raise
    except Exception as exc:  # the user's factory refused its options
        lines = str(exc).strip().splitlines()
        raise PluginError(f"problem {problem!r}: {type(exc).__name__}: {lines[0] if lines else ''}") from None
    return check_task(task, problem)


def check_task(task: Any, problem: str) -> Task:
    """Refuse, in one line, a user-defined task that lacks what the pipeline reads."""
    objectives = getattr(task, "objectives", None)
    weights = getattr(task, "weights", None)
    if not callable(getattr(task, "evaluate", None)):
        raise PluginError(f"problem {problem!r}: the task has no evaluate(genomes, seeds) method")
    if not objectives or not isinstance(objectives, (tuple, list)) or not all(isinstance(o, str) for o in objectives):
        raise PluginError(f"problem {problem!r}: task.objectives must be a non-empty tuple of column names")
    if not isinstance(weights, (tuple, list)) or len(weights) != len(objectives) \
            or any(w not in (1, -1, 1.0, -1.0) for w in weights):
        raise PluginError(f"problem {problem!r}: task.weights must give +1 (maximise) or -1 (minimise) "
                          f"for each of {list(objectives)}")
    return task
