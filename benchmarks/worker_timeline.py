"""How busy the workers were, generation by generation, and how much longer than its sleeps a call took.

Efficiency against the ceiling mixes two losses: workers that wait for the
driver (idle between calls), and calls that take longer than their sleeps
(on a machine with fewer cores than processes, a woken sleeper waits for a
core, more so the busier the cores). The sleep plug-in's `calls_dir` option
logs each call's span in the actor; with the driver's time for each
generation this separates the two (`bench_scale_out.py --timeline`). Generational
islands report an epoch's generations at once, so for them only the figure after
the warm-up says much.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

WARM_UP = 3  # generations 1..WARM_UP are reported apart: the batches' sizes are still being learnt


def read_calls(calls_dir: Path) -> list[np.ndarray]:
    """Per actor process, its calls as rows (start, end, seconds slept), by start."""
    calls = []
    for path in sorted(calls_dir.glob("*.txt")):
        rows = np.loadtxt(path, ndmin=2)
        calls.append(rows[np.argsort(rows[:, 0])])
    return calls


def window(calls: list[np.ndarray], start: float, end: float, workers: int) -> tuple[float, float]:
    """The share of W workers' time in [start, end) spent in calls, and the share of those calls'
    time beyond their sleeps (a call's sleeps taken as spread evenly over it)."""
    busy = slept = 0.0
    for rows in calls:
        overlap = np.clip(np.minimum(rows[:, 1], end) - np.maximum(rows[:, 0], start), 0.0, None)
        span = np.maximum(rows[:, 1] - rows[:, 0], 1e-12)
        busy += float(overlap.sum())
        slept += float((rows[:, 2] * overlap / span).sum())
    return busy / (workers * (end - start)), (1.0 - slept / busy) if busy else 0.0


def summarise(calls_dir: Path, generation_times: list[float], workers: int) -> dict[str, float]:
    """Busy share and in-call overhead for generations 1..WARM_UP and for the ones after, but the
    last (its calls still running at the stop are killed unlogged); and the median and 90th
    percentile of a worker's wait between two calls after generation 0, in ms."""
    calls, edges = read_calls(calls_dir), generation_times
    summary: dict[str, float] = {}
    for name, first, last in (("warm_up", 0, min(WARM_UP, len(edges) - 1)),
                              ("later", min(WARM_UP, len(edges) - 1), len(edges) - 2)):
        if last > first:
            summary[f"{name}_busy"], summary[f"{name}_overhead"] = window(calls, edges[first], edges[last], workers)
    gaps = np.concatenate([np.zeros(0)] + [(rows[1:, 0] - rows[:-1, 1])[rows[:-1, 0] >= edges[0]] for rows in calls])
    if len(gaps):
        summary["gap_median_ms"], summary["gap_p90_ms"] = 1000 * np.median(gaps), 1000 * np.percentile(gaps, 90)
    return summary


def describe(summary: dict[str, float]) -> str:
    """'busy 0.97, 11.2% of a call beyond its sleeps (generations 1-3: 0.90, 17.0% ...); gaps median / p90
    1.9 / 7.7 ms'."""
    def part(name: str) -> str:
        if f"{name}_busy" not in summary:
            return "-"
        return f"{summary[name + '_busy']:.2f}, {100 * summary[name + '_overhead']:.1f}% of a call beyond its sleeps"

    gaps = f"{summary['gap_median_ms']:.1f} / {summary['gap_p90_ms']:.1f} ms" if "gap_median_ms" in summary else "-"
    return f"busy {part('later')} (generations 1-{WARM_UP}: {part('warm_up')}); gaps median / p90 {gaps}"
