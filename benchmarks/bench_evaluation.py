"""Per-call overhead of the Ray evaluator, as a share of a generation.

A "generation" here is one `evaluate` call on the whole population (wall
time). Compute is the task's own time on the busiest actor (what the actors
report); overhead = wall - compute: pickling and shipping genomes, Ray's round
trips, collecting results. Figures are medians over the timed generations.
Ray is started once (loopback, num_cpus = the most workers asked for).

    python benchmarks/bench_evaluation.py [--N 1000] [--population 200 2000] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from pipeline.display import print_table  # noqa: E402
from pipeline.evaluation import LocalEvaluator, evaluation_seeds, make_evaluator  # noqa: E402
from pipeline.evaluation.ray_connect import start_local_ray  # noqa: E402


def measure(evaluator, genomes: list, generations: int, warmup: int = 3) -> dict[str, float]:
    """Median wall, compute and overhead (seconds) of `generations` evaluate calls."""
    walls, computes = [], []
    for generation in range(warmup + generations):
        seeds = evaluation_seeds(0, generation, len(genomes))
        start = time.perf_counter()
        scored = evaluator.evaluate(genomes, seeds)
        wall = time.perf_counter() - start
        per_worker: dict[str, float] = defaultdict(float)
        for worker, seconds in zip(scored.worker, scored.eval_seconds):
            per_worker[worker] += seconds
        if generation >= warmup:
            walls.append(wall)
            computes.append(max(per_worker.values()))
    wall, compute = float(np.median(walls)), float(np.median(computes))
    overhead = float(np.median(np.subtract(walls, computes)))
    return {"wall": wall, "compute": compute, "overhead": overhead}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--N", type=int, default=1000, help="set-cover instance size (course generator, seed 42)")
    parser.add_argument("--population", type=int, nargs="+", default=[200])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--generations", type=int, default=30)
    parser.add_argument("--density", type=float, default=0.5, help="share of lists chosen by a random genome")
    args = parser.parse_args()

    spec = {"problem": "setcover", "N": args.N, "seed": 42}
    load = os.getloadavg()[0]
    start_local_ray(max(args.workers))
    local = LocalEvaluator(spec)
    rng = np.random.default_rng(0)
    batches = {p: [rng.random(local.task.instance.n_lists) < args.density for _ in range(p)] for p in args.population}
    figures = {}
    for workers in [0, *args.workers]:
        with make_evaluator(spec, workers=workers) if workers else local as evaluator:
            for population, genomes in batches.items():
                figures[population, workers] = measure(evaluator, genomes, args.generations)
    rows = []
    for (population, workers), m in sorted(figures.items()):
        rows.append([
            str(population),
            f"{workers} worker{'s' * (workers > 1)}" if workers else "in-process",
            f"{m['wall'] * 1e3:.1f}",
            f"{m['compute'] * 1e3:.1f}",
            f"{m['overhead'] * 1e3:.1f}",
            f"{100 * m['overhead'] / m['wall']:.1f} %",
        ])
    print_table(
        f"setcover N={args.N}, genome density {args.density}, median of {args.generations} generations "
        f"(load average {load:.1f} on {os.cpu_count()} CPUs)",
        ["population", "evaluator", "generation ms", "compute ms", "overhead ms", "overhead share"],
        rows,
    )


if __name__ == "__main__":
    main()
