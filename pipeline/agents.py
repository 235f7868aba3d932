"""Agents by name for the CLI: registered names, or saved agents on disk."""

from __future__ import annotations

import os
from pathlib import Path

from fitness.nim import Agent, Rules, agent
from fitness.plugins import add_search_path

__all__ = ["build_agent"]


def build_agent(name: str, rules: Rules) -> Agent:
    """A registered agent (`expert`, `sloppy:0.1`, ...), a saved one (`runs/x/best.json`),
    or your own (`my_agents:Cautious`, from the current folder or an installed package)."""
    add_search_path(os.getcwd())
    if name.endswith(".json") and ":" not in name:  # `rl:x.json` is a registered kind
        path = Path(name)
        if not path.exists():
            raise FileNotFoundError(f"no saved agent at {name}")
        from .hall_of_fame import load_agent  # a run's best.json

        return load_agent(path, rules)
    return agent(name, rules)
