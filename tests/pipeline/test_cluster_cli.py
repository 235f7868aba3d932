"""`evo run --address` and Ray Jobs against a real `ray start --head` process, token auth on.

The head runs in its own temp dir, on free loopback ports, with its own token
file; the test stops only that process tree (by pid), never a machine-wide
`ray stop`. Wrong addresses must fail fast, in one line, writing nothing.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from .ray_heads import RAY, Head, driver_env, start_head, stop_head

ROOT = Path(__file__).resolve().parents[2]
EVO = [sys.executable, "-m", "pipeline.cli"]


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory) -> Iterator[Head]:
    token = tmp_path_factory.mktemp("token") / "auth_token"
    token.write_text(secrets.token_hex(16))
    env = driver_env(RAY_AUTH_TOKEN_PATH=str(token))  # the token file only, no auth mode
    head = start_head({**env, "RAY_AUTH_MODE": "token"}, env)  # what `ray start` does when a token exists
    yield head
    stop_head(head)


def _evo(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([*EVO, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_evo_run_joins_a_token_protected_head_by_its_address(ray_head, tmp_path):
    out = tmp_path / "run"
    done = _evo(["run", "runs/nim-table.toml", "--generations", "1", "--out", str(out),
                 "--address", ray_head.address, "--workers", "auto",
                 "--set", "execution.wait_for_workers=true"], ray_head.env)  # else the first actor may do it all
    assert done.returncode == 0, done.stderr
    assert "auth" not in done.stderr.lower()  # no token warnings
    workers = pd.read_parquet(out / "individuals")["worker"]
    assert workers.str.match(r"^actor-\d+@127\.0\.0\.1/[0-9a-f]{8}$").all()
    assert workers.nunique() == 2  # "auto": both CPUs of the head


def test_a_ray_job_runs_evo_on_the_cluster(ray_head, tmp_path):
    out = tmp_path / "job"
    env = {**ray_head.env, "RAY_AUTH_MODE": "token"}  # Ray's job CLI needs the mode said
    done = subprocess.run(
        [str(RAY), "job", "submit", "--address", ray_head.dashboard, "--", *EVO, "run",
         str(ROOT / "runs/nim-table.toml"), "--generations", "1", "--workers", "2", "--out", str(out)],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers = pd.read_parquet(out / "individuals")["worker"]
    assert workers.str.startswith("actor-").all()  # the job's driver joined the cluster, no embedded Ray


def test_a_user_problem_from_a_folder_outside_the_checkout_reaches_the_cluster(ray_head, tmp_path):
    """The driver runs from the checkout; the head's workers never saw the spec's folder:
    only the code evo ships with the task can make them import knapsack.py."""
    folder = tmp_path / "user-knapsack"
    shutil.copytree(ROOT / "examples" / "knapsack", folder, ignore=shutil.ignore_patterns("runs", "__pycache__"))
    out = tmp_path / "run"
    done = _evo(["run", str(folder / "knapsack.toml"), "--generations", "2", "--out", str(out),
                 "--address", ray_head.address, "--workers", "2"], ray_head.env)
    assert done.returncode == 0, done.stderr
    frame = pd.read_parquet(out / "individuals")
    assert frame["worker"].str.startswith("actor-").all() and (frame["value"] > 0).all()


def test_a_ray_job_with_a_working_dir_runs_a_user_problem(ray_head, tmp_path):
    """README: `ray job submit --working-dir examples/knapsack -- evo run knapsack.toml`."""
    folder = tmp_path / "user-knapsack"
    shutil.copytree(ROOT / "examples" / "knapsack", folder, ignore=shutil.ignore_patterns("runs", "__pycache__"))
    out = tmp_path / "job"
    env = {**ray_head.env, "RAY_AUTH_MODE": "token"}
    done = subprocess.run(
        [str(RAY), "job", "submit", "--address", ray_head.dashboard, "--working-dir", str(folder), "--",
         *EVO, "run", "knapsack.toml", "--generations", "1", "--workers", "2", "--out", str(out)],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert pd.read_parquet(out / "individuals")["worker"].str.startswith("actor-").all()


@pytest.mark.parametrize("address", ["127.0.0.1:1", "nonsense:1234"])
def test_a_wrong_address_fails_within_the_timeout_in_one_line_writing_nothing(address, tmp_path):
    out = tmp_path / "never"
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    start = time.monotonic()
    done = _evo(["run", "runs/nim-table.toml", "--out", str(out), "--address", address,
                 "--connect-timeout", "10"], env, timeout=60)
    assert time.monotonic() - start < 30
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and address in lines[0] and "ray start --head" in lines[0], done.stderr
    assert not out.exists()
