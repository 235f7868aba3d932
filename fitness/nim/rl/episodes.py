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
from ..lockstep import Seat, lockstep
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

    Seat 0 of the lockstep loop is the learner, seat 1 + o the opponent o; an
    opponent replies in the same round as the learner's move, and the learner
    keeps the move in its self-play games.
    """
    opponent_of_game = np.asarray(opponent_of_game)
    batch = _Batch(table, rules, rewards, explore_first, opponent_of_game, epsilon, rng, observe)
    seats = [Seat(batch.learner_move, batch.after_learner if len(opponents) else 0, batch.learner_moved)]
    seats += [Seat(batch.opponent_move(agent), 0, batch.opponent_moved) for agent in opponents]
    pos = np.array(starts, dtype=np.int64)
    games = np.arange(len(pos))
    opens = np.where(batch.selfplay | np.asarray(learner_first, dtype=bool), 0, 1 + opponent_of_game)
    ended = lockstep(seats, [(pos[opens == s], games[opens == s]) for s in range(len(seats))], same_round=True)
    wins = losses = 0
    for _, seat, g in ended:
        decided = int(np.count_nonzero(~batch.selfplay[g]))  # self-play games count neither way
        if (seat == 0) != rules.misere:  # the learner emptied the board in normal play, or the opponent in misere
            wins += decided
        else:
            losses += decided
    return BatchOutcome(wins=wins, losses=losses)


class _Batch:
    """What the learner's and the opponents' seats share while one batch is played:
    each game's decision awaiting the opponent's reply, and its exploring start."""

    def __init__(self, table, rules, rewards, explore_first, opponent_of_game, epsilon, rng, observe) -> None:
        self.table, self.space, self.rules, self.rewards = table, table.space, rules, rewards
        self.epsilon, self.rng, self.observe = epsilon, rng, observe
        n = len(opponent_of_game)
        self.opponent_of_game = opponent_of_game
        self.selfplay = opponent_of_game < 0
        self.exploring = np.array(explore_first, dtype=bool)
        self.pending_action = np.full(n, -1, dtype=np.int64)  # decision awaiting the opponent's reply
        self.pending_reward = np.zeros(n)
        self.actions = np.zeros(0, dtype=np.int64)  # the learner's latest moves, for `learner_moved`

    def learner_move(self, pos: np.ndarray, g: np.ndarray) -> np.ndarray:
        """Back up the decisions the opponent has replied to, then choose epsilon-greedily."""
        space = self.space
        states = space.index(pos)
        due = self.pending_action[g] >= 0
        if due.any():
            gd = g[due]
            self.observe(Transitions.build(gd, self.pending_action[gd], self.pending_reward[gd], states[due], 1.0))
        actions = epsilon_greedy(self.table, states, np.where(self.exploring[g], 1.0, self.epsilon), self.rng)
        self.exploring[g] = False
        rows = space.raw_rows(pos, space.sizes[actions])
        pos[np.arange(len(g)), rows] -= space.takes[actions]
        self.actions = actions
        return pos

    def learner_moved(self, g: np.ndarray, pos: np.ndarray, done: np.ndarray) -> None:
        """Self-play plies and finished games are transitions now; the rest await the reply."""
        actions = self.actions
        reward = self.rewards.ply(pos, self.rules.misere)
        own = self.selfplay[g]
        if own.any():
            after = self.space.index(pos[own])
            self.observe(Transitions.build(g[own], actions[own], reward[own], after, np.where(done[own], 0.0, -1.0)))
        ended = ~own & done
        if ended.any():
            self.observe(Transitions.build(g[ended], actions[ended], reward[ended], 0, 0.0))
        waiting = ~own & ~done
        self.pending_action[g[waiting]] = actions[waiting]
        self.pending_reward[g[waiting]] = reward[waiting]

    def after_learner(self, g: np.ndarray) -> np.ndarray:
        """Seat of the next mover: the learner itself in self-play, else the game's opponent."""
        return np.where(self.selfplay[g], 0, 1 + self.opponent_of_game[g])

    def opponent_move(self, agent: Agent) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        def move(pos: np.ndarray, g: np.ndarray) -> np.ndarray:
            rows, takes = agent(pos, self.rng)
            pos[np.arange(len(g)), rows] -= takes
            return pos

        return move

    def opponent_moved(self, g: np.ndarray, pos: np.ndarray, done: np.ndarray) -> None:
        """The reply's reward counts against the learner's pending decision; a finished game closes it."""
        self.pending_reward[g] -= self.rewards.ply(pos, self.rules.misere)
        if done.any():
            gd = g[done]
            self.observe(Transitions.build(gd, self.pending_action[gd], self.pending_reward[gd], 0, 0.0))
            self.pending_action[gd] = -1
