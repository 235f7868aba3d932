"""Registers the agent kind `rl:PATH`: a file saved by `evo train-rl`."""

from __future__ import annotations

from ..agents import register
from ..agents.base import Agent
from ..rules import Rules
from .storage import load_agent


def _rl(name: str, rules: Rules, param: str | None) -> Agent:
    if not param:
        raise ValueError(f"agent {name!r}: write rl:PATH, the file saved by `evo train-rl`")
    return load_agent(param, rules, name=name)


register("rl", _rl, usage="rl:PATH", help="a reinforcement-learning agent saved by `evo train-rl`")
