"""The bitstring genome kind (set cover): one bool per list of the instance, True = chosen.

Conventions every genome kind follows:

- A genome is plain data (here a 1-D numpy bool array); DEAP ``creator``
  classes exist only inside the toolbox and never cross to Ray workers.
- Operators are plain functions grouped by role (init, crossover, mutation,
  repair).  Randomness comes from an explicit ``numpy.random.Generator``,
  never the global ``random``.  They return new arrays and leave their
  arguments untouched.
- ``to_record`` / ``from_record`` give the lossless Parquet form.
- Controllers that steer a run (``OneFifthRule``, ``Plateau``) are frozen
  dataclasses: ``dataclasses.asdict`` is their checkpoint, ``Cls(**state)``
  restores them, and ``update`` returns the next state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np
from deap import base, creator

from fitness.setcover import Instance, complete_cover, ratio_greedy, remove_redundant

FITNESS_CLASS = "BitstringFitness"
INDIVIDUAL_CLASS = "BitstringIndividual"
WEIGHTS = (1.0, -1.0)  # (covered, cost): cover everything first, then be cheap


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


# --- run controllers ------------------------------------------------------


@dataclass(frozen=True)
class OneFifthRule:
    """Mutation strength steered toward a 1/5 success rate (Rechenberg's rule).

    Each success multiplies ``value`` by ``factor``, each failure divides it by
    ``factor ** (1/4)``: the value is stable exactly when one trial in five
    succeeds, grows when mutations succeed more often and shrinks otherwise.
    """

    value: float
    factor: float = 1.5
    low: float = 1.0
    high: float = 64.0

    def update(self, successes: int, trials: int) -> OneFifthRule:
        """The controller after ``trials`` offspring of which ``successes`` beat their parents."""
        if not 0 <= successes <= trials:
            raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
        value = self.value * self.factor ** ((5 * successes - trials) / 4)
        return replace(self, value=float(min(self.high, max(self.low, value))))


@dataclass(frozen=True)
class Plateau:
    """Fires once the best value (minimised) has not improved by more than ``min_delta`` for ``patience`` updates."""

    patience: int
    min_delta: float = 0.0
    best: float | None = None
    stale: int = 0

    def update(self, value: float) -> Plateau:
        """Record this generation's best value."""
        if self.best is None or value < self.best - self.min_delta:
            return replace(self, best=float(value), stale=0)
        return replace(self, stale=self.stale + 1)

    @property
    def fired(self) -> bool:
        return self.stale >= self.patience

    def reset(self) -> Plateau:
        """Start counting again (after acting on a plateau), keeping the best value."""
        return replace(self, stale=0)


# --- DEAP toolbox ----------------------------------------------------------


def make_toolbox(
    instance: Instance,
    rng: np.random.Generator,
    *,
    p_init: float | None = None,
    seed_rate: float = 2.0,
    greedy_share: float = 0.5,
    crossover: str = "uniform",
    mutation_rate: float = 2.0,
    tournament: int = 3,
) -> base.Toolbox:
    """A DEAP toolbox over ``instance``: ``individual``, ``seeded``, ``population``, ``mate``, ``mutate``, ``repair``, ``select``.

    Individuals are ``creator.BitstringIndividual`` views of genome arrays,
    with a fitness over (covered, cost).  ``population(n)`` seeds
    ``greedy_share`` of them from the ratio-greedy cover (perturbed by
    ``seed_rate``), the rest sparse random with ``p_init`` (default: the
    greedy cover's density, so random genomes choose about as many lists).
    ``mate`` and ``mutate`` return new individuals with invalid fitness,
    leaving their arguments alone; ``mutate(ind, rate=...)`` overrides the
    mutation rate (for an adaptive controller).  ``select(individuals, k)`` is
    a tournament drawn from ``rng`` (DEAP's own uses the global ``random``).
    As with any ndarray individual, compare genomes with ``numpy.array_equal``
    (e.g. ``tools.HallOfFame(n, similar=np.array_equal)``).
    """
    if crossover not in CROSSOVERS:
        raise ValueError(f"crossover must be one of {sorted(CROSSOVERS)}, got {crossover!r}")
    if not 0.0 <= greedy_share <= 1.0:
        raise ValueError(f"greedy_share must be in [0, 1], got {greedy_share}")
    _ensure_creator_classes()
    cover = ratio_greedy(instance).mask(instance)
    if p_init is None:
        p_init = np.count_nonzero(cover) / instance.n_lists
    toolbox = base.Toolbox()
    toolbox.register("individual", lambda: _individual(init_sparse(instance.n_lists, rng, p_init)))
    toolbox.register("seeded", lambda: _individual(init_greedy(cover, rng, seed_rate)))

    def population(n: int) -> list[Any]:
        seeded = round(n * greedy_share)
        return [toolbox.seeded() for _ in range(seeded)] + [toolbox.individual() for _ in range(n - seeded)]

    toolbox.register("population", population)
    cross = CROSSOVERS[crossover]
    toolbox.register("mate", lambda a, b: tuple(_individual(c) for c in cross(np.asarray(a), np.asarray(b), rng)))
    toolbox.register(
        "mutate", lambda ind, rate=mutation_rate: (_individual(mut_asymmetric(np.asarray(ind), rng, rate)),)
    )
    toolbox.register("repair", lambda ind, avoid=None: _individual(repair(instance, np.asarray(ind), avoid)))
    toolbox.register("select", sel_tournament, rng=rng, size=tournament)
    return toolbox


def sel_tournament(individuals: Sequence[Any], k: int, rng: np.random.Generator, size: int) -> list[Any]:
    """``k`` winners of tournaments among ``size`` individuals drawn with replacement (fitter wins; ties: first drawn)."""
    entrants = rng.integers(len(individuals), size=(k, size))
    return [max((individuals[i] for i in row), key=lambda ind: ind.fitness) for row in entrants]


def _ensure_creator_classes() -> None:
    """Create the DEAP classes once per process; refuse a same-named class with other weights."""
    if not hasattr(creator, FITNESS_CLASS):
        creator.create(FITNESS_CLASS, base.Fitness, weights=WEIGHTS)
    elif getattr(creator, FITNESS_CLASS).weights != WEIGHTS:
        raise RuntimeError(f"creator.{FITNESS_CLASS} already exists with other weights")
    if not hasattr(creator, INDIVIDUAL_CLASS):
        creator.create(INDIVIDUAL_CLASS, np.ndarray, fitness=getattr(creator, FITNESS_CLASS))


def _individual(genome: np.ndarray) -> Any:
    """Wrap a genome array (no copy) as a DEAP individual with an empty fitness."""
    individual = np.asarray(genome, dtype=bool).view(getattr(creator, INDIVIDUAL_CLASS))
    individual.fitness = getattr(creator, FITNESS_CLASS)()
    return individual
