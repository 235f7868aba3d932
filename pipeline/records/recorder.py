"""The recorder: everything a run writes, and resume reading it back.

Each generation is committed by the log's writer process while the next ones
are being scored (`writer_process.py`; the files it keeps: `log_files.py`):
one batch appended to recent/'s stream (the commit point, carrying the state
and summary row in its metadata), in generation order. The loop only takes
each member's fields and sends them, genomes packed; the writer builds the
tables of many generations at once and keeps them until it compacts them, so
a compaction reads no file it wrote. Every `BLOCK_ROWS` rows, and at close,
the writer compacts recent/ into Parquet parts (`compaction.py`);
checkpoint.json and best.json follow every `DERIVED_SECONDS`, after a
compaction and at close. The loop waits only when more than `QUEUE_ROWS` rows
(or `QUEUE_GENERATIONS`) are unwritten; a crash loses the queued generations,
which resume regenerates identically. Nothing a generation writes grows with
the run's length.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pandas as pd
from deap import tools

from operators.selection import oldest_first_ranking

from ..evaluation import ERROR, Evaluator
from ..evolution.islands import Plan
from ..evolution.members import Member, Objectives, jsonable, scalar, viable
from ..evolution.noise import NoiseControl
from ..evolution.state import State
from ..spec import RunSpec
from ..spec_log import thinning
from .dataset import committed, piece_record
from .island_rows import IslandRows
from .log_files import Commit, HallChange, LogFiles, hall_key
from .rundir import RunDir
from .schema import Fields, PendingRanks, Schema
from .writer_process import fitting, log_writer

__all__ = ["Recorder"]

# Log columns that are not a task's objective columns (read back on resume).
_LOG_COLUMNS = {"run_id", "generation", "id", "born", "parents", "origin", "genome", "selected", "fitness",
                "eval_seconds", "worker", "island", "order", "viable", "error"}
DERIVED_SECONDS = 10.0  # checkpoint.json and best.json at most this old while a run goes on
QUEUE_ROWS = 20_000  # rows handed to the writer and not yet written before the loop waits
QUEUE_GENERATIONS = 512  # and generations (steady-state's may be a few rows each): enough that the loop
# goes on through a compaction (~0.4 s a block here: 80 generations of 100 rows at 5 ms)
BATCH_ROWS = 5_000  # the writer takes generations when this many rows (or `BATCH_GENERATIONS`) are queued,
BATCH_GENERATIONS = 32
LINGER_SECONDS = 0.2  # or this long after its last write (sooner: written at once)


class Recorder:
    def __init__(self, spec: RunSpec, rundir: RunDir, schema: Schema, noise: NoiseControl) -> None:
        self.spec = spec
        self.rundir = rundir
        self.schema = schema
        self.noise = noise
        self._files = LogFiles(spec, rundir, schema)  # forked into the writer process at the first write
        self._writer = log_writer(self._files, BATCH_ROWS, BATCH_GENERATIONS, LINGER_SECONDS)
        self._hall_sent: list[tuple[int, Any]] | None = None  # the hall of fame last sent (ids, fitness)
        self._due_at = 0.0  # when checkpoint.json and best.json are next due (monotonic)
        self._first_generation = 0  # the first this recorder commits (after a resume's last)

    @property
    def objectives(self) -> Objectives:
        return self.schema.objectives

    def record(self, state: State, scored: list[Member], failures: int, started: float) -> State:
        """Commit generation `state.generation` (in the background); returns the state with its
        row and timing. wall_seconds counts all of the generation's work: the statistics, the
        rows taken, and waiting for the writer when too much is unwritten."""
        islands = len(state.populations) > 1 or self.spec.islands is not None
        return self._record(state, self.schema.fields(scored), None, islands, failures, started)

    def record_table(self, state: State, rows: IslandRows, failures: int, started: float) -> State:
        """`record` of a generation whose individuals rows were built elsewhere (island runners)."""
        return self._record(state, None, rows, True, failures, started)

    def _record(self, state: State, fields: Fields | None, built: IslandRows | None, islands: bool, failures: int,
                started: float) -> State:
        row = self.schema.generation_row(state.generation, viable(state.population), state.evaluations, failures)
        row.update(state.extra.get("row") or {})  # an algorithm's own columns (MAP-Elites: qd_score, coverage)
        rows = len(fields.rows) if fields is not None else built.rows
        self._writer.wait(QUEUE_ROWS - rows, QUEUE_GENERATIONS)
        seconds = time.perf_counter() - started
        row.update(wall_seconds=seconds, elapsed_seconds=state.elapsed + seconds)
        state.rows.append(row)  # in place: a copy per generation would grow with the run
        state = replace(state, elapsed=state.elapsed + seconds)
        due = time.monotonic() >= self._due_at
        if due:
            self._due_at = time.monotonic() + DERIVED_SECONDS
        pending = self.schema.pending_ranks(state.population)  # ranked in the writer
        commit = Commit(state.generation, fields, built, islands, self._kept(state), self.checkpoint(state, pending),
                        row, self._hall_changed(state.hall_of_fame), due, pending)
        if state.generation == self._first_generation:
            self._writer = fitting(self._writer, commit)
        self._writer.put(commit, rows)
        return state

    def _hall_changed(self, hall_of_fame: list[Member]) -> HallChange | None:
        """How the hall of fame changed since the last sent (members or their fitness), else None."""
        sent = list(map(hall_key, hall_of_fame))
        if sent == self._hall_sent:
            return None
        held, self._hall_sent = set(self._hall_sent or ()), sent
        return HallChange.of(hall_of_fame, sent, held)

    def _kept(self, state: State) -> set[int] | None:
        """The ids `[log] individuals` keeps of this generation (None: all): the members alive
        after it, in the hall of fame or an emigrant pool. A member alive after generation h was
        alive after its last evaluation too, so every member resume needs keeps its row."""
        every = thinning(self.spec.log.individuals)
        if every is not None and state.generation % every == 0:
            return None
        keep = {m.id for m in state.population} | {m.id for m in state.hall_of_fame}
        return keep | {m.id for pool in state.emigrants for m in pool}

    def checkpoint(self, state: State, pending: PendingRanks | None = None) -> dict[str, Any]:
        """The state's record; its population's ranks left to `pending` (None: ranked now)."""
        record = state.checkpoint(self.schema.ranks(state.population) if pending is None else None)
        if self.schema.hypervolume_reference is not None:
            record["hypervolume_reference"] = self.schema.hypervolume_reference
        return record

    def best(self, state: State) -> dict[str, Any]:
        return self._files.best(state.generation, state.hall_of_fame)

    def rewrite_derived(self, state: State) -> None:
        """On resume: checkpoint.json and best.json from the restored state."""
        self._writer.call("rewrite", self.checkpoint(state), state.generation, list(state.hall_of_fame),
                          list(state.rows))
        self._hall_sent = list(map(hall_key, state.hall_of_fame))
        self._first_generation = state.generation + 1

    def writer_cpu(self) -> float | None:
        """CPU seconds the log's writer process has spent (None: it runs in this process)."""
        return self._writer.cpu_seconds()

    def flush(self) -> None:
        """Wait until every generation handed to the writer is on disk (raising a failed write's
        error, once)."""
        self._writer.wait()

    def close(self) -> None:
        """Everything on disk: the last checkpoint.json and best.json, recent/ compacted."""
        try:
            self.flush()
            if self._writer.error is None:
                self._writer.call("finish")
        finally:
            self._writer.close()

    def write_verdict(self, state: State, evaluator: Evaluator) -> None:
        """best.json's final form: where fitness was sampled, the hall of fame is scored again
        (on the run's evaluator) on `hall_of_fame_games` fresh games per opponent, ranked by
        that, with 95% intervals; the figures selection saw stay beside them."""
        self.flush()
        self._writer.call("write_derived")  # the last generation's, before the verdict replaces best.json
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
        recent = sum(rows for p in pieces if not p.compacted for _, rows in committed(p))
        self._files.recent_rows = recent  # (the writer process is forked later, with them)
        self._files.rows_logged = recent + sum(sum(piece_record(p)["rows"]) for p in pieces if p.compacted)
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
