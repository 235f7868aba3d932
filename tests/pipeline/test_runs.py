"""Whole runs: identical logs whatever the workers, exact resume after SIGKILL,
refusal to overwrite, reports, and evolved agents playing as agents."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pipeline
from pipeline.cli import main
from pipeline.records import RunDir
from pipeline.runner import RunExists, start_run
from pipeline.spec import load_spec

NIM_SPEC = """
problem = "nim"
seed = 11
generations = {generations}
[population]
size = 6
offspring = 8
[genome]
kind = "{kind}"
[nim]
standard = 4
opponents = {{ expert = {games}, random = {games}, minimax = {games} }}
[execution]
workers = 0
"""

SETCOVER_SPEC = """
problem = "setcover"
seed = 5
generations = 4
[population]
size = 6
offspring = 10
[genome]
kind = "bitstring"
[setcover]
N = 100
[objectives]
mode = "lexicographic"
[execution]
workers = 0
"""

TIMING = ["eval_seconds", "worker"]


def spec_file(tmp_path: Path, text: str, name: str = "spec") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def comparable(run_dir: Path) -> pd.DataFrame:
    """The individuals log without the columns allowed to differ between runs."""
    frame = pd.read_parquet(run_dir / "individuals").drop(columns=TIMING)
    frame["genome"] = [repr(np.asarray(g.tolist() if hasattr(g, "tolist") else g, dtype=object).tolist())
                       if not isinstance(g, dict) else repr(sorted(g.items())) for g in frame["genome"]]
    frame["parents"] = frame["parents"].map(list).map(repr)
    return frame.sort_values(["generation", "id"]).reset_index(drop=True)


def generations_log(run_dir: Path) -> pd.DataFrame:
    frame = pipeline.open_run(run_dir).generations()  # generations/, or an older run's generations.parquet
    return frame.drop(columns=["wall_seconds", "elapsed_seconds", "worker_failures"])


def run_spec(tmp_path: Path, text: str, out: str, **changes) -> Path:
    spec = load_spec(spec_file(tmp_path, text), {"execution.output": str(tmp_path / out), **changes})
    return start_run(spec)


@pytest.mark.parametrize("kind", ["table", "rules"])
def test_a_nim_run_writes_the_documented_logs(tmp_path, kind):
    out = run_spec(tmp_path, NIM_SPEC.format(generations=3, kind=kind, games=30), "nim")
    individuals = pd.read_parquet(out / "individuals")
    assert sorted(individuals["generation"].unique()) == [0, 1, 2, 3]
    for column in ("run_id", "id", "parents", "origin", "genome", "fitness", "win_rate_expert",
                   "wins_minimax", "games_random", "eval_seconds", "worker"):
        assert column in individuals.columns
    assert not individuals.duplicated(["generation", "id"]).any()
    # Survivors are scored again each generation (sampled fitness): their counts pool.
    times_scored = individuals.sort_values("generation").groupby("id").cumcount() + 1
    assert (individuals["games_expert"] == 30 * times_scored).all()
    assert (individuals["wins_expert"] / individuals["games_expert"] == individuals["win_rate_expert"]).all()
    again = individuals[individuals["born"] < individuals["generation"]]
    for generation, rows in again.groupby("generation"):
        before = individuals[(individuals["generation"] == generation - 1) & individuals["selected"]]
        assert set(rows["id"]) <= set(before["id"]) and len(rows) == 6
    assert set(individuals["origin"]) <= {"init", "crossover", "mutation", "reproduction"}
    assert individuals["optimal_move_rate"].between(0, 1).all()
    gens = pd.read_parquet(out / "generations")
    assert list(gens["generation"]) == [0, 1, 2, 3]
    assert list(gens["evaluations"]) == [6, 20, 34, 48]
    meta = RunDir(out).read_run()
    assert meta["status"] == "finished" and meta["stop_reason"] == "generations"


def test_same_log_in_process_and_on_one_or_two_ray_workers(tmp_path, ray_session):
    text = NIM_SPEC.format(generations=2, kind="table", games=40)
    local = run_spec(tmp_path, text, "local")
    one = run_spec(tmp_path, text, "one", **{"execution.workers": 1})
    two = run_spec(tmp_path, text, "two", **{"execution.workers": 2, "execution.chunk_size": 3,
                                             "execution.wait_for_workers": True})
    for on_ray in (one, two):
        pd.testing.assert_frame_equal(comparable(local), comparable(on_ray))
        pd.testing.assert_frame_equal(generations_log(local), generations_log(on_ray))
    assert len(set(pd.read_parquet(two / "individuals")["worker"])) == 2


def test_setcover_run_keeps_every_cover_feasible_and_improves(tmp_path):
    out = run_spec(tmp_path, SETCOVER_SPEC, "sc")
    individuals = pd.read_parquet(out / "individuals")
    assert individuals["feasible"].all()  # repair makes every genome a cover
    gens = pd.read_parquet(out / "generations")
    assert (np.diff(gens["best_cost"]) <= 0).all()  # elitist: the best never gets worse


def test_run_refuses_an_existing_directory_unless_forced(tmp_path):
    text = NIM_SPEC.format(generations=1, kind="table", games=10)
    run_spec(tmp_path, text, "again")
    with pytest.raises(RunExists, match="--force"):
        run_spec(tmp_path, text, "again")
    spec = load_spec(spec_file(tmp_path, text), {"execution.output": str(tmp_path / "again")})
    start_run(spec, force=True)


def test_stop_on_target_and_on_stagnation(tmp_path):
    target = NIM_SPEC.format(generations=50, kind="table", games=10) + "[stop]\ntarget = 0.0\n"
    out = run_spec(tmp_path, target, "target")
    assert RunDir(out).read_run()["stop_reason"] == "target"
    assert len(pd.read_parquet(out / "generations")) == 1
    stale = SETCOVER_SPEC.replace("generations = 4", "generations = 500") + "[stop]\nstagnation = 2\n"
    out = run_spec(tmp_path, stale, "stale")
    assert RunDir(out).read_run()["stop_reason"] == "stagnation"


def _evo(*args: str, cwd: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], cwd=cwd, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _kill_when(proc: subprocess.Popen, ready, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if ready():
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    raise AssertionError("the run never reached the kill point")


@pytest.mark.slow
def test_sigkill_at_several_points_then_resume_equals_an_uninterrupted_run(tmp_path):
    text = NIM_SPEC.format(generations=6, kind="rules", games=150)
    spec = spec_file(tmp_path, text)
    reference = run_spec(tmp_path, text, "reference")

    def file_exists(path):
        return lambda: path.exists()

    def checkpoint_at(run, generation):
        def ready():
            try:
                return RunDir(run).read_checkpoint()["generation"] >= generation
            except (TypeError, ValueError, OSError):
                return False
        return ready

    points = {
        "first-individuals": lambda run: lambda: RunDir(run).last_generation() >= 0,
        "mid-run": lambda run: checkpoint_at(run, 0),  # written at generation 0, then every 10 s
        "best-json": lambda run: file_exists(run / "best.json"),
        "late": lambda run: lambda: RunDir(run).last_generation() >= 5,
    }
    for label, point in points.items():
        run = tmp_path / f"killed-{label}"
        proc = _evo("run", str(spec), "--out", str(run), cwd=tmp_path)
        killed = _kill_when(proc, point(run))
        assert killed, f"{label}: the run finished before it could be killed"
        assert main(["resume", str(run)]) == 0
        pd.testing.assert_frame_equal(comparable(reference), comparable(run), obj=label)
        pd.testing.assert_frame_equal(generations_log(reference), generations_log(run), obj=label)
        assert sorted(p.name for p in (run / "individuals").iterdir()) == \
            sorted(p.name for p in (reference / "individuals").iterdir())


def test_resume_of_a_finished_run_extends_it_with_more_generations(tmp_path):
    text = NIM_SPEC.format(generations=2, kind="table", games=20)
    longer = run_spec(tmp_path, text.replace("generations = 2", "generations = 4"), "longer")
    out = run_spec(tmp_path, text, "extended")
    assert main(["resume", str(out), "--generations", "4"]) == 0
    pd.testing.assert_frame_equal(comparable(longer), comparable(out))
    assert RunDir(out).read_run()["spec"]["generations"] == 4


def test_report_files_are_written_and_not_empty(tmp_path):
    for kind in ("table", "rules"):
        out = run_spec(tmp_path, NIM_SPEC.format(generations=2, kind=kind, games=10), f"rep-{kind}")
        assert main(["report", str(out)]) == 0
        files = {p.name: p.stat().st_size for p in (out / "report").iterdir()}
        expected = {"objectives.png", "diversity.png", "summary.md",
                    "best_table.png" if kind == "table" else "parameters.png"}
        assert expected <= set(files)
        assert all(size > 0 for size in files.values())
    out = run_spec(tmp_path, SETCOVER_SPEC, "rep-sc")
    assert main(["report", str(out)]) == 0
    assert "cost" in (out / "report" / "summary.md").read_text()


def test_best_json_plays_as_an_agent_in_evo_match(tmp_path, capsys):
    out = run_spec(tmp_path, NIM_SPEC.format(generations=1, kind="rules", games=10), "best")
    assert main(["match", str(out / "best.json"), "random", "--rows", "4", "--games", "200"]) == 0
    assert "win rate" in capsys.readouterr().out
    assert main(["match", str(out / "best.json"), "random", "--rows", "5"]) == 2
    assert "evolved for rows=[1, 3, 5, 7]" in capsys.readouterr().err


def test_nsga2_keeps_a_pareto_front_in_the_hall_of_fame(tmp_path):
    text = NIM_SPEC.format(generations=3, kind="rules", games=20).replace(
        "[execution]", '[objectives]\nmode = "pareto"\nweights = { win_rate_random = 1.0, win_rate_expert = 1.0 }\n'
        "[execution]").replace("offspring = 8", 'offspring = 8\nalgorithm = "nsga2"')
    out = run_spec(tmp_path, text, "pareto")
    import json

    front = json.loads((out / "best.json").read_text())["hall_of_fame"]
    points = [(e["objectives"]["win_rate_random"], e["objectives"]["win_rate_expert"]) for e in front]
    for a in points:  # no member of the front dominates another
        assert not any(b[0] >= a[0] and b[1] >= a[1] and b != a for b in points)
    assert "fitness" not in pd.read_parquet(out / "individuals").columns
