"""The report's figures, each titled with its run, built from the logs alone.

Figures are returned (not saved) so tests can read their axes; `save` writes
and closes one.
"""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no screen needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from fitness.atomic import atomic_write_bytes  # noqa: E402

__all__ = ["constant_objectives", "diversity_figure", "generation_axis", "is_share", "objective_names",
           "objectives_figure", "parameters_figure", "save", "table_figure", "value_axis"]


def save(fig: Figure, path: Path) -> Path:
    """Write the figure as a PNG, atomically (a report being rewritten is never half a file)."""
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def is_share(name: str) -> bool:
    """Objectives that are probabilities: their axes stay within [0, 1]."""
    return name.startswith("win_rate_") or name == "optimal_move_rate"


def objective_names(generations: pd.DataFrame) -> list[str]:
    return [c[len("best_"):] for c in generations.columns if c.startswith("best_")]


def constant_objectives(generations: pd.DataFrame) -> dict[str, float]:
    """Objectives with one value for every member of every generation (a flat panel says nothing)."""
    out = {}
    for name in objective_names(generations):
        values = generations[[f"best_{name}", f"mean_{name}"]].to_numpy(dtype=float)
        if np.allclose(values, values[0, 0]) and np.allclose(generations[f"std_{name}"], 0.0):
            out[name] = float(values[0, 0])
    return out


def generation_axis(ax) -> None:
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no generation 0.5
    ax.set_xlabel("generation")


def value_axis(ax, name: str) -> None:
    ax.set_ylabel(name)
    if is_share(name):
        ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)


def objectives_figure(generations: pd.DataFrame, title: str) -> Figure:
    """Best and mean (± std) of each objective over the population, per generation."""
    names = [n for n in objective_names(generations) if n not in constant_objectives(generations)] \
        or objective_names(generations)
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 1.2 + 2.4 * len(names)), sharex=True, squeeze=False)
    x = generations["generation"]
    marker = "o" if len(x) < 12 else None
    for ax, name in zip(axes[:, 0], names):
        mean, std = generations[f"mean_{name}"], generations[f"std_{name}"]
        low, high = mean - std, mean + std
        if is_share(name):
            low, high = low.clip(0, 1), high.clip(0, 1)
        ax.fill_between(x, low, high, alpha=0.25, label="mean ± std")
        ax.plot(x, mean, label="population mean", marker=marker, markersize=3)
        ax.plot(x, generations[f"best_{name}"], label="population best", linewidth=2, marker=marker, markersize=3)
        value_axis(ax, name)
    axes[0, 0].legend(loc="best", fontsize=8)
    generation_axis(axes[-1, 0])
    fig.suptitle(f"{title}\nobjectives of the population, per generation")
    return fig


def diversity_figure(generations: pd.DataFrame, title: str, definition: str) -> Figure:
    fig, ax = plt.subplots(figsize=(8, 3.4))
    ax.plot(generations["generation"], generations["diversity"], marker="o" if len(generations) < 12 else None)
    ax.set_ylabel("diversity")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    generation_axis(ax)
    ax.set_title(f"{title}\ndiversity: {definition}", fontsize=8, wrap=True)
    return fig


def table_figure(genome: np.ndarray, columns: list[str], feature: str, title: str) -> Figure:
    """The best strategy table: one row per feature value, one column per strategy."""
    fig, ax = plt.subplots(figsize=(2.5 + 1.2 * genome.shape[1], 1.6 + 0.35 * genome.shape[0]))
    image = ax.imshow(genome, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(genome.shape[1]), columns, rotation=30, ha="right")
    ax.set_yticks(range(genome.shape[0]))
    ax.set_ylabel(f"feature: {feature}")
    fig.colorbar(image, ax=ax, label="probability")
    ax.set_title(f"{title}\nbest strategy table", fontsize=9)
    return fig


def parameters_figure(best_per_generation: pd.DataFrame, title: str) -> Figure:
    """Each numeric parameter of every generation's best member; a value holds until the next
    generation, so the last one is drawn over [g, g + 1) like the others."""
    params = pd.DataFrame(list(best_per_generation["genome"]), index=best_per_generation["generation"])
    numeric = [c for c in params.columns if pd.api.types.is_numeric_dtype(params[c])
               and not pd.api.types.is_bool_dtype(params[c])]
    fig, axes = plt.subplots(max(len(numeric), 1), 1, figsize=(8, 1.2 + 1.5 * max(len(numeric), 1)), sharex=True,
                             squeeze=False)
    x = np.append(params.index.to_numpy(), params.index.max() + 1)
    for ax, name in zip(axes[:, 0], numeric):
        values = params[name].to_numpy(dtype=float)
        ax.step(x, np.append(values, values[-1]), where="post")
        ax.set_ylabel(name, rotation=0, ha="right", fontsize=8)
        ax.grid(alpha=0.3)
    generation_axis(axes[-1, 0])
    fig.suptitle(f"{title}\nparameters of each generation's best member")
    return fig
