"""The log's writer thread (records/writer.py): a slow run's generations are written as they
come, a fast run's many at a time; waiting, closing and a failed write behave as the
recorder needs (nothing after a failure, its error raised once)."""

from __future__ import annotations

import threading
import time

import pytest

from pipeline.records.writer import BatchWriter


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
