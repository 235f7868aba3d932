"""End-to-end wall time of `evo run` on one machine: in-process against an embedded Ray.

Each case runs `evo run SPEC --workers 0`, `--workers 1` and `--workers 2` as
separate processes, one after another, and reports the process wall times and
their ratios to `--workers 0` within each round (the machine is shared and
noisy: only same-round ratios mean anything). The `worker` column of a Ray
run's log says whether it handed over to the actors. Also measures a bare
embedded Ray start and stop.

    .venv/bin/python benchmarks/bench_one_machine.py --rounds 2 [--specs all]
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
ALL_CASES = CASES[:3] + [  # every shipped spec (`--specs all`)
    ("runs/nim-table-sampled.toml", []),
    ("runs/nim-gp.toml", []),
    ("runs/nim-gp-misere-k3.toml", ["--generations", "30"]),  # shortened: ~100 s a run otherwise
    ("runs/setcover-1000.toml", []),
] + CASES[3:]


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
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--specs", choices=["nim", "all"], default="nim")
    parser.add_argument("--match", default="", help="only cases whose spec path contains this")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        for spec, extra in (ALL_CASES if args.specs == "all" else CASES):
            if args.match not in spec:
                continue
            for r in range(args.rounds):
                local, _ = run(spec, extra, 0, Path(tmp) / "local")
                parts = [f"--workers 0 {local:.1f} s"]
                for workers in args.workers:
                    pooled, where = run(spec, extra, workers, Path(tmp) / f"pooled{workers}")
                    parts.append(f"--workers {workers} {pooled:.1f} s ({where}, ratio {pooled / local:.2f})")
                print(f"{spec} {' '.join(extra)}: round {r + 1}: " + ", ".join(parts), flush=True)
    for r in range(args.rounds):
        start, stop = ray_start_stop()
        print(f"embedded Ray, 2 CPUs: start {start:.1f} s, shutdown {stop:.1f} s")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
