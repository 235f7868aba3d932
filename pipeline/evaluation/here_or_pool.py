"""Where the process pool scores its next batch: in the driver or on the workers, from measured wall time.

Handing a batch to W workers pays only when the batch is long enough: each batch costs a
round trip and each chunk a call of the task, and some tasks cost much per call (exact Nim
fitness: ~5 ms a call, whatever the genomes: 4 chunks of a 160-genome batch took ~30% more
CPU than one call). Whether W workers beat the driver alone also depends on the machine's
other load, which neither the spec nor the start can know. So the pool measures both: the
wall seconds per genome of the batches it scored here and of those the workers scored, and
sends the next batch where it went faster. Until the driver has scored one, its rate is the
workers' own seconds a genome (one core's time, what the driver would take alone), so 15
workers do not lose a whole batch's worth of time to learn that the driver is 15 times
slower. The slower place gets one batch now and then, so a change of load or of batch size
is seen: one in `PROBE_EVERY`, or fewer where it is so much slower that a probe would cost
more than `PROBE_COST` of the time saved. The first batches go to the workers (they are ready
in milliseconds): every core works from the first second. Where a genome is scored changes
only the log's `worker` and timing columns: seeds are the genome's own.
"""

from __future__ import annotations

import math

__all__ = ["HereOrPool"]

MEMORY = 0.5  # the weight of the old rate when a batch comes back: the last few batches count
PROBE_EVERY = 10  # at most one batch in this many goes to the slower place
PROBE_COST = 0.05  # ... and no more often than its extra time stays under this share of the batches'
HERE, POOL = "here", "pool"


class HereOrPool:
    """Decaying wall seconds per genome, here and on the pool, and the choice they make."""

    def __init__(self) -> None:
        self.rates: dict[str, float | None] = {HERE: None, POOL: None}
        self._pool_batches = 0  # batches back from the pool; its first pays the workers' warm-up
        self._choices = 0

    def on_pool(self, seconds_per_genome: float | None = None) -> bool:
        """Whether the next batch goes to the workers. `seconds_per_genome`: the workers' own
        evaluation time a genome, the driver's rate until one batch here measured it."""
        self._choices += 1
        here, pool = self.rates[HERE] or seconds_per_genome, self.rates[POOL]
        if pool is None:
            return True
        if not here:
            return False
        return (pool < here) != (self._choices % probe_every(here, pool) == 0)

    def learn(self, where: str, genomes: int, seconds: float) -> None:
        """A batch of `genomes` scored `where` (HERE or POOL) in `seconds` of wall time."""
        if genomes == 0:
            return
        if where == POOL:
            self._pool_batches += 1
            if self._pool_batches == 1:
                return
        rate, old = seconds / genomes, self.rates[where]
        self.rates[where] = rate if old is None else MEMORY * old + (1 - MEMORY) * rate


def probe_every(here: float, pool: float) -> int:
    """Batches per probe of the slower place: `PROBE_EVERY`, or more where a probe costs more
    than `PROBE_COST` of the batches between two (the slower place `ratio` times slower costs
    `ratio - 1` batches' time: 14 at 15 workers)."""
    ratio = max(here, pool) / max(min(here, pool), 1e-12)
    return max(PROBE_EVERY, math.ceil((ratio - 1) / PROBE_COST))
