"""Operators chosen by name, with their options bound from a spec's params.

Used by the pipeline for every built-in kind, so an unknown operator or option
is refused the same way everywhere.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Mapping

__all__ = ["bind", "options", "pick"]


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
