"""The hook that feeds trackers: opened as the run starts (each tracker's run recorded
in run.json under `trackers`), the generations already in the log sent first, then
each new row, all on a background thread so a slow, dead or slow-to-import tracker
never holds the run up.

No step is sent twice: each tracker reads back which (metric, step) pairs it holds
when it opens and sends only the others. A run killed after a generation was
tracked but before it was committed regenerates that generation on resume
(identically) and it is skipped; one killed after the commit but before the send
has it sent on resume from the log's rows.
"""

from __future__ import annotations

import math
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from numbers import Real
from typing import TYPE_CHECKING, Any, Callable, Protocol

from ..evaluation.core import one_line

if TYPE_CHECKING:
    from ..records import RunDir
    from ..spec import RunSpec

__all__ = ["Tracker", "TrackingHook", "metrics_of", "start_tracking"]

INSTALL = "pip install 'evo-pipeline[tracking]'"


class Tracker(Protocol):
    name: str
    record: dict[str, Any]  # what run.json keeps to find the same tracker run on resume (with a `key`
    # made for this run directory's run before the tracker opened)

    def send(self, step: int, metrics: dict[str, float]) -> None:
        """Log the metrics of generation `step` that the tracker does not hold yet."""

    def close(self, failed: bool) -> None:
        """Flush and say how the run ended."""


def metrics_of(row: dict[str, Any]) -> dict[str, float]:
    """A generations.parquet row's numbers, but its step (`generation`)."""
    return {key: float(value) for key, value in row.items()
            if key != "generation" and isinstance(value, Real) and not math.isnan(value)}


def warn(text: str) -> None:
    """One line on stderr: tracking is a convenience, its failure never stops the run."""
    print(f"evo: warning: {text}", file=sys.stderr, flush=True)


class TrackingHook:
    """A run-loop hook (`hook(row)`): every row to every tracker still up."""

    def __init__(self, trackers: list[Tracker]) -> None:
        self.trackers = list(trackers)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trackers")

    def __call__(self, row: dict[str, Any]) -> None:
        self._thread.submit(self._send, int(row["generation"]), metrics_of(row))

    def _send(self, step: int, metrics: dict[str, float]) -> None:
        self._each(lambda tracker: tracker.send(step, metrics), "sending")

    def _each(self, call: Callable[[Tracker], None], doing: str) -> None:
        for tracker in list(self.trackers):
            try:
                call(tracker)
            except Exception as exc:  # a tracker down mid-run: said once, then left out
                self.trackers.remove(tracker)
                warn(f"{tracker.name}: {doing} failed ({one_line(exc)[:240]}); the run goes on without it "
                     f"(a resume sends the generations it missed)")

    def close(self, failed: bool) -> None:
        """After the last generation (or a failure): every queued row sent, trackers closed."""
        self._thread.submit(self._each, lambda tracker: tracker.close(failed), "closing")
        self._thread.shutdown(wait=True)


def start_tracking(spec: RunSpec, rundir: RunDir, rows: list[dict[str, Any]]) -> TrackingHook | None:
    """The hook for the trackers `[log]` names (None: none named). Each is opened on the hook's
    thread (importing and reaching a tracker takes seconds: generation 0 does not wait for it),
    on the tracker run run.json records (a resume) or a new one, then handed the log's `rows`
    for what it lacks; rows that arrive meanwhile queue behind the opening."""
    wanted = [name for name in ("mlflow", "tensorboard") if getattr(spec.log, name)]
    if not wanted:
        return None
    meta = rundir.read_run()
    records = dict(meta.get("trackers") or {})
    new = {name: {"key": uuid.uuid4().hex} for name in wanted if name not in records}
    if new:  # recorded before a tracker run is made, so a kill in between finds that run again
        records.update(new)
        rundir.update_run(trackers=records)
    hook = TrackingHook([])
    hook._thread.submit(_open_all, hook, wanted, spec, rundir, records)
    for row in rows:
        hook(row)
    return hook


def _open_all(hook: TrackingHook, wanted: list[str], spec: RunSpec, rundir: RunDir,
              records: dict[str, dict[str, Any]]) -> None:
    """Open each tracker (a failure only warns); run.json then names the tracker runs made."""
    recorded = dict(records)
    for name in wanted:
        try:
            tracker = _open(name, spec, rundir, records[name])
        except ImportError as exc:
            warn(f"{name}: not installed ({exc.name or exc}; {INSTALL}); the run goes on without it")
            continue
        except Exception as exc:
            warn(f"{name}: cannot open ({one_line(exc)[:240]}); the run goes on without it")
            continue
        records[name] = tracker.record
        hook.trackers.append(tracker)
    if records != recorded:
        rundir.update_run(trackers=records)


def _open(name: str, spec: RunSpec, rundir: RunDir, record: dict[str, Any]) -> Tracker:
    if name == "mlflow":
        from .mlflow_tracker import MlflowTracker

        return MlflowTracker(spec, rundir.path, record)
    from .tensorboard_tracker import TensorBoardTracker

    return TensorBoardTracker(rundir.path, record)
