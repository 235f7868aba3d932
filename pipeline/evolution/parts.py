"""A run's evolution parts built from its spec: task, genome kind, objectives, sampling policy,
algorithm. The driver builds them once; each island runner builds its own from the same spec."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from operators.kind import GenomeKind

from .algorithms import Algorithm, Context, make_algorithm
from .members import Objectives
from .noise import NoiseControl

if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["Parts", "build_parts"]


@dataclass
class Parts:
    task: Any
    kind: GenomeKind
    objectives: Objectives
    noise: NoiseControl
    algorithm: Algorithm


def build_parts(spec: RunSpec) -> Parts:
    """Everything but the evaluator (the task is built here, where the kind needs it)."""
    from fitness.tasks import build_task

    from ..kinds import make_kind

    task = build_task(spec.task_spec())
    kind = make_kind(spec, task)
    objectives = Objectives(spec, tuple(task.objectives), tuple(task.weights), getattr(task, "primary", None),
                            getattr(task, "default_weights", None), getattr(task, "bounds", None))
    noise = NoiseControl(spec, getattr(task, "sampled", {}), getattr(task, "uses_seeds", True))
    algorithm = make_algorithm(Context(spec, kind, objectives, noise.reevaluate, task))
    return Parts(task, kind, objectives, noise, algorithm)
