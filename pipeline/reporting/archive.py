"""MAP-Elites runs in the report: the archive's heat map (each filled cell's elite fitness over
the first two descriptors; a third is folded, its best shown) and QD-score and coverage per
generation."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ..archive import archive_frame
from ..records.rundir import RunDir
from ..spec import parse_spec
from .common import RunLogs, generation_axis

__all__ = ["archive_blocks", "archive_figures"]


def heat_map(run: RunLogs) -> Figure:
    rundir = RunDir(run.path)
    spec = parse_spec(run.meta["spec"], str(rundir.run_json), resolved=True, recorded=True)
    archive = spec.archive
    generation = int(run.generations["generation"].max())
    elites = archive_frame(rundir, spec, generation)
    key = "fitness" if "fitness" in elites else run.best["primary"]
    names, bins = list(archive.descriptors), list(archive.bins)
    if len(names) == 1:
        names, bins = names + [""], bins + [1]
    grid = np.full((bins[0], bins[1]), np.nan)
    for _, elite in elites.iterrows():
        i, j = int(elite[f"bin_{names[0]}"]), int(elite[f"bin_{names[1]}"]) if names[1] else 0
        grid[i, j] = np.fmax(grid[i, j], float(elite[key]))
    ranges = (rundir.read_checkpoint() or {}).get("algorithm", {}).get("grid", {}).get("ranges")
    ranges = (list(ranges) + [[0.0, 1.0]])[:2] if ranges else [[0, bins[0]], [0, bins[1]]]
    fig, ax = plt.subplots(figsize=(6.4, 5.2), layout="constrained")
    image = ax.imshow(grid.T, origin="lower", cmap="viridis", aspect="auto", extent=(*ranges[0], *ranges[1]))
    ax.set_xticks(np.linspace(*ranges[0], bins[0] + 1), minor=True)
    ax.set_yticks(np.linspace(*ranges[1], bins[1] + 1), minor=True)
    ax.grid(which="minor", alpha=0.15)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    fig.colorbar(image, ax=ax, label=f"elite {key}")
    folded = f"; best over {archive.descriptors[2]}" if len(archive.descriptors) > 2 else ""
    fig.suptitle(f"{run.label}\nArchive after generation {generation}: {len(elites)} of "
                 f"{int(np.prod(archive.bins))} cells filled{folded}", fontsize=10)
    return fig


def quality_diversity_figure(run: RunLogs) -> Figure:
    generations = run.generations
    fig, axes = plt.subplots(2, 1, figsize=(8, 5.2), sharex=True, layout="constrained")
    marker = "." if len(generations) < 30 else None
    for ax, column, label in zip(axes, ("qd_score", "coverage"),
                                 ("QD-score (sum of elites' fitness above the run's floor)",
                                  "coverage (share of cells filled)")):
        ax.plot(generations["generation"], generations[column], marker=marker, clip_on=False)
        ax.set_ylabel(column)
        ax.set_title(label, fontsize=8)
        ax.grid(alpha=0.3)
    axes[1].set_ylim(0, max(1e-9, float(generations["coverage"].max())) * 1.1)
    generation_axis(axes[-1])
    fig.suptitle(f"{run.label}\nQD-score and coverage per generation", fontsize=10)
    return fig


def archive_figures(run: RunLogs) -> dict[str, Figure]:
    """The MAP-Elites figures by file stem (none for other runs)."""
    if run.meta["spec"].get("archive") is None or "qd_score" not in run.generations:
        return {}
    return {"archive": heat_map(run), "quality_diversity": quality_diversity_figure(run)}


def archive_blocks(run: RunLogs, fmt) -> list[tuple]:
    """summary.md's section on a MAP-Elites run's archive (none for other runs)."""
    archive = run.meta["spec"].get("archive")
    if archive is None or "qd_score" not in run.generations:
        return []
    last = run.generations.iloc[-1]
    cells = int(np.prod(archive["bins"]))
    return [("h2", "Archive (MAP-Elites)"),
            ("p", f"{round(float(last['coverage']) * cells):,} of {cells:,} cells filled (coverage "
                  f"{fmt(float(last['coverage']))}) over {', '.join(archive['descriptors'])}; QD-score "
                  f"{fmt(float(last['qd_score']))}. `Run.archive()` lists the elites; "
                  "`evo match RUN/archive:CELL expert` plays one.")]
