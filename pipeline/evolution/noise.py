"""Keeping sampled fitness honest: paired games, pooled re-evaluations, a fresh verdict.

Selecting the best of many individuals scored on a few hundred games keeps
the lucky ones (the winner's curse). Three remedies, each switchable in the
spec's `[sampling]` section:

* common random numbers: every individual of a generation meets the same game
  streams per opponent, so their differences are not differences of luck;
* re-evaluation: survivors play again each generation and their wins and
  games are pooled, so an early lucky streak is diluted, not kept;
* a fresh verdict: the hall of fame written to best.json is scored again on a
  larger, independent sample, ranked by it, and reported with 95% intervals.

Exact objectives need none of this; a task lists the sampled ones in
`sampled` (rate column -> its wins and games columns).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from fitness.nim.engine import wilson_interval

from ..evaluation import evaluation_seeds
from ..evaluation.seeds import Ahead, first_child_seeds, spawned_seeds

if TYPE_CHECKING:
    from ..spec import RunSpec

__all__ = ["NoiseControl"]

_HALL_OF_FAME_STREAM = 2**32 - 1  # a generation index no run reaches: seeds apart from every generation's
_BATCH_STREAM = 2**32 - 2  # asynchronous submissions: (stream, batch) never meets (generation,)
_ISLAND_STREAM = 2**32 - 3  # (generation, stream, island) never meets a generation's (generation, individual)


class NoiseControl:
    """The `[sampling]` policy of one run, for the objectives its task samples."""

    def __init__(self, spec: RunSpec, sampled: Mapping[str, tuple[str, str]], uses_seeds: bool = True) -> None:
        self.sampled = dict(sampled)
        self.settings = spec.sampling
        self.run_seed = spec.seed
        self.uses_seeds = uses_seeds  # False: the task's scores draw nothing (set cover)
        self._first_seeds = Ahead(partial(first_child_seeds, self.run_seed, _BATCH_STREAM),
                                  partial(_first_seed, self.run_seed, _BATCH_STREAM))  # batch -> its first seed

    @property
    def active(self) -> bool:
        return bool(self.sampled)

    @property
    def reevaluate(self) -> bool:
        return self.active and self.settings.reevaluate

    def seeds(self, generation: int, n: int, island: int | None = None) -> list[int]:
        """Evaluation seeds of a generation's n individuals (of one island, for island runs):
        one shared seed with common random numbers."""
        if not self.uses_seeds:
            return [0] * n  # 200 SeedSequence spawns a generation cost set cover ~2 ms for nothing
        shared = self.active and self.settings.common_random_numbers
        if island is not None:  # (seed, generation, island stream, island): apart from every other stream;
            # drawn in one call (n SeedSequence spawns cost an island runner ~6 ms a generation)
            stream = np.random.default_rng(np.random.SeedSequence(self.run_seed,
                                                                  spawn_key=(generation, _ISLAND_STREAM, island)))
            drawn = stream.integers(0, 2**63, size=1 if shared else n, dtype=np.int64).tolist()
            return drawn * n if shared else drawn
        if shared:
            return evaluation_seeds(self.run_seed, generation, 1) * n
        return evaluation_seeds(self.run_seed, generation, n)

    def batch_seeds(self, batch: int, n: int) -> list[int]:
        """Seeds of an asynchronous algorithm's `batch`-th submission (a stream apart from generations)."""
        if not self.uses_seeds:
            return [0] * n
        if n == 1 or (self.active and self.settings.common_random_numbers):  # one seed: computed ahead
            return [self._first_seeds(batch)] * n
        return spawned_seeds(self.run_seed, (_BATCH_STREAM, batch), n)

    def hall_of_fame_seeds(self, n: int) -> list[int]:
        return evaluation_seeds(self.run_seed, _HALL_OF_FAME_STREAM, 1) * n

    def pool(self, earlier: Mapping[str, Any], fresh: Mapping[str, Any]) -> dict[str, Any]:
        """A re-evaluated individual's columns: sampled counts added up, the rest as just scored."""
        pooled = dict(fresh)
        for rate, (wins, games) in self.sampled.items():
            pooled[wins] = int(earlier[wins]) + int(fresh[wins])
            pooled[games] = int(earlier[games]) + int(fresh[games])
            pooled[rate] = pooled[wins] / pooled[games]
        return pooled

    def verdict_task_spec(self, task_spec: dict) -> dict:
        """The run's task with each sampled opponent given the hall-of-fame game count."""
        games = self.settings.hall_of_fame_games
        opponents = {name: (count if count == "exact" else games) for name, count in task_spec["opponents"].items()}
        return {**task_spec, "opponents": opponents}

    def intervals(self, columns: Mapping[str, Any]) -> dict[str, list[float]]:
        """95% Wilson interval of every sampled rate in `columns`."""
        return {rate: [round(bound, 6) for bound in wilson_interval(int(columns[wins]), int(columns[games]))]
                for rate, (wins, games) in self.sampled.items()}


def _first_seed(run_seed: int, stream: int, batch: int) -> int:
    return spawned_seeds(run_seed, (stream, batch), 1)[0]
