"""Errors that name their cause, against real `ray start --head` processes: a head without
authentication joined by a driver that holds a token, an actor whose worker dies while it
starts or is killed for memory, and a head killed mid-run, which `evo resume` then finishes to
the uninterrupted log.

Heads run in their own temp dirs and are stopped by pid (tests/pipeline/ray_heads.py); the
driver's HOME and token live in temp folders, never in the real ~/.ray.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import pipeline
from pipeline.cli import main
from pipeline.evaluation import ClusterLost, LocalEvaluator
from pipeline.records import RunDir

from .ray_heads import Head, driver_env, free_ports, kill_head, start_head, stop_head
from .test_rundir_faults import same_log
from .test_runs import NIM_SPEC, run_spec, spec_file

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[2]
EVO = [sys.executable, "-m", "pipeline.cli"]
LONG = NIM_SPEC.format(generations=2000, kind="rules", games=150).replace("workers = 0", "workers = 1")

# A plug-in whose module kills the Ray worker that imports it, after saying why on stderr,
# as a native library missing on the cluster's machines would; the driver imports it fine.
CRASHING_PLUGIN = '''
import os, sys
if "default_worker" in sys.argv[0]:
    print("crashy: libsolver.so: cannot open shared object file", file=sys.stderr, flush=True)
    os._exit(3)
from knapsack import Knapsack, Bits
'''


@pytest.fixture(scope="module")
def token_env(tmp_path_factory) -> dict[str, str]:
    """A driver with a token at the default place, ~/.ray/auth_token, of a HOME of its own."""
    home = tmp_path_factory.mktemp("home")
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(secrets.token_hex(16))
    return driver_env(HOME=str(home))


@pytest.fixture(scope="module")
def open_head(token_env) -> Iterator[Head]:
    """A head started without authentication."""
    head = start_head({**token_env, "RAY_AUTH_MODE": "disabled"}, token_env)
    yield head
    stop_head(head)


def _evo(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([*EVO, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_driver_holding_a_token_joins_a_head_without_authentication(open_head, tmp_path):
    out = tmp_path / "run"
    done = _evo(["run", "runs/nim-table.toml", "--generations", "1", "--out", str(out),
                 "--address", open_head.address, "--workers", "2"], open_head.env)
    assert done.returncode == 0, done.stderr
    assert pd.read_parquet(out / "individuals")["worker"].str.startswith("actor-").all()


def test_an_auth_mode_the_cluster_does_not_use_is_refused_in_one_line(open_head, tmp_path):
    out = tmp_path / "never"
    done = _evo(["run", "runs/nim-table.toml", "--out", str(out), "--address", open_head.address],
                {**open_head.env, "RAY_AUTH_MODE": "token"}, timeout=60)
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert f"the Ray cluster at {open_head.address} runs without authentication but RAY_AUTH_MODE=token" in line
    assert not out.exists()


def test_actors_refused_by_a_driver_in_another_auth_mode_say_so(open_head):
    """A user's own `ray.init` in token mode (a token file, RAY_AUTH_MODE=token), reused by evo."""
    code = ("import json, sys, ray\n"
            "ray.init(address=sys.argv[1], log_to_driver=False)\n"
            "from pipeline.evaluation import make_evaluator\n"
            "try:\n"
            "    make_evaluator({'problem': 'setcover', 'N': 100, 'seed': 42}, workers=1)\n"
            "except Exception as error:\n"
            "    print(json.dumps([type(error).__name__, str(error)]))\n")
    env = {**open_head.env, "RAY_AUTH_MODE": "token"}
    done = subprocess.run([sys.executable, "-c", code, open_head.address], env=env, capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.stdout.strip(), f"nothing raised (exit {done.returncode}): {done.stderr[-3000:]}"
    kind, message = json.loads(done.stdout.strip().splitlines()[-1])
    assert kind == "EvaluationError", (kind, message, done.stderr[-3000:])
    assert re.fullmatch(r"actor-\d+ could not start \(3 attempts\): the cluster and this driver refuse each other's "
                        r"calls \(Ray's driver log: Missing authorization header in request!\): they use different "
                        r"RAY_AUTH_MODE or tokens; .*", message), message


def test_an_actor_whose_worker_dies_at_start_up_says_what_the_worker_logged(open_head, tmp_path):
    folder = tmp_path / "crashy"
    folder.mkdir()
    (folder / "knapsack.py").write_text((ROOT / "examples" / "knapsack" / "knapsack.py").read_text())
    (folder / "crashy.py").write_text(CRASHING_PLUGIN)
    spec = (ROOT / "examples" / "knapsack" / "knapsack.toml").read_text().replace('"knapsack:', '"crashy:')
    (folder / "crashy.toml").write_text(spec)
    done = _evo(["run", str(folder / "crashy.toml"), "--out", str(tmp_path / "run"),
                 "--address", open_head.address, "--workers", "1"], open_head.env)
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert re.search(r"actor-\d+ could not start \(3 attempts\): its worker process \(pid \d+ on 127\.0\.0\.1\) "
                     r"died: .*; Ray logged: crashy: libsolver\.so: cannot open shared object file", line), line
    assert "ActorDiedError" not in line


def test_an_actor_killed_for_memory_at_start_up_says_out_of_memory(token_env, tmp_path):
    """Ray's memory monitor, told that 1% of the machine's memory is too much, kills every worker.

    The monitor polls: a one-generation run can finish between two polls (exit 0), and on a
    loaded machine the starved head can go down before the driver joins (exit 2, "cannot
    reach"). Neither is the behaviour under test, so a fresh head gets another try; any
    other outcome fails at once."""
    outcomes = []
    for attempt in range(3):
        done = _run_on_a_starved_head(token_env, tmp_path / f"run{attempt}")
        outcomes.append(f"exit {done.returncode}: {done.stderr.strip()[-400:]}")
        if done.returncode == 1:
            line = _one_line(done.stderr)
            assert re.search(r"actor-\d+ could not start \(3 attempts\): out of memory: .*Memory on the node "
                             r"\(IP: 127\.0\.0\.1", line), line
            return
        assert done.returncode == 0 or "cannot reach the Ray cluster" in done.stderr, done.stderr
    pytest.fail("the memory monitor never killed the actor:\n" + "\n".join(outcomes))


def _run_on_a_starved_head(token_env: dict[str, str], out: Path) -> subprocess.CompletedProcess:
    head = start_head({**token_env, "RAY_AUTH_MODE": "disabled", "RAY_memory_usage_threshold": "0.01",
                       "RAY_memory_monitor_refresh_ms": "100"}, token_env)
    try:
        return _evo(["run", "examples/knapsack/knapsack.toml", "--generations", "1", "--out", str(out),
                     "--address", head.address, "--workers", "1"], head.env)
    finally:
        stop_head(head)


@pytest.mark.slow
def test_a_head_killed_mid_run_is_one_line_with_the_generation_and_resume_finishes_the_run(token_env, open_head,
                                                                                            tmp_path):
    """Resumed on another cluster (`--address`): the log is the uninterrupted run's."""
    spec = spec_file(tmp_path, LONG)
    run = tmp_path / "run"
    head = start_head({**token_env, "RAY_AUTH_MODE": "disabled"}, token_env)
    try:
        driver = subprocess.Popen([*EVO, "run", str(spec), "--out", str(run), "--address", head.address],
                                  env=head.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while _committed(run) < 3:
            assert driver.poll() is None and time.monotonic() < deadline, driver.stderr.read()
            time.sleep(0.2)
        kill_head(head)
        stderr = driver.communicate(timeout=90)[1]
    finally:
        stop_head(head)
    assert driver.returncode == 2
    line = _one_line(stderr)
    generation = _committed(run)
    assert re.fullmatch(re.escape(f"evo run: error: the Ray cluster at {head.address} was lost after generation "
                                  f"{generation} (its GCS has not answered for ") + r"1\d s\); "
                        + re.escape(f"once it is back, `evo resume {run}` continues the run "
                                    "(`--address HOST:PORT` to resume on another)"), line), line
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "failed" and meta["error"].startswith("ClusterLost: the Ray cluster at")
    target = generation + 2
    done = _evo(["resume", str(run), "--generations", str(target), "--address", open_head.address], open_head.env)
    assert done.returncode == 0, done.stderr
    reference = run_spec(tmp_path, LONG.replace("generations = 2000", f"generations = {target}"), "reference",
                         **{"execution.workers": 0})
    same_log(reference, run)


def test_an_import_error_in_an_actors_creation_task_is_named_and_not_retried(ray_session):
    from pipeline.evaluation.ray_errors import death_reason

    @ray_session.remote(num_cpus=0.1)
    class NeedsALibrary:
        def __init__(self) -> None:
            raise ModuleNotFoundError("No module named 'libsolver'")

        def ready(self) -> bool:
            return True

    with pytest.raises(ray_session.exceptions.ActorDiedError) as raised:
        ray_session.get(NeedsALibrary.remote().ready.remote(), timeout=60)
    assert death_reason(raised.value) == ("its creation task raised ModuleNotFoundError: No module named 'libsolver'",
                                          True)


def test_a_gcs_that_never_answered_is_never_judged_lost(ray_session):
    """TLS or a route only Ray knows: the watch cannot ask, so silence proves nothing."""
    from pipeline.evaluation.ray_gcs import GcsWatch, current_gcs

    unreachable = GcsWatch(f"127.0.0.1:{free_ports(1)[0]}", grace=0.0)
    live = GcsWatch(current_gcs(), grace=0.0)
    for watch in (unreachable, live):
        watch.check()
        watch._probed = 0.0  # probe again at once
        watch.check()
        assert not watch.lost


# -- the runner's part, in-process: an evaluator that loses its cluster at the third batch ---

def _lose_the_cluster_at_batch(monkeypatch, batch: int) -> None:
    calls = {"n": 0}
    submit = LocalEvaluator.submit

    def failing(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == batch:
            raise ClusterLost("10.0.0.7:6379", 10.2)
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(LocalEvaluator, "submit", failing)


def test_the_cli_says_the_lost_cluster_and_generation_in_one_line_then_resume_is_exact(tmp_path, monkeypatch,
                                                                                         capsys):
    text = NIM_SPEC.format(generations=4, kind="rules", games=20)
    run = tmp_path / "run"
    _lose_the_cluster_at_batch(monkeypatch, 3)  # generations 0 and 1 are scored and committed
    assert main(["run", str(spec_file(tmp_path, text)), "--out", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"evo run: error: the Ray cluster at 10.0.0.7:6379 was lost after generation 1 (its GCS has "
                   f"not answered for 10 s); once it is back, `evo resume {run}` continues the run "
                   "(`--address HOST:PORT` to resume on another)"]
    assert RunDir(run).read_run()["status"] == "failed"
    monkeypatch.undo()
    assert main(["resume", str(run)]) == 0
    same_log(run_spec(tmp_path, text, "reference"), run)


def test_pipeline_run_raises_cluster_lost_with_that_line(tmp_path, monkeypatch):
    text = NIM_SPEC.format(generations=4, kind="rules", games=20)
    _lose_the_cluster_at_batch(monkeypatch, 1)  # nothing committed yet
    with pytest.raises(ClusterLost) as raised:
        pipeline.run(str(spec_file(tmp_path, text)), out=str(tmp_path / "run"))
    assert str(raised.value) == (
        "the Ray cluster at 10.0.0.7:6379 was lost before generation 0 was done (its GCS has not answered for "
        f"10 s); once it is back, `evo resume {tmp_path / 'run'}` continues the run "
        "(`--address HOST:PORT` to resume on another)")
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    monkeypatch.undo()
    assert pipeline.resume(tmp_path / "run").status == "finished"  # what the line says works


def _committed(run: Path) -> int:
    """The last generation whose individuals file is on disk (-1: none yet)."""
    return max(RunDir(run).generation_files(), default=-1)
