"""How busy the island model keeps W workers, against one population and the machine's ceiling.

    .venv/bin/python benchmarks/islands_efficiency.py --workers 64 --islands 8 0 --ceiling 8

On a `ray.cluster_utils.Cluster` (4 nodes by default, all on this machine),
a plug-in problem that only sleeps t ms per genome (times a mean-1 lognormal
factor of spread sigma drawn from the genome's seed) runs end to end through
`pipeline.run(..., address=..., workers=W)`; `--islands 0` is one population
of lambda children, `--islands N` is N islands of lambda / N each.

    efficiency = (the sum of every evaluation's sleep / W) / the run's loop time

The loop time is the last generation's `elapsed_seconds` (every actor and
runner is ready before it starts: `wait_for_workers`); "after the first
epoch" leaves the first `interval` generations out. The ceiling: W bare Ray
actors sleeping the same number of draws in chunks of `--ceiling` genomes,
two in flight per actor, fed by one loop. This file is also the plug-in
(`Sleepy`, `Bits`): evo ships it to the actors as the spec's own module.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

HERE = Path(__file__).resolve().parent


class Sleepy:
    """Sleeps `ms` per genome (lognormal factor `sigma`, from its seed); objective: its ones."""

    objectives = ("ones",)
    weights = (1.0,)

    def __init__(self, options: dict) -> None:
        self.ms, self.sigma, self.bits = float(options["ms"]), float(options["sigma"]), int(options.get("bits", 64))

    def evaluate(self, genomes: list, seeds: list[int]) -> dict:
        slept = []
        for seed in seeds:
            factor = math.exp(self.sigma * np.random.default_rng(seed).standard_normal() - self.sigma ** 2 / 2)
            slept.append(self.ms / 1000 * (factor if self.sigma else 1.0))
            time.sleep(slept[-1])
        return {"ones": np.array([int(np.count_nonzero(g)) for g in genomes]), "slept": np.array(slept)}


class Bits:
    """A plain bit string: uniform crossover, one flipped bit."""

    record_type = pa.list_(pa.bool_())

    def __init__(self, options: dict, task: Sleepy) -> None:
        self.n = task.bits

    def init(self, n: int, rng: np.random.Generator) -> list:
        return [rng.random(self.n) < 0.5 for _ in range(n)]

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(self.n) < 0.5, a, b)

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        child = genome.copy()
        child[rng.integers(self.n)] ^= True
        return child

    def to_record(self, genome: np.ndarray) -> list:
        return genome.tolist()

    def from_record(self, record: list) -> np.ndarray:
        return np.asarray(record, dtype=bool)


def spec(args: argparse.Namespace, islands: int) -> dict:
    count = islands or 1
    data = {"name": "islands-efficiency", "problem": "islands_efficiency:Sleepy", "seed": 1,
            "problem_options": {"ms": args.ms, "sigma": args.sigma}, "genome": {"kind": "islands_efficiency:Bits"},
            "generations": args.generations, "population": {"size": args.lam // count, "offspring": args.lam // count},
            "execution": {"code_dir": str(HERE), "wait_for_workers": True, "handover": False,
                          "chunk_size": args.chunk}}
    if islands:
        data["islands"] = {"count": islands, "interval": args.interval, "migrants": 2}
    return data


def efficiency(args: argparse.Namespace, islands: int, address: str, out: Path) -> tuple[float, float]:
    import pipeline

    run = pipeline.run(spec(args, islands), address=address, workers=args.workers, out=str(out), force=True)
    rows = run.generations()
    scored = run.individuals(columns=["generation", "born", "origin", "slept"])
    scored = scored[(scored.origin != "migrant") | (scored.born < scored.generation)]  # placements sleep nothing
    loop = float(rows["elapsed_seconds"].iloc[-1])
    later = scored[scored.generation > args.interval]["slept"].sum()
    span = loop - float(rows["elapsed_seconds"].iloc[args.interval])
    return scored["slept"].sum() / args.workers / loop, later / args.workers / span


def ceiling(args: argparse.Namespace, chunk: int) -> float:
    import ray

    @ray.remote(num_cpus=1, scheduling_strategy="SPREAD")
    class Sleeper:
        def run(self, durations: list[float]) -> None:
            for d in durations:
                time.sleep(d)

    actors = [Sleeper.remote() for _ in range(args.workers)]
    ray.get([a.__ray_ready__.remote() for a in actors])
    total = args.lam * (args.generations + 1)
    durations = args.ms / 1000 * np.exp(args.sigma * np.random.default_rng(0).standard_normal(total) - args.sigma ** 2 / 2)
    chunks = [durations[i:i + chunk].tolist() for i in range(0, total, chunk)][::-1]
    started, running, load = time.perf_counter(), {}, [0] * len(actors)
    while chunks or running:
        for a, actor in enumerate(actors):
            while load[a] < 2 and chunks:
                running[actor.run.remote(chunks.pop())] = a
                load[a] += 1
        for ref in ray.wait(list(running), num_returns=1)[0]:
            load[running.pop(ref)] -= 1
    wall = time.perf_counter() - started
    for actor in actors:
        ray.kill(actor)
    return float(durations.sum()) / args.workers / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=64)
    parser.add_argument("--islands", type=int, nargs="+", default=[8, 0], help="0: one population")
    parser.add_argument("--lam", type=int, default=1024, help="children a generation, over all islands")
    parser.add_argument("--ms", type=float, default=20.0)
    parser.add_argument("--sigma", type=float, default=1.0)
    parser.add_argument("--interval", type=int, default=5)
    parser.add_argument("--generations", type=int, default=20)
    parser.add_argument("--chunk", type=int, default=None, help="execution.chunk_size (default: automatic)")
    parser.add_argument("--ceiling", type=int, nargs="*", default=[8], help="chunk sizes of the bare-actor ceiling")
    parser.add_argument("--nodes", type=int, default=4)
    args = parser.parse_args()
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    sys.path.insert(0, str(HERE.parent))
    import tempfile

    import ray
    from ray.cluster_utils import Cluster

    per_node = -(-args.workers // args.nodes)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": per_node, "include_dashboard": False})
    for _ in range(args.nodes - 1):
        cluster.add_node(num_cpus=per_node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address)  # as a Ray Job's driver would: pipeline reuses it
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for chunk in args.ceiling:
                print(f"ceiling W={args.workers} chunk={chunk}: {ceiling(args, chunk):.3f}", flush=True)
            for islands in args.islands:
                whole, later = efficiency(args, islands, cluster.address, Path(tmp) / f"islands-{islands}")
                print(f"islands={islands} W={args.workers} lambda={args.lam} t={args.ms:g} ms sigma={args.sigma:g} "
                      f"generations={args.generations}: efficiency {whole:.3f}, after the first epoch {later:.3f}",
                      flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()


if __name__ == "__main__":
    main()
