"""Who was alive when, read back from a run directory: the population after a generation
with each member's scores as they were then, and a Pareto run's first front.

Here, below the API and the reports, so both read populations the same way and
neither imports the other."""

from __future__ import annotations

import pandas as pd

from .rundir import RunDir

__all__ = ["alive", "first_front", "population", "scored"]


def scored(rundir: RunDir, generations: range, columns: list[str] | None = None,
           ids: list[int] | None = None) -> pd.DataFrame:
    """The individuals rows of `generations` (those `columns`, those `ids`); a log from before
    the failure columns reads as every individual viable."""
    frame = rundir.read_individuals(generations, columns=columns, ids=ids)
    for name, missing in (("viable", True), ("error", None)):
        if name not in frame and (columns is None or name in columns) and len(frame.columns):
            frame[name] = missing
    return frame


def population(rundir: RunDir, generation: int | None = None) -> pd.DataFrame:
    """The members alive after `generation` (default: the last), best first."""
    published = rundir.published()
    if not published:
        return pd.DataFrame()
    wanted = published[-1] if generation is None else generation
    if wanted not in published:
        raise ValueError(f"{rundir.path}: no generation {wanted} in this run (generations 0-{published[-1]})")
    return alive(rundir, range(wanted, wanted + 1))


def alive(rundir: RunDir, generations: range) -> pd.DataFrame:
    """The members alive after each of `generations`, with their latest scores up to then."""
    ranks = rundir.read_memberships(generations) if generations else pd.DataFrame()
    if ranks.empty:
        return pd.DataFrame()
    ranks = ranks[["generation", "id", "rank"]]
    ids = None if len(generations) > 1 else ranks["id"].tolist()
    rows = scored(rundir, range(generations.stop), ids=ids)
    if rows.empty:
        return pd.DataFrame()
    rows = rows.drop(columns=["run_id"]).rename(columns={"generation": "evaluated"})
    merged = pd.merge_asof(ranks.sort_values("generation"), rows.sort_values("evaluated"),
                           left_on="generation", right_on="evaluated", by="id", direction="backward")
    return merged.sort_values(["generation", "rank"], kind="stable").reset_index(drop=True)


def first_front(members: pd.DataFrame) -> pd.DataFrame:
    """The viable members of a Pareto run's population on its first front (rank 0), by id."""
    front = members[(members["rank"] == 0) & members["viable"].astype(bool)]
    return front.sort_values("id").reset_index(drop=True)
