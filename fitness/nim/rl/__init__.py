"""Reinforcement-learning Nim agents: Q-learning (TD) and Monte Carlo on canonical states.

    run = train(Rules.standard(5), {"self": 0.6, "random": 0.2, "expert": 0.2}, 200_000, seed=1)
    save_agent("runs/x.rlagent", run)
    agent("rl:runs/x.rlagent", rules)      # the greedy policy, as a registered agent
"""

from .agent import RLAgent
from .config import SELF, Hyperparameters, parse_mix
from .curve import write_curve
from .quality import WinningMoves, winning_moves
from .rewards import Rewards
from .space import CanonicalSpace
from .storage import load_agent, load_table, save_agent
from .training import TrainingRun, evaluate, train
from .values import QTable

__all__ = [
    "CanonicalSpace",
    "Hyperparameters",
    "QTable",
    "RLAgent",
    "Rewards",
    "SELF",
    "TrainingRun",
    "WinningMoves",
    "evaluate",
    "load_agent",
    "load_table",
    "parse_mix",
    "save_agent",
    "train",
    "winning_moves",
    "write_curve",
]
