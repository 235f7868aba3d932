"""Hyperparameters of a training run and the opponent mix, validated up front."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Mapping

from .rewards import Rewards

__all__ = ["Hyperparameters", "METHODS", "SELF", "parse_mix"]

METHODS = ("td", "mc")
SELF = "self"  # the opponent name for self-play

# Without an explicit decay, epsilon and alpha reach their floors after this
# share of the episodes, leaving the rest for near-greedy refinement.
_DECAY_SHARE = 0.6


@dataclass(frozen=True)
class Hyperparameters:
    """How the learner learns: method, schedules, discount, rewards, batching.

    Epsilon and alpha decay geometrically per episode down to their floors; a
    decay of None means "reach the floor after 60% of the episodes". With
    `adaptive` > 0 (seed 004), epsilon also rises by `adaptive` per game lost
    and falls by it per game won against fixed opponents, within
    [epsilon_min, 1]. With `explore_starts` = p, an episode starts with
    probability p from a uniformly drawn non-empty canonical position, where
    the learner's first move is uniformly random (exploring starts, as in
    Monte Carlo ES): positions and moves far from the usual lines of play get
    tried too, which is what makes the greedy policy right everywhere.
    Gamma is 1 by default: any discount would let a quick likely win against
    a weak opponent outrank a slower certain one.
    """

    method: str = "td"
    alpha: float = 0.1
    alpha_min: float = 0.01
    alpha_decay: float | None = None
    epsilon: float = 0.3
    epsilon_min: float = 0.01
    epsilon_decay: float | None = None
    gamma: float = 1.0
    initial: float = 0.0
    rewards: Rewards = field(default_factory=Rewards)
    adaptive: float = 0.0
    explore_starts: float = 0.7
    batch: int = 256  # episodes played in lockstep between schedule steps

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        for name in ("alpha", "alpha_min"):
            if not 0.0 < getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in (0, 1], got {getattr(self, name)}")
        for name in ("epsilon", "epsilon_min"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        for name in ("alpha_decay", "epsilon_decay"):
            value = getattr(self, name)
            if value is not None and not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be in (0, 1] (a factor per episode), got {value}")
        if self.epsilon_min == 0.0 < self.epsilon and self.epsilon_decay is None:
            raise ValueError("epsilon_min 0 is never reached geometrically: give epsilon_decay")
        if self.alpha_min > self.alpha or self.epsilon_min > self.epsilon:
            raise ValueError("alpha_min/epsilon_min must not exceed alpha/epsilon")
        if not 0.0 < self.gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {self.gamma}")
        if not math.isfinite(self.initial):
            raise ValueError(f"initial must be a finite number, got {self.initial}")
        if not 0.0 <= self.explore_starts <= 1.0:
            raise ValueError(f"explore_starts must be in [0, 1], got {self.explore_starts}")
        if not 0.0 <= self.adaptive <= 1.0:
            raise ValueError(f"adaptive must be in [0, 1], got {self.adaptive}")
        if self.batch < 1:
            raise ValueError(f"batch must be >= 1, got {self.batch}")

    def decays(self, episodes: int) -> tuple[float, float]:
        """Per-episode factors (epsilon, alpha) for a run of `episodes`."""
        horizon = max(1.0, _DECAY_SHARE * episodes)

        def reach(start: float, floor: float, given: float | None) -> float:
            if given is not None:
                return given
            if start <= floor:
                return 1.0
            return (floor / start) ** (1.0 / horizon)

        return (
            reach(self.epsilon, self.epsilon_min, self.epsilon_decay),
            reach(self.alpha, self.alpha_min, self.alpha_decay),
        )

    def to_dict(self) -> dict:
        """Plain data, as a saved agent records it."""
        return asdict(self)


def parse_mix(spec: str | Mapping[str, float]) -> dict[str, float]:
    """Opponent weights from a mapping, a JSON object, or `random=0.5,expert=0.3,self=0.2`.

    A name without a weight counts 1 (`expert`, `random,self`). Weights are
    normalised to sum to 1; opponents of weight 0 are dropped.
    """
    if isinstance(spec, str) and spec.lstrip().startswith("{"):
        try:
            spec = json.loads(spec)
        except json.JSONDecodeError as exc:
            raise ValueError(f"opponent mix {spec!r} is not valid JSON: {exc}") from None
        if not isinstance(spec, dict):
            raise ValueError("a JSON opponent mix must be an object of name: weight")
    if isinstance(spec, str):
        mix: dict[str, float] = {}
        for part in (p.strip() for p in spec.split(",")):
            name, sep, weight = (v.strip() for v in part.partition("="))
            if not name:
                raise ValueError(f"opponent mix {spec!r} has an entry without a name")
            try:
                mix[name] = mix.get(name, 0.0) + (float(weight) if sep else 1.0)
            except ValueError:
                raise ValueError(f"opponent {name!r} has a weight that is not a number: {weight!r}") from None
    else:
        mix = {str(k): v for k, v in spec.items()}
    if not mix:
        raise ValueError("the opponent mix is empty")
    for name, weight in mix.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not (
            math.isfinite(weight) and weight >= 0
        ):
            raise ValueError(f"opponent {name!r} has an invalid weight {weight!r}")
    total = sum(mix.values())
    if total <= 0:
        raise ValueError("opponent weights must not all be zero")
    return {name: weight / total for name, weight in mix.items() if weight > 0}
