"""The log's schema: what a generation's files hold, built from members and state.

`individuals/` (every individual scored in a generation), `population/`
ranks, a generations.parquet row, and best.json's hall of fame. Kept apart
from *when* and *how* files are written (`recorder.py`).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
from deap import tools

from operators.kind import GenomeKind
from operators.selection import oldest_first_ranking

from ..evolution.members import Member, Objectives, jsonable, viable
from ..evolution.pareto import population_hypervolume, reference_point

__all__ = ["Schema", "exact_mean_std", "was_evaluated"]


def exact_mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) standard deviation from exactly rounded sums (`math.fsum`).

    numpy's sums take their order from the CPU's vector width and the library's
    version, so their last bits differ between machines; a log must not."""
    n = len(values)
    mean = math.fsum(values) / n
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / n)


def was_evaluated(origin: Any, born: Any, generation: Any) -> np.ndarray:
    """Which `individuals/` rows were evaluated (columns of the log, as arrays): all but the
    migrants placed in that generation (origin "migrant", born then), copies of members
    already scored. A placed migrant re-scored in a later generation counts there."""
    return (np.asarray(origin) != "migrant") | (np.asarray(born) < np.asarray(generation))


def _plain(values: list[Any]) -> pa.Array:
    """`pa.array(values)`, through numpy when all are one numeric type (the same array and type)."""
    kinds = {type(v) for v in values}
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind in (int, float, bool) or (issubclass(kind, np.generic) and np.dtype(kind).kind in "biuf"):
            array = np.array(values)
            if array.dtype.kind in "biuf":
                return pa.array(array)
    return pa.array(values)


class Schema:
    """`viability`: individuals files carry `viable` and `error` columns. A run started before
    they existed keeps its files' schema on resume (so its log stays what an uninterrupted old
    run wrote) until a generation has a failed evaluation; readers take a missing column as viable.
    `hypervolume`: Pareto runs' generations rows carry one, against `hypervolume_reference`
    (`evolution.pareto.reference_point`, fixed at generation 0 and kept in the checkpoint); a
    run started before the column keeps rows without it on resume."""

    def __init__(self, run_id: str, kind: GenomeKind, objectives: Objectives, viability: bool = True) -> None:
        self.run_id = run_id
        self.kind = kind
        self.objectives = objectives
        self.viability = viability
        self.hypervolume = objectives.mode == "pareto"
        self.hypervolume_reference: dict[str, float] | None = None

    def generation_row(self, generation: int, population: list[Member], evaluations: int,
                       failures: int) -> dict[str, Any]:
        """generations.parquet's row (timing filled in by the recorder)."""
        row: dict[str, Any] = {"generation": generation, "evaluations": evaluations, "wall_seconds": 0.0,
                               "elapsed_seconds": 0.0, "worker_failures": failures}
        metrics = list(self.objectives.names) + (["fitness"] if self.objectives.mode == "weighted" else [])
        for name in metrics:
            values = [m.fitness.values[0] if name == "fitness" else float(m.columns[name]) for m in population]
            maximise = name == "fitness" or self.objectives.directions[name] > 0
            row[f"best_{name}"] = max(values) if maximise else min(values)
            row[f"mean_{name}"], row[f"std_{name}"] = exact_mean_std(values)
        row["diversity"] = float(self.kind.spread([m.genome for m in population]))
        if self.hypervolume and population:  # (none viable: no front to measure)
            if self.hypervolume_reference is None:
                self.hypervolume_reference = reference_point(self.objectives, population)
            row["hypervolume"] = population_hypervolume(self.objectives, population, self.hypervolume_reference)
        return row

    def individuals(self, generation: int, members: list[Member], islands: bool = False) -> pa.Table:
        """A generation's individuals/ rows, column by column; numeric objective columns through
        numpy (pa.array over NumPy scalars is the slow path). Runs in any process: it needs only
        the members and this schema."""
        n = len(members)
        columns: dict[str, Any] = {
            "run_id": pa.repeat(pa.scalar(self.run_id, pa.string()), n),
            "generation": pa.array(np.full(n, generation, dtype=np.int64)),
            "id": pa.array([m.id for m in members], pa.int64()),
            "born": pa.array([m.born for m in members], pa.int64()),
            "parents": pa.array([m.parents for m in members], pa.list_(pa.int64())),
            "origin": pa.array([m.origin for m in members], pa.string()),
            "genome": self.kind.records([m.genome for m in members]),
            "selected": pa.array([m.selected for m in members], pa.bool_()),
        }
        if islands:
            columns["island"] = pa.array([m.island for m in members], pa.int64())
        if any(m.order is not None for m in members):  # arrivals of an asynchronous run (not its migrants)
            columns["order"] = pa.array([m.order for m in members], pa.int64())
        if self.objectives.mode == "weighted":
            columns["fitness"] = pa.array([m.fitness.values[0] if m.fitness.valid else None for m in members],
                                          pa.float64())
        failed = any(m.error is not None for m in members)
        names = dict.fromkeys(n for m in members for n in m.columns) if failed else members[0].columns
        for name in names:  # a member whose evaluate raised: nulls
            columns[name] = _plain([m.columns.get(name) for m in members])
        if self.viability or failed:
            columns["viable"] = pa.array([m.error is None for m in members], pa.bool_())
            columns["error"] = pa.array([m.error for m in members], pa.string())
        columns["eval_seconds"] = pa.array([m.eval_seconds for m in members], pa.float64())
        columns["worker"] = pa.array([m.worker for m in members], pa.string())
        return pa.table(columns)

    def ranks(self, population: list[Member]) -> list[int]:
        """Each member's rank, 0 = best: by fitness, ties to the older (first born), or for
        Pareto runs the non-dominated front it is on (0 = the first front)."""
        if self.objectives.mode == "pareto":  # failed evaluations: on a front after every other
            valid = viable(population)
            fronts = tools.sortNondominated(valid, len(valid))
            front_of = {id(m): f for f, front in enumerate(fronts) for m in front}
            return [front_of.get(id(m), len(fronts)) for m in population]
        position = {id(m): i for i, m in enumerate(population)}
        ranks = [0] * len(population)
        for rank, m in enumerate(oldest_first_ranking(population)):
            ranks[position[id(m)]] = rank
        return ranks

    def best(self, generation: int, hall_of_fame: list[Member], task_spec: dict[str, Any]) -> dict[str, Any]:
        """best.json: the hall of fame, loadable as an agent."""
        return {
            "run_id": self.run_id,
            "generation": generation,
            "kind": self.kind.name,
            "task": task_spec,
            "primary": self.objectives.primary,
            "hall_of_fame": [
                {
                    "id": m.id,
                    "generation": m.born,
                    "genome": self.kind.to_record(m.genome),
                    "fitness": list(m.fitness.values),
                    "objectives": {n: jsonable(m.columns[n]) for n in m.columns},
                }
                for m in hall_of_fame
            ],
        }
