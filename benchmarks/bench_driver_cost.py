"""The driver's own cost per generation, d0 + d1 x lambda, this checkout against a reference.

A plug-in fitness that sleeps 0 ms (`benchmarks/sleepy`, 64-bit genomes) on
`--workers 0` leaves only the driver: variation, selection, scoring calls,
bookkeeping and logging. A generation's cost is CPU time (user + system of
the run's process, which other jobs on a shared machine do not inflate as
they do wall time): a run of 12 generations minus a run of 2, over 10. Per
lambda the median over rounds is taken, checkouts alternating within a
round, and a line is fitted through them.

    git worktree add /tmp/reference <older commit>
    .venv/bin/python benchmarks/bench_driver_cost.py --reference /tmp/reference --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SLEEPY = ROOT / "benchmarks" / "sleepy"


def _spec(lam: int, algorithm: str) -> dict:
    return {"name": "driver-cost", "problem": "sleepy:Sleepy", "seed": 1, "generations": 12,
            "problem_options": {"ms": 0.0, "bits": 64}, "genome": {"kind": "sleepy:Bits"},
            "population": {"size": max(2, lam // 2), "offspring": lam, "tournament": 2, "algorithm": algorithm},
            "execution": {"code_dir": str(SLEEPY), "workers": 0}}


def _cpu_seconds(checkout: Path, spec: dict, out: Path) -> float:
    code = ("import json, sys, pipeline; pipeline.run(json.loads(sys.argv[1]), out=sys.argv[2], force=True)")
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code, json.dumps(spec), str(out)], check=True, env=env, cwd=checkout,
                   stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _generation_seconds(checkout: Path, lam: int, algorithm: str, out: Path) -> float:
    """CPU seconds of one generation: 12 generations minus 2, over 10."""
    long, short = (_cpu_seconds(checkout, {**_spec(lam, algorithm), "generations": g}, out) for g in (12, 2))
    return (long - short) / 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True)
    parser.add_argument("--lam", type=int, nargs="+", default=[128, 512, 2048])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--algorithm", default="mu+lambda", help="steady-state: this checkout only")
    args = parser.parse_args()
    checkouts = {"this": ROOT} if args.algorithm == "steady-state" else {"this": ROOT, "reference": args.reference}
    seconds: dict[str, dict[int, list[float]]] = {name: {lam: [] for lam in args.lam} for name in checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            order = list(checkouts.items())[:: 1 if round_ % 2 == 0 else -1]
            for lam in args.lam:
                for name, checkout in order:
                    seconds[name][lam].append(_generation_seconds(checkout, lam, args.algorithm, Path(tmp) / name))
    for name in checkouts:
        medians = [statistics.median(seconds[name][lam]) for lam in args.lam]
        d1, d0 = np.polyfit(args.lam, medians, 1)
        cells = ", ".join(f"λ={lam}: {m * 1000:.0f} ms" for lam, m in zip(args.lam, medians))
        print(f"{name}: d0 = {d0 * 1000:.1f} ms, d1 = {d1 * 1000:.3f} ms per individual ({cells})")
    if "reference" in checkouts:
        ratios = [statistics.median(seconds["this"][lam]) / statistics.median(seconds["reference"][lam])
                  for lam in args.lam]
        print("ratio this/reference per λ: " + ", ".join(f"{r:.2f}" for r in ratios))


if __name__ == "__main__":
    main()
