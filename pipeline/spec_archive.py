"""The spec's `[archive]` section: MAP-Elites' grid over behaviour descriptors (see
docs/algorithms.md, "MAP-Elites"), kept apart from spec.py."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:
    from .spec import RunSpec

__all__ = ["Archive", "check_archive"]


class Archive(BaseModel):
    """A grid archive: each descriptor's range cut into `bins` equal cells; a cell keeps the
    fittest individual whose descriptors fall in it (its elite)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as every spec section

    descriptors: list[str] = Field(min_length=1, max_length=3, description=(
        "the behaviour descriptors (columns the problem computes): Nim's empty_row_rate (how often the "
        "agent's move empties a row) and zero_nimsum_rate (how often it leaves a nim-sum of zero); a "
        "plug-in problem names its own in task.descriptors"))
    bins: list[int] = Field(description="cells along each descriptor, in the same order (each 1 to 1,000)")
    ranges: dict[str, list[float]] = Field(default_factory=dict, description=(
        "descriptor name -> [low, high] the bins cut (default: the problem's descriptor_bounds; Nim's "
        "are [0, 1]); values outside go to the nearest edge cell"))

    @model_validator(mode="after")
    def _shape(self) -> "Archive":
        if len(self.bins) != len(self.descriptors) or not all(1 <= b <= 1000 for b in self.bins):
            raise ValueError(f"bins: one count from 1 to 1,000 per descriptor ({len(self.descriptors)}), "
                             f"got {self.bins}")
        repeated = sorted({name for name in self.descriptors if self.descriptors.count(name) > 1})
        if repeated:  # a grid's axes are distinct: a repeated one only fills its diagonal
            raise ValueError(f"descriptors: each descriptor once (repeated: {', '.join(repeated)})")
        for name, bounds in self.ranges.items():
            if name not in self.descriptors:
                raise ValueError(f"ranges: {name!r} is not one of the descriptors ({', '.join(self.descriptors)})")
            if len(bounds) != 2 or not (all(map(math.isfinite, bounds)) and bounds[0] < bounds[1]):
                raise ValueError(f"ranges.{name}: must be [low, high], finite, with low < high, got {bounds}")
        return self


def check_archive(spec: RunSpec) -> None:
    """An archive for MAP-Elites, and only for it; one objective to be an elite by."""
    if (spec.archive is not None) != (spec.population.algorithm == "map-elites"):
        raise ValueError("archive: population.algorithm = 'map-elites' takes an [archive] section, and only it")
    if spec.archive is not None:
        if spec.objectives.mode == "pareto":
            raise ValueError("objectives.mode: map-elites keeps one elite per cell by a single fitness: "
                             "'weighted' or 'lexicographic', not 'pareto'")


def archive_ranges(spec: RunSpec, task: object) -> list[tuple[float, float]]:
    """Each descriptor's [low, high]: the spec's `ranges`, else the problem's `descriptor_bounds`;
    ValueError (one line, naming the key) for a descriptor the problem does not compute or bound."""
    archive = spec.archive
    assert archive is not None
    known = tuple(getattr(task, "descriptors", ()) or ())
    bounds = dict(getattr(task, "descriptor_bounds", {}) or {})
    ranges = []
    for name in archive.descriptors:
        if name not in known:
            raise ValueError(f"archive.descriptors: {name!r} is not a descriptor this problem computes "
                             f"({', '.join(known) or 'it declares none: task.descriptors'})")
        low, high = archive.ranges.get(name) or bounds.get(name) or (None, None)
        if low is None:
            raise ValueError(f"archive.ranges: give {name} = [low, high] (the problem declares no bounds for it)")
        ranges.append((float(low), float(high)))
    return ranges
