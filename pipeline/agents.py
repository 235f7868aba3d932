"""Agents by name for the CLI: registered names, or saved agents on disk."""

from __future__ import annotations

from pathlib import Path

from fitness.nim import Agent, Rules, agent

__all__ = ["build_agent"]


def build_agent(name: str, rules: Rules) -> Agent:
    """A registered agent (`expert`, `sloppy:0.1`, ...) or a saved one (`runs/x/best.json`)."""
    if name.endswith(".json") and ":" not in name:  # `rl:x.json` is a registered kind
        path = Path(name)
        if not path.exists():
            raise FileNotFoundError(f"no saved agent at {name}")
        from .hall_of_fame import load_agent  # a run's best.json

        return load_agent(path, rules)
    return agent(name, rules)
