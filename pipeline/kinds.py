"""From a spec to a genome kind: the spec's operator names and params bound to `operators`.

Every kind is an `operators.kind.GenomeKind` (make, cross, mutate, repair,
record, diversity), each operator taking the generation's own
`numpy.random.Generator` so a run replays exactly.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

import operators.bitstring as bitstring
import operators.expression as expression_genomes
import operators.rules as rule_genomes
import operators.table as table_genomes
from fitness.nim.expression import parse
from fitness.nim.expression.languages import LANGUAGES
from fitness.plugins import PluginError, resolve
from fitness.setcover import ratio_greedy
from operators.beasley_chu import WeightedCoverOperators
from operators.kind import Finishing, GenomeKind, bool_lists, mean_pairwise_l1
from operators.naming import bind, options, pick

if TYPE_CHECKING:  # a type only: spec.py builds kinds to validate a spec, so no import back
    from .spec import RunSpec

__all__ = ["GenomeKind", "OPERATOR_NAMES", "make_kind", "task_genome_from_record"]

# The operator names each built-in kind takes (operators.crossover / operators.mutation), for the
# spec's schema and reference; tests/pipeline/test_spec_schema.py checks them against the kinds.
OPERATOR_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "bitstring": {"crossover": (*bitstring.CROSSOVERS, "fusion", "optimal"),
                  "mutation": ("asymmetric", "flip", "adaptive")},
    "rules": {"crossover": tuple(rule_genomes.CROSSOVERS), "mutation": tuple(rule_genomes.MUTATIONS)},
    "table": {"crossover": tuple(table_genomes.CROSSOVERS), "mutation": tuple(table_genomes.MUTATIONS)},
    "expression": {"crossover": tuple(expression_genomes.CROSSOVERS),
                   "mutation": tuple(expression_genomes.MUTATIONS)},
}


def _bitstring_kind(spec: RunSpec, task: Any) -> GenomeKind:
    instance = task.instance
    ops = spec.operators
    weighted = _weighted_operators(spec, instance)  # None unless the spec names one of them
    # Mutation strength: `rate` lists flipped on average (asymmetric), or a per-bit `p` (flip).
    strength = {"rate": 2.0, "p": 1.0 / instance.n_lists, **ops.params}
    mutations = {"asymmetric": functools.partial(bitstring.mut_asymmetric, rate=strength["rate"]),
                 "flip": functools.partial(bitstring.mut_flip, p=strength["p"]),
                 "adaptive": weighted and weighted.mutate}
    mutate = pick(mutations, ops.mutation, "asymmetric", "mutation", "bitstring")
    # The loop keeps one child, so uniform crossover makes only that one (same draws, half the work);
    # fusion and optimal recombination make one child, repaired.
    crossovers = {name: (lambda a, b, rng, cx=cx: cx(a, b, rng)[0]) for name, cx in bitstring.CROSSOVERS.items()}
    crossovers.update(uniform=bitstring.uniform_child, fusion=weighted and weighted.crossover,
                      optimal=weighted and weighted.recombine)
    crossover = pick(crossovers, ops.crossover, "uniform", "crossover", "bitstring")
    repair = weighted.repair if weighted else functools.partial(bitstring.repair, instance)

    def finish(child: np.ndarray, parent: np.ndarray | None) -> np.ndarray:
        # A mutant is repaired re-adding the lists the mutation dropped only as a
        # last resort; otherwise repair would mostly undo the mutation.
        return repair(child) if parent is None else repair(child, avoid=parent & ~child)

    def mutate_and_repair(genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return finish(mutate(genome, rng), genome)

    repaired = {"mutation", "reproduction"} | ({"crossover"} if ops.crossover in ("fusion", "optimal") else set())
    return GenomeKind(
        name="bitstring",
        init=_bitstring_init(spec, instance, weighted),
        crossover=crossover,
        mutate=mutate_and_repair if ops.repair else mutate,
        repair=lambda g, rng: repair(g),
        to_record=bitstring.to_record,
        from_record=bitstring.from_record,
        record_type=pa.list_(pa.bool_()),
        record_array=bool_lists,
        diversity=lambda genomes: mean_pairwise_l1(np.stack(genomes).reshape(len(genomes), -1)),
        allowed_params=frozenset({"rate", "p", "seed_rate"} | (set(_WEIGHTED_PARAMS) if weighted else set())),
        # A mutant is repaired inside mutate (a fusion or optimal child inside crossover);
        # a copy of a (repaired) parent is a cover already.
        repaired_origins=frozenset(repaired if ops.repair else {"reproduction"}),
        finishing=Finishing(mutate, finish) if ops.repair else None,  # repairs on the workers
    )


def _bitstring_init(spec: RunSpec, instance: Any, weighted: WeightedCoverOperators | None) -> Any:
    """The first population: sparse random, half perturbed greedy covers, or the Lagrangian ascent's covers."""
    if spec.genome.init == "lagrangian":
        return weighted.init
    density = spec.genome.density
    if spec.genome.init == "sparse":
        return lambda n, rng: [bitstring.init_sparse(instance.n_lists, rng, density) for _ in range(n)]
    cover = ratio_greedy(instance).mask(instance)
    seed_rate = float(spec.operators.params.get("seed_rate", 2.0))

    def make(n: int, rng: np.random.Generator) -> list[np.ndarray]:
        seeded = (n + 1) // 2  # half from the perturbed greedy cover, half sparse random
        density = np.count_nonzero(cover) / instance.n_lists
        return ([bitstring.init_greedy(cover, rng, seed_rate) for _ in range(seeded)]
                + [bitstring.init_sparse(instance.n_lists, rng, density) for _ in range(n - seeded)])
    return make


_WEIGHTED_PARAMS = ("flips", "flips_midpoint", "flips_gradient")


def _weighted_operators(spec: RunSpec, instance: Any) -> WeightedCoverOperators | None:
    """Beasley-Chu's operators over the Lagrangian-useful lists, if the spec names any of them.

    Built only then, and the Lagrangian ascent and dives (about 0.4 s of CPU
    on class 4, 5 s on class C; cached per instance) only where init or
    repair is "lagrangian": specs that do not use them must not pay or change.
    """
    ops = spec.operators
    if not (ops.crossover in ("fusion", "optimal") or ops.mutation == "adaptive" or ops.repair == "lagrangian"
            or spec.genome.init == "lagrangian"):
        return None
    schedule = {k: v for k, v in ops.params.items() if k in _WEIGHTED_PARAMS}
    for key, value in schedule.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"operators.params.{key}: must be a number (got {value!r})")
    rule = {"lagrangian": "rows", True: "ratio", False: None}[ops.repair]
    try:
        return WeightedCoverOperators(instance, lagrangian="lagrangian" in (ops.repair, spec.genome.init), repair=rule,
                                      **{k: float(v) for k, v in schedule.items()})
    except ValueError as exc:
        raise ValueError(f"operators.params: {exc}") from None


def _rules_kind(spec: RunSpec, task: Any) -> GenomeKind:
    ops = spec.operators
    param_spec = rule_genomes.spec_for(task.rules, task.config)
    mutate = pick(rule_genomes.MUTATIONS, ops.mutation, rule_genomes.DEFAULT_MUTATION, "mutation", "rules")
    mate = pick(rule_genomes.CROSSOVERS, ops.crossover, rule_genomes.DEFAULT_CROSSOVER, "crossover", "rules")

    def diversity(genomes: list[dict]) -> float:
        vectors = np.asarray([[_as_number(param_spec[n], g[n]) for n in param_spec.names] for g in genomes],
                             dtype=float)
        return mean_pairwise_l1(vectors, np.maximum(np.ptp(vectors, axis=0), 1e-12))

    return GenomeKind(
        name="rules",
        init=lambda n, rng: [rule_genomes.random_genome(param_spec, rng) for _ in range(n)],
        crossover=lambda a, b, rng: bind(mate, ops.params, spec=param_spec)(a, b, rng=rng)[0],
        mutate=lambda g, rng: bind(mutate, ops.params, spec=param_spec)(g, rng=rng),
        repair=lambda g, rng: rule_genomes.repair(g, param_spec),
        to_record=rule_genomes.to_record,
        from_record=rule_genomes.from_record,
        diversity=diversity,
        allowed_params=frozenset(options(mutate) | options(mate)),
    )


def _as_number(param: Any, value: Any) -> float:
    """Numbers as they are; a choice by its position among the choices."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return float(value)
    return float(list(param.choices).index(value))


def _table_kind(spec: RunSpec, task: Any) -> GenomeKind:
    ops = spec.operators
    shape = table_genomes.shape_for(task.rules, task.config)
    mutate = pick(table_genomes.MUTATIONS, ops.mutation, table_genomes.DEFAULT_MUTATION, "mutation", "table")
    mate = pick(table_genomes.CROSSOVERS, ops.crossover, table_genomes.DEFAULT_CROSSOVER, "crossover", "table")
    make_one = bind(table_genomes.random_table, ops.params, shape=shape)

    def diversity(genomes: list[np.ndarray]) -> float:  # total variation per row
        vectors = np.asarray([np.asarray(g, dtype=float).ravel() for g in genomes])
        return mean_pairwise_l1(vectors) * 0.5 * shape[1]

    return GenomeKind(
        name="table",
        init=lambda n, rng: [make_one(rng=rng) for _ in range(n)],
        crossover=lambda a, b, rng: bind(mate, ops.params)(a, b, rng=rng)[0],
        mutate=lambda g, rng: bind(mutate, ops.params)(g, rng=rng),
        repair=lambda g, rng: table_genomes.repair(g),
        to_record=table_genomes.to_record,
        from_record=table_genomes.from_record,
        record_type=pa.list_(pa.list_(pa.float64())),
        diversity=diversity,
        allowed_params=frozenset(options(table_genomes.random_table) | options(mutate) | options(mate)),
    )


def _expression_kind(spec: RunSpec, task: Any) -> GenomeKind:
    ops = spec.operators
    mutate = pick(expression_genomes.MUTATIONS, ops.mutation, expression_genomes.DEFAULT_MUTATION, "mutation",
                  "expression")
    mate = pick(expression_genomes.CROSSOVERS, ops.crossover, expression_genomes.DEFAULT_CROSSOVER, "crossover",
                "expression")
    language = spec.genome.primitives  # the primitive set every operator builds from
    if mutate in expression_genomes.BINDING_MUTATIONS and "let" not in LANGUAGES[language].primitives:
        raise ValueError(f"operators.mutation: {ops.mutation} needs a primitive set with let; "
                         f"{language!r} has none")
    # Bound once: binding inspects signatures (~0.1 ms), which 600 children a generation would repeat.
    make_one = bind(expression_genomes.random_expression, ops.params, language=language)
    mate_bound = bind(mate, ops.params, language=language)
    mutate_bound = bind(mutate, ops.params, language=language)
    key = lambda g: g  # noqa: E731  (diversity of trees: the share of distinct expressions)
    if spec.genome.distinct_by == "moves":  # semantic clones count once among the survivors
        if task.boards is None:
            raise ValueError("genome.distinct_by: 'moves' compares the moves played on the training boards; "
                             "give them in nim.boards")
        key = lambda g: task.boards.signature(parse(g))  # noqa: E731
    return GenomeKind(
        name="expression",
        init=lambda n, rng: [make_one(rng=rng) for _ in range(n)],
        crossover=lambda a, b, rng: mate_bound(a, b, rng=rng)[0],
        mutate=lambda g, rng: mutate_bound(g, rng=rng),
        to_record=expression_genomes.to_record,  # every tree the operators make is valid: no repair
        from_record=expression_genomes.from_record,
        record_type=pa.string(),
        key=key,
        allowed_params=frozenset(options(expression_genomes.random_expression) | options(mutate)
                                 | options(mate)) - {"language"},  # set by [genome] primitives, not a param
    )


# What a user-defined kind must provide; `repair`, `key`, `diversity` and `record_type` are optional.
USER_KIND_METHODS = ("init", "crossover", "mutate", "to_record", "from_record")


def _user_kind(spec: RunSpec, task: Any) -> GenomeKind:
    """A kind named `module:Kind` (or an `evo.kinds` entry point), built as `Kind(options, task)`."""
    name = spec.genome.kind
    ops = spec.operators
    if ops.crossover or ops.mutation or ops.params:
        raise ValueError(f"operators.crossover, operators.mutation, operators.params: the kind {name!r} brings "
                         "its own operators; give their settings in [genome.options]")
    factory = resolve(name, "kind")
    try:
        user = factory(dict(spec.genome.options), task)
    except Exception as exc:  # the user's kind refused its options
        lines = str(exc).strip().splitlines()
        raise PluginError(f"genome.kind {name!r}: {type(exc).__name__}: {lines[0] if lines else ''}") from None
    missing = [m for m in USER_KIND_METHODS if not callable(getattr(user, m, None))]
    if missing:
        raise PluginError(f"genome.kind {name!r}: the kind has no {', '.join(missing)} method "
                          f"(a kind provides {', '.join(USER_KIND_METHODS)})")

    def optional(method: str) -> Any:
        return getattr(user, method) if callable(getattr(user, method, None)) else None

    return GenomeKind(
        name=name,
        init=user.init,
        crossover=user.crossover,
        mutate=user.mutate,
        repair=optional("repair") or (lambda g, rng: g),
        to_record=user.to_record,
        from_record=user.from_record,
        record_type=getattr(user, "record_type", None),
        key=optional("key"),
        record_array=optional("record_array"),  # none: `to_record` genome by genome
        diversity=optional("diversity"),  # none: the share of distinct genomes
    )


_BUILDERS = {"bitstring": _bitstring_kind, "rules": _rules_kind, "table": _table_kind, "expression": _expression_kind}
_RECORDS = {"bitstring": bitstring.from_record, "rules": rule_genomes.from_record, "table": table_genomes.from_record,
            "expression": expression_genomes.from_record}


def make_kind(spec: RunSpec, task: Any) -> GenomeKind:
    """The adapter for the spec's genome kind, checking operator names and params."""
    kind = _BUILDERS.get(spec.genome.kind, _user_kind)(spec, task)
    unknown = sorted(set(spec.operators.params) - kind.allowed_params)
    if unknown:
        raise ValueError(
            f"operators.params: unknown parameter {unknown[0]!r} for these {kind.name} operators; "
            f"allowed: {', '.join(sorted(kind.allowed_params)) or 'none'}"
        )
    return kind


def task_genome_from_record(kind: str, record: Any) -> Any:
    """A logged genome record of a built-in kind back as the plain genome a task/decoder takes."""
    return _RECORDS[kind](record)
