"""How busy a run kept its Ray workers, read from its own logs: what one paying for a cluster asks first.

busy share = the seconds the actors spent in evaluation calls (`eval_seconds`:
a chunk's time in the call shared among its genomes) / (the actors present x
the wall seconds), over the generations after 0 (generation 0 also pays the
actors' start) scored wholly on actors (a run handed over from in-process
counts from the first generation after) with a wall time logged. An actor is
present from the first generation it scored in to the last: a steady-state
generation holds the arrivals of only some batches, so the actors whose
batches land in the next one are busy too; one that joins late or replaces a
lost one counts from when it scores. An actor that never scored is not seen.
An asynchronous algorithm records a generation as its arrivals, some scored
during the generation before: work in flight when generation 1 began counts,
work in flight at the end does not. Over 20 generations on 2 actors that
made it 1.00-1.05; over 6 with eight generations' children in flight on 4,
1.8, which the report calls too short to tell. Close to `bench_scale_out.py`'s
efficiency, which counts the nominal sleeps instead (a 2 ms sleep took
2.2-2.5 ms on busy cores there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..evaluation.local import LOCAL_WORKER
from ..records.rundir import RunDir
from ..records.schema import was_evaluated

__all__ = ["WorkerUse", "worker_use", "worker_use_of"]

COLUMNS = ["generation", "worker", "eval_seconds", "origin", "born"]


@dataclass(frozen=True)
class WorkerUse:
    workers: int  # distinct actors that scored the generations counted
    nodes: int  # distinct nodes they ran on
    generations: int  # generations counted
    evaluations: int  # evaluations in them
    busy: float  # seconds in evaluation calls / (actors present x wall seconds), over those generations
    seconds_per_evaluation: float | None = None  # their mean evaluation seconds


def worker_use_of(run_dir: str, generations: pd.DataFrame) -> WorkerUse | None:
    """`worker_use` of the run in `run_dir` (reading only the columns it needs that the log has,
    of the generations in `generations`)."""
    rundir = RunDir(run_dir)
    if rundir.last_generation() < 0 or generations.empty:
        return None
    logged = range(int(generations["generation"].max()) + 1)
    return worker_use(rundir.read_individuals(logged, list(COLUMNS)), generations)  # those the log has


def worker_use(individuals: pd.DataFrame, generations: pd.DataFrame) -> WorkerUse | None:
    """The share above, from the individuals' `generation`, `worker` and `eval_seconds` (and `origin`
    and `born`, to leave out placed migrants, where the log has them) and generations.parquet's
    `generation` and `wall_seconds`; None for a run scored in-process or with nothing to count."""
    if individuals.empty or generations.empty:
        return None
    wall = generations.drop_duplicates("generation", keep="last").set_index("generation")["wall_seconds"]
    timed = set(wall[np.isfinite(wall) & (wall > 0)].index)
    rows = individuals[(individuals["generation"] >= 1) & individuals["generation"].isin(timed)]
    if "origin" in rows and "born" in rows:
        rows = rows[was_evaluated(rows["origin"], rows["born"], rows["generation"])]
    labels = rows["worker"].fillna("").astype(str)
    in_process = labels.eq(LOCAL_WORKER).groupby(rows["generation"]).transform("any")
    rows, labels = rows[~in_process & labels.ne("")], labels[~in_process & labels.ne("")]
    if rows.empty:
        return None
    spans = rows.groupby(labels)["generation"].agg(["min", "max"])
    counted = np.sort(rows["generation"].unique())
    present = ((spans["min"].to_numpy()[:, None] <= counted) & (counted <= spans["max"].to_numpy()[:, None])).sum(0)
    capacity = float((present * wall.reindex(counted).to_numpy()).sum())
    return WorkerUse(workers=len(spans), nodes=len({label.rpartition("/")[2] for label in spans.index}),
                     generations=len(counted), evaluations=len(rows),
                     busy=float(rows["eval_seconds"].sum()) / capacity,
                     seconds_per_evaluation=float(rows["eval_seconds"].mean()))
