"""The log's writer process: the run's files written beside the evolution loop, not in its process.

In a thread, the writer's Python work (a table's columns, a generation's record)
held the interpreter lock the loop needs, so each logged row cost the loop's
wall time ~17 µs, though its own share was ~5 (benchmarks/README.md, "Issue 42,
fourth pass"). Forked at the run's first write, the process has the run's
schema, spec and files as the loop had them; the loop sends each generation
pickled down a pipe (its genomes packed) and reads back how many rows are
written, so it still waits only when too much is unwritten (`Recorder`).

In the process, one thread reads the pipe and a `BatchWriter` thread writes, as
the loop's writer thread did. The process dies with the loop (`PR_SET_PDEATHSIG`):
a SIGKILLed run loses what was queued, as with a thread, and no writer outlives
its run to race the next resume; it ignores SIGINT and SIGTERM, which reach a
terminal's whole process group: the loop closes it. Where `fork` is not the
platform's (not Linux), the same `BatchWriter` runs as a thread of the loop's
process.

While generations come, the process reads the pipe every `DRAIN_SECONDS`, not as
each arrives: the loop's write to a pipe whose reader sleeps in `read` wakes
the other core, and on a VM that wake cost the sender ~40-50 µs of CPU, a
quarter of what handing a steady-state generation of 100 rows over cost it (benchmarks/README.md,
"Issue 42, eleventh pass"); with the reader not waiting, a write is a copy.
The pipe is widened (`PIPE_BYTES`) so that the loop does not block meanwhile. After
a call (the loop waits for its reply), the process reads at once.

Islands on runners send their tables packed (`ipc.py`), and those go
down the pipe as they came (`island_rows.py`), where the writer's work on them
cost the island driver's process 1.1-1.7 µs an evaluation as a thread of it
(benchmarks/README.md, "Islands: the log's rows smaller, its writer apart").
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import multiprocessing
import os
import pickle
import select
import signal
import sys
import threading
import time
from typing import Any

from ..heap import freeze_forked_children
from .writer import BatchWriter

__all__ = ["LogWriterProcess", "LogWriterThread", "fitting", "log_writer"]

PR_SET_PDEATHSIG, PR_SET_NAME = 1, 15  # prctl(2)
POLL_SECONDS = 1.0  # how often a loop waiting on the process checks that it lives
DRAIN_SECONDS = 0.01  # the process reads the pipe at most this often while generations come
PIPE_BYTES = 1 << 20  # the pipe's buffer, where it can be widened: ~100 generations of 100 rows


def log_writer(target: Any, batch_rows: int, batch_items: int, linger: float,
               apart: bool = True) -> LogWriterProcess | LogWriterThread:
    """The writer of `target` (its `write(items)` writes a batch, its `close()` ends; `call`
    runs its other methods after everything handed over is written): a process on Linux where
    `apart`, else a thread."""
    if apart and sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods() and \
            not multiprocessing.current_process().daemon:  # (a daemonic process may have no children)
        return LogWriterProcess(target, batch_rows, batch_items, linger)
    return LogWriterThread(target, batch_rows, batch_items, linger)


def fitting(writer: LogWriterProcess | LogWriterThread, item: Any) -> LogWriterProcess | LogWriterThread:
    """`writer`, or a thread in its place where `item`, the first to hand over, does not pickle
    (a plug-in's genome holding a lambda: an in-process run never pickles one otherwise)."""
    if isinstance(writer, LogWriterProcess) and writer._process is None:
        try:
            pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - whatever pickle refuses
            return LogWriterThread(writer._target, *writer._options)
    return writer


class LogWriterProcess:
    """`put`, `wait`, `call` and `close`, as `BatchWriter` has them, across a pipe: `rows` and
    `items` count what was handed over and is not yet written, `error` is a failed write's."""

    def __init__(self, target: Any, batch_rows: int, batch_items: int, linger: float) -> None:
        self._target, self._options = target, (batch_rows, batch_items, linger)
        self._process: Any = None
        self._conn: Any = None
        self._poller: Any = None
        self.rows = self.items = 0
        self.error: BaseException | None = None
        self._raised = False

    def put(self, item: Any, rows: int) -> None:
        """Hand `item` (`rows` rows of the log) over; nothing after a failed write."""
        if self.error is not None:
            return
        if self._process is None:
            self._start()
        self._send(("put", item, rows))
        self.rows += rows
        self.items += 1

    def wait(self, rows: int | None = None, items: int | None = None) -> None:
        """Until at most `rows` rows and fewer than `items` items are unwritten (None: none at
        all); raises the error of a write that failed, the first time."""
        def unwritten() -> bool:
            return self.error is None and self.items > 0 and (
                rows is None or self.rows > rows or (items is not None and self.items >= items))
        while self._conn is not None and self._readable(0):
            self._receive()
        if unwritten():
            self._send(("hurry",))
            while unwritten():
                self._receive()
        if self.error is not None and not self._raised:
            self._raised = True
            raise self.error

    def call(self, name: str, *args: Any) -> Any:
        """`target.name(*args)`, once everything handed over is written (in the process, if started)."""
        if self._process is None:
            return getattr(self._target, name)(*args)
        self._send(("call", name, args))
        while True:
            reply = self._receive()
            if reply is not None and reply[0] == "result":
                return reply[1]
            if reply is not None and reply[0] == "failed":
                raise reply[1]

    def cpu_seconds(self) -> float | None:
        """The writer process's CPU seconds so far, once everything handed over is written (None:
        not started)."""
        return None if self._process is None else self.call("cpu_seconds")

    def close(self) -> None:
        """Write what is queued, then end the process (errors: see `wait`)."""
        if self._process is None:
            self._target.close()
            return
        try:
            if self._process.is_alive():  # (one that died: `wait` or `call` said so already)
                self._send(("close",))
                while (reply := self._receive()) is None or reply[0] != "closed":
                    pass
        finally:
            self._conn.close()
            self._process.join(timeout=10)
            if self._process.is_alive():
                self._process.kill()
            self._process = None

    def _start(self) -> None:
        freeze_forked_children()
        context = multiprocessing.get_context("fork")
        (down_end, down), (up, up_end) = context.Pipe(duplex=False), context.Pipe(duplex=False)  # (reads, writes)
        _widen(down.fileno())
        self._process = context.Process(
            target=_serve, args=(_Channel(down_end, up_end), self._target, *self._options, os.getpid()),
            name="evo-log-writer", daemon=True)
        self._process.start()
        down_end.close()
        up_end.close()
        self._conn = _Channel(up, down)
        self._poller = select.poll()  # (`Connection.poll` builds a selector each call: ~30 µs a generation)
        self._poller.register(self._conn.fileno(), select.POLLIN)

    def _send(self, message: tuple) -> None:
        try:
            self._conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:  # the process is gone
            raise self._died() from None

    def _died(self) -> RuntimeError:
        self._process.join(timeout=1)
        return RuntimeError(f"the log's writer process ended unexpectedly (exit code {self._process.exitcode}); "
                            "`evo resume` continues from what it wrote")

    def _readable(self, seconds: float) -> bool:
        return bool(self._poller.poll(seconds * 1000))

    def _receive(self) -> tuple | None:
        """The next message from the process, counting what it wrote; a reply to `call` or
        `close` is returned (None: an acknowledgement)."""
        while not self._readable(POLL_SECONDS):
            if not self._process.is_alive():
                break
        try:
            message = pickle.loads(self._conn.recv_bytes())
        except (EOFError, OSError):
            raise self._died() from None
        if message[0] == "written":
            self.rows -= message[1]
            self.items -= message[2]
            return None
        if message[0] == "error":
            self.error, self.rows, self.items = message[1], 0, 0
            return None
        return message


class LogWriterThread:
    """`LogWriterProcess`'s interface on a thread of this process (platforms without `fork`)."""

    def __init__(self, target: Any, batch_rows: int, batch_items: int, linger: float) -> None:
        self._target = target
        self._writer = BatchWriter(target.write, batch_rows, batch_items, linger)
        self.put, self.wait = self._writer.put, self._writer.wait

    def close(self) -> None:
        try:
            self._writer.close()
        finally:
            self._target.close()

    @property
    def error(self) -> BaseException | None:
        return self._writer.error

    @property
    def rows(self) -> int:
        return self._writer.rows

    @property
    def items(self) -> int:
        return self._writer.items

    def cpu_seconds(self) -> None:
        """None: the writer's CPU is this process's own."""
        return None

    def call(self, name: str, *args: Any) -> Any:
        self._writer.wait(raises=False)  # a failed write's error is `wait`'s to raise
        return getattr(self._target, name)(*args)


class _Channel:
    """One end of the loop's and the process's channel: two pipes, one each way (a pipe's
    buffer is widened by one call, `F_SETPIPE_SZ`)."""

    def __init__(self, reading: Any, writing: Any) -> None:
        self._ends = reading, writing
        self.recv_bytes, self.send_bytes, self.fileno = reading.recv_bytes, writing.send_bytes, reading.fileno

    def close(self) -> None:
        for end in self._ends:
            end.close()


def _widen(fd: int) -> None:
    """The pipe's buffer at `PIPE_BYTES` where the system allows (Linux), so that the loop does
    not block on a full pipe while the process drains it at `DRAIN_SECONDS`."""
    with contextlib.suppress(AttributeError, OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def _serve(conn: Any, target: Any, batch_rows: int, batch_items: int, linger: float, parent: int) -> None:
    """The process: reads the pipe, hands puts to a `BatchWriter`, answers calls."""
    _die_with(parent)
    sending = threading.Lock()

    def send(message: tuple) -> None:
        with sending:
            conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def done(rows: int, items: int, error: BaseException | None) -> None:
        send(("written", rows, items) if error is None else ("error", _portable(error)))

    writer = BatchWriter(target.write, batch_rows, batch_items, linger, done=done)
    pending = select.poll()
    pending.register(conn.fileno(), select.POLLIN)
    kind = None
    while True:
        if kind == "put" and not pending.poll(0):  # (see the module's docstring)
            time.sleep(DRAIN_SECONDS)
        try:
            kind, *args = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the loop is gone without closing: write what came
            writer.close()
            target.close()
            return
        if kind == "put":
            writer.put(*args)
        elif kind == "hurry":
            writer.hurry()
        elif kind == "call":
            try:
                writer.wait(raises=False)  # a failed write was sent already
                send(("result", getattr(target, args[0])(*args[1])))
            except BaseException as exc:  # the call's own
                send(("failed", _portable(exc)))
        elif kind == "close":
            writer.close()
            target.close()
            send(("closed",))
            return


def _die_with(parent: int) -> None:
    """End this process when `parent` does (SIGKILL), and leave SIGINT and SIGTERM to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        libc.prctl(PR_SET_NAME, b"evo-log-writer")  # as top and ps -o comm show it
    except (AttributeError, OSError):  # no prctl: the pipe's end says it
        pass
    if os.getppid() != parent:  # it died before prctl
        os._exit(0)


def _portable(error: BaseException) -> BaseException:
    """`error`, or where it does not pickle, a RuntimeError saying it."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any error that does not survive pickling
        return RuntimeError(f"{type(error).__name__}: {error}")
