"""MLflow: a run's generations as one MLflow run, its id kept in run.json.

Where: MLFLOW_TRACKING_URI when set, else a file store in the run directory
(`mlruns/`). A resume uses the store and run the first start recorded. MLflow 3
keeps its file store only on request (MLFLOW_ALLOW_FILE_STORE), which is made
here for a file store. A server is asked once, not retried (MLflow's default
backs off for minutes) unless the user sets MLFLOW_HTTP_REQUEST_MAX_RETRIES: a
tracker that fails is left out of the run, and the next resume sends what it missed.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["MlflowTracker", "default_store"]

_KEY_TAG = "evo.key"  # run.json's key for this run: finds an MLflow run made just before a kill
_UNSAFE = re.compile(r"[^\w\-. /:]")  # characters MLflow refuses in a metric or param name
_BATCH = 100  # params per log_batch (MLflow's limit)


def default_store(run_dir: Path) -> str:
    return (run_dir.resolve() / "mlruns").as_uri()


class MlflowTracker:
    name = "mlflow"

    def __init__(self, spec: RunSpec, run_dir: Path, record: dict[str, Any]) -> None:
        uri = record.get("tracking_uri") or os.environ.get("MLFLOW_TRACKING_URI") or default_store(run_dir)
        if uri.startswith("file:") or "://" not in uri:
            os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
        os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "10")
        from mlflow.tracking import MlflowClient

        self.client = MlflowClient(tracking_uri=uri)
        run_id = record.get("run_id") or self._find_or_create(spec, run_dir, record["key"])
        self.run_id = run_id
        self.record = {**record, "run_id": run_id, "tracking_uri": uri}
        self.client.update_run(run_id, status="RUNNING")
        self.logged = {m: {point.step for point in self.client.get_metric_history(run_id, m)}
                       for m in self.client.get_run(run_id).data.metrics}

    def _find_or_create(self, spec: RunSpec, run_dir: Path, key: str) -> str:
        experiment_name = spec.log.experiment or spec.name
        experiment = self.client.get_experiment_by_name(experiment_name)
        experiment_id = experiment.experiment_id if experiment else self.client.create_experiment(experiment_name)
        found = self.client.search_runs([experiment_id], filter_string=f"tags.`{_KEY_TAG}` = '{_quoted(key)}'",
                                        max_results=1)
        if found:
            return found[0].info.run_id
        run = self.client.create_run(experiment_id, run_name=run_dir.name,
                                     tags={_KEY_TAG: key, "evo.run_dir": str(run_dir.resolve())})
        params = _flat(spec.model_dump(mode="json", exclude={"execution"}))
        from mlflow.entities import Param

        items = [Param(_name(k), str(v)[:6000]) for k, v in params.items()]
        for start in range(0, len(items), _BATCH):
            self.client.log_batch(run.info.run_id, params=items[start:start + _BATCH])
        return run.info.run_id

    def send(self, step: int, metrics: dict[str, float]) -> None:
        from mlflow.entities import Metric

        now = int(time.time() * 1000)
        missing = [(_name(k), v) for k, v in metrics.items() if step not in self.logged.get(_name(k), ())]
        if missing:
            self.client.log_batch(self.run_id, metrics=[Metric(k, v, now, step) for k, v in missing])
        for key, _ in missing:
            self.logged.setdefault(key, set()).add(step)

    def close(self, failed: bool) -> None:
        self.client.set_terminated(self.run_id, "FAILED" if failed else "FINISHED")


def _name(key: str) -> str:
    return _UNSAFE.sub("_", key)


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _flat(spec: dict[str, Any]) -> dict[str, Any]:
    """`{"population": {"size": 40}}` -> `{"population.size": 40}` (a section's tables as one
    value); None and empty tables left out."""
    flat: dict[str, Any] = {}
    for key, value in spec.items():
        items = value.items() if isinstance(value, dict) and key not in ("problem_options",) else [(None, value)]
        for inner, item in items:
            if item is not None and item != {}:
                flat[key if inner is None else f"{key}.{inner}"] = item
    return flat
