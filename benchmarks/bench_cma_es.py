"""CMA-ES: evaluations to a target, evo's `cma-es` against pycma's `cma.fmin2`, in one run.

Rosenbrock (runs/cma-es-rosenbrock.toml, 10-D): for each seed, evo's
algorithm is driven exactly as `evo run` drives it (the same parts, scorer
and tracker: the same trajectory) without writing the log, until f <= 1e-8
or 10^5 evaluations; pycma (`pip install 'evo-pipeline[bench]'`) starts from
the same point with the same sigma, lambda and IPOP restarts, its own seed.
Table (`--table`): generations and evaluations until the best individual
reaches the genome's ceiling (the fitness of the pure expert column: 50%
against the expert and minimax) within the spec's own stop rules, for
runs/cma-es-table.toml and the GA's runs/nim-table.toml.

    python benchmarks/bench_cma_es.py [--seeds 10] [--table [--specs SPEC ...]]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from pipeline.evaluation import LocalEvaluator  # noqa: E402
from pipeline.evolution import State, Tracker, variation_rng  # noqa: E402
from pipeline.evolution.parts import build_parts  # noqa: E402
from pipeline.evolution.scoring import Scorer  # noqa: E402
from pipeline.spec import load_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TARGET, BUDGET = 1e-8, 100_000


def evo_generations(spec_path: Path, seed: int, reached, budget: int, **overrides):
    """(evaluations, generations, wall seconds) until `reached(state)`, or None if the spec's stop
    rules (or `budget` evaluations) end the run first."""
    spec = load_spec(spec_path, {"seed": seed, "execution.workers": 0, **overrides})
    parts = build_parts(spec)
    scorer = Scorer(LocalEvaluator(spec.task_spec()), parts.noise, parts.objectives)
    tracker, state, started = Tracker(spec, parts.objectives), State(), time.perf_counter()
    while state.evaluations < budget and tracker.stop_reason(state) is None:
        generation = state.generation + 1
        batch = parts.algorithm.ask(state, variation_rng(spec.seed, generation))
        scorer.score(generation, batch)
        state = tracker.update(parts.algorithm.tell(state, batch), batch)
        if reached(state):
            return state.evaluations, state.generation, time.perf_counter() - started
    return None


def evo_rosenbrock(seed: int) -> int | None:
    found = evo_generations(ROOT / "runs/cma-es-rosenbrock.toml", seed, lambda s: s.best_so_far <= TARGET, BUDGET)
    return None if found is None else found[0]


def pycma_rosenbrock(seed: int) -> int | None:
    """pycma from evo's first mean (then, on each IPOP restart, a fresh uniform point), same sigma and lambda."""
    import cma

    spec = load_spec(ROOT / "runs/cma-es-rosenbrock.toml", {"seed": seed})
    parts = build_parts(spec)
    first = parts.kind.init(1, variation_rng(seed, 0))[0]
    given, fresh = [first], np.random.default_rng(seed)
    calls, hit = [0], [None]

    def f(x: np.ndarray) -> float:
        calls[0] += 1
        value = float(parts.task.evaluate([np.asarray(x)], [0])["f"][0])
        if value <= TARGET and hit[0] is None:
            hit[0] = calls[0]
        return value

    def x0() -> np.ndarray:
        return given.pop() if given else fresh.uniform(-1.0, 1.0, len(first))

    cma.fmin2(f, x0, spec.cma_es.sigma, restarts=spec.cma_es.restarts,
              options={"ftarget": TARGET, "maxfevals": BUDGET, "seed": seed + 1, "verbose": -9,
                       "popsize": spec.population.offspring})
    return hit[0] if hit[0] is not None and hit[0] <= BUDGET else None


def rosenbrock(seeds: int) -> None:
    print("| seed | evo cma-es evaluations | pycma fmin2 evaluations | ratio |")
    print("|---|---|---|---|")
    ours, theirs = [], []
    for seed in range(1, seeds + 1):
        a, b = evo_rosenbrock(seed), pycma_rosenbrock(seed)
        ours.append(a)
        theirs.append(b)
        ratio = f"{a / b:.2f}" if a and b else "-"
        print(f"| {seed} | {a if a else 'not reached'} | {b if b else 'not reached'} | {ratio} |", flush=True)
    reached = [a for a in ours if a]
    print(f"\nevo reached f <= {TARGET:g} on {len(reached)}/{seeds} seeds within {BUDGET:,} evaluations; "
          f"median evaluations evo {np.median(reached):.0f}, pycma {np.median([b for b in theirs if b]):.0f}, "
          f"ratio of medians {np.median(reached) / np.median([b for b in theirs if b]):.2f}")


def ceiling(spec_path: Path) -> float:
    """The fitness of the table genome's best: the pure expert column."""
    spec = load_spec(spec_path)
    parts = build_parts(spec)
    pure = np.zeros(parts.kind.init(1, np.random.default_rng(0))[0].shape)
    pure[:, list(spec.genome.columns).index("expert")] = 1.0
    columns = {k: v[0] for k, v in parts.task.evaluate([pure], [0]).items()}
    return parts.objectives.fitness(columns).wvalues[0]


def table(seeds: int, specs: list[str]) -> None:
    print("| spec | seed | generations to ceiling | evaluations | wall s |")
    print("|---|---|---|---|---|")
    for spec in specs:
        best = ceiling(ROOT / spec)
        counts = []
        for seed in range(1, seeds + 1):
            found = evo_generations(ROOT / spec, seed, lambda s: s.best_so_far >= best - 1e-12, 100_000)
            counts.append(found[0] if found else None)
            text = f"{found[1]} | {found[0]} | {found[2]:.1f}" if found else "not reached | | "
            print(f"| {spec} | {seed} | {text} |", flush=True)
        done = [c for c in counts if c]
        print(f"| {spec} | median of {len(done)}/{seeds} reached | | {np.median(done):.0f} | |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--table", action="store_true", help="the table genome's evaluations to its ceiling")
    parser.add_argument("--specs", nargs="+", default=["runs/cma-es-table.toml", "runs/nim-table.toml"],
                        help="with --table: the specs to compare")
    args = parser.parse_args()
    table(args.seeds, args.specs) if args.table else rosenbrock(args.seeds)


if __name__ == "__main__":
    main()
