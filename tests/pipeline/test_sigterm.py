"""SIGTERM stops a run as Ctrl-C does (pipeline/sigterm.py): on Ray it once aborted the driver
(exit 134, a core dump, run.json still `running`): Ray's abseil handler arms a 3 s abort alarm."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from pipeline.cli import main
from pipeline.records import RunDir
from pipeline.sigterm import Terminated, after_ray_init, stopping_on_sigterm

from .test_runs import NIM_SPEC, spec_file

pytestmark = pytest.mark.timeout(240)

LONG = NIM_SPEC.format(generations=2000, kind="rules", games=150)  # runs until stopped


def test_within_a_run_sigterm_raises_terminated_and_the_old_handler_comes_back():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Terminated):
        with stopping_on_sigterm():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises at the next bytecode
    assert signal.getsignal(signal.SIGTERM) == before
    after_ray_init()  # outside a run: leaves the handler alone
    assert signal.getsignal(signal.SIGTERM) == before


@pytest.mark.parametrize(("engine", "group"), [
    (["--workers", "0"], False),
    (["--workers", "2", "--engine", "processes"], True),  # the forked workers get it too: they end silently
    (["--workers", "2", "--engine", "ray", "--no-handover"], False),
], ids=["in-process", "processes-group", "ray"])
def test_sigterm_stops_evo_run_cleanly_with_143(tmp_path, engine, group):
    spec, run = spec_file(tmp_path, LONG), tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--out", str(run), *engine],
                            cwd=tmp_path, env=dict(os.environ, PYTHONUNBUFFERED="1"), start_new_session=group,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while RunDir(run).last_generation() < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ""
            time.sleep(0.05)
        if group:
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == f"evo run: terminated (SIGTERM); `evo resume {run}` continues it", err
    assert "SIGTERM received" not in err and "Aborted" not in err and "Traceback" not in err, err
    assert json.loads((run / "run.json").read_text())["status"] == "interrupted"
    last = RunDir(run).last_generation()
    assert main(["resume", str(run), "--workers", "0", "--generations", str(last + 1)]) == 0
