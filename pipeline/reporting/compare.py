"""`evo report --compare RUN RUN ...`: several runs' objectives overlaid, per generation.

For instance sampled against exact fitness, or two seeds: each run keeps one
colour, its population best solid and its population mean dashed, one panel
per objective the runs share.
"""

from __future__ import annotations

import html
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from fitness.atomic import atomic_write_text

from ..rundir import RunDir
from .figures import generation_axis, value_axis, objective_names, save
from .html import figure_html, page

__all__ = ["comparison_figure", "write_comparison"]


def _load(run_dirs: list[str | Path]) -> list[tuple[str, pd.DataFrame]]:
    runs = []
    for run_dir in run_dirs:
        rundir = RunDir(run_dir)
        meta = rundir.read_run()  # one line if it is not a run directory
        generations = pd.DataFrame(rundir.read_generations())
        if generations.empty:
            raise ValueError(f"{rundir.path}: no complete generation to compare yet")
        runs.append((meta["run_id"], generations))
    labels = [label for label, _ in runs]
    if len(set(labels)) < len(labels):  # the same run copied: tell them apart by folder
        runs = [(f"{label} ({Path(d)})", g) for (label, g), d in zip(runs, run_dirs)]
    return runs


def comparison_figure(runs: list[tuple[str, pd.DataFrame]]):
    """One panel per shared objective; per run, best (solid) and mean (dashed) in one colour."""
    shared = [n for n in objective_names(runs[0][1]) if all(f"best_{n}" in g for _, g in runs[1:])]
    if not shared:
        raise ValueError("these runs share no objective to compare: "
                         + "; ".join(f"{label}: {', '.join(objective_names(g))}" for label, g in runs))
    fig, axes = plt.subplots(len(shared), 1, figsize=(9, 1.5 + 2.6 * len(shared)), sharex=True, squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, name in zip(axes[:, 0], shared):
        for i, (label, generations) in enumerate(runs):
            colour = colours[i % len(colours)]
            ax.plot(generations["generation"], generations[f"best_{name}"], color=colour, linewidth=2,
                    label=f"{label} best")
            ax.plot(generations["generation"], generations[f"mean_{name}"], color=colour, linestyle="--",
                    label=f"{label} mean")
        value_axis(ax, name)
    axes[0, 0].legend(loc="best", fontsize=7)
    generation_axis(axes[-1, 0])
    fig.suptitle("Comparison: " + " vs ".join(label for label, _ in runs)
                 + "\npopulation best (solid) and mean (dashed) per generation", fontsize=9)
    return fig


def write_comparison(run_dirs: list[str | Path], out: str | Path = ".") -> list[Path]:
    """Write OUT/compare.png and OUT/compare.html for two or more runs; returns the files."""
    if len(run_dirs) < 2:
        raise ValueError(f"--compare needs at least two run directories, got {len(run_dirs)}")
    runs = _load(list(run_dirs))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figure = save(comparison_figure(runs), out / "compare.png")
    listing = "".join(f"<li>{html.escape(label)}: generations 0-{int(g['generation'].max())}, "
                      f"{int(g['evaluations'].max()):,} evaluations</li>" for label, g in runs)
    document = atomic_write_text(out / "compare.html", page("Comparison of " + ", ".join(label for label, _ in runs),
                                                            f"<ul>{listing}</ul>{figure_html(figure)}"))
    return [figure, Path(document)]
