"""Exact fitness against 1,000 sampled games per opponent: which is cheaper?

Two measurements, each a ratio taken in the same run:

1. the Nim task scoring one population of table genomes (expert, random and
   longest columns, nim-sum feature) against expert, random and minimax:
   opponents "exact" versus 1,000 games each, on several boards;
2. end to end: `evo run runs/nim-table.toml --workers 0` for a fixed number of
   generations (no early stop) in a fresh process, with its exact opponents
   versus the same spec with 1,000 games per opponent.

    python benchmarks/bench_exact_fitness.py [--population 60] [--generations 40]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from fitness.nim import Rules
from fitness.nim.agents.mixture import feature_size
from fitness.tasks import build_task

ROOT = Path(__file__).resolve().parents[1]
BOARDS = [Rules.standard(5), Rules.standard(5, k=3, misere=True), Rules.standard(6), Rules.standard(7)]


def task_seconds(rules: Rules, opponents: dict, genomes: list, repeats: int) -> float:
    task = build_task({"problem": "nim", "rows": list(rules.rows), "k": rules.k, "misere": rules.misere,
                       "genome": {"kind": "table", "columns": ["expert", "random", "longest"], "feature": "nimsum"},
                       "opponents": opponents})
    task.evaluate(genomes[:2], [0, 1])  # tabulations, solver and kernels are built once per task: not timed
    best = float("inf")
    for r in range(repeats):
        started = time.perf_counter()
        task.evaluate(genomes, list(range(r, r + len(genomes))))
        best = min(best, time.perf_counter() - started)
    return best


def run_seconds(spec_text: str, generations: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.toml"
        spec.write_text(spec_text.replace("[stop]\nstagnation = 30\n", ""))
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--workers", "0", "--generations",
                        str(generations), "--out", str(Path(tmp) / "out")], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL, env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--population", type=int, default=60)
    parser.add_argument("--generations", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    exact = {"expert": "exact", "random": "exact", "minimax": "exact"}
    sampled = {"expert": 1000, "random": 1000, "minimax": 1000}
    print(f"Task: {args.population} table genomes x 3 opponents (best of {args.repeats})\n")
    print("| board | exact s | 1,000 games s | sampled / exact |")
    print("|---|---|---|---|")
    for rules in BOARDS:
        rng = np.random.default_rng(0)
        genomes = [rng.dirichlet(np.ones(3), size=feature_size("nimsum", rules)) for _ in range(args.population)]
        e = task_seconds(rules, exact, genomes, args.repeats)
        s = task_seconds(rules, sampled, genomes, args.repeats)
        print(f"| {rules.describe()} | {e:.3f} | {s:.3f} | {s / e:.1f}x |", flush=True)
    text = (ROOT / "runs/nim-table.toml").read_text()
    sampled_text = text.replace('{ expert = "exact", random = "exact", minimax = "exact" }',
                                "{ expert = 1000, random = 1000, minimax = 1000 }")
    e = run_seconds(text, args.generations)
    s = run_seconds(sampled_text, args.generations)
    print(f"\nEnd to end, `evo run runs/nim-table.toml --workers 0 --generations {args.generations}` "
          f"(process wall time): exact {e:.1f} s, 1,000 games per opponent {s:.1f} s, ratio {s / e:.2f}x")


if __name__ == "__main__":
    main()
