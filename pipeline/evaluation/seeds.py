"""NumPy's `SeedSequence` hashing, run once over many sequences that differ in one or two words.

Why: every evaluated genome gets a seed from its own spawned `SeedSequence`
(`evaluation_seeds`), and an asynchronous run draws each batch's variation from
its own `SeedSequence([seed, batch, stream])`; NumPy builds them one by one, at
10-19 us each (an in-process steady-state run spent a third of its time there,
a child a batch). Sequences that differ only in some words (a child's index, a
batch's number) share the hashing of the rest: `state_words` runs it once with
those words as Python ints and the varying ones as vectors (O'Neill's
seed_seq_fe, as NumPy implements it). The values are NumPy's to the bit: a
property test compares them with `SeedSequence` itself. Below `_VECTOR_FROM`
children NumPy's own spawn is quicker and is used.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

import numpy as np
from numpy.random.bit_generator import ISeedSequence

__all__ = ["Ahead", "first_child_seeds", "generator_states", "seeded_generator", "spawned_seeds", "state_words"]

_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4  # NumPy's default pool size, in 32-bit words
_MASK = 0xFFFFFFFF
_SHIFT = np.uint32(16)
_VECTOR_FROM = 4  # children: below this NumPy's own spawn is quicker (~10 us each against ~47 us for any number)

Word = Union[int, np.ndarray]  # one 32-bit word of every sequence (int), or each its own (uint32 vector)


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


def _hashmix(value: Word, constant: int, multiplier: int = _MULT_A) -> tuple[Word, int]:
    """seed_seq_fe's `hashmix` on one word: the hashed word and the next running constant.
    (On vectors NumPy's uint32 arithmetic wraps as the C does, without overflow warnings.)"""
    if isinstance(value, np.ndarray):
        value = value ^ np.uint32(constant)
        constant = (constant * multiplier) & _MASK
        value = value * np.uint32(constant)
        return value ^ (value >> _SHIFT), constant
    value ^= constant
    constant = (constant * multiplier) & _MASK
    value = (value * constant) & _MASK
    return value ^ (value >> 16), constant


def _mix(x: Word, y: Word) -> Word:
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        result = _times(_MIX_L, x) - _times(_MIX_R, y)
        return result ^ (result >> _SHIFT)
    result = (_MIX_L * x - _MIX_R * y) & _MASK
    return result ^ (result >> 16)


def _times(factor: int, word: Word) -> Word:
    """`factor * word` modulo 2**32, as a uint32 (a vector where `word` is one)."""
    return np.uint32((factor * word) & _MASK) if isinstance(word, int) else np.uint32(factor) * word


def state_words(words: Sequence[Word], n_words: int) -> list[Word]:
    """`SeedSequence`'s `generate_state(n_words, np.uint32)` of the sequences whose assembled
    entropy is `words` (NumPy's `mix_entropy`, then its output hashing): word i of each."""
    constant, pool = _INIT_A, []
    for i in range(_POOL):  # (fewer words than the pool: the hash runs on over zeros)
        hashed, constant = _hashmix(words[i] if i < len(words) else 0, constant)
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
    constant, out = _INIT_B, []
    for i in range(n_words):
        hashed, constant = _hashmix(pool[i % _POOL], constant, _MULT_B)
        out.append(hashed)
    return out


def _spawn_words(entropy: int, spawn_key: Sequence[int]) -> list[int]:
    """The assembled entropy of `SeedSequence(entropy, spawn_key=...)`, but for a last key word
    to come: the run's words padded to the pool, then the key's."""
    run = _words(int(entropy))
    return run + [0] * (_POOL - len(run)) + [w for part in spawn_key for w in _words(int(part))]


def _uint64(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))


def _seeds(low: np.ndarray, high: np.ndarray) -> list[int]:
    """`generate_state(1, np.uint64)[0] >> 1` of each sequence, from its first two words."""
    return (_uint64(low, high) >> np.uint64(1)).tolist()


def _numbers(batches: range) -> np.ndarray:
    """Batch numbers as one word each: a vector of uint32."""
    if batches.start < 0 or batches.stop > 2**32:
        raise ValueError(f"batches must lie in 0..2**32, got {batches}")
    return np.arange(batches.start, batches.stop, batches.step, dtype=np.uint32)


def spawned_seeds(entropy: int, spawn_key: Sequence[int], n: int) -> list[int]:
    """`[c.generate_state(1, np.uint64)[0] >> 1 for c in SeedSequence(entropy,
    spawn_key=spawn_key).spawn(n)]` as Python ints (63-bit: they fit an int64)."""
    if not 0 <= n <= 2**32:
        raise ValueError(f"n must be in 0..2**32, got {n}")
    if n < _VECTOR_FROM:
        children = np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key)).spawn(n)
        return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]
    return _seeds(*state_words(_spawn_words(entropy, spawn_key) + [np.arange(n, dtype=np.uint32)], 2))


def first_child_seeds(entropy: int, stream: int, batches: range) -> list[int]:
    """`spawned_seeds(entropy, (stream, b), 1)[0]` for each b of `batches` (all below 2**32)."""
    return _seeds(*state_words(_spawn_words(entropy, (stream,)) + [_numbers(batches), 0], 2))


class _Generated(ISeedSequence):
    """A `SeedSequence`'s state computed ahead: what NumPy's PCG64 asks of it at its seeding."""
    __slots__ = ("state",)

    def __init__(self, state: np.ndarray) -> None:
        self.state = state

    def generate_state(self, n_words: int, dtype: type = np.uint32) -> np.ndarray:
        if n_words != len(self.state) or np.dtype(dtype) != self.state.dtype:
            raise ValueError(f"computed for {len(self.state)} words of {self.state.dtype}, asked {n_words} of {dtype}")
        return self.state


def generator_states(before: Sequence[int], batches: range, after: Sequence[int]) -> np.ndarray:
    """What `np.random.SeedSequence([*before, b, *after])` gives NumPy's PCG64 to seed it
    (`generate_state(4, np.uint64)`), a row for each b of `batches` (all below 2**32)."""
    words = [w for part in before for w in _words(int(part))] + [_numbers(batches)] + \
        [w for part in after for w in _words(int(part))]
    state = state_words(words, 8)
    return np.stack([_uint64(state[i], state[i + 1]) for i in range(0, 8, 2)], axis=1)


def seeded_generator(state: np.ndarray) -> np.random.Generator:
    """`np.random.default_rng(sequence)`, given the sequence's `generator_states` row: the same
    generator at ~1.5 us instead of ~11. (Made when asked: a generator is garbage-collected,
    and 64 made ahead tripled an in-process run's collections.)"""
    return np.random.Generator(np.random.PCG64(_Generated(state)))


class Ahead:
    """`compute(range)`'s values for batch numbers asked one at a time, `count` at a time (a
    vector costs what one sequence does); `one(batch)` past 2**32, where `compute` stops.
    The numbers are taken to run on by the step between the last two asked (an island asks
    every `islands`-th); where they do not, a window is computed again."""

    def __init__(self, compute: Callable[[range], list], one: Callable[[int], Any], count: int = 64) -> None:
        self._compute, self._one, self._count = compute, one, count
        self._window, self._values = range(0), []
        self._last: int | None = None

    def __call__(self, batch: int) -> Any:
        step = batch - self._last if self._last is not None and batch > self._last else 1
        self._last = batch
        if batch not in self._window:
            if not 0 <= batch < 2**32:
                return self._one(batch)
            self._window = range(batch, min(batch + self._count * step, 2**32), step)
            self._values = self._compute(self._window)
        return self._values[self._window.index(batch)]
