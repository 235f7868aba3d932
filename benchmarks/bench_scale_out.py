"""Scale-out efficiency: how busy W workers are kept by each algorithm, against the machine's ceiling.

A fitness that only sleeps (`benchmarks/sleepy/sleepy.py`: t ms per genome,
optionally times a mean-1 lognormal factor of spread sigma) uses no CPU, so
on a `ray.cluster_utils.Cluster` with many logical CPUs (4 nodes x 16 by
default, all on this machine) what a run spends beyond the sleeps divided by
W is orchestration: variation, selection, logging, Ray calls, waiting.

    efficiency = (sum of a generation's sleeps / W) / the generation's wall time

For each (W, lambda, t, sigma): the generational loop, asynchronous
steady-state (and islands when `--islands N`), each run end to end through
`pipeline.run(..., address=cluster.address, workers=W)`; and in the same run
the ceiling: bare Ray actors sleeping the same durations with no evolution
(one chunk per worker, and small chunks pulled two at a time: the best of the
two). Also the pool's start: time to the first ready actor and to all.

    .venv/bin/python benchmarks/bench_scale_out.py --workers 8 32 64 --lam 256 1024 --ms 2 20 --sigma 0 1
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SLEEPY = ROOT / "benchmarks" / "sleepy"

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def spec(algorithm: str, lam: int, ms: float, sigma: float, generations: int, islands: int) -> dict:
    population = {"size": max(2, lam // 2), "offspring": lam, "algorithm": algorithm, "tournament": 2}
    data = {"name": "scale-" + algorithm.replace("+", "-plus-").replace(",", "-comma-"), "problem": "sleepy:Sleepy", "seed": 1, "generations": generations,
            "problem_options": {"ms": ms, "sigma": sigma, "bits": 64}, "genome": {"kind": "sleepy:Bits"},
            "population": population, "execution": {"code_dir": str(SLEEPY), "handover": False}}
    if algorithm == "islands":
        population.update(algorithm="mu+lambda", size=max(2, lam // (2 * islands)), offspring=lam // islands)
        data["islands"] = {"count": islands, "interval": max(1, generations // 2)}
    return data


def run_efficiency(run_dir: Path, workers: int) -> tuple[float, list[list[float]]]:
    """Total sleeps / W over total wall, generations 1.. (generation 0 also pays the pool's start)."""
    rows = pd.read_parquet(run_dir / "generations.parquet")
    individuals = pd.read_parquet(run_dir / "individuals", columns=["generation", "slept"])
    later = rows[rows["generation"] >= 1]
    slept = individuals[individuals["generation"] >= 1].groupby("generation")["slept"]
    ideal = slept.sum().sum() / workers
    durations = [list(group) for _, group in slept]
    return ideal / later["wall_seconds"].sum(), durations


def ceiling(workers: int, generations: list[list[float]]) -> float:
    """Bare Ray actors sleeping the same durations: the best of one chunk per worker and small pulled chunks."""
    import ray

    @ray.remote(num_cpus=1)
    class Sleeper:
        def sleep(self, durations: list[float]) -> int:
            for d in durations:
                time.sleep(d)
            return len(durations)

    actors = [Sleeper.remote() for _ in range(workers)]
    ray.get([a.__ray_ready__.remote() for a in actors])
    best = 0.0
    for chunks_per_worker in (1, 4):
        started, total = time.perf_counter(), 0.0
        for durations in generations:
            total += sum(durations)
            size = max(1, -(-len(durations) // (workers * chunks_per_worker)))
            chunks = [durations[i:i + size] for i in range(0, len(durations), size)]
            queued = {}
            free = list(actors) * 2  # two in flight per actor
            while chunks or queued:
                while chunks and free:
                    actor = free.pop(0)
                    queued[actor.sleep.remote(chunks.pop(0))] = actor
                done, _ = ray.wait(list(queued), num_returns=1)
                free.append(queued.pop(done[0]))
        best = max(best, total / workers / (time.perf_counter() - started))
    for a in actors:
        ray.kill(a)
    return best


def pool_start(address: str, workers: int) -> tuple[float, float]:
    """Seconds from creating a pool of W actors to the first ready one, and to all of them."""
    from pipeline.evaluation import make_evaluator
    from pipeline.plugins import code_bundle
    from pipeline.spec import parse_spec

    run_spec = parse_spec(spec("mu+lambda", 8, 1, 0, 1, 1))
    evaluator = make_evaluator(run_spec.task_spec(), workers=workers, address=address, code=code_bundle(run_spec))
    first = evaluator.first_ready
    evaluator.wait_until_ready()
    all_ready = evaluator.all_ready
    evaluator.close()
    return first, all_ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--lam", type=int, nargs="+", default=[1024])
    parser.add_argument("--ms", type=float, nargs="+", default=[20.0])
    parser.add_argument("--sigma", type=float, nargs="+", default=[0.0, 1.0])
    parser.add_argument("--algorithms", nargs="+", default=["mu+lambda", "steady-state"])
    parser.add_argument("--islands", type=int, default=8, help="island count when 'islands' is an algorithm")
    parser.add_argument("--generations", type=int, default=6)
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=16, help="logical CPUs per node")
    parser.add_argument("--out", type=Path, default=None, help="JSON lines of results")
    args = parser.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    import pipeline

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": args.cpus, "include_dashboard": False})
    for _ in range(args.nodes - 1):
        cluster.add_node(num_cpus=args.cpus)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address)
    print("| W | λ | t ms | σ | algorithm | efficiency | ceiling | of ceiling | end to end s |", flush=True)
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for workers in args.workers:
                first, last = pool_start(cluster.address, workers)
                print(f"| {workers} | pool start | | | first actor {first:.1f} s, all {last:.1f} s | | | | |",
                      flush=True)
                for lam, ms, sigma in itertools.product(args.lam, args.ms, args.sigma):
                    durations = None
                    results = {}
                    for algorithm in args.algorithms:
                        out = Path(tmp) / f"{algorithm}-{workers}-{lam}-{ms}-{sigma}"
                        started = time.perf_counter()
                        pipeline.run(spec(algorithm, lam, ms, sigma, args.generations, args.islands),
                                     address=cluster.address, workers=workers, out=str(out))
                        seconds = time.perf_counter() - started
                        results[algorithm], slept = run_efficiency(out, workers)
                        results[algorithm] = (results[algorithm], seconds)
                        durations = durations or slept
                    top = ceiling(workers, durations)
                    for algorithm, (efficiency, seconds) in results.items():
                        row = {"workers": workers, "lam": lam, "ms": ms, "sigma": sigma, "algorithm": algorithm,
                               "efficiency": efficiency, "ceiling": top, "seconds": seconds}
                        print(f"| {workers} | {lam} | {ms:g} | {sigma:g} | {algorithm} | {efficiency:.2f} | "
                              f"{top:.2f} | {efficiency / top:.2f} | {seconds:.0f} |", flush=True)
                        if args.out:
                            with args.out.open("a") as sink:
                                sink.write(json.dumps(row) + "\n")
    finally:
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
