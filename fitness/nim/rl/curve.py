"""The learning curve on disk: one Parquet row per evaluation of a training run."""

from __future__ import annotations

import io
from pathlib import Path

from ...atomic import atomic_write_bytes

__all__ = ["write_curve"]


def write_curve(path: str | Path, rows: list[dict]) -> Path:
    """Write the curve rows (episode, win rates, epsilon, alpha, states known, ...) atomically."""
    import pandas as pd  # heavy: only when a curve is written

    buffer = io.BytesIO()
    pd.DataFrame(rows).to_parquet(buffer, index=False)
    return atomic_write_bytes(path, buffer.getvalue())
