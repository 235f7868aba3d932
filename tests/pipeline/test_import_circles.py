"""No import circle in pipeline/: every module's imports, those inside functions too (a lazy import
is a dependency all the same), point one way, so each package can be read, and replaced, from
the bottom up. Imports under `if TYPE_CHECKING:` are for annotations only and are left out."""

from __future__ import annotations

import ast
from pathlib import Path

PIPELINE = Path(__file__).resolve().parents[2] / "pipeline"


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, whether it is a package's __init__)."""
    found = {}
    for path in PIPELINE.rglob("*.py"):
        parts = list(path.relative_to(PIPELINE.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for child in node.body for inner in ast.walk(child))
    return skipped


def _imports(name: str, path: Path, package: bool, modules: dict) -> set[str]:
    """The pipeline modules `name` imports, with the packages above each that it is not inside
    (their __init__ runs first); from its own package's __init__ only where a name is taken from it."""
    here = name if package else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text())
    skipped, found = _type_checking_only(tree), set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            # `from .pkg import mod` needs mod; `from .pkg import name`, pkg's __init__
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            continue
        for target in targets:  # and the packages above it that `name` is not inside: their __init__ runs first
            parts = target.split(".")
            found.update(package for package in (".".join(parts[:i]) for i in range(2, len(parts) + 1))
                         if package in modules and not (name + ".").startswith(package + "."))
    found.discard(name)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, package, modules) for name, (path, package) in modules.items()}


def test_the_circle_finder_finds_a_circle_and_only_it():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_pipeline():
    graph = import_graph()
    assert "pipeline.islands.loop" in graph and graph["pipeline.islands.on_ray"]  # the graph is read
    circles = _circles(graph)
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)
