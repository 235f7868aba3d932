"""The live progress bar of a run: generation, evaluations/s, best and mean, ETA, failures."""

from __future__ import annotations

import time
from typing import Any

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .display import console

__all__ = ["RunProgress"]


class RunProgress:
    """Feeds `on_start`/`on_generation` callbacks of the runner into a rich bar."""

    def __init__(self) -> None:
        self.primary = "fitness"  # the run tells which metric it follows, in on_start
        self._progress = Progress(
            TextColumn("gen {task.completed:>4.0f}/{task.total:.0f}"),
            BarColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("{task.fields[best]}"),
            TextColumn("{task.fields[failures]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._task = None
        self._failures = 0
        self._evals = 0
        self._started = time.perf_counter()

    def __enter__(self) -> "RunProgress":
        self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.stop()

    def on_start(self, generations: int, first: int, primary: str) -> None:
        self.primary = primary
        self._task = self._progress.add_task(
            "run", total=generations + 1, completed=first, rate="", best="starting Ray…" if first == 0 else "",
            failures="",
        )
        self._started = time.perf_counter()

    def on_generation(self, row: dict[str, Any]) -> None:
        self._failures += int(row.get("worker_failures", 0))
        rate = (row["evaluations"] - self._evals) / max(row["wall_seconds"], 1e-9)
        self._evals = row["evaluations"]
        best = row.get(f"best_{self.primary}")
        mean = row.get(f"mean_{self.primary}")
        self._progress.update(
            self._task,
            completed=row["generation"] + 1,
            rate=f"{rate:,.0f} evals/s",
            best=f"best {self.primary} {best:.4g} · mean {mean:.4g}" if best is not None else "",
            failures=f"worker failures {self._failures}" if self._failures else "",
        )
