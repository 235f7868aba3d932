"""The log's files as its writer keeps them: each generation handed over (`Commit`) appended
to recent/'s stream, compacted into Parquet parts every `BLOCK_ROWS` rows, and
checkpoint.json and best.json written when due. Runs in the writer process
(`writer_process.py`); the loop's side is `recorder.py`.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..evolution.members import Member
from ..evolution.packed_members import pack_members, unpack_members
from ..spec import RunSpec
from .compaction import BLOCK_ROWS, Generation, compact
from .island_rows import IslandRows
from .rundir import RunDir
from .schema import Fields, PendingRanks, Schema

__all__ = ["Commit", "HallChange", "LogFiles"]


@dataclass
class HallChange:
    """The hall of fame as it changed: every member's id in order, and only the members the
    writer does not hold as they are (new, or re-scored under sampled fitness), packed when
    pickled. A hall of ten Nim tables pickled whole each generation was a quarter of what a
    generation handed over (0.6-0.9 µs a logged row of 2.9-3.4)."""
    ids: list[int]
    new: list[Member]

    @classmethod
    def of(cls, hall_of_fame: list[Member], keys: list[tuple[int, Any]], held: set[tuple[int, Any]]) -> HallChange:
        """The change to `hall_of_fame` (its members' `hall_key`s: `keys`) from a hall whose keys are `held`."""
        return cls([m.id for m in hall_of_fame], [m for m, key in zip(hall_of_fame, keys) if key not in held])

    def __reduce__(self) -> tuple:
        packed = pack_members(self.new)
        if not self.new or packed[0] != "packed":  # columns that differ: the members whole
            return HallChange, (self.ids, self.new)
        fitness_class = next((type(m.fitness) for m in self.new if m.fitness is not None), None)
        return _unpacked_change, (self.ids, packed, fitness_class)

    def applied(self, before: list[Member]) -> list[Member]:
        """The hall of fame, from the writer's own hall `before` this change."""
        members = {m.id: m for m in before} | {m.id: m for m in self.new}
        return [members[i] for i in self.ids]


def _unpacked_change(ids: list[int], packed: list, fitness_class: type | None) -> HallChange:
    return HallChange(ids, unpack_members(packed, fitness_class))


def hall_key(member: Member) -> tuple[int, Any]:
    """What says whether a hall of fame's member changed: its id and weighted fitness."""
    return member.id, getattr(member.fitness, "wvalues", None)


@dataclass
class Commit:
    """A generation handed to the writer: its rows (members' `fields`, or an island generation's
    tables built elsewhere) and what its record and the derived files need."""
    generation: int
    fields: Fields | None
    built: IslandRows | None
    islands: bool
    keep: set[int] | None  # `[log] individuals`: the ids a thinned generation keeps (None: all)
    checkpoint: dict[str, Any]
    summary: dict[str, Any]  # its generations row
    hall_of_fame: HallChange | None  # for best.json; None: the same as the generation before's
    due: bool  # checkpoint.json and best.json are due after it
    ranks: PendingRanks | None = None  # the checkpoint's population_rank, to compute (None: there)


class LogFiles:
    def __init__(self, spec: RunSpec, rundir: RunDir, schema: Schema) -> None:
        self.spec = spec
        self.rundir = rundir
        self.schema = schema
        self.rows: list[dict[str, Any]] = []  # the generations rows, 0..the last committed
        self.recent_rows = 0  # rows committed to recent/ and not yet compacted
        self.held: list[Generation] = []  # and those generations as written (compaction reads no file)
        self.rows_logged = 0  # rows in the log
        self.hall_of_fame: list[Member] = []  # the last commit's
        self._derived: tuple[dict[str, Any], int, int] | None = None  # checkpoint, generation, rows: not yet written

    def write(self, commits: list[Commit]) -> None:
        """A batch: commits' tables (built together where they can be), each generation appended
        to recent/ as one batch; a compaction after the generation that fills a block (so parts
        end where they would one generation at a time), or the derived files if due."""
        for commit, table in zip(commits, self._tables(commits)):
            if commit.ranks is not None:
                commit.checkpoint["population_rank"] = commit.ranks.ranks(commit.checkpoint["population"])
            if commit.keep is not None:
                wanted = pa.array(sorted(commit.keep), pa.int64())
                table = table.filter(pc.is_in(table.column("id"), value_set=wanted))
            generation = commit.generation
            record = self.rundir.write_individuals(generation, table,
                                                   {"state": commit.checkpoint, "summary": commit.summary}, flush=False)
            self.rows.append(commit.summary)
            self.held.append((generation, table.replace_schema_metadata(None), record))
            self.recent_rows += table.num_rows
            self.rows_logged += table.num_rows
            if commit.hall_of_fame is not None:
                self.hall_of_fame = commit.hall_of_fame.applied(self.hall_of_fame)
            self._derived = (commit.checkpoint, generation, self.rows_logged)
            if self.recent_rows >= BLOCK_ROWS:
                self._compact()
        self.rundir.flush_stream()
        if self._derived is not None and any(commit.due for commit in commits):
            self.write_derived()

    def _tables(self, commits: list[Commit]) -> list[pa.Table]:
        """Each commit's table: runs of commits of members built as one (`Schema.tables`)."""
        tables: list[pa.Table] = []
        for built, group in itertools.groupby(commits, key=lambda c: (c.built is not None, c.islands)):
            group = list(group)
            if built[0]:
                tables += [c.built.table(self.schema, c.generation) for c in group]
            else:
                tables += self.schema.tables([(c.generation, c.fields) for c in group], islands=built[1])
        return tables

    def _compact(self) -> None:
        self.rundir.close_stream()
        compact(self.rundir, self.rows, held=self.held)
        self.recent_rows, self.held = 0, []
        self.write_derived()

    def write_derived(self) -> None:
        """checkpoint.json and best.json of the last generation committed, if not yet written."""
        if self._derived is None:
            return
        checkpoint, generation, rows = self._derived
        self.rundir.sync_stream()  # the generations these name are on the disk first
        self.rundir.write_checkpoint(checkpoint, rows)
        self.rundir.write_best(self.best(generation, self.hall_of_fame))
        self._derived = None

    def best(self, generation: int, hall_of_fame: list[Member]) -> dict[str, Any]:
        return self.schema.best(generation, hall_of_fame, self.spec.task_spec(named=True))

    def rewrite(self, checkpoint: dict[str, Any], generation: int, hall_of_fame: list[Member],
                rows: list[dict[str, Any]]) -> None:
        """On resume: the generations rows so far, and checkpoint.json and best.json from the
        restored state."""
        self.rows, self.hall_of_fame = rows, hall_of_fame
        self._derived = (checkpoint, generation, self.rows_logged)
        self.write_derived()

    def finish(self) -> None:
        """At the run's end: the last checkpoint.json and best.json, recent/ compacted."""
        self.write_derived()
        if self.recent_rows or any(not p.compacted for p in self.rundir.pieces().pieces):
            self._compact()

    def cpu_seconds(self) -> float:
        """The CPU seconds of the process this runs in (the writer process's own, when apart)."""
        return time.process_time()

    def close(self) -> None:
        """The writer's last step, whatever happened before."""
        with contextlib.suppress(OSError):  # a full disk: what is appended stays readable
            self.rundir.close_stream()
