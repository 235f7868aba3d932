"""`[log] mlflow / tensorboard = true`: each generation's row as metrics with step = generation,
one tracker run per run directory across resumes (a SIGKILL included), no step sent twice,
and a tracker that is down or missing only warns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

import pipeline
from pipeline.trackers.hook import metrics_of
from pipeline.trackers.tensorboard_tracker import logged_steps

mlflow = pytest.importorskip("mlflow")
from mlflow.tracking import MlflowClient  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SPEC = {
    "name": "tracked", "problem": "setcover", "seed": 2, "generations": 8,
    "population": {"size": 10, "offspring": 10}, "genome": {"kind": "bitstring"}, "setcover": {"N": 60},
    "execution": {"workers": 0}, "log": {"mlflow": True, "tensorboard": True},
}


@pytest.fixture(autouse=True)
def _local_store(monkeypatch):
    """Each test's MLflow store is its run directory's (never a user's server)."""
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 reads a file store on request


def _mlflow_runs(out: Path) -> list:
    client = MlflowClient(tracking_uri=(out.resolve() / "mlruns").as_uri())
    experiments = client.search_experiments()
    return [run for e in experiments for run in client.search_runs([e.experiment_id])]


def _steps(out: Path, metric: str) -> list[int]:
    (run,) = _mlflow_runs(out)
    client = MlflowClient(tracking_uri=(out.resolve() / "mlruns").as_uri())
    return sorted(point.step for point in client.get_metric_history(run.info.run_id, metric))


def _generations(out: Path) -> list[int]:
    return pd.read_parquet(out / "generations")["generation"].tolist()


def test_each_generation_is_one_step_with_the_rows_figures(tmp_path):
    out = tmp_path / "run"
    run = pipeline.run(SPEC, out=str(out))
    (tracked,) = _mlflow_runs(out)
    meta = json.loads((out / "run.json").read_text())
    assert meta["trackers"]["mlflow"]["run_id"] == tracked.info.run_id and tracked.info.status == "FINISHED"
    assert tracked.info.experiment_id and tracked.data.params["population.size"] == "10"
    rows = run.generations()
    for metric in ("best_cost", "mean_cost", "diversity", "evaluations"):
        assert _steps(out, metric) == list(range(9))
    assert tracked.data.metrics["best_cost"] == rows["best_cost"].iloc[-1]
    board = logged_steps(out / "tensorboard")
    assert set(board) == set(metrics_of(rows.iloc[0].to_dict())) and board["best_cost"] == set(range(9))


def test_a_spec_without_log_tracks_nothing(tmp_path):
    spec = {k: v for k, v in SPEC.items() if k != "log"}
    pipeline.run(spec, out=str(tmp_path / "plain"))
    assert not (tmp_path / "plain" / "mlruns").exists() and not (tmp_path / "plain" / "tensorboard").exists()
    assert "trackers" not in json.loads((tmp_path / "plain" / "run.json").read_text())


@pytest.mark.parametrize("kill_at", [3, 6])
def test_a_sigkilled_and_resumed_run_is_one_mlflow_run_with_each_generation_once(tmp_path, kill_at):
    """The issue's goal: steps equal generations.parquet's generations, no duplicates, one run."""
    out = tmp_path / "killed"
    code = (f"import os, signal, pipeline; pipeline.run({SPEC!r}, out={str(out)!r}, "
            f"on_generation=lambda row: row['generation'] == {kill_at} and os.kill(os.getpid(), signal.SIGKILL))")
    died = subprocess.run([sys.executable, "-c", code], cwd=ROOT, timeout=240, capture_output=True,
                          env={k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"})
    assert died.returncode == -9, died.stderr.decode()[-2000:]
    pipeline.resume(out)
    pipeline.resume(out, generations=10)  # and once more, extending the finished run
    generations = _generations(out)
    assert generations == list(range(11))
    for metric in ("best_cost", "evaluations", "wall_seconds"):
        assert _steps(out, metric) == generations  # each once
    assert logged_steps(out / "tensorboard")["best_cost"] == set(generations)
    (tracked,) = _mlflow_runs(out)
    assert tracked.info.status == "FINISHED"


def test_steps_tracked_ahead_of_the_log_are_not_sent_again(tmp_path):
    """Killed after a generation was tracked but before it was committed: the resume regenerates
    it and the tracker, holding it already, skips it."""
    out = tmp_path / "ahead"
    pipeline.run(SPEC, out=str(out), generations=5)
    for generation in (4, 5):  # the log loses its last two generations, the trackers keep them
        for folder in ("individuals", "population"):
            (out / folder / f"gen-{generation:06d}.parquet").unlink(missing_ok=True)
    (out / "checkpoint.json").unlink()
    pipeline.resume(out, generations=7)
    assert _generations(out) == list(range(8)) == _steps(out, "best_cost")
    assert logged_steps(out / "tensorboard")["best_cost"] == set(range(8))


def test_a_tracker_that_is_down_only_warns(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    run = pipeline.run(SPEC, out=str(tmp_path / "down"), generations=2)
    assert run.meta["status"] == "finished" and len(run.generations()) == 3
    warned = [line for line in capfd.readouterr().err.splitlines() if "mlflow" in line]
    assert len(warned) == 1 and warned[0].startswith("evo: warning: mlflow: ") and "goes on" in warned[0]
    assert "run_id" not in run.meta["trackers"]["mlflow"] and "logdir" in run.meta["trackers"]["tensorboard"]


def test_a_slow_tracker_does_not_hold_the_first_generation(tmp_path, monkeypatch):
    """Opening a tracker (importing MLflow, reaching its server) happens beside the run."""
    from pipeline.trackers import hook

    scored = threading.Event()

    def slow_open(name, spec, rundir, record):
        assert scored.wait(120), "generation 0 waited for the tracker to open"
        return real_open(name, spec, rundir, record)

    real_open = hook._open
    monkeypatch.setattr(hook, "_open", slow_open)
    run = pipeline.run(SPEC, out=str(tmp_path / "slow"), generations=2, on_generation=lambda *a: scored.set())
    assert run.meta["status"] == "finished" and _steps(tmp_path / "slow", "best_cost") == [0, 1, 2]


def test_a_tracker_not_installed_only_warns(tmp_path, monkeypatch, capfd):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)  # import fails as if not installed
    run = pipeline.run(SPEC, out=str(tmp_path / "missing"), generations=1)
    assert run.meta["status"] == "finished"
    (line,) = [line for line in capfd.readouterr().err.splitlines() if "tensorboard" in line]
    assert "not installed" in line and "evo-pipeline[tracking]" in line


def test_force_starts_a_new_tracker_run(tmp_path):
    out = tmp_path / "forced"
    pipeline.run(SPEC, out=str(out), generations=3)
    pipeline.run(SPEC, out=str(out), generations=2, force=True)
    runs = _mlflow_runs(out)
    current = json.loads((out / "run.json").read_text())["trackers"]["mlflow"]["run_id"]
    assert len(runs) == 2 and _steps_of(out, current) == [0, 1, 2]
    assert logged_steps(out / "tensorboard")["best_cost"] == {0, 1, 2}


def _steps_of(out: Path, run_id: str) -> list[int]:
    client = MlflowClient(tracking_uri=(out.resolve() / "mlruns").as_uri())
    return sorted(point.step for point in client.get_metric_history(run_id, "best_cost"))
