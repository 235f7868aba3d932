"""The learning curve on disk: one Parquet row per evaluation of a training run."""

from __future__ import annotations

from pathlib import Path

from ...atomic import atomic_write_bytes

__all__ = ["write_curve"]


def write_curve(path: str | Path, rows: list[dict], metadata: dict[str, str] | None = None) -> Path:
    """Write the curve rows (episode, win rates, epsilon, alpha, states known, ...) atomically,
    with `metadata` (how it was trained) as the file's key-value metadata."""
    import pyarrow as pa  # heavy: only when a curve is written
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               **{k.encode(): v.encode() for k, v in metadata.items()}})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return atomic_write_bytes(path, sink.getvalue().to_pybytes())
