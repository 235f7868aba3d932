"""Pareto runs in the report: the last generation's population against its non-dominated set
(two objectives: one plot; more: each pair), the hypervolume per generation, and the set
itself as a summary table."""

from __future__ import annotations

from itertools import combinations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..records.population import first_front, population
from ..records.rundir import RunDir
from .common import RunLogs, generation_axis, value_axis

__all__ = ["FRONT_ROWS", "front_blocks", "hypervolume_figure", "is_pareto", "pareto_figures"]

FRONT_ROWS = 20  # summary.md lists at most this many members of the front


def is_pareto(run: RunLogs) -> bool:
    return run.meta["spec"].get("objectives", {}).get("mode") == "pareto"


def _objectives(run: RunLogs) -> list[str]:
    """The objectives Pareto dominance compares: the weights' keys if given, in their order."""
    return list(run.meta["spec"].get("objectives", {}).get("weights") or {}) or run.objectives


def last_front(run: RunLogs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(population, front) after the last generation reported on."""
    generation = int(run.generations["generation"].max())
    members = population(RunDir(run.path), generation)
    return members, first_front(members)


def front_figure(run: RunLogs, population: pd.DataFrame, front: pd.DataFrame) -> Figure:
    names = _objectives(run)
    pairs = list(combinations(names, 2))
    columns = min(len(pairs), 3)
    rows = -(-len(pairs) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 1.2 + 3.6 * rows), squeeze=False,
                             layout="constrained")
    for ax, (x, y) in zip(axes.flat, pairs):
        ax.scatter(population[x], population[y], s=14, color="0.7", label="population")
        ax.scatter(front[x], front[y], s=22, color="C3", label="non-dominated set")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.grid(alpha=0.3)
        value_axis(ax, y, population[y].to_numpy(dtype=float))
    for ax in list(axes.flat)[len(pairs):]:
        ax.set_visible(False)
    axes[0, 0].legend(loc="best", fontsize=8)
    generation = int(run.generations["generation"].max())
    fig.suptitle(f"{run.label}\nPareto front after generation {generation}: {len(front)} non-dominated of "
                 f"{len(population)} members" + ("" if len(pairs) == 1 else " (each pair of objectives)"),
                 fontsize=10)
    return fig


def hypervolume_figure(run: RunLogs) -> Figure:
    fig, ax = plt.subplots(figsize=(8, 3.4), layout="constrained")
    generations = run.generations
    ax.plot(generations["generation"], generations["hypervolume"], marker="." if len(generations) < 30 else None,
            clip_on=False)
    ax.set_ylabel("hypervolume")
    ax.grid(alpha=0.3)
    generation_axis(ax)
    ax.set_title("against a reference point a tenth of each objective's range beyond its worst value "
                 "(checkpoint.json: hypervolume_reference)", fontsize=7, wrap=True)
    fig.suptitle(f"{run.label}\nHypervolume of the population per generation", fontsize=10)
    return fig


def pareto_figures(run: RunLogs) -> dict[str, Figure]:
    """The Pareto figures by file stem (none for other runs)."""
    if not is_pareto(run) or len(_objectives(run)) < 2:
        return {}
    figures = {"pareto_front": front_figure(run, *last_front(run))}
    if "hypervolume" in run.generations:
        figures["hypervolume"] = hypervolume_figure(run)
    return figures


def front_blocks(run: RunLogs, fmt) -> list[tuple]:
    """summary.md's section: the last generation's non-dominated set."""
    if not is_pareto(run):
        return []
    _, front = last_front(run)
    names = _objectives(run)
    rows = [[str(int(r["id"])), str(int(r["born"])), *(fmt(float(r[n])) for n in names)]
            for _, r in front.head(FRONT_ROWS).iterrows()]
    shown = f"; the first {FRONT_ROWS} by id shown" if len(front) > FRONT_ROWS else ""
    last = run.generations.iloc[-1]
    hv = (f" Its hypervolume is {fmt(float(last['hypervolume']))} (against checkpoint.json's "
          "hypervolume_reference)." if "hypervolume" in run.generations else "")
    return [("h2", "Pareto front"),
            ("p", f"The non-dominated members of the last generation's population: {len(front)}{shown} "
                  f"(`Run.pareto_front()`).{hv}"),
            ("table", ["id", "born", *names], rows)]
