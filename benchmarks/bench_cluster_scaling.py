"""Workers 1 -> 2 -> 4 on a 2-node Ray cluster, and the driver-time model behind it.

Starts a `ray.cluster_utils.Cluster` of two nodes (2 logical CPUs each) on
loopback, joins it as the driver (so every run uses its actors from the first
generation; no in-process handover), and runs an evaluation-dominated spec
(`runs/nim-rules.toml` with sampled opponents, --games per opponent) with 1, 2
and 4 workers. Speed is read back from each run's own log, generation 0 left
out (it also starts the actors). Each speed-up is set against what this
machine allows: the work 2 and 4 busy processes get done relative to one.

Then the parameters of the model in benchmarks/README.md, measured in-process:
driver seconds per generation (fixed and per individual) and evaluation
seconds per game, plus the Ray round trip per call.

    .venv/bin/python benchmarks/bench_cluster_scaling.py [--games 400] [--generations 6]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from bench_pipeline_scaling import machine_parallelism  # noqa: E402
from pipeline.runner import start_run  # noqa: E402
from pipeline.spec import load_spec  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "runs" / "nim-rules.toml"


def _spec(games: int, workers: int, generations: int, out: Path, offspring: int = 160):
    opponents = {"expert": games, "random": games, "minimax": games}
    return load_spec(SPEC, {"execution.workers": workers, "generations": generations, "execution.output": str(out),
                            "nim.opponents": opponents, "population.offspring": offspring})


def _speed(out: Path) -> tuple[float, float]:
    """Evaluations/s after generation 0, and the mean driver seconds per generation."""
    generations = pd.read_parquet(out / "generations.parquet").iloc[1:]
    individuals = pd.read_parquet(out / "individuals")
    compute = individuals[individuals["generation"] >= 1].groupby("generation")["eval_seconds"].sum()
    wall = generations.set_index("generation")["wall_seconds"]
    evaluations = generations["evaluations"].iloc[-1] - pd.read_parquet(out / "generations.parquet")["evaluations"].iloc[0]
    return evaluations / wall.sum(), float((wall - compute).mean())


def scaling(games: int, generations: int, tmp: Path) -> dict[int, float]:
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
    cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, logging_level="ERROR", log_to_driver=False)
    try:
        speeds = {}
        for workers in (1, 2, 4):
            out = tmp / f"w{workers}"
            start_run(_spec(games, workers, generations, out), force=True)
            speeds[workers], _ = _speed(out)
            nodes = pd.read_parquet(out / "individuals")["worker"].str.split("/").str[-1].nunique()
            print(f"workers {workers}: {speeds[workers]:,.1f} evaluations/s (actors on {nodes} node(s))", flush=True)
        return speeds
    finally:
        ray.shutdown()
        cluster.shutdown()


def model_parameters(games: int, tmp: Path) -> None:
    """Driver time per generation against offspring count, evaluation time per game (in-process)."""
    rows = []
    for offspring in (80, 320):
        out = tmp / f"local{offspring}"
        start_run(_spec(games, 0, 4, out, offspring), force=True)
        generations = pd.read_parquet(out / "generations.parquet").iloc[1:]
        individuals = pd.read_parquet(out / "individuals")
        later = individuals[individuals["generation"] >= 1]
        evals = later.groupby("generation").size()
        compute = later.groupby("generation")["eval_seconds"].sum()
        driver = (generations.set_index("generation")["wall_seconds"] - compute).mean()
        per_game = compute.sum() / (len(later) * 3 * games)
        rows.append((offspring, float(evals.mean()), driver, per_game))
    (l1, n1, d1, e1), (l2, n2, d2, e2) = rows
    per_individual = (d2 - d1) / (n2 - n1)
    fixed = d1 - per_individual * n1
    print(f"driver per generation: {fixed * 1000:.1f} ms fixed + {per_individual * 1000:.3f} ms per individual")
    print(f"evaluation: {np.mean([e1, e2]) * 1e6:.2f} us per game (3 opponents per individual)")


def ray_round_trip(calls: int = 200) -> float:
    import ray

    ray.init(address="local", num_cpus=1, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        @ray.remote
        class Echo:
            def echo(self, x):
                return x

        actor = Echo.remote()
        ray.get(actor.echo.remote(0))
        started = time.perf_counter()
        for i in range(calls):
            ray.get(actor.echo.remote(i))
        return (time.perf_counter() - started) / calls
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="sampled games per opponent")
    parser.add_argument("--generations", type=int, default=6)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs; {args.games} games per opponent")
    with tempfile.TemporaryDirectory() as tmp:
        speeds = scaling(args.games, args.generations, Path(tmp))
        for workers in (2, 4):
            capacity = machine_parallelism(processes=workers)
            speedup = speeds[workers] / speeds[1]
            print(f"{workers} vs 1 workers: {speedup:.2f}x; this machine: {workers} busy processes do "
                  f"{capacity:.2f}x the work of one; speed-up / capacity = {speedup / capacity:.2f}")
        model_parameters(args.games, Path(tmp))
    print(f"Ray round trip per call (tiny payload): {ray_round_trip() * 1000:.2f} ms")


if __name__ == "__main__":
    main()
