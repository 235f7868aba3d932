"""Faults users meet: a second writer, SIGKILLs at random instants, a full disk,
a read-only directory. Each ends in a complete log equal to an uninterrupted
run's, or in one line naming the path and cause, with status `failed`."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from pipeline.records import rundir as rundir_module
from pipeline.cli import main
from pipeline.records import RunDir

from .test_runs import NIM_SPEC, _evo, comparable, generations_log, run_spec, spec_file

pytestmark = pytest.mark.timeout(240)

TEXT = NIM_SPEC.format(generations=4, kind="rules", games=20)
LONG = NIM_SPEC.format(generations=2000, kind="rules", games=150)  # runs until killed


def same_log(reference: Path, run: Path) -> None:
    pd.testing.assert_frame_equal(comparable(reference), comparable(run))
    pd.testing.assert_frame_equal(generations_log(reference), generations_log(run))
    assert json.loads((run / "best.json").read_text()) == json.loads((reference / "best.json").read_text())


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def wait_for(ready, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def checkpoint_generation(run: Path) -> int:
    """The last generation committed (checkpoint.json is written only now and then)."""
    return RunDir(run).last_generation()


# -- one writer ---------------------------------------------------------------

@contextlib.contextmanager
def lock_held_elsewhere(run: Path):
    """Another process holding the run's lock, as a live `evo run` would."""
    code = ("import sys, time; from pipeline.records import RunLock; RunLock(sys.argv[1]).acquire(); "
            "print('locked', flush=True); time.sleep(120)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(run)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_a_second_writer_is_refused_even_with_force_and_the_lock_dies_with_its_holder(tmp_path, capsys):
    run = run_spec(tmp_path, TEXT, "locked")
    before = {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.name != "run.lock"}
    spec = spec_file(tmp_path, TEXT)
    with lock_held_elsewhere(run) as holder:
        for argv in (["run", str(spec), "--out", str(run), "--force"], ["run", str(spec), "--out", str(run)],
                     ["resume", str(run), "--generations", "6"]):
            started = time.monotonic()
            assert main(argv) == 2
            line = one_error_line(capsys)
            assert f"pid {holder.pid}" in line and "another evo process" in line
            assert time.monotonic() - started < 10  # at once, not after the holder ends
        assert {p: p.stat().st_mtime_ns for p in run.rglob("*") if p.name != "run.lock"} == before
        holder.send_signal(signal.SIGKILL)  # SIGKILL leaves no stale lock
        holder.wait()
        assert main(["resume", str(run), "--generations", "5"]) == 0
    assert sorted(RunDir(run).generation_files()) == list(range(6))


@pytest.mark.slow
def test_two_concurrent_evo_runs_never_mix_and_the_survivor_resumes_exactly(tmp_path, capsys):
    spec = spec_file(tmp_path, LONG)
    run = tmp_path / "shared"
    first = _evo("run", str(spec), "--out", str(run), cwd=tmp_path)
    try:
        wait_for(lambda: checkpoint_generation(run) >= 1)
        second = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(spec), "--out", str(run),
                                 "--force", "--seed", "12"], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and f"pid {first.pid}" in lines[0]
        assert first.poll() is None  # the first writer went on, its files untouched
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    target = checkpoint_generation(run) + 2
    assert main(["resume", str(run), "--generations", str(target)]) == 0
    reference = run_spec(tmp_path, LONG.replace("generations = 2000", f"generations = {target}"), "reference")
    same_log(reference, run)
    assert set(pd.read_parquet(run / "individuals")["run_id"]) == {RunDir(run).read_run()["run_id"]}


@pytest.mark.slow
def test_chaos_random_sigkills_then_resume_equals_an_uninterrupted_run(tmp_path):
    text = NIM_SPEC.format(generations=25, kind="rules", games=200)
    spec = spec_file(tmp_path, text)
    reference = run_spec(tmp_path, text, "reference")
    run = tmp_path / "chaos"
    rng = random.Random(9)
    for _ in range(4):  # kills at random instants: at start-up, mid-write, between renames
        args = ("resume", str(run)) if (run / "run.json").exists() else ("run", str(spec), "--out", str(run))
        proc = _evo(*args, cwd=tmp_path)
        time.sleep(rng.uniform(0.5, 3.0))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
    argv = ["resume", str(run)] if (run / "run.json").exists() else ["run", str(spec), "--out", str(run)]
    assert main(argv) == 0
    same_log(reference, run)
    assert sorted(RunDir(run).generation_files()) == list(range(26))
    assert not list(run.rglob("*.tmp"))


# -- a full disk, a read-only directory ----------------------------------------

def test_disk_full_is_one_line_status_failed_no_temp_files_then_resume_is_exact(tmp_path, capsys, monkeypatch):
    reference = run_spec(tmp_path, TEXT, "reference")
    real = rundir_module.Stream.append

    def full_at_generation_2(stream, batch, metadata, **options):
        if b'"generation": 2,' in metadata[b"evo"]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(stream.path))
        return real(stream, batch, metadata, **options)

    monkeypatch.setattr(rundir_module.Stream, "append", full_at_generation_2)
    run = tmp_path / "full"
    assert main(["run", str(spec_file(tmp_path, TEXT)), "--out", str(run)]) == 1
    line = one_error_line(capsys)
    assert "gen-000000.arrows: No space left on device" in line
    meta = RunDir(run).read_run()
    assert meta["status"] == "failed" and "gen-000000.arrows: No space left on device" in meta["error"]
    assert not list(run.rglob("*.tmp"))
    monkeypatch.setattr(rundir_module.Stream, "append", real)
    assert main(["resume", str(run)]) == 0
    same_log(reference, run)


@contextlib.contextmanager
def small_filesystem(where: Path, size: str, read_only: bool = False):
    """A real tmpfs of `size` at `where` where the machine allows mounting one; else skip."""
    where.mkdir()
    options = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a small file system here (the simulated test covers this)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_real_full_file_system_fails_cleanly_and_resumes_once_there_is_room(tmp_path, capsys):
    text = NIM_SPEC.format(generations=60, kind="rules", games=20)
    with small_filesystem(tmp_path / "fs", "400k") as fs:
        run = fs / "run"
        assert main(["run", str(spec_file(tmp_path, text)), "--out", str(run)]) == 1
        assert "No space left on device" in one_error_line(capsys)
        meta = RunDir(run).read_run()
        assert meta["status"] == "failed" and "No space left on device" in meta["error"]
        assert not list(run.rglob("*.tmp"))
        subprocess.run(["mount", "-o", "remount,size=8m", str(fs)], check=True)
        assert main(["resume", str(run)]) == 0
        reference = run_spec(tmp_path, text, "reference")
        same_log(reference, run)


def test_no_space_at_all_refuses_before_writing_and_leaves_no_half_run(tmp_path, capsys):
    with small_filesystem(tmp_path / "fs", "1m") as fs:
        filler = fs / "filler"
        with contextlib.suppress(OSError):
            filler.write_bytes(b"x" * 2_000_000)
        run = fs / "run"
        assert main(["run", str(spec_file(tmp_path, TEXT)), "--out", str(run)]) == 1
        assert "No space left on device" in one_error_line(capsys)
        assert not RunDir(run).has_run()
        filler.unlink()
        assert main(["run", str(spec_file(tmp_path, TEXT)), "--out", str(run)]) == 0  # not "use evo resume"


def test_a_read_only_output_directory_is_refused_before_ray_starts(tmp_path, capsys, monkeypatch):
    import pipeline.runner

    def no_ray(*args, **kwargs):
        raise AssertionError("Ray was started for an unwritable directory")

    monkeypatch.setattr(pipeline.runner, "make_evaluator", no_ray)
    spec = spec_file(tmp_path, TEXT.replace("workers = 0", "workers = 2"))
    if os.geteuid() != 0:
        parent = tmp_path / "ro"
        parent.mkdir()
        parent.chmod(0o555)
        cause = "Permission denied"
        context = contextlib.nullcontext(parent)
    else:  # root writes through permissions: a read-only mount instead
        cause = "Read-only file system"
        context = small_filesystem(tmp_path / "ro", "1m", read_only=True)
    with context as parent:
        assert main(["run", str(spec), "--out", str(parent / "run")]) == 1
        line = one_error_line(capsys)
        assert str(parent / "run") in line and cause in line
