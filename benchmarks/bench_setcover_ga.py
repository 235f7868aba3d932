"""Set-cover GA quality: best cost after 100,000 evaluations on the seed-42 course instances.

A (mu + lambda) GA on the bitstring toolbox, evaluated in process with
``fitness.setcover.score``.  Every genome that is scored counts as one
evaluation: the initial population, every offspring, and every immigrant
brought in when the plateau detector fires.  Repair (greedy completion, then
dropping redundant lists) is part of making an offspring, not an evaluation.

    python benchmarks/bench_setcover_ga.py                     # all four sizes, seed 0
    python benchmarks/bench_setcover_ga.py 200 --seeds 0 1 2   # one size, several seeds
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as the targets say
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from fitness.setcover import Instance, score  # noqa: E402
from operators.bitstring import OneFifthRule, Plateau, make_toolbox  # noqa: E402

TARGETS = {100: 150, 200: 368, 500: 1200, 1000: 2750}
BEST_KNOWN_ELSEWHERE = {100: 150, 200: 368, 500: 1209, 1000: 2808}


@dataclass(frozen=True)
class Outcome:
    N: int
    best_cost: int
    evaluations: int
    seconds: float  # wall clock, building the instance included
    cpu_seconds: float  # this process's CPU time: what one core spent, whatever else the machine runs
    restarts: int  # how often the plateau detector fired
    strength: tuple[float, float]  # lowest and highest mutation rate the 1/5 rule chose


def evolve(N: int, *, evaluations: int, seed: int, mu: int = 40, lam: int = 40, patience: int = 150) -> Outcome:
    """Run the GA on instance (N, 42) until ``evaluations`` genomes have been scored; return the best cover.

    Each generation breeds ``lam`` offspring (tournament of 3, uniform
    crossover, asymmetric mutation at the 1/5-rule rate, repair that takes the
    lists the mutation dropped only as a last resort) and keeps the ``mu``
    best distinct genomes.  An offspring whose repaired genome was scored
    before is bred again instead of being scored twice (about a third of them
    are repeats otherwise).  When the best cost has not improved for
    ``patience`` generations (the plateau detector fires), the best quarter
    stays and the rest is replaced by ratio-greedy covers built from a random
    half of the lists each: good, and far apart.
    """
    started, cpu_started = time.perf_counter(), time.process_time()
    instance = Instance.from_problem(N, 42)
    rng = np.random.default_rng(seed)
    toolbox = make_toolbox(instance, rng, greedy_share=0.75, seed_rate=2.0, crossover="uniform")
    strength = OneFifthRule(value=2.0, low=1.0, high=8.0)
    plateau = Plateau(patience=patience)
    scored: set[bytes] = set()
    empty = np.zeros(instance.n_lists, dtype=bool)
    used = restarts = 0
    rates = [strength.value]

    def evaluate(individuals: list) -> None:
        nonlocal used
        scores = score(instance, np.array(individuals, dtype=bool))
        for individual, covered, cost in zip(individuals, scores.covered, scores.cost):
            individual.fitness.values = (int(covered), int(cost))
            scored.add(_key(individual))
        used += len(individuals)

    def unseen(count: int, make: Callable[[], list]) -> list:
        """``count`` individuals from ``make()`` (within the budget) that were never scored."""
        batch, keys, misses = [], set(), 0
        while len(batch) < min(count, evaluations - used):
            for individual in make():
                key = _key(individual)
                if (key in scored or key in keys) and misses < _RETRIES:
                    misses += 1
                    continue
                batch.append(individual)
                keys.add(key)
        return batch[: min(count, evaluations - used)]

    def breed() -> list:
        a, b = toolbox.select(population, 2)
        children = []
        for child in toolbox.mate(a, b):
            (mutant,) = toolbox.mutate(child, rate=strength.value)
            children.append(toolbox.repair(mutant, avoid=child & ~mutant))
            children[-1].parents_fitness = max(a.fitness, b.fitness)
        return children

    population = [toolbox.repair(ind) for ind in toolbox.population(mu)]
    evaluate(population)
    while used < evaluations:
        offspring = unseen(lam, breed)
        evaluate(offspring)
        strength = strength.update(sum(c.fitness > c.parents_fitness for c in offspring), len(offspring))
        rates.append(strength.value)
        population = _survivors(population + offspring, mu)
        plateau = plateau.update(population[0].fitness.values[1])
        if plateau.fired and used < evaluations:
            immigrants = unseen(mu - mu // 4, lambda: [toolbox.repair(empty, avoid=rng.random(len(empty)) < 0.5)])
            evaluate(immigrants)
            population = _survivors(population[: mu // 4] + immigrants, mu)
            plateau = plateau.reset()
            restarts += 1
    best = population[0]
    assert best.fitness.values[0] == instance.N, "repair keeps every cover feasible"
    return Outcome(
        N,
        int(best.fitness.values[1]),
        used,
        time.perf_counter() - started,
        time.process_time() - cpu_started,
        restarts,
        (min(rates), max(rates)),
    )


_RETRIES = 1000  # per batch; past this a batch may hold repeats (tiny instances run out of new covers)


def _key(genome: np.ndarray) -> bytes:
    return np.packbits(genome).tobytes()


def _survivors(individuals: list, mu: int) -> list:
    """The ``mu`` fittest distinct genomes (duplicates would crowd out diversity)."""
    seen, distinct = set(), []
    for individual in sorted(individuals, key=lambda ind: ind.fitness, reverse=True):
        key = _key(individual)
        if key not in seen:
            seen.add(key)
            distinct.append(individual)
    return distinct[:mu]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=sorted(TARGETS))
    parser.add_argument("--evaluations", type=int, default=100_000)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} (other processes slow the wall clock, not the CPU time)")
    print(
        f"{'N':>5} {'seed':>4} {'best cost':>10} {'evaluations':>12} {'wall s':>7} {'CPU s':>6} {'restarts':>8} "
        f"{'rates':>9} {'target':>7} {'elsewhere':>9}  met? (cost, and CPU <= 60 s)"
    )
    for N in args.sizes:
        for seed in args.seeds:
            out = evolve(N, evaluations=args.evaluations, seed=seed)
            target = TARGETS.get(N)
            met = "n/a" if target is None else "yes" if out.best_cost <= target and out.cpu_seconds <= 60 else "NO"
            rates = f"{out.strength[0]:g}-{out.strength[1]:g}"
            print(
                f"{N:>5} {seed:>4} {out.best_cost:>10,} {out.evaluations:>12,} {out.seconds:>7.1f} "
                f"{out.cpu_seconds:>6.1f} {out.restarts:>8} {rates:>9} {target or '-':>7} "
                f"{BEST_KNOWN_ELSEWHERE.get(N, '-'):>9}  {met}",
                flush=True,
            )


if __name__ == "__main__":
    main()
