"""The log's schema: what a generation's files hold, built from members and state.

`individuals/` (every individual scored in a generation), `population/`
ranks, a generations.parquet row, and best.json's hall of fame. Kept apart
from *when* and *how* files are written (`recorder.py`).
"""

from __future__ import annotations

import itertools
import math
import operator
from typing import Any, NamedTuple, Sequence

import numpy as np
import pyarrow as pa
from deap import tools

from operators.kind import GenomeKind

from ..evaluation.transport import pack, unpack
from ..evolution.members import Member, Objectives, jsonable, viable
from ..evolution.pareto import population_hypervolume, reference_point

__all__ = ["Fields", "PendingRanks", "Schema", "exact_mean_std", "was_evaluated"]


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


# The attributes of a member the individuals rows hold (but its genome and columns), in `Schema.table`'s order.
_FIELD_NAMES = ("id", "born", "parents", "origin", "selected", "island", "order", "error", "eval_seconds", "worker",
                "fitness.wvalues")
_FIELDS = operator.attrgetter(*_FIELD_NAMES)
_FIELDS_BUT_FITNESS = operator.attrgetter(*_FIELD_NAMES[:-1])
_COLUMNS = operator.attrgetter("columns")
_GENOME = operator.attrgetter("genome")
_ID = operator.attrgetter("id")
_WVALUES = operator.attrgetter("fitness.wvalues")


class Fields(NamedTuple):
    """What a generation's rows hold, taken when it is recorded: each member's `_FIELD_NAMES`,
    its genome, and its columns mapping as it was then (`scores`)."""
    rows: list[tuple]
    genomes: list[Any]
    scores: list[dict[str, Any]]

    def __reduce__(self) -> tuple:
        """Pickled with its genomes packed (`evaluation.transport`), as the loop sends it to the
        writer process: a genome array pickled alone costs ~3 µs. (Not marshal for the rest: it
        writes any object with a buffer, a NumPy scalar among them, as bytes.)"""
        return _fields_of, (self.rows, pack(self.genomes), self.scores)


class PendingRanks(NamedTuple):
    """A population's ranks by fitness, ties to the older (`oldest_first_ranking`), taken in the
    loop and computed where they are written: the log's writer process ranks a generation's
    population, where two sorts and their bookkeeping cost a steady-state loop ~0.5 µs of each
    logged row, and taking these ~0.1 (benchmarks/README.md, "Issue 42, eleventh pass"). The
    members' ids are the checkpoint's `population`, so they travel once."""
    wvalues: list[tuple]

    def ranks(self, ids: list[int]) -> list[int]:
        """The ranks of the members with these ids (in the population's order)."""
        order = sorted(range(len(ids)), key=ids.__getitem__)  # two stable sorts keyed by C calls
        order.sort(key=self.wvalues.__getitem__, reverse=True)
        ranks = [0] * len(order)
        for rank, place in enumerate(order):
            ranks[place] = rank
        return ranks


def _fields_of(rows: list[tuple], genomes: list | tuple, scores: list[dict[str, Any]]) -> Fields:
    return Fields(rows, unpack(genomes), scores)


def _int_lists(lists: Sequence[Sequence[int]]) -> pa.Array:
    """A list<int64> column from one flat NumPy array and its offsets (parents)."""
    try:
        offsets = np.zeros(len(lists) + 1, dtype=np.int32)
        np.fromiter(map(len, lists), dtype=np.int32, count=len(lists)).cumsum(out=offsets[1:])
        values = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.int64, count=int(offsets[-1]))
    except TypeError:  # a None among them: pyarrow's own conversion (a null)
        return pa.array(list(lists), pa.list_(pa.int64()))
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values))


def _plain(values: list[Any], uniform: bool = False) -> pa.Array | None:
    """`pa.array(values)`, through numpy when all are one numeric type (the same array and type).
    `uniform`: None unless all are one numeric type or all strings, so that the type is the one
    each part of `values` would have on its own (`Schema.tables`)."""
    kinds = set(map(type, values))
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind in (int, float, bool) or (issubclass(kind, np.generic) and np.dtype(kind).kind in "biuf"):
            array = np.array(values)
            if array.dtype.kind in "biuf":
                return pa.array(array)
        elif uniform and kind is str:
            return pa.array(values, pa.string())
    return None if uniform else pa.array(values)


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
        self._constants: dict[tuple[Any, int], pa.Array] = {}  # `_repeated`'s arrays
        self._identities: dict[int, tuple[Any, Any]] = {}  # id(genome) -> (genome, identity): the last row's

    def generation_row(self, generation: int, population: list[Member], evaluations: int,
                       failures: int) -> dict[str, Any]:
        """generations.parquet's row (timing filled in by the recorder)."""
        row: dict[str, Any] = {"generation": generation, "evaluations": evaluations, "wall_seconds": 0.0,
                               "elapsed_seconds": 0.0, "worker_failures": failures}
        metrics = list(self.objectives.names) + (["fitness"] if self.objectives.mode == "weighted" else [])
        for name in metrics:
            if name == "fitness":  # DEAP's `values` divides the stored wvalues by the weights: the same, 10x cheaper
                weight = self.objectives.fitness_class.weights[0]
                values = [m.fitness.wvalues[0] / weight for m in population]
            else:
                values = [float(m.columns[name]) for m in population]
            maximise = name == "fitness" or self.objectives.directions[name] > 0
            row[f"best_{name}"] = max(values) if maximise else min(values)
            row[f"mean_{name}"], row[f"std_{name}"] = exact_mean_std(values)
        row["diversity"] = self._diversity([m.genome for m in population])
        if self.hypervolume and population:  # (none viable: no front to measure)
            if self.hypervolume_reference is None:
                self.hypervolume_reference = reference_point(self.objectives, population)
            row["hypervolume"] = population_hypervolume(self.objectives, population, self.hypervolume_reference)
        return row

    def _diversity(self, genomes: list[Any]) -> float:
        """`kind.spread(genomes)`, each genome's identity kept from the row before: a genome is
        never changed once made, and most of a population outlives a generation (an 8-island
        driver keyed 1,024 genomes a generation, 6% of its loop). The genomes are held with
        their identities, so no `id` is reused while its entry is here."""
        known, kept, identity = self._identities, {}, self.kind.identity

        def remembered(genome: Any) -> Any:
            at = id(genome)
            kept[at] = entry = known.get(at) or (genome, identity(genome))
            return entry[1]

        value = self.kind.spread(genomes, remembered)
        self._identities = kept
        return value

    def individuals(self, generation: int, members: list[Member], islands: bool = False) -> pa.Table:
        """A generation's individuals/ rows (`fields`, then `table`). Runs in any process: it
        needs only the members and this schema."""
        return self.table(generation, self.fields(members), islands)

    @staticmethod
    def fields(members: list[Member]) -> Fields:
        """What the rows of `members` hold, taken now (the writer builds the table later, while
        later generations change survivors' attributes): one attribute pass, each member's
        columns copied (the pipeline replaces a member's mapping, a plug-in might edit it)."""
        try:
            rows = list(map(_FIELDS, members))
        except AttributeError:  # a member not scored (no fitness): no weighted fitness
            rows = [(*_FIELDS_BUT_FITNESS(m), getattr(m.fitness, "wvalues", ())) for m in members]
        return Fields(rows, list(map(_GENOME, members)), list(map(dict, map(_COLUMNS, members))))

    def tables(self, generations: list[tuple[int, Fields]], islands: bool = False) -> list[pa.Table]:
        """Each generation's `table`, built as one table and sliced where that gives the same
        columns and types as building each alone (no failed evaluation, objective values of one
        type, arrival orders all there or all absent): ~15 pyarrow calls for all of them."""
        counts = [len(taken.rows) for _, taken in generations]
        if len(generations) > 1 and all(counts) and len({tuple(taken.scores[0]) for _, taken in generations}) == 1:
            numbers = np.repeat(np.array([g for g, _ in generations], dtype=np.int64), counts)
            taken = Fields(*(list(itertools.chain.from_iterable(part)) for part in zip(*(t for _, t in generations))))
            table = self.table(numbers, taken, islands, uniform=True)
            if table is not None:
                starts = np.cumsum([0] + counts[:-1])
                return [table.slice(int(start), count) for start, count in zip(starts, counts)]
        return [self.table(g, rows, islands) for g, rows in generations]

    def table(self, generation: int | np.ndarray, taken: Fields, islands: bool = False,
              uniform: bool = False) -> pa.Table | None:
        """The individuals/ rows `taken` (`fields`), column by column: each column is one
        pyarrow call over a NumPy array or a list, and columns that hold one value (run id, one
        worker, no error) are cached arrays: at 100 rows a generation the cost is the calls, not
        the rows. `uniform` (`tables`): None where the rows' columns could differ in type from
        those of a part of them."""
        n, scores, genomes = len(taken.rows), taken.scores, taken.genomes
        fields = zip(*taken.rows) if n else [()] * len(_FIELD_NAMES)
        ids, born, parents, origin, selected, island, order, errors, seconds, workers, wvalues = fields
        absent = order.count(None)
        failed = errors.count(None) != n
        if uniform and (failed or 0 < absent < n or self.kind.record_type is None):
            return None
        columns: dict[str, Any] = {
            "run_id": self._repeated(self.run_id, n),
            "generation": pa.array(np.full(n, generation, dtype=np.int64) if np.isscalar(generation) else generation),
            "id": pa.array(np.array(ids, dtype=np.int64)),
            "born": pa.array(np.array(born, dtype=np.int64)),
            "parents": _int_lists(parents),
            "origin": pa.array(origin, pa.string()),
            "genome": self.kind.records(list(genomes)),
            "selected": pa.array(np.array(selected, dtype=bool)),
        }
        if islands:
            columns["island"] = pa.array(np.array(island, dtype=np.int64))
        if absent != n:  # arrivals of an asynchronous run (not its migrants)
            columns["order"] = pa.array(order, pa.int64())
        if self.objectives.mode == "weighted":  # DEAP's stored wvalues: values[0] without its property calls
            weight = self.objectives.fitness_class.weights[0]
            columns["fitness"] = pa.array([w[0] / weight if w else None for w in wvalues], pa.float64())
        names = dict.fromkeys(name for s in scores for name in s) if failed else (scores[0] if n else {})
        for name in names:  # a member whose evaluate raised: nulls
            values = [s.get(name) for s in scores] if failed else list(map(operator.itemgetter(name), scores))
            columns[name] = _plain(values, uniform)
            if columns[name] is None:
                return None
        if self.viability or failed:
            columns["viable"] = pa.array([e is None for e in errors], pa.bool_()) if failed else self._repeated(True, n)
            columns["error"] = pa.array(errors, pa.string()) if failed else self._repeated(None, n)
        columns["eval_seconds"] = pa.array(np.array(seconds, dtype=np.float64))
        one_worker = n and isinstance(workers[0], str) and workers.count(workers[0]) == n
        columns["worker"] = self._repeated(workers[0], n) if one_worker else pa.array(workers, pa.string())
        return pa.Table.from_arrays(list(columns.values()), names=list(columns))

    def _repeated(self, value: str | bool | None, n: int) -> pa.Array:
        """`n` copies of `value` (a string column's, or a bool), made once per value and length."""
        key = (value, n)
        array = self._constants.get(key)
        if array is None:
            if len(self._constants) > 64:  # lengths vary (steady-state batches): keep a few
                self._constants.clear()
            kind = pa.bool_() if isinstance(value, bool) else pa.string()
            array = self._constants[key] = pa.repeat(pa.scalar(value, kind), n)
        return array

    def ranks(self, population: list[Member]) -> list[int]:
        """Each member's rank, 0 = best: by fitness, ties to the older (first born), or for
        Pareto runs the non-dominated front it is on (0 = the first front)."""
        pending = self.pending_ranks(population)
        if pending is not None:
            return pending.ranks(list(map(_ID, population)))
        valid = viable(population)  # failed evaluations: on a front after every other
        fronts = tools.sortNondominated(valid, len(valid))
        front_of = {id(m): f for f, front in enumerate(fronts) for m in front}
        return [front_of.get(id(m), len(fronts)) for m in population]

    def pending_ranks(self, population: list[Member]) -> PendingRanks | None:
        """What `ranks` computes from besides the ids, where that is the members' weighted
        values (not for Pareto runs: None)."""
        if self.objectives.mode == "pareto":
            return None
        return PendingRanks(list(map(_WVALUES, population)))

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
