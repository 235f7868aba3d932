"""What evolution needs from a genome kind, as one record of plain functions.

A kind is made once per run (by `pipeline.kinds` from the spec, or by a
user's plug-in) and never patched afterwards: every operator takes the
generation's own `numpy.random.Generator`, so a run replays exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pyarrow as pa

__all__ = ["Finishing", "GenomeKind", "array_key", "bool_lists", "distinct_share", "mean_pairwise_l1", "same_record"]


def array_key(genome: Any, to_record: Callable[[Any], Any]) -> Any:
    """A hashable identity of a genome (equal genomes, equal keys).

    Arrays key by their bytes: no Python list per genome (a 3,619-bit genome
    as a list costs ~0.2 ms). Bool arrays key by their own bytes (numpy's
    False and True are 0 and 1): 0.1 us for 64 bits, where packing them 8 to
    a byte first cost 0.9 us, on a steady-state driver's thread twice an arrival.
    """
    if isinstance(genome, np.ndarray):
        if genome.dtype == np.bool_:
            return genome.shape, genome.tobytes()
        return genome.shape, np.ascontiguousarray(genome, dtype=float).tobytes()
    record = to_record(genome)
    if isinstance(record, dict):
        return tuple(sorted(record.items()))
    return np.asarray(record).tobytes()


@dataclass(frozen=True)
class Finishing:
    """How a kind's children are completed by a pure function (no draws), so that a breeder may
    leave them unfinished and have them finished elsewhere, many at once, on the run's workers
    (set cover's repair: ~65% of `runs/setcover-1000.toml`'s driver time, in the driver alone).

    `finish(child, parent)` must give what the kind's own operators give: `finish(mutate(parent,
    rng), parent) == kind.mutate(parent, rng)` with the same draws, and `finish(child, None) ==
    kind.repair(child, rng)` for a child the kind repairs after crossover."""

    mutate: Callable[[Any, np.random.Generator], Any]  # the kind's mutation, before its finish
    finish: Callable[[Any, Any], Any]


@dataclass(frozen=True)
class GenomeKind:
    """A genome kind's operators; `crossover` returns one child, `repair` may be the identity."""

    name: str
    init: Callable[[int, np.random.Generator], list[Any]]
    crossover: Callable[[Any, Any, np.random.Generator], Any]
    mutate: Callable[[Any, np.random.Generator], Any]
    to_record: Callable[[Any], Any]
    from_record: Callable[[Any], Any]
    # how similar a population is (0: all identical); default: the share of distinct genomes
    diversity: Callable[[list[Any]], float] | None = None
    repair: Callable[[Any, np.random.Generator], Any] = lambda genome, rng: genome
    record_type: pa.DataType | None = None
    key: Callable[[Any], Any] | None = None  # default: `array_key`
    record_array: Callable[[list[Any]], pa.Array] | None = None  # default: one record per genome
    allowed_params: frozenset[str] = frozenset()  # operators.params these operators take
    # Origins whose children are repaired already (repair is then skipped: bitstring
    # repair is idempotent and costs ~0.1 ms a child on the N=1000 instance).
    repaired_origins: frozenset[str] = field(default_factory=frozenset)
    finishing: Finishing | None = None  # children that may be finished elsewhere (`Finishing`)

    def __post_init__(self) -> None:
        if self.finishing is not None and "mutation" not in self.repaired_origins:
            raise ValueError(f"genome kind {self.name!r}: a kind with `finishing` repairs its mutants in "
                             "`mutate` (its finish): 'mutation' must be among its repaired_origins")

    def copy(self, genome: Any) -> Any:
        return self.from_record(self.to_record(genome))

    def identity(self, genome: Any) -> Any:
        return self.key(genome) if self.key is not None else array_key(genome, self.to_record)

    def records(self, genomes: list[Any]) -> pa.Array:
        """The log's genome column; a kind's own `record_array` is checked against `to_record`
        (length, type, the first genome): a wrong one would write a log that resumes wrongly."""
        if self.record_array is None:
            return pa.array([self.to_record(g) for g in genomes], type=self.record_type)
        array = self.record_array(genomes)
        wrong = (not isinstance(array, pa.Array) or len(array) != len(genomes)
                 or (self.record_type is not None and array.type != self.record_type)
                 or (len(genomes) > 0 and not same_record(array[0].as_py(), self.to_record(genomes[0]))))
        if wrong:
            got = f"{len(array)} values of {array.type}" if isinstance(array, pa.Array) else type(array).__name__
            raise ValueError(f"genome kind {self.name!r}: record_array gave {got} for {len(genomes)} genomes, "
                             f"not the pyarrow array of their to_record (type {self.record_type})")
        return array

    def spread(self, genomes: list[Any], identity: Callable[[Any], Any] | None = None) -> float:
        """The population's diversity (the kind's own measure, or the share of distinct genomes);
        `identity`: `self.identity`, or one that remembers it (the log's, from generation to generation)."""
        if self.diversity is not None:
            return float(self.diversity(genomes))
        return distinct_share(list(map(identity or self.identity, genomes)))


def same_record(a: Any, b: Any) -> bool:
    """Equal log records, NaN equal to NaN and a tuple or array to the list pyarrow gives back
    (a real-valued genome may hold NaN, and its record must still check against itself)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return same_record(np.asarray(a).tolist(), np.asarray(b).tolist())
    if isinstance(a, (float, np.floating)) and isinstance(b, (float, np.floating)):
        return bool(a == b or (a != a and b != b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and (_equal_in_c(a, b) or all(map(same_record, a, b)))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and (_equal_in_c(a, b) or all(same_record(a[k], b[k]) for k in a))
    return bool(a == b)


def _equal_in_c(a: Any, b: Any) -> bool:
    """Python's own == on two containers of one type: a whole record in C, where the walk above
    costs a call per value (a 3,619-bit genome checked every generation: 4 ms, against 6 us).
    False when it cannot tell (a NaN, an array inside): the walk then decides."""
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except ValueError:  # an array inside compares element-wise
        return False


def distinct_share(keys: list[Any]) -> float:
    """(distinct - 1) / (n - 1): 0 when all are equal, 1 when all differ."""
    return (len(set(keys)) - 1) / max(len(keys) - 1, 1)


def mean_pairwise_l1(vectors: np.ndarray, scale: np.ndarray | float = 1.0) -> float:
    """Mean over pairs and coordinates of |a - b|, in O(n·L) (bits) or O(n·L·log n).

    Bits: a coordinate where c of n genomes hold a 1 differs in c·(n - c)
    pairs. Numbers: sorted per coordinate, x_(k) is the larger of a pair with
    the k values below it and the smaller with the n-1-k above, so the sum of
    |a - b| is the sum of x_(k)·(2k - n + 1).
    """
    n, length = vectors.shape
    if n < 2:
        return 0.0
    pairs = n * (n - 1) / 2
    if vectors.dtype == np.bool_:
        ones = np.count_nonzero(vectors, axis=0).astype(np.float64)
        total = float(np.dot(ones, n - ones))
    else:
        ordered = np.sort(np.asarray(vectors, dtype=np.float64) / scale, axis=0)
        # an exactly rounded sum of exact-per-element products: no CPU's vector width changes it
        total = math.fsum((np.arange(1 - n, n, 2, dtype=np.float64)[:, None] * ordered).ravel().tolist())
    return total / pairs / length


def bool_lists(genomes: list[np.ndarray]) -> pa.Array:
    """Bool genomes as a Parquet list<bool> column built from one buffer, not a Python list per genome."""
    lengths = np.asarray([len(g) for g in genomes], dtype=np.int32)
    offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int32)))
    values = np.concatenate(genomes) if genomes else np.zeros(0, dtype=bool)
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, pa.bool_()))
