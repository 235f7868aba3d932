"""Long-lived objects kept out of Python's cyclic garbage collector while a run works.

Why: a Ray driver holds ~140,000 objects that live as long as the process
(Ray's, pyarrow's, the modules'), and every full collection walks them all;
the members, fitnesses and rows a run allocates set one off every ten or
twenty generations, and at W = 32, t = 0 they took 0.17-0.28 s of a
2.3-2.7 s steady-state run, a tenth of the driver's thread
(benchmarks/README.md, "Less for the driver to do, and a batch sent ahead").
`gc.freeze` moves what exists now to a generation the collector skips;
objects made later are collected as always. Frozen objects are still freed
when their last reference goes; only a cycle among them that becomes
garbage meanwhile waits for the unfreeze.
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
