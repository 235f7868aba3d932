"""What an evaluation actor's CPU costs per genome, plain against one that can be stolen from.

On a machine with fewer cores than actors the actors' own CPU bounds how
busy they can be kept, so the stealing actor's price (`execution.steal`: a
second thread for `steal`, and chunks evaluated slice by slice) is measured
here against the plain actor in the same run, alternating, on the sleep
fitness (`benchmarks/sleepy`): CPU (user + system of the actor process) per
genome while it sleeps through chunks, two calls in flight as the
dispatchers keep them.

    .venv/bin/python benchmarks/bench_actor_cpu.py --chunks 8 32 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SLEEPY = ROOT / "benchmarks" / "sleepy"

import numpy as np  # noqa: E402
from cpu_roles import cpu_seconds  # noqa: E402


def per_genome(ray, handle, method: str, chunk: int, genomes: int, ms: float) -> float:
    """CPU milliseconds per genome of actor `handle` scoring `genomes` genomes in chunks of `chunk`."""
    from pipeline.evaluation.transport import pack

    packed, seeds = pack([np.zeros(64, bool)] * chunk), list(range(chunk))
    pid = ray.get(handle.__ray_call__.remote(lambda actor: os.getpid()))
    before = cpu_seconds(pid)
    for call in range(0, genomes // chunk, 2):
        if method == "evaluate":
            ray.get([handle.evaluate.remote(packed, seeds) for _ in range(2)])
        else:
            ray.get([handle.evaluate_range.remote(call + k, packed, seeds, 0, chunk) for k in range(2)])
    return (cpu_seconds(pid) - before) / genomes * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--genomes", type=int, default=640, help="genomes per measurement")
    parser.add_argument("--ms", type=float, default=20.0, help="sleep per genome")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import ray

    from pipeline.evaluation.ray_pool import STEAL_GROUP, _StealingTaskActor, _TaskActor

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": f"{ROOT}:{SLEEPY}"}})
    spec = {"problem": "sleepy:Sleepy", "options": {"ms": args.ms, "sigma": 0, "bits": 64}}
    plain = ray.remote(_TaskActor).options(num_cpus=1).remote()
    stealing = ray.remote(concurrency_groups=STEAL_GROUP)(_StealingTaskActor).options(num_cpus=1).remote()
    ray.get([plain.setup.remote(spec), stealing.setup.remote(spec)])
    cases = [("plain", plain, "evaluate"), ("stealing", stealing, "evaluate"), ("stealing", stealing, "evaluate_range")]
    print(f"t = {args.ms:g} ms a genome, {args.genomes} genomes a measurement, median of {args.rounds} rounds")
    print("| genomes a chunk | actor | method | CPU ms a genome | against plain |")
    print("|---|---|---|---|---|")
    for chunk in args.chunks:
        found: dict[int, list[float]] = {i: [] for i in range(len(cases))}
        for _ in range(args.rounds):
            for i, (_, handle, method) in enumerate(cases):
                found[i].append(per_genome(ray, handle, method, chunk, args.genomes, args.ms))
        base = statistics.median(found[0])
        for i, (name, _, method) in enumerate(cases):
            cost = statistics.median(found[i])
            print(f"| {chunk} | {name} | `{method}` | {cost:.3f} | {cost / base:.2f} |", flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
