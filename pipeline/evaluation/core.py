"""What every evaluator shares: the result type, the error, seeds and chunking.

Kept free of Ray so the in-process back end (tests, debugging) never imports it.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .deadline import EvaluationTimeout
from .seeds import spawned_seeds

__all__ = ["ERROR", "Evaluated", "Evaluator", "EvaluationError", "evaluation_seeds", "narrowed"]

Columns = dict[str, np.ndarray]

# The column a scored chunk gains when some of its genomes failed: per genome, None or the
# one line of what its `evaluate` raised (a reserved name: the log has a column of that name).
ERROR = "error"


class EvaluationError(RuntimeError):
    """A batch could not be scored: a task raised, or a chunk failed too often."""


@dataclass
class Evaluated:
    """A scored batch, in the order the genomes were given."""

    columns: Columns  # the task's columns, one entry per genome
    eval_seconds: np.ndarray  # per genome: its chunk's compute time shared equally
    worker: list[str]  # who scored each genome: "local" or "actor-3@10.0.0.2/1a2b3c4d"
    failures: int  # actor failures recovered during this call


class Evaluator(ABC):
    """Scores batches of plain-data genomes; `close()` (or `with`) frees its workers.

    Blocking (`evaluate`) or in flight: `submit` returns a ticket at once and
    `wait` gives the results of finished tickets, so an asynchronous algorithm
    keeps every worker busy. `task_spec` scores with another task than the
    run's (the final verdict's larger sample), built once where it runs.
    """

    workers: int

    @abstractmethod
    def submit(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None,
               chunk_size: int | None = None) -> int:
        """Start scoring `genomes[i]` with randomness drawn only from `seeds[i]`; returns a ticket.
        `chunk_size`: genomes per worker call, when the caller sized its batches itself (the
        asynchronous loop: one call per batch); None: the evaluator's own choice."""

    @abstractmethod
    def wait(self, tickets: Sequence[int], every: bool = False, timeout: float | None = None) -> dict[int, Evaluated]:
        """Results of finished tickets among `tickets`: at least one (all of them with `every`),
        unless `timeout` seconds pass first. Each result is handed out once."""

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int], task_spec: dict | None = None) -> Evaluated:
        """Score a batch and wait for it."""
        ticket = self.submit(genomes, seeds, task_spec)
        return self.wait([ticket], every=True)[ticket]

    @abstractmethod
    def close(self) -> None:
        """Release workers (idempotent)."""

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def check_batch(genomes: Sequence[Any], seeds: Sequence[int]) -> None:
    if len(genomes) != len(seeds):
        raise ValueError(f"{len(genomes)} genomes but {len(seeds)} seeds")


class TaskCache:
    """The run's task, and any other task asked for by spec, each built once (here or on an actor)."""

    def __init__(self, task_spec: dict, build: Any) -> None:
        self._build = build
        self.task = build(task_spec)
        self._others: dict[str, Any] = {}

    def get(self, task_spec: dict | None) -> Any:
        if task_spec is None:
            return self.task
        key = json.dumps(task_spec, sort_keys=True)
        if key not in self._others:
            self._others[key] = self._build(task_spec)
        return self._others[key]


def evaluation_seeds(run_seed: int, generation: int, n: int) -> list[int]:
    """63-bit seeds for individuals 0..n-1 of a generation.

    Seed i depends only on (run_seed, generation, i), so it never depends on
    which worker or chunk scores individual i, nor on the population size.
    """
    if run_seed < 0 or generation < 0 or n < 0:
        raise ValueError(f"run_seed, generation and n must be >= 0, got {run_seed}, {generation}, {n}")
    return spawned_seeds(run_seed, (generation,), n)  # SeedSequence(run_seed, spawn_key=(generation,)).spawn(n)


# The automatic chunk size is one chunk per worker, but never more genomes
# than this: an actor holds its chunk's decoded genomes (a Nim table genome
# tabulated on the 5-row board is ~0.14 MB), so memory stays bounded whatever
# the population, while a chunk stays long enough (set cover: ~0.1 ms per
# genome) for the ~1-5 ms per call to cost a few percent.
MAX_AUTO_CHUNK = 512


def auto_chunk_size(n: int, workers: int, chunks_per_worker: int = 1) -> int:
    """Genomes per chunk when the spec gives none: spread over the workers, capped."""
    return max(1, min(MAX_AUTO_CHUNK, math.ceil(n / (chunks_per_worker * max(workers, 1)))))


def chunk_bounds(n: int, chunk_size: int) -> list[tuple[int, int]]:
    """Half-open [start, stop) ranges covering 0..n-1; one empty chunk if n == 0."""
    if n == 0:
        return [(0, 0)]
    return [(start, min(start + chunk_size, n)) for start in range(0, n, chunk_size)]


def checked_columns(columns: Any, n: int, where: str) -> Columns:
    """The task's columns as arrays, after checking there is one entry per genome."""
    if not isinstance(columns, dict):
        raise EvaluationError(f"{where}: task returned {type(columns).__name__}, expected a dict of columns")
    arrays = {name: np.asarray(values) for name, values in columns.items()}
    for name, values in arrays.items():
        if values.ndim == 0 or len(values) != n:
            raise EvaluationError(f"{where}: column {name!r} has {values.size} entries for {n} genomes")
    return arrays


def learned_by(task: Any, genomes: Sequence[Any], task_spec: dict | None) -> Any:
    """What `task` learned scoring `genomes` that the driver would compute again (`task.learned`,
    for the run's own task only), sent back with the scores; None for most tasks."""
    return task.learned(genomes) if task_spec is None and hasattr(task, "learned") else None


def one_line(error: BaseException) -> str:
    """`Type: first line of the message`, for one-line error reports."""
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0]}" if message else type(error).__name__


def narrowed(evaluate: Callable[[list, list], Any], genomes: Sequence[Any], seeds: Sequence[int],
             where: str) -> Columns:
    """The task's columns for a chunk whose `evaluate` may raise for some genomes: a chunk that
    raises is split in halves, each scored again, down to single genomes, which fail with the
    error's one line in an `ERROR` column; the others keep their scores (a genome's result
    depends only on it and its seed). Only where the chunk runs (an actor, or this process),
    so a narrowed chunk costs no extra round trip. A chunk that timed out (`deadline.py`) is
    scored genome by genome instead: halving would wait for the hung genome at every level.
    A task returning malformed columns is a bug of the whole task, not of a genome: that still
    raises `EvaluationError`."""
    try:
        columns = evaluate(list(genomes), list(seeds))
    except Exception as error:  # noqa: BLE001 - a user's task may raise anything: narrowed to its genomes
        timeout = isinstance(error, EvaluationTimeout)
        if len(genomes) <= 1:
            return failed_columns(str(error) if timeout else one_line(error), len(genomes))
        cuts = list(range(len(genomes) + 1)) if timeout else [0, len(genomes) // 2, len(genomes)]
        parts = [narrowed(evaluate, genomes[a:b], seeds[a:b], where) for a, b in zip(cuts, cuts[1:])]
        return joined(parts, [b - a for a, b in zip(cuts, cuts[1:])])
    return checked_columns(columns, len(genomes), where)


def failed_columns(error: str, n: int) -> Columns:
    """The columns of `n` genomes that all failed with `error`."""
    return {ERROR: np.array([error] * n, dtype=object)}


def joined(parts: Sequence[Columns], sizes: Sequence[int]) -> Columns:
    """Consecutive parts' columns as one (`sizes[i]` genomes each). A part whose genomes all
    failed has only `ERROR`: its entries of the other columns are fillers (NaN, 0, None) that
    nobody reads as scores; a part without failures gets None errors."""
    names = sorted(dict.fromkeys(name for part in parts for name in part), key=lambda name: name == ERROR)
    like = {name: next(part[name] for part in parts if name in part) for name in names}
    return {name: np.concatenate([part[name] if name in part else _filler(like[name], size)
                                  for part, size in zip(parts, sizes)])
            for name in names}


def _filler(like: np.ndarray, n: int) -> np.ndarray:
    """`n` placeholder entries of a column like `like` (NaN for floats, None for objects, else 0)."""
    if like.dtype == object:
        return np.full(n, None, dtype=object)
    if like.dtype.kind in "fc":
        return np.full((n, *like.shape[1:]), np.nan, dtype=like.dtype)
    return np.zeros((n, *like.shape[1:]), dtype=like.dtype)


def merge_chunks(results: Sequence[tuple[dict, float, str]], bounds: Sequence[tuple[int, int]],
                 failures: int) -> Evaluated:
    """One batch's result from its chunks' (columns, seconds, worker label), in chunk order."""
    parts: list[Columns] = []
    seconds: list[np.ndarray] = []
    workers: list[str] = []
    for chunk, (columns, elapsed, label) in enumerate(results):
        start, stop = bounds[chunk]
        where = f"chunk {chunk + 1} of {len(bounds)} (genomes {start}-{stop - 1})"
        parts.append(checked_columns(columns, stop - start, where))
        seconds.append(np.full(stop - start, elapsed / max(stop - start, 1)))
        workers += [label] * (stop - start)
    scored = {tuple(name for name in part if name != ERROR) for part in parts}
    scored.discard(())  # chunks whose genomes all failed: only their errors
    if len(scored) > 1:
        raise EvaluationError(f"chunks returned different columns: {sorted(scored)}")
    columns = joined(parts, [stop - start for start, stop in bounds])
    return Evaluated(columns=columns, eval_seconds=np.concatenate(seconds), worker=workers, failures=failures)
