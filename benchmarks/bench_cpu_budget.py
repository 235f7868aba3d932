"""What one driver may spend per evaluation before its workers wait: bare actors fed by a loop that burns CPU.

On a machine with fewer cores than workers, a driver's CPU is taken from the
cores the workers wake on, and its thread is the one everything waits for.
So this measures, on a fresh `ray.cluster_utils.Cluster` (4 nodes x 16
logical CPUs, as `bench_scale_out.py`), W bare actors (`bare_actors.py`)
sleeping t ms per evaluation in chunks, fed by one loop that spends
`--driver-us` µs of its thread's CPU per evaluation before each chunk (as a
driver breeding, inserting and logging would; 0 is the ceiling at that chunk
size, measured as `bench_scale_out.py` measures it, over a stream of `--seconds`
a worker where that one streams at least 10). Rounds alternate over every
(chunk, burn) pair so the machine's drift touches each. Printed: the
efficiency (sleeps / W / wall; median and range), the same against the best
chunk at no burn (the ceiling), and the cores busy by role. Then, per chunk
size, the driver's budget: the largest burn still at 0.90 of the ceiling.
Set it against what the pipeline's driver spends
(`bench_driver_throughput.py --no-ray`).

    .venv/bin/python benchmarks/bench_cpu_budget.py --workers 32 64 --chunks 32 64 128 --driver-us 0 10 20 40
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from bare_actors import SleeperPool  # noqa: E402
from bench_scale_out import fresh_cluster  # noqa: E402
from cpu_roles import CpuByRole  # noqa: E402

GOAL = 0.90  # of the ceiling: the scale-out goal at t = 2 ms


def measure(workers: int, args: argparse.Namespace, roles: CpuByRole, seconds: dict[str, float]) -> \
        dict[tuple[int, float], list[dict]]:
    """`--rounds` passes of every (chunk, burn) on one pool, alternating: their results by pair (and
    the pool's start and the passes' wall seconds in `seconds`)."""
    durations = [args.ms / 1000] * round(args.seconds * workers * 1000 / args.ms)
    started = time.perf_counter()
    pool = SleeperPool(workers)
    seconds["pool start"], started = time.perf_counter() - started, time.perf_counter()
    results: dict[tuple[int, float], list[dict]] = {}
    try:
        for _ in range(args.rounds):
            for size in args.chunks:
                for burn in args.driver_us:
                    results.setdefault((size, burn), []).append(pool.feed(durations, size, roles, burn))
    finally:
        seconds["passes"] = time.perf_counter() - started
        pool.close()
    return results


def report(workers: int, results: dict[tuple[int, float], list[dict]]) -> None:
    """A row per (chunk, burn), then each chunk size's budget against the ceiling (no burn, best chunk)."""
    medians = {pair: float(np.median([r["efficiency"] for r in runs])) for pair, runs in results.items()}
    top = max(value for (_, burn), value in medians.items() if burn == 0)
    for (size, burn), runs in results.items():
        values = [r["efficiency"] for r in runs]
        cpu = {role: float(np.median([r["cpu"].get(role, 0.0) / r["cpu"]["seconds"] for r in runs]))
               for role in ("driver", "actors", "ray")}
        median, wall = medians[(size, burn)], float(np.median([r["wall"] for r in runs]))
        print(f"| {workers} | {size} | {burn:g} | {median:.2f} ({min(values):.2f}-{max(values):.2f}) | "
              f"{median / top:.2f} | {cpu['driver']:.2f} / {cpu['actors']:.2f} / {cpu['ray']:.2f}; "
              f"{sum(cpu.values()):.2f} | {wall:.1f} |", flush=True)
    for size in sorted({s for s, _ in results}):
        by_burn = {burn: value for (s, burn), value in medians.items() if s == size}
        largest = budget(by_burn, GOAL * top)
        said = "none (not even with no burn)" if largest is None else \
            f">= {largest:g} µs (every burn tried)" if largest == max(by_burn) else f"{largest:g} µs"
        print(f"  - W = {workers}, chunks of {size}: the largest burn at {GOAL:.2f} of the ceiling ({top:.2f}): "
              f"{said}", flush=True)


def budget(efficiency_by_burn: dict[float, float], floor: float) -> float | None:
    """The largest burn whose efficiency, and every smaller burn's, is at least `floor` (None: not
    even the smallest): a noisy pass above a failing burn does not count."""
    largest = None
    for burn in sorted(efficiency_by_burn):
        if efficiency_by_burn[burn] < floor:
            break
        largest = burn
    return largest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[32, 64])
    parser.add_argument("--ms", type=float, default=2.0, help="sleep per evaluation")
    parser.add_argument("--chunks", type=int, nargs="+", default=[32, 64, 128], help="evaluations per call")
    parser.add_argument("--driver-us", type=float, nargs="+", default=[0, 10, 20, 40],
                        help="the feeding loop's CPU per evaluation, µs")
    parser.add_argument("--seconds", type=float, default=4.0, help="sleep per worker in each pass")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=16, help="logical CPUs per node")
    args = parser.parse_args()
    args.driver_us = sorted({0.0, *args.driver_us})  # no burn: the ceiling the others are set against
    print("| W | chunk | driver µs an evaluation | efficiency | of the ceiling | cores busy: driver / actors / "
          "Ray's daemons; in all | a pass, s |\n|---|---|---|---|---|---|---|", flush=True)
    roles = CpuByRole().start()
    try:
        for workers in args.workers:
            seconds, started = {}, time.perf_counter()
            with fresh_cluster(args):
                seconds["cluster start"] = time.perf_counter() - started
                results = measure(workers, args, roles, seconds)
                stopping = time.perf_counter()
            seconds["stop"], seconds["end to end"] = time.perf_counter() - stopping, time.perf_counter() - started
            report(workers, results)
            print(f"  - W = {workers} end to end: " + ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items()),
                  flush=True)
    finally:
        roles.stop()


if __name__ == "__main__":
    main()
