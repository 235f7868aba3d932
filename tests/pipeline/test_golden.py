"""Golden logs: every shipped spec and example (and the algorithm variants) writes
the log the code of 2026-11-22 wrote, bit for bit apart from timing and worker
columns, on 0 and N workers; and run directories that code left half-done by a
SIGKILL resume to the log an uninterrupted run wrote.

generations.parquet's statistics were re-pinned on 2026-11-27 (issue 40): they are
exactly rounded sums now, the same on every CPU; the trajectories did not move.

A spec's meaning never changes under a user's feet: if one of these fails, the
change altered a trajectory. Regenerate (tests/golden/make_golden.py) only for a
change that is meant to, and say so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from tests.golden.cases import CASES, ROOT, run_case
from tests.golden.digest import run_digests
from tests.golden.killed import FIXTURES, KILLED

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "golden.json").read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_shipped_spec_writes_its_golden_log_in_process(tmp_path, name):
    assert run_digests(run_case(name, tmp_path / name)) == GOLDEN[name]


@pytest.mark.parametrize("name, workers", [("nim-table-sampled", 1), ("setcover-1000", 2), ("setcover-scp", 1),
                                           ("knapsack", 2), ("nim-gp", 2)])
def test_golden_logs_hold_on_ray_workers(tmp_path, ray_session, name, workers):
    assert run_digests(run_case(name, tmp_path / name, workers=workers)) == GOLDEN[name]


@pytest.mark.parametrize("name", sorted(KILLED))
def test_a_run_killed_by_an_older_version_resumes_to_the_uninterrupted_log(tmp_path, name):
    run_dir = tmp_path / name
    shutil.copytree(FIXTURES / name, run_dir)
    pipeline.resume(run_dir, workers=0)
    assert run_digests(run_dir) == GOLDEN[name]


def _dispatched_cpu_features() -> list[str]:
    """The SIMD features numpy dispatches to on this CPU, beyond its baseline."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy 1.x
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    return [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]


@pytest.mark.slow
def test_golden_logs_hold_with_numpy_restricted_to_its_baseline_simd():
    """Another CPU (a wider vector unit, or a narrower one) must write the same log: the
    in-process and killed-run golden tests again, with numpy's CPU dispatch turned off."""
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(_dispatched_cpu_features())}
    probe = "from tests.pipeline.test_golden import _dispatched_cpu_features as f; print(' '.join(f()))"
    still = subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True)
    assert still.returncode == 0 and still.stdout.strip() == "", still.stdout + still.stderr
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(Path(__file__)),
                           "-k", "in_process or killed"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
