"""Data paths in a spec (`setcover.instance`): one rule, the spec's folder, as for plug-ins.

A relative path is read from the spec's folder. Specs written when paths were
read from the current folder keep working: a path not found beside the spec
but found from the current folder is used, with a note saying how to name it.
A path given with `--set` on a command line is read from the current folder,
as a shell user expects. The spec keeps the absolute path (run.json records it,
so `evo resume` works from any folder).

The run id hashes the path as the old rule spelled it (from the current folder,
`path_names`), so a run started as before keeps its run id and its log.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .spec_errors import SpecError

__all__ = ["DATA_PATHS", "Resolved", "resolve_data_paths"]

# Every spec key that names a data file to read ("section.key").
DATA_PATHS = ("setcover.instance",)


class Resolved:
    """What resolving a spec's data paths gave: absolute paths by key, how the run id names
    them (`path_names`), and notes for paths found only by the old rule."""

    def __init__(self) -> None:
        self.paths: dict[str, str] = {}
        self.path_names: dict[str, str] = {}
        self.notes: list[str] = []


def _places(spec_dir: Path | None, from_flag: bool) -> list[tuple[Path, str]]:
    cwd = Path.cwd()
    if spec_dir is None or from_flag:
        return [(cwd, "the current folder")]
    if spec_dir.resolve() == cwd.resolve():
        return [(spec_dir, "the spec's folder")]
    return [(spec_dir, "the spec's folder"), (cwd, "the current folder (the old rule)")]


def _find(key: str, written: str, spec_dir: Path | None, from_flag: bool, source: str) -> tuple[Path, int]:
    """The file `written` names and the index of the place it was found in."""
    path = Path(written).expanduser()
    if path.is_absolute():
        if path.is_file():
            return path, 0
        raise SpecError(f"{source}: {key}: no such file {written!r}")
    places = _places(spec_dir, from_flag)
    for index, (base, _) in enumerate(places):
        if (base / path).is_file():
            return base / path, index
    looked = " and ".join(f"{what} {base.resolve()}" for base, what in places)
    raise SpecError(f"{source}: {key}: no such file {written!r} (looked in {looked})")


def resolve_data_paths(sections: dict[str, dict[str, object]], spec_dir: Path | None, source: str,
                       from_flags: Iterable[str] = ()) -> Resolved:
    """Find each data path of `sections` (a spec's tables, by name); `spec_dir` None: a spec
    with no file (a dict), read from the current folder. Raises `SpecError` for a missing file."""
    flags, resolved = set(from_flags), Resolved()
    for key in DATA_PATHS:
        section, name = key.split(".")
        written = (sections.get(section) or {}).get(name)
        if not isinstance(written, str):
            continue
        found, index = _find(key, written, spec_dir, key in flags, source)
        resolved.paths[key] = os.path.abspath(found)
        from_cwd = Path(written).expanduser()
        # The old rule's spelling: as written when the current folder finds it, else from there.
        same = from_cwd.is_file() and os.path.samefile(from_cwd, found)
        resolved.path_names[key] = written if same else os.path.relpath(found)
        if index == 1:  # found only from the current folder
            better = os.path.relpath(os.path.abspath(found), spec_dir.resolve())
            resolved.notes.append(f"{key}: {written!r} is read from the current folder; a spec names its files "
                                  f"relative to its own folder ({spec_dir}): write {better!r}")
    return resolved
