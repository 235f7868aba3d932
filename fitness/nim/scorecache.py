"""Scores remembered by genome: in an exact task the same genome always scores the same.

A GP generation re-makes many genomes it has scored before (copies,
mutations undone by the size limit, crossovers of equal subtrees: about 40%
of a generation's children in the shipped GP runs), so remembering the most
recent scores skips that work without changing any figure.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Hashable, Sequence

import numpy as np

__all__ = ["ScoreCache"]

Columns = dict[str, np.ndarray]


class ScoreCache:
    """The columns of up to `size` recently scored genomes (hashable ones)."""

    def __init__(self, size: int = 1 << 15) -> None:
        self.size = size
        self._rows: OrderedDict[Hashable, tuple] = OrderedDict()
        self._names: tuple[str, ...] | None = None
        self._dtypes: tuple[np.dtype, ...] = ()

    def evaluate(self, genomes: Sequence[Any], score: Callable[[list[Any]], Columns]) -> Columns:
        """`score(genomes)`'s columns, calling it only for genomes not remembered (each once)."""
        fresh = list(dict.fromkeys(g for g in genomes if g not in self._rows))
        if fresh or self._names is None:
            columns = score(fresh)
            self._names = tuple(columns)
            self._dtypes = tuple(np.asarray(v).dtype for v in columns.values())
            for i, genome in enumerate(fresh):
                self._rows[genome] = tuple(values[i] for values in columns.values())
        rows = []
        for genome in genomes:
            rows.append(self._rows[genome])
            self._rows.move_to_end(genome)
        while len(self._rows) > self.size:
            self._rows.popitem(last=False)
        return {name: np.asarray([row[j] for row in rows], dtype=dtype).reshape(len(rows))
                for j, (name, dtype) in enumerate(zip(self._names, self._dtypes))}
