"""Resume trusts nothing it reads: it checks, then repairs exactly or refuses.

run.json must match its own spec (run id = name, seed, spec fingerprint);
every individuals file must be a generation of that run id, with no gap, and
carry its record (the state after it, its summary row); the checkpoint is
cross-checked against the files. The individuals files are the log of
record: a missing, garbled or stale checkpoint is rebuilt from the last of
them, and the derived files are rewritten from it, so nothing completed is
ever deleted and nothing missing is left as a gap (it is recomputed from the
seeds). What cannot be explained by a crash — a gap, a foreign run id, a
file without its record, row counts that disagree — is refused in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow.parquet as pq

from ..evolution.state import CHECKPOINT_KEYS
from ..spec import RunSpec
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
    files = rundir.generation_files()
    for stray in rundir.stray_files():
        notes.append(f"ignored {stray}: not a generation file (pandas.read_parquet on the folder would read it)")
    gap = next((g for g in range(len(files)) if g not in files), None)
    if gap is not None:
        raise RunDirError(f"{rundir.individuals}: generation {gap} is missing but generation {max(files)} "
                          "is there; refusing to resume over a gap")
    records = [_verified_record(rundir, g, run_id) for g in files]
    lost = [g for g, r in enumerate(records) if not rundir.population_file(g).exists()]
    for g in lost:
        state = records[g]["state"]
        rundir.write_population(g, list(state["population"]), state.get("population_rank"), state.get("islands"))
    if lost:
        notes.append(f"rewrote {len(lost)} population file(s) from the individuals files' records")
    last = len(records) - 1
    _cross_check(rundir, run_id, last, notes)
    return Recovered(last, records[-1]["state"] if records else None, [r["summary"] for r in records], notes)


def _verified_record(rundir: RunDir, generation: int, run_id: str) -> dict[str, Any]:
    path = rundir.generation_file(generation)
    record = rundir.read_record(generation)
    owners = rundir.read_run_ids(generation) | {record.get("run_id")}
    if owners != {run_id}:
        other = sorted(str(o) for o in owners - {run_id})
        raise RunDirError(f"{path}: belongs to run {', '.join(other)}, not {run_id} (run.json); "
                          "refusing to mix two runs")
    rows = pq.read_metadata(path).num_rows
    if record.get("generation") != generation or record.get("rows") != rows:
        raise RunDirError(f"{path}: its record names generation {record.get('generation')} with "
                          f"{record.get('rows')} rows, the file is generation {generation} with {rows}")
    state = record.get("state")
    if not isinstance(state, dict) or any(k not in state for k in CHECKPOINT_KEYS) \
            or not isinstance(record.get("summary"), dict) or state["generation"] != generation:
        raise RunDirError(f"{path}: its evo record is incomplete; cannot resume from it")
    rundir.row_counts[generation] = rows
    return record


def _cross_check(rundir: RunDir, run_id: str, last: int, notes: list[str]) -> None:
    """Compare checkpoint.json with the verified files: refuse a foreign one, note a rebuilt one."""
    name = rundir.checkpoint_file
    try:
        checkpoint = rundir.read_checkpoint()
    except RunDirError as exc:
        notes.append(f"{exc}: rebuilt from the individuals files")
        return
    if checkpoint is None or not isinstance(checkpoint, dict) or not checkpoint:
        if last >= 0:
            what = "missing" if checkpoint is None else "empty or not an object"
            notes.append(f"{name}: {what}; rebuilt from {rundir.generation_file(last)}")
        return
    if checkpoint.get("run_id", run_id) != run_id:
        raise RunDirError(f"{name}: belongs to run {checkpoint['run_id']}, not {run_id} (run.json); "
                          "refusing to mix two runs")
    counts = checkpoint.get("rows_per_generation")
    if isinstance(counts, list):
        for g, count in enumerate(counts[: last + 1]):
            if count is not None and count != rundir.row_counts[g]:
                raise RunDirError(f"{name}: records {count} rows for generation {g}, but "
                                  f"{rundir.generation_file(g)} has {rundir.row_counts[g]}; refusing to resume")
    generation = checkpoint.get("generation")
    if not isinstance(generation, int) or isinstance(generation, bool):
        notes.append(f"{name}: no valid generation; rebuilt from the individuals files")
    elif generation > last:
        lost = f"generation {last + 1}" if generation == last + 1 else f"generations {last + 1}-{generation}"
        notes.append(f"{name}: names generation {generation}, but the log ends at {last}: "
                     f"{lost} recomputed from the seeds")
    elif generation < last - 1:  # a crash leaves it at most one generation behind
        notes.append(f"{name}: names generation {generation}, behind the verified log ({last}); rebuilt")
