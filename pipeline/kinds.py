"""Genome kinds as the evolution loop sees them: one adapter over `operators`.

The loop needs the same handful of things from every kind (make, mate,
mutate, repair, record, diversity), always with the generation's own
`numpy.random.Generator` so a run replays exactly. Each adapter binds the
kind's plain-function operators (chosen by name in the spec) to that shape.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

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
from operators.naming import bind, options, pick

if TYPE_CHECKING:  # a type only: spec.py builds kinds to validate a spec, so no import back
    from .spec import RunSpec

__all__ = ["GenomeKind", "make_kind", "task_genome_from_record"]


@dataclass
class GenomeKind:
    """What the loop does with genomes of one kind (all operators take `rng`)."""

    name: str
    make: Callable[[int, np.random.Generator], list[Any]]
    mate: Callable[[Any, Any, np.random.Generator], Any]
    mutate_fn: Callable[[Any, np.random.Generator], Any]
    repair_fn: Callable[[Any], Any]
    to_record: Callable[[Any], Any]
    from_record: Callable[[Any], Any]
    record_type: pa.DataType | None
    distance: Callable[[np.ndarray], float]
    allowed_params: set[str] = frozenset()
    # Variation origins whose children are repaired already (repair is then skipped:
    # bitstring repair is idempotent and costs ~0.1 ms a child on the N=1000 instance).
    repaired_origins: frozenset[str] = frozenset()

    def init(self, n: int, rng: np.random.Generator) -> list[Any]:
        return self.make(n, rng)

    def crossover(self, a: Any, b: Any, rng: np.random.Generator) -> Any:
        return self.mate(a, b, rng)[0]

    def mutate(self, genome: Any, rng: np.random.Generator) -> Any:
        return self.mutate_fn(genome, rng)

    def repair(self, genome: Any, rng: np.random.Generator) -> Any:
        return self.repair_fn(genome)

    def copy(self, genome: Any) -> Any:
        return self.from_record(self.to_record(genome))

    def key(self, genome: Any) -> Any:
        """A hashable identity of the genome (equal genomes, equal keys).

        Arrays key by their bytes, bool arrays packed 8 bits to a byte: no
        Python list per genome (a 3,619-bit genome as a list costs ~0.2 ms).
        """
        if isinstance(genome, np.ndarray):
            if genome.dtype == np.bool_:
                return genome.shape, np.packbits(genome, axis=None).tobytes()
            return genome.shape, np.ascontiguousarray(genome, dtype=float).tobytes()
        record = self.to_record(genome)
        if isinstance(record, dict):
            return tuple(sorted(record.items()))
        return np.asarray(record).tobytes()

    def task_genome(self, genome: Any) -> Any:
        """What crosses to the evaluators: plain data only."""
        return genome

    def record_array(self, genomes: list[Any]) -> pa.Array:
        return pa.array([self.to_record(g) for g in genomes], type=self.record_type)

    def diversity(self, genomes: list[Any]) -> float:
        """Mean pairwise distance between genomes (0: all identical)."""
        if len(genomes) < 2:
            return 0.0
        if isinstance(genomes[0], np.ndarray) and genomes[0].dtype == np.bool_:
            return self.distance(np.stack(genomes).reshape(len(genomes), -1))
        return self.distance(np.asarray([self.vector(g) for g in genomes], dtype=float))

    def vector(self, genome: Any) -> np.ndarray:
        return np.asarray(genome, dtype=float).ravel()


def _mean_pairwise_l1(vectors: np.ndarray, scale: np.ndarray | float = 1.0) -> float:
    """Mean over pairs and coordinates of |a - b|, in O(n·L) (bits) or O(n·L·log n).

    Bits: a coordinate where c of n genomes hold a 1 differs in c·(n - c)
    pairs. Numbers: sorted per coordinate, x_(k) is the larger of a pair with
    the k values below it and the smaller with the n-1-k above, so the sum of
    |a - b| is the sum of x_(k)·(2k - n + 1).
    """
    n, length = vectors.shape
    pairs = n * (n - 1) / 2
    if vectors.dtype == np.bool_:
        ones = np.count_nonzero(vectors, axis=0).astype(np.float64)
        total = float(np.dot(ones, n - ones))
    else:
        ordered = np.sort(np.asarray(vectors, dtype=np.float64) / scale, axis=0)
        total = float(np.arange(1 - n, n, 2, dtype=np.float64) @ ordered.sum(axis=1))
    return total / pairs / length


def _bitstring_kind(spec: RunSpec, task: Any) -> GenomeKind:
    instance = task.instance
    ops = spec.operators
    mutations = {"asymmetric": bitstring.mut_asymmetric, "flip": bitstring.mut_flip}
    mutation = pick(mutations, ops.mutation, "asymmetric", "mutation", "bitstring")
    crossover = pick(bitstring.CROSSOVERS, ops.crossover, "uniform", "crossover", "bitstring")
    # Mutation strength: `rate` lists flipped on average (asymmetric), or a per-bit `p` (flip).
    strength = {"rate": 2.0, "p": 1.0 / instance.n_lists, **ops.params}
    accepted = inspect.signature(mutation).parameters
    mutate = functools.partial(mutation, **{k: strength[k] for k in ("rate", "p") if k in accepted})
    cover = ratio_greedy(instance).mask(instance)
    seed_rate = float(ops.params.get("seed_rate", 2.0))

    def make(n: int, rng: np.random.Generator) -> list[np.ndarray]:
        if spec.genome.init == "sparse":
            return [bitstring.init_sparse(instance.n_lists, rng, spec.genome.density) for _ in range(n)]
        seeded = (n + 1) // 2  # half from the perturbed greedy cover, half sparse random
        density = np.count_nonzero(cover) / instance.n_lists
        return ([bitstring.init_greedy(cover, rng, seed_rate) for _ in range(seeded)]
                + [bitstring.init_sparse(instance.n_lists, rng, density) for _ in range(n - seeded)])

    def _mutate_avoiding_dropped(genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # Repair right away, re-adding the lists the mutation dropped only as a
        # last resort; otherwise repair would mostly undo the mutation.
        child = mutate(genome, rng)
        return bitstring.repair(instance, child, avoid=genome & ~child)

    kind = GenomeKind(
        name="bitstring",
        make=make,
        # `p` and `rate` set the mutation; crossovers keep their own defaults. The loop keeps
        # one child, so uniform crossover makes only that one (same draws, half the work).
        mate=(lambda a, b, rng: (bitstring.uniform_child(a, b, rng),)) if crossover is bitstring.cx_uniform
        else (lambda a, b, rng: crossover(a, b, rng)),
        mutate_fn=lambda g, rng: _mutate_avoiding_dropped(g, rng) if ops.repair else mutate(g, rng),
        repair_fn=lambda g: bitstring.repair(instance, g),
        to_record=bitstring.to_record,
        from_record=bitstring.from_record,
        record_type=pa.list_(pa.bool_()),
        distance=_mean_pairwise_l1,
    )
    kind.allowed_params = {"rate", "p", "seed_rate"}
    kind.record_array = _bool_lists
    # A mutant is repaired inside mutate; a copy of a (repaired) parent is a cover already.
    kind.repaired_origins = frozenset({"mutation", "reproduction"} if ops.repair else {"reproduction"})
    return kind


def _bool_lists(genomes: list[np.ndarray]) -> pa.Array:
    """Bool genomes as a Parquet list<bool> column built from one buffer, not a Python list per genome."""
    lengths = np.asarray([len(g) for g in genomes], dtype=np.int32)
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int32)))
    values = np.concatenate(genomes) if genomes else np.zeros(0, dtype=bool)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, pa.bool_()))


def _rules_kind(spec: RunSpec, task: Any) -> GenomeKind:
    ops = spec.operators
    param_spec = rule_genomes.spec_for(task.rules, task.config)
    mutate = pick(rule_genomes.MUTATIONS, ops.mutation, rule_genomes.DEFAULT_MUTATION, "mutation", "rules")
    mate = pick(rule_genomes.CROSSOVERS, ops.crossover, rule_genomes.DEFAULT_CROSSOVER, "crossover", "rules")
    kind = GenomeKind(
        name="rules",
        make=lambda n, rng: [rule_genomes.random_genome(param_spec, rng) for _ in range(n)],
        mate=lambda a, b, rng: bind(mate, ops.params, spec=param_spec)(a, b, rng=rng),
        mutate_fn=lambda g, rng: bind(mutate, ops.params, spec=param_spec)(g, rng=rng),
        repair_fn=lambda g: rule_genomes.repair(g, param_spec),
        to_record=rule_genomes.to_record,
        from_record=rule_genomes.from_record,
        record_type=None,
        distance=lambda v: _mean_pairwise_l1(v, np.maximum(np.ptp(v, axis=0), 1e-12)),
    )
    kind.vector = lambda g: np.asarray([_as_number(param_spec[n], g[n]) for n in param_spec.names])
    kind.allowed_params = options(mutate) | options(mate)
    return kind


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
    kind = GenomeKind(
        name="table",
        make=lambda n, rng: [make_one(rng=rng) for _ in range(n)],
        mate=lambda a, b, rng: bind(mate, ops.params)(a, b, rng=rng),
        mutate_fn=lambda g, rng: bind(mutate, ops.params)(g, rng=rng),
        repair_fn=table_genomes.repair,
        to_record=table_genomes.to_record,
        from_record=table_genomes.from_record,
        record_type=pa.list_(pa.list_(pa.float64())),
        distance=lambda v: _mean_pairwise_l1(v) * 0.5 * shape[1],  # total variation per row
    )
    kind.allowed_params = options(table_genomes.random_table) | options(mutate) | options(mate)
    return kind


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
    kind = GenomeKind(
        name="expression",
        make=lambda n, rng: [make_one(rng=rng) for _ in range(n)],
        mate=lambda a, b, rng: mate_bound(a, b, rng=rng),
        mutate_fn=lambda g, rng: mutate_bound(g, rng=rng),
        repair_fn=lambda g: g,  # every tree the operators make is a valid expression
        to_record=expression_genomes.to_record,
        from_record=expression_genomes.from_record,
        record_type=pa.string(),
        distance=lambda v: 0.0,
    )
    kind.key = lambda g: g
    if spec.genome.distinct_by == "moves":  # semantic clones count once among the survivors
        if task.boards is None:
            raise ValueError("genome.distinct_by: 'moves' compares the moves played on the training boards; "
                             "give them in nim.boards")
        kind.key = lambda g: task.boards.signature(parse(g))
    # Diversity: the share of distinct expressions (or distinct behaviours) in the population.
    kind.diversity = lambda genomes: (len({kind.key(g) for g in genomes}) - 1) / max(len(genomes) - 1, 1)
    kind.allowed_params = (options(expression_genomes.random_expression) | options(mutate)
                           | options(mate)) - {"language"}  # set by [genome] primitives, not a param
    return kind


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
    kind = GenomeKind(
        name=name,
        make=user.init,
        mate=lambda a, b, rng: (user.crossover(a, b, rng),),
        mutate_fn=user.mutate,
        repair_fn=lambda g: g,
        to_record=user.to_record,
        from_record=user.from_record,
        record_type=getattr(user, "record_type", None),
        distance=lambda v: 0.0,
    )
    if callable(getattr(user, "repair", None)):
        kind.repair = user.repair
    if callable(getattr(user, "key", None)):
        kind.key = user.key
    if callable(getattr(user, "diversity", None)):
        kind.diversity = user.diversity
    else:  # the share of distinct genomes: defined for any genome
        kind.diversity = lambda genomes: (len({kind.key(g) for g in genomes}) - 1) / max(len(genomes) - 1, 1)
    return kind


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
