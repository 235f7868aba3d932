"""What a golden log pins: a run directory's content minus what may differ (timing, workers).

Digests are per part (individuals/, population/, generations.parquet, best.json)
so a failing comparison says which part moved.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

# Columns allowed to differ between two runs of the same spec and seed (DESIGN.md, "Log schema").
VARIABLE = {"eval_seconds", "worker", "wall_seconds", "elapsed_seconds", "worker_failures"}


def _table_digest(tables: list[pa.Table]) -> str:
    sha = hashlib.sha256()
    for table in tables:
        keep = [name for name in table.column_names if name not in VARIABLE]
        for row in table.select(keep).to_pylist():
            sha.update(json.dumps(row, sort_keys=True, default=repr).encode())
    return sha.hexdigest()[:16]


def _files(folder: Path) -> list[pa.Table]:
    return [pq.read_table(f) for f in sorted(folder.glob("gen-*.parquet"))]


def run_digests(run_dir: str | Path) -> dict[str, str]:
    run_dir = Path(run_dir)
    best = json.loads((run_dir / "best.json").read_text())
    return {
        "individuals": _table_digest(_files(run_dir / "individuals")),
        "population": _table_digest(_files(run_dir / "population")),
        "generations": _table_digest([pq.read_table(run_dir / "generations.parquet")]),
        "best": hashlib.sha256(json.dumps(best, sort_keys=True).encode()).hexdigest()[:16],
    }
