"""A MAP-Elites run's archive read back: the elites by cell, and one elite as a playing agent
(`load_agent(run, cell=...)`, `evo match RUN/archive:CELL expert`).

A cell is named by its flat (row-major) index, as the log's `cell` column has it, or by
its coordinates along the descriptors, e.g. `3,7` (`[archive] bins = [8, 8]`: 3 * 8 + 7 = 31).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

from .records.population import population
from .records.rundir import RunDir

if TYPE_CHECKING:
    from .api import Run
    from .spec import RunSpec

__all__ = ["ARCHIVE_PREFIX", "archive_frame", "cell_index", "elite_agent", "split_archive_name"]

ARCHIVE_PREFIX = "archive:"


def cell_index(bins: Sequence[int], cell: int | str | Sequence[int]) -> int:
    """The flat index of `cell` (an index, "i,j" coordinates, or a sequence of them) in a grid
    of `bins`; ValueError in one line when it is not a cell of that grid."""
    if isinstance(cell, str):
        try:
            parts = [int(p) for p in cell.split(",")]
        except ValueError:
            raise ValueError(f"cell {cell!r}: give a cell index or coordinates such as 3,7") from None
        cell = parts[0] if len(parts) == 1 else parts
    total = math.prod(bins)
    if isinstance(cell, (int, np.integer)) and not isinstance(cell, bool):
        if not 0 <= cell < total:
            raise ValueError(f"cell {cell}: the archive has cells 0-{total - 1} ({' x '.join(map(str, bins))})")
        return int(cell)
    coordinates = list(cell)
    if len(coordinates) != len(bins) or not all(0 <= c < b for c, b in zip(coordinates, bins)):
        raise ValueError(f"cell {','.join(map(str, coordinates))}: coordinates must be "
                         f"{', '.join(f'0-{b - 1}' for b in bins)} ({' x '.join(map(str, bins))})")
    return int(np.ravel_multi_index(coordinates, bins))


def archive_frame(rundir: RunDir, spec: RunSpec, generation: int | None = None) -> pd.DataFrame:
    """The elites after `generation` (default: the last), by cell, with each cell's coordinates."""
    archive = spec.archive
    if archive is None:
        raise ValueError(f"{rundir.path}: archive: only map-elites runs have one "
                         f"(population.algorithm is {spec.population.algorithm!r})")
    elites = population(rundir, generation)
    elites = elites[elites["cell"].notna()].copy()
    elites["cell"] = elites["cell"].astype(int)
    coordinates = np.unravel_index(elites["cell"].to_numpy(), archive.bins)
    for name, values in zip(archive.descriptors, coordinates):
        elites[f"bin_{name}"] = values
    return elites.sort_values("cell").reset_index(drop=True)


def elite_agent(run: Run, cell: int | str | Sequence[int], rules: Any = None) -> Any:
    """The elite of `cell` in the run's last archive, playing under `rules` (default: its board)."""
    from .hall_of_fame import genome_agent, read_best, saved_rules

    elites = run.archive()  # (raises: not a map-elites run)
    index = cell_index(run.spec.archive.bins, cell)
    row = elites[elites["cell"] == index]
    if row.empty:
        raise ValueError(f"{run.path}: cell {index} of the archive is empty (filled: "
                         f"{', '.join(map(str, elites['cell'].tolist()[:20]))}{' ...' if len(elites) > 20 else ''})")
    best = read_best(run.path / "best.json")
    return genome_agent(best, row["genome"].iloc[0], rules or saved_rules(best), run.path,
                        f"{run.path}/{ARCHIVE_PREFIX}{index}#{int(row['id'].iloc[0])}")


def split_archive_name(name: str) -> tuple[Path, str] | None:
    """`RUN/archive:CELL` as (run directory, cell); None for any other agent name."""
    head, sep, cell = name.rpartition("/" + ARCHIVE_PREFIX)
    if not sep or not Path(head).is_dir():
        return None
    return Path(head), cell
