"""Evaluation seconds per member, learnt from the batches that come back: what sizes the
steady-state loop's next batches and an island's next chunks (one estimator for both)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MEMORY", "SecondsPerMember"]

MEMORY = 0.98  # per batch back: the estimate follows about the last 50 batches


class SecondsPerMember:
    """A decaying ratio of sums that leaves out each worker's first batch.

    A worker's first call pays its warm-up (at W = 64: 114 ms per genome that
    slept 18 ms), and a mean of batch means lets one slow genome in a batch of
    one shrink the next batches: with lognormal jitter (sigma = 1) a fifth of the
    steady-state batches held 1-3 genomes that way, about 2% with this ratio."""

    def __init__(self, known: float | None = None) -> None:
        self._seconds, self._members = (known, 1.0) if known is not None else (0.0, 0.0)
        self._warm: set[str | None] = set()  # workers whose first batch is back

    def learn(self, seconds: Sequence[float], worker: str | None = None) -> None:
        """One batch's evaluation seconds, per member, from `worker` (None: a batch of many)."""
        if worker not in self._warm:
            self._warm.add(worker)
            return
        self._seconds = MEMORY * self._seconds + float(sum(seconds))
        self._members = MEMORY * self._members + len(seconds)

    @property
    def value(self) -> float | None:
        """Seconds per member, None until a batch beyond the first has come back."""
        return self._seconds / self._members if self._members and self._seconds else None
