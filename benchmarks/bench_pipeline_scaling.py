"""Evaluations/s of a whole run with 1 and 2 Ray workers (the Nim rule spec).

Runs `runs/nim-rules.toml` for a few generations per worker count (fresh
embedded Ray each time, output in a temp dir) and reads the speed back from
the run's own log. "Driver share" is the part of a generation not spent
computing fitness on the workers: variation, Ray calls, Parquet writes.

    python benchmarks/bench_pipeline_scaling.py [--generations 8] [--spec runs/nim-rules.toml]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import pandas as pd  # noqa: E402

from pipeline.runner import start_run  # noqa: E402
from pipeline.spec import load_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def measure(spec_path: Path, workers: int, generations: int, out: Path) -> dict[str, float]:
    spec = load_spec(spec_path, {"execution.workers": workers, "generations": generations,
                                 "execution.output": str(out)})
    start_run(spec, force=True)
    full = pd.read_parquet(out / "generations.parquet")
    gens = full.iloc[1:]  # generation 0 also builds the actors: left out
    individuals = pd.read_parquet(out / "individuals")
    compute = individuals[individuals["generation"] >= 1].groupby("generation")["eval_seconds"].sum()
    wall = gens.set_index("generation")["wall_seconds"]
    evaluations = full["evaluations"].iloc[-1] - full["evaluations"].iloc[0]
    return {
        "evals_per_s": evaluations / wall.sum(),
        "driver_share": float((1 - compute / (workers * wall)).clip(lower=0).mean()),
        "seconds_per_generation": float(wall.mean()),
    }


def _spin(seconds: float, out) -> None:
    started, n = time.perf_counter(), 0
    while time.perf_counter() - started < seconds:
        n += sum(i * i for i in range(10_000))
    out.put(n)


def machine_parallelism(seconds: float = 3.0, processes: int = 2) -> float:
    """Work `processes` busy processes get done, relative to one alone: 2.0 for two on
    two free cores; what the hardware allows is the ceiling for any speed-up measured here."""
    def run(processes: int) -> int:
        queue = multiprocessing.Queue()
        workers = [multiprocessing.Process(target=_spin, args=(seconds, queue)) for _ in range(processes)]
        for w in workers:
            w.start()
        total = sum(queue.get() for _ in workers)
        for w in workers:
            w.join()
        return total

    return run(processes) / run(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(ROOT / "runs" / "nim-rules.toml"))
    parser.add_argument("--generations", type=int, default=8)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            results[workers] = measure(Path(args.spec), workers, args.generations, Path(tmp) / f"w{workers}")
    print(f"spec {args.spec}, {args.generations} generations (generation 0 excluded)")
    print(f"{'workers':>8} {'evals/s':>10} {'s/gen':>8} {'driver share':>13}")
    for workers, r in results.items():
        print(f"{workers:>8} {r['evals_per_s']:>10,.1f} {r['seconds_per_generation']:>8.2f} "
              f"{r['driver_share']:>12.1%}")
    parallel = machine_parallelism()
    speedup = results[2]["evals_per_s"] / results[1]["evals_per_s"]
    print(f"speed-up 2 vs 1 workers: {speedup:.2f}x (target >= 1.8x)")
    print(f"this machine: two busy processes do {parallel:.2f}x the work of one "
          f"(2.00 on two free cores)")


if __name__ == "__main__":
    main()
