"""evo's pipeline: specs, runs, run directories, reports, and the Python API.

`import pipeline` is cheap: the API names below are imported on first use,
so the `evo` command starts without loading pandas, DEAP or Ray.
"""

from __future__ import annotations

from typing import Any

_API = ("run", "resume", "open_run", "load_agent", "shutdown", "Run", "OnGeneration")
_EXCEPTIONS = {  # errors, and the warning the API gives its notes as
    "SpecError": "spec", "RunExists": "runner", "RunDirError": "rundir", "RunNote": "spec_notes"}

__all__ = [*_API, *_EXCEPTIONS]


def __getattr__(name: str) -> Any:
    import importlib

    if name in _API:
        return getattr(importlib.import_module(".api", __name__), name)
    if name in _EXCEPTIONS:
        return getattr(importlib.import_module(f".{_EXCEPTIONS[name]}", __name__), name)
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
