"""The Nim task: a genome's fitness is its win rate against each opponent."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..tasks import register_task
from .agents import agent
from .engine import play
from .genomes import decode
from .rules import Rules

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
        for i, (genome, seed) in enumerate(zip(genomes, seeds)):
            player = decode(self.kind, genome, self.config, self.rules)
            opponent_seeds = np.random.SeedSequence(int(seed)).spawn(len(self.opponents))
            for (name, games), ss in zip(self.opponents.items(), opponent_seeds):
                result = play(player, self._players[name], self.rules, games, seed=ss)
                col = _column(name)
                columns[f"wins_{col}"][i] = result.wins_a
                columns[f"games_{col}"][i] = games
                columns[f"win_rate_{col}"][i] = result.win_rate_a
        return columns


def _column(opponent: str) -> str:
    """A column-safe name for an opponent: `sloppy:0.1` -> `sloppy_0.1`."""
    return opponent.replace(":", "_").replace("-", "_").replace("/", "_")


register_task("nim", NimTask)
