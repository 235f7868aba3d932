"""The bitstring genome kind (set cover): one bool per list of the instance, True = chosen.

Conventions every genome kind follows:

- A genome is plain data (here a 1-D numpy bool array); only plain data
  crosses to Ray workers, never DEAP ``creator`` classes.
- Operators are plain functions grouped by role (init, crossover, mutation,
  repair).  Randomness comes from an explicit ``numpy.random.Generator``,
  never the global ``random``.  They return new arrays and leave their
  arguments untouched.
- ``to_record`` / ``from_record`` give the lossless Parquet form.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from fitness.setcover import Instance, complete_cover, remove_redundant


# --- record ---------------------------------------------------------------


def to_record(genome: np.ndarray) -> list[bool]:
    """The genome as a list of bools (one per list; its length is the number of lists)."""
    return np.asarray(genome, dtype=bool).tolist()


def from_record(record: Sequence[bool] | np.ndarray) -> np.ndarray:
    """Inverse of ``to_record``: ``from_record(to_record(g))`` equals ``g`` exactly."""
    genome = np.array(record)
    if genome.ndim != 1 or genome.size == 0 or genome.dtype != np.bool_:
        raise ValueError(
            f"a bitstring record is a non-empty flat list of bools, got dtype {genome.dtype} shape {genome.shape}"
        )
    return genome


# --- init ------------------------------------------------------------------


def init_sparse(n_lists: int, rng: np.random.Generator, p: float) -> np.ndarray:
    """Each list chosen independently with probability ``p`` (small: covers need few lists)."""
    return rng.random(n_lists) < p


def init_greedy(cover: np.ndarray, rng: np.random.Generator, rate: float) -> np.ndarray:
    """A copy of a (ratio-greedy) cover perturbed by ``mut_asymmetric``: good starts that differ."""
    return mut_asymmetric(cover, rng, rate)


# --- crossover -------------------------------------------------------------


def cx_one_point(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Swap the tails after one cut point (the cut leaves both sides non-empty when possible)."""
    cut = int(rng.integers(1, len(a))) if len(a) > 1 else 0
    return np.concatenate((a[:cut], b[cut:])), np.concatenate((b[:cut], a[cut:]))


def cx_two_point(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Swap the segment between two cut points."""
    low, high = np.sort(rng.integers(0, len(a) + 1, size=2))
    first, second = a.copy(), b.copy()
    first[low:high], second[low:high] = b[low:high], a[low:high]
    return first, second


def cx_uniform(
    a: np.ndarray, b: np.ndarray, rng: np.random.Generator, p: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Each position swapped independently with probability ``p``."""
    swap = rng.random(len(a)) < p
    return np.where(swap, b, a), np.where(swap, a, b)


def uniform_child(a: np.ndarray, b: np.ndarray, rng: np.random.Generator, p: float = 0.5) -> np.ndarray:
    """The first child of ``cx_uniform`` alone, from the same draws (for loops that keep one child)."""
    return np.where(rng.random(len(a)) < p, b, a)


CROSSOVERS = {"one_point": cx_one_point, "two_point": cx_two_point, "uniform": cx_uniform}


# --- mutation --------------------------------------------------------------


def mut_flip(genome: np.ndarray, rng: np.random.Generator, p: float) -> np.ndarray:
    """Flip each bit with probability ``p``; if none flipped, flip one at random (a mutant always differs)."""
    flips = rng.random(len(genome)) < p
    if not flips.any():
        flips[rng.integers(len(genome))] = True
    return genome ^ flips


def mut_asymmetric(genome: np.ndarray, rng: np.random.Generator, rate: float) -> np.ndarray:
    """Drop about ``rate`` chosen lists and add about ``rate`` others; at least one flip.

    Plain flips with a small per-bit probability almost only add lists to a
    sparse cover; separate per-bit rates for chosen and unchosen lists
    (Jansen and Sudholt's asymmetric mutation) make removals as likely as
    additions.
    """
    ones = np.count_nonzero(genome)
    zeros = len(genome) - ones
    p = np.where(genome, min(1.0, rate / max(ones, 1)), min(1.0, rate / max(zeros, 1)))
    flips = rng.random(len(genome)) < p
    if not flips.any():
        flips[rng.integers(len(genome))] = True
    return genome ^ flips


# --- repair ----------------------------------------------------------------


def repair(instance: Instance, genome: np.ndarray, avoid: np.ndarray | None = None) -> np.ndarray:
    """Add best-ratio lists until every coverable element is covered, then drop redundant lists, largest first.

    On a coverable instance the result is a feasible cover in which every list
    holds an element no other chosen list holds.  Lists in the mask ``avoid``
    (say, those a mutation just dropped) are added back only as a last resort.
    """
    return remove_redundant(instance, complete_cover(instance, genome, avoid))
