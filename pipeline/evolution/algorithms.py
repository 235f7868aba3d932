"""The algorithm interface (ask/tell) and the registry of algorithms by name.

An algorithm is DEAP's `eaGenerateUpdate` shape over an explicit state:
`ask(state, rng)` gives the individuals to score next, `tell(state, scored)`
returns the new state. Scoring, bookkeeping and logging are the loop's, so an
algorithm is only what makes it different. A new one is one module plus
`register`; a user's is named in the spec (`population.algorithm =
"module:Name"`, or an `evo.algorithms` entry point) and built as
`Name(context)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

import numpy as np

from fitness.plugins import PluginError, resolve
from operators.kind import GenomeKind

from .members import Member, Objectives
from .state import State

if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["Algorithm", "AsynchronousAlgorithm", "Context", "make_algorithm", "register"]


class Algorithm(Protocol):
    def ask(self, state: State, rng: np.random.Generator) -> list[Member]:
        """The individuals to score next (`state.generation == -1`: the first population)."""

    def tell(self, state: State, scored: list[Member]) -> State:
        """The state after `scored` (as `ask` gave them, now with scores and fitness)."""


class AsynchronousAlgorithm(Protocol):
    """An algorithm with `asynchronous = True` runs in `AsyncLoop`: no generation barrier.

    Besides `tell` (members as they arrive, a generation's share at a time) it provides
    `ask(state, rng, count)`: `count` members for one batch; `bred(state, members)`: the state
    once they are on their way (ids, births). Optional, for islands (`SteadyState`): `islands`,
    how many populations a generation's arrivals span (1 if absent), and `migrate(state)`: the
    state after the migration that follows `state.generation`, and the migrants placed."""

    asynchronous: bool

    def ask(self, state: State, rng: np.random.Generator, count: int = 1) -> list[Member]: ...

    def bred(self, state: State, members: list[Member]) -> State: ...

    def tell(self, state: State, scored: list[Member]) -> State: ...


@dataclass(frozen=True)
class Context:
    """What an algorithm is built from."""

    spec: RunSpec  # population sizes, operator rates, the algorithm's own options
    kind: GenomeKind
    objectives: Objectives
    reevaluate: bool  # sampled fitness: survivors are scored again each generation
    task: Any = None  # the task the run scores with (its descriptors, for map-elites)


_REGISTRY: dict[str, Callable[[Context], Algorithm]] = {}


def register(*names: str) -> Callable[[Callable[[Context], Algorithm]], Callable[[Context], Algorithm]]:
    """Class decorator: the algorithm answers to `population.algorithm = name`."""
    def decorate(factory: Callable[[Context], Algorithm]) -> Callable[[Context], Algorithm]:
        for name in names:
            _REGISTRY[name] = factory
        return factory
    return decorate


def make_algorithm(context: Context) -> Algorithm:
    """The spec's algorithm: a built-in name or a user's `module:Name`."""
    name = context.spec.population.algorithm
    if name in _REGISTRY:
        return _REGISTRY[name](context)
    factory = resolve(name, "algorithm")
    try:
        algorithm = factory(context)
    except Exception as exc:  # the user's algorithm refused its context
        lines = str(exc).strip().splitlines()
        raise PluginError(f"population.algorithm {name!r}: {type(exc).__name__}: {lines[0] if lines else ''}") \
            from None
    missing = [m for m in ("ask", "tell") if not callable(getattr(algorithm, m, None))]
    if missing:
        raise PluginError(f"population.algorithm {name!r}: no {', '.join(missing)} method "
                          "(an algorithm provides ask(state, rng) and tell(state, scored))")
    return algorithm


def new_members(kind_children: list[Any], parents: list[Member], generation: int, next_id: int) -> list[Member]:
    """`operators.variation.Child`ren as members with ids from `next_id` and their parents' ids."""
    return [Member(next_id + i, generation, c.genome, [parents[j].id for j in c.parents], c.origin, {})
            for i, c in enumerate(kind_children)]
