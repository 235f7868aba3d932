"""CMA-ES's search distribution and its update, as plain data computed in a fixed order.

The update is DEAP's `cma.Strategy.update` with the defaults of Hansen's
tutorial (2016), which pycma uses: active CMA (the worst samples, with
negative weights, shrink C along their directions) and its cc and cs. On
Rosenbrock in 10-D the active update needs about a fifth fewer evaluations
than DEAP's (positive weights only). DEAP's class itself is not used because
it samples from numpy's global generator (a run's draws come from the
generation's own generator) and decomposes C with LAPACK, whose kernels
differ between CPUs. Here every sum runs in one fixed order (a matrix product
adds its terms a column at a time; the eigendecomposition is cyclic Jacobi,
started from the last eigenbasis) and exp, log and sqrt are Python's `math`,
so the same draws give the same bits on any machine, and the state is lists
of floats that round-trip through JSON exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .members import sequential_sum

__all__ = ["Distribution", "Parameters", "ordered_matmul", "symmetric_eigen"]

_MAX_SWEEPS = 50


@dataclass(frozen=True)
class Parameters:
    """The tutorial's parameters for `dim` coordinates, `offspring` (lambda) samples of which the
    best `parents` (mu) have positive weights (summing to 1) and the rest negative ones."""

    dim: int
    offspring: int
    parents: int
    weights: tuple[float, ...]  # one per sample, best first
    mueff: float
    cc: float
    cs: float
    c1: float
    cmu: float
    damps: float
    chi_n: float

    @classmethod
    def of(cls, dim: int, offspring: int, parents: int) -> Parameters:
        raw = [math.log(parents + 0.5) - math.log(i) for i in range(1, offspring + 1)]
        positive, negative = raw[:parents], raw[parents:]
        mueff = sequential_sum(positive) ** 2 / sequential_sum(w * w for w in positive)
        n = float(dim)
        c1 = 2.0 / ((n + 1.3) ** 2 + mueff)
        cmu = min(1.0 - c1, 2.0 * (mueff - 2.0 + 1.0 / mueff) / ((n + 2.0) ** 2 + mueff))
        weights = [w / sequential_sum(positive) for w in positive]
        if negative:
            mueff_minus = sequential_sum(negative) ** 2 / sequential_sum(w * w for w in negative)
            scale = min(1.0 + c1 / cmu, 1.0 + 2.0 * mueff_minus / (mueff + 2.0), (1.0 - c1 - cmu) / (n * cmu))
            weights += [scale * w / -sequential_sum(negative) for w in negative]
        cs = (mueff + 2.0) / (n + mueff + 5.0)
        cc = (4.0 + mueff / n) / (n + 4.0 + 2.0 * mueff / n)
        damps = 1.0 + 2.0 * max(0.0, math.sqrt((mueff - 1.0) / (n + 1.0)) - 1.0) + cs
        chi_n = math.sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n ** 2))
        return cls(dim, offspring, parents, tuple(weights), mueff, cc, cs, c1, cmu, damps, chi_n)


@dataclass
class Distribution:
    """N(mean, sigma^2 C), C = B diag(D)^2 B^T, and the evolution paths; `updates`: since its start."""

    mean: np.ndarray
    sigma: float
    C: np.ndarray
    B: np.ndarray
    D: np.ndarray
    pc: np.ndarray
    ps: np.ndarray
    updates: int = 0

    @classmethod
    def start(cls, mean: np.ndarray, sigma: float) -> Distribution:
        n = len(mean)
        eye = np.eye(n)
        return cls(np.array(mean, dtype=np.float64), float(sigma), eye.copy(), eye.copy(), np.ones(n),
                   np.zeros(n), np.zeros(n))

    def sample(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """`count` points, one a row: mean + sigma * B D z, z standard normal from `rng`."""
        z = rng.standard_normal((count, len(self.mean)))
        return self.mean + self.sigma * ordered_matmul(z, (self.B * self.D).T)

    def update(self, params: Parameters, ranked: np.ndarray) -> None:
        """The tutorial's update from all the generation's points (rows), best first."""
        p, n = params, len(self.mean)
        old = self.mean
        self.mean = _weighted_rows(p.weights[:p.parents], ranked[:p.parents])
        step = self.mean - old
        whitened = self._whiten(step[None, :])[0]
        self.ps = (1 - p.cs) * self.ps + math.sqrt(p.cs * (2 - p.cs) * p.mueff) / self.sigma * whitened
        ps_norm = _norm(self.ps)
        hsig = float(ps_norm / math.sqrt(1.0 - (1.0 - p.cs) ** (2.0 * (self.updates + 1.0))) / p.chi_n
                     < 1.4 + 2.0 / (n + 1.0))
        self.updates += 1
        self.pc = (1 - p.cc) * self.pc + hsig * math.sqrt(p.cc * (2 - p.cc) * p.mueff) / self.sigma * step
        deviations = (ranked - old) / self.sigma
        # a negative weight acts on the sample's direction scaled to length sqrt(n) in C's metric
        lengths = [_norm(row) ** 2 for row in self._whiten(deviations)]
        weights = [w if w >= 0 else w * n / lengths[i] for i, w in enumerate(p.weights)]
        rank_mu = _weighted_rows(weights, [np.outer(d, d) for d in deviations])
        decay = 1 - p.c1 - p.cmu * sequential_sum(p.weights) + (1 - hsig) * p.c1 * p.cc * (2 - p.cc)
        self.C = decay * self.C + p.c1 * np.outer(self.pc, self.pc) + p.cmu * rank_mu
        self.sigma *= math.exp((ps_norm / p.chi_n - 1.0) * p.cs / p.damps)
        eigenvalues, self.B = symmetric_eigen(self.C, self.B)
        floor = max(float(eigenvalues[-1]) * 1e-30, 1e-300)  # a rounding below zero must not divide by zero
        self.D = np.sqrt(np.maximum(eigenvalues, floor))

    def _whiten(self, rows: np.ndarray) -> np.ndarray:
        """C^(-1/2) applied to each row, as B diag(1/D) B^T."""
        return ordered_matmul(ordered_matmul(rows, self.B) / self.D, self.B.T)

    def condition(self) -> float:
        """Of C: the largest eigenvalue over the smallest."""
        return float((self.D[-1] / self.D[0]) ** 2)

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "sigma": self.sigma, "C": self.C.tolist(), "B": self.B.tolist(),
                "D": self.D.tolist(), "pc": self.pc.tolist(), "ps": self.ps.tolist(), "updates": self.updates}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Distribution:
        arrays = {k: np.array(data[k], dtype=np.float64) for k in ("mean", "C", "B", "D", "pc", "ps")}
        return cls(sigma=float(data["sigma"]), updates=int(data["updates"]), **arrays)


def ordered_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b with the terms of each entry added in order of the inner index: exact
    element-wise products and sums only, so no BLAS kernel's order changes a bit."""
    out = a[:, 0:1] * b[0:1, :]
    for j in range(1, a.shape[1]):
        out = out + a[:, j:j + 1] * b[j:j + 1, :]
    return out


def symmetric_eigen(matrix: np.ndarray, basis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix by Jacobi rotations,
    started in `basis` (the last eigenbasis). Each sweep is n - 1 rounds of n / 2 disjoint rotations
    (Brent and Luk's round robin), applied together as whole-array operations. An off-diagonal
    entry below 1e-15 of its diagonal pair's geometric mean (or 1e-30 of the largest diagonal
    entry) counts as zero: past that, rotations only move rounding errors."""
    a = ordered_matmul(ordered_matmul(basis.T, matrix), basis)
    a = (a + a.T) / 2.0
    v = np.array(basis, dtype=np.float64)
    rounds = _round_robin(len(a))
    for _ in range(_MAX_SWEEPS):
        floor = 1e-30 * float(np.max(np.abs(np.diag(a))))
        rotated = False
        for p, q in rounds:
            rotated |= _rotate(a, v, p, q, floor)
        if not rotated:
            break
    order = np.argsort(np.diag(a), kind="stable")
    return np.diag(a)[order].copy(), v[:, order]


def _round_robin(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """n - 1 rounds (n even; n rounds if odd) of disjoint pairs p < q that meet every pair once."""
    players, m = list(range(n + n % 2)), n + n % 2
    rounds = []
    for _ in range(m - 1):
        pairs = sorted((min(players[i], players[m - 1 - i]), max(players[i], players[m - 1 - i]))
                       for i in range(m // 2))
        pairs = [pair for pair in pairs if pair[1] < n]
        rounds.append((np.array([p for p, _ in pairs], dtype=np.intp), np.array([q for _, q in pairs], dtype=np.intp)))
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def _rotate(a: np.ndarray, v: np.ndarray, p: np.ndarray, q: np.ndarray, floor: float) -> bool:
    """Disjoint Jacobi rotations zeroing a[p, q] (Numerical Recipes' `jacobi`, pair by pair);
    False if every one is negligible."""
    apq, app, aqq = a[p, q], a[p, p], a[q, q]
    live = np.abs(apq) > np.maximum(1e-15 * np.sqrt(np.abs(app * aqq)), floor)
    if not live.any():
        return False
    p, q, apq, app, aqq = p[live], q[live], apq[live], app[live], aqq[live]
    theta = (aqq - app) / (2.0 * apq)
    t = 1.0 / (np.abs(theta) + np.sqrt(theta * theta + 1.0))  # theta beyond 1e154: t = 0, no turn
    t = np.where(theta < 0, -t, t)
    c = 1.0 / np.sqrt(t * t + 1.0)
    s = t * c
    for m in (a, v):  # columns p, q of a and v
        mp, mq = m[:, p], m[:, q]
        m[:, p], m[:, q] = mp * c - mq * s, mp * s + mq * c
    ap, aq = a[p, :], a[q, :]  # rows p, q of a
    a[p, :], a[q, :] = c[:, None] * ap - s[:, None] * aq, s[:, None] * ap + c[:, None] * aq
    a[p, q] = a[q, p] = 0.0
    return True


def _weighted_rows(weights: tuple[float, ...], rows: Any) -> np.ndarray:
    """sum_i weights[i] * rows[i], added in order."""
    total = weights[0] * rows[0]
    for w, row in zip(weights[1:], rows[1:]):
        total = total + w * row
    return total


def _norm(vector: np.ndarray) -> float:
    return math.sqrt(math.fsum((vector * vector).tolist()))
