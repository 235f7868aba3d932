"""Reading a run's files while a run may be writing them: each file through one open.

The writer replaces a file by renaming a whole new version over it
(`fitness.atomic`), never by writing into it, so a file opened once stays one
whole version until it is closed, whatever is renamed over its name meanwhile.
A reader that opens a path twice can mix two versions: `pq.read_table(path)`
reads the footer through one open and the pages through another, and a rename
between the two gave "Page was smaller (42) than expected (46)" (issue 40).
So every reader of a run directory opens each file once, here, and parses
through that handle: Parquet reads only the columns asked for, and nothing is
copied whole that a read does not need.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["RunDirError", "opened", "read_parquet", "read_parquet_metadata", "read_json"]


class RunDirError(ValueError):
    """A run directory that cannot be read as one (explained in one line)."""


@contextlib.contextmanager
def opened(path: str | Path, mapped: bool = False) -> Iterator[pa.NativeFile]:
    """`path` opened once: every read through the handle sees the version that was there at the
    open (`mapped`: memory-mapped, the length it had then). A failed open raises Python's own
    OSError naming `path` (FileNotFoundError if none is there). Reads are positional, so
    pyarrow's threads may share the handle."""
    try:
        handle = pa.memory_map(os.fspath(path)) if mapped else pa.OSFile(os.fspath(path))
    except OSError as exc:
        if exc.errno is None:
            raise
        raise type(exc)(exc.errno, os.strerror(exc.errno), os.fspath(path)) from None
    try:
        yield handle
    finally:
        handle.close()


def read_parquet(path: str | Path, columns: list[str] | None = None) -> pa.Table:
    """A Parquet file's table (only `columns` if given), footer and pages from one version.

    `ParquetFile` rather than `pq.read_table`: no dataset to set up (half the time per small
    file), but it drops an unknown column silently, so that is checked here."""
    with opened(path) as handle:
        parquet = pq.ParquetFile(handle)
        unknown = [c for c in columns or () if c not in parquet.schema_arrow.names]
        if unknown:
            raise pa.ArrowInvalid(f"{path}: no column {unknown[0]!r} (it has {', '.join(parquet.schema_arrow.names)})")
        return parquet.read(columns=columns)


def read_parquet_metadata(path: str | Path) -> pq.FileMetaData:
    """A Parquet file's footer: row counts and key-value metadata, without its pages."""
    with opened(path) as handle:
        return pq.read_metadata(handle)


def read_json(path: str | Path) -> Any:
    """A JSON file's content; a missing, unreadable or garbled file is named in one line."""
    with opened(path) as handle:
        data = handle.read()
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RunDirError(f"{path}: not a JSON text file") from None
    except json.JSONDecodeError as exc:
        raise RunDirError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
