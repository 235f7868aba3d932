"""The course's set-cover instance generator, reproduced draw for draw.

Instances are identified by ``(N, seed)`` across the course write-ups, so the
lists must match the original generator exactly; unlike the original, the
caller's global ``random`` state is left untouched.
"""

from __future__ import annotations

import random


def problem(N: int, seed: int | None = None) -> list[list[int]]:
    """Return the course instance ``(N, seed)``: a list of lists over ``range(N)``.

    The number of lists is drawn first, then for each list its draw count and
    that many elements, deduplicated through a ``set`` (so the in-list order is
    the set's iteration order, as in the original).  The global ``random``
    state is restored afterwards so that calling this does not reseed the
    caller's randomness.
    """
    if isinstance(N, bool) or not isinstance(N, int) or N < 1:
        raise ValueError(f"N must be an integer >= 1, got {N!r}")
    saved = random.getstate()
    try:
        random.seed(seed)
        n_lists = random.randint(N, 5 * N)
        lists = []
        getrandbits = random.getrandbits
        bits = N.bit_length()
        for _ in range(n_lists):
            draws = random.randint(N // 5, N // 2)
            elements = set()
            for _ in range(draws):
                # random.randint(0, N - 1), inlined: CPython draws getrandbits(N.bit_length())
                # until the value is below N; the same calls give the same stream, 3x faster.
                value = getrandbits(bits)
                while value >= N:
                    value = getrandbits(bits)
                elements.add(value)
            lists.append(list(elements))
        return lists
    finally:
        random.setstate(saved)
