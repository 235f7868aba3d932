"""The hypervolume a set of points dominates, exactly, in pure Python.

Pareto runs log it each generation (`hypervolume` in generations.parquet). It is
computed here exactly and rounded once, rather than by moocore (what DEAP 1.4
calls), so that the logged figure is the same on every machine and library
version, does not depend on dominated points or on the points' order, and never
decreases when the points dominate more (float sums in another order could dip in
the last bit). Exact is cheap: floats are integers times powers of two, so after
one common scaling every sum and product is a Python integer. Tests check it
against moocore.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

__all__ = ["hypervolume"]

Point = tuple[int, ...]


def hypervolume(points: Sequence[Sequence[float]], reference: Sequence[float]) -> float:
    """The volume dominated by `points` and bounded by `reference`, every objective minimised
    (as DEAP's `-wvalues`). Points not strictly better than the reference in every objective
    add nothing and are left out, as moocore does."""
    ref = [float(r) for r in reference]
    inside = {tuple(float(v) for v in p) for p in points if len(p) == len(ref) and all(
        float(v) < r for v, r in zip(p, ref))}
    if not inside:
        return 0.0
    shift = max(Fraction(v).denominator.bit_length() - 1 for p in [*inside, ref] for v in p)
    scaled = [tuple(_scaled(v, shift) for v in p) for p in inside]
    volume = _volume(_non_dominated(scaled) if len(ref) > 2 else scaled, tuple(_scaled(r, shift) for r in ref))
    return float(Fraction(volume, 1 << (shift * len(ref))))


def _scaled(value: float, shift: int) -> int:
    """`value * 2**shift`, exactly (an integer: `shift` covers every value's binary fraction)."""
    fraction = Fraction(value)
    return fraction.numerator * ((1 << shift) // fraction.denominator)


def _non_dominated(points: list[Point]) -> list[Point]:
    """The points no other point is at least as good as in every objective."""
    kept: list[Point] = []
    for p in sorted(set(points)):  # a dominating point sorts before what it dominates
        if not any(all(a <= b for a, b in zip(q, p)) for q in kept):
            kept.append(p)
    return kept


def _volume(points: list[Point], ref: Point) -> int:
    """Slices along the last objective, each the (d-1)-dimensional volume of the points in it."""
    if len(ref) == 1:
        return ref[0] - min(p[0] for p in points)
    if len(ref) == 2:
        return _area(points, ref)
    ordered = sorted(points, key=lambda p: p[-1])
    total, present = 0, []
    for i, point in enumerate(ordered):
        present.append(point[:-1])
        top = ordered[i + 1][-1] if i + 1 < len(ordered) else ref[-1]
        if top > point[-1]:
            total += _volume(present, ref[:-1]) * (top - point[-1])
    return total


def _area(points: list[Point], ref: Point) -> int:
    """Two objectives: a staircase swept by the first objective (dominated points add nothing)."""
    total, lowest = 0, ref[1]
    for x, y in sorted(points):
        if y < lowest:
            total += (ref[0] - x) * (lowest - y)
            lowest = y
    return total
