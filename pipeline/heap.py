"""Long-lived objects kept out of Python's cyclic garbage collector while a run works.

Why: a driver holds ~140,000 long-lived objects (Ray's, pyarrow's, the
modules'), and every full collection walks them all; a run allocating
members, fitnesses and rows triggers one every few hundred generations'
worth of arrivals, and they took a tenth of a steady-state driver's thread
at W = 32 (0.17-0.28 s of gen-2 collection in a 2.3 s run; benchmarks/README.md,
"Garbage collection off the long-lived heap"). `gc.freeze` moves what exists
now to a generation the collector skips; objects made later are collected
as always, and nothing is freed later than it would be once unfrozen.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["freeze_heap", "frozen_heap"]


def freeze_heap() -> None:
    """Collect once, then keep everything alive now out of later collections (for good: a
    process of our own, such as an actor once its task is built)."""
    gc.collect()
    gc.freeze()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """`freeze_heap` for the duration of a run, in a process that may be a user's (a notebook):
    the frozen objects go back to the collector afterwards, whatever happened."""
    freeze_heap()
    try:
        yield
    finally:
        gc.unfreeze()
