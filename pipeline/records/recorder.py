"""The recorder: everything a run writes, and resume reading it back.

Each generation is committed by one background writer thread while the next
ones are being scored: one batch appended to recent/'s stream (the commit point,
carrying the state and summary row in its metadata), in generation order. Every
`BLOCK_ROWS` rows, and at close, the writer compacts recent/ into Parquet parts
(`compaction.py`); checkpoint.json and best.json follow every `DERIVED_SECONDS`,
after a compaction and at close. The loop waits only when more than `QUEUE_ROWS`
rows (or `QUEUE_GENERATIONS`) are queued (a compaction's second, at 100 rows a
generation, is absorbed); a crash loses the queued generations, which resume
regenerates identically.
Nothing a generation writes grows with the run's length.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Callable

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from deap import tools

from operators.selection import oldest_first_ranking

from ..evaluation import ERROR, Evaluator
from ..evolution.islands import Plan
from ..evolution.members import Member, Objectives, jsonable, scalar, viable
from ..evolution.noise import NoiseControl
from ..evolution.state import State
from ..spec import RunSpec
from ..spec_log import thinning
from .compaction import BLOCK_ROWS, compact
from .dataset import committed, piece_record
from .rundir import RunDir
from .schema import Schema

__all__ = ["Recorder"]

# Log columns that are not a task's objective columns (read back on resume).
_LOG_COLUMNS = {"run_id", "generation", "id", "born", "parents", "origin", "genome", "selected", "fitness",
                "eval_seconds", "worker", "island", "order", "viable", "error"}
DERIVED_SECONDS = 10.0  # checkpoint.json and best.json at most this old while a run goes on
QUEUE_ROWS = 20_000  # rows handed to the writer and not yet written before the loop waits
QUEUE_GENERATIONS = 64  # and generations (steady-state's may be a few rows each)


class Recorder:
    def __init__(self, spec: RunSpec, rundir: RunDir, schema: Schema, noise: NoiseControl) -> None:
        self.spec = spec
        self.rundir = rundir
        self.schema = schema
        self.noise = noise
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="run-writer")
        self._pending: deque[tuple[Future, int]] = deque()  # the writer's queue: each generation's rows
        self._queued = 0  # rows in the writer's queue
        self._rows: list[dict[str, Any]] = []  # the generations rows, 0..the last committed
        self._recent_rows = 0  # rows committed to recent/ and not yet compacted
        self._rows_logged = 0  # rows in the log
        self._derived: tuple[dict[str, Any], dict[str, Any], int] | None = None  # not yet written
        self._derived_at = -float("inf")  # when checkpoint.json and best.json were last written
        self._broken = False  # a write failed

    @property
    def objectives(self) -> Objectives:
        return self.schema.objectives

    def record(self, state: State, scored: list[Member], failures: int, started: float) -> State:
        """Commit generation `state.generation` (in the background); returns the state with its
        row and timing. wall_seconds counts all of the generation's work: the statistics, the
        table to write, and waiting for the previous generation's files."""
        table = self.schema.individuals(state.generation, scored,
                                        islands=len(state.populations) > 1 or self.spec.islands is not None)
        return self.record_table(state, table, failures, started)

    def record_table(self, state: State, table: pa.Table, failures: int, started: float) -> State:
        """`record` of a generation whose individuals rows were built elsewhere (island runners)."""
        row = self.schema.generation_row(state.generation, viable(state.population), state.evaluations, failures)
        row.update(state.extra.get("row") or {})  # an algorithm's own columns (MAP-Elites: qd_score, coverage)
        table = self._thinned(state, table)
        self._wait(QUEUE_ROWS - table.num_rows)
        seconds = time.perf_counter() - started
        row.update(wall_seconds=seconds, elapsed_seconds=state.elapsed + seconds)
        rows = state.rows
        rows.append(row)  # in place: a copy per generation would grow with the run
        state = replace(state, elapsed=state.elapsed + seconds, rows=rows)
        self._commit(state, table)
        return state

    def _thinned(self, state: State, table: pa.Table) -> pa.Table:
        """The rows `[log] individuals` keeps: a generation in full, or the rows of the members
        alive after it, in the hall of fame or an emigrant pool. A member alive after generation h
        was alive after its last evaluation too, so every member resume needs keeps its row."""
        every = thinning(self.spec.log.individuals)
        if every is not None and state.generation % every == 0:
            return table
        keep = {m.id for m in state.population} | {m.id for m in state.hall_of_fame}
        keep |= {m.id for pool in state.emigrants for m in pool}
        return table.filter(pc.is_in(table.column("id"), value_set=pa.array(sorted(keep), pa.int64())))

    def _commit(self, state: State, table: pa.Table) -> None:
        checkpoint = self.checkpoint(state)
        due = time.monotonic() - self._derived_at >= DERIVED_SECONDS
        best = self.best(state) if due else None
        summary = state.rows[-1]
        self._rows = state.rows

        def write() -> None:
            if self._broken:  # a generation before this one failed: none after it is written
                raise RuntimeError("an earlier generation's write failed")
            self.rundir.write_individuals(state.generation, table, {"state": checkpoint, "summary": summary})
            self._recent_rows += table.num_rows
            self._rows_logged += table.num_rows
            self._derived = (checkpoint, best if best is not None else state, self._rows_logged)
            if self._recent_rows >= BLOCK_ROWS:
                self._compact()
            elif due:
                self._write_derived()

        self._pending.append((self._writer.submit(self._failing(write)), table.num_rows))
        self._queued += table.num_rows

    def _failing(self, write: Callable[[], None]) -> Callable[[], None]:
        """`write`, marking the recorder broken if it raises (the writer skips the rest)."""
        def run() -> None:
            try:
                write()
            except BaseException:
                self._broken = True
                raise
        return run

    def _compact(self) -> None:
        self.rundir.close_stream()
        compact(self.rundir, self._rows)
        self._recent_rows = 0
        self._write_derived()

    def _write_derived(self) -> None:
        """checkpoint.json and best.json of the last generation committed, if not yet written."""
        if self._derived is None:
            return
        checkpoint, best, rows = self._derived
        if isinstance(best, State):
            best = self.best(best)
        self.rundir.sync_stream()  # the generations these name are on the disk first
        self.rundir.write_checkpoint(checkpoint, rows)
        self.rundir.write_best(best)
        self._derived, self._derived_at = None, time.monotonic()

    def checkpoint(self, state: State) -> dict[str, Any]:
        record = state.checkpoint(self.schema.ranks(state.population))
        if self.schema.hypervolume_reference is not None:
            record["hypervolume_reference"] = self.schema.hypervolume_reference
        return record

    def best(self, state: State) -> dict[str, Any]:
        return self.schema.best(state.generation, state.hall_of_fame, self.spec.task_spec(named=True))

    def rewrite_derived(self, state: State) -> None:
        """On resume: checkpoint.json and best.json from the restored state."""
        self._rows = state.rows
        self._derived = (self.checkpoint(state), self.best(state), self._rows_logged)
        self._write_derived()

    def flush(self) -> None:
        """Wait until every generation handed to the writer is on disk (re-raising its error)."""
        self._wait(None)

    def _wait(self, rows: int | None) -> None:
        """Wait until at most `rows` rows (None: none at all) are queued for the writer
        (re-raising the first failed write's error)."""
        while self._pending and (rows is None or self._queued > rows or len(self._pending) >= QUEUE_GENERATIONS):
            pending, count = self._pending.popleft()
            self._queued -= count
            try:
                pending.result()
            except BaseException:
                self._broken = True  # a write failed (a full disk): close writes nothing more
                self._pending.clear()
                self._queued = 0
                raise

    def close(self) -> None:
        """Everything on disk: the last checkpoint.json and best.json, recent/ compacted."""
        try:
            self.flush()
            if not self._broken:
                self._write_derived()
                if self._recent_rows or any(not p.compacted for p in self.rundir.pieces().pieces):
                    self._compact()
        finally:
            self._writer.shutdown(wait=True)
            with contextlib.suppress(OSError):  # a full disk: what is appended stays readable
                self.rundir.close_stream()

    def write_verdict(self, state: State, evaluator: Evaluator) -> None:
        """best.json's final form: where fitness was sampled, the hall of fame is scored again
        (on the run's evaluator) on `hall_of_fame_games` fresh games per opponent, ranked by
        that, with 95% intervals; the figures selection saw stay beside them."""
        self.flush()
        self._write_derived()  # the last generation's, before the verdict replaces best.json
        if not self.noise.active or not state.hall_of_fame:
            return
        members = state.hall_of_fame
        result = evaluator.evaluate([m.genome for m in members], self.noise.hall_of_fame_seeds(len(members)),
                                    task_spec=self.noise.verdict_task_spec(self.spec.task_spec()))
        fresh = []
        raised = result.columns.get(ERROR)
        for i, m in enumerate(members):
            columns = {name: scalar(values[i]) for name, values in result.columns.items() if name != ERROR}
            error = raised[i] if raised is not None else None
            error = error if error is not None else self.objectives.failure(columns)
            if error is None:  # a verdict that fails leaves the entry out: its figures would be no verdict
                fresh.append(replace(m, columns=columns, fitness=self.objectives.fitness(columns)))
        if self.objectives.mode == "pareto":  # the front as the fresh figures draw it
            fresh = sorted(tools.sortNondominated(fresh, len(fresh), first_front_only=True)[0], key=lambda m: m.id)
        else:
            fresh = oldest_first_ranking(fresh)
        payload = self.best(replace(state, hall_of_fame=fresh))
        payload["verdict"] = {"games": self.spec.sampling.hall_of_fame_games, "sampled": sorted(self.noise.sampled)}
        selection = {m.id: m.columns for m in members}
        for entry, m in zip(payload["hall_of_fame"], fresh):
            entry["intervals"] = self.noise.intervals(m.columns)
            entry["selection_objectives"] = {n: jsonable(v) for n, v in selection[m.id].items()}
        self.rundir.write_best(payload)

    def restore(self, checkpoint: dict[str, Any], rows: list[dict[str, Any]]) -> State:
        """The state a verified checkpoint names (see verify.py), members read back from the log."""
        generation = int(checkpoint["generation"])
        pools = checkpoint.get("emigrants") or []  # islands.lag: chosen after Plan.pool_point(generation)
        wanted = set(checkpoint["population"]) | set(checkpoint["hall_of_fame"]) | {i for pool in pools for i in pool}
        log = self.rundir.read_individuals(range(0, generation + 1), ids=wanted)  # only their rows
        # a run keeps the schema it started with: generation 0's, whatever later resumes wrote
        self.schema.viability = "viable" in self.rundir.read_individuals(range(1), columns=["viable"])
        self.schema.hypervolume = self.schema.hypervolume and (not rows or "hypervolume" in rows[0])
        self.schema.hypervolume_reference = checkpoint.get("hypervolume_reference")
        members = self._members(log, set(checkpoint["population"]) | set(checkpoint["hall_of_fame"]), generation)
        population = [members[i] for i in checkpoint["population"]]
        pieces = self.rundir.pieces().pieces
        self._recent_rows = sum(rows for p in pieces if not p.compacted for _, rows in committed(p))
        self._rows_logged = self._recent_rows + sum(sum(piece_record(p)["rows"]) for p in pieces if p.compacted)
        chosen = Plan.of(self.spec).pool_point(generation) if pools else generation
        as_chosen = self._members(log, {i for pool in pools for i in pool}, chosen)  # their scores then
        sizes = checkpoint.get("islands") or [len(population)]
        islands, start = [], 0
        for size in sizes:
            islands.append(population[start:start + size])
            start += size
        return State(generation=generation, populations=islands,
                     hall_of_fame=[members[i] for i in checkpoint["hall_of_fame"]],
                     next_id=int(checkpoint["next_id"]), evaluations=int(checkpoint["evaluations"]),
                     best_so_far=checkpoint["best_primary"], stagnant=int(checkpoint["stagnant"]),
                     elapsed=float(checkpoint["elapsed_seconds"]), rows=list(rows),
                     extra=dict(checkpoint.get("algorithm") or {}),
                     emigrants=[[as_chosen[i] for i in pool] for pool in pools])

    def _members(self, log: Any, wanted: set[int], upto: int) -> dict[int, Member]:
        """The members `wanted` as the log has them after generation `upto`."""
        # A re-evaluated survivor has a row per generation it was scored in: the last one is current.
        frame = log[log["id"].isin(wanted) & (log["generation"] <= upto)]
        frame = frame.sort_values("generation", kind="stable").drop_duplicates("id", keep="last")
        members = {m.id: m for m in map(self._member, frame.to_dict("records"))}
        missing = wanted - set(members)
        if missing:
            raise ValueError(f"{self.rundir.path}: the log lacks individuals {sorted(missing)[:5]} named by the checkpoint")
        return members

    def _member(self, row: dict[str, Any]) -> Member:
        columns = {k: scalar(v) for k, v in row.items() if k not in _LOG_COLUMNS}
        m = Member(int(row["id"]), int(row.get("born", row["generation"])), self.schema.kind.from_record(row["genome"]),
                   [int(p) for p in row["parents"]], row["origin"], columns, float(row["eval_seconds"]),
                   row["worker"], selected=bool(row["selected"]), island=int(row.get("island", 0) or 0),
                   order=_order(row.get("order")), error=_error(row.get("error")))
        m.fitness = self.objectives.fitness(columns, m.error)
        return m


def _error(value: Any) -> str | None:
    """A row's error; None where it has none (viable, or a file written before the column)."""
    return value if isinstance(value, str) else None


def _order(value: Any) -> int | None:
    """A row's arrival order; None where the log has none (a migrant: null, read back as NaN)."""
    return None if pd.isna(value) else int(value)
