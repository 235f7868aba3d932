"""Resume trusts nothing it reads: it checks, then repairs exactly or refuses.

run.json must match its own spec (run id = name, seed, spec fingerprint);
every file of the log (a committed generation, or a part of several) must be
of that run id, with no gap, and carry its record (the state after it, its
summary row; a part: its span, row counts and its last generation's record);
the checkpoint is cross-checked against the files. The log is the record: a
missing, garbled or stale checkpoint is rebuilt from the last generation's
record, a compaction a crash interrupted is finished (files a part holds are
deleted), so nothing completed is ever deleted and nothing missing is left as
a gap (it is recomputed from the seeds). What cannot be explained by a crash —
a gap, a foreign run id, a file without its record, row counts that disagree,
generations.parquet short of the compacted generations — is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from ..evolution.state import CHECKPOINT_KEYS
from ..spec import RunSpec
from .compaction import remove_covered
from .dataset import committed, piece_record, piece_rows, piece_table
from .layout import Piece, Pieces
from .rundir import RunDir, RunDirError

__all__ = ["Recovered", "check_identity", "recover"]


@dataclass
class Recovered:
    """Where a resumed run continues from."""

    generation: int  # the last complete generation; -1 if none
    state: dict[str, Any] | None  # the state after it, as Recorder.restore takes it
    rows: list[dict[str, Any]] = field(default_factory=list)  # generations.parquet rows 0..generation
    notes: list[str] = field(default_factory=list)  # repairs made, one line each


def check_identity(meta: dict[str, Any], spec: RunSpec, run_id: str, source: str) -> None:
    """Refuse a run.json whose run id or seed no longer match its spec (an edit, or another version)."""
    if meta["run_id"] != run_id or meta["seed"] != spec.seed:
        raise RunDirError(
            f"{source}: run_id {meta['run_id']!r} and seed {meta['seed']} do not match the spec it holds "
            f"(seed {spec.seed}, run id {run_id!r}); run.json was edited or written by another version "
            "of evo: refusing to mix two runs")


def recover(rundir: RunDir, run_id: str) -> Recovered:
    """Verify the logs of `run_id` and find the state to resume from (see the module doc)."""
    notes = []
    removed = rundir.clean_temp_files()
    if removed:
        notes.append(f"removed {len(removed)} temp file(s) a crash left mid-write")
    removed_covered = remove_covered(rundir)
    if removed_covered:
        notes.append(f"finished a compaction a crash interrupted: removed {removed_covered} file(s) a part holds")
    pieces = rundir.pieces()
    for stray in rundir.stray_files():
        notes.append(f"ignored {stray}: not a generation file (pandas.read_parquet on the folder would read it)")
    gap = pieces.gap()
    if gap is not None:
        raise RunDirError(f"{rundir.individuals}: generation {gap} is missing but generation {pieces.last} "
                          "is there; refusing to resume over a gap")
    counts = [count for piece in pieces.pieces for count in _verified_counts(piece, run_id)]
    last = pieces.last
    record = _last_record(pieces.pieces[-1]) if pieces.pieces else None
    rows = _rows(rundir, pieces) if pieces.pieces else []
    _cross_check(rundir, run_id, last, counts, notes)
    return Recovered(last, record["state"] if record else None, rows, notes)


def _verified_counts(piece: Piece, run_id: str) -> list[int]:
    """The rows of each generation `piece` holds, once its record is checked against the file."""
    record = piece_record(piece)
    owners = {record.get("run_id")} | (set() if piece.compacted else _run_ids(piece))
    if owners != {run_id}:
        other = sorted(str(o) for o in owners - {run_id})
        raise RunDirError(f"{piece.path}: belongs to run {', '.join(other)}, not {run_id} (run.json); "
                          "refusing to mix two runs")
    if not piece.compacted:
        counts = []
        for i, (generation, rows) in enumerate(committed(piece)):
            if generation.get("generation") != piece.first + i or generation.get("rows") != rows:
                raise RunDirError(f"{piece.path}: its record names generation {generation.get('generation')} with "
                                  f"{generation.get('rows')} rows, the file holds generation {piece.first + i} "
                                  f"with {rows}")
            counts.append(rows)
        return counts
    rows, counts = piece_rows(piece), record.get("rows")
    if (record.get("first"), record.get("last")) != (piece.first, piece.last) or not isinstance(counts, list) \
            or len(counts) != piece.last - piece.first + 1 or sum(counts) != rows:
        raise RunDirError(f"{piece.path}: its record does not describe the file (generations "
                          f"{record.get('first')}-{record.get('last')}, {rows} rows)")
    return counts


def _run_ids(piece: Piece) -> set[str]:
    try:
        return set(piece_table(piece, ["run_id"]).column("run_id").unique().to_pylist())
    except (OSError, pa.ArrowException, KeyError) as exc:
        raise RunDirError(f"{piece.path}: not a readable individuals file ({str(exc).splitlines()[0]})") from None


def _last_record(piece: Piece) -> dict[str, Any]:
    record = piece_record(piece)
    record = record.get("record") if piece.compacted else record
    state = record.get("state") if isinstance(record, dict) else None
    if not isinstance(state, dict) or any(k not in state for k in CHECKPOINT_KEYS) \
            or not isinstance(record.get("summary"), dict) or state["generation"] != piece.last:
        raise RunDirError(f"{piece.path}: its evo record is incomplete; cannot resume from it")
    return record


def _rows(rundir: RunDir, pieces: Pieces) -> list[dict[str, Any]]:
    """generations.parquet's rows 0..last: compacted generations' from the file (written before
    their parts), the others' from their records."""
    rows = rundir.read_generations()
    if [int(row["generation"]) for row in rows] != list(range(len(rows))) or len(rows) != pieces.last + 1:
        compacted = max((p.last for p in pieces.pieces if p.compacted), default=-1)
        raise RunDirError(f"{rundir.generations_file}: holds {len(rows)} rows in order, the log "
                          f"{pieces.last + 1} generations ({compacted + 1} compacted, whose rows only it "
                          "holds); cannot resume without them")
    return rows


def _cross_check(rundir: RunDir, run_id: str, last: int, counts: list[int], notes: list[str]) -> None:
    """Compare checkpoint.json with the verified files: refuse a foreign one, note a rebuilt one.
    It is written now and then, so one behind the log is no crash's mark."""
    name = rundir.checkpoint_file
    try:
        checkpoint = rundir.read_checkpoint()
    except RunDirError as exc:
        notes.append(f"{exc}: rebuilt from the log")
        return
    if checkpoint is None or not isinstance(checkpoint, dict) or not checkpoint:
        if last >= 0:
            what = "missing" if checkpoint is None else "empty or not an object"
            notes.append(f"{name}: {what}; rebuilt from generation {last}'s record")
        return
    if checkpoint.get("run_id", run_id) != run_id:
        raise RunDirError(f"{name}: belongs to run {checkpoint['run_id']}, not {run_id} (run.json); "
                          "refusing to mix two runs")
    generation = checkpoint.get("generation")
    if not isinstance(generation, int) or isinstance(generation, bool):
        notes.append(f"{name}: no valid generation; rebuilt from the log")
        return
    logged = checkpoint.get("rows_logged")
    old = checkpoint.get("rows_per_generation")  # written by evo before compaction
    if isinstance(old, list):
        for g, count in enumerate(old[: last + 1]):
            if count is not None and count != counts[g]:
                raise RunDirError(f"{name}: records {count} rows for generation {g}, but the log has "
                                  f"{counts[g]}; refusing to resume")
    elif isinstance(logged, int) and generation <= last and logged != sum(counts[: generation + 1]):
        raise RunDirError(f"{name}: records {logged} rows up to generation {generation}, but the log has "
                          f"{sum(counts[: generation + 1])}; refusing to resume")
    if generation > last:
        lost = f"generation {last + 1}" if generation == last + 1 else f"generations {last + 1}-{generation}"
        notes.append(f"{name}: names generation {generation}, but the log ends at {last}: "
                     f"{lost} recomputed from the seeds")
