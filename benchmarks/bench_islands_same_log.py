"""Islands before and after a change, seed by seed: the same log, so the same quality (issue 41).

Runs the island arm `4x-i5-m2` of `bench_islands_quality.py` (GP misère k = 3
and set cover N = 200, population and offspring split over 4 islands) for
seeds 1-10, in-process, from the checkout in the current folder, and prints
one JSON line a run: the best value and the log's digests (`tests/golden/
digest.py`: every column but timing and worker). Run it in two checkouts and
compare the lines: equal digests mean the two codes evolved the same
individuals, so neither finds better or worse answers on any seed.

    cd OLD && python /path/to/benchmarks/bench_islands_same_log.py > old.jsonl
    cd NEW && python benchmarks/bench_islands_same_log.py > new.jsonl
    python benchmarks/bench_islands_same_log.py --compare old.jsonl new.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

GENERATIONS = {"gp": 10, "setcover": 40}  # short runs: a difference shows in the first generations it appears


def run_seeds(seeds: list[int]) -> None:
    """One JSON line per (problem, seed), from the checkout in the current folder."""
    sys.path[:0] = [str(Path.cwd()), str(Path.cwd() / "benchmarks")]
    import pipeline
    from bench_islands_quality import PROBLEMS, arm_spec
    from tests.golden.digest import run_digests

    for name, generations in GENERATIONS.items():
        for seed in seeds:
            with tempfile.TemporaryDirectory() as tmp:
                spec = arm_spec(PROBLEMS[name], "4x-i5-m2", seed, Path(tmp) / "run", generations)
                run = pipeline.run(spec, force=True)
                best = float(run.generations().iloc[-1][PROBLEMS[name].column])
                print(json.dumps({"problem": name, "seed": seed, "best": best, "digests": run_digests(run.path)}),
                      flush=True)


def compare(before: Path, after: Path) -> None:
    old = {(r["problem"], r["seed"]): r for r in map(json.loads, before.read_text().splitlines())}
    new = {(r["problem"], r["seed"]): r for r in map(json.loads, after.read_text().splitlines())}
    same = [key for key in old if key in new and old[key]["digests"] == new[key]["digests"]]
    for key in sorted(old.keys() & new.keys()):
        print(*key, old[key]["best"], new[key]["best"], "same log" if key in same else "LOG DIFFERS")
    print(f"{len(same)} of {len(old.keys() & new.keys())} runs with the same log")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    compare(*args.compare) if args.compare else run_seeds(args.seeds)


if __name__ == "__main__":
    main()
