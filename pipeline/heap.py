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
import os
from contextlib import contextmanager
from typing import Iterator

__all__ = ["freeze_forked_children", "freeze_heap", "frozen_heap"]

_FORKS_FREEZE = False  # whether `freeze_forked_children` has registered its hook in this process


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


def freeze_forked_children() -> None:
    """From now on a child forked from this process (the log's writer, a local worker) keeps
    everything it inherited out of its collections, from its first step on (`gc.freeze` in an
    at-fork hook; registered once). Why: the parent's cyclic garbage may hold objects of a
    library whose own threads were changing them at the fork (Ray's, in a driver), and freeing
    them in the child is the likeliest cause of the one writer that died of a corrupted heap
    ("double free or corruption", SIGABRT, in a CI run beside Ray); and no collection of the
    child walks the parent's objects. What the child makes itself is collected as always."""
    global _FORKS_FREEZE
    if not _FORKS_FREEZE:
        os.register_at_fork(after_in_child=gc.freeze)
        _FORKS_FREEZE = True
