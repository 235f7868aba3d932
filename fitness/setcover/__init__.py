"""Set cover: course instances, weighted OR-Library instances, vectorised scoring, and baselines.

    from fitness.setcover import problem, Instance, score
    lists = problem(1000, seed=42)               # bit-identical to the course generator
    instance = Instance.from_problem(1000, 42)   # cost = list size; or Instance.load(path):
                                                 # JSON, boolean .npy, or an OR-Library file (costs per list)
    instance = beasley_class("4", seed=1)        # a weighted instance made by OR-Library's recipe
    scores = score(instance, population)         # population: bool (genomes x lists)
"""

from .astar import SearchLimitExceeded, astar
from .beasley import BEASLEY_CLASSES, beasley, beasley_class
from .generator import problem
from .greedy import complete_cover, naive_greedy, pruned_greedy, ratio_greedy, remove_redundant
from .instance import Instance
from .orlib import format_orlib, read_orlib
from .result import CoverResult
from .scoring import Scores, score

__all__ = [
    "BEASLEY_CLASSES",
    "CoverResult",
    "Instance",
    "Scores",
    "SearchLimitExceeded",
    "astar",
    "beasley",
    "beasley_class",
    "complete_cover",
    "format_orlib",
    "naive_greedy",
    "problem",
    "pruned_greedy",
    "ratio_greedy",
    "read_orlib",
    "remove_redundant",
    "score",
]
