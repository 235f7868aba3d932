"""The `table` genome kind: strategy probabilities per game-state feature.

A genome is a float array `(feature rows, columns)`: row f holds the
probabilities of letting each column agent move when the position's feature
is f (config `{"columns": [agent names], "feature": "nimsum"}`, decoded by
`fitness.nim`'s `table` decoder). Every operator returns a new table whose
entries are finite and >= 0 with each row summing to 1 (within 1e-9), and
never modifies its arguments.

Operators, grouped by role, all drawing from an explicit
`numpy.random.Generator`:

* init: `random_table` (each row Dirichlet(alpha));
* mutation: `mut_gaussian` (seed 002: add |N(0, sigma)| to every entry,
  renormalise the rows), `mut_zero_to_best` (seed 003: in one row, zero
  one entry and give its mass to the row's best entry), `mut_transfer`
  (in one row, move some or all of one column's mass to another: it can
  reach every table, pure rows included), `mut_one_hot` (one row becomes
  a pure choice of one column);
* crossover: `cx_fusion` (seed 002: the average of the parents),
  `cx_row_uniform` (each row from either parent);
* repair: `repair` (negatives and non-finite entries to 0, rows rescaled,
  an all-zero row becomes uniform).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from fitness.nim import Rules
from fitness.nim.agents.mixture import feature_size


__all__ = [
    "CROSSOVERS",
    "MUTATIONS",
    "cx_fusion",
    "cx_row_uniform",
    "from_record",
    "mut_gaussian",
    "mut_one_hot",
    "mut_transfer",
    "mut_zero_to_best",
    "normalise_rows",
    "random_table",
    "repair",
    "shape_for",
    "to_record",
]


def shape_for(rules: Rules, config: Mapping[str, Any]) -> tuple[int, int]:
    """(feature rows, columns) of the tables the genome config describes on this board."""
    columns = config.get("columns")
    if isinstance(columns, str) or not columns:
        raise ValueError(f'table genomes need config {{"columns": [agent names]}}, got {columns!r}')
    return feature_size(config.get("feature", "nimsum"), rules), len(columns)


def normalise_rows(table: np.ndarray) -> np.ndarray:
    """Each row rescaled to sum to 1; a row with no mass becomes uniform.

    Rows are first divided by their largest entry, so that summing even
    entries near the float maximum cannot overflow.
    """
    t = np.asarray(table, dtype=np.float64)
    peak = t.max(axis=1, keepdims=True)
    live = peak[:, 0] > 0
    out = np.full(t.shape, 1.0 / t.shape[1])
    scaled = t[live] / peak[live]
    out[live] = scaled / scaled.sum(axis=1, keepdims=True)
    return out


# --- init ------------------------------------------------------------------

def random_table(shape: tuple[int, int], rng: np.random.Generator, alpha: float = 1.0) -> np.ndarray:
    """Each row drawn from a symmetric Dirichlet(alpha): alpha = 1 is uniform over the simplex."""
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}")
    rows, columns = shape
    # A tiny alpha can underflow a whole row to zeros; normalising repairs it.
    return normalise_rows(rng.dirichlet(np.full(columns, float(alpha)), size=rows))


# --- mutation --------------------------------------------------------------

def mut_gaussian(table: np.ndarray, rng: np.random.Generator, sigma: float = 0.1) -> np.ndarray:
    """Seed 002: add |N(0, sigma)| to every entry, then renormalise each row.

    Only mass is added, so a large sigma pushes rows towards uniform noise.
    For sigma > 1 the table is scaled down by sigma instead of the noise up
    (same rows after normalising) so that no entry can overflow.
    """
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma!r}")
    t = np.asarray(table, dtype=np.float64)
    noise = np.abs(rng.standard_normal(t.shape))
    mutated = t / sigma + noise if sigma > 1 else t + sigma * noise
    return normalise_rows(mutated)


def mut_zero_to_best(table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Seed 003: in one random row, zero one non-best entry and add its mass to the best."""
    t = np.array(table, dtype=np.float64)
    row = int(rng.integers(t.shape[0]))
    best = int(np.argmax(t[row]))
    others = [j for j in range(t.shape[1]) if j != best]
    if others:
        j = others[int(rng.integers(len(others)))]
        t[row, best] += t[row, j]
        t[row, j] = 0.0
        t[row] = normalise_rows(t[row : row + 1])[0]  # other rows stay bit-identical
    return t


def mut_transfer(table: np.ndarray, rng: np.random.Generator, whole: float = 0.5) -> np.ndarray:
    """In one random row, move mass from a column that has some to another column.

    With probability `whole` all of the donor's mass moves (so a row can turn
    pure in a few steps, and a column can come back from zero); otherwise a
    uniform fraction of it. Unlike `gaussian`, which only adds noise, repeated
    transfers reach every table.
    """
    if not 0.0 <= whole <= 1.0:
        raise ValueError(f"whole must be a probability in [0, 1], got {whole!r}")
    t = np.array(table, dtype=np.float64)
    if t.shape[1] < 2:
        return t
    row = int(rng.integers(t.shape[0]))
    donors = np.flatnonzero(t[row] > 0)
    donor = int(donors[rng.integers(len(donors))])
    receiver = int(rng.integers(t.shape[1] - 1))
    receiver += receiver >= donor  # any column but the donor
    fraction = 1.0 if rng.random() < whole else rng.random()
    moved = t[row, donor] * fraction
    t[row, donor] -= moved
    t[row, receiver] += moved
    t[row] = normalise_rows(t[row : row + 1])[0]  # other rows stay bit-identical
    return t


def mut_one_hot(table: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One random row becomes a pure choice of one random column."""
    t = np.array(table, dtype=np.float64)
    row = int(rng.integers(t.shape[0]))
    t[row] = 0.0
    t[row, int(rng.integers(t.shape[1]))] = 1.0
    return t


# --- crossover -------------------------------------------------------------

def cx_fusion(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Seed 002: the average of the parents (both children are that average)."""
    child = normalise_rows((np.asarray(a, dtype=np.float64) + np.asarray(b, dtype=np.float64)) / 2)
    return child, child.copy()


def cx_row_uniform(
    a: np.ndarray, b: np.ndarray, rng: np.random.Generator, p: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Each row swapped between the parents with probability `p`."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1], got {p!r}")
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    swap = (rng.random(a.shape[0]) < p)[:, None]
    return np.where(swap, b, a), np.where(swap, a, b)


# --- repair ----------------------------------------------------------------

def repair(table: np.ndarray) -> np.ndarray:
    """A valid table close to `table`: bad entries to 0, rows rescaled to sum to 1."""
    t = np.asarray(table, dtype=np.float64)
    return normalise_rows(np.where(np.isfinite(t) & (t > 0), t, 0.0))


# --- record ----------------------------------------------------------------

def to_record(table: np.ndarray) -> list[list[float]]:
    """The table as nested lists of Python floats (exact, for Parquet and JSON)."""
    return np.asarray(table, dtype=np.float64).tolist()


def from_record(record: Any) -> np.ndarray:
    """Inverse of `to_record` (bit-exact); also takes pandas' array of row arrays."""
    try:
        table = np.array([np.asarray(row, dtype=np.float64) for row in record], dtype=np.float64)
    except (TypeError, ValueError):
        table = None
    if table is None or table.ndim != 2 or table.size == 0:
        raise ValueError("a table record is a non-empty list of equally long lists of floats")
    return table


# --- operators by name (the spec's `operators.mutation` / `operators.crossover`) ---

MUTATIONS: dict[str, Callable[..., np.ndarray]] = {
    "gaussian": mut_gaussian,
    "zero-to-best": mut_zero_to_best,
    "transfer": mut_transfer,
    "one-hot": mut_one_hot,
}
CROSSOVERS: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "fusion": cx_fusion,
    "row-uniform": cx_row_uniform,
}
DEFAULT_MUTATION = "transfer"
DEFAULT_CROSSOVER = "fusion"
