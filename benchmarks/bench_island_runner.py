"""One island's generations, as its runner makes them, on 4 local Ray actors: CPU per child.

    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 .venv/bin/python benchmarks/bench_island_runner.py --loop generational
    RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 .venv/bin/python benchmarks/bench_island_runner.py --loop own

An island runner's CPU an evaluation of the run is its CPU a child of its own
island over the island count (issue 41's goal: 8 µs with 8 islands, so 64 µs a
child). `bench_scale_out.py` measures that inside a whole run, where the VM's
other tenants and the run's other processes move it by ±15%; this runs the
same code path alone (`steady.island_epochs` over `actors.IslandActors`, the
island of `bench_scale_out.py --cases 1024:5:1`: 64 members, 128 children a
generation, the sleepy task at `--ms` a genome) and times each step with the
thread's clock. To compare code, run it twice with `PYTHONPATH` on another
checkout (`git worktree add`), from that checkout's directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).parent))

import ray  # noqa: E402

import bench_scale_out  # noqa: E402

CHILDREN = 128  # an island's a generation (1,024 over 8 islands)


def timed(owner: type, name: str, spent: Counter, label: str) -> None:
    """Wrap the method `owner.name` so that its thread CPU adds to `spent[label]` (no step is
    inside another: `Scorer.finish` is the wait and the apply)."""
    method = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return method(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - started

    setattr(owner, name, wrapper)


def island(loop: str, ms: float) -> tuple[Callable[[int, int], None], Counter]:
    """`advance(first, last)`, running the island's generations, and the CPU seconds of its steps."""
    from pipeline.evaluation.ray_pool import RayEvaluator
    from pipeline.evolution.islands import Plan
    from pipeline.evolution.parts import build_parts
    from pipeline.evolution.scoring import Scorer
    from pipeline.evolution.tracking import Tracker
    from pipeline.islands.actors import IslandActors
    from pipeline.islands.epochs import Rows
    from pipeline.islands.steady import island_epochs
    from pipeline.plugins import code_bundle
    from pipeline.spec import RunSpec

    algorithm = "islands+steady" if loop == "own" else "islands"
    data = bench_scale_out.spec(algorithm, 8 * CHILDREN, ms, 0, argparse.Namespace(generations=10**6, islands=8,
                                                                                     interval=5))
    sys.path.insert(0, data["execution"]["code_dir"])
    spec = RunSpec.model_validate(data)
    parts = build_parts(spec)
    pool = RayEvaluator(spec.task_spec(), 4, code=code_bundle(spec), wait_for_all=True)
    pool.wait_until_ready()
    actors = IslandActors(pool.slots(), 3, None, learner=parts.task)
    scorer = Scorer(actors, parts.noise, parts.objectives, "skip")
    rows = Rows("bench", parts.kind, parts.objectives, Tracker(spec, parts.objectives), parts.noise.reevaluate)
    spent: Counter = Counter()  # by class: an own loop runs a copy of the run's algorithm (`single_island`)
    for owner, name, label in ((type(parts.algorithm), "ask", "breed"), (type(parts.algorithm), "tell", "tell"),
                               (Scorer, "start", "send"), (Scorer, "submit", "send"), (IslandActors, "wait", "wait"),
                               (Scorer, "apply", "apply scores"), (Rows, "of", "log rows"),
                               (Rows, "built", "log tables")):
        timed(owner, name, spent, label)
    epochs = island_epochs(parts.algorithm, scorer, rows, Plan.of(spec), spec.execution.in_flight)
    population: list = []

    def advance(first: int, last: int) -> None:
        nonlocal population
        _, population = epochs(0, population, first, last)

    return advance, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loop", choices=["generational", "own"], default="generational")
    parser.add_argument("--ms", type=float, default=1.0, help="the sleepy task's sleep a genome")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of 30 generations: the median is printed")
    args = parser.parse_args()
    ray.init(num_cpus=6, include_dashboard=False, _temp_dir=tempfile.mkdtemp(prefix="bench-runner-"))
    try:
        advance, spent = island(args.loop, args.ms)
        advance(0, 24)  # warm: imports, the actors' first chunks, the allocator
        spent.clear()
        threads, processes, first = [], [], 25
        for _ in range(args.rounds):
            thread, process = time.thread_time(), time.process_time()
            for _ in range(6):
                advance(first, first + 4)
                first += 5
            threads.append((time.thread_time() - thread) / (30 * CHILDREN) * 1e6)
            processes.append((time.process_time() - process) / (30 * CHILDREN) * 1e6)
    finally:
        ray.shutdown()
    print(f"{args.loop} island, CPU µs a child (median of {args.rounds} rounds of 30 generations): "
          f"thread {statistics.median(threads):.1f} (rounds {min(threads):.1f}-{max(threads):.1f}), "
          f"process {statistics.median(processes):.1f}")
    children = args.rounds * 30 * CHILDREN
    print("  by step, thread:", ", ".join(f"{label} {seconds / children * 1e6:.1f}"
                                         for label, seconds in sorted(spent.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
