"""A 0/1 knapsack problem and a bit-string genome kind, written as evo plug-ins.

The spec beside this file names them: `problem = "knapsack:Knapsack"` and
`[genome] kind = "knapsack:Bits"`. evo imports this module from the spec's
folder on the driver and ships it to the Ray workers; nothing here imports
evo, so the contracts are all there is to it:

- a problem is `Factory(options) -> task`; the task has `objectives` (column
  names), `weights` (+1 maximise, -1 minimise) and `evaluate(genomes, seeds)`
  returning one array per column, one entry per genome;
- a genome kind is `Kind(options, task)` with `init(n, rng)`,
  `crossover(a, b, rng)`, `mutate(genome, rng)`, `to_record(genome)` and
  `from_record(record)`, and optionally `repair(genome, rng)`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyarrow as pa


class Knapsack:
    """Items with random weights and values; the sack holds `capacity` of the total weight."""

    objectives = ("value", "weight")
    weights = (1.0, -1.0)  # most value first; lighter as a tie-break (lexicographic specs)

    def __init__(self, options: dict[str, Any]) -> None:
        unknown = set(options) - {"items", "seed", "capacity"}
        if unknown:
            raise ValueError(f"unknown option {sorted(unknown)[0]!r}; options: items, seed, capacity")
        rng = np.random.default_rng(int(options.get("seed", 0)))
        n = int(options.get("items", 100))
        self.item_weights = rng.integers(1, 100, size=n)
        self.item_values = rng.integers(1, 100, size=n) + self.item_weights // 2  # heavier tends to be worth more
        self.capacity = int(float(options.get("capacity", 0.4)) * self.item_weights.sum())

    def evaluate(self, genomes: Sequence[np.ndarray], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        chosen = np.asarray(np.stack(genomes), dtype=np.int64)
        weight = chosen @ self.item_weights
        value = chosen @ self.item_values
        value = np.where(weight <= self.capacity, value, 0)  # an overfull sack is worth nothing
        return {"value": value.astype(float), "weight": weight.astype(float)}

    def optimum(self) -> int:
        """The best value there is (dynamic programming over capacities), to judge evolution by."""
        best = np.zeros(self.capacity + 1, dtype=np.int64)
        for w, v in zip(self.item_weights, self.item_values):
            best[w:] = np.maximum(best[w:], best[:-w] + v) if w <= self.capacity else best[w:]
        return int(best[-1])


class Bits:
    """One bit per item; repair takes out the worst value-per-weight items until the sack closes."""

    record_type = pa.list_(pa.bool_())

    def __init__(self, options: dict[str, Any], task: Knapsack) -> None:
        self.task = task
        self.flips = float(options.get("flips", 1.0))  # expected bits flipped by a mutation
        self.order = np.argsort(task.item_values / task.item_weights)  # worst ratio first

    def init(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        items = len(self.task.item_weights)
        return [rng.random(items) < rng.uniform(0.05, 0.5) for _ in range(n)]

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(len(a)) < 0.5, a, b)

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return genome ^ (rng.random(len(genome)) < self.flips / len(genome))

    def repair(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        genome = genome.copy()
        excess = genome @ self.task.item_weights - self.task.capacity
        for item in self.order:
            if excess <= 0:
                break
            if genome[item]:
                genome[item] = False
                excess -= self.task.item_weights[item]
        return genome

    def to_record(self, genome: np.ndarray) -> list[bool]:
        return genome.tolist()

    def from_record(self, record: Sequence[bool]) -> np.ndarray:
        return np.asarray(record, dtype=bool)
