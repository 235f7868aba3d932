"""The figures of a run's report, as matplotlib figures (titled with the run) and PNG files."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from fitness.atomic import atomic_write_bytes

from .archive import archive_figures
from .pareto import pareto_figures
from .common import (DIVERSITY, DIVERSITY_SCALE, USER_KIND_DIVERSITY, RunLogs, band, constant_objectives,
                     generation_axis, value_axis)

__all__ = ["run_figures", "save"]


def save(fig: Figure, path: Path) -> Path:
    """Write the figure as a PNG, atomically (a report being rewritten is never half a file)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def _title(fig: Figure, what: str, run: RunLogs) -> None:
    fig.suptitle(f"{run.label}\n{what}", fontsize=10)


def objectives_figure(run: RunLogs) -> Figure:
    """Best and mean ± std of each objective per generation; constant objectives are left out."""
    generations = run.generations
    constant = constant_objectives(generations)
    names = [n for n in run.objectives if n not in constant] or run.objectives
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 1.2 + 2.3 * len(names)), sharex=True, squeeze=False,
                             layout="constrained")
    x = generations["generation"]
    for ax, name in zip(axes[:, 0], names):
        mean, std, best = (generations[f"{s}_{name}"] for s in ("mean", "std", "best"))
        values = np.concatenate([mean.to_numpy(dtype=float), best.to_numpy(dtype=float)])
        low, high = band(mean, std, name, values)
        ax.fill_between(x, low, high, alpha=0.25, label="population mean ± std")
        marker = "." if len(x) < 30 else None
        ax.plot(x, mean, label="population mean", marker=marker, clip_on=False)
        ax.plot(x, best, label="population best (per objective)", linewidth=2, marker=marker, clip_on=False)
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
        value_axis(ax, name, values)
    axes[0, 0].legend(loc="best", fontsize=8)
    generation_axis(axes[-1, 0])
    what = "Objectives per generation (over the population)"
    if constant:
        what += "\nconstant over the run, not drawn: " + ", ".join(f"{k} = {v:g}" for k, v in constant.items())
    _title(fig, what, run)
    return fig


def diversity_figure(run: RunLogs) -> Figure:
    fig, ax = plt.subplots(figsize=(8, 3.4), layout="constrained")
    ax.plot(run.generations["generation"], run.generations["diversity"], marker="." if len(run.generations) < 30
            else None, clip_on=False)
    ax.set_ylabel("diversity")
    ax.grid(alpha=0.3)
    value_axis(ax, "diversity", run.generations["diversity"].to_numpy(dtype=float))
    generation_axis(ax)
    definition = DIVERSITY.get(run.kind, USER_KIND_DIVERSITY)
    ax.set_title(f"{run.kind}: {definition}; {DIVERSITY_SCALE}", fontsize=7, wrap=True)
    _title(fig, "Population diversity per generation", run)
    return fig


def table_figure(run: RunLogs) -> Figure:
    genome = np.asarray(run.best["hall_of_fame"][0]["genome"], dtype=float)
    task_genome = run.best["task"]["genome"]
    columns = task_genome.get("columns", [str(i) for i in range(genome.shape[1])])
    fig, ax = plt.subplots(figsize=(max(6.0, 1.5 + 1.2 * genome.shape[1]), 1.8 + 0.35 * genome.shape[0]),
                           layout="constrained")
    image = ax.imshow(genome, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(genome.shape[1]), columns, rotation=30, ha="right")
    ax.set_yticks(range(genome.shape[0]))
    ax.set_ylabel(f"feature: {task_genome.get('feature', '')}")
    fig.colorbar(image, ax=ax, label="probability")
    _title(fig, "Strategy table of the best individual", run)
    return fig


def parameters_figure(run: RunLogs, individuals: pd.DataFrame) -> Figure:
    """Each parameter of the best individual of every generation, one step per generation."""
    primary = run.best["primary"]
    key = primary if primary in individuals.columns else "fitness"
    best_rows = (individuals.sort_values(["generation", key], ascending=[True, False])
                 .groupby("generation").head(1))
    params = pd.DataFrame(list(best_rows["genome"]), index=best_rows["generation"].to_numpy())
    names = list(params.columns)
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 1.2 + 1.1 * max(len(names), 1)), sharex=True,
                             squeeze=False, layout="constrained")
    generations = params.index.to_numpy()
    edges = np.append(generations, generations[-1] + 1) - 0.5  # each generation a step of width 1
    for ax, name in zip(axes[:, 0], names):
        column = params[name]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            ax.stairs(column.to_numpy(dtype=float), edges, baseline=None, linewidth=1.8)
            ax.plot(generations, column.to_numpy(dtype=float), ".", color="C0")
        else:  # a choice: its position among the values it takes, labelled
            choices = sorted(column.astype(str).unique())
            codes = column.astype(str).map(choices.index).to_numpy(dtype=float)
            ax.stairs(codes, edges, baseline=None, linewidth=1.8)
            ax.set_yticks(range(len(choices)), choices, fontsize=7)
        ax.set_ylabel(name, rotation=0, ha="right", fontsize=8)
        ax.grid(alpha=0.3)
    ax = axes[-1, 0]
    ax.set_xlim(edges[0], edges[-1])
    generation_axis(ax)
    _title(fig, f"Parameters of each generation's best individual (by {key})", run)
    return fig


def run_figures(run: RunLogs, individuals=None) -> dict[str, Figure]:
    """The report's figures by file stem. `individuals` (a callable) is read only when needed."""
    figures = {"objectives": objectives_figure(run), "diversity": diversity_figure(run)}
    if run.kind == "table":
        figures["best_table"] = table_figure(run)
    elif run.kind == "rules" and individuals is not None:
        figures["parameters"] = parameters_figure(run, individuals())
    figures.update(pareto_figures(run))
    figures.update(archive_figures(run))
    return figures
