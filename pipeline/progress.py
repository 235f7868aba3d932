"""The progress of a run: generation, evaluations/s, best and mean, ETA, failures.

Generation 0 is the initial population, so `--generations 5` runs generations
0 to 5: the bar counts the generations done after the initial one and ends at
`gen 5/5`. On a terminal it is a live rich bar; when stdout is not a terminal
(piped into a file or a pager) it prints plain lines instead — every
generation of a short run, about twenty lines for a long one, always the
last — with no carriage return and nothing cut at 80 columns.
"""

from __future__ import annotations

import math
import time
from typing import Any

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .display import console

__all__ = ["PlainLines", "RunProgress"]

PLAIN_LINES = 20  # about this many lines for a long run when stdout is not a terminal


class PlainLines:
    """Progress as whole lines, for stdout that is not a terminal: about `PLAIN_LINES` of
    them, evenly spaced over `total` steps, always the last; no carriage return, nothing
    cut at 80 columns (`evo run` and `evo train-rl` piped into a file or `tee`)."""

    def __init__(self, total: int, lines: int = PLAIN_LINES) -> None:
        self.total = total
        self.every = max(1, math.ceil(total / lines))
        self.pending: str | None = None  # the latest line, not printed yet
        self._shown: int | None = None  # the step bucket of the last line printed

    def add(self, done: int, line: str) -> None:
        """The line for `done` steps: printed if it opens a new bucket or ends the work."""
        bucket = done // self.every
        if done >= self.total or bucket != self._shown:
            self._shown, self.pending = bucket, None
            self.print(line)
        else:
            self.pending = line

    def flush(self) -> None:
        """At the end: the last line, if it was held back (a run that stopped early)."""
        if self.pending is not None:
            self.print(self.pending)
            self.pending = None

    @staticmethod
    def print(line: str) -> None:
        print(line, flush=True)


class RunProgress:
    """Feeds `on_start`/`on_generation` callbacks of the runner into a rich bar (or plain lines)."""

    def __init__(self, live: bool | None = None) -> None:
        self.primary = "fitness"  # the run tells which metric it follows, in on_start
        self.live = console.is_terminal if live is None else live
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
        ) if self.live else None
        self._task = None
        self._total = 0
        self._plain = PlainLines(0)
        self._failures = 0
        self._evals = 0  # evaluations logged before this process started (a resume's)
        self._started = time.perf_counter()

    def __enter__(self) -> "RunProgress":
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
        else:
            self._plain.flush()  # the last generation, if its line was skipped

    def on_start(self, generations: int, first: int, primary: str, evaluations: int = 0) -> None:
        """`generations`: the last generation to run; `first`: the first this process runs (0: a new run);
        `evaluations`: those the log held before (a resume), which the rate leaves out."""
        self.primary = primary
        self._total = generations
        self._plain = PlainLines(generations)
        self._plain.print = self._print
        done = max(first - 1, 0)  # generations done after the initial population
        self._evals = evaluations
        self._started = time.perf_counter()
        if self._progress is not None:
            self._task = self._progress.add_task(
                "run", total=generations, completed=done, rate="",
                best="initial population…" if first == 0 else "", failures="")
        elif first > 0:
            self._print(f"resuming after generation {first - 1} of {generations}")

    def on_generation(self, row: dict[str, Any]) -> None:
        self._failures += int(row.get("worker_failures", 0))
        # this process's evaluations over its time: a resume's earlier ones are not in it
        rate = (row["evaluations"] - self._evals) / max(time.perf_counter() - self._started, 1e-9)
        best = row.get(f"best_{self.primary}")
        mean = row.get(f"mean_{self.primary}")
        generation = int(row["generation"])
        fields = {
            "rate": f"{rate:,.0f} evals/s",
            "best": f"best {self.primary} {best:.4g} · mean {mean:.4g}" if best is not None else "",
            "failures": f"worker failures {self._failures}" if self._failures else "",
        }
        if self._progress is not None:
            self._progress.update(self._task, completed=generation, **fields)
            return
        line = "  ".join(part for part in (f"gen {generation}/{self._total}", *fields.values(),
                                           f"{time.perf_counter() - self._started:.1f} s") if part)
        self._plain.add(generation, line)

    @staticmethod
    def _print(line: str) -> None:
        print(line, flush=True)
