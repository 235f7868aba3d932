"""A spec's own code, on the driver and on the Ray workers.

A spec may name user-defined modules (`problem = "knapsack:Knapsack"`, a
genome kind, Nim opponents such as `"my_agents:Cautious"`). The driver
imports them from the spec's folder (`execution.code_dir`) or the installed
packages. Each such module that is not an installed package (a single .py
file, or a package folder) is zipped into a bundle that travels to every Ray
actor with its task spec and is unpacked there before the task is built, so
it reaches a remote cluster as it reaches the embedded Ray. (Ray's own
`py_modules` takes local paths only for a whole job, at `ray.init`, which a
notebook's or a Ray Job's already running Ray does not allow.) Modules from
installed packages (and `evo.*` entry points) are not shipped: install them
on every node, as Ray recommends for dependencies.
"""

from __future__ import annotations

import io
import sys
import sysconfig
import zipfile
from types import ModuleType
from pathlib import Path

from fitness.plugins import is_reference, resolve

from .spec import BUILTIN_KINDS, BUILTIN_PROBLEMS, RunSpec

__all__ = ["references", "shipped_modules", "code_bundle"]

BUNDLE_LIMIT = 50 * 2**20  # bytes: user code, not data sets


def references(spec: RunSpec) -> list[str]:
    """Every `module:attribute` the spec names (problem, genome kind, Nim agents)."""
    names = []
    if spec.problem not in BUILTIN_PROBLEMS:
        names.append(spec.problem)
    if spec.genome.kind not in BUILTIN_KINDS:
        names.append(spec.genome.kind)
    if spec.nim is not None:
        names += list(spec.nim.opponents)
        if spec.genome.kind == "table":
            names += list(spec.genome.columns)
    return [name for name in dict.fromkeys(names) if is_reference(name)]


def _installed_roots() -> list[Path]:
    paths = sysconfig.get_paths()
    return [Path(paths[key]).resolve() for key in ("purelib", "platlib", "stdlib") if key in paths]


def _source(module: ModuleType) -> Path | None:
    """The file or package folder Ray must ship for a top-level module (None: installed)."""
    if hasattr(module, "__path__"):
        paths = list(module.__path__)
        location = Path(paths[0]) if len(paths) == 1 else None
    else:
        location = Path(module.__file__) if getattr(module, "__file__", None) else None
    if location is None:
        return None
    location = location.resolve()
    if any(root == location or root in location.parents for root in _installed_roots()):
        return None
    return location


def shipped_modules(spec: RunSpec) -> list[str]:
    """Paths of the spec's own modules that are not installed packages."""
    shipped = []
    for name in references(spec):
        role = "problem" if name == spec.problem else "kind" if name == spec.genome.kind else "agent"
        resolve(name, role)  # imported on the driver (and a clear error if it cannot be)
        top = sys.modules[name.split(":", 1)[0].split(".")[0]]
        source = _source(top)
        if source is not None and str(source) not in shipped:
            shipped.append(str(source))
    return shipped


def code_bundle(spec: RunSpec) -> bytes | None:
    """A zip of the spec's own modules for the Ray workers (None: it names none).

    Entries carry a fixed date, so the same code gives the same bytes (and the
    same folder on the workers, see `fitness.plugins.install_bundle`)."""
    modules = shipped_modules(spec)
    if not modules:
        return None
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for source in map(Path, modules):
            files = [source] if source.is_file() else sorted(
                f for f in source.rglob("*") if f.is_file() and "__pycache__" not in f.parts)
            for file in files:
                info = zipfile.ZipInfo(str(file.relative_to(source.parent)), date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, file.read_bytes())
    data = buffer.getvalue()
    if len(data) > BUNDLE_LIMIT:
        raise ValueError(f"the spec's own modules ({', '.join(modules)}) come to {len(data) / 2**20:.0f} MB "
                         f"zipped, over {BUNDLE_LIMIT // 2**20} MB: install them as a package on every node instead")
    return data
