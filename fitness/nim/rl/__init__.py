"""Reinforcement-learning Nim agents: Q-learning (TD) and Monte Carlo on canonical states."""

from .agent import RLAgent
from .config import Hyperparameters, SELF, parse_mix
from .rewards import Rewards
from .space import CanonicalSpace
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
    "evaluate",
    "parse_mix",
    "train",
]
