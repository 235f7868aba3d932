"""What every report part shares: a run's logs loaded once, its label, and the axis rules.

Axis rules, so no figure misleads: generations are whole numbers (integer
ticks only); a rate (`win_rate_*`, `*_rate`, diversity) lives in [0, 1]; a
quantity that is never negative (a cost, a size) gets no band below 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only; no screen needed
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..records.rundir import RunDir  # noqa: E402

__all__ = ["RunLogs", "load_run", "objective_names", "is_rate", "generation_axis", "value_axis", "band",
           "constant_objectives", "DIVERSITY", "USER_KIND_DIVERSITY"]

# What the `diversity` column measures, per genome kind (pipeline/kinds.py computes it).
DIVERSITY = {
    "bitstring": "mean over pairs of members of the share of bits on which they differ (mean pairwise L1 per bit)",
    "rules": "mean over pairs of members and parameters of |a − b|, each parameter scaled by its range in the "
             "population (a choice counts by its position among the choices)",
    "table": "mean over pairs of members of the total-variation distance between their strategy rows, averaged "
             "over the rows (1: the two tables never pick the same strategy)",
    "expression": "share of distinct expressions: (distinct − 1) / (members − 1)",
}
USER_KIND_DIVERSITY = "the kind's own diversity() if it has one, else the share of distinct genomes"
DIVERSITY_SCALE = "0: every member identical; at most 1"


@dataclass
class RunLogs:
    """One run as the reports see it: run.json, generations.parquet, best.json."""

    path: Path
    meta: dict[str, Any]
    generations: pd.DataFrame
    best: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.meta["spec"].get("name") or self.path.name)

    @property
    def seed(self) -> int:
        return int(self.meta["seed"])

    @property
    def kind(self) -> str:
        return str(self.best["kind"])

    @property
    def label(self) -> str:
        """Names the run in every figure title: spec name, seed, run id."""
        return f"{self.name} · seed {self.seed} · run {self.meta['run_id']}"

    @property
    def objectives(self) -> list[str]:
        return objective_names(self.generations)

    def individuals(self, columns: list[str] | None = None) -> pd.DataFrame:
        """The individuals of the generations reported on (a live run may have logged more since)."""
        last = int(self.generations["generation"].max())
        return RunDir(self.path).read_individuals(range(last + 1), columns)


def load_run(run_dir: str | Path) -> RunLogs:
    """A run's logs, or one-line errors (missing directory, no generation yet, no hall of fame).

    One snapshot of a live run: best.json is read first, and generations.parquet (written before
    best.json, so it holds that generation's row) is cut to the generation best.json names."""
    rundir = RunDir(run_dir)
    meta = rundir.read_run()
    best = rundir.read_best() if rundir.published() else None
    generations = pd.DataFrame(rundir.read_generations())
    if best is None or generations.empty:
        raise ValueError(f"{rundir.path}: no complete generation to report on yet")
    if isinstance(best.get("generation"), int):
        generations = generations[generations["generation"] <= best["generation"]]
    return RunLogs(rundir.path, meta, generations.sort_values("generation").reset_index(drop=True), best)


def objective_names(generations: pd.DataFrame) -> list[str]:
    return [c[len("best_"):] for c in generations.columns if c.startswith("best_")]


def is_rate(name: str) -> bool:
    """A share in [0, 1]: win rates, the optimal-move rate, diversity."""
    return name.startswith("win_rate_") or name.endswith("_rate") or name == "diversity"


def constant_objectives(generations: pd.DataFrame) -> dict[str, float]:
    """Objectives with one value over the whole run, every member (e.g. `covered` after repair)."""
    constant = {}
    for name in objective_names(generations):
        values = generations[[f"best_{name}", f"mean_{name}"]].to_numpy(dtype=float)
        if np.allclose(values, values.flat[0]) and np.allclose(generations[f"std_{name}"], 0):
            constant[name] = float(values.flat[0])
    return constant


def generation_axis(ax, label: str = "generation") -> None:
    """Whole generations only: no 0.5 ticks on a short run."""
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(label)


def value_axis(ax, name: str, values: np.ndarray) -> None:
    """Rates in [0, 1]; a never-negative quantity starts its axis at 0 at the lowest."""
    if is_rate(name):
        ax.set_ylim(0.0, 1.0)
        ax.margins(y=0)
    elif np.nanmin(values) >= 0:
        low, high = ax.get_ylim()
        ax.set_ylim(max(low, 0.0), high)


def band(mean: pd.Series, std: pd.Series, name: str, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """mean ± std, clipped to what the quantity can be (rates in [0, 1], nothing below 0 if never negative)."""
    low, high = (mean - std).to_numpy(dtype=float), (mean + std).to_numpy(dtype=float)
    if is_rate(name):
        return np.clip(low, 0, 1), np.clip(high, 0, 1)
    if np.nanmin(values) >= 0:
        return np.clip(low, 0, None), high
    return low, high
