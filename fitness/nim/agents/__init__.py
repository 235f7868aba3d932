"""Agents registered by name, so specs, the CLI and tests all say `"expert"`.

A name is `kind` or `kind:parameter` (`sloppy:0.1`, `minimax:3`). Other
modules add kinds with `register` (decoded genomes, learned agents).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

from ...plugins import PluginError, entry_point_names, is_reference, resolve
from ..rules import Rules
from .base import Agent, CodedPolicy, IllegalMoveError, Moves
from .basic import ExpertAgent, MinimaxAgent, RandomAgent, SloppyAgent
from .lookahead import LookaheadAgent
from .seeds import (
    EvenOddAgent,
    FixedRulesAgent,
    GabrieleAgent,
    LongestAgent,
    SillyAgent,
    SingleRowAgent,
)

__all__ = [
    "Agent",
    "CodedPolicy",
    "IllegalMoveError",
    "Moves",
    "agent",
    "agent_names",
    "register",
]

Factory = Callable[[str, Rules, "str | None"], Agent]


@dataclass(frozen=True)
class _Entry:
    factory: Factory
    usage: str  # how the name is written, e.g. "sloppy:P"
    help: str


_REGISTRY: dict[str, _Entry] = {}


def register(kind: str, factory: Factory, usage: str | None = None, help: str = "") -> None:
    """Make `agent(kind or "kind:param", rules)` build agents with `factory(name, rules, param)`."""
    _REGISTRY[kind] = _Entry(factory, usage or kind, help)


def agent_names() -> list[str]:
    """How each registered agent is named (`P` marks a parameter)."""
    return [entry.usage for entry in _REGISTRY.values()]


def agent(name: str, rules: Rules) -> Agent:
    """Build the agent called `name` for `rules` (e.g. `"expert"`, `"sloppy:0.2"`)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"agent name must be a non-empty string, got {name!r}")
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a fitness.nim.Rules, got {rules!r}")
    kind, sep, param = name.partition(":")
    entry = _REGISTRY.get(kind)
    if entry is None:
        if is_reference(name) or name in entry_point_names("agent"):
            return _user_agent(name, rules)
        close = difflib.get_close_matches(kind, list(_REGISTRY), n=1)
        hint = f"did you mean {close[0] + name[len(kind):]!r}? " if close else ""
        raise ValueError(f"unknown agent {name!r}; {hint}valid agents: {', '.join(agent_names())}, "
                         "or your own as 'module:name'")
    return entry.factory(name, rules, param if sep else None)


def _user_agent(name: str, rules: Rules) -> Agent:
    """An agent of the user's: `module:attribute` naming an Agent subclass (built as
    `cls(name, rules)`) or a function `f(rules)` returning an Agent."""
    target = resolve(name, "agent")
    try:
        built = target(name, rules) if isinstance(target, type) and issubclass(target, Agent) else target(rules)
    except Exception as exc:
        lines = str(exc).strip().splitlines()
        raise PluginError(f"agent {name!r}: {type(exc).__name__}: {lines[0] if lines else ''}") from None
    if not isinstance(built, Agent):
        raise PluginError(f"agent {name!r}: gave a {type(built).__name__}, not a fitness.nim.Agent")
    if built.rules != rules:
        raise PluginError(f"agent {name!r}: plays {built.rules.describe()}, not {rules.describe()}")
    return built


def no_param_factory(cls: type[Agent]) -> Factory:
    """A factory for agents written without a parameter (`cls(name, rules)`)."""
    def build(name: str, rules: Rules, param: str | None) -> Agent:
        if param is not None:
            raise ValueError(f"agent {name!r}: {cls.__name__} takes no parameter; write {name.split(':')[0]!r}")
        return cls(name, rules)

    return build


def _sloppy(name: str, rules: Rules, param: str | None) -> Agent:
    try:
        p = 0.1 if param is None else float(param)
    except ValueError:
        p = float("nan")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"agent {name!r}: sloppy:P needs a probability P between 0 and 1")
    return SloppyAgent(name, rules, p)


def _minimax(name: str, rules: Rules, param: str | None) -> Agent:
    if param is None:
        return MinimaxAgent(name, rules)
    if not param.isdigit() or int(param) < 1:
        raise ValueError(f"agent {name!r}: minimax:D needs a search depth D >= 1 (an integer)")
    return LookaheadAgent(name, rules, int(param))


register("random", no_param_factory(RandomAgent), help="a non-empty row uniformly, then a count uniformly")
register("expert", no_param_factory(ExpertAgent), help="exact: a winning move whenever one exists")
register(
    "minimax",
    _minimax,
    usage="minimax, minimax:D",
    help="the exact solver's best move; minimax:D searches D plies, seed 004's heuristic beyond",
)
register("sloppy", _sloppy, usage="sloppy:P", help="expert, but a random move with probability P")
register("gabriele", no_param_factory(GabrieleAgent), help="most objects from the lowest-index row")
register("longest", no_param_factory(LongestAgent), help="the whole longest row")
register("silly", no_param_factory(SillyAgent), help="all it may from the smallest row")
register("single-row", no_param_factory(SingleRowAgent), help="each row played as if alone (seed 003)")
register("even-odd", no_param_factory(EvenOddAgent), help="total even/odd rule (seed 003)")
register("fixed-rules", no_param_factory(FixedRulesAgent), help="seed 000's fixed-rule agent")

# Parameterised agents and the `rules`/`table` genome decoders register themselves.
from . import expression, mixture, rule_agents  # noqa: E402,F401


def _rl(name: str, rules: Rules, param: str | None) -> Agent:
    if not param:
        raise ValueError(f"agent {name!r}: write rl:PATH, the file saved by `evo train-rl`")
    from ..rl.storage import load_agent  # on use: the RL package imports these agents itself

    return load_agent(param, rules, name=name)


register("rl", _rl, usage="rl:PATH", help="a reinforcement-learning agent saved by `evo train-rl`")
