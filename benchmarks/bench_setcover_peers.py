"""Set cover against its peers: the GA (a shipped spec through `evo run`), CFT (pycft) and HiGHS's proven optimum.

    pip install -e ".[bench]"                     # pycft and highspy
    python benchmarks/bench_setcover_peers.py     # every instance of the issue, one after the other
    python benchmarks/bench_setcover_peers.py --classes 4 --seeds 1 --course 100 --course-seeds 42

Weighted instances are made with Beasley's recipe (``fitness.setcover.beasley``)
and written as OR-Library files, which the GA reads through
``runs/setcover-scp.toml --set setcover.instance=FILE`` exactly as a user
would; course instances run ``runs/setcover-1000.toml --set setcover.N=...``.
Each GA is a fresh ``evo run ... --workers 0`` process (one core); its CPU
time is the child process's user + system time, start-up included.  CFT runs
in this process (one thread) with ``--cft-limit`` seconds; HiGHS solves the
integer program on one thread with ``--highs-limit`` seconds and says whether
it proved the optimum.  One line of JSON per instance goes to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from fitness.setcover import Instance, beasley_class, format_orlib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run_ga(spec: str, settings: list[str], seed: int, out: Path) -> dict:
    """`evo run SPEC --workers 0 --seed SEED --set ...` in a fresh process: best cost, when first reached, times."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    args = [sys.executable, "-m", "pipeline.cli", "run", str(ROOT / spec), "--workers", "0", "--seed", str(seed),
            "--out", str(out), "--force"] + [a for s in settings for a in ("--set", s)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(args, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    generations = pd.read_parquet(out / "generations.parquet")
    best = generations["best_cost"].cummin()
    first = generations.loc[best == best.iloc[-1]].iloc[0]
    return {"cost": int(best.iloc[-1]), "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
            "wall": wall, "generations": int(generations["generation"].iloc[-1]),
            "first_generation": int(first["generation"]), "first_seconds": float(first["elapsed_seconds"])}


def run_cft(instance: Instance, limit: float, seed: int = 0) -> dict:
    """CFT (Caprara, Fischetti and Toth) through pycft: its cover's cost and lower bound."""
    from pycft import SetCoverSolver

    solver = SetCoverSolver()
    for elements, cost in zip(instance.lists, instance.costs):
        solver.add_set(list(elements), cost=float(cost))
    cpu, started = time.process_time(), time.perf_counter()
    solver.solve(seed=seed, time_limit=limit, verbose=0)
    chosen = np.zeros(instance.n_lists, dtype=bool)
    chosen[solver.get_solution()] = True
    assert instance.incidence[chosen].any(axis=0).all(), "CFT returned a set that is no cover"
    return {"cost": int(instance.list_costs[chosen].sum()), "bound": float(solver.get_lower_bound()),
            "cpu": time.process_time() - cpu, "wall": time.perf_counter() - started}


def run_highs(instance: Instance, limit: float) -> dict:
    """The integer program min c x, A x >= 1, x binary, by HiGHS on one thread: best cover, bound, proven?"""
    import highspy

    highs = highspy.Highs()
    for option, value in (("output_flag", False), ("threads", 1), ("time_limit", float(limit))):
        highs.setOptionValue(option, value)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = instance.n_lists, instance.N
    model.col_cost_ = instance.list_costs.astype(np.float64)
    model.col_lower_, model.col_upper_ = np.zeros(instance.n_lists), np.ones(instance.n_lists)
    model.row_lower_, model.row_upper_ = np.ones(instance.N), np.full(instance.N, highspy.kHighsInf)
    lists, elements = instance.entries  # ordered by list: column-wise storage as it stands
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = np.concatenate(([0], np.cumsum(instance.sizes))).astype(np.int32)
    model.a_matrix_.index_ = elements.astype(np.int32)
    model.a_matrix_.value_ = np.ones(len(elements))
    model.integrality_ = [highspy.HighsVarType.kInteger] * instance.n_lists
    highs.passModel(model)
    cpu, started = time.process_time(), time.perf_counter()
    highs.run()
    info = highs.getInfo()
    status = highs.modelStatusToString(highs.getModelStatus())
    return {"cost": round(info.objective_function_value), "bound": float(info.mip_dual_bound),
            "proven": status == "Optimal", "status": status, "cpu": time.process_time() - cpu,
            "wall": time.perf_counter() - started}


def weighted_cases(classes: list[str], seeds: list[int], folder: Path) -> list[tuple[str, Instance, str, list[str]]]:
    cases = []
    for name in classes:
        for seed in seeds:
            instance = beasley_class(name, seed)
            path = folder / f"scp{name}-{seed}.txt"
            path.write_text(format_orlib(instance))
            cases.append((f"class {name} seed {seed}", instance, "runs/setcover-scp.toml",
                          [f"setcover.instance={path}"]))
    return cases


def course_cases(sizes: list[int], seeds: list[int]) -> list[tuple[str, Instance, str, list[str]]]:
    return [(f"course N={N} seed {seed}", Instance.from_problem(N, seed), "runs/setcover-1000.toml",
             [f"setcover.N={N}", f"setcover.instance_seed={seed}"]) for N in sizes for seed in seeds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", nargs="*", default=["4", "6", "A", "C", "E"])
    parser.add_argument("--seeds", nargs="*", type=int, default=[1, 2], help="instance seeds of the weighted classes")
    parser.add_argument("--course", nargs="*", type=int, default=[100, 200, 500, 1000], help="course sizes N")
    parser.add_argument("--course-seeds", nargs="*", type=int, default=[42, 1, 2])
    parser.add_argument("--ga-seeds", nargs="+", type=int, default=[1, 2, 3], help="GA seeds per weighted instance")
    parser.add_argument("--course-ga-seeds", nargs="+", type=int, default=[1], help="GA seeds per course instance")
    parser.add_argument("--cft-limit", type=float, default=60.0)
    parser.add_argument("--highs-limit", type=float, default=300.0, help="seconds for HiGHS on weighted instances")
    parser.add_argument("--course-highs-limit", type=float, default=60.0,
                        help="seconds for HiGHS on course instances (dense: it reports a bound, rarely a proof)")
    parser.add_argument("--json", type=Path, default=None, help="append one JSON line per instance here")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    print("| instance | GA cost (seed) | GA CPU s | GA wall s | first reached | CFT cost | CFT CPU s | HiGHS | "
          "HiGHS CPU s | GA vs optimum | GA vs CFT |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, instance, spec, settings in (weighted_cases(args.classes, args.seeds, folder)
                                                + course_cases(args.course, args.course_seeds)):
            seeds = args.course_ga_seeds if label.startswith("course") else args.ga_seeds
            ga = {seed: run_ga(spec, settings, seed, folder / "run") for seed in seeds}
            cft = run_cft(instance, args.cft_limit)
            highs = run_highs(instance, args.course_highs_limit if label.startswith("course") else args.highs_limit)
            _report(label, ga, cft, highs)
            if args.json:
                with args.json.open("a") as handle:
                    handle.write(json.dumps({"instance": label, "ga": ga, "cft": cft, "highs": highs}) + "\n")
    print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)


def _report(label: str, ga: dict[int, dict], cft: dict, highs: dict) -> None:
    optimum = highs["cost"] if highs["proven"] else None
    reference = f"{highs['cost']:,} (optimum)" if optimum else f"{highs['cost']:,} (bound {highs['bound']:,.1f})"
    for seed, run in ga.items():
        gap = "" if optimum is None else f"{100 * (run['cost'] - optimum) / optimum:+.2f} %"
        versus = "better" if run["cost"] < cft["cost"] else "equal" if run["cost"] == cft["cost"] else "worse"
        print(f"| {label} | {run['cost']:,} ({seed}) | {run['cpu']:.1f} | {run['wall']:.1f} | gen "
              f"{run['first_generation']}, {run['first_seconds']:.1f} s | {cft['cost']:,} | {cft['cpu']:.1f} | "
              f"{reference} | {highs['cpu']:.1f} | {gap} | {versus} |", flush=True)


if __name__ == "__main__":
    main()
