"""Bare Ray actors sleeping chunks of given durations, fed by one loop with no evolution.

What the scale-out benchmarks set a run against: the ceiling of this machine
(`bench_scale_out.py`), and what a driver may spend per evaluation before the
workers wait for it (`bench_cpu_budget.py`, where the loop burns that CPU
in its own thread before each chunk it sends, as a driver breeding,
inserting and logging would). Two chunks are in flight per actor.
"""

from __future__ import annotations

import time
from typing import Any

from cpu_roles import CpuByRole


class SleeperPool:
    """W sleeping actors, started once and fed any number of streams (`feed`)."""

    def __init__(self, workers: int) -> None:
        import ray

        @ray.remote(num_cpus=1, scheduling_strategy="SPREAD")
        class Sleeper:
            def sleep(self, chunk: list[float]) -> float:
                started = time.perf_counter()
                for d in chunk:
                    time.sleep(d)
                return time.perf_counter() - started

        self.workers = workers
        self.actors = [Sleeper.remote() for _ in range(workers)]
        ray.get([a.__ray_ready__.remote() for a in self.actors])

    def feed(self, durations: list[float], size: int, roles: CpuByRole, driver_us: float = 0.0) -> dict[str, Any]:
        """Sleep `durations` in chunks of `size`, spending `driver_us` µs of this thread's CPU per
        evaluation before each chunk is sent: the efficiency (sleeps / W / wall), the CPU seconds
        by role and the window's seconds (`roles.window`), and the seconds the calls took."""
        import ray

        chunks = [durations[i:i + size] for i in range(0, len(durations), size)][::-1]
        roles.window()  # opens the pass's window
        started, running, load, finished = time.perf_counter(), {}, [0] * self.workers, []
        while chunks or running:
            for a, actor in enumerate(self.actors):
                while load[a] < 2 and chunks:
                    chunk = chunks.pop()
                    if driver_us:
                        _burn(driver_us * 1e-6 * len(chunk))
                    running[actor.sleep.remote(chunk)] = a
                    load[a] += 1
            for ref in ray.wait(list(running), num_returns=1)[0]:
                load[running.pop(ref)] -= 1
                finished.append(ref)  # read after the pass: the loop makes no more calls than before
        wall = time.perf_counter() - started
        cpu, seconds = roles.window()
        return {"efficiency": sum(durations) / self.workers / wall, "cpu": {**cpu, "seconds": seconds},
                "in_calls": sum(ray.get(finished)), "wall": wall}

    def close(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)


def _burn(seconds: float) -> None:
    """Spend `seconds` of this thread's CPU (a driver's own work, stood in for)."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
