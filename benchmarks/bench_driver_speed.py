"""End-to-end wall time of an in-process run, this checkout against a reference checkout.

    git worktree add /tmp/reference <older commit>
    .venv/bin/python benchmarks/bench_driver_speed.py --reference /tmp/reference --rounds 3

Each round runs `python -m pipeline.cli run SPEC --workers 0` once from each
checkout (order alternating), as separate processes, so both see the same
machine load; the ratio is taken within the round. Also checks that both
wrote the same log (timing columns aside) and reports the best cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _run(checkout: Path, spec: str, out: Path, seed: int | None) -> float:
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "PYTHONPATH": str(checkout)}
    extra = ["--seed", str(seed)] if seed is not None else []
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(ROOT / spec), "--workers", "0", "--out",
                    str(out), "--force", *extra], check=True, env=env, cwd=checkout, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _log(out: Path) -> pd.DataFrame:
    frame = pd.read_parquet(out / "individuals").drop(columns=["eval_seconds", "worker"])
    frame["genome"] = frame["genome"].map(lambda g: bytes(memoryview(g.astype(bool)))
                                          if hasattr(g, "astype") else repr(g))
    frame["parents"] = frame["parents"].map(tuple)
    return frame.sort_values(["generation", "id"]).reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--spec", default="runs/setcover-1000.toml")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            order = [("this", ROOT), ("reference", args.reference)]
            if round_ % 2:
                order.reverse()
            walls = {name: _run(checkout, args.spec, Path(tmp) / name, args.seed) for name, checkout in order}
            same = _log(Path(tmp) / "this").equals(_log(Path(tmp) / "reference"))
            generations = pd.read_parquet(Path(tmp) / "this" / "generations.parquet")
            best = [c for c in generations.columns if c.startswith("best_")][-1]
            ratios.append(walls["this"] / walls["reference"])
            print(f"round {round_ + 1}: this {walls['this']:.1f} s, reference {walls['reference']:.1f} s, "
                  f"ratio {ratios[-1]:.2f}, same log: {same}, {best} {generations[best].iloc[-1]:g}", flush=True)
    print(f"median ratio this/reference: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
