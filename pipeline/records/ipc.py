"""Arrow tables as bytes to send to another process: an island runner's log rows to the driver
(through Ray), and on from the driver to its log's writer process (through a pipe), untouched.

pyarrow's own pickling of a table rebuilds it array by array in Python (~0.8 µs a row
for the log's columns). An IPC stream is written and read in C++; lz4 over the whole stream
(not Arrow's own compression, buffer by buffer, which cost more than the rest) makes an
island's epoch of log rows about a quarter of its size, small enough that Ray hands it over
inline rather than through the object store (~1 ms of the driver's CPU an epoch).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

__all__ = ["PackedTable", "pack_table", "unpack_table"]

_WRITE = pa.ipc.IpcWriteOptions(use_threads=False)  # (Arrow's thread pool costs more than such small work)
_READ = pa.ipc.IpcReadOptions(use_threads=False)


@dataclass(frozen=True)
class PackedTable:
    """A table as one lz4-compressed IPC stream of one batch (`pack_table`)."""
    rows: int
    size: int  # the stream's, uncompressed
    data: bytes


def pack_table(table: pa.Table) -> PackedTable:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema, options=_WRITE) as writer:
        batches = table.combine_chunks().to_batches()  # one, or none for no rows
        writer.write_batch(batches[0] if batches else pa.RecordBatch.from_pylist([], schema=table.schema))
    stream = sink.getvalue()
    return PackedTable(table.num_rows, stream.size, pa.compress(stream, codec="lz4", asbytes=True))


def unpack_table(packed: PackedTable) -> pa.Table:
    """The table `pack_table` was given (its rows, types and metadata)."""
    return pa.ipc.open_stream(pa.decompress(packed.data, packed.size, codec="lz4"), options=_READ).read_all()
