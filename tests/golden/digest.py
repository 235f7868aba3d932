"""What a golden log pins: a run directory's content minus what may differ (timing, workers).

Digests are per part (individuals/, population/, generations/ or generations.parquet, best.json)
so a failing comparison says which part moved.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
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


_NAME = re.compile(r"^(?:gen-(\d+)\.(parquet|arrows)|part-(\d+)-(\d+)\.parquet)$")


def _files(*folders: Path) -> list[pa.Table]:
    """The tables of each generation in order, whichever file holds it: a compacted part
    (part-G-H.parquet, which wins over the per-generation files it covers), a committed
    generation not yet compacted (recent/gen-G.arrows, a stream from G on), or an old run's gen-G.parquet."""
    spans = {}
    for folder in folders:
        for path in (folder.iterdir() if folder.is_dir() else ()):
            match = _NAME.match(path.name)
            if match:
                gen, _, first, last = match.groups()
                spans[path] = (int(gen), int(gen)) if gen else (int(first), int(last))
    parts = [span for path, span in spans.items() if path.name.startswith("part-")]
    kept = sorted((span, path) for path, span in spans.items()
                  if path.name.startswith("part-") or not any(a <= span[0] <= b for a, b in parts))
    return [_read(path) for _, path in kept]


def _read(path: Path) -> pa.Table:
    if path.suffix == ".arrows":
        with pa.memory_map(str(path)) as source:
            return ipc.open_stream(source).read_all()
    return pq.read_table(path)


def _generations(run_dir: Path) -> list[pa.Table]:
    """The generations' rows in order: generations/part-G-H.parquet (each compaction appends one),
    and a run's generations.parquet written before those parts (rows 0..C, the parts from C+1;
    a row a part also holds is read from the part)."""
    parts = [table for table in _files(run_dir / "generations") if table.num_rows]
    held = {g for table in parts for g in table.column("generation").to_pylist()}
    old = run_dir / "generations.parquet"
    if not old.is_file():
        return parts
    legacy = pq.read_table(old)
    keep = [g not in held for g in legacy.column("generation").to_pylist()]
    return [legacy.filter(pa.array(keep, pa.bool_())), *parts]


def run_digests(run_dir: str | Path) -> dict[str, str]:
    run_dir = Path(run_dir)
    best = json.loads((run_dir / "best.json").read_text())
    return {
        "individuals": _table_digest(_files(run_dir / "individuals", run_dir / "recent")),
        "population": _table_digest(_files(run_dir / "population")),
        "generations": _table_digest(_generations(run_dir)),
        "best": hashlib.sha256(json.dumps(best, sort_keys=True).encode()).hexdigest()[:16],
    }
