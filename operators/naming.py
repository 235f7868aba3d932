"""Operators chosen by name, with their options bound from a spec's params.

Shared by every genome kind's toolbox and by the pipeline, so an unknown
operator or option is refused the same way everywhere.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Mapping

from deap import base, creator

__all__ = ["bind", "check_params", "deap_classes", "options", "pick"]


def options(fn: Callable[..., Any]) -> set[str]:
    """The tunable keyword parameters of an operator (those with defaults)."""
    return {p.name for p in inspect.signature(fn).parameters.values() if p.default is not inspect.Parameter.empty}


def pick(table: Mapping[str, Callable[..., Any]], name: str | None, default: str, role: str,
         kind: str) -> Callable[..., Any]:
    """The operator called `name` (or the default), or a ValueError listing the valid names."""
    name = default if name is None else name
    if name not in table:
        raise ValueError(f"unknown {role} {name!r} for {kind} genomes; valid: {', '.join(table)}")
    return table[name]


def bind(fn: Callable[..., Any], params: Mapping[str, Any], **fixed: Any) -> Callable[..., Any]:
    """`fn` with its fixed arguments and those options in `params` that it takes."""
    return functools.partial(fn, **fixed, **{k: v for k, v in params.items() if k in options(fn)})


def check_params(params: Mapping[str, Any] | None, *operators: Callable[..., Any]) -> dict[str, Any]:
    """The params as a dict, or a ValueError naming any that none of the operators takes."""
    params = dict(params or {})
    allowed = set().union(*(options(fn) for fn in operators))
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(f"unknown operator params {unknown}; these operators take: {sorted(allowed) or 'none'}")
    return params


def deap_classes(prefix: str, container: type, weights: tuple[float, ...]) -> tuple[type, type]:
    """DEAP's (fitness, individual) classes for a genome container and fitness weights,
    created once per process under names that encode the weights."""
    tag = "_".join(f"{w:g}" for w in weights).replace("-", "m").replace(".", "d")
    fitness, individual = f"{prefix}Fitness_{tag}", f"{prefix}Individual_{tag}"
    if not hasattr(creator, fitness):
        creator.create(fitness, base.Fitness, weights=tuple(weights))
    if not hasattr(creator, individual):
        creator.create(individual, container, fitness=getattr(creator, fitness))
    return getattr(creator, fitness), getattr(creator, individual)
