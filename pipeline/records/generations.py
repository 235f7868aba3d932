"""The generations' rows (best/mean/std per objective, timing): appended in parts, never rewritten.

    generations/part-GGGGGG-HHHHHH.parquet  rows of generations G..H, written by the compaction that
                                            writes individuals/part-GGGGGG-HHHHHH.parquet, before it
    generations.parquet                     rows 0..C in one file, in runs written before these parts
                                            (rewritten whole at each compaction then); read, never written
    recent/'s records                       the row of each generation not yet compacted

A generation's row is read from the first of these that holds it. A generations part
counts only once its individuals part is there (a compaction killed between the two
leaves a part readers skip and the writer deletes), so a reader sees each row once.
`pandas.read_parquet("runs/<name>/generations")` reads the parts as one frame.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from fitness.atomic import atomic_write_bytes

from .layout import Piece, Pieces, part_name, scan
from .reading import RunDirError, read_parquet, read_parquet_metadata

__all__ = ["generation_rows", "generations_part_bytes", "live_parts", "stale_parts"]

Summaries = Callable[[Piece], list[dict[str, Any]]]  # the summary rows a committed piece's records carry


def generations_part_bytes(rows: list[dict[str, Any]], keys: list[str], metadata: dict[bytes, bytes]) -> bytes:
    """A part of `rows`, with the columns `keys` (the run's first row's: one schema for every part)."""
    table = pa.Table.from_pydict({key: [row.get(key) for row in rows] for key in keys})
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(metadata), sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def write_part(folder: Path, first: int, rows: list[dict[str, Any]], keys: list[str],
               metadata: dict[bytes, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(folder / part_name(first, first + len(rows) - 1), generations_part_bytes(rows, keys, metadata))


def live_parts(folder: Path, pieces: Pieces, found: Pieces | None = None) -> list[Piece]:
    """The generations parts with their individuals part there (the others are a killed compaction's);
    `found`: the folder's scan, if the caller made it already."""
    spans = {(p.first, p.last) for p in pieces.pieces if p.compacted}
    return [p for p in (found or scan(folder)).pieces if p.compacted and (p.first, p.last) in spans]


def stale_parts(folder: Path, pieces: Pieces, legacy: Path) -> list[Path]:
    """Files to delete: generations parts without their individuals part, and the old single
    file once parts hold every row it has."""
    found = scan(folder)  # one listing of the folder for both
    live = live_parts(folder, pieces, found)
    stale = [p.path for p in found.pieces + found.leftovers if p not in live]
    try:
        held = read_parquet_metadata(legacy).num_rows
    except (FileNotFoundError, OSError, pa.ArrowException):
        return stale
    covered = {g for p in live for g in range(p.first, p.last + 1)}
    return stale + ([legacy] if all(g in covered for g in range(held)) else [])


def generation_rows(folder: Path, legacy: Path, pieces: Pieces, summaries: Summaries,
                    columns: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per generation 0..pieces.last (only `columns` if given), each from the first
    place that holds it (see the module doc)."""
    wanted = None if columns is None else list(dict.fromkeys(["generation", *columns]))
    by_generation: dict[int, dict[str, Any]] = {}
    for part in live_parts(folder, pieces):
        for row in _read(part.path, wanted):
            by_generation[int(row["generation"])] = row
    try:
        for row in _read(legacy, wanted):
            by_generation.setdefault(int(row["generation"]), row)
    except FileNotFoundError:
        pass
    for piece in pieces.pieces:
        if not piece.compacted and any(g not in by_generation for g in range(piece.first, piece.last + 1)):
            for summary in summaries(piece):
                by_generation.setdefault(int(summary["generation"]), summary)
    rows = [by_generation[g] for g in sorted(by_generation) if g <= pieces.last]
    if columns is not None:
        rows = [{c: row.get(c) for c in columns} for row in rows]
    return rows


def _read(path: Path, columns: list[str] | None) -> list[dict[str, Any]]:
    try:
        return read_parquet(path, columns).to_pylist()
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError) as exc:
        raise RunDirError(f"{path}: unreadable ({str(exc).splitlines()[0]})") from None
