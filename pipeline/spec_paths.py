"""A spec file, and the data paths in it: one rule, the spec's folder, as for plug-ins.

`load_spec` reads a spec file (a path that names none is answered with the
closest spec). Its data paths (`setcover.instance`) are read from its folder.

Specs written when paths were read from the current folder keep working: a
path not found beside the spec but found from the current folder is used, with
a note saying how to name it. A path given with `--set` on a command line is
read from the current folder, as a shell user expects. The spec keeps the absolute path (run.json records it,
so `evo resume` works from any folder).

The run id names a data file by its folder's name and its own (`path_names`:
`runs/setcover-scp.txt`), never by where the run was started from: the same spec
gets the same run id from any folder, and a spec printed by `evo spec` (absolute
paths) runs as the original. That is the name the old rule gave a shipped spec's
file from the checkout's root, so those runs keep their run ids and logs.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from .spec_errors import SpecError

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = ["DATA_PATHS", "Resolved", "load_spec", "resolve_data_paths", "spec_suggestion", "with_data_paths"]

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
        resolved.path_names[key] = run_id_name(Path(resolved.paths[key]))
        if index == 1:  # found only from the current folder
            better = os.path.relpath(os.path.abspath(found), spec_dir.resolve())
            resolved.notes.append(f"{key}: {written!r} is read from the current folder; a spec names its files "
                                  f"relative to its own folder ({spec_dir}): write {better!r}")
    return resolved


def run_id_name(path: Path) -> str:
    """How the run id names the data file at absolute `path`: its folder's name and its own, the
    same from any current folder (`runs/setcover-scp.txt`, as the checkout's root named it)."""
    return Path(path.parent.name, path.name).as_posix()


def spec_suggestion(path: Path) -> str:
    """`; did you mean runs/nim-table.toml?` for a spec path that names no file: the closest
    spec beside it (or in a runs/ folder there), else nothing."""
    folder = path.parent
    candidates = [str(p) for place in (folder, folder / "runs") for p in sorted(place.glob("*.toml"))]
    wanted = str(path if path.suffix == ".toml" else path.with_name(path.name + ".toml"))
    close = difflib.get_close_matches(wanted, candidates, n=1)
    return f"; did you mean {close[0]}?" if close else ""


def with_data_paths(spec: RunSpec, spec_dir: Path | None, source: str, from_flags: tuple[str, ...]) -> RunSpec:
    """`spec` with its data files found: absolute, and named for the run id as before."""
    found = resolve_data_paths(spec.model_dump(), spec_dir, source, from_flags)
    for key, path in found.paths.items():
        section, leaf = key.split(".")
        spec = spec.model_copy(update={section: getattr(spec, section).model_copy(update={leaf: path})})
    return spec.naming_paths(found.path_names, tuple(found.notes))


def read_spec_file(path: Path) -> dict[str, Any]:
    """A TOML spec file's data, named after the file and with its `code_dir` resolved (what
    `spec.load_spec` validates)."""
    if path.is_dir():
        specs = sorted(str(p) for p in path.glob("*.toml"))
        listed = f"the specs in it: {', '.join(specs)}" if specs else f"it holds no spec (*.toml){spec_suggestion(path)}"
        raise SpecError(f"{path}: a directory, not a spec file; {listed}")
    if not path.is_file():
        raise SpecError(f"{path}: no such spec file{spec_suggestion(path)}")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    data.setdefault("name", path.stem)
    if isinstance(data.get("execution"), dict) and isinstance(data["execution"].get("code_dir"), str):
        data["execution"]["code_dir"] = str((path.parent / data["execution"]["code_dir"]).resolve())
    elif isinstance(data.setdefault("execution", {}), dict):
        data["execution"]["code_dir"] = str(path.parent.resolve())  # the spec's own modules
    return data
