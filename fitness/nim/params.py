"""Typed parameter specs for parameterised agents (rule genomes).

A spec says, for every parameter, which values are allowed: an integer
range, a float range on a step grid, or a fixed set of choices. Agents
publish one so that genome kinds can sample, repair and vary parameter
dictionaries without knowing the agent, and so that a run can log the spec
as plain data next to the genomes it produced.

Parameters may share a `group` (the seed 000 rule dictionary pairs two
integers per rule); operators that act on whole rules use the groups.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["IntParam", "FloatParam", "ChoiceParam", "Param", "ParamSpec", "param_from_dict"]

# Decimals kept on float grids, so that 0.1 + 0.2 snaps to the grid value 0.3.
_GRID_DECIMALS = 10


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class IntParam:
    """An integer in `low..high` (both included)."""

    name: str
    low: int
    high: int
    group: str = ""

    def __post_init__(self) -> None:
        if int(self.low) > int(self.high):
            raise ValueError(f"parameter {self.name!r}: low {self.low} > high {self.high}")
        object.__setattr__(self, "low", int(self.low))
        object.__setattr__(self, "high", int(self.high))
        object.__setattr__(self, "group", self.group or self.name)

    def allowed(self) -> str:
        return f"an integer in {self.low}..{self.high}"

    def contains(self, value: Any) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool) and self.low <= value <= self.high

    def snap(self, value: float) -> int:
        """The allowed value nearest to `value` (clamped, rounded)."""
        if not _is_real(value) or math.isnan(value):
            raise ValueError(f"parameter {self.name!r} must be {self.allowed()}, got {value!r}")
        return int(min(max(round(value), self.low), self.high))

    def sample(self, rng: np.random.Generator) -> int:
        return int(rng.integers(self.low, self.high + 1))

    def nudge(self, value: int, steps: int) -> int:
        """`value` moved `steps` units (seed 004's ±1), kept in range."""
        return self.snap(value + steps)

    def to_dict(self) -> dict:
        return {"type": "int", "name": self.name, "low": self.low, "high": self.high, "group": self.group}


@dataclass(frozen=True)
class FloatParam:
    """A float in `low..high` on the grid `low + i * step`."""

    name: str
    low: float
    high: float
    step: float
    group: str = ""
    grid: tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        low, high, step = float(self.low), float(self.high), float(self.step)
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            raise ValueError(f"parameter {self.name!r}: need finite low <= high, got {self.low}, {self.high}")
        if not (math.isfinite(step) and step > 0):
            raise ValueError(f"parameter {self.name!r}: step must be > 0, got {self.step}")
        n = round((high - low) / step)
        if abs(low + n * step - high) > 1e-9 * max(1.0, abs(high)):
            raise ValueError(f"parameter {self.name!r}: {high} is not on the grid {low} + i * {step}")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "step", step)
        object.__setattr__(self, "group", self.group or self.name)
        object.__setattr__(self, "grid", tuple(round(low + i * step, _GRID_DECIMALS) for i in range(n + 1)))

    def allowed(self) -> str:
        return f"a number in {self.low}..{self.high} in steps of {self.step}"

    def _index(self, value: float) -> int:
        return min(max(round((value - self.low) / self.step), 0), len(self.grid) - 1)

    def contains(self, value: Any) -> bool:
        return _is_real(value) and not math.isnan(value) and self.grid[self._index(value)] == value

    def snap(self, value: float) -> float:
        """The grid value nearest to `value` (clamped to the range first)."""
        if not _is_real(value) or math.isnan(value):
            raise ValueError(f"parameter {self.name!r} must be {self.allowed()}, got {value!r}")
        return self.grid[self._index(float(value))]

    def sample(self, rng: np.random.Generator) -> float:
        return self.grid[int(rng.integers(len(self.grid)))]

    def nudge(self, value: float, steps: int) -> float:
        """`value` moved `steps` grid steps (seed 004's ±0.1), kept in range."""
        return self.grid[min(max(self._index(value) + steps, 0), len(self.grid) - 1)]

    def to_dict(self) -> dict:
        return {
            "type": "float", "name": self.name, "low": self.low, "high": self.high,
            "step": self.step, "group": self.group,
        }


@dataclass(frozen=True)
class ChoiceParam:
    """One of a fixed, ordered set of plain values (ints, floats, strings)."""

    name: str
    choices: tuple
    group: str = ""

    def __post_init__(self) -> None:
        choices = tuple(self.choices)
        if not choices:
            raise ValueError(f"parameter {self.name!r}: choices must not be empty")
        if len(set(choices)) != len(choices):
            raise ValueError(f"parameter {self.name!r}: choices repeat: {choices}")
        object.__setattr__(self, "choices", choices)
        object.__setattr__(self, "group", self.group or self.name)

    def allowed(self) -> str:
        return f"one of {list(self.choices)}"

    def contains(self, value: Any) -> bool:
        return not isinstance(value, bool) and value in self.choices

    def snap(self, value: Any) -> Any:
        """The choice equal to `value`; for numeric choices, the nearest one."""
        if self.contains(value):
            return self.choices[self.choices.index(value)]
        numeric = [c for c in self.choices if _is_real(c)]
        if _is_real(value) and not math.isnan(value) and len(numeric) == len(self.choices):
            return min(self.choices, key=lambda c: abs(c - value))
        raise ValueError(f"parameter {self.name!r} must be {self.allowed()}, got {value!r}")

    def sample(self, rng: np.random.Generator) -> Any:
        return self.choices[int(rng.integers(len(self.choices)))]

    def nudge(self, value: Any, steps: int) -> Any:
        """The choice `steps` places along the list (ends are sticky)."""
        i = self.choices.index(self.snap(value))
        return self.choices[min(max(i + steps, 0), len(self.choices) - 1)]

    def to_dict(self) -> dict:
        return {"type": "choice", "name": self.name, "choices": list(self.choices), "group": self.group}


Param = IntParam | FloatParam | ChoiceParam


def param_from_dict(data: Mapping[str, Any]) -> Param:
    """Inverse of `Param.to_dict`."""
    kind = data.get("type")
    fields = {key: value for key, value in data.items() if key != "type"}
    if kind == "int":
        return IntParam(**fields)
    if kind == "float":
        return FloatParam(**fields)
    if kind == "choice":
        return ChoiceParam(**{**fields, "choices": tuple(fields["choices"])})
    raise ValueError(f"unknown parameter type {kind!r}; valid types: int, float, choice")


class ParamSpec:
    """An ordered set of parameters: what a rule genome may hold."""

    def __init__(self, params: Sequence[Param]) -> None:
        self.params: tuple[Param, ...] = tuple(params)
        self._by_name = {p.name: p for p in self.params}
        if len(self._by_name) != len(self.params):
            raise ValueError(f"parameter names repeat: {[p.name for p in self.params]}")
        groups: dict[str, list[str]] = {}
        for p in self.params:
            groups.setdefault(p.group, []).append(p.name)
        self.groups: dict[str, tuple[str, ...]] = {g: tuple(names) for g, names in groups.items()}

    def __iter__(self) -> Iterator[Param]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def __getitem__(self, name: str) -> Param:
        return self._by_name[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParamSpec) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"ParamSpec({', '.join(p.name for p in self.params)})"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        """Every parameter drawn uniformly from its allowed values."""
        return {p.name: p.sample(rng) for p in self.params}

    def snap(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every value moved to its nearest allowed value (names must match the spec)."""
        self._check_names(values)
        return {p.name: p.snap(values[p.name]) for p in self.params}

    def validate(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """`values` in spec order, or a ValueError naming the first bad parameter."""
        self._check_names(values)
        for p in self.params:
            if not p.contains(values[p.name]):
                raise ValueError(f"parameter {p.name!r} must be {p.allowed()}, got {values[p.name]!r}")
        return {p.name: p.snap(values[p.name]) for p in self.params}

    def _check_names(self, values: Mapping[str, Any]) -> None:
        if not isinstance(values, Mapping):
            raise ValueError(f"parameters must be a dict {{name: value}}, got {values!r}")
        unknown = [name for name in values if name not in self._by_name]
        missing = [name for name in self._by_name if name not in values]
        if unknown or missing:
            raise ValueError(
                f"parameters must be exactly {list(self._by_name)}; "
                f"unknown: {unknown or 'none'}, missing: {missing or 'none'}"
            )

    def to_dict(self) -> dict:
        return {"params": [p.to_dict() for p in self.params]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ParamSpec":
        return cls([param_from_dict(p) for p in data["params"]])
