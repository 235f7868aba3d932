"""Nim: rules, a batched match engine, named agents and an exact solver."""

from .agents import Agent, IllegalMoveError, agent, agent_names, register
from .engine import MatchResult, play, wilson_interval
from .rules import Rules
from .solver import SolvedGame, canonical, solve
from .theory import is_p_position

__all__ = [
    "Agent",
    "IllegalMoveError",
    "MatchResult",
    "Rules",
    "SolvedGame",
    "agent",
    "agent_names",
    "canonical",
    "is_p_position",
    "play",
    "register",
    "solve",
    "wilson_interval",
]
