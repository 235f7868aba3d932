"""`evo report --compare RUN RUN …`: several runs overlaid (e.g. sampled vs exact fitness, two seeds)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .common import RunLogs, constant_objectives, generation_axis, load_run, value_axis
from .figures import save
from .page import html_page
from .summary import fmt, to_html

__all__ = ["write_comparison", "comparison_figure", "run_labels"]

X_AXES = ("generation", "evaluations")


def run_labels(runs: list[RunLogs]) -> list[str]:
    """Legend names: spec name and seed, with the directory (then the run id) where those repeat."""
    labels = [f"{r.name} · seed {r.seed}" for r in runs]
    for extra in (lambda r: r.path.name, lambda r: r.meta["run_id"], lambda r: str(r.path)):
        repeated = {label for label in labels if labels.count(label) > 1}
        labels = [f"{label} ({extra(r)})" if label in repeated else label for label, r in zip(labels, runs)]
    return labels


def shared_objectives(runs: list[RunLogs]) -> list[str]:
    """Objectives every run logs, except those constant (at one same value) in all of them."""
    names = [n for n in runs[0].objectives if all(n in r.objectives for r in runs[1:])]
    if not names:
        raise ValueError("the runs share no objective to compare: "
                         + "; ".join(f"{r.path}: {', '.join(r.objectives)}" for r in runs))
    constants = [constant_objectives(r.generations) for r in runs]
    return [n for n in names if not all(n in c and c[n] == constants[0].get(n) for c in constants)] or names


def comparison_figure(runs: list[RunLogs], x: str = "generation") -> Figure:
    names = shared_objectives(runs)
    labels = run_labels(runs)
    fig, axes = plt.subplots(len(names), 1, figsize=(9, 1.6 + 2.4 * len(names)), sharex=True, squeeze=False,
                             layout="constrained")
    for ax, name in zip(axes[:, 0], names):
        values = []
        for i, (run, label) in enumerate(zip(runs, labels)):
            g = run.generations
            ax.plot(g[x], g[f"best_{name}"], color=f"C{i}", linewidth=2, label=f"{label}: best", clip_on=False)
            ax.plot(g[x], g[f"mean_{name}"], color=f"C{i}", linestyle="--", label=f"{label}: mean", clip_on=False)
            values.append(g[[f"best_{name}", f"mean_{name}"]].to_numpy(dtype=float).ravel())
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
        value_axis(ax, name, np.concatenate(values))
    axes[0, 0].legend(loc="best", fontsize=7)
    generation_axis(axes[-1, 0], x)
    fig.suptitle(f"Comparison of {len(runs)} runs: population best (solid) and mean (dashed) per {x}\n"
                 + " vs ".join(labels), fontsize=10)
    return fig


def write_comparison(run_dirs: list[str | Path], out: str | Path = ".", x: str = "generation") -> list[Path]:
    """Write compare.png (and compare_evaluations.png) and compare.html into directory `out`."""
    if len(run_dirs) < 2:
        raise ValueError(f"comparing needs at least two run directories, got {len(run_dirs)}")
    if x not in X_AXES:
        raise ValueError(f"x must be one of {', '.join(X_AXES)}, got {x!r}")
    runs = [load_run(d) for d in run_dirs]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    images = []
    for axis in (x, *(a for a in X_AXES if a != x)):
        fig = comparison_figure(runs, axis)
        caption = fig._suptitle.get_text().replace("\n", " — ")
        images.append((caption, save(fig, out / ("compare.png" if axis == x else f"compare_{axis}.png"))))
    labels = run_labels(runs)
    names = shared_objectives(runs)
    header = ["run", "directory", "generations", "evaluations"] + [f"{n} (best individual)" for n in names]
    rows = []
    for run, label in zip(runs, labels):
        top = run.best["hall_of_fame"][0]
        last = run.generations.iloc[-1]
        own = {**({"fitness": top["fitness"][0]} if top.get("fitness") else {}), **top.get("objectives", {})}
        rows.append([label, str(run.path), str(int(last["generation"])), f"{int(last['evaluations']):,}"]
                    + [fmt(own[n]) if n in own else "–" for n in names])
    body = to_html([("p", "Best individual: each run's first hall-of-fame entry (best.json); for sampled "
                          "fitness, its fresh re-scoring."), ("table", header, rows)])
    page = out / "compare.html"
    page.write_text(html_page(f"Comparison of {len(runs)} runs", body, images))
    return [path for _, path in images] + [page]
