"""Random weighted set-covering instances made the way OR-Library's were (Beasley after Balas and Ho).

OR-Library's classes 4-6 and A-E were made by one recipe: an ``m x n``
0/1 matrix of a given density, column costs drawn uniformly from 1-100 (all 1
for the unicost classes), every column covering at least one row and every
row covered by at least two columns.  This module draws such instances from a
seed, so benchmarks and tests use the classes' shapes without downloading the
files.  The original random streams are not reproduced: these are instances
*like* scp41, not scp41.
"""

from __future__ import annotations

import numpy as np

from .instance import Instance

__all__ = ["BEASLEY_CLASSES", "beasley"]

# class -> (rows, columns, density, unicost), as OR-Library describes its classes
BEASLEY_CLASSES: dict[str, tuple[int, int, float, bool]] = {
    "4": (200, 1000, 0.02, False),
    "5": (200, 2000, 0.02, False),
    "6": (200, 1000, 0.05, False),
    "A": (300, 3000, 0.02, False),
    "B": (300, 3000, 0.05, False),
    "C": (400, 4000, 0.02, False),
    "D": (400, 4000, 0.05, False),
    "E": (50, 500, 0.20, True),
}


def beasley(rows: int, columns: int, density: float, seed: int, *, unicost: bool = False) -> Instance:
    """An instance (``N = rows`` elements, ``columns`` lists) drawn from ``seed``.

    Each cell is 1 with probability ``density``; a column left empty gets one
    random row; a row covered by fewer than two columns gets random columns
    until it has two.  Costs are uniform integers 1-100, or all 1 if ``unicost``.
    """
    if rows < 1 or columns < 2 or not 0.0 < density <= 1.0:
        raise ValueError(f"need rows >= 1, columns >= 2 and 0 < density <= 1, got {rows}, {columns}, {density}")
    rng = np.random.default_rng(seed)
    matrix = rng.random((rows, columns)) < density
    for j in np.flatnonzero(~matrix.any(axis=0)):
        matrix[rng.integers(rows), j] = True
    for i in np.flatnonzero(matrix.sum(axis=1) < 2):
        while np.count_nonzero(matrix[i]) < 2:
            matrix[i, rng.integers(columns)] = True
    costs = np.ones(columns, dtype=np.int64) if unicost else rng.integers(1, 101, size=columns)
    lists = [np.flatnonzero(matrix[:, j]).tolist() for j in range(columns)]
    return Instance(rows, lists, costs.tolist(),
                    source=f"beasley({rows}, {columns}, {density}, seed={seed}{', unicost' if unicost else ''})")


def beasley_class(name: str, seed: int) -> Instance:
    """An instance of OR-Library class ``name`` ("4", "6", "A", "C", "E", ...) drawn from ``seed``."""
    if name not in BEASLEY_CLASSES:
        raise ValueError(f"unknown class {name!r}; known: {', '.join(BEASLEY_CLASSES)}")
    rows, columns, density, unicost = BEASLEY_CLASSES[name]
    return beasley(rows, columns, density, seed, unicost=unicost)
