"""Reading the log's files through the layout (`layout.py`): only the files, row groups
and columns a read needs, each file through one open (`reading.py`).

A stream in recent/ is deleted once a part holds it: a reader that loses that race
rescans and reads the part instead (`retrying`), so no read fails and none sees a
generation twice. A stream is only appended to: a reader takes its whole batches.
"""

from __future__ import annotations

import bisect
import json
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from .layout import Piece, Pieces
from .reading import RunDirError, opened

__all__ = ["RECORD_KEY", "committed", "empty_table", "piece_record", "piece_records", "piece_rows", "piece_table",
           "retrying", "stream_batches"]

RECORD_KEY = b"evo"  # a generation file's record (a part's: its span and its last generation's record)
_RETRIES = 8
T = TypeVar("T")


def retrying(scan: Callable[[], Pieces], read: Callable[[Pieces], T]) -> T:
    """`read(scan())`, scanned again if a file it listed was compacted away meanwhile."""
    for attempt in range(_RETRIES):
        try:
            return read(scan())
        except FileNotFoundError:
            if attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")


def stream_batches(path: Path, limit: int | None = None) -> list[tuple[pa.RecordBatch, dict[bytes, bytes]]]:
    """The whole generations of a recent/ stream, each batch with its metadata (at most `limit`):
    the writer appends one batch per generation, so the last may still be being written (or
    torn by a kill) and is left out. Memory-mapped: only what is read is touched."""
    batches: list[tuple[pa.RecordBatch, dict[bytes, bytes]]] = []
    with opened(path, mapped=True) as source:
        try:
            reader = ipc.open_stream(source)
            while limit is None or len(batches) < limit:
                batch, metadata = reader.read_next_batch_with_custom_metadata()
                batches.append((batch, dict(metadata or {})))
        except StopIteration:
            pass
        except (OSError, pa.ArrowInvalid):  # a batch (or the stream's schema) being written, or torn
            pass
    return batches


def _span(piece: Piece) -> int:
    return piece.last - piece.first + 1


def piece_records(piece: Piece) -> list[dict[str, Any]]:
    """The record of each generation a committed (not compacted) file holds."""
    return [record for record, _ in committed(piece)]


def committed(piece: Piece) -> list[tuple[dict[str, Any], int]]:
    """Each generation a committed (not compacted) file holds: its record and its row count."""
    if piece.path.suffix == ".arrows":
        return [(_record(piece, metadata), batch.num_rows) for batch, metadata in stream_batches(piece.path, _span(piece))]
    return [(piece_record(piece), piece_rows(piece))]


def _metadata(piece: Piece) -> dict[bytes, bytes]:
    if piece.path.suffix == ".arrows":
        batches = stream_batches(piece.path, _span(piece))
        return batches[-1][1] if batches else {}
    with opened(piece.path) as handle:
        return dict(pq.read_metadata(handle).metadata or {})


def piece_record(piece: Piece) -> dict[str, Any]:
    """The record a file's metadata carries, of its last generation (`RunDirError` if it has none
    or it is unreadable)."""
    return _record(piece, None)


def _record(piece: Piece, metadata: dict[bytes, bytes] | None) -> dict[str, Any]:
    try:
        record = json.loads((_metadata(piece) if metadata is None else metadata)[RECORD_KEY])
    except KeyError:
        raise RunDirError(f"{piece.path}: no evo record in its metadata (written by an older evo, or not "
                          "by evo); cannot verify it") from None
    except FileNotFoundError:
        raise
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise RunDirError(f"{piece.path}: not a readable log file ({str(exc).splitlines()[0]})") from None
    if not isinstance(record, dict):
        raise RunDirError(f"{piece.path}: its evo record is not a JSON object")
    return record


def piece_rows(piece: Piece) -> int:
    if piece.path.suffix == ".arrows":
        return sum(batch.num_rows for batch, _ in stream_batches(piece.path, _span(piece)))
    with opened(piece.path) as handle:
        return pq.read_metadata(handle).num_rows


def _kept_groups(parquet: pq.ParquetFile, generations: range | None, ids: Sequence[int] | None) -> list[int]:
    """The row groups whose statistics allow a wanted row (`ids` sorted)."""
    names = parquet.schema_arrow.names
    where = {name: names.index(name) for name in ("generation", "id") if name in names}
    kept = []
    for i in range(parquet.metadata.num_row_groups):
        group = parquet.metadata.row_group(i)
        if generations is not None and "generation" in where:
            stats = group.column(where["generation"]).statistics
            if stats is not None and stats.has_min_max and (stats.max < generations.start
                                                            or stats.min >= generations.stop):
                continue
        if ids is not None and "id" in where:
            stats = group.column(where["id"]).statistics
            if stats is not None and stats.has_min_max:
                at = bisect.bisect_left(ids, stats.min)
                if at == len(ids) or ids[at] > stats.max:
                    continue
        kept.append(i)
    return kept


def _parquet_table(piece: Piece, columns: list[str] | None, filters: list[str], generations: range | None,
                   ids: Sequence[int] | None) -> pa.Table:
    with opened(piece.path) as handle:
        parquet = pq.ParquetFile(handle)
        names = parquet.schema_arrow.names
        wanted = None if columns is None else [c for c in names if c in set(columns) | set(filters)]
        return parquet.read_row_groups(_kept_groups(parquet, generations, ids), columns=wanted)


def piece_table(piece: Piece, columns: list[str] | None = None, generations: range | None = None,
                ids: Sequence[int] | None = None) -> pa.Table:
    """The rows of `piece` in `generations` with an id in `ids` (sorted; None: any), only those
    of `columns` that it has (None: all). Parquet row groups are skipped by their statistics."""
    filters = [name for name, given in (("generation", generations), ("id", ids)) if given is not None]
    if piece.path.suffix == ".arrows":
        batches = stream_batches(piece.path, _span(piece))
        table = pa.Table.from_batches([batch for batch, _ in batches])
    else:
        table = _parquet_table(piece, columns, filters, generations, ids)
    mask = None
    if generations is not None and not (piece.first >= generations.start and piece.last < generations.stop):
        column = table.column("generation")
        mask = pc.and_(pc.greater_equal(column, generations.start), pc.less(column, generations.stop))
    if ids is not None:
        inside = pc.is_in(table.column("id"), value_set=pa.array(np.asarray(ids, dtype=np.int64)))
        mask = inside if mask is None else pc.and_(mask, inside)
    if mask is not None:
        table = table.filter(mask)
    if columns is not None:
        table = table.select([c for c in columns if c in table.column_names])
    return table.replace_schema_metadata(None)


def empty_table(piece: Piece, columns: list[str] | None = None) -> pa.Table | None:
    """No rows, with the columns `piece` has (of `columns`, None: all): what a read that matches
    no row gives, so that a frame of none still has the log's columns and types. None: a
    stream whose schema is still being written."""
    try:
        if piece.path.suffix == ".arrows":
            with opened(piece.path, mapped=True) as source:
                schema = ipc.open_stream(source).schema
        else:
            with opened(piece.path) as handle:
                schema = pq.ParquetFile(handle).schema_arrow
    except pa.ArrowInvalid:
        return None
    table = schema.empty_table()
    if columns is not None:
        table = table.select([c for c in columns if c in table.column_names])
    return table.replace_schema_metadata(None)
