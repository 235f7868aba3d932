"""The learning curve on disk: one Parquet row per evaluation of a training run."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_curve"]


def write_curve(path: str | Path, rows: list[dict]) -> Path:
    """Write the curve rows (episode, win rates, epsilon, alpha, states known, ...) atomically."""
    import pandas as pd  # heavy: only when a curve is written

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pd.DataFrame(rows).to_parquet(tmp, index=False)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 is meant for the temp file only
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
