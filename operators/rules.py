"""The `rules` genome kind: the parameters of a hand-written rule agent.

A genome is a plain dict `{parameter: value}` for the agent named in the
genome config (`{"agent": "rule-expert"}` or `{"agent": "rule-dict"}`); the
agent's `ParamSpec` on the run's board says what each value may be. Every
operator here returns new genomes whose values are inside their bounds and
on their step grid, and never modifies its arguments.

Operators, grouped by role, all drawing from an explicit
`numpy.random.Generator`:

* init: `random_genome` (each parameter uniform over its allowed values);
* mutation: `mut_step` (seed 004: one parameter moves one step, ±1 for
  integers, ±0.1 for fractions, clamped), `mut_resample_rule` (seed 000:
  one rule, i.e. one parameter group, drawn afresh);
* crossover: `cx_random_cut` (seed 004: one cut in the parameter order),
  `cx_uniform` (each rule from either parent);
* repair: `repair` (snap to bounds and grid).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from fitness.nim import Rules
from fitness.nim.agents.rule_agents import rule_param_spec
from fitness.nim.params import ParamSpec


__all__ = [
    "CROSSOVERS",
    "MUTATIONS",
    "cx_random_cut",
    "cx_uniform",
    "from_record",
    "mut_resample_rule",
    "mut_step",
    "random_genome",
    "repair",
    "spec_for",
    "to_record",
]

Genome = dict[str, Any]


def spec_for(rules: Rules, config: Mapping[str, Any]) -> ParamSpec:
    """The spec of the agent the genome config names, bounded by this board."""
    return rule_param_spec(config.get("agent", "rule-expert"), rules)


# --- init ------------------------------------------------------------------

def random_genome(spec: ParamSpec, rng: np.random.Generator) -> Genome:
    """A genome with every parameter drawn uniformly from its allowed values."""
    return spec.sample(rng)


# --- mutation --------------------------------------------------------------

def mut_step(genome: Mapping[str, Any], spec: ParamSpec, rng: np.random.Generator) -> Genome:
    """Seed 004: one parameter, picked uniformly, moves one step up or down (clamped)."""
    child = dict(genome)
    param = spec.params[int(rng.integers(len(spec)))]
    child[param.name] = param.nudge(child[param.name], 1 if rng.random() < 0.5 else -1)
    return child


def mut_resample_rule(genome: Mapping[str, Any], spec: ParamSpec, rng: np.random.Generator) -> Genome:
    """Seed 000: one rule (a parameter group), picked uniformly, drawn afresh."""
    child = dict(genome)
    groups = list(spec.groups.values())
    for name in groups[int(rng.integers(len(groups)))]:
        child[name] = spec[name].sample(rng)
    return child


# --- crossover -------------------------------------------------------------

def _from_parents(a: Mapping[str, Any], b: Mapping[str, Any], spec: ParamSpec, from_a: Sequence[bool]):
    """Two children: the first takes group i from `a` where from_a[i], the second the rest."""
    one, two = {}, {}
    for take_a, names in zip(from_a, spec.groups.values()):
        for name in names:
            one[name], two[name] = (a[name], b[name]) if take_a else (b[name], a[name])
    order = spec.names
    return {n: one[n] for n in order}, {n: two[n] for n in order}


def cx_random_cut(
    a: Mapping[str, Any], b: Mapping[str, Any], spec: ParamSpec, rng: np.random.Generator
) -> tuple[Genome, Genome]:
    """Seed 004: cut both parents at one random point between rules, swap the tails."""
    n = len(spec.groups)
    cut = int(rng.integers(1, n)) if n > 1 else n
    return _from_parents(a, b, spec, [i < cut for i in range(n)])


def cx_uniform(
    a: Mapping[str, Any], b: Mapping[str, Any], spec: ParamSpec, rng: np.random.Generator,
    p: float = 0.5,
) -> tuple[Genome, Genome]:
    """Each rule (parameter group) comes from the second parent with probability `p`."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    return _from_parents(a, b, spec, (rng.random(len(spec.groups)) >= p).tolist())


# --- repair ----------------------------------------------------------------

def repair(genome: Mapping[str, Any], spec: ParamSpec) -> Genome:
    """Every value moved to its nearest allowed value."""
    return spec.snap(genome)


# --- record ----------------------------------------------------------------

def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def to_record(genome: Mapping[str, Any]) -> dict[str, Any]:
    """The genome as a plain dict of Python scalars (for Parquet and JSON)."""
    return {str(name): _plain(value) for name, value in genome.items()}


def from_record(record: Mapping[str, Any] | Sequence[tuple[str, Any]]) -> Genome:
    """Inverse of `to_record`: `from_record(to_record(g)) == g` with the same value types.

    Also takes the (key, value) pairs a Parquet map column reads back as.
    """
    items = list(record.items() if isinstance(record, Mapping) else record)
    genome = {}
    for name, value in items:
        value = _plain(value)
        if not isinstance(name, str) or not isinstance(value, (int, float, str)):
            raise ValueError(f"a rules record maps parameter names to numbers or strings, got {name!r}: {value!r}")
        genome[name] = value
    return genome


# --- operators by name (the spec's `operators.mutation` / `operators.crossover`) ---

MUTATIONS: dict[str, Callable[..., Genome]] = {"step": mut_step, "resample-rule": mut_resample_rule}
CROSSOVERS: dict[str, Callable[..., tuple[Genome, Genome]]] = {"random-cut": cx_random_cut, "uniform": cx_uniform}
DEFAULT_MUTATION = "step"
DEFAULT_CROSSOVER = "random-cut"
