"""Parent selection: which members of a population breed (indices, drawn from an explicit rng).

One tie rule for the whole project: **equal fitness is a tie, and a tie goes
to whoever comes first** — in a tournament, the entrant drawn first (as DEAP's
`selTournament`); in a ranking, the member earlier in the order given
(`best_first` is a stable sort, as DEAP's `selBest`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["best_first", "bounded_draws", "dense_ranks", "viable_indices", "keys_of_values", "oldest_first_ranking",
           "ranks_of_values", "tournament", "tournament_keys", "uniform"]


def viable_indices(individuals: Sequence[Any]) -> np.ndarray:
    """Indices of the individuals with a valid fitness: a failed evaluation has DEAP's invalid
    (empty) fitness and is no parent while others can be; all of them if none is valid."""
    valid = [i for i, ind in enumerate(individuals) if ind.fitness.valid]
    return np.asarray(valid if valid else range(len(individuals)), dtype=np.int64)


def best_first(individuals: Sequence[Any]) -> list[Any]:
    """The individuals fittest first (their `.fitness`, a DEAP fitness); ties keep the given order;
    invalid fitnesses (failed evaluations: no values, an empty tuple) come after every valid one.

    Sorted by the weighted values DEAP compares, as tuples (compared in C, not
    through `Fitness.__lt__`); a stable sort, reversed, keeps ties in order."""
    return sorted(individuals, key=lambda ind: ind.fitness.wvalues, reverse=True)


def oldest_first_ranking(individuals: Sequence[Any]) -> list[Any]:
    """`best_first` over the individuals in order of birth (`.id`): ties go to the older one
    (the hall of fame, and the population files' rank)."""
    return best_first(sorted(individuals, key=lambda ind: ind.id))


def dense_ranks(individuals: Sequence[Any]) -> np.ndarray:
    """Rank of each individual, 0 the fittest, equal fitness equal rank."""
    return ranks_of_values(_weighted_values(individuals))


def ranks_of_values(values: np.ndarray) -> np.ndarray:
    """`dense_ranks` from the weighted values themselves (one row per individual).

    DEAP orders fitnesses by their weighted values, lexicographically; so does
    `np.unique` over rows, in C instead of a Python sort calling `Fitness.__lt__`."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.int64)
    if values.shape[1] == 1:  # one objective: a 1-d unique, several times faster than over rows
        _, inverse = np.unique(values[:, 0], return_inverse=True)
    else:
        _, inverse = np.unique(values, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return (inverse.max() - inverse).astype(np.int64)


def tournament_keys(individuals: Sequence[Any]) -> np.ndarray:
    """What a tournament compares for each individual: lower is fitter, equal fitness an equal
    key. Made once a generation, so every tournament is an argmin over an array."""
    return keys_of_values(_weighted_values(individuals))


def keys_of_values(values: np.ndarray) -> np.ndarray:
    """`tournament_keys` from the weighted values (one row per individual): with one objective
    the negated value itself, no sort (a steady-state population changes a key with every
    arrival); with several, `ranks_of_values`. Either way the same entrant wins every tournament."""
    if values.ndim < 2 or values.shape[1] == 0:  # no values at all (every evaluation failed): all tie
        return np.zeros(len(values))
    if len(values) and values.shape[1] == 1:
        return -values[:, 0]
    return ranks_of_values(values)


def _weighted_values(individuals: Sequence[Any]) -> np.ndarray:
    """One row of weighted values per individual (none: no rows)."""
    if not individuals:
        return np.zeros((0, 1), dtype=np.float64)
    return np.array([ind.fitness.wvalues for ind in individuals], dtype=np.float64)


SCALAR_ENTRANTS = 16  # a tournament of up to this many draws in all is run entrant by entrant


def tournament(keys: Sequence[float] | np.ndarray, k: int, size: int, rng: np.random.Generator) -> list[int]:
    """Indices of `k` tournament winners, each the entrant of lowest key (`tournament_keys`) among
    `size` drawn with replacement (a tie goes to the entrant drawn first; a NaN key wins, as
    `argmin`'s). A breeder calls it child by child, where NumPy's call costs more than its
    draws: a few entrants are drawn one by one (`bounded_draws`, the same draws), quickest
    from keys as a list (`keys.tolist()`: Python floats compare at half a NumPy scalar's cost),
    and the winners come as a list (a breeder takes them one by one)."""
    if k * size > SCALAR_ENTRANTS:
        entrants = rng.integers(len(keys), size=k * size).reshape(k, size)  # as size=(k, size), cheaper
        return entrants[np.arange(k), np.asarray(keys)[entrants].argmin(axis=1)].tolist()
    draw, n, winners = bounded_draws(rng), len(keys), []
    for _ in range(k):
        best = draw(n)
        lowest = keys[best]
        for _ in range(size - 1):
            entrant = draw(n)
            key = keys[entrant]
            if key < lowest or (key != key and lowest == lowest):
                best, lowest = entrant, key
        winners.append(best)
    return winners


def bounded_draws(rng: np.random.Generator) -> Callable[[int], int]:
    """`draw(n)`: what `int(rng.integers(n))` gives (1 <= n <= 2**32), at a fifth of its cost.

    NumPy draws a bounded integer below 2**32 by Lemire's method on the bit
    generator's 32-bit outputs, one at a time (so `rng.integers(n, size=m)`
    equals m scalar draws); the same arithmetic on the same outputs, through
    the bit generator's C function, skips `integers`' argument handling (~4 µs
    a call). tests/operators/test_selection.py holds it to `rng.integers`."""
    bits = rng.bit_generator.ctypes
    next_uint32, state = bits.next_uint32, bits.state

    def draw(n: int) -> int:
        if n == 1:  # NumPy draws nothing for a range of one
            return 0
        scaled = next_uint32(state) * n
        if (scaled & 0xFFFFFFFF) < n:
            threshold = (0x100000000 - n) % n
            while (scaled & 0xFFFFFFFF) < threshold:
                scaled = next_uint32(state) * n
        return scaled >> 32

    return draw


def uniform(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """`k` indices drawn uniformly with replacement (no pressure: NSGA-II puts it in survival)."""
    return rng.integers(n, size=k)
