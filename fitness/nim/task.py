"""The Nim task: a genome's fitness is its win rate against each opponent.

Each opponent is scored either exactly (`"exact"`: the win probability from
both sides' move distributions, see `exact.py`) or from a number of sampled
games. On boards whose positions can be numbered, every genome also gets
`optimal_move_rate`, the solver's verdict on its play: the share of winning
positions where its move keeps the win.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .agents import agent
from .agents.mixture import stack_mixtures
from .boards import BOARDS_SOLVED, TrainingBoards
from .descriptors import DESCRIPTORS, descriptor_values
from .exact import optimal_move_rates, win_probabilities
from .expression import parse
from .genomes import decode
from .population import play_population, stack_tabulated
from .rules import Rules
from .scorecache import ScoreCache
from .space import StateSpace

__all__ = ["EXACT", "NimTask", "column_name"]

EXACT = "exact"
OPTIMAL_MOVE_RATE = "optimal_move_rate"
SIZE = "size"


class NimTask:
    """Plays every genome against each named opponent, exactly or by sampling.

    Spec (plain dict): rows, k, misere, genome {kind, ...config},
    opponents {name: games or "exact"}. Objectives: `win_rate_<opponent>`,
    then `optimal_move_rate` where the board can be numbered and the genome's
    agent can state its move distribution. Sampled opponents add raw counts
    `wins_<opponent>` and `games_<opponent>`; `sampled` maps each of their
    rate columns to its (wins, games) columns, so callers can pool counts.
    `boards` (expression genomes): extra training boards (`canonical_boards`:
    scored on their sorted positions only, at most `canonical_positions`
    each; `canonical_confirm`: on all of them for an expression perfect on every
    sample); `optimal_move_rate` is then the mean over the run's board and
    these, and `boards_solved` counts those played perfectly.
    """

    def __init__(self, spec: dict) -> None:
        self.rules = Rules(rows=tuple(spec["rows"]), k=spec.get("k"), misere=bool(spec.get("misere", False)))
        genome = dict(spec["genome"])
        self.kind = genome.pop("kind")
        self.config = genome
        self.opponents = {name: _games(name, games) for name, games in spec["opponents"].items()}
        if not self.opponents:
            raise ValueError("opponents: at least one opponent is needed")
        self._players = {name: agent(name, self.rules) for name in self.opponents}
        self.space = StateSpace.of(self.rules.rows)
        self._opponent_dists = {}
        for name, games in self.opponents.items():
            if games == EXACT:
                if self.space is None:
                    raise ValueError(f"opponents: {name} = \"exact\" needs a board of at most 2,097,152 positions "
                                     f"({self.rules.describe()} has more); give a number of games")
                self._opponent_dists[name] = self._players[name].distribution(self.space)
        self.exact_players = self.space is not None and self._genome_has_distribution()
        if self._opponent_dists and not self.exact_players:
            raise ValueError(f"opponents: a {self.kind} genome with these settings cannot be scored exactly "
                             f"(one of its agents draws moves only sampling can score); give numbers of games")
        self.boards = self._training_boards(spec.get("boards") or [], spec.get("canonical_boards") or [],
                                            spec.get("canonical_positions"), bool(spec.get("canonical_confirm")))
        rates = tuple(f"win_rate_{column_name(name)}" for name in self.opponents)
        scored = rates + ((OPTIMAL_MOVE_RATE,) if self.exact_players else ())
        scored += (BOARDS_SOLVED,) if self.boards else ()
        # The weighted fitness a spec gets without weights: the mean of what is scored.
        self.default_weights = {name: 1.0 / len(scored) for name in scored}
        # Expressions also report their size (nodes), an objective to minimise: parsimony.
        self.objectives = scored + ((SIZE,) if self.kind == "expression" else ())
        # (worst, best) of the rates: where Pareto runs put the hypervolume's reference point.
        self.bounds = {name: (0.0, 1.0) for name in rates + ((OPTIMAL_MOVE_RATE,) if self.exact_players else ())}
        self.weights = tuple(-1.0 if name == SIZE else 1.0 for name in self.objectives)
        self.descriptors = tuple(spec.get("descriptors") or ())  # extra columns a MAP-Elites archive asks for
        if self.descriptors and not self.exact_players:
            raise ValueError("archive.descriptors: Nim descriptors are computed exactly, from the agents' move "
                             "distributions: they need a board of at most 2,097,152 positions and a genome kind "
                             "whose agents have one (rules, table)")
        unknown = [name for name in self.descriptors if name not in DESCRIPTORS]
        if unknown:
            raise ValueError(f"archive.descriptors: unknown Nim descriptor {unknown[0]!r}; "
                             f"known: {', '.join(DESCRIPTORS)}")
        self.descriptor_bounds = {name: (0.0, 1.0) for name in DESCRIPTORS}
        self.sampled = {f"win_rate_{column_name(name)}": (f"wins_{column_name(name)}", f"games_{column_name(name)}")
                        for name, games in self.opponents.items() if games != EXACT}
        self._cache = ScoreCache() if self.kind == "expression" and not self.sampled else None

    def _training_boards(self, boards: list, canonical: list, limit: int | None,
                         confirm: bool) -> TrainingBoards | None:
        if not boards and not canonical:
            return None
        if self.kind != "expression" or not self.exact_players:
            raise ValueError("boards: extra training boards need expression genomes on a board scored exactly")
        return TrainingBoards(self.rules, boards, canonical, limit, confirm)

    def _genome_has_distribution(self) -> bool:
        """Whether the genome kind's agents can state their moves' probabilities here."""
        if self.kind == "table":
            columns = self.config.get("columns", [])
            try:
                for column in columns:
                    agent(column, self.rules).distribution(self.space)
            except ValueError:
                return False
        return True

    def evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        if self._cache is not None:  # exact scores of string genomes: the same genome, the same row
            return self._cache.evaluate(genomes, lambda fresh: self._evaluate(fresh, [0] * len(fresh)))
        return self._evaluate(genomes, seeds)

    def learned(self, genomes: Sequence[Any]) -> Any:
        """What scoring `genomes` here taught this task that a driver would otherwise compute
        again, or None: the training boards' outcomes, whose digests the expression kind's
        `distinct_by = "moves"` compares. A worker (a local process, a Ray actor) sends it
        with the scores; the driver's task takes it (`learn`)."""
        if self.boards is None:
            return None
        return self.boards.outcomes([parse(g) for g in genomes])

    def learn(self, genomes: Sequence[Any], learned: Any) -> None:
        """Take what a worker's task `learned` scoring `genomes`."""
        if self.boards is not None and learned is not None:
            self.boards.learn([parse(g) for g in genomes], learned)

    def _evaluate(self, genomes: Sequence[Any], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        players = [decode(self.kind, genome, self.config, self.rules) for genome in genomes]
        columns: dict[str, np.ndarray] = {}
        if self.exact_players:
            dists = [p.distribution(self.space) for p in players]
        for name, games in self.opponents.items():
            col = column_name(name)
            if games == EXACT:
                columns[f"win_rate_{col}"] = win_probabilities(dists, self._opponent_dists[name], self.rules)
        if self.sampled:
            self._play_sampled(players, seeds, columns)
        ordered = {}
        for name in self.opponents:  # per opponent: rate, then its counts when sampled
            for prefix in ("win_rate", "wins", "games"):
                if f"{prefix}_{column_name(name)}" in columns:
                    ordered[f"{prefix}_{column_name(name)}"] = columns[f"{prefix}_{column_name(name)}"]
        if self.exact_players:
            ordered[OPTIMAL_MOVE_RATE] = optimal_move_rates(dists, self.rules)
        if self.boards:
            ordered[OPTIMAL_MOVE_RATE], ordered[BOARDS_SOLVED] = self.boards.rates(
                [p.tree for p in players], ordered[OPTIMAL_MOVE_RATE])
        if self.kind == "expression":
            ordered[SIZE] = np.asarray([p.tree.size() for p in players], dtype=np.int64)
        if self.descriptors:
            ordered.update(descriptor_values(self.descriptors, dists, self.rules))
        return ordered

    def _play_sampled(self, players: list, seeds: Sequence[int], columns: dict[str, np.ndarray]) -> None:
        stacked = None
        if self.space is not None:
            stacked = stack_mixtures(players, self.space) or stack_tabulated(players, self.space)
        # One seed per (genome, opponent), derived from the genome's own seed only.
        opponent_seeds = [[int(ss.generate_state(1, np.uint64)[0]) for ss in
                           np.random.SeedSequence(int(seed)).spawn(len(self.opponents))] for seed in seeds]
        for j, (name, games) in enumerate(self.opponents.items()):
            if games == EXACT:
                continue
            results = play_population(players, self._players[name], self.rules, games,
                                      [s[j] for s in opponent_seeds], stacked=stacked)
            col = column_name(name)
            columns[f"wins_{col}"] = np.asarray([r.wins_a for r in results], dtype=np.int64)
            columns[f"games_{col}"] = np.full(len(players), games, dtype=np.int64)
            columns[f"win_rate_{col}"] = np.asarray([r.win_rate_a for r in results], dtype=np.float64)


def _games(name: str, games: Any) -> int | str:
    if games == EXACT:
        return EXACT
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"opponents: {name} must be a number of games >= 1 or \"exact\", got {games!r}")
    return int(games)


def column_name(opponent: str) -> str:
    """A column-safe name for an opponent: `sloppy:0.1` -> `sloppy_0.1`."""
    return opponent.replace(":", "_").replace("-", "_").replace("/", "_")

