"""Scale-out efficiency: how busy W workers are kept by each algorithm, against the machine's ceiling.

A fitness that only sleeps (`benchmarks/sleepy/sleepy.py`: t ms per genome,
optionally times a mean-1 lognormal factor of spread sigma) uses no CPU, so
on a `ray.cluster_utils.Cluster` with many logical CPUs (4 nodes x 16 by
default, all on this machine) what a run spends beyond the sleeps divided by
W is orchestration: variation, selection, logging, Ray calls, waiting.

    efficiency = (sum of the sleeps of generations 1.. / W) / their wall time

Every run goes end to end through `pipeline.run(..., address=cluster.address,
workers=W)` with `wait_for_workers` (the pool's start is measured apart:
seconds to the first ready actor and to all). Islands: `--islands` islands of
lambda / islands children each, migrating every `--interval` generations
(placed migrants sleep nothing and are not counted); `islands+lag` with
`islands.lag = 1` (no island waits for another at a migration); `islands/16` (or
`islands+lag/16`) with `execution.chunk_size = 16`; `steady-state+islands`
the same islands as steady-state ones (asynchronous, in the driver); `islands+steady`
steady-state islands that each run their own loop on their runner (`islands.loop = "own"`); `steady-state=8` (or
`steady-state+islands=8`) with `execution.in_flight = 8` (plain `steady-state`: the default
`"auto"`; `steady-state=2`: the bound before it). In the same run, the
machine's ceiling: W bare Ray actors sleeping the same durations with no
evolution, as one stream of chunks two in flight per actor (the best of a few
chunk sizes; the run's sleeps repeated to fill at least 10 s a worker), because W processes waking on 2 cores cost something by
themselves. Beside each efficiency, from the end of generation 0 (for islands
without lag, of the first epoch) to the end of the run (`cpu_roles.py`), the CPU
each evaluation cost by role (evaluation actors, island runners, the log's writer process, the driver), and by
process (each island runner, the busiest actor: no process of a run should
spend more than 8 µs an evaluation on 2 cores, issue 41), and how many cores
were busy in all (of which Ray's own daemons: raylets, GCS, dashboard agents,
a fixed cost per second), and the same for the ceiling: on a machine with
fewer cores than processes, CPU is what bounds the efficiency. With
islands, also what the run measured itself (run.json's `cpu_per_evaluation`,
from when the islands are up, generation 0 included, so higher; its driver's
figure holds this benchmark's /proc sampling thread, shown beside it). With
`--timeline`, each run's workers' busy share and the share of a call's time
beyond its sleeps, against the bare actors' (`worker_timeline.py`).

    .venv/bin/python benchmarks/bench_scale_out.py --workers 8 32 64 \\
        --cases 1024:20:0 1024:20:1 256:20:0 1024:2:0 --algorithms mu+lambda steady-state islands
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SLEEPY = ROOT / "benchmarks" / "sleepy"

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from bare_actors import SleeperPool  # noqa: E402
from cpu_roles import CpuByRole  # noqa: E402
from worker_timeline import describe, shares, summarise  # noqa: E402


def spec(algorithm: str, lam: int, ms: float, sigma: float, args: argparse.Namespace) -> dict:
    name = algorithm.replace("/", "-chunk-").replace("+", "-plus-").replace(",", "-comma-").replace("=", "-in-flight-")
    execution = {"code_dir": str(SLEEPY), "handover": False, "wait_for_workers": True}
    if "=" in algorithm:  # "steady-state=8": execution.in_flight = 8
        algorithm, in_flight = algorithm.split("=")
        execution["in_flight"] = int(in_flight)
    population = {"size": max(2, lam // 2), "offspring": lam, "algorithm": algorithm, "tournament": 2}
    data = {"name": "scale-" + name, "problem": "sleepy:Sleepy",
            "seed": 1, "generations": args.generations, "problem_options": {"ms": ms, "sigma": sigma, "bits": 64},
            "genome": {"kind": "sleepy:Bits"}, "population": population, "execution": execution}
    steady = algorithm == "steady-state+islands"
    if algorithm.startswith("islands"):  # "islands+lag/16": islands.lag = 1, chunks of 16
        flags = algorithm.split("/")[0].split("+")[1:]
        if "/" in algorithm:
            data["execution"]["chunk_size"] = int(algorithm.split("/")[1])
        data["islands"] = {"count": args.islands, "interval": args.interval, "migrants": 2, "lag": int("lag" in flags)}
        if "steady" in flags:  # "islands+steady": steady-state islands, each its own loop on its runner
            data["islands"]["loop"], steady = "own", True
    elif steady:  # the same islands, asynchronous in the driver's loop
        data["islands"] = {"count": args.islands, "interval": args.interval, "migrants": 2}
    if "islands" in data:  # lambda children a generation over all islands
        population.update(algorithm="steady-state" if steady else "mu+lambda", size=max(2, lam // (2 * args.islands)),
                          offspring=lam // args.islands)
    return data


def evaluated_rows(run_dir: Path) -> pd.DataFrame:
    """The run's evaluations (generation, sleep): its individuals rows but the placed migrants."""
    from pipeline.records.schema import was_evaluated

    scored = pd.read_parquet(run_dir / "individuals", columns=["generation", "born", "origin", "slept"])
    return scored[was_evaluated(scored["origin"], scored["born"], scored["generation"])]


def run_efficiency(run_dir: Path, scored: pd.DataFrame, workers: int) -> tuple[float, list[float]]:
    """Sleeps of generations 1.. / W over their wall time (generation 0 also pays the first
    variation and the pool's warm-up), and those sleeps in order, for the ceiling."""
    rows = __import__("pipeline").open_run(run_dir).generations()
    later = scored[scored["generation"] >= 1]
    wall = rows.loc[rows["generation"] >= 1, "wall_seconds"].sum()
    return later["slept"].sum() / workers / wall, later["slept"].tolist()


CEILING_SECONDS = 10.0  # of sleep per worker in the ceiling's stream, at least


def ceiling(workers: int, durations: list[float], chunk_sizes: list[int], roles: CpuByRole) -> \
        tuple[float, int, dict[str, float], str]:
    """Bare Ray actors sleeping `durations` in chunks, two in flight per actor, fed by one loop:
    the best efficiency over `chunk_sizes`, the chunk size that gave it, its CPU ms per sleep by
    role, and its workers' busy share and share of a call's time beyond its sleeps (as `--timeline`).

    The durations are repeated until they fill `CEILING_SECONDS` of W workers: the stream's end
    (the last chunks, one actor still sleeping while the others have nothing left) is a cost no
    run of many generations pays once per generation, and with lognormal jitter a short stream's
    end took up to a fifth of its time (ceilings of 0.75-0.83 that steady-state runs beat)."""
    durations = durations * math.ceil(CEILING_SECONDS * workers / sum(durations))
    pool = SleeperPool(workers)
    best: tuple[float, int, dict[str, float], str] = (0.0, 0, {}, "")
    try:
        for size in sorted(set(chunk_sizes)):
            fed = pool.feed(durations, size, roles)
            if fed["efficiency"] > best[0]:
                busy = fed["in_calls"] / workers / fed["wall"]
                calls = "busy " + shares(busy, 1 - sum(durations) / fed["in_calls"])
                best = (fed["efficiency"], size, per_evaluation(fed["cpu"], len(durations)), calls)
    finally:
        pool.close()
    return best


def pool_start(address: str, workers: int, args: argparse.Namespace) -> tuple[float, float]:
    """Seconds from creating a pool of W actors to the first ready one, and to all of them."""
    from pipeline.evaluation import make_evaluator
    from pipeline.plugins import code_bundle
    from pipeline.spec import parse_spec

    run_spec = parse_spec(spec("mu+lambda", 8, 1, 0, args))
    evaluator = make_evaluator(run_spec.task_spec(), workers=workers, address=address, code=code_bundle(run_spec))
    first = evaluator.first_ready
    evaluator.wait_until_ready()
    all_ready = evaluator.all_ready
    evaluator.close()
    return first, all_ready


def measure(workers: int, case: str, args: argparse.Namespace, address: str, tmp: Path, roles: CpuByRole) -> list[dict]:
    """Every algorithm on one (lambda, t, sigma), then the ceiling on the first one's sleeps;
    `--repeats` rounds of that, interleaved so that the machine's drift touches every algorithm."""
    lam, ms, sigma = int(case.split(":")[0]), float(case.split(":")[1]), float(case.split(":")[2])
    rounds = [one_round(workers, lam, ms, sigma, args, address, tmp / f"round-{r}", roles)
              for r in range(args.repeats)]
    results = []
    for algorithm in args.algorithms:
        runs = [row for rows in rounds for row in rows if row["algorithm"] == algorithm]
        efficiencies = [row["efficiency"] for row in runs]
        ceilings = [row["ceiling"] for row in runs]
        per_round = {key: value for key, value in runs[0].items() if key not in ("timeline", "ceiling_calls")}
        per_round["process_us"] = max((row["process_us"] for row in runs), key=_busiest)  # the worst round
        results.append({**per_round, "efficiencies": efficiencies, "efficiency": float(np.median(efficiencies)),
                        "ceilings": ceilings, "ceiling": float(np.median(ceilings)),
                        "of_ceiling": float(np.median([e / c for e, c in zip(efficiencies, ceilings)])),
                        "seconds": float(np.median([row["seconds"] for row in runs])),
                        "driver_ms": float(np.median([row["driver_ms"] for row in runs])),
                        "cpu_ms": _median_by_role([row["cpu_ms"] for row in runs]),
                        "ceiling_cpu_ms": _median_by_role([row["ceiling_cpu_ms"] for row in runs]),
                        "timelines": [row["timeline"] for row in runs],
                        "ceiling_calls": [row["ceiling_calls"] for row in runs]})
    return results


def one_round(workers: int, lam: int, ms: float, sigma: float, args: argparse.Namespace, address: str,
              tmp: Path, roles: CpuByRole) -> list[dict]:
    """Each algorithm once on (lambda, t, sigma), then the ceiling on the first one's sleeps: one
    row per algorithm, the ceiling's figures in every row (a round shares one machine state)."""
    import pipeline

    results, durations = [], None
    for algorithm in args.algorithms:
        out = tmp / f"{algorithm}-{workers}-{lam}-{ms}-{sigma}"
        started, cpu = time.perf_counter(), time.process_time()
        spent: Counter = Counter()
        processes: list[tuple[str, float]] = []
        data, generation_times, calls_dir = spec(algorithm, lam, ms, sigma, args), [], None
        if args.timeline:
            calls_dir = tmp / f"calls-{algorithm}-{workers}-{lam}-{ms}-{sigma}"
            calls_dir.mkdir(parents=True, exist_ok=True)
            data["problem_options"]["calls_dir"] = str(calls_dir)

        # The CPU window opens when the driver records the first epoch's last generation (generation 0
        # but for islands without lag, whose first epoch, generations 0..interval, comes back at once
        # and is recorded at once), and closes at the last: the driver's recording in it is of the same
        # generations whose evaluations it is divided by (generations after the first epoch). It
        # opened at generation 0 before 2026-11-29, which counted the recording of the first epoch's
        # later generations but not their evaluations (a driver's figure 1/7 too high at 40 generations).
        first_epoch = args.interval if algorithm.startswith("islands") and "+lag" not in algorithm else 0

        def after(row: dict) -> None:  # CPU from the end of the first epoch to the end of the last generation
            if calls_dir:
                generation_times.append(time.time())
            if row["generation"] in (first_epoch, args.generations):  # reading /proc each generation: 6% of a driver
                cpu, seconds = roles.window()
                if row["generation"] > first_epoch:
                    spent.update({**cpu, "seconds": seconds})
                    processes[:] = roles.processes

        sampled = roles.sampling
        run = pipeline.run(data, address=address, workers=workers, out=str(out), on_generation=after)
        cpu, sampled = time.process_time() - cpu, roles.sampling - sampled
        scored = evaluated_rows(out)
        efficiency, slept = run_efficiency(out, scored, workers)
        in_window = int((scored["generation"] > first_epoch).sum())
        durations = durations or slept
        evaluations = int(run.generations()["evaluations"].iloc[-1])  # cumulative
        results.append({"workers": workers, "lam": lam, "ms": ms, "sigma": sigma, "algorithm": algorithm,
                        "efficiency": efficiency, "seconds": time.perf_counter() - started,
                        "driver_ms": 1000 * cpu / evaluations,
                        "cpu_ms": per_evaluation(spent, in_window),
                        "process_us": per_process(processes, in_window),
                        "run_cpu_us": json.loads((out / "run.json").read_text()).get("cpu_per_evaluation"),
                        "sampler_us": 1e6 * sampled / evaluations,  # in run.json's driver: this benchmark's
                        "timeline": describe(summarise(calls_dir, generation_times, workers)) if calls_dir else ""})
    per_worker_generation = max(1, lam // (2 * workers))  # the generational pool's chunks
    about_50ms = max(1, round(50 / ms))  # the steady-state batches' size at W = 8
    top, size, cpu_ms, calls = ceiling(workers, durations, [per_worker_generation, about_50ms, 4 * about_50ms], roles)
    for row in results:
        row.update(ceiling=top, ceiling_chunk=size, ceiling_cpu_ms=cpu_ms, ceiling_calls=calls)
    return results


def per_evaluation(spent: dict[str, float], evaluations: int) -> dict[str, float]:
    """CPU ms per evaluation by role and in all; and the cores busy, in all and Ray's daemons
    (`spent`: CPU seconds by role, and the window's wall "seconds")."""
    if evaluations == 0:  # islands whose run is one epoch: nothing after the window opened
        return {}
    seconds = max(spent.get("seconds", 0.0), 1e-9)
    cpu = {role: value for role, value in spent.items() if role != "seconds"}
    ms = {role: 1000 * value / evaluations for role, value in cpu.items()}
    return {**ms, "total": sum(ms.values()), "cores": sum(cpu.values()) / seconds,
            "ray_cores": cpu.get("ray", 0.0) / seconds}


def per_process(processes: list[tuple[str, float]], evaluations: int) -> dict[str, list[float]]:
    """CPU µs per evaluation of the run, of every process by role (busiest first): which one
    would cap a bigger cluster (the scale-out goal: none above 8 µs on 2 cores)."""
    if evaluations == 0:
        return {}
    found: dict[str, list[float]] = {}
    for role, seconds in processes:
        found.setdefault(role, []).append(1e6 * seconds / evaluations)
    return {role: sorted(values, reverse=True) for role, values in found.items()}


def _processes(us: dict[str, list[float]]) -> str:
    """The per-process table's cells: driver, each island runner, the log's writer, actors max / mean,
    Ray's busiest daemon (a cost per second, not per evaluation)."""
    def top(role: str) -> str:
        return f"{us[role][0]:.1f}" if us.get(role) else "-"
    runners = " ".join(f"{v:.1f}" for v in us.get("runners", [])) or "-"
    actors = us.get("actors", [])
    spread = f"{max(actors):.1f} / {np.mean(actors):.1f}" if actors else "-"
    return f"{top('driver')} | {runners} | {top('writer')} | {spread} | {top('ray')}"


def _busiest(us: dict[str, list[float]]) -> float:
    """The most CPU µs per evaluation any process of the run's own spent (Ray's daemons aside)."""
    return max([values[0] for role, values in us.items() if role != "ray" and values] or [0.0])


def _median_by_role(rounds: list[dict[str, float]]) -> dict[str, float]:
    rounds = [r for r in rounds if r]
    if not rounds:
        return {}
    return {role: float(np.median([r.get(role, 0.0) for r in rounds])) for role in sorted(set().union(*rounds))}


def _roles(ms: dict[str, float]) -> str:
    """CPU ms per evaluation (actors / island runners / the log's writer / driver); cores busy (Ray's daemons)."""
    if not ms:
        return "-"
    return " / ".join(f"{ms.get(role, 0.0):.3f}" for role in ("actors", "runners", "writer", "driver")) + \
        f"; {ms.get('cores', 0.0):.2f} ({ms.get('ray_cores', 0.0):.2f})"


def _spread(values: list[float]) -> str:
    """The median, and the range when there are several."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{np.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--cases", nargs="+", default=["1024:20:0", "1024:20:1", "256:20:0", "1024:2:0"],
                        help="lambda:t_ms:sigma")
    parser.add_argument("--algorithms", nargs="+", default=["mu+lambda", "steady-state", "islands"],
                        help="mu+lambda, steady-state, islands, steady-state+islands, islands+steady (loop = "
                             "own); islands+lag, /16 (chunk size); steady-state=8 (execution.in_flight = 8; "
                             "default \"auto\")")
    parser.add_argument("--islands", type=int, default=8, help="island count for 'islands'")
    parser.add_argument("--interval", type=int, default=5, help="generations between migrations")
    parser.add_argument("--generations", type=int, default=20,
                        help="steady-state needs about 20: its window's edges hold two batches a worker in flight")
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=16, help="logical CPUs per node")
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds of every run and its ceiling: the median and the range are printed (at "
                             "W = 64 on 2 cores one run's efficiency varies by +-0.2)")
    parser.add_argument("--out", type=Path, default=None, help="JSON lines of results")
    parser.add_argument("--timeline", action="store_true",
                        help="each run's workers' busy share and share of a call beyond its sleeps (worker_timeline.py)")
    args = parser.parse_args()

    print("| W | λ | t ms | σ | algorithm | efficiency | ceiling (chunk) | of ceiling | end to end s | CPU ms per "
          "evaluation: actors / runners / log writer / driver; cores busy (Ray's daemons) | the ceiling's |", flush=True)
    print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    roles = CpuByRole().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for workers in args.workers:
                with fresh_cluster(args) as address:
                    measure_workers(workers, args, address, Path(tmp), roles)
    finally:
        roles.stop()


@contextmanager
def fresh_cluster(args: argparse.Namespace) -> Iterator[str]:
    """A new `--nodes` x `--cpus` cluster and this driver on it, for one W: Ray's own daemons
    spend about twice the CPU once a cluster has run 64 actors (benchmarks/README.md), which
    would charge the W measured later for the ones measured before."""
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": args.cpus, "include_dashboard": False})
    try:
        for _ in range(args.nodes - 1):
            cluster.add_node(num_cpus=args.cpus)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address)  # as a Ray Job's driver would: pipeline reuses it
        yield cluster.address
    finally:
        ray.shutdown()
        cluster.shutdown()


def measure_workers(workers: int, args: argparse.Namespace, address: str, tmp: Path, roles: CpuByRole) -> None:
    """The pool's start, then every case at W = `workers`, printed (and appended to `--out`)."""
    first, last = pool_start(address, workers, args)
    print(f"| {workers} | pool start | | | first actor {first:.1f} s, all {last:.1f} s | | | | | | |", flush=True)
    for case in args.cases:
        for row in measure(workers, case, args, address, tmp / f"w{workers}", roles):
            print(f"| {workers} | {row['lam']} | {row['ms']:g} | {row['sigma']:g} | {row['algorithm']} | "
                  f"{_spread(row['efficiencies'])} | {_spread(row['ceilings'])} ({row['ceiling_chunk']}) | "
                  f"{row['of_ceiling']:.2f} | {row['seconds']:.0f} | {_roles(row['cpu_ms'])} | "
                  f"{_roles(row['ceiling_cpu_ms'])} |", flush=True)
            print(f"  - CPU µs per evaluation by process: driver | each island runner | log writer | actors "
                  f"max / mean | Ray's busiest daemon: {_processes(row['process_us'])}", flush=True)
            if row.get("run_cpu_us"):  # what the run measured itself (run.json; generation 0 included)
                own = row["run_cpu_us"]
                islands = " ".join(f"{v:.1f}" for v in own["islands"])
                writer = "-" if own.get("writer") is None else f"{own['writer']:.1f}"
                print(f"  - the run's own (run.json, first round, generation 0 included): driver (of it this "
                      f"benchmark's /proc sampler) | each island runner | log writer | actors max / mean: "
                      f"{own['driver']:.1f} ({row['sampler_us']:.1f}) | {islands} | {writer} | "
                      f"{own['actors']['max']:.1f} / {own['actors']['mean']:.1f}", flush=True)
            for r, (timeline, calls) in enumerate(zip(row["timelines"], row["ceiling_calls"]), start=1):
                if timeline:
                    print(f"  - round {r}, {row['algorithm']}: {timeline}; bare actors: {calls}", flush=True)
            if args.out:
                with args.out.open("a") as sink:
                    sink.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
