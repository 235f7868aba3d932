"""Files the writer keeps open or renames in: one-line errors naming the file (not a temp
file), and recent/'s stream, appended to one batch per generation."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.ipc as ipc

__all__ = ["TEMP_FILE", "Stream", "describe_os_error"]

_BUFFER_BYTES = 1 << 20  # a generation's batch is written from here in one call (a larger one directly)
TEMP_FILE = re.compile(r"^\..+\.tmp$")  # fitness.atomic's temp files, left by a crash


def describe_os_error(exc: OSError) -> str:
    """`path: cause` for a file-system error (disk full, read-only, permissions)."""
    cause = exc.strerror or str(exc)
    return f"{exc.filename}: {cause}" if exc.filename else cause


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Re-raise a file-system error with the file it was about (not a temp file's name)."""
    try:
        yield
    except OSError as exc:
        named = exc.filename is not None and not TEMP_FILE.match(Path(str(exc.filename)).name)
        if exc.errno is None or named:
            raise
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(path)) from None


class Stream:
    """An Arrow IPC stream appended to, one batch per generation (`RunDir.write_individuals`).

    Through a buffer flushed once a batch, or once for the writer's many batches (`flush`): one
    write call, where the file's own handle took one per column buffer (30-odd for a generation,
    2.5 µs a row at 100 rows). A batch is in the file whole once it is flushed; readers and a
    kill see whole batches, and at most a torn last one (a full buffer written mid-batch), which
    readers leave out."""

    def __init__(self, path: Path, schema: pa.Schema, metadata: dict[bytes, bytes]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.schema = schema
        with _naming(path):
            self.sink = pa.OSFile(os.fspath(path), "wb")
            self.buffer = pa.BufferedOutputStream(self.sink, buffer_size=_BUFFER_BYTES)
            self.writer = ipc.new_stream(self.buffer, schema.with_metadata(metadata))
            self.buffer.flush()
        self.path = path

    def append(self, batch: pa.RecordBatch, metadata: dict[bytes, bytes], flush: bool = True) -> None:
        with _naming(self.path):
            self.writer.write_batch(batch, custom_metadata=metadata)
            if flush:
                self.buffer.flush()

    def flush(self) -> None:
        with _naming(self.path):
            self.buffer.flush()

    def sync(self) -> None:
        with _naming(self.path):
            self.buffer.flush()
            os.fsync(self.sink.fileno())

    def close(self) -> None:
        with _naming(self.path):
            try:
                self.writer.close()
                self.sync()
            finally:
                self.buffer.close()
                self.sink.close()
