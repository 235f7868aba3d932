"""Pareto runs' hypervolume over members: its reference point and its value.

A population's hypervolume is measured against one reference point fixed for
the whole run, so generations compare. Per objective it lies a tenth of the
objective's range beyond its worst value: the range the task declares
(`task.bounds`, name -> (worst, best): Nim's rates are (0, 1), so -0.1), else
the range of generation 0's population (1 where that is a single value, DEAP's
default margin). The margin keeps a point on the worst bound counting: with
every rules agent losing to the expert, a reference at 0 would give 0 always.
Points are DEAP's `-wvalues` (every objective minimised), as
`deap.benchmarks.tools.hypervolume` takes them.
"""

from __future__ import annotations

from operators.hypervolume import hypervolume

from .members import Member, Objectives

__all__ = ["MARGIN", "population_hypervolume", "reference_point"]

MARGIN = 0.1  # of an objective's range, beyond its worst value


def reference_point(objectives: Objectives, population: list[Member]) -> dict[str, float]:
    """The run's reference point, by objective name, in the objectives' own units."""
    point = {}
    for name in objectives.order:
        sign = objectives.directions[name]
        if name in objectives.bounds:
            worst, best = (float(v) for v in objectives.bounds[name])
        else:
            values = [float(m.columns[name]) for m in population]
            worst, best = (min(values), max(values)) if sign > 0 else (max(values), min(values))
        span = abs(best - worst) or 1.0
        point[name] = worst - sign * MARGIN * span
    return point


def population_hypervolume(objectives: Objectives, population: list[Member], reference: dict[str, float]) -> float:
    """The hypervolume `population` (viable members) dominates, bounded by `reference`."""
    bound = [-objectives.directions[name] * reference[name] for name in objectives.order]
    return hypervolume([[-w for w in m.fitness.wvalues] for m in population], bound)

