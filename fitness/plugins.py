"""User code named in a spec: `module:attribute`, or an installed entry point's name.

A spec may name its own problem, genome kind or Nim agent. Such a name is
either `module:attribute` (the module importable from the spec's folder or an
installed package) or the name of an entry point an installed package
declares in the group `evo.problems`, `evo.kinds` or `evo.agents`. Anything
that goes wrong (no module, no attribute, an exception while importing) is
`PluginError`, one line naming the reference and the cause.

This module imports nothing of ours: tasks are built from it on Ray workers.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path
from importlib import metadata
from typing import Any

__all__ = ["PluginError", "add_search_path", "is_reference", "resolve", "entry_point_names", "GROUPS",
           "install_bundle"]

GROUPS = {"problem": "evo.problems", "kind": "evo.kinds", "agent": "evo.agents", "algorithm": "evo.algorithms"}
REFERENCE_PATTERN = r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$"  # `module:attribute`
_REFERENCE = re.compile(REFERENCE_PATTERN)
_SEARCH_PATHS: list[str] = []  # folders added for specs' own modules (named in errors)


def add_search_path(folder: str) -> None:
    """Make modules in `folder` (a spec's folder) importable. Searched after the
    installed packages, so a `random.py` beside a spec cannot shadow the standard one."""
    if folder not in sys.path:
        sys.path.append(folder)
    if folder not in _SEARCH_PATHS:
        _SEARCH_PATHS.append(folder)


class PluginError(ValueError):
    """A plug-in that cannot be loaded, explained in one line."""


def is_reference(name: str) -> bool:
    """True for `module:attribute` (dotted names allowed on both sides)."""
    return bool(_REFERENCE.match(name))


def entry_point_names(role: str) -> list[str]:
    """Names installed packages declare for `role` ("problem", "kind", "agent", "algorithm")."""
    return sorted({ep.name for ep in metadata.entry_points(group=GROUPS[role])})


def resolve(name: str, role: str) -> Any:
    """The object `name` refers to: `module:attribute`, or an entry point of `role`'s group."""
    if is_reference(name):
        module_name, attribute = name.split(":", 1)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            folders = [f for f in _SEARCH_PATHS if f in sys.path]
            where = f" (looked in {', '.join(folders)} and the installed packages)" if folders else ""
            raise PluginError(f"{role} {name!r}: no module named {exc.name!r}{where}") from None
        except Exception as exc:  # the user's module raised while importing
            raise PluginError(f"{role} {name!r}: importing {module_name} failed: "
                              f"{type(exc).__name__}: {_first_line(exc)}") from None
        target: Any = module
        for part in attribute.split("."):
            try:
                target = getattr(target, part)
            except AttributeError:
                raise PluginError(f"{role} {name!r}: module {module_name} has no attribute {attribute!r}") from None
        return target
    found = [ep for ep in metadata.entry_points(group=GROUPS[role]) if ep.name == name]
    if not found:
        raise PluginError(f"{role} {name!r}: not a built-in {role}, not `module:attribute`, and no installed "
                          f"package declares it in the entry point group {GROUPS[role]!r}")
    try:
        return found[0].load()
    except Exception as exc:
        raise PluginError(f"{role} {name!r}: loading entry point {found[0].value!r} failed: "
                          f"{type(exc).__name__}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else ""


def install_bundle(data: bytes) -> str:
    """Unpack a zip of the spec's own modules (made by the driver) and make them importable.

    This is how user code reaches a Ray worker on any node: inside the task's
    setup call, no shared file system and no job-level runtime_env needed.
    The folder is named by the bundle's hash, so actors on a node share it."""
    digest = hashlib.sha256(data).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"evo-code-{digest}"
    if not (folder / ".complete").exists():
        staging = Path(tempfile.mkdtemp(prefix=f"evo-code-{digest}-", dir=tempfile.gettempdir()))
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            archive.extractall(staging)
        (staging / ".complete").write_text("")
        try:
            staging.rename(folder)
        except OSError:  # another actor on this node got there first: its copy is the same
            shutil.rmtree(staging, ignore_errors=True)
    add_search_path(str(folder))
    if str(folder) in sys.path:  # ahead of the rest here: this is exactly the driver's code
        sys.path.remove(str(folder))
        sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    return str(folder)
