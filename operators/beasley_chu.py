"""Bitstring operators for weighted set cover, after Beasley and Chu's GA (1996), steered by a Lagrangian bound.

Plain functions over bool genomes (one bit per list), each drawing from an
explicit ``numpy.random.Generator`` and returning a new array:

- ``fuse``: fitness-based fusion crossover: where the parents agree the child
  agrees; elsewhere it takes each bit from the cheaper parent with the
  higher probability, ``cost_b / (cost_a + cost_b)`` for parent ``a``.
- ``adaptive_flips`` / ``flip_among``: mutation that grows as the parents
  converge.  Beasley and Chu raise the number of flipped bits with the number
  of children made so far, a proxy for convergence; here the convergence is
  measured directly, as the bits in which the two parents differ, so the rate
  depends on the genomes alone and a resumed run replays it exactly.
- ``repair_rows``: each uncovered element in turn gets the list with the
  lowest cost per newly covered element among those holding it, then lists
  made redundant are dropped, dearest first.

All three take an ``allowed`` mask: the lists that can lie in a cover cheaper
than the best one known (``fitness.setcover.lagrangian.Relaxation.useful``);
the search never draws a list outside it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fitness.setcover import Instance, remove_redundant
from fitness.setcover.lagrangian import relax
from fitness.setcover.subcover import cheapest_subcover

from .bitstring import repair as ratio_repair

__all__ = ["WeightedCoverOperators", "adaptive_flips", "flip_among", "fuse", "repair_rows"]


def fuse(a: np.ndarray, b: np.ndarray, cost_a: float, cost_b: float, rng: np.random.Generator) -> np.ndarray:
    """Beasley and Chu's fusion: the parents' common bits, the rest from ``a`` with probability ``cost_b / (cost_a + cost_b)``."""
    total = cost_a + cost_b
    p_a = 0.5 if total <= 0 else cost_b / total
    differ = a != b
    child = a.copy()
    child[differ] = np.where(rng.random(int(np.count_nonzero(differ))) < p_a, a[differ], b[differ])
    return child


def adaptive_flips(differing: int, *, most: float = 10.0, midpoint: float = 10.0, gradient: float = 2.0) -> int:
    """Bits to flip in a child whose parents differ in ``differing`` bits: at least 1, at most ``ceil(most)``.

    Beasley and Chu's logistic schedule, ``ceil(most / (1 + exp(-4 gradient (t - midpoint) / most)))``,
    with the children made so far ``t`` replaced by the parents' agreement:
    parents that differ in ``midpoint`` bits give half of ``most``; alike
    parents (a converged population, or one parent on its own) get ``most``.
    """
    exponent = 4.0 * gradient * (differing - midpoint) / most
    return max(1, math.ceil(most / (1.0 + math.exp(min(exponent, 700.0)))))


def flip_among(genome: np.ndarray, allowed: np.ndarray, flips: int, rng: np.random.Generator) -> np.ndarray:
    """Flip ``flips`` distinct bits drawn uniformly among the ``allowed`` positions (all of them if fewer)."""
    positions = np.flatnonzero(allowed)
    chosen = rng.choice(positions, size=min(flips, len(positions)), replace=False)
    child = genome.copy()
    child[chosen] ^= True
    return child


def repair_rows(instance: Instance, genome: np.ndarray, allowed: np.ndarray | None = None,
                avoid: np.ndarray | None = None) -> np.ndarray:
    """Complete ``genome`` into a cover element by element, then drop redundant lists, dearest first.

    Uncovered elements are taken in ascending order; each gets, among the
    ``allowed`` lists holding it, the one with the lowest ``cost / elements it
    newly covers`` (ties: lowest index), so one list often covers several
    elements at once.  Lists in ``avoid`` (a mutation's drops) are taken only
    when no other allowed list holds the element, and lists outside
    ``allowed`` only when no allowed one does.  The result covers every
    coverable element and no list in it is redundant (as ``remove_redundant``
    would leave it).
    """
    selected = np.array(genome, dtype=bool)
    counts = np.bincount(instance.elements_of(np.flatnonzero(selected)), minlength=instance.N)
    uncovered = (counts == 0) & instance.coverable
    if uncovered.any():
        rank = np.zeros(instance.n_lists, dtype=np.int8)  # 0 allowed, 1 avoided, 2 outside: the lowest present wins
        if avoid is not None:
            rank[avoid] = 1
        if allowed is not None:
            rank[~allowed] = 2
        for element in np.flatnonzero(uncovered):
            if uncovered[element]:
                chosen = _cheapest_holder(instance, element, uncovered, rank)
                selected[chosen] = True
                members = instance.members[chosen]
                uncovered[members] = False
                counts[members] += 1
    return remove_redundant(instance, selected, counts)


def _cheapest_holder(instance: Instance, element: int, uncovered: np.ndarray, rank: np.ndarray) -> int:
    """Among the lists holding ``element`` of the lowest rank, the lowest cost per uncovered element it holds."""
    holders = instance.holders[element]
    words = np.zeros(instance.packed.shape[1] * 8, dtype=np.uint8)
    words[: -(-instance.N // 8)] = np.packbits(uncovered, bitorder="little")
    gains = np.bitwise_count(instance.packed[holders] & words.view("<u8")).sum(axis=1)
    ratio = instance.ratio_costs[holders] / gains
    ranks = rank[holders]
    ratio[ranks > ranks.min()] = np.inf
    return int(holders[int(np.argmin(ratio))])


class WeightedCoverOperators:
    """The operators above bound to one instance and its Lagrangian relaxation (computed once, cached).

    ``init`` starts from the distinct covers the ascent met, cheapest first,
    then covers repaired from random halves of the allowed lists; ``crossover``
    is Beasley and Chu's child (fusion, then adaptive mutation, then repair);
    ``mutate`` flips ``flips`` allowed bits of one parent, then repairs.
    ``repair``: ``"rows"`` (``repair_rows`` within the allowed lists),
    ``"ratio"`` (``operators.bitstring.repair``, the course's), or None (children
    stay unrepaired).  A mutation's dropped lists are taken back only as a
    last resort, so repair does not simply undo it.
    """

    def __init__(self, instance: Instance, *, repair: str | None = "rows", flips: float = 10.0,
                 flips_midpoint: float = 10.0, flips_gradient: float = 2.0) -> None:
        if flips < 1 or flips_midpoint < 0 or flips_gradient <= 0:
            raise ValueError(f"need flips >= 1, flips_midpoint >= 0 and flips_gradient > 0, "
                             f"got {flips}, {flips_midpoint}, {flips_gradient}")
        if repair not in ("rows", "ratio", None):
            raise ValueError(f"repair must be 'rows', 'ratio' or None, got {repair!r}")
        self.instance = instance
        self.relaxation = relax(instance)
        self.allowed = self.relaxation.useful()
        self.repair_rule = repair
        self.schedule: dict[str, Any] = {"most": flips, "midpoint": flips_midpoint, "gradient": flips_gradient}
        self.node_limit = 300  # branch-and-bound nodes per optimal recombination

    def cost(self, genome: np.ndarray) -> int:
        return int(self.instance.list_costs[genome].sum())

    def repair(self, genome: np.ndarray, avoid: np.ndarray | None = None) -> np.ndarray:
        """The genome repaired by the chosen rule (unchanged if there is none)."""
        if self.repair_rule == "rows":
            return repair_rows(self.instance, genome, self.allowed, avoid)
        if self.repair_rule == "ratio":
            return ratio_repair(self.instance, genome, avoid)
        return genome

    def init(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """The ascent's covers (kept to the allowed lists), cheapest first, then covers of random halves of them."""
        seeds: dict[bytes, np.ndarray] = {}
        for cover in self.relaxation.covers:
            if len(seeds) == n:
                break
            kept = repair_rows(self.instance, cover & self.allowed, self.allowed)
            seeds.setdefault(kept.tobytes(), kept)
        empty = np.zeros(self.instance.n_lists, dtype=bool)
        for _ in range(10 * n):  # a small instance may have fewer distinct covers than n
            if len(seeds) == n:
                break
            left_out = self.allowed & (rng.random(self.instance.n_lists) < 0.5)
            seed = repair_rows(self.instance, empty, self.allowed, avoid=left_out)
            seeds.setdefault(seed.tobytes(), seed)
        distinct = list(seeds.values())
        return [distinct[i % len(distinct)].copy() for i in range(n)]

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Beasley and Chu's child: fusion of ``a`` and ``b``, adaptive mutation, repair."""
        child = fuse(a, b, self.cost(a), self.cost(b), rng)
        flips = adaptive_flips(int(np.count_nonzero(a != b)), **self.schedule)
        mutant = flip_among(child, self.allowed | child, flips, rng)
        return self.repair(mutant, avoid=child & ~mutant)

    def recombine(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Optimal recombination: the cheapest cover within ``a | b`` plus adaptively many allowed lists.

        Never dearer than the cheaper parent (which it returns when nothing
        in the pool beats it).  ``a`` and ``b`` must be covers.
        """
        flips = adaptive_flips(int(np.count_nonzero(a != b)), **self.schedule)
        union = a | b
        pool = flip_among(union, self.allowed & ~union, flips, rng)
        better = a if self.cost(a) <= self.cost(b) else b
        found = cheapest_subcover(self.instance, pool, incumbent=better, node_limit=self.node_limit)
        return self.repair(pool) if found is None else found  # None: unrepaired parents that cover too little

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The most flips of the schedule among the allowed (and chosen) lists; unrepaired, as every kind's mutant."""
        return flip_among(genome, self.allowed | genome, adaptive_flips(0, **self.schedule), rng)
