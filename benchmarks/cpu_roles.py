"""CPU time of this machine's Ray processes by role, while a run goes on (Linux `/proc`).

Why: on a 2-core machine the scale-out figures are bounded by CPU, not by
waiting, so the benchmark reports where the CPU of each evaluation went
(evaluation actors, island runners, Ray's own daemons, the log's writer
process, the driver), against the bare-actor ceiling's. A thread reads every process's
user + system time each `PERIOD` s; a process's share of a window is its
last reading minus its first (0 for one born inside it), so the CPU of a
process that dies between two readings is short by at most one period.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter

PERIOD = 1.0  # a reading held the driver's GIL ~20 ms at 64 workers under load (py-spy): once a second
_TICK = os.sysconf("SC_CLK_TCK")
ROLES = {"ray::_TaskActor": "actors", "ray::_StealingTaskActor": "actors", "ray::Sleeper": "actors",
         "ray::IslandRunner": "runners"}  # anything else of Ray's: "ray"
WRITER = "evo-log-writer"  # the log's writer process (`pipeline.records.writer_process`): role "writer"


def _role(command: str) -> str | None:
    if not command:
        return None
    name = command.split()[0].split(".")[0]
    if name in ROLES:
        return ROLES[name]
    if name.startswith("ray::") or "/ray/" in command or name.endswith(("raylet", "gcs_server")):
        return "ray"
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _writer(pid: str) -> bool:
    """Process `pid` is the log's writer of this driver's run (its fork, named by prctl)."""
    with open(f"/proc/{pid}/comm") as f:
        if f.read().strip() != WRITER:
            return False
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid()


def _readings() -> dict[int, tuple[str, float]]:
    """(role, CPU seconds) of every Ray process now, by pid (this process excluded: see `driver`)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                role = "writer" if _writer(entry) else _role(f.read().replace(b"\0", b" ").decode(errors="replace"))
            if role is None:
                continue
            found[int(entry)] = (role, cpu_seconds(int(entry)))
        except (OSError, IndexError, ValueError):  # the process ended while being read
            continue
    return found


class CpuByRole:
    """Sample in a thread from `start()`; `window()` gives the CPU seconds by role since the last call.
    Ray's own processes (raylets, GCS, dashboard agents, log monitors, idle workers) cost CPU
    every second, busy or not, so they are best read in cores, the rest per evaluation."""

    def __init__(self) -> None:
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._driver = time.process_time()
        self._own = 0.0
        self.sampling = 0.0  # the sampling thread's CPU seconds in all: the driver's, not the run's
        self._opened = time.perf_counter()
        self.processes: list[tuple[str, float]] = []  # the last window's (role, CPU seconds) per process

    def start(self) -> CpuByRole:
        self.window()
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(PERIOD):
            before = time.thread_time()
            self._take()
            with self._lock:
                spent = time.thread_time() - before  # the sampling's own CPU: not the driver's
                self._own += spent
                self.sampling += spent

    def _take(self) -> None:
        readings = _readings()
        with self._lock:
            for pid, (role, seconds) in readings.items():
                self._first.setdefault(pid, 0.0)
                self._last[pid] = (role, seconds)

    def window(self) -> tuple[dict[str, float], float]:
        """CPU seconds by role since the previous call (this process as "driver"), and the wall
        seconds since then; each process's own in `processes`."""
        self._take()
        with self._lock:
            spent: Counter = Counter()
            self.processes = []
            for pid, (role, seconds) in self._last.items():
                spent[role] += seconds - self._first[pid]
                self.processes.append((role, seconds - self._first[pid]))
            self._first = {pid: seconds for pid, (_, seconds) in self._last.items()}
            self._last = {}
            own, self._own = self._own, 0.0
        now, wall = time.process_time(), time.perf_counter()
        spent["driver"], self._driver = now - self._driver - own, now
        self.processes.append(("driver", spent["driver"]))
        seconds, self._opened = wall - self._opened, wall
        return dict(spent), seconds

    def stop(self) -> None:
        self._stop.set()
