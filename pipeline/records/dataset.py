"""Reading the log's files through the layout (`layout.py`): only the files, row groups
and columns a read needs, each file through one open (`reading.py`).

A generation's file in recent/ is deleted once a part holds it: a reader that loses
that race rescans and reads the part instead (`retrying`), so no read fails and
none sees a generation twice.
"""

from __future__ import annotations

import bisect
import json
from typing import Any, Callable, Sequence, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from .layout import Piece, Pieces
from .reading import RunDirError, opened

__all__ = ["RECORD_KEY", "piece_record", "piece_rows", "piece_table", "retrying"]

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


def _metadata(piece: Piece) -> dict[bytes, bytes]:
    with opened(piece.path) as handle:
        if piece.path.suffix == ".arrow":
            return dict(ipc.open_file(handle).schema.metadata or {})
        return dict(pq.read_metadata(handle).metadata or {})


def piece_record(piece: Piece) -> dict[str, Any]:
    """The record a file's metadata carries (`RunDirError` if it has none or it is unreadable)."""
    try:
        record = json.loads(_metadata(piece)[RECORD_KEY])
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
    with opened(piece.path) as handle:
        if piece.path.suffix == ".arrow":
            reader = ipc.open_file(handle)
            return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
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


def piece_table(piece: Piece, columns: list[str] | None = None, generations: range | None = None,
                ids: Sequence[int] | None = None) -> pa.Table:
    """The rows of `piece` in `generations` with an id in `ids` (sorted; None: any), only those
    of `columns` that it has (None: all). Parquet row groups are skipped by their statistics."""
    filters = [name for name, given in (("generation", generations), ("id", ids)) if given is not None]
    with opened(piece.path) as handle:
        if piece.path.suffix == ".arrow":
            table = ipc.open_file(handle).read_all()
        else:
            parquet = pq.ParquetFile(handle)
            names = parquet.schema_arrow.names
            wanted = None if columns is None else [c for c in names if c in set(columns) | set(filters)]
            table = parquet.read_row_groups(_kept_groups(parquet, generations, ids), columns=wanted)
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

