"""How many evaluations a second one driver can feed: the sleep plug-in at t = 0 on a local Ray.

With evaluations that cost nothing, the actors answer at once and what is left
is the run's serial part: the driver's breeding, insertion, Ray calls and
logging. Its CPU per evaluation is what bounds a run at small t (every
evaluation a second the driver cannot feed leaves a worker idle); see
benchmarks/README.md, "Scale-out".

With `--no-ray` the same loop runs against an in-process evaluator that
claims the W workers (batches sized and in flight as on W actors, each scored
at once): the driver's Python time alone, no Ray calls or threads.

    .venv/bin/python benchmarks/bench_driver_throughput.py --workers 8 --rounds 2
    .venv/bin/python benchmarks/bench_driver_throughput.py --workers 32 --rounds 3 --no-ray --generations 60
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SLEEPY = ROOT / "benchmarks" / "sleepy"


def spec(workers: int, lam: int, generations: int, islands: int, output: Path) -> dict:
    population = {"size": lam // 2, "offspring": lam, "algorithm": "steady-state", "tournament": 2}
    data = {"name": "driver-throughput", "problem": "sleepy:Sleepy", "seed": 1, "generations": generations,
            "problem_options": {"ms": 0, "sigma": 0, "bits": 64}, "genome": {"kind": "sleepy:Bits"},
            "population": population,
            "execution": {"code_dir": str(SLEEPY), "handover": False, "workers": workers, "wait_for_workers": True,
                          "output": str(output)}}
    if islands > 1:
        data["islands"] = {"count": islands, "interval": 5, "migrants": 2}
        population.update(size=lam // (2 * islands), offspring=lam // islands)
    return data


def one_run(data: dict) -> tuple[float, float, float, int]:
    """Driver CPU seconds (start-up included), end-to-end wall seconds (the actors' start and stop
    included), evaluations a second after generation 0, and evaluations."""
    import pandas as pd

    from pipeline.runner import start_run
    from pipeline.spec import parse_spec

    cpu, wall = time.process_time(), time.perf_counter()
    path = start_run(parse_spec(data))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rows = pd.read_parquet(Path(path) / "generations.parquet")
    first, later = rows[rows["generation"] == 0], rows[rows["generation"] >= 1]  # `evaluations`: cumulative
    evaluations = int(rows["evaluations"].max())
    rate = (evaluations - int(first["evaluations"].iloc[0])) / later["wall_seconds"].sum()
    return cpu, wall, float(rate), evaluations


def claim_workers(workers: int) -> None:
    """Runs from here on score in this process, as if on `workers` actors (`--no-ray`)."""
    import pipeline.runner
    from pipeline.evaluation.local import LocalEvaluator

    class Claimed(LocalEvaluator):
        pass

    Claimed.workers = workers
    pipeline.runner.make_evaluator = lambda task_spec, **kwargs: Claimed(task_spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lam", type=int, default=1024, help="children a generation (of all islands)")
    parser.add_argument("--generations", type=int, default=10)
    parser.add_argument("--islands", type=int, default=1, help="steady-state islands (1: one population)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true", help="score in this process, claiming the workers")
    args = parser.parse_args()
    import ray

    started = time.perf_counter()
    if args.no_ray:
        claim_workers(args.workers)
    else:
        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        print(f"Ray started in {time.perf_counter() - started:.1f} s")
    print("| round | driver CPU s | evaluations | driver CPU ms an evaluation | evaluations a second after "
          "generation 0 | end to end s (actors' start and stop included) |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:  # the runs' logs are not kept
        for round_ in range(1, args.rounds + 1):
            data = spec(args.workers, args.lam, args.generations, args.islands, Path(scratch) / f"run{round_}")
            if args.no_ray:  # the spec's own workers would start Ray: the evaluator claims them instead
                data["execution"]["workers"] = 0
            cpu, wall, rate, evaluations = one_run(data)
            print(f"| {round_} | {cpu:.2f} | {evaluations:,} | {cpu / evaluations * 1000:.3f} | {rate:,.0f} | "
                  f"{wall:.1f} |", flush=True)
    if not args.no_ray:
        started = time.perf_counter()
        ray.shutdown()
        print(f"Ray stopped in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
