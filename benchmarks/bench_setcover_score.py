"""Set-cover scoring speed: ``fitness.setcover.score`` against a pure-Python set reference.

Both run in the same process on the seed-42 N = 1000 instance (3,619 lists),
one core, on random populations of several densities; the first row has the
density of a good cover (the ratio-greedy cover uses 13 lists), which is what a
GA scores.  The reference is checked to agree on every genome it scores.

    python benchmarks/bench_setcover_score.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from fitness.setcover import Instance, ratio_greedy, score  # noqa: E402

TARGET = 50_000  # individuals per second at N = 1000


def reference(instance: Instance, population: np.ndarray) -> list[tuple[int, int]]:
    """(covered, cost) per genome with Python sets: the slow, obvious version."""
    lists = [set(lst) for lst in instance.lists]
    results = []
    for genome in population.tolist():
        covered: set[int] = set()
        cost = 0
        for j, chosen in enumerate(genome):
            if chosen:
                covered |= lists[j]
                cost += len(lists[j])
        results.append((len(covered), cost))
    return results


def rate(function, population: np.ndarray, min_seconds: float = 1.0) -> tuple[float, object]:
    """Individuals per second, repeating until at least ``min_seconds`` have passed."""
    started, rounds = time.perf_counter(), 0
    while True:
        result = function(population)
        rounds += 1
        elapsed = time.perf_counter() - started
        if elapsed >= min_seconds:
            return rounds * len(population) / elapsed, result


def main() -> None:
    instance = Instance.from_problem(1000, 42)
    cover_lists = len(ratio_greedy(instance).chosen)
    rng = np.random.default_rng(0)
    print(f"N=1000, {instance.n_lists} lists; target {TARGET:,} individuals/s for score")
    print(f"{'lists/genome':>12} {'score ind/s':>12} {'reference ind/s':>16} {'ratio':>7}  target met?")
    for chosen in (cover_lists, 36, 180, 1810):
        p = chosen / instance.n_lists
        population = rng.random((20_000, instance.n_lists)) < p
        fast, scores = rate(lambda pop: score(instance, pop), population)
        sample = population[: max(20, 20_000 // chosen)]
        slow, expected = rate(lambda pop: reference(instance, pop), sample)
        assert expected == list(zip(scores.covered[: len(sample)].tolist(), scores.cost[: len(sample)].tolist()))
        met = "yes" if fast >= TARGET else "no"
        print(f"{population.sum(axis=1).mean():>12.1f} {fast:>12,.0f} {slow:>16,.0f} {fast / slow:>6.1f}x  {met}")


if __name__ == "__main__":
    main()
