"""NumPy's `SeedSequence(entropy, spawn_key=key).spawn(n)` children's first words, for all n at once.

Why: every evaluated genome gets a seed from its own spawned `SeedSequence`
(`evaluation_seeds`), and spawning them one by one costs 11-18 us each in
NumPy: 11-18 ms of the driver's time for a generation of 1,024 (0.25 ms here). The children of
one parent differ only in their last entropy word (their index), so the
same hashing (O'Neill's seed_seq_fe, as NumPy implements it) runs here over
a vector of children. The values are NumPy's to the bit: a property test
compares them with `SeedSequence` itself. Below `_VECTOR_FROM` children
NumPy's own is quicker and is used.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["spawned_seeds"]

_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4  # NumPy's default pool size, in 32-bit words
_MASK = 0xFFFFFFFF
_SHIFT = np.uint32(16)
_VECTOR_FROM = 16  # children: below this NumPy's own SeedSequence is quicker (~10 us each against ~170 us)


def _words(value: int) -> list[int]:
    """`value` as little-endian 32-bit words, as NumPy coerces an int (0 is one word)."""
    if value < 0:
        raise ValueError(f"seed material must be >= 0, got {value}")
    out = []
    while True:
        out.append(value & _MASK)
        value >>= 32
        if not value:
            return out


class _Hash:
    """seed_seq_fe's `hashmix` with its running constant (the constants never depend on the data)."""

    def __init__(self) -> None:
        self.constant = _INIT_A

    def __call__(self, value: np.ndarray) -> np.ndarray:
        value = value ^ np.uint32(self.constant)
        self.constant = (self.constant * _MULT_A) & _MASK
        value = value * np.uint32(self.constant)
        return value ^ (value >> _SHIFT)


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    result = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
    return result ^ (result >> _SHIFT)


def _pools(entropy: list[np.ndarray]) -> list[np.ndarray]:
    """The mixed pool of every child (`SeedSequence.mix_entropy`), from its entropy words."""
    hashmix = _Hash()
    pool = [hashmix(entropy[i]) for i in range(_POOL)]
    for source in range(_POOL):
        for target in range(_POOL):
            if source != target:
                pool[target] = _mix(pool[target], hashmix(pool[source]))
    for word in entropy[_POOL:]:
        for target in range(_POOL):
            pool[target] = _mix(pool[target], hashmix(word))
    return pool


def spawned_seeds(entropy: int, spawn_key: Sequence[int], n: int) -> list[int]:
    """`[c.generate_state(1, np.uint64)[0] >> 1 for c in SeedSequence(entropy,
    spawn_key=spawn_key).spawn(n)]` as Python ints (63-bit: they fit an int64)."""
    if not 0 <= n <= 2**32:
        raise ValueError(f"n must be in 0..2**32, got {n}")
    if n < _VECTOR_FROM:
        children = np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key)).spawn(n)
        return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
    run = _words(int(entropy))
    common = run + [0] * (_POOL - len(run)) + [w for part in spawn_key for w in _words(int(part))]
    with np.errstate(over="ignore"):
        entropy_words = [np.full(n, w, dtype=np.uint32) for w in common] + [np.arange(n, dtype=np.uint32)]
        pool = _pools(entropy_words)
        constant, halves = _INIT_B, []
        for word in pool[:2]:  # generate_state(1, uint64): two 32-bit words, little-endian
            value = word ^ np.uint32(constant)
            constant = (constant * _MULT_B) & _MASK
            value = value * np.uint32(constant)
            halves.append((value ^ (value >> _SHIFT)).astype(np.uint64))
    return ((halves[0] | (halves[1] << np.uint64(32))) >> np.uint64(1)).tolist()
