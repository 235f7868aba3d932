"""Training episodes played in lockstep: a batch of games, one array op per ply.

The learner plays against a fixed opponent (any `Agent`) or against itself.
Every decision it makes becomes a *transition* once its backup target is
known, and learners (TD, Monte Carlo) consume transitions as they arrive:

* against a fixed opponent, the learner's next decision point comes after the
  opponent's reply, so a transition spans two plies: reward = own ply reward
  minus the opponent's (zero-sum), then `+max Q` of the position the learner
  faces next (`sign = +1`);
* in self-play both sides are the learner, so each ply is a transition whose
  next position belongs to the other side: the negamax backup `-max Q`
  (`sign = -1`);
* a transition that ends the game has `sign = 0`: only its reward counts.

Transitions of one game arrive in the order of its decisions, each delivered
batch holding a game at most once; Monte Carlo relies on that to propagate
returns backwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..agents.base import Agent
from ..rules import Rules
from .rewards import Rewards
from .values import QTable

__all__ = ["Transitions", "BatchOutcome", "play_batch", "epsilon_greedy"]


@dataclass(frozen=True)
class Transitions:
    """Decisions whose backup is due: Q(action) <- reward + gamma * sign * max Q(next_state)."""

    game: np.ndarray
    action: np.ndarray  # flat canonical action index
    reward: np.ndarray
    next_state: np.ndarray  # canonical state index (the empty board when sign == 0)
    sign: np.ndarray  # +1 own next decision, -1 the opponent's (self-play), 0 game over

    @classmethod
    def build(
        cls, game: ArrayLike, action: ArrayLike, reward: ArrayLike, next_state: ArrayLike, sign: ArrayLike
    ) -> "Transitions":
        """Typed arrays, a scalar `next_state` or `sign` standing for every game."""
        n = len(game)
        return cls(
            game=np.asarray(game, dtype=np.int64),
            action=np.asarray(action, dtype=np.int64),
            reward=np.asarray(reward, dtype=np.float64),
            next_state=np.broadcast_to(np.asarray(next_state, dtype=np.int64), (n,)),
            sign=np.broadcast_to(np.asarray(sign, dtype=np.float64), (n,)),
        )


@dataclass(frozen=True)
class BatchOutcome:
    """Results of the learner's games against fixed opponents (self-play has none)."""

    wins: int
    losses: int


def epsilon_greedy(
    table: QTable, states: np.ndarray, epsilon: float | np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Greedy actions, each replaced with probability epsilon (per state, or one
    for all) by a uniformly drawn legal one."""
    space = table.space
    chosen = table.greedy(states)
    explore = rng.random(len(states)) < epsilon
    u = rng.random(len(states))
    start = space.offsets[states]
    uniform = start + (u * (space.offsets[states + 1] - start)).astype(np.int64)
    return np.where(explore, uniform, chosen)


def play_batch(
    table: QTable,
    rules: Rules,
    rewards: Rewards,
    starts: np.ndarray,
    explore_first: np.ndarray,
    opponents: Sequence[Agent],
    opponent_of_game: np.ndarray,
    learner_first: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    observe: Callable[[Transitions], None],
) -> BatchOutcome:
    """Play one batch of training games and hand every completed transition to `observe`.

    Game i starts from the raw position `starts[i]`, and where
    `explore_first[i]` the learner's first move in it is uniformly random
    (an exploring start); `opponent_of_game[i]` indexes `opponents`, or is -1
    for self-play; `learner_first[i]` says who moves first against a fixed
    opponent.
    """
    space = table.space
    n = len(opponent_of_game)
    pos = np.array(starts, dtype=np.int64)
    selfplay = np.asarray(opponent_of_game) < 0
    learner_turn = selfplay | np.asarray(learner_first, dtype=bool)
    active = np.ones(n, dtype=bool)
    pending_action = np.full(n, -1, dtype=np.int64)  # decision awaiting the opponent's reply
    pending_reward = np.zeros(n)
    exploring = np.array(explore_first, dtype=bool)
    wins = losses = 0
    learner_wins_on_empty = not rules.misere

    while active.any():
        g = np.flatnonzero(active & learner_turn)
        if g.size:
            states = space.index(pos[g])
            due = pending_action[g] >= 0
            if due.any():
                gd = g[due]
                observe(Transitions.build(gd, pending_action[gd], pending_reward[gd], states[due], 1.0))
            actions = epsilon_greedy(table, states, np.where(exploring[g], 1.0, epsilon), rng)
            exploring[g] = False
            rows = space.raw_rows(pos[g], space.sizes[actions])
            pos[g, rows] -= space.takes[actions]
            reward = rewards.ply(pos[g], rules.misere)
            done = ~pos[g].any(axis=1)
            own = selfplay[g]
            if own.any():
                after = space.index(pos[g[own]])
                observe(Transitions.build(g[own], actions[own], reward[own], after, np.where(done[own], 0.0, -1.0)))
            ended = ~own & done
            if ended.any():
                observe(Transitions.build(g[ended], actions[ended], reward[ended], 0, 0.0))
                if learner_wins_on_empty:
                    wins += int(np.count_nonzero(ended))
                else:
                    losses += int(np.count_nonzero(ended))
            waiting = g[~own & ~done]
            pending_action[waiting] = actions[~own & ~done]
            pending_reward[waiting] = reward[~own & ~done]
            active[g[done]] = False
            learner_turn[waiting] = False

        for o, opponent in enumerate(opponents):
            g = np.flatnonzero(active & ~learner_turn & (opponent_of_game == o))
            if not g.size:
                continue
            rows, takes = opponent(pos[g], rng)
            pos[g, rows] -= takes
            pending_reward[g] -= rewards.ply(pos[g], rules.misere)
            done = ~pos[g].any(axis=1)
            if done.any():
                gd = g[done]
                observe(Transitions.build(gd, pending_action[gd], pending_reward[gd], 0, 0.0))
                pending_action[gd] = -1
                if learner_wins_on_empty:
                    losses += int(np.count_nonzero(done))
                else:
                    wins += int(np.count_nonzero(done))
                active[gd] = False
            learner_turn[g] = True
    return BatchOutcome(wins=wins, losses=losses)
