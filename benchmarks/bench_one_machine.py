"""End-to-end wall time of `evo run` on one machine: in-process against an embedded Ray.

Each case runs `evo run SPEC --workers 0` and `--workers N` as separate
processes, alternating, and reports the process wall times and their ratio
within each round (the machine is shared and noisy: only same-round ratios
mean anything). The `worker` column of the Ray run's log says whether it
handed over to the actors. Also measures a bare embedded Ray start and stop.

    .venv/bin/python benchmarks/bench_one_machine.py --rounds 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CASES = [  # (spec, extra arguments): the shipped Nim specs, and one where evaluation dominates
    ("runs/nim-table.toml", []),
    ("runs/nim-rules.toml", []),
    ("runs/nim-misere-k3.toml", []),
    ("runs/nim-rules.toml", ["--generations", "160"]),
]


def run(spec: str, extra: list[str], workers: int, out: Path) -> tuple[float, str]:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.cli", "run", spec, *extra, "--workers", str(workers),
                    "--out", str(out), "--force"], cwd=ROOT, check=True, capture_output=True)
    wall = time.perf_counter() - start
    workers_seen = pd.read_parquet(out / "individuals")["worker"].str.split("@").str[0]
    share = (workers_seen != "local").mean()
    return wall, f"{share:.0%} on actors"


def ray_start_stop() -> tuple[float, float]:
    code = ("import time; t = time.perf_counter()\n"
            "from pipeline.evaluation.ray_connect import start_local_ray; start_local_ray(2)\n"
            "import ray; s = time.perf_counter(); ray.shutdown(); e = time.perf_counter()\n"
            "print(s - t, e - s)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    start, stop = map(float, out.stdout.split())
    return start, stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        for spec, extra in CASES:
            for r in range(args.rounds):
                local, _ = run(spec, extra, 0, Path(tmp) / "local")
                pooled, where = run(spec, extra, args.workers, Path(tmp) / "pooled")
                print(f"{spec} {' '.join(extra)}: round {r + 1}: --workers 0 {local:.1f} s, "
                      f"--workers {args.workers} {pooled:.1f} s ({where}), ratio {pooled / local:.2f}", flush=True)
    for r in range(args.rounds):
        start, stop = ray_start_stop()
        print(f"embedded Ray, 2 CPUs: start {start:.1f} s, shutdown {stop:.1f} s")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
