"""The run directory: every file written atomically, generation g exactly once.

Layout (see DESIGN.md): run.json, individuals/gen-XXXXXX.parquet,
population/gen-XXXXXX.parquet, generations.parquet, checkpoint.json,
best.json, report/, run.lock.

The individuals file of generation g is its commit point: its Parquet
metadata carries the state after g (population and hall-of-fame ids,
counters) and g's row of generations.parquet. Everything written after it
(population/, generations.parquet, checkpoint.json, best.json) is derived, so a crash
between two renames leaves a consistent prefix and resume rewrites the
derived files from the last individuals file (see `verify.py`).
Only exact `gen-NNNNNN.parquet` names are generations; other files are ignored.

Readers open each file once (`reading.py`) and see only published generations
(`published`): a live run is read as whole files of whole generations.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
from importlib import metadata
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from fitness.atomic import atomic_write_bytes

from .lock import LOCK_NAME, RunLock
from .reading import RunDirError, read_json, read_parquet, read_parquet_metadata, read_parquet_schema

__all__ = ["RunDir", "RunDirError", "atomic_write_bytes", "atomic_write_json", "describe_os_error", "file_metadata",
           "package_versions", "read_json"]

GENERATION_FILE = re.compile(r"^gen-(\d{6})\.parquet$")
RECORD_KEY = b"evo"  # the generation's record in its individuals file's Parquet metadata
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


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def atomic_write_json(path: Path, payload: Any) -> None:
    with _naming(path):
        atomic_write_bytes(path, (json.dumps(payload, indent=2, default=_jsonable) + "\n").encode())


def _table_bytes(table: pa.Table, metadata: dict[bytes, bytes] | None = None) -> bytes:
    if metadata:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


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
        self.run_json = self.path / "run.json"
        self.generations_file = self.path / "generations.parquet"
        self.checkpoint_file = self.path / "checkpoint.json"
        self.best_file = self.path / "best.json"
        self.report_dir = self.path / "report"
        self.lock_file = self.path / LOCK_NAME
        self.identity: dict[str, Any] = {}  # run_id, seed, fingerprint: recorded in the checkpoint
        self.row_counts: dict[int, int] = {}  # rows of each generation's individuals file
        self.versions: dict[str, str] = {}  # package versions, in every Parquet file's metadata

    @property
    def file_metadata(self) -> dict[bytes, bytes]:
        return file_metadata(self.identity, self.versions)

    # -- the writer's lock --------------------------------------------------
    def lock(self) -> RunLock:
        """The exclusive writer lock (`with rundir.lock(): ...`); see `lock.py`."""
        return _CheckedLock(self)

    def check_writable(self) -> None:
        """Fail now, in one line, if files cannot be created here (before Ray starts)."""
        for folder in (self.path, self.individuals, self.population_dir):
            if folder.is_dir():
                probe = folder / f".probe-{os.getpid()}.tmp"
                with _naming(folder):
                    probe.write_bytes(b"probe")
                    probe.unlink()

    def remove_if_empty(self) -> None:
        """Remove the lock file and the directory when nothing else is in it."""
        self.lock_file.unlink(missing_ok=True)
        for folder in (self.individuals, self.population_dir, self.path):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()

    def has_run(self) -> bool:
        """True if anything of a run is here (an empty individuals/ or a lock file is not)."""
        return self.run_json.exists() or self.checkpoint_file.exists() or bool(self.generation_files())

    def clear(self) -> None:
        """Remove a previous run's files (for `--force`, under the lock); leaves other files alone."""
        for file in (self.run_json, self.generations_file, self.checkpoint_file, self.best_file):
            file.unlink(missing_ok=True)
        for folder in (self.individuals, self.population_dir, self.report_dir):
            if folder.exists():
                for file in folder.iterdir():
                    file.unlink()
        self.clean_temp_files()
        self.row_counts = {}

    def clean_temp_files(self) -> list[Path]:
        """Delete temp files a crash left mid-write (only the writer, under the lock, calls this)."""
        removed = []
        for folder in (self.path, self.individuals, self.population_dir):
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
    def generation_file(self, generation: int) -> Path:
        return self.individuals / f"gen-{generation:06d}.parquet"

    def generation_files(self) -> dict[int, Path]:
        """Generation number -> individuals file, for exact `gen-NNNNNN.parquet` names only."""
        if not self.individuals.is_dir():
            return {}
        found = {}
        for file in self.individuals.iterdir():
            match = GENERATION_FILE.match(file.name)
            if match:
                found[int(match.group(1))] = file
        return dict(sorted(found.items()))

    def stray_files(self) -> list[Path]:
        """Files in individuals/ that are neither generations nor temp files (ignored, left alone)."""
        if not self.individuals.is_dir():
            return []
        return sorted(f for f in self.individuals.iterdir()
                      if not GENERATION_FILE.match(f.name) and not TEMP_FILE.match(f.name))

    def write_individuals(self, generation: int, table: pa.Table, record: dict[str, Any]) -> None:
        """Commit generation g: its individuals, with `record` (state, summary row) in the metadata."""
        record = {"run_id": self.identity.get("run_id"), "generation": generation, "rows": table.num_rows,
                  **record}
        metadata = dict(table.schema.metadata or {})
        metadata[RECORD_KEY] = json.dumps(record, default=_jsonable).encode()
        path = self.generation_file(generation)
        with _naming(path):
            atomic_write_bytes(path, _table_bytes(table.replace_schema_metadata(metadata), self.file_metadata))
        self.row_counts[generation] = table.num_rows

    def population_file(self, generation: int) -> Path:
        return self.population_dir / f"gen-{generation:06d}.parquet"

    def write_population(self, generation: int, ids: list[int], ranks: list[int] | None = None,
                         islands: list[int] | None = None) -> None:
        """Who is alive after generation g, and each one's rank (0 = best; see Schema.ranks);
        with `islands` (each island's size, ids island by island), each one's island.

        Derived: the individuals file's record names the same ids, so a file
        lost to a crash is rewritten on resume."""
        columns = {
            "run_id": pa.array([self.identity.get("run_id")] * len(ids), pa.string()),
            "generation": pa.array([generation] * len(ids), pa.int64()),
            "id": pa.array(ids, pa.int64()),
            "rank": pa.array(range(len(ids)) if ranks is None else ranks, pa.int64()),
        }
        if islands:
            columns["island"] = pa.array([i for i, size in enumerate(islands) for _ in range(size)], pa.int64())
        table = pa.table(columns)
        path = self.population_file(generation)
        with _naming(path):
            atomic_write_bytes(path, _table_bytes(table, self.file_metadata))

    def read_record(self, generation: int) -> dict[str, Any]:
        """The record a generation's individuals file carries (`RunDirError` if unreadable)."""
        path = self.generation_file(generation)
        try:
            metadata = read_parquet_metadata(path).metadata or {}
            record = json.loads(metadata[RECORD_KEY])
        except KeyError:
            raise RunDirError(f"{path}: no evo record in its metadata (written by an older evo, or not "
                              "by evo); cannot verify it") from None
        except (OSError, pa.ArrowException, ValueError) as exc:
            raise RunDirError(f"{path}: not a readable individuals file ({str(exc).splitlines()[0]})") from None
        if not isinstance(record, dict):
            raise RunDirError(f"{path}: its evo record is not a JSON object")
        return record

    def read_run_ids(self, generation: int) -> set[str]:
        path = self.generation_file(generation)
        try:
            column = read_parquet(path, columns=["run_id"]).column("run_id")
        except (OSError, pa.ArrowException, KeyError) as exc:
            raise RunDirError(f"{path}: not a readable individuals file ({str(exc).splitlines()[0]})") from None
        return set(column.unique().to_pylist())

    def write_generations(self, rows: list[dict[str, Any]]) -> None:
        with _naming(self.generations_file):
            atomic_write_bytes(self.generations_file, _table_bytes(pa.Table.from_pylist(rows), self.file_metadata))

    def read_generations(self, columns: list[str] | None = None) -> list[dict[str, Any]]:
        """generations.parquet's rows (only `columns` if given); none before generation 0 is published."""
        try:
            return read_parquet(self.generations_file, columns).to_pylist()
        except FileNotFoundError:
            return []
        except (pa.ArrowException, OSError) as exc:
            raise RunDirError(f"{self.generations_file}: unreadable ({str(exc).splitlines()[0]})") from None

    def published(self) -> range:
        """The generations a reader may see: 0 to generations.parquet's last row. A generation's
        individuals and population files are written before its row, so none of these is missing
        or being written; checkpoint.json and best.json follow the row (see `write_derived`)."""
        rows = self.read_generations(columns=["generation"])
        return range(max((int(row["generation"]) for row in rows), default=-1) + 1)

    def write_checkpoint(self, state: dict[str, Any]) -> None:
        """The state after the last generation, with what it depends on (identity, row counts)."""
        last = int(state["generation"])
        payload = {**self.identity, **state,
                   "rows_per_generation": [self.row_counts.get(g) for g in range(last + 1)]}
        atomic_write_json(self.checkpoint_file, payload)

    def read_checkpoint(self) -> dict[str, Any] | None:
        if not self.checkpoint_file.exists():
            return None
        return read_json(self.checkpoint_file)

    def write_best(self, payload: dict[str, Any]) -> None:
        # Compact: written every generation, and indented JSON takes the slow pure-Python
        # encoder (16 ms for ten 3,619-bit genomes, holding the GIL the evolution loop needs).
        atomic_write_bytes(self.best_file, (json.dumps(payload) + "\n").encode())

    def read_best(self) -> dict[str, Any]:
        if not self.best_file.exists():
            raise FileNotFoundError(f"{self.best_file}: no hall of fame yet")
        payload = read_json(self.best_file)
        if not isinstance(payload, dict) or not payload.get("hall_of_fame"):
            raise RunDirError(f"{self.best_file}: no hall of fame in it")
        return payload

    def write_derived(self, rows: list[dict[str, Any]], state: dict[str, Any], best: dict[str, Any]) -> None:
        """Everything derived from the individuals files, in order: population, table, checkpoint, best."""
        self.write_population(int(state["generation"]), list(state["population"]), state.get("population_rank"),
                              state.get("islands"))
        self.write_generations(rows)
        self.write_checkpoint(state)
        self.write_best(best)

    def read_individuals(self, generations: range | None = None, columns: list[str] | None = None) -> pd.DataFrame:
        """The individuals of `generations` (all: None), only `columns` if given (those a file has:
        files written before `viable` and `error` existed lack them, and such a row is viable)."""
        files = [f for g, f in self.generation_files().items() if generations is None or g in generations]
        if not files:
            return pd.DataFrame()
        frame = pd.concat([read_parquet(f, _present(f, columns)).to_pandas() for f in files], ignore_index=True)
        if "viable" in frame and frame["viable"].isna().any():  # an old run that failed after a resume
            frame["viable"] = frame["viable"].astype(object).where(frame["viable"].notna(), True).astype(bool)
        return frame


def _present(path: Path, columns: list[str] | None) -> list[str] | None:
    """Those of `columns` (all: None) that a generation's file has: files written before a
    column existed lack it (a generation file is written once, so two opens see one version)."""
    if columns is None:
        return None
    present = set(read_parquet_schema(path).names)
    return [name for name in columns if name in present]


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
