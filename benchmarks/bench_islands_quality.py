"""Islands against one population at equal evaluations: do islands find better answers?

For each problem, the shipped one-population spec as is (arm `one`) against
island arms that split the same population and offspring over `count`
islands (`[population] size` and `offspring` are per island), so every arm
scores the same individuals per generation and runs the same stop rule and
generations: equal evaluations. Each (problem, arm, seed) is one in-process
run (`workers = 0`) in a fresh process; `--jobs 2` runs two at a time.

* `gp`: `runs/nim-gp-misere-k3.toml` (stops once the solver's optimal-move
  rate reaches 1.0, else after 150 generations); success = rate 1.0.
* `setcover`: `runs/setcover-1000.toml` on the course instance N = 200,
  instance seed 42 (the seed-42 instances every set-cover figure in
  benchmarks/README.md uses; `seed` is the run's own seed), 500 generations
  = 100,100 evaluations; success = cost <= 368, the target the retired GA
  met on 4 of its 6 seeds (its best was 365).

Results are appended to a JSON-lines file as runs finish, so a cut session
resumes where it was (runs already there are skipped):

    nice -n 19 .venv/bin/python benchmarks/bench_islands_quality.py --jobs 2 \\
        --problems gp setcover --arms one 4x-i5-m2 --seeds 1 2 3 4 5 6 7 8 9 10
    .venv/bin/python benchmarks/bench_islands_quality.py --report   # the tables only

An arm is `one` or COUNTx-iINTERVAL-mMIGRANTS[-random|-full], either with `ss-`
before it for steady-state (`ss-one`, `ss-4x-i20-m1`), or `ssown-` for
steady-state islands that each run their own loop (`islands.loop = "own"`). The figures
and what they say: benchmarks/README.md, "Islands and quality".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "islands_quality.jsonl"


@dataclass(frozen=True)
class Problem:
    """A shipped spec, what changes in it, and when a run counts as a success."""

    spec: str
    changes: dict[str, dict[str, Any]]  # section -> keys set on the shipped spec
    column: str  # generations.parquet column of the primary objective
    target: float
    maximise: bool


PROBLEMS = {
    "gp": Problem("runs/nim-gp-misere-k3.toml", {}, "best_optimal_move_rate", 1.0, True),
    "setcover": Problem("runs/setcover-1000.toml", {"setcover": {"N": 200, "instance_seed": 42}},
                        "best_cost", 368, False),
}


def islands_of(arm: str) -> dict[str, Any] | None:
    """The `[islands]` section an arm name stands for: `one` (none), or `4x-i5-m2` (4 islands,
    interval 5, 2 migrants, ring) with an optional `-random` or `-full` topology; an `ss-` before
    either is the same with `algorithm = "steady-state"` (`ssown-`: islands each in their own loop)."""
    arm = arm.removeprefix("ssown-").removeprefix("ss-")
    if arm == "one":
        return None
    count, interval, migrants, *topology = arm.split("-")
    if not (count.endswith("x") and interval.startswith("i") and migrants.startswith("m")) or len(topology) > 1:
        raise ValueError(f"arm {arm!r}: expected 'one' or COUNTx-iINTERVAL-mMIGRANTS[-random|-full]")
    return {"count": int(count[:-1]), "interval": int(interval[1:]), "migrants": int(migrants[1:]),
            "topology": topology[0] if topology else "ring"}


def arm_spec(problem: Problem, arm: str, seed: int, out: Path, generations: int | None = None) -> dict[str, Any]:
    """The shipped spec with the problem's changes, this seed (and `generations`, for every arm
    alike) and in-process execution; for an island arm, population size and offspring divided
    among the islands (equal evaluations)."""
    with open(ROOT / problem.spec, "rb") as f:
        spec = tomllib.load(f)
    for section, keys in problem.changes.items():
        spec[section] = {**spec.get(section, {}), **keys}
    spec["seed"] = seed
    if generations is not None:
        spec["generations"] = generations
    spec["execution"] = {**spec.get("execution", {}), "workers": 0, "output": str(out)}
    if arm.startswith(("ss-", "ssown-")):
        spec["population"] = {**spec["population"], "algorithm": "steady-state"}
    islands = islands_of(arm)
    if islands is not None:
        population, count = spec["population"], islands["count"]
        if population["size"] % count or population["offspring"] % count:
            raise ValueError(f"{arm}: {count} islands do not divide size {population['size']} "
                             f"and offspring {population['offspring']}")
        spec["population"] = {**population, "size": population["size"] // count,
                              "offspring": population["offspring"] // count}
        spec["islands"] = {**islands, "loop": "own"} if arm.startswith("ssown-") else dict(islands)
    return spec


def reached(problem: Problem, best: float) -> bool:
    return best >= problem.target if problem.maximise else best <= problem.target


def run_one(name: str, arm: str, seed: int, generations: int | None = None) -> dict[str, Any]:
    """One run in this process; what the tables need from its generations.parquet."""
    import pipeline

    problem = PROBLEMS[name]
    with tempfile.TemporaryDirectory() as tmp:
        spec = arm_spec(problem, arm, seed, Path(tmp) / "run", generations)
        started, cpu = time.perf_counter(), time.process_time()
        run = pipeline.run(spec, force=True)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        log = run.generations()
        stop = json.loads((run.path / "run.json").read_text()).get("stop_reason")
    best_so_far = log[problem.column].cummax() if problem.maximise else log[problem.column].cummin()
    best = float(best_so_far.iloc[-1])
    hit = log[[reached(problem, v) for v in best_so_far]]
    first_best = log[best_so_far == best].iloc[0]
    return {"problem": name, "arm": arm, "seed": seed, "cap": spec["generations"], "best": best, "stop": stop,
            "generations": int(log["generation"].iloc[-1]),
            "evaluations": int(log["evaluations"].iloc[-1]),
            "target_generation": int(hit["generation"].iloc[0]) if len(hit) else None,
            "target_evaluations": int(hit["evaluations"].iloc[0]) if len(hit) else None,
            "best_generation": int(first_best["generation"]), "best_evaluations": int(first_best["evaluations"]),
            "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2)}


def load_results(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_all(tasks: list[tuple[str, str, int, int | None]], jobs: int, path: Path) -> None:
    """Each task in a fresh process (nothing cached from another run), `jobs` at a time; each
    result appended to `path` as it comes (a cut session loses only the runs under way)."""
    done = {(r["problem"], r["arm"], r["seed"]) for r in load_results(path)}
    todo = [t for t in tasks if t[:3] not in done]
    print(f"{len(todo)} runs to do ({len(tasks) - len(todo)} already in {path.name})", flush=True)
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
        futures = [pool.submit(run_one, *task) for task in todo]
        for future in as_completed(futures):
            result = future.result()
            with path.open("a") as f:
                f.write(json.dumps(result) + "\n")
            print(json.dumps(result), flush=True)


def _num(value: float) -> str:
    """Counts with thousands separators, rates and costs with 4 significant digits."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def _median(values: list[float]) -> str:
    return _num(statistics.median(values)) if values else "-"


def _max(values: list[float]) -> str:
    return _num(max(values)) if values else "-"


def table(name: str, results: list[dict[str, Any]], arms: list[str]) -> str:
    """One markdown table: a row per arm, over the seeds it ran."""
    problem = PROBLEMS[name]
    lines = [("| arm | seeds | reach target | best (median; range) | generations to target (median; max) | "
              "evaluations to target (median; max) | wall s (median) | CPU s (median; total) |"),
             "|---|---|---|---|---|---|---|---|"]
    for arm in arms:
        rows = sorted((r for r in results if r["problem"] == name and r["arm"] == arm), key=lambda r: r["seed"])
        if not rows:
            continue
        hits = [r for r in rows if r["target_generation"] is not None]
        bests = [r["best"] for r in rows]
        cpu = [r["cpu_seconds"] for r in rows]
        lines.append(
            f"| {arm} | {len(rows)} | {len(hits)}/{len(rows)} | "
            f"{_median(bests)}; {min(bests):,.4g}-{max(bests):,.4g} | "
            f"{_median([r['target_generation'] for r in hits])}; {_max([r['target_generation'] for r in hits])} | "
            f"{_median([r['target_evaluations'] for r in hits])}; {_max([r['target_evaluations'] for r in hits])} | "
            f"{_median([r['wall_seconds'] for r in rows])} | {_median(cpu)}; {sum(cpu):,.0f} |")
    target = f"{'>=' if problem.maximise else '<='} {problem.target:g}"
    return f"{name} ({problem.spec}, target {problem.column[5:]} {target}):\n\n" + "\n".join(lines)


def per_seed(name: str, results: list[dict[str, Any]], arms: list[str]) -> str:
    """Best per seed and arm (the generation it stopped at in brackets): who wins where."""
    seeds = sorted({r["seed"] for r in results if r["problem"] == name})
    cell = {(r["arm"], r["seed"]): f"{r['best']:.4g} ({r['generations']})" for r in results if r["problem"] == name}
    arms = [a for a in arms if any((a, s) in cell for s in seeds)]
    lines = ["| seed | " + " | ".join(arms) + " |", "|---" * (len(arms) + 1) + "|"]
    lines += [f"| {s} | " + " | ".join(cell.get((a, s), "-") for a in arms) + " |" for s in seeds]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", choices=sorted(PROBLEMS), default=sorted(PROBLEMS))
    parser.add_argument("--arms", nargs="+", default=["one", "4x-i5-m2"])
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(1, 11)))
    parser.add_argument("--generations", type=int, help="instead of the spec's, for every arm alike")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time, each in a fresh process")
    parser.add_argument("--results", type=Path, default=RESULTS, help="JSON lines, appended to")
    parser.add_argument("--report", action="store_true", help="print the tables from --results, run nothing")
    args = parser.parse_args()
    for arm in args.arms:
        islands_of(arm)  # a bad name fails before any run
    if not args.report:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        tasks = [(p, a, s, args.generations) for p in args.problems for s in args.seeds for a in args.arms]
        run_all(tasks, args.jobs, args.results)
    results = load_results(args.results)
    for name in args.problems:
        arms = list(dict.fromkeys(args.arms + [r["arm"] for r in results if r["problem"] == name]))
        print("\n" + table(name, results, arms) + "\n\n" + per_seed(name, results, arms))


if __name__ == "__main__":
    main()
