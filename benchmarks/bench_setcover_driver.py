"""The in-process driver on runs/setcover-1000.toml, this checkout against a reference commit, in one invocation.

    .venv/bin/python benchmarks/bench_setcover_driver.py                      # against 7321be9, 3 rounds
    .venv/bin/python benchmarks/bench_setcover_driver.py --ref HEAD~5 --rounds 5 --generations 100

The reference is checked out with `git worktree add` into a temporary folder
and removed afterwards (`--ref` may also name a checkout folder, used as it
is). Each round runs the spec once from each checkout, `workers = 0`, as
separate processes with the same Python, order alternating, so both see the
same machine load; the ratio is taken within the round and the median over
rounds is the figure. Each child reports the wall and CPU seconds
(`time.process_time`, all its threads) of `pipeline.run` alone, so imports
and interpreter start are left out; CPU seconds are what to trust on a
shared machine. Also checks that both wrote the same log (the columns both
have, timing columns aside) and prints the best cost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TIMING_COLUMNS = ("eval_seconds", "worker")

# Runs in the child, whose PYTHONPATH is the checkout under test.
CHILD = """
import json, sys, time
import pipeline.api as api
spec, out, generations = sys.argv[1], sys.argv[2], int(sys.argv[3])
assert api.__file__.startswith(sys.argv[4]), api.__file__  # the checkout under test, not the installed one
overrides = {"generations": generations} if generations else {}
wall, cpu = time.perf_counter(), time.process_time()
api.run(spec, out=out, force=True, workers=0, **overrides)
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}))
"""


def _run(checkout: Path, spec: str, out: Path, generations: int) -> dict[str, float]:
    """Wall and CPU seconds of one in-process run of `spec` by `checkout`'s code."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(checkout / spec), str(out), str(generations),
                           str(checkout)], check=True, env=env, cwd=checkout, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _log(out: Path) -> pd.DataFrame:
    """The individuals log in a comparable form: genomes as bytes, sorted, timing columns dropped."""
    frame = pd.read_parquet(out / "individuals").drop(columns=list(TIMING_COLUMNS), errors="ignore")
    frame["genome"] = frame["genome"].map(lambda g: bytes(memoryview(g.astype(bool))) if hasattr(g, "astype")
                                          else repr(g))
    frame["parents"] = frame["parents"].map(tuple)
    return frame.sort_values(["generation", "id"]).reset_index(drop=True)


def _same_log(a: Path, b: Path) -> bool:
    """Both runs logged the same individuals, over the columns both checkouts write."""
    first, second = _log(a), _log(b)
    common = [c for c in first.columns if c in second.columns]
    return first[common].equals(second[common])


def _best_cost(out: Path) -> float:
    return float(pd.read_parquet(out / "generations.parquet")["best_cost"].iloc[-1])


@contextlib.contextmanager
def _checkout(ref: str, tmp: Path) -> Iterator[Path]:
    """`ref` as a folder: itself if it is one, else a temporary `git worktree` removed afterwards."""
    if Path(ref).is_dir():
        yield Path(ref).resolve()
        return
    folder = tmp / "reference"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(folder), ref], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="7321be9", help="a commit (checked out for the run) or a checkout folder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--generations", type=int, default=0, help="generations to run (0: the spec's own)")
    parser.add_argument("--spec", default="runs/setcover-1000.toml", help="relative to each checkout")
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {"wall": [], "cpu": []}
    with tempfile.TemporaryDirectory() as tmp, _checkout(args.ref, Path(tmp)) as reference:
        for round_ in range(args.rounds):
            order = [("this", ROOT), ("ref", reference)]
            if round_ % 2:
                order.reverse()
            seconds = {name: _run(checkout, args.spec, Path(tmp) / name, args.generations)
                       for name, checkout in order}
            for measure in ratios:
                ratios[measure].append(seconds["this"][measure] / seconds["ref"][measure])
            same = _same_log(Path(tmp) / "this", Path(tmp) / "ref")
            print(f"round {round_ + 1} ({order[0][0]} first): "
                  f"this {seconds['this']['wall']:.1f} s wall {seconds['this']['cpu']:.1f} s CPU, "
                  f"ref {seconds['ref']['wall']:.1f} s wall {seconds['ref']['cpu']:.1f} s CPU, "
                  f"ratio wall {ratios['wall'][-1]:.2f} CPU {ratios['cpu'][-1]:.2f}, same log: {same}, "
                  f"best cost {_best_cost(Path(tmp) / 'this'):g} / {_best_cost(Path(tmp) / 'ref'):g}", flush=True)
    print(f"median ratio this/ref ({args.ref}): wall {statistics.median(ratios['wall']):.2f}, "
          f"CPU {statistics.median(ratios['cpu']):.2f}")


if __name__ == "__main__":
    main()
