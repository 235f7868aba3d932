"""A plug-in task that fails the way user code fails, as a function of the genome only.

For a genome whose hash is h: `evaluate` raises for any call that holds a genome with
h % 25 == 0; the score is NaN when h % 8 == 1 and +inf (maximised: a failed evaluation)
when h % 40 == 3; with `hang = true`, a genome with h % 50 == 7 sleeps for a minute; with
`fail_all = true` every call raises; with `crash = true`, a call holding a genome with h % 50 == 7
ends its process (a worker that dies: never in-process). The rest score the weighted sum of their bits, so
evolution has somewhere to go. Nothing here imports evo.
"""

from __future__ import annotations

import os
import time
import zlib
from typing import Any, Sequence

import numpy as np
import pyarrow as pa


def genome_hash(genome: np.ndarray) -> int:
    return zlib.crc32(np.packbits(np.asarray(genome, dtype=bool)).tobytes())


class Flaky:
    objectives = ("score", "ones")
    weights = (1.0, -1.0)

    def __init__(self, options: dict[str, Any]) -> None:
        self.bits = int(options.get("bits", 24))
        self.hang = bool(options.get("hang", False))
        self.crash = bool(options.get("crash", False))
        self.fail_all = bool(options.get("fail_all", False))
        self.values = np.random.default_rng(3).integers(1, 20, size=self.bits).astype(float)

    def evaluate(self, genomes: Sequence[np.ndarray], seeds: Sequence[int]) -> dict[str, np.ndarray]:
        hashes = [genome_hash(g) for g in genomes]
        if self.fail_all and genomes:
            raise ValueError("this task fails for every genome")
        cursed = [h for h in hashes if h % 25 == 0]
        if cursed:
            raise RuntimeError(f"genome hash {cursed[0]} is cursed\nsecond line")
        if self.crash and any(h % 50 == 7 for h in hashes):
            os._exit(1)
        if self.hang and any(h % 50 == 7 for h in hashes):
            time.sleep(60)
        chosen = np.asarray(np.stack(genomes), dtype=float) if genomes else np.zeros((0, self.bits))
        score = chosen @ self.values
        score[[h % 8 == 1 for h in hashes]] = np.nan
        score[[h % 40 == 3 for h in hashes]] = np.inf
        return {"score": score, "ones": chosen.sum(axis=1), "hash": np.asarray(hashes, dtype=np.int64)}


class Bits:
    record_type = pa.list_(pa.bool_())

    def __init__(self, options: dict[str, Any], task: Flaky) -> None:
        self.bits = task.bits

    def init(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        return [rng.random(self.bits) < 0.3 for _ in range(n)]

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(len(a)) < 0.5, a, b)

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return genome ^ (rng.random(len(genome)) < 1.5 / len(genome))

    def to_record(self, genome: np.ndarray) -> list[bool]:
        return [bool(b) for b in genome]

    def from_record(self, record: list[bool]) -> np.ndarray:
        return np.asarray(record, dtype=bool)
