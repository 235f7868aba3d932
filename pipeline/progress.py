"""The live progress of a run: generation, evaluations/s, best and mean, ETA, failures.

On a terminal it is a rich bar redrawn in place. Piped into a file or a CI log
there is no cursor to move back, so it becomes plain lines instead: about
twenty over the run, and always the last generation.
"""

from __future__ import annotations

import time
from typing import Any

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .display import console

__all__ = ["RunProgress"]

PLAIN_LINES = 20  # lines a piped run prints, about


class RunProgress:
    """Feeds `on_start`/`on_generation` callbacks of the runner into a bar (or plain lines).

    Generation 0 is the first population, so `--generations 5` runs generations
    0..5 and the bar counts from `gen 0/5` to `gen 5/5`."""

    def __init__(self) -> None:
        self.primary = "fitness"  # the run tells which metric it follows, in on_start
        self.plain = not console.is_terminal
        self._progress = None if self.plain else Progress(
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
        self._total = 0
        self._failures = 0
        self._evals = 0
        self._started = time.perf_counter()

    def __enter__(self) -> "RunProgress":
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()

    def on_start(self, generations: int, first: int, primary: str) -> None:
        self.primary = primary
        self._total = generations
        self._started = time.perf_counter()
        if self._progress is not None:
            self._task = self._progress.add_task("run", total=generations, completed=max(first - 1, 0), rate="",
                                                 best="", failures="")

    def on_generation(self, row: dict[str, Any]) -> None:
        self._failures += int(row.get("worker_failures", 0))
        rate = (row["evaluations"] - self._evals) / max(row["wall_seconds"], 1e-9)
        self._evals = row["evaluations"]
        best = row.get(f"best_{self.primary}")
        mean = row.get(f"mean_{self.primary}")
        fields = {
            "rate": f"{rate:,.0f} evals/s",
            "best": f"best {self.primary} {best:.4g} · mean {mean:.4g}" if best is not None else "",
            "failures": f"worker failures {self._failures}" if self._failures else "",
        }
        generation = int(row["generation"])
        if self._progress is not None:
            self._progress.update(self._task, completed=generation, **fields)
            return
        every = max(1, self._total // PLAIN_LINES)
        if generation % every == 0 or generation >= self._total:
            text = " · ".join(v for v in fields.values() if v)
            console.print(f"gen {generation}/{self._total} · {text} · {time.perf_counter() - self._started:.1f} s",
                          soft_wrap=True)
