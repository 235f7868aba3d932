"""Compaction: the generations committed one file each (recent/, or an old run's
individuals/gen-*.parquet) merged into few large zstd Parquet parts.

In this order, each file renamed in whole, per part: the generations part (their
rows, `generations.py`), the population part (built from the generations' records)
and the individuals part; then the per-generation files are deleted. Nothing
written grows with the run's length. Killed at any instant, every generation is in
exactly one place for readers: a part wins over the per-generation files it
covers (`layout.py`), which the next writer deletes (`verify.recover`); a population
or generations part without its individuals part is ignored by readers and deleted on resume.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from fitness.atomic import atomic_write_bytes

from .dataset import RECORD_KEY, piece_record, piece_table, stream_batches
from .generations import stale_parts
from .layout import Piece, part_name, scan

__all__ = ["BLOCK_ROWS", "compact", "population_table"]

BLOCK_ROWS = 100_000  # rows in recent/ that start a compaction (a part holds about this many)
ROW_GROUP_ROWS = 16_384  # rows per Parquet row group in a part: the unit a filtered read skips
Fault = Callable[[str], None]  # a test's hook, called after each step (raising there is a kill)


def population_table(run_id: str | None, records: list[dict[str, Any]]) -> pa.Table:
    """Who is alive after each record's generation, best first by rank; with islands, each
    one's island (ids island by island, as the state lists them)."""
    generations, ids, ranks, islands = [], [], [], []
    for record in records:
        state = record["state"]
        members = list(state["population"])
        generations += [int(state["generation"])] * len(members)
        ids += members
        ranks += state.get("population_rank") or list(range(len(members)))
        islands += [i for i, size in enumerate(state.get("islands") or []) for _ in range(size)]
    columns = {"run_id": pa.array([run_id] * len(ids), pa.string()), "generation": pa.array(generations, pa.int64()),
               "id": pa.array(ids, pa.int64()), "rank": pa.array(ranks, pa.int64())}
    if islands:
        columns["island"] = pa.array(islands, pa.int64())
    return pa.table(columns)


Generation = tuple[int, pa.Table, dict]  # a generation's number, rows and record


def _generations(piece: Piece) -> list[Generation]:
    """Each generation a committed file holds, with its rows and record."""
    if piece.path.suffix == ".arrows":
        loaded = []
        for batch, metadata in stream_batches(piece.path, piece.last - piece.first + 1):
            record = json.loads(metadata[RECORD_KEY])
            loaded.append((int(record["generation"]), pa.Table.from_batches([batch]).replace_schema_metadata(None),
                           record))
        return loaded
    return [(piece.first, piece_table(piece), piece_record(piece))]


def _groups(loaded: list[Generation]) -> list[list[Generation]]:
    """Runs of generations with one schema (a part holds one; an old run gains `viable` columns at
    its first failed evaluation) and the same island layout."""
    groups: list[list[Generation]] = []
    for item in loaded:
        previous = groups[-1][-1] if groups else None
        if previous is not None and previous[1].schema.equals(item[1].schema) \
                and bool(previous[2]["state"].get("islands")) == bool(item[2]["state"].get("islands")):
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _part_bytes(table: pa.Table, metadata: dict[bytes, bytes]) -> bytes:
    sink = pa.BufferOutputStream()
    with pq.ParquetWriter(sink, table.schema, compression="zstd") as writer:
        writer.write_table(table, row_group_size=ROW_GROUP_ROWS)
        writer.add_key_value_metadata(metadata)
    return sink.getvalue().to_pybytes()


def compact(rundir: Any, rows: list[dict[str, Any]], fault: Fault | None = None,
            held: list[Generation] | None = None) -> int:
    """Merge every generation not yet in a part into parts (`rows`: the generations rows
    0..last); returns how many generations were merged. `held`: the writer's own copy of
    generations it wrote, used instead of reading them back where it is exactly those pending."""
    pending = [p for p in rundir.pieces().pieces if not p.compacted]
    if not pending:
        return 0
    wanted = [g for piece in pending for g in range(piece.first, piece.last + 1)]
    if held is not None and [g for g, _, _ in held] == wanted:
        loaded = held
    else:
        loaded = [generation for piece in pending for generation in _generations(piece)]
    for group in _groups(loaded):
        first, last = group[0][0], group[-1][0]
        rundir.write_generations(first, rows[first:last + 1], list(rows[0]))
        _step(fault, "generations")
        population = population_table(rundir.identity.get("run_id"), [record for _, _, record in group])
        atomic_write_bytes(rundir.population_dir / part_name(first, last), _part_bytes(population, rundir.file_metadata))
        _step(fault, "population")
        span = {"run_id": rundir.identity.get("run_id"), "first": first, "last": last,
                "rows": [t.num_rows for _, t, _ in group], "record": group[-1][2]}
        metadata = {**rundir.file_metadata, RECORD_KEY: json.dumps(span).encode()}
        individuals = pa.concat_tables([t for _, t, _ in group])
        atomic_write_bytes(rundir.individuals / part_name(first, last), _part_bytes(individuals, metadata))
        _step(fault, "individuals")
    remove_covered(rundir)
    _step(fault, "removed")
    return len(pending)


def remove_covered(rundir: Any) -> int:
    """Delete the per-generation files a part holds (individuals/, recent/, an old run's
    population/gen-*.parquet), population and generations parts with no individuals part, and
    an old run's generations.parquet once parts hold all its rows; returns how many."""
    pieces = rundir.pieces()
    removed = [p.path for p in pieces.leftovers] + stale_parts(rundir.generations_dir, pieces, rundir.generations_file)
    spans = {(p.first, p.last) for p in pieces.pieces if p.compacted}
    for p in scan(rundir.population_dir).pieces + scan(rundir.population_dir).leftovers:
        compacted_here = any(first <= p.first and p.last <= last for first, last in spans)
        if (p.compacted and (p.first, p.last) not in spans) or (not p.compacted and compacted_here):
            removed.append(p.path)
    for path in removed:
        path.unlink(missing_ok=True)
    return len(removed)


def _step(fault: Fault | None, name: str) -> None:
    if fault is not None:
        fault(name)
