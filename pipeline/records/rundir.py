"""The run directory: every file written atomically, generation g exactly once.

Layout (see DESIGN.md and `layout.py`): run.json, recent/gen-GGGGGG.arrows (each
generation as committed), individuals/, population/ and generations/part-*.parquet
(generations compacted, `compaction.py`; an older run's generations.parquet),
checkpoint.json, best.json, report/, run.lock.

A generation's batch in recent/ is its commit point: its metadata carries the state
after g (population and hall-of-fame ids, ranks, counters) and g's generations row,
so it is published the moment it is whole in the file, and a crash at any instant
leaves a consistent prefix. generations/ holds the rows of compacted generations
(`generations.py`); checkpoint.json and best.json are written now and then and
at close, and resume rebuilds them from the last record (see `verify.py`).

Readers open each file once (`reading.py`) and see only whole generations.
"""

from __future__ import annotations

import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from fitness.atomic import atomic_write_bytes

from .compaction import population_table
from .dataset import RECORD_KEY, empty_table, piece_record, piece_records, piece_table, retrying, stream_batches
from .files import TEMP_FILE, Stream, _naming, describe_os_error  # noqa: F401 (describe_os_error: re-exported)
from .generations import generation_rows, write_part
from .layout import Pieces, is_generation_file, scan
from .lock import LOCK_NAME, RunLock
from .reading import RunDirError, read_json

__all__ = ["RunDir", "RunDirError", "atomic_write_bytes", "atomic_write_json", "describe_os_error", "file_metadata",
           "package_versions", "read_json"]



def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def atomic_write_json(path: Path, payload: Any) -> None:
    with _naming(path):
        atomic_write_bytes(path, (json.dumps(payload, indent=2, default=_jsonable) + "\n").encode())


def package_versions() -> dict[str, str]:
    """Python and the packages a run's results depend on (recorded in run.json and every Parquet file)."""
    out = {"python": platform.python_version()}
    for package in ("evo-pipeline", "numpy", "deap", "ray", "pandas", "pyarrow", "pydantic"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return out


def file_metadata(identity: dict[str, Any], versions: dict[str, str]) -> dict[bytes, bytes]:
    """Key-value metadata every Parquet file of a run carries, so a file read on its own
    still says which run wrote it, from which spec (fingerprint) and with which versions."""
    fields = {"run_id": identity.get("run_id"), "spec_hash": identity.get("fingerprint"),
              "seed": identity.get("seed"), "versions": versions}
    return {f"evo.{key}".encode(): (value if isinstance(value, str) else json.dumps(value)).encode()
            for key, value in fields.items() if value is not None}


class RunDir:
    """Reads and writes one run's directory."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.individuals = self.path / "individuals"
        self.population_dir = self.path / "population"
        self.recent = self.path / "recent"
        self.run_json = self.path / "run.json"
        self.generations_file = self.path / "generations.parquet"  # runs written before generations/
        self.generations_dir = self.path / "generations"
        self.checkpoint_file = self.path / "checkpoint.json"
        self.best_file = self.path / "best.json"
        self.report_dir = self.path / "report"
        self.lock_file = self.path / LOCK_NAME
        self.identity: dict[str, Any] = {}  # run_id, seed, fingerprint: recorded in the checkpoint
        self.versions: dict[str, str] = {}  # package versions, in every Parquet file's metadata
        self._stream: Stream | None = None  # recent/'s stream the writer appends to

    @property
    def file_metadata(self) -> dict[bytes, bytes]:
        return file_metadata(self.identity, self.versions)

    # -- the writer's lock --------------------------------------------------
    def lock(self) -> RunLock:
        """The exclusive writer lock (`with rundir.lock(): ...`); see `lock.py`."""
        return _CheckedLock(self)

    def check_writable(self) -> None:
        """Fail now, in one line, if files cannot be created here (before Ray starts)."""
        for folder in (self.path, self.individuals, self.population_dir, self.recent, self.generations_dir):
            if folder.is_dir():
                probe = folder / f".probe-{os.getpid()}.tmp"
                with _naming(folder):
                    probe.write_bytes(b"probe")
                    probe.unlink()

    def remove_if_empty(self) -> None:
        """Remove the lock file and the directory when nothing else is in it."""
        self.lock_file.unlink(missing_ok=True)
        for folder in (self.individuals, self.population_dir, self.recent, self.generations_dir, self.path):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()

    def has_run(self) -> bool:
        """True if anything of a run is here (an empty individuals/ or a lock file is not)."""
        return self.run_json.exists() or self.checkpoint_file.exists() or bool(self.pieces().pieces)

    def clear(self) -> None:
        """Remove a previous run's files (for `--force`, under the lock); leaves other files alone."""
        for file in (self.run_json, self.generations_file, self.checkpoint_file, self.best_file):
            file.unlink(missing_ok=True)
        for folder in (self.individuals, self.population_dir, self.recent, self.generations_dir, self.report_dir):
            if folder.exists():
                for file in folder.iterdir():
                    file.unlink()
        self.clean_temp_files()

    def clean_temp_files(self) -> list[Path]:
        """Delete temp files a crash left mid-write (only the writer, under the lock, calls this)."""
        removed = []
        for folder in (self.path, self.individuals, self.population_dir, self.recent, self.generations_dir):
            if folder.is_dir():
                for file in folder.iterdir():
                    if TEMP_FILE.match(file.name) and file.is_file():
                        file.unlink()
                        removed.append(file)
        return removed

    # -- run.json -----------------------------------------------------------
    def write_run(self, payload: dict[str, Any]) -> None:
        atomic_write_json(self.run_json, payload)

    def read_run(self) -> dict[str, Any]:
        """run.json, checked to hold what resume and report need (one-line errors otherwise)."""
        if not self.path.is_dir():
            raise FileNotFoundError(f"{self.path}: no such run directory")
        if not self.run_json.exists():
            runs = [] if self.has_run() else self.runs_inside()
            if runs:
                listed = ", ".join(map(str, runs[:4])) + (", …" if len(runs) > 4 else "")
                raise FileNotFoundError(f"{self.path} is a folder of runs, not a run directory: did you mean "
                                        f"{runs[0]}? ({len(runs)} run{'s' if len(runs) > 1 else ''} in it, the "
                                        f"latest first: {listed})")
            what = "holds no run yet" if not self.has_run() else "has lost its run.json"
            raise FileNotFoundError(f"{self.path} is not a run directory (no run.json): it {what}")
        payload = read_json(self.run_json)
        if not isinstance(payload, dict):
            raise RunDirError(f"{self.run_json}: expected a JSON object, found {type(payload).__name__}")
        for key, kind in (("spec", dict), ("run_id", str), ("seed", int)):
            if not isinstance(payload.get(key), kind) or isinstance(payload.get(key), bool):
                raise RunDirError(f"{self.run_json}: no valid {key!r} entry; not a run.json written by evo run")
        return payload

    def runs_inside(self) -> list[Path]:
        """The run directories in this folder (`runs/`), the latest written first."""
        try:
            found = [(entry.stat().st_mtime, entry.parent) for entry in self.path.glob("*/run.json")]
        except OSError:
            return []
        return [folder for _, folder in sorted(found, key=lambda pair: (-pair[0], str(pair[1])))]

    def update_run(self, **changes: Any) -> None:
        payload = self.read_run()
        payload.update(changes)
        self.write_run(payload)

    # -- per generation -----------------------------------------------------
    def pieces(self) -> Pieces:
        """The files holding each generation's individuals (see `layout.py`)."""
        return scan(self.individuals, self.recent).resolved(lambda piece: len(stream_batches(piece.path)))

    def generation_files(self) -> dict[int, Path]:
        """Generation number -> the file holding its individuals (a part holds many)."""
        return self.pieces().by_generation()

    def last_generation(self) -> int:
        """The last generation committed (-1: none)."""
        return self.pieces().last

    def stray_files(self) -> list[Path]:
        """Files in individuals/ or recent/ that are neither generations nor temp files (left alone)."""
        found = []
        for folder in (self.individuals, self.recent):
            if folder.is_dir():
                found += [f for f in folder.iterdir() if not is_generation_file(f.name) and not TEMP_FILE.match(f.name)]
        return sorted(found)

    def write_individuals(self, generation: int, table: pa.Table, record: dict[str, Any],
                          flush: bool = True) -> dict[str, Any]:
        """Commit generation g: its individuals appended to recent/'s stream as one batch, with
        `record` (state, summary row) in the batch's metadata; returns the record as written. A new
        stream starts at g when none is open or g's columns differ from the stream's. Without
        `flush` the batch may wait in the stream's buffer for `flush_stream` (the writer's next
        generations: until then a reader or a kill sees the generations before it)."""
        record = {"run_id": self.identity.get("run_id"), "generation": generation, "rows": table.num_rows,
                  **record}
        schema = table.schema.remove_metadata()
        if self._stream is not None and not self._stream.schema.equals(schema):
            self.close_stream()
        if self._stream is None:
            self._stream = Stream(self.recent / f"gen-{generation:06d}.arrows", schema, self.file_metadata)
        batches = table.to_batches()  # one when each column is one array (Schema.table)
        batch = batches[0] if len(batches) == 1 else pa.record_batch(
            [column.combine_chunks() for column in table.columns], schema=schema)
        self._stream.append(batch, {RECORD_KEY: json.dumps(record, default=_jsonable).encode()}, flush=flush)
        return record

    def flush_stream(self) -> None:
        """What `write_individuals` appended without `flush`, in the file."""
        if self._stream is not None:
            self._stream.flush()

    def sync_stream(self) -> None:
        """recent/'s stream on the disk (fsync): a kill loses nothing appended, a power cut what
        came after the last sync (a whole prefix of generations is kept either way)."""
        if self._stream is not None:
            self._stream.sync()

    def close_stream(self) -> None:
        if self._stream is not None:
            self._stream, stream = None, self._stream
            stream.close()

    def read_record(self, generation: int) -> dict[str, Any]:
        """The record of generation g (the state after it, its row): a committed file's, or a
        part's last generation's (`RunDirError` for another generation of a part)."""
        piece = next((p for p in self.pieces().pieces if p.covers(generation)), None)
        if piece is None:
            raise RunDirError(f"{self.path}: no generation {generation} in the log")
        record = piece_record(piece)
        if not piece.compacted:
            return record
        if piece.last != generation or not isinstance(record.get("record"), dict):
            raise RunDirError(f"{piece.path}: holds generation {generation} compacted; its record is "
                              "in generations.parquet and population/")
        return record["record"]

    def write_generations(self, first: int, rows: list[dict[str, Any]], keys: list[str]) -> None:
        """generations/'s part of generations first.. (`rows`), columns `keys` (`generations.py`)."""
        with _naming(self.generations_dir):
            write_part(self.generations_dir, first, rows, keys, self.file_metadata)

    def read_generations(self, columns: list[str] | None = None) -> list[dict[str, Any]]:
        """One row per published generation (only `columns` if given): from generations/'s
        parts, an older run's generations.parquet, then the records of generations committed since."""
        def read(pieces: Pieces) -> list[dict[str, Any]]:
            return generation_rows(self.generations_dir, self.generations_file, pieces,
                                   lambda piece: [r["summary"] for r in piece_records(piece)], columns)
        return retrying(self.pieces, read)

    def published(self) -> range:
        """The generations a reader may see: 0 to the last committed one, all there (a file appears
        whole, by a rename, with its record: the state after it and its row)."""
        pieces = self.pieces()
        gap = pieces.gap()
        return range(pieces.last + 1 if gap is None else gap)

    def write_checkpoint(self, state: dict[str, Any], rows: int) -> None:
        """The state after the last generation, with what it depends on (identity, rows logged)."""
        atomic_write_json(self.checkpoint_file, {**self.identity, **state, "rows_logged": rows})

    def read_checkpoint(self) -> dict[str, Any] | None:
        if not self.checkpoint_file.exists():
            return None
        return read_json(self.checkpoint_file)

    def write_best(self, payload: dict[str, Any]) -> None:
        # Compact: indented JSON takes the slow pure-Python encoder (16 ms for ten 3,619-bit
        # genomes, holding the GIL the evolution loop needs).
        atomic_write_bytes(self.best_file, (json.dumps(payload) + "\n").encode())

    def read_best(self) -> dict[str, Any]:
        if not self.best_file.exists():
            raise FileNotFoundError(f"{self.best_file}: no hall of fame yet")
        payload = read_json(self.best_file)
        if not isinstance(payload, dict) or not payload.get("hall_of_fame"):
            raise RunDirError(f"{self.best_file}: no hall of fame in it")
        return payload

    def read_individuals(self, generations: range | None = None, columns: list[str] | None = None,
                         ids: Sequence[int] | None = None) -> pd.DataFrame:
        """The individuals of `generations` (all: None) with an id in `ids` (None: any), only
        `columns` if given (those a file has: files written before `viable` and `error` existed
        lack them, and such a row is viable). Reads only the files and row groups that hold them."""
        wanted = None if ids is None else sorted(set(ids))

        def read(pieces: Pieces) -> list[pa.Table | None]:
            held = [piece_table(p, columns, generations, wanted) for p in pieces.holding(generations)]
            return held or [empty_table(p, columns) for p in pieces.pieces[:1]]  # none: the columns alone
        tables = [t for t in retrying(self.pieces, read) if t is not None and (t.num_rows or t.num_columns)]
        if not tables:  # nothing logged yet (or none of `columns` in the log): no column to claim
            return pd.DataFrame()
        frame = pd.concat([t.to_pandas() for t in tables], ignore_index=True)
        if "viable" in frame and frame["viable"].isna().any():  # an old run that failed after a resume
            frame["viable"] = frame["viable"].astype(object).where(frame["viable"].notna(), True).astype(bool)
        return frame

    def read_memberships(self, generations: range) -> pd.DataFrame:
        """(generation, id, rank[, island]) of `generations`: population/ parts for compacted
        generations, the records of the others."""
        def read(pieces: Pieces) -> list[pd.DataFrame]:
            spans = {(p.first, p.last) for p in pieces.pieces if p.compacted}
            parts = [p for p in scan(self.population_dir).pieces if p.compacted and (p.first, p.last) in spans]
            frames = [piece_table(p, None, generations).to_pandas() for p in parts
                      if p.last >= generations.start and p.first < generations.stop]
            for piece in pieces.holding(generations):
                if not piece.compacted:
                    records = [r for r in piece_records(piece) if r["generation"] in generations]
                    frames.append(population_table(self.identity.get("run_id"), records).to_pandas())
            return frames
        frames = [f for f in retrying(self.pieces, read) if not f.empty]
        if not frames:
            return pd.DataFrame()
        frame = pd.concat(frames, ignore_index=True)
        return frame[(frame["generation"] >= generations.start) & (frame["generation"] < generations.stop)]


class _CheckedLock(RunLock):
    """The writer lock of a RunDir: a refused or failed acquisition is one line naming the path."""

    def __init__(self, rundir: RunDir) -> None:
        super().__init__(rundir.path)
        self._rundir = rundir

    def acquire(self) -> RunLock:
        with _naming(self.path):
            super().acquire()
        try:
            self._rundir.check_writable()
        except BaseException:
            self.release()
            raise
        return self
