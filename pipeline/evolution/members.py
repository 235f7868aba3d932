"""An evaluated individual, and how a task's objective columns become its DEAP fitness."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np
from deap import base, creator


if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["Member", "Objectives", "jsonable", "scalar", "sequential_sum", "viable"]


@dataclass
class Member:
    """One individual: plain data, its scores, and a DEAP fitness for selection."""

    id: int
    born: int  # the generation that made it (a re-scored survivor keeps it)
    genome: Any
    parents: list[int]
    origin: str
    columns: dict[str, Any]
    eval_seconds: float = 0.0
    worker: str = ""
    fitness: Any = None
    selected: bool = False  # alive after the generation it was (last) scored in
    island: int = 0
    order: int | None = None  # arrival order, for asynchronous algorithms
    error: str | None = None  # why its evaluation failed (`Objectives.failure`, or what evaluate raised)

    @property
    def viable(self) -> bool:
        """Scored: never a parent, survivor or hall-of-fame entry while viable members exist otherwise."""
        return self.error is None


def viable(members: list[Member]) -> list[Member]:
    """The members whose evaluation did not fail."""
    return [m for m in members if m.error is None]


class Objectives:
    """How a task's objective columns become a DEAP fitness, and the progress metric."""

    def __init__(self, spec: RunSpec, names: tuple[str, ...], directions: tuple[float, ...], primary: str | None,
                 default_weights: dict[str, float] | None = None,
                 bounds: dict[str, tuple[float, float]] | None = None):
        self.mode = spec.objectives.mode
        self.bounds = dict(bounds or {})  # name -> (worst, best) possible value, where the task knows them
        self.names = names
        self.directions = dict(zip(names, directions))
        given = spec.objectives.weights
        if self.mode == "weighted":
            defaults = default_weights or {n: d / len(names) for n, d in self.directions.items()}
            self.weights = {n: (given or defaults).get(n, 0.0) for n in names}
            self.order = names
            deap_weights: tuple[float, ...] = (1.0,)
            self.primary = "fitness"
        else:
            self.order = tuple(given) if given else names
            deap_weights = tuple(self.directions[n] for n in self.order)
            self.primary = primary if primary in names else self.order[0]
        self.maximise_primary = self.primary == "fitness" or self.directions[self.primary] > 0
        class_name = "Fitness_" + "_".join(f"{w:+g}".replace("+", "p").replace("-", "m").replace(".", "d")
                                           for w in deap_weights)
        if not hasattr(creator, class_name):
            creator.create(class_name, base.Fitness, weights=deap_weights)
        self.fitness_class = getattr(creator, class_name)
        # one weighted objective (most runs): `fitness` without the general path's generator
        self._single = next(iter(self.weights.items())) if self.mode == "weighted" and len(names) == 1 else None

    def values(self, columns: dict[str, Any]) -> tuple[float, ...]:
        if self.mode == "weighted":
            return (sequential_sum(w * float(columns[n]) for n, w in self.weights.items()),)
        return tuple(float(columns[n]) for n in self.order)

    def fitness(self, columns: dict[str, Any], error: str | None = None) -> Any:
        """The DEAP fitness of these objective columns: what `fitness_class(values)` makes, its
        weighted values set directly (DEAP's creator and checks cost a steady-state driver on many
        workers ~2 us an arrival). A failed evaluation (`error`) gets DEAP's invalid fitness (no
        values), which `selection.best_first` ranks after every valid one."""
        fit = object.__new__(self.fitness_class)
        if error is not None:
            fit.wvalues = ()
        elif self._single is not None:  # `values` and DEAP's weight 1.0, the same roundings (~0.7 us less)
            name, weight = self._single
            fit.wvalues = ((0.0 + weight * float(columns[name])) * 1.0,)
        else:
            fit.wvalues = tuple(map(operator.mul, self.values(columns), self.fitness_class.weights))
        return fit

    def failure(self, columns: dict[str, Any]) -> str | None:
        """Why these objective values are a failed evaluation, in one line (None: viable): NaN, or
        infinite in the objective's improving direction (infinite the other way is a legal worst)."""
        values = [float(columns[name]) for name in self.names]
        if all(map(math.isfinite, values)):
            return None
        for name, value in zip(self.names, values):
            if math.isnan(value):
                return f"{name} is NaN"
            if math.isinf(value) and (value > 0) == (self.directions[name] > 0):
                return f"{name} is {value}, infinite in its improving direction"
        if self.mode == "weighted" and math.isnan(self.values(columns)[0]):
            return "the weighted fitness is NaN (infinite objectives of opposite weights)"
        return None

    def primary_value(self, member: Member) -> float:
        if self.primary == "fitness":
            return member.fitness.values[0]
        return float(member.columns[self.primary])

    def better(self, a: float, b: float) -> bool:
        return a > b if self.maximise_primary else a < b

    def best_of(self, population: list[Member]) -> float:
        """The population's best value of the primary objective (what stagnation follows), among
        its viable members (all of them if none is)."""
        population = viable(population) or population
        if self.mode == "pareto":  # no single best: follow the primary objective
            values = [self.primary_value(m) for m in population]
            return max(values) if self.maximise_primary else min(values)
        # DEAP orders fitnesses by their weighted values: compared as tuples, in C (a viable member's
        # hold no NaN, where `Fitness.__gt__` and tuples' `>` would differ)
        return self.primary_value(max(population, key=lambda m: m.fitness.wvalues))


def sequential_sum(values: Iterable[float]) -> float:
    """Left to right, one rounding an addition: what `sum` of floats gave up to Python 3.11.
    Python 3.12's `sum` compensates, so a weighted fitness summed with it differs in the last
    bits between Python versions, and with it a trajectory (a tie broken the other way)."""
    total = 0.0
    for value in values:
        total += value
    return total


def scalar(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


def jsonable(value: Any) -> Any:
    value = scalar(value)
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value
