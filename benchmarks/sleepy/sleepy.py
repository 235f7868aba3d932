"""A fitness that only sleeps: the scale-out benchmark's plug-in problem and genome kind.

`Sleepy` sleeps `ms` milliseconds per genome (times a mean-1 lognormal factor
of spread `sigma`, drawn from the genome's seed, so every run sleeps the same
durations), using next to no CPU: whatever a run spends beyond the sleeps divided by
the workers is orchestration. Its objective counts a genome's ones (OneMax),
so evolution has something to do. `Bits` is a plain bit-string kind. With
the option `calls_dir` each call's start, end and sleeps are appended to a
file per process there (`bench_scale_out.py --timeline`).
"""

from __future__ import annotations

import math
import os
import time
from statistics import NormalDist

import numpy as np
import pyarrow as pa


_MASK = 2**64 - 1
_NORMAL = NormalDist()


def sleep_seconds(seed: int, ms: float, sigma: float) -> float:
    """The sleep of one evaluation: `ms` times exp(sigma Z - sigma^2 / 2) (mean `ms`).

    Z is the normal quantile of the seed's splitmix64 hash: 1.5 µs of CPU, where a NumPy generator
    made per genome took 74 µs, a CPU cost the benchmark's ceiling (sleeping durations drawn in
    advance) did not pay, a quarter of a core at W = 64 and 20 ms."""
    if sigma == 0:
        return ms / 1000
    z = _NORMAL.inv_cdf((_splitmix64(int(seed)) + 0.5) / 2**64)
    return ms / 1000 * math.exp(sigma * z - sigma * sigma / 2)


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


class Sleepy:
    objectives = ("ones",)
    weights = (1.0,)

    def __init__(self, options: dict) -> None:
        self.ms = float(options.get("ms", 20.0))
        self.sigma = float(options.get("sigma", 0.0))
        self.bits = int(options.get("bits", 64))
        self.calls_dir = options.get("calls_dir")  # bench_scale_out.py --timeline: each call's span, per process

    def evaluate(self, genomes: list, seeds: list[int]) -> dict:
        if self.calls_dir is None:
            return self._sleep(genomes, seeds)
        started = time.time()  # the wall clock: the driver's generation times are compared with it
        columns = self._sleep(genomes, seeds)
        ended = time.time()  # before the log's own cost, which bare actors do not pay
        with open(os.path.join(self.calls_dir, f"{os.getpid()}.txt"), "a") as sink:
            sink.write(f"{started} {ended} {float(columns['slept'].sum())}\n")
        return columns

    def _sleep(self, genomes: list, seeds: list[int]) -> dict:
        slept = []
        for seed in seeds:
            seconds = sleep_seconds(seed, self.ms, self.sigma)
            if seconds > 0:
                time.sleep(seconds)
            slept.append(seconds)
        return {"ones": np.array([int(np.count_nonzero(g)) for g in genomes]), "slept": np.array(slept)}


class Bits:
    record_type = pa.list_(pa.bool_())

    def __init__(self, options: dict, task: Sleepy) -> None:
        self.n = task.bits

    def init(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        return [rng.random(self.n) < 0.5 for _ in range(n)]

    def crossover(self, a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(self.n) < 0.5, a, b)

    def mutate(self, genome: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        child = genome.copy()
        child[rng.integers(self.n)] ^= True
        return child

    def to_record(self, genome: np.ndarray) -> list[bool]:
        return genome.tolist()

    def from_record(self, record: list) -> np.ndarray:
        return np.asarray(record, dtype=bool)

    def record_array(self, genomes: list[np.ndarray]) -> pa.Array:
        """The log's genome column from one buffer: a Python list per genome (`to_record`) cost a
        driver on 32 workers 5.6 ms of every 1,024 arrivals."""
        offsets = np.arange(len(genomes) + 1, dtype=np.int32) * self.n
        values = np.concatenate(genomes) if genomes else np.zeros(0, dtype=bool)
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, pa.bool_()))
