"""NumPy's `SeedSequence(entropy, spawn_key=key).spawn(n)` children's first words, for all n at once.

Why: every evaluated genome gets a seed from its own spawned `SeedSequence`
(`evaluation_seeds`), and spawning them one by one costs 11-19 us each in
NumPy: 11-19 ms of the driver's time for a generation of 1,024 (0.13 ms here),
and 0.25 ms for each steady-state batch of 13 (0.08 ms here). The children of
one parent differ only in their last entropy word (their index), so the
same hashing (O'Neill's seed_seq_fe, as NumPy implements it) runs once over
the words they share, then over a vector of their indices. The values are
NumPy's to the bit: a property test compares them with `SeedSequence` itself.
Below `_VECTOR_FROM` children NumPy's own is quicker and is used.
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
_VECTOR_FROM = 4  # children: below this NumPy's own SeedSequence is quicker (~19 us each against ~85 us)


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


def _hashmix(value: int, constant: int) -> tuple[int, int]:
    """seed_seq_fe's `hashmix` on one word: the hashed word and the next running constant."""
    value ^= constant
    constant = (constant * _MULT_A) & _MASK
    value = (value * constant) & _MASK
    return value ^ (value >> 16), constant


def _mix(x: int, y: int) -> int:
    result = (_MIX_L * x - _MIX_R * y) & _MASK
    return result ^ (result >> 16)


def _prefix_pool(words: list[int]) -> tuple[list[int], int]:
    """The pool (`SeedSequence.mix_entropy`) after `words` (at least `_POOL` of them), and the
    running constant: every child's, before its own last word (its index) is mixed in."""
    constant, pool = _INIT_A, []
    for word in words[:_POOL]:
        hashed, constant = _hashmix(word, constant)
        pool.append(hashed)
    for source in range(_POOL):
        for target in range(_POOL):
            if source != target:
                hashed, constant = _hashmix(pool[source], constant)
                pool[target] = _mix(pool[target], hashed)
    for word in words[_POOL:]:
        for target in range(_POOL):
            hashed, constant = _hashmix(word, constant)
            pool[target] = _mix(pool[target], hashed)
    return pool, constant


def spawned_seeds(entropy: int, spawn_key: Sequence[int], n: int) -> list[int]:
    """`[c.generate_state(1, np.uint64)[0] >> 1 for c in SeedSequence(entropy,
    spawn_key=spawn_key).spawn(n)]` as Python ints (63-bit: they fit an int64)."""
    if not 0 <= n <= 2**32:
        raise ValueError(f"n must be in 0..2**32, got {n}")
    if n < _VECTOR_FROM:
        children = np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key)).spawn(n)
        return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
    run = _words(int(entropy))  # padded to the pool: a child always has a spawn key
    pool, constant = _prefix_pool(run + [0] * (_POOL - len(run)) + [w for part in spawn_key for w in _words(int(part))])
    index = np.arange(n, dtype=np.uint32)  # each child's last entropy word
    with np.errstate(over="ignore"):
        mixed = []
        for word in pool:
            value = index ^ np.uint32(constant)
            constant = (constant * _MULT_A) & _MASK
            value = value * np.uint32(constant)
            value ^= value >> _SHIFT
            result = np.uint32(_MIX_L * word & _MASK) - np.uint32(_MIX_R) * value
            mixed.append(result ^ (result >> _SHIFT))
        constant, halves = _INIT_B, []
        for word in mixed[:2]:  # generate_state(1, uint64): two 32-bit words, little-endian
            value = word ^ np.uint32(constant)
            constant = (constant * _MULT_B) & _MASK
            value = value * np.uint32(constant)
            halves.append((value ^ (value >> _SHIFT)).astype(np.uint64))
    return ((halves[0] | (halves[1] << np.uint64(32))) >> np.uint64(1)).tolist()
