"""Where a run writes, checked before anything is said or started.

A run directory is a directory: when the path (or a folder above it) is a
regular file, a FIFO, ... the run is refused in one line naming what is there,
rather than failing with `File exists` after the start line was printed.
"""

from __future__ import annotations

import stat
from pathlib import Path

__all__ = ["NotADirectoryPath", "check_run_dir"]


class NotADirectoryPath(ValueError):
    """A run directory path that names something other than a directory (one line)."""


def _what(path: Path) -> str | None:
    """What stands at `path` when it is not a directory (None: a directory, or nothing)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "a broken symbolic link" if path.is_symlink() else None
    except NotADirectoryError:
        return None  # a folder above is not a directory: the caller names that one
    if stat.S_ISDIR(mode):
        return None
    kinds = ((stat.S_ISREG, "a regular file"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a directory")


def check_run_dir(path: str | Path, advice: str = "") -> None:
    """Refuse `path` as a run directory when it, or a folder above it, is not a directory
    (`advice` ends the message: what to do instead)."""
    path = Path(path)
    for place in (path, *path.parents):
        found = _what(place)
        if found is None:
            continue
        if place == path:
            raise NotADirectoryPath(f"{path}: {found}, not a run directory{advice}")
        raise NotADirectoryPath(f"{path}: {place} is {found}, not a folder, so no run directory can be made "
                                f"under it{advice}")
