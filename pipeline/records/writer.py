"""The log's writer thread (in the writer process, `writer_process.py`): what the evolution loop
hands over, written many generations at a time.

A generation handed over is written at once if the last write was `linger`
seconds ago or more (a slow run commits every generation as it comes);
otherwise it waits until `batch_rows` rows (or `batch_items` generations) are
queued, or `linger` seconds after the last write, or someone waits for the
queue; then everything queued is written in one call. At 100 rows a
generation a table costs its ~15 pyarrow calls, not its rows: building the
columns of dozens of generations at once costs little more than one did, and the two
threads hand the GIL over once a batch instead of once a generation.

The first write that raises stops the thread: the next `wait` raises that
error (once), and nothing queued after it is written (a generation's rows
never follow a gap)."""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable, Generic, TypeVar

__all__ = ["BatchWriter"]

T = TypeVar("T")


class BatchWriter(Generic[T]):
    def __init__(self, write: Callable[[list[T]], None], batch_rows: int, batch_items: int, linger: float,
                 done: Callable[[int, int, BaseException | None], None] | None = None) -> None:
        """`done(rows, items, error)`: called by the thread after each batch (error: the write's)."""
        self._write = write
        self._done = done
        self.batch_rows, self.batch_items, self.linger = batch_rows, batch_items, linger
        self._queue: deque[tuple[T, int]] = deque()  # handed over, not yet taken by the thread
        self._written_at = -float("inf")  # when the last write ended (monotonic)
        self._queue_rows = 0  # rows in `_queue`
        self.rows = 0  # rows handed over and not yet written (the batch being written counts)
        self.items = 0  # and items
        self._waiting = 0  # callers in `wait`: the thread writes what there is, at once
        self._hurried = False  # `hurry`: the same, once
        self._closing = False
        self.error: BaseException | None = None  # the failed write's; nothing is written after it
        self._raised = False  # `wait` raised it
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="run-writer", daemon=True)
        self._thread.start()

    def put(self, item: T, rows: int) -> None:
        """Hand `item` (`rows` rows of the log) to the thread."""
        with self._changed:
            first = not self._queue  # the thread may write it now, or starts its `linger` wait
            self._queue.append((item, rows))
            self._queue_rows += rows
            self.rows += rows
            self.items += 1
            if first or self._ready():
                self._changed.notify_all()

    def wait(self, rows: int | None = None, items: int | None = None, raises: bool = True) -> None:
        """Until at most `rows` rows and fewer than `items` items are unwritten (None: none at
        all); raises the error of a write that failed, the first time (unless not `raises`)."""
        def unwritten() -> bool:
            return self.error is None and self.items > 0 and (
                rows is None or self.rows > rows or (items is not None and self.items >= items))
        with self._changed:
            if unwritten():  # the thread writes what is queued now, rather than waiting for more
                self._waiting += 1
                self._changed.notify_all()
                try:
                    while unwritten():
                        self._changed.wait()
                finally:
                    self._waiting -= 1
            if raises and self.error is not None and not self._raised:
                self._raised = True
                raise self.error

    def hurry(self) -> None:
        """Have the thread write what is queued now, without waiting for it (nothing queued: a
        batch being written is all there is to wait for)."""
        with self._changed:
            self._hurried = bool(self._queue)
            self._changed.notify_all()

    def close(self) -> None:
        """Write what is queued, then stop the thread (errors: see `wait`)."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        self._thread.join()

    def _ready(self) -> bool:
        return bool(self._queue) and (self._waiting > 0 or self._hurried or self._closing
                                      or len(self._queue) >= self.batch_items or self._queue_rows >= self.batch_rows)

    def _take(self) -> list[tuple[T, int]] | None:
        """The next batch (None: closing with nothing left), waiting for it as the docstring says."""
        with self._changed:
            while not self._ready():
                if self._closing and not self._queue:
                    return None
                if self._queue:
                    left = self._written_at + self.linger - time.monotonic()
                    if left <= 0:
                        break
                    self._changed.wait(left)
                else:
                    self._changed.wait()
            batch = list(self._queue)
            self._queue.clear()
            self._queue_rows, self._hurried = 0, False
            return batch

    def _run(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            rows = sum(rows for _, rows in batch)
            try:
                self._write([item for item, _ in batch])
            except BaseException as exc:  # a full disk: nothing after it is written
                with self._changed:
                    self.error = exc
                    self._queue.clear()
                    self._queue_rows = self.rows = self.items = 0
                    self._changed.notify_all()
                if self._done is not None:
                    self._done(rows, len(batch), exc)
                return
            with self._changed:
                self._written_at = time.monotonic()
                self.rows -= rows
                self.items -= len(batch)
                self._changed.notify_all()
            if self._done is not None:
                self._done(rows, len(batch), None)
