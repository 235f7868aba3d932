"""The log's writer thread (records/writer.py) and the process it runs in (writer_process.py):
a slow run's generations are written as they come, a fast run's many at a time; waiting, closing
and a failed write behave as the recorder needs (nothing after a failure, its error raised
once); the process dies with its loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline.records.writer import BatchWriter
from pipeline.records.writer_process import LogWriterThread, fitting, log_writer

ROOT = Path(__file__).resolve().parents[2]


class Sink:
    """The batches written, in order; `fail_at`: the item whose batch raises."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.batches: list[list[int]] = []
        self.fail_at = fail_at
        self.threads: set[str] = set()

    def __call__(self, items: list[int]) -> None:
        self.threads.add(threading.current_thread().name)
        if self.fail_at in items:
            raise OSError(28, "No space left on device", "recent/gen-000000.arrows")
        self.batches.append(items)


def test_a_generation_after_a_quiet_spell_is_written_at_once():
    sink = Sink()
    writer = BatchWriter(sink, batch_rows=1000, batch_items=32, linger=0.05)
    for item in range(3):
        time.sleep(0.1)  # longer than `linger` since the last write: written at once, alone
        writer.put(item, 10)
        deadline = time.monotonic() + 10
        while not sink.batches or sink.batches[-1] != [item]:  # no one waits: the thread writes it
            assert time.monotonic() < deadline, sink.batches
            time.sleep(0.01)
    writer.close()
    assert sink.batches == [[0], [1], [2]] and sink.threads == {"run-writer"}


def test_fast_generations_are_written_many_at_a_time_in_order():
    sink = Sink()
    writer = BatchWriter(sink, batch_rows=1000, batch_items=32, linger=0.3)
    for item in range(100):
        writer.put(item, 10)
    writer.wait()
    assert [i for batch in sink.batches for i in batch] == list(range(100))
    assert len(sink.batches) < 10  # the first alone, then batches of many
    writer.close()


def test_wait_returns_once_few_enough_are_unwritten_and_close_writes_the_rest():
    sink = Sink()
    writer = BatchWriter(sink, batch_rows=10_000, batch_items=1000, linger=60.0)
    writer.put(0, 5)  # written at once (nothing written before)
    writer.wait()
    for item in range(1, 6):
        writer.put(item, 5)  # lingering: none due for a minute
    writer.wait(rows=25)  # 25 unwritten: nothing to wait for
    assert writer.rows == 25
    writer.wait(rows=10)  # the thread writes what is queued now
    assert writer.rows == 0
    writer.put(6, 5)
    writer.close()
    assert [i for batch in sink.batches for i in batch] == list(range(7))


def test_a_failed_write_raises_once_and_nothing_after_it_is_written():
    sink = Sink(fail_at=3)
    writer = BatchWriter(sink, batch_rows=10_000, batch_items=1000, linger=0.0)
    for item in range(3):
        writer.put(item, 1)
        writer.wait()
    writer.put(3, 1)
    with pytest.raises(OSError, match="No space left on device"):
        writer.wait()
    writer.put(4, 1)
    writer.wait()  # raised already: the caller is failing the run
    writer.close()
    assert [i for batch in sink.batches for i in batch] == [0, 1, 2]


# -- the writer process (records/writer_process.py) -------------------------------------------


class FileSink:
    """Writes each batch as a line of a file (the writer process's, read back here), and its pid."""

    def __init__(self, path, fail_at: int | None = None) -> None:
        self.path, self.fail_at = path, fail_at

    def write(self, items: list[int]) -> None:
        if self.fail_at in items:
            raise OSError(28, "No space left on device", "recent/gen-000000.arrows")
        with open(self.path, "a") as out:
            out.write(" ".join(map(str, items)) + "\n")

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        with open(self.path, "a") as out:
            out.write("closed\n")


def _lines(path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.parametrize("apart", [True, False])
def test_the_log_writer_writes_in_order_and_counts_what_is_unwritten(tmp_path, apart):
    """In a process (`apart`) or a thread (islands on runners; platforms without fork)."""
    sink = FileSink(tmp_path / "batches")
    writer = log_writer(sink, batch_rows=1000, batch_items=32, linger=0.3, apart=apart)
    assert writer.call("pid") == os.getpid()  # a process not started yet: called here
    for item in range(100):
        writer.put(item, 10)
    assert writer.items <= 100
    writer.wait(rows=500)
    assert writer.rows <= 500
    assert (writer.call("pid") != os.getpid()) == apart  # after everything handed over is written
    assert writer.rows == writer.items == 0
    written = [int(i) for line in _lines(tmp_path / "batches") for i in line.split()]
    assert written == list(range(100)) and len(_lines(tmp_path / "batches")) < 10
    writer.close()
    assert _lines(tmp_path / "batches")[-1] == "closed"


@pytest.mark.parametrize("apart", [True, False])
def test_the_log_writer_raises_a_failed_write_once_and_writes_nothing_after_it(tmp_path, apart):
    writer = log_writer(FileSink(tmp_path / "batches", fail_at=3), batch_rows=10_000, batch_items=1000, linger=0.0,
                        apart=apart)
    for item in range(3):
        writer.put(item, 1)
        writer.wait()
    writer.put(3, 1)
    with pytest.raises(OSError, match="No space left on device") as raised:
        writer.wait()
    assert raised.value.errno == 28
    writer.put(4, 1)
    writer.wait()  # raised already: the caller is failing the run
    writer.close()
    assert _lines(tmp_path / "batches") == ["0", "1", "2", "closed"]


def test_the_writer_process_dies_with_its_loop(tmp_path):
    """A SIGKILLed loop takes its writer with it: no writer outlives its run to race a resume."""
    code = ("import os, signal, sys, time; sys.path.insert(0, sys.argv[1]); "
            "from tests.pipeline.test_log_writer import FileSink; "
            "from pipeline.records.writer_process import LogWriterProcess; "
            "w = LogWriterProcess(FileSink(sys.argv[2]), 1000, 32, 60.0); w.put(0, 1); "
            "print(w.call('pid'), flush=True); os.kill(os.getpid(), signal.SIGKILL)")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), str(tmp_path / "batches")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL
    pid = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, f"the writer process {pid} outlived its loop"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is gone but for its parent
    except FileNotFoundError:
        return False


def test_a_writer_process_killed_is_said_not_waited_for(tmp_path):
    """The OOM killer taking the writer: the loop's next wait says so (resume continues)."""
    writer = log_writer(FileSink(tmp_path / "batches"), batch_rows=1000, batch_items=32, linger=0.0)
    writer.put(0, 1)
    os.kill(writer.call("pid"), signal.SIGKILL)
    with pytest.raises(RuntimeError, match="the log's writer process ended unexpectedly"):
        for item in range(1, 1000):  # (the first puts may fit the pipe's buffer)
            writer.put(item, 1)
            writer.wait()
    writer.close()


def test_a_first_item_that_does_not_pickle_gets_a_writer_thread(tmp_path):
    """A plug-in genome holding a lambda: an in-process run logs it on a thread, as before."""
    writer = log_writer(FileSink(tmp_path / "batches"), batch_rows=1000, batch_items=32, linger=0.0)
    assert fitting(writer, 1) is writer
    fallback = fitting(writer, lambda: 1)
    assert isinstance(fallback, LogWriterThread) and fallback.call("pid") == os.getpid()
    fallback.put(0, 1)
    fallback.close()
    assert _lines(tmp_path / "batches") == ["0", "closed"]


def test_a_forked_child_never_collects_what_it_inherited():
    """`freeze_forked_children`: cyclic garbage the parent left uncollected at the fork stays
    out of the child's collections (freeing another library's objects there is unsafe), while
    the child's own garbage is collected as always."""
    import gc
    import os

    from pipeline.heap import freeze_forked_children

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    freeze_forked_children()
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for _ in range(50):
            Cycle()  # garbage the parent has not collected yet
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: say what its collections find
            try:
                inherited = gc.collect()
                for _ in range(7):
                    Cycle()
                own = gc.collect()
                os.write(write, f"{inherited} {own}".encode())
            finally:
                os._exit(0)
        os.close(write)
        said = os.read(read, 100).decode()
        os.waitpid(pid, 0)
        os.close(read)
    finally:
        gc.collect()
        if enabled:
            gc.enable()
    inherited, own = map(int, said.split())
    assert inherited == 0 and own >= 7, said
