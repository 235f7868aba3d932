"""How busy the workers were, generation by generation, and how much of a call's time was beyond its sleeps.

Efficiency against the ceiling mixes two losses: workers that wait for the
driver (idle between calls), and calls that take longer than their sleeps
(on a machine with fewer cores than processes, a woken sleeper waits for a
core, more so the busier the cores). The sleep plug-in's `calls_dir` option
logs each call's span in the actor; with the driver's time for each
generation this separates the two (`bench_scale_out.py --timeline`).
Generational islands report an epoch's generations at once, so for them
only the figure after the warm-up says much.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

WARM_UP = 3  # generations 1..WARM_UP are reported apart: the batches' sizes are still being learnt
SHORTEST_WINDOW = 0.001  # s: edges closer than this (an epoch's generations, reported at once) make no window


def read_calls(calls_dir: Path) -> list[np.ndarray]:
    """Per actor process, its calls as rows (start, end, seconds slept), by start; a line cut short
    (an actor killed while writing) is left out."""
    calls = []
    for path in sorted(calls_dir.glob("*.txt")):
        rows = [fields for fields in (line.split() for line in path.read_text().splitlines()) if len(fields) == 3]
        if rows:
            table = np.array(rows, dtype=float)
            calls.append(table[np.argsort(table[:, 0])])
    return calls


def window_shares(calls: list[np.ndarray], start: float, end: float, workers: int) -> tuple[float, float]:
    """The share of W workers' time in [start, end) spent in calls, and the share of that time
    beyond the calls' sleeps (a call's sleeps taken as spread evenly over it; NaN if no call)."""
    busy = slept = 0.0
    for rows in calls:
        overlap = np.clip(np.minimum(rows[:, 1], end) - np.maximum(rows[:, 0], start), 0.0, None)
        span = np.maximum(rows[:, 1] - rows[:, 0], 1e-12)
        busy += float(overlap.sum())
        slept += float((rows[:, 2] * overlap / span).sum())
    return busy / (workers * (end - start)), (1.0 - slept / busy) if busy else math.nan


def summarise(calls_dir: Path, generation_times: list[float], workers: int) -> dict[str, float]:
    """Busy share and the share beyond the sleeps for generations 1..WARM_UP and for the later ones,
    up to the last generation every actor finished a logged call after (calls running at the stop
    are killed unlogged, and would count as idle); and for those later generations the median and
    90th percentile of a worker's wait between two calls, in ms."""
    calls, edges = read_calls(calls_dir), list(generation_times)
    if not calls or len(edges) < 2:
        return {}
    logged_until = min(float(rows[-1, 1]) for rows in calls)
    last = max((i for i, edge in enumerate(edges) if edge <= logged_until), default=0)
    warm_up = min(WARM_UP, last)
    summary: dict[str, float] = {}
    for name, first, stop in (("warm_up", 0, warm_up), ("later", warm_up, last)):
        if stop > first and edges[stop] - edges[first] >= SHORTEST_WINDOW:
            summary[f"{name}_busy"], summary[f"{name}_overhead"] = window_shares(calls, edges[first], edges[stop],
                                                                                 workers)
    if last > warm_up:
        inside = [(rows[:-1, 1] >= edges[warm_up]) & (rows[1:, 0] <= edges[last]) for rows in calls]
        gaps = np.concatenate([(rows[1:, 0] - rows[:-1, 1])[keep] for rows, keep in zip(calls, inside)])
        if len(gaps):
            summary["gap_median_ms"] = float(1000 * np.median(gaps))
            summary["gap_p90_ms"] = float(1000 * np.percentile(gaps, 90))
    return summary


def shares(busy: float, overhead: float) -> str:
    """The two shares as the benchmark prints them, for a run's window and for the bare actors."""
    return f"{busy:.2f}, {100 * overhead:.1f}% of a call beyond its sleeps"


def describe(summary: dict[str, float]) -> str:
    """One line for the benchmark's output, the later generations first (the run's steady part)."""
    def part(name: str) -> str:
        if f"{name}_busy" not in summary or math.isnan(summary[f"{name}_overhead"]):
            return "-"
        return shares(summary[f"{name}_busy"], summary[f"{name}_overhead"])

    gaps = f"{summary['gap_median_ms']:.1f} / {summary['gap_p90_ms']:.1f} ms" if "gap_median_ms" in summary else "-"
    return f"busy {part('later')} (generations 1-{WARM_UP}: {part('warm_up')}); gaps median / p90 {gaps}"
