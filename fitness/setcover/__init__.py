"""Set cover: course instances, vectorised scoring, and the course baselines.

    from fitness.setcover import problem, Instance, score
    lists = problem(1000, seed=42)               # bit-identical to the course generator
    instance = Instance.from_problem(1000, 42)   # or Instance.load("lists.json" / "m.npy")
    scores = score(instance, population)         # population: bool (genomes x lists)
"""

from .astar import SearchLimitExceeded, astar
from .generator import problem
from .greedy import complete_cover, naive_greedy, pruned_greedy, ratio_greedy, remove_redundant
from .instance import Instance
from .result import CoverResult
from .scoring import Scores, score

__all__ = [
    "CoverResult",
    "Instance",
    "Scores",
    "SearchLimitExceeded",
    "astar",
    "complete_cover",
    "naive_greedy",
    "problem",
    "pruned_greedy",
    "ratio_greedy",
    "remove_redundant",
    "score",
]
