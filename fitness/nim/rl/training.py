"""A training run: batches of episodes against an opponent mix, with a learning curve.

Deterministic for a seed: one `numpy` generator draws, in a fixed order, each
game's opponent and opener, the learner's exploration and the opponents'
randomness. Every `eval_every` episodes the greedy policy is frozen into an
`RLAgent` and played on the match engine against the evaluation opponents.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..agents import agent as named_agent
from ..engine import play
from ..rules import Rules
from .agent import RLAgent
from .config import SELF, Hyperparameters, parse_mix
from .episodes import play_batch
from .montecarlo import MonteCarloLearner
from .space import CanonicalSpace
from .td import TDLearner
from .values import QTable

__all__ = ["TrainingRun", "train", "evaluate", "EVAL_OPPONENTS"]

EVAL_OPPONENTS = ("random", "expert")

Progress = Callable[[int, int, "dict | None"], None]


@dataclass
class TrainingRun:
    """The learned table and how it was obtained (what a saved agent records)."""

    rules: Rules
    table: QTable
    hyperparameters: Hyperparameters
    opponents: dict[str, float]
    episodes: int
    seed: int
    seconds: float = 0.0
    curve: list[dict] = field(default_factory=list)

    def agent(self, name: str = "rl") -> RLAgent:
        return RLAgent(name, self.rules, self.table)


def evaluate(agent: RLAgent, rules: Rules, opponents: Sequence[str], games: int, seed: int) -> dict[str, float]:
    """Win rate of `agent` against each named opponent (it opens half the games)."""
    return {
        f"win_rate_{name}": play(agent, named_agent(name, rules), rules, games, seed + i).win_rate_a
        for i, name in enumerate(opponents)
    }


def _starts(
    space: CanonicalSpace, games: int, share: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Start positions: the board, or (exploring starts) a uniformly drawn
    non-empty canonical position for a `share` of the games, which are flagged."""
    starts = space.rules.start(games)
    exploring = rng.random(games) < share
    starts[exploring] = space.raw_positions(rng.integers(1, space.n_states, int(exploring.sum())))
    return starts, exploring


class _Opponents:
    """The opponent mix as agents, and each game's opponent drawn from it (slot -1: the learner itself)."""

    def __init__(self, mix: Mapping[str, float], rules: Rules) -> None:
        names = list(mix)
        fixed_names = [name for name in names if name != SELF]
        self.fixed = [named_agent(name, rules) for name in fixed_names]
        self.slot = np.asarray([-1 if name == SELF else fixed_names.index(name) for name in names])
        self.cumulative = np.cumsum([mix[name] for name in names])

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        picks = np.searchsorted(self.cumulative, rng.random(size), side="right")
        return self.slot[np.minimum(picks, len(self.slot) - 1)]


def _next_rates(hp: Hyperparameters, epsilon: float, alpha: float, size: int, decays: tuple[float, float],
                wins: int, losses: int) -> tuple[float, float]:
    """Exploration and learning rates after a batch of `size` games (decayed; adaptive epsilon)."""
    epsilon = max(hp.epsilon_min, epsilon * decays[0] ** size)
    alpha = max(hp.alpha_min, alpha * decays[1] ** size)
    if hp.adaptive:
        epsilon = min(1.0, max(hp.epsilon_min, epsilon + hp.adaptive * (losses - wins)))
    return epsilon, alpha


def _learn_batch(learner: TDLearner | MonteCarloLearner, table: QTable, rules: Rules, hp: Hyperparameters,
                 drawn: _Opponents, size: int, epsilon: float, alpha: float, rng: np.random.Generator) -> Any:
    """`size` games against opponents drawn from the mix, the learner updated from every move."""
    opponent_of_game = drawn.draw(size, rng)
    learner_first = rng.random(size) < 0.5
    starts, exploring = _starts(table.space, size, hp.explore_starts, rng)
    outcome = play_batch(table, rules, hp.rewards, starts, exploring, drawn.fixed, opponent_of_game, learner_first,
                         epsilon, rng, lambda t: learner.observe(t, alpha))
    learner.finish(alpha)
    return outcome


def _check_counts(episodes: Any, eval_every: int, eval_games: int) -> None:
    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or episodes < 0:
        raise ValueError(f"episodes must be a non-negative integer, got {episodes!r}")
    if eval_every < 0 or eval_games < 1:
        raise ValueError("eval_every must be >= 0 and eval_games >= 1")


def train(
    rules: Rules,
    opponents: str | Mapping[str, float],
    episodes: int,
    seed: int = 0,
    hyperparameters: Hyperparameters | None = None,
    eval_every: int = 0,
    eval_games: int = 2000,
    eval_opponents: Sequence[str] = EVAL_OPPONENTS,
    progress: Progress | None = None,
) -> TrainingRun:
    """Learn Q(s, a) for `rules` over `episodes` games against the opponent mix.

    `opponents` is a mix such as `{"random": 0.5, "expert": 0.3, "self": 0.2}`
    (see `parse_mix`). The curve is measured before training, every
    `eval_every` episodes (at the first batch boundary past each multiple; 0:
    never in between) and at the end, so the evaluation cadence never changes
    what is learned; `progress` is called after every batch with (episodes
    done, total, new curve row or None). `seconds` count evaluations too.
    """
    _check_counts(episodes, eval_every, eval_games)
    hp = hyperparameters or Hyperparameters()
    mix = parse_mix(opponents)
    drawn = _Opponents(mix, rules)
    space = CanonicalSpace.of(rules)
    table = QTable(space, hp.initial)
    learner = (TDLearner if hp.method == "td" else MonteCarloLearner)(table, hp.gamma)
    decays = hp.decays(int(episodes))
    rng = np.random.default_rng(seed)
    run = TrainingRun(rules, table, hp, mix, int(episodes), seed)
    epsilon, alpha = hp.epsilon, hp.alpha
    started = time.perf_counter()
    wins = losses = 0

    def measure(done: int) -> dict:
        nonlocal wins, losses
        decided = wins + losses
        row = {"episode": done, **evaluate(run.agent(), rules, eval_opponents, eval_games, seed + done),
               "train_win_rate": wins / decided if decided else float("nan"), "epsilon": epsilon, "alpha": alpha,
               "states_known": table.n_known, "seconds": time.perf_counter() - started}
        wins = losses = 0
        run.curve.append(row)
        return row

    measure(0)
    done = 0
    while done < episodes:
        size = min(hp.batch, episodes - done)
        outcome = _learn_batch(learner, table, rules, hp, drawn, size, epsilon, alpha, rng)
        done += size
        wins += outcome.wins
        losses += outcome.losses
        epsilon, alpha = _next_rates(hp, epsilon, alpha, size, decays, outcome.wins, outcome.losses)
        due = done == episodes or (eval_every and done // eval_every > (done - size) // eval_every)
        row = measure(done) if due else None
        if progress is not None:
            progress(done, int(episodes), row)
    run.seconds = time.perf_counter() - started
    return run
