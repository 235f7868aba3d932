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

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .display import console

__all__ = ["PlainLines", "RunProgress", "fit_bar"]

PLAIN_LINES = 20  # about this many lines for a long run when stdout is not a terminal
BAR_WIDTH = 40, 6  # the bar's width on a wide terminal, and the least it is shrunk to
TIME_WIDTH = 8  # elapsed and ETA as H:MM:SS, with room for a tenth hour


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


def fit_bar(width: int, generation_text: str, choices: list[str]) -> tuple[int, str]:
    """(bar width, text) for a line of `width` columns: the first of `choices` (the fullest
    first) that fits beside a bar of at least the least width, the bar as wide as room allows;
    the last choice cut with "…" if none fits. Generation, elapsed and ETA are never cut:
    rich shrinks every column of a line too wide, and at 80 columns they read `0:0…`."""
    fixed = len(generation_text) + 2 * TIME_WIDTH + len("ETA") + 5  # five spaces between six columns
    room = width - 1 - fixed - 1  # the last column left free (a full line wraps on some terminals)
    widest, least = BAR_WIDTH
    for text in choices:
        if len(text) + least <= room:
            return min(widest, room - len(text)), text
    keep = max(room - least, 1)
    last = choices[-1]
    return least, last if len(last) <= keep else last[:keep - 1] + "…"


class RunProgress:
    """Feeds `on_start`/`on_generation` callbacks of the runner into a rich bar (or plain lines).

    The live bar fits its terminal's width: the label of the best figure, then the rate and
    the bar's width give way first, so generation, elapsed and ETA stay whole at 80 columns."""

    def __init__(self, live: bool | None = None, output: Console | None = None) -> None:
        self.primary = "fitness"  # the run tells which metric it follows, in on_start
        self.output = console if output is None else output
        self.live = self.output.is_terminal if live is None else live
        self._bar = BarColumn(bar_width=BAR_WIDTH[0])
        self._progress = Progress(
            TextColumn("{task.fields[generation]}"),
            self._bar,
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.output,
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
            self._task = self._progress.add_task("run", total=generations, completed=done,
                                                 **self._fitted(done, ["initial population…" if first == 0 else ""]))
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
            self._progress.update(self._task, completed=generation,
                                  **self._fitted(generation, self._choices(fields, best, mean)))
            return
        line = "  ".join(part for part in (f"gen {generation}/{self._total}", *fields.values(),
                                           f"{time.perf_counter() - self._started:.1f} s") if part)
        self._plain.add(generation, line)

    def _choices(self, fields: dict[str, str], best: float | None, mean: float | None) -> list[str]:
        """The text beside the bar, fullest first: then without the metric's name, without
        the rate, with failures shortened; a count of worker failures is in every one."""
        failures, failed = (f"{self._failures} worker failures", f"{self._failures} failed") if self._failures \
            else ("", "")
        figures = f"best {best:.4g} · mean {mean:.4g}" if best is not None else ""
        shortest = f"best {best:.4g}" if best is not None else ""
        return ["  ".join(part for part in parts if part) for parts in (
            fields.values(), (fields["rate"], figures, failures), (figures, failures), (figures, failed),
            (shortest, failed))]

    def _fitted(self, completed: int, choices: list[str]) -> dict[str, str]:
        """The bar's text fields for the terminal's width now (the bar's width set to match)."""
        self._bar.bar_width, info = fit_bar(self.output.width, f"gen {self._total:>4}/{self._total}", choices)
        return {"generation": f"gen {completed:>4}/{self._total}", "info": info}

    @staticmethod
    def _print(line: str) -> None:
        print(line, flush=True)
