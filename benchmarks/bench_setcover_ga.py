"""Set-cover GA quality: best cost after 100,000 evaluations on the seed-42 course instances.

A (mu + lambda) GA on the bitstring toolbox, evaluated in process with
``fitness.setcover.score``.  Every genome that is scored counts as one
evaluation: the initial population, every offspring, and every immigrant
brought in when the plateau detector fires.  Repair (greedy completion, then
dropping redundant lists) is part of making an offspring, not an evaluation.

    python benchmarks/bench_setcover_ga.py            # all four sizes
    python benchmarks/bench_setcover_ga.py 100 500    # some of them
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

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


def evolve(N: int, *, evaluations: int, seed: int, mu: int = 40, lam: int = 40) -> Outcome:
    """Run the GA on instance (N, 42) until ``evaluations`` genomes have been scored; return the best cost."""
    started, cpu_started = time.perf_counter(), time.process_time()
    instance = Instance.from_problem(N, 42)
    rng = np.random.default_rng(seed)
    toolbox = make_toolbox(instance, rng, greedy_share=0.75, seed_rate=2.0, crossover="uniform")
    strength = OneFifthRule(value=2.0, low=1.0, high=8.0)
    plateau = Plateau(patience=150)
    used = 0

    def evaluate(individuals: list) -> None:
        nonlocal used
        scores = score(instance, np.array(individuals, dtype=bool))
        for individual, covered, cost in zip(individuals, scores.covered, scores.cost):
            individual.fitness.values = (int(covered), int(cost))
        used += len(individuals)

    population = [toolbox.repair(ind) for ind in toolbox.population(mu)]
    evaluate(population)
    while used < evaluations:
        offspring, parents_best = [], []
        while len(offspring) < min(lam, evaluations - used):
            a, b = toolbox.select(population, 2)
            for child in toolbox.mate(a, b)[: min(lam, evaluations - used) - len(offspring)]:
                (child,) = toolbox.mutate(child, rate=strength.value)
                offspring.append(toolbox.repair(child))
                parents_best.append(max(a.fitness, b.fitness))
        evaluate(offspring)
        successes = sum(child.fitness > best for child, best in zip(offspring, parents_best))
        strength = strength.update(successes, len(offspring))
        population = _survivors(population + offspring, mu)
        plateau = plateau.update(population[0].fitness.values[1])
        if plateau.fired and used < evaluations:
            # Keep the best quarter, refill with fresh greedy-seeded covers.
            immigrants = [toolbox.repair(toolbox.seeded()) for _ in range(min(mu - mu // 4, evaluations - used))]
            evaluate(immigrants)
            population = _survivors(population[: mu // 4] + immigrants, mu)
            plateau = plateau.reset()
    best = population[0]
    return Outcome(
        N, int(best.fitness.values[1]), used, time.perf_counter() - started, time.process_time() - cpu_started
    )


def _survivors(individuals: list, mu: int) -> list:
    """The ``mu`` fittest distinct genomes (duplicates would crowd out diversity)."""
    seen, distinct = set(), []
    for individual in sorted(individuals, key=lambda ind: ind.fitness, reverse=True):
        key = np.packbits(individual).tobytes()
        if key not in seen:
            seen.add(key)
            distinct.append(individual)
    return distinct[:mu]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=sorted(TARGETS))
    parser.add_argument("--evaluations", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} (other processes slow the wall clock, not the CPU time)")
    print(
        f"{'N':>5} {'best cost':>10} {'evaluations':>12} {'wall s':>7} {'CPU s':>6} "
        f"{'target':>7} {'elsewhere':>9}  met? (cost and CPU <= 60 s)"
    )
    for N in args.sizes:
        outcome = evolve(N, evaluations=args.evaluations, seed=args.seed)
        target = TARGETS.get(N)
        met = outcome.best_cost <= target and outcome.cpu_seconds <= 60 if target else None
        print(
            f"{N:>5} {outcome.best_cost:>10,} {outcome.evaluations:>12,} {outcome.seconds:>7.1f} "
            f"{outcome.cpu_seconds:>6.1f} {target or '-':>7} {BEST_KNOWN_ELSEWHERE.get(N, '-'):>9}  "
            f"{'n/a' if met is None else 'yes' if met else 'NO'}",
            flush=True,
        )


if __name__ == "__main__":
    main()
