"""How busy a run kept its Ray workers, read from its own logs: what one paying for a cluster asks first.

busy share = the evaluation seconds the actors logged (`eval_seconds`: a
chunk's compute time shared among its genomes) / (the workers seen x the
wall seconds), over the generations after 0 (generation 0 also pays the
actors' start) scored wholly on actors (a run handed over from in-process
counts from the first generation after). The workers seen in a generation
are the distinct `worker` labels among its rows, so an actor that joins late
or replaces a lost one counts from when it scores. An asynchronous algorithm
records a generation as its arrivals, some scored during the generation
before: work in flight when generation 1 began counts, work in flight at the
end does not, so over a short run the share is a few hundredths off (1.03-1.05
for steady-state on 2 actors over 4-20 generations, with three generations'
children in flight). It is the figure `bench_scale_out.py` calls efficiency,
from the log alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

__all__ = ["WorkerUse", "worker_use"]

LOCAL = "local"  # the worker label of in-process scoring


@dataclass(frozen=True)
class WorkerUse:
    workers: int  # distinct actors that scored the generations counted
    nodes: int  # distinct nodes they ran on
    generations: int  # generations counted
    evaluations: int  # rows scored in them
    busy: float  # evaluation seconds / (workers seen x wall seconds), over those generations


def worker_use(individuals: pd.DataFrame, generations: pd.DataFrame) -> WorkerUse | None:
    """The share above, from `generation`, `worker` and `eval_seconds` of the individuals and
    `generation` and `wall_seconds` of generations.parquet; None for a run scored in-process."""
    rows = individuals[individuals["generation"] >= 1]
    labels = rows["worker"].fillna("")
    on_actors = ~rows.groupby("generation")["worker"].transform(lambda w: (w == LOCAL).any())
    rows, labels = rows[on_actors], labels[on_actors]
    scored = labels != ""  # placed migrants: no worker, no evaluation
    if not scored.any():
        return None
    seen = labels[scored].groupby(rows.loc[scored, "generation"]).nunique()
    wall = generations.set_index("generation")["wall_seconds"].reindex(seen.index)
    capacity = float((seen * wall).sum())
    if capacity <= 0:
        return None
    actors = labels[scored].unique()
    return WorkerUse(workers=len(actors), nodes=len({label.rpartition("/")[2] for label in actors}),
                     generations=len(seen), evaluations=int(scored.sum()),
                     busy=float(rows["eval_seconds"].sum()) / capacity)
