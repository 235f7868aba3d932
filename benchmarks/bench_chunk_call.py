"""One chunk's Ray call, as three arguments and a tuple back or `sealed` both ways: the caller's CPU.

    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 .venv/bin/python benchmarks/bench_chunk_call.py

Four local actors, each sent a chunk of 32 bool genomes of 64 bits and its
seeds, answering with two columns of 32 values (as the sleepy task's, without
the sleep); a round sends all four and waits for them. The two forms alternate,
round after round; the caller's thread and process CPU per call are printed as
medians. Why `transport.sealed` exists: Ray serialises each argument and each
value on its own, through a Python hook per object.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import ray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.evaluation.transport import opened, pack, sealed, unpack  # noqa: E402


class Echo:
    """Scores a chunk the way a task's columns come back, either form."""

    def three(self, packed: list, seeds: list[int], task_spec: dict | None) -> tuple[dict, float, None]:
        genomes = unpack(packed)
        return {"ones": np.array([int(np.count_nonzero(g)) for g in genomes]), "slept": np.zeros(len(seeds))}, 0.0, None

    def sealed(self, call: bytes) -> bytes:
        return sealed(self.three(*opened(call)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=6, help="alternations, each of --calls rounds a form")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    ray.init(num_cpus=6, include_dashboard=False, _temp_dir=tempfile.mkdtemp(prefix="bench-call-"))
    actors = [ray.remote(num_cpus=0)(Echo).remote() for _ in range(4)]
    rng = np.random.default_rng(0)
    genomes, seeds = [rng.random(64) < 0.5 for _ in range(32)], list(range(1000, 1032))
    forms = {
        "three arguments": lambda: ray.get([a.three.remote(pack(genomes), seeds, None) for a in actors]),
        "sealed": lambda: [opened(r) for r in ray.get([a.sealed.remote(sealed((pack(genomes), seeds, None)))
                                                      for a in actors])],
    }
    spent: dict[str, list[tuple[float, float]]] = {name: [] for name in forms}
    try:
        for _ in range(args.rounds):
            for name, send in forms.items():
                for _ in range(10):
                    send()
                thread, process = time.thread_time(), time.process_time()
                for _ in range(args.calls):
                    send()
                calls = args.calls * len(actors)
                spent[name].append(((time.thread_time() - thread) / calls, (time.process_time() - process) / calls))
    finally:
        ray.shutdown()
    for name, rounds in spent.items():
        print(f"{name}: µs a call, the caller's thread {statistics.median(t for t, _ in rounds) * 1e6:.0f}, "
              f"its process {statistics.median(p for _, p in rounds) * 1e6:.0f} (median of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
