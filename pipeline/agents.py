"""Agents by name for the CLI: registered names, or saved agents on disk."""

from __future__ import annotations

import os
from pathlib import Path

from fitness.nim import Agent, Rules, agent
from fitness.plugins import add_search_path

__all__ = ["build_agent"]


def _saved(name: str) -> Path | None:
    """The best.json `name` points to: the file itself, or a run directory's; None if `name`
    is not a path (`rl:x.json` is a registered kind, `my_agents:Cautious` a plug-in)."""
    path = Path(name)
    if path.is_dir():
        if not (path / "best.json").is_file():
            raise FileNotFoundError(f"{name}: a folder with no best.json: not a run directory (or one with "
                                    "no hall of fame yet)")
        return path / "best.json"
    if name.endswith(".json") and ":" not in name:
        if not path.exists():
            raise FileNotFoundError(f"no saved agent at {name}")
        return path
    return None


def build_agent(name: str, rules: Rules) -> Agent:
    """A registered agent (`expert`, `sloppy:0.1`, ...), a saved one (a run directory such as
    `runs/nim-table`, or its `best.json`; `RUN/archive:CELL`: an elite of a MAP-Elites run),
    or your own (`my_agents:Cautious`, from the current folder or an installed package)."""
    add_search_path(os.getcwd())
    from .archive import split_archive_name

    in_archive = split_archive_name(name)
    if in_archive is not None:  # RUN/archive:CELL: an elite of a MAP-Elites run
        from .api import load_agent

        return load_agent(in_archive[0], rules, cell=in_archive[1])
    saved = _saved(name)
    if saved is not None:
        from .hall_of_fame import load_agent  # a run's best.json

        return load_agent(saved, rules)
    return agent(name, rules)
