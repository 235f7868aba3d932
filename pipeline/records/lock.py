"""One writer per run directory: an exclusive `flock` on `<run>/run.lock`.

The kernel drops the lock when its holder dies, SIGKILL included, so a lock
is never stale and nobody has to delete it (the file stays: removing it would
race with the next writer). The file holds the holder's pid, for the refusal
message, and a small reserve of disk space that the holder gives back when a
write fails on a full disk, so that the failure can still be recorded in
run.json.
"""

from __future__ import annotations

import errno
import fcntl
import os
import weakref
from pathlib import Path

__all__ = ["LOCK_NAME", "RunLock", "RunLocked", "check_unlocked"]

LOCK_NAME = "run.lock"
RESERVE_BYTES = 64 * 1024  # room for run.json's final status when the disk is full


class RunLocked(ValueError):
    """Another live process is writing this run directory."""


_HELD: weakref.WeakSet[RunLock] = weakref.WeakSet()  # the locks this process holds


def _forget_held_locks() -> None:
    """In a forked child (the log's writer, a local worker): close its copy of each lock's file,
    so that only the process that took a lock holds it, and it ends with that process's death."""
    for lock in list(_HELD):
        if lock._fd is not None:
            try:
                os.close(lock._fd)  # (the parent's copy keeps the flock)
            except OSError:
                pass
            lock._fd = None


os.register_at_fork(after_in_child=_forget_held_locks)


class RunLock:
    """Held for the whole of `evo run` / `evo resume` (`with RunLock(path): ...`)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_NAME
        self._fd: int | None = None
        self._pid_line = f"{os.getpid()}\n".encode()

    def acquire(self) -> "RunLock":
        """Take the lock at once or raise `RunLocked` naming the holder's pid."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # O_CLOEXEC: Ray's processes never inherit it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise _locked(self.directory, holder) from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        _HELD.add(self)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, self._pid_line, 0)
            _reserve(fd, len(self._pid_line), RESERVE_BYTES)  # also proves the disk has room
        except BaseException:
            self.release()
            raise
        return self

    def give_back_reserve(self) -> None:
        """Free the reserved space (after a disk-full error, before writing the status)."""
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, len(self._pid_line))
            except OSError:
                pass

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        _HELD.discard(self)
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass
        os.close(fd)  # drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _locked(directory: Path, holder: str) -> RunLocked:
    return RunLocked(f"{directory}: another evo process (pid {holder}) is writing this run directory; "
                     "wait for it to end or stop it first")


def check_unlocked(directory: str | Path) -> None:
    """Raise `RunLocked` if a live process writes `directory`, creating nothing: a refusal said
    before a command's start line (the writer still takes the lock itself, which decides)."""
    try:
        fd = os.open(Path(directory) / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return  # no lock file, or none readable: taking the lock says why
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # released at close, at once
    except BlockingIOError:
        raise _locked(Path(directory), _holder(fd)) from None
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    try:
        first = os.pread(fd, 32, 0).split(b"\n")[0].strip(b"\0 ")
        return str(int(first))
    except (OSError, ValueError):
        return "unknown"


def _reserve(fd: int, offset: int, size: int) -> None:
    try:
        os.posix_fallocate(fd, offset, size)
    except OSError as exc:
        if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
            raise
        os.pwrite(fd, b"\0" * size, offset)  # a file system without fallocate
        os.fsync(fd)
