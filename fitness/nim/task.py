"""The Nim task: a genome's fitness is its win rate against each opponent."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..tasks import register_task
from .agents import agent
from .agents.mixture import stack_mixtures
from .genomes import decode
from .population import play_population, stack_tabulated
from .rules import Rules
from .space import StateSpace

__all__ = ["NimTask"]


class NimTask:
    """Plays every genome `games` matches against each named opponent.

    Spec (plain dict): rows, k, misere, genome {kind, ...config},
    opponents {name: games}. Objectives: `win_rate_<opponent>`; raw counts
    `wins_<opponent>` and `games_<opponent>`.
    """

    def __init__(self, spec: dict) -> None:
        self.rules = Rules(rows=tuple(spec["rows"]), k=spec.get("k"), misere=bool(spec.get("misere", False)))
        genome = dict(spec["genome"])
        self.kind = genome.pop("kind")
        self.config = genome
        self.opponents = {name: int(games) for name, games in spec["opponents"].items()}
        if not self.opponents:
            raise ValueError("opponents: at least one opponent is needed")
        self._players = {name: agent(name, self.rules) for name in self.opponents}
        self.objectives = tuple(f"win_rate_{_column(name)}" for name in self.opponents)
        self.weights = tuple(1.0 for _ in self.opponents)

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        n = len(genomes)
        columns = {}
        for name in self.opponents:
            col = _column(name)
            columns[f"win_rate_{col}"] = np.zeros(n)
            columns[f"wins_{col}"] = np.zeros(n, dtype=np.int64)
            columns[f"games_{col}"] = np.zeros(n, dtype=np.int64)
        players = [decode(self.kind, genome, self.config, self.rules) for genome in genomes]
        space = StateSpace.of(self.rules.rows)
        stacked = None
        if space is not None:
            stacked = stack_mixtures(players, space) or stack_tabulated(players, space)
        # One seed per (genome, opponent), derived from the genome's own seed only.
        opponent_seeds = [[int(ss.generate_state(1, np.uint64)[0]) for ss in
                           np.random.SeedSequence(int(seed)).spawn(len(self.opponents))] for seed in seeds]
        for j, (name, games) in enumerate(self.opponents.items()):
            results = play_population(players, self._players[name], self.rules, games,
                                      [s[j] for s in opponent_seeds], stacked=stacked)
            col = _column(name)
            columns[f"wins_{col}"][:] = [r.wins_a for r in results]
            columns[f"games_{col}"][:] = games
            columns[f"win_rate_{col}"][:] = [r.win_rate_a for r in results]
        return columns


def _column(opponent: str) -> str:
    """A column-safe name for an opponent: `sloppy:0.1` -> `sloppy_0.1`."""
    return opponent.replace(":", "_").replace("-", "_").replace("/", "_")


register_task("nim", NimTask)
