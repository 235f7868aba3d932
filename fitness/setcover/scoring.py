"""Score a whole population of set-cover genomes in one call.

Two exact back ends, chosen by how many lists the genomes select: sparse
genomes (the usual case: a good cover uses a dozen or so of thousands of lists)
OR together the bit-packed rows of their chosen lists; dense genomes go
through one float32 matrix product, whose cost does not depend on density.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .instance import Instance

# One packed 64-bit word ORed costs about as much as this many incidence cells
# in the float32 matrix product (measured at N = 1000 on one core: the two
# back ends break even near 500 chosen lists of 3,619).
_CELLS_PER_WORD = 450


@dataclass(frozen=True)
class Scores:
    """Per genome: elements covered, total cost of the chosen lists, and covered == N."""

    covered: np.ndarray
    cost: np.ndarray
    feasible: np.ndarray


def score(instance: Instance, population: np.ndarray, *, chunk: int = 2048, dense: bool | None = None) -> Scores:
    """Score a boolean population (genomes x lists), ``chunk`` genomes at a time to bound memory.

    ``dense`` forces a back end (both are exact); by default each chunk takes
    the one expected to be faster for its density.
    """
    population = np.asarray(population)
    if population.dtype != np.bool_ or population.ndim != 2 or population.shape[1] != instance.n_lists:
        raise ValueError(
            f"population must be a bool array (genomes x {instance.n_lists} lists), "
            f"got {population.dtype} with shape {population.shape}"
        )
    if chunk < 1:
        raise ValueError(f"chunk must be >= 1, got {chunk}")
    covered = np.zeros(len(population), dtype=np.int64)
    cost = np.zeros(len(population), dtype=np.int64)
    for start in range(0, len(population), chunk):
        block = population[start : start + chunk]
        counts = np.count_nonzero(block, axis=1)
        chosen = np.flatnonzero(block) % instance.n_lists
        if chosen.size == 0:
            continue
        nonempty = counts > 0
        starts = np.concatenate(([0], np.cumsum(counts[:-1])))[nonempty]
        rows = slice(start, start + len(block))
        cost[rows][nonempty] = np.add.reduceat(instance.list_costs[chosen], starts)
        words = instance.packed.shape[1]
        use_dense = chosen.size * words * _CELLS_PER_WORD > len(block) * instance.incidence.size if dense is None else dense
        if use_dense:
            hits = block.astype(np.float32) @ instance.incidence.astype(np.float32)
            covered[rows] = np.count_nonzero(hits, axis=1)
        else:
            union = np.bitwise_or.reduceat(instance.packed[chosen], starts, axis=0)
            covered[rows][nonempty] = np.bitwise_count(union).sum(axis=1)
    return Scores(covered=covered, cost=cost, feasible=covered == instance.N)
