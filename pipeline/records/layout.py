"""Which file holds which generations: individuals/ and population/ as Parquet datasets.

    recent/gen-GGGGGG.arrows               generations G, G+1, ... as committed: an Arrow IPC
                                           stream, one batch appended per generation (a file per
                                           generation costs 0.5-1 ms of CPU on these disks); a
                                           whole batch is the commit point, its metadata carries
                                           the generation's record (the state after it, its row)
    individuals/gen-GGGGGG.parquet         the same, in runs written before parts
    individuals/part-GGGGGG-HHHHHH.parquet generations G..H compacted: zstd, row groups in
                                           generation order; its footer carries H's record and
                                           each generation's row count
    population/part-GGGGGG-HHHHHH.parquet  who is alive after each of G..H, with rank (and island)
    population/gen-GGGGGG.parquet          the same for one generation (runs written before parts)

A generation's population is also in its record, so a generation still in a gen
file has no population file. Compaction renames a part in before it deletes the gen
files it covers: a crash between leaves gen files a part covers, which readers skip
and the writer deletes (`leftovers`). Any other name is not a generation and is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["Piece", "Pieces", "is_generation_file", "part_name", "scan"]

_NAME = re.compile(r"^(?:gen-(\d{6,})\.(?:parquet|arrows)|part-(\d{6,})-(\d{6,})\.parquet)$")


@dataclass(frozen=True)
class Piece:
    """One file of a dataset and the generations `first`..`last` it holds."""

    first: int
    last: int
    path: Path

    @property
    def compacted(self) -> bool:
        return self.path.name.startswith("part-")

    def covers(self, generation: int) -> bool:
        return self.first <= generation <= self.last


@dataclass(frozen=True)
class Pieces:
    """A folder's generation files, in generation order, and the gen files a part already covers."""

    pieces: list[Piece]
    leftovers: list[Piece]

    @property
    def last(self) -> int:
        """The last generation held (-1 if none)."""
        return self.pieces[-1].last if self.pieces else -1

    def holding(self, generations: range | None) -> list[Piece]:
        """The pieces that hold any of `generations` (all: None)."""
        if generations is None:
            return list(self.pieces)
        if not generations:
            return []
        low, high = generations[0], generations[-1]
        return [p for p in self.pieces if p.last >= low and p.first <= high]

    def resolved(self, count: Callable[[Piece], int]) -> "Pieces":
        """With each stream's span: `count(piece)` whole generations from its first (none: left out)."""
        pieces = []
        for piece in self.pieces:
            if piece.path.suffix == ".arrows":
                whole = count(piece)
                if not whole:
                    continue
                piece = Piece(piece.first, piece.first + whole - 1, piece.path)
            pieces.append(piece)
        return Pieces(pieces, self.leftovers)

    def by_generation(self) -> dict[int, Path]:
        return {g: p.path for p in self.pieces for g in range(p.first, p.last + 1)}

    def gap(self) -> int | None:
        """The first generation missing below the last one held (None: 0..last all there)."""
        expected = 0
        for piece in self.pieces:
            if piece.first != expected:
                return expected
            expected = piece.last + 1
        return None


def part_name(first: int, last: int) -> str:
    return f"part-{first:06d}-{last:06d}.parquet"


def is_generation_file(name: str) -> bool:
    return _NAME.match(name) is not None


def scan(*folders: Path) -> Pieces:
    """The generation files in `folders` (a part wins over the gen files it covers)."""
    found: list[Piece] = []
    for folder in folders:
        try:
            names = [entry.name for entry in folder.iterdir()]
        except FileNotFoundError:
            names = []
        for name in names:
            match = _NAME.match(name)
            if match:
                gen, first, last = match.groups()
                span = (int(gen), int(gen)) if gen is not None else (int(first), int(last))
                if span[0] <= span[1]:
                    found.append(Piece(span[0], span[1], folder / name))
    parts = sorted((p for p in found if p.compacted), key=lambda p: (p.first, p.last))
    covered = [g for g in found if not g.compacted and any(p.covers(g.first) for p in parts)]
    pieces = sorted((p for p in found if p.compacted or p not in covered), key=lambda p: (p.first, p.last))
    return Pieces(pieces, sorted(covered, key=lambda p: p.first))
