"""Hypothesis strategies shared by the test modules."""

import numpy as np
from hypothesis import strategies as st

from fitness.nim import Rules
from fitness.setcover import Instance


@st.composite
def nim_positions(draw):
    """(rules, positions, seed): any board of up to 6 rows of 0-9, any k, either
    play, and up to 40 non-empty positions reachable from it."""
    board = draw(st.lists(st.integers(0, 9), min_size=1, max_size=6).filter(lambda r: sum(r) > 0))
    rules = Rules(rows=tuple(board), k=draw(st.one_of(st.none(), st.integers(1, 6))), misere=draw(st.booleans()))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    positions = rng.integers(0, np.asarray(board) + 1, size=(draw(st.integers(1, 40)), len(board)))
    positions = positions[positions.sum(axis=1) > 0]
    if len(positions) == 0:
        positions = np.asarray([board])
    return rules, positions, seed


@st.composite
def set_cover_instances(draw, max_n=12, max_lists=10, weighted=False, coverable=False):
    """Small instances: N elements, lists of distinct elements (some may be uncoverable unless
    `coverable`); `weighted`: a cost of 0-20 per list instead of its size."""
    N = draw(st.integers(1, max_n))
    lists = draw(
        st.lists(st.lists(st.integers(0, N - 1), unique=True, max_size=N), min_size=1, max_size=max_lists)
    )
    if coverable:  # every element in some list: add each missing one to a list drawn for it
        for e in sorted(set(range(N)) - {e for lst in lists for e in lst}):
            lists[draw(st.integers(0, len(lists) - 1))].append(e)
    costs = draw(st.lists(st.integers(0, 20), min_size=len(lists), max_size=len(lists))) if weighted else None
    return Instance(N, lists, costs)


def any_set_cover_instances(max_n=12, max_lists=10, coverable=False):
    """Course-style (cost = size) and weighted instances alike."""
    return st.one_of(set_cover_instances(max_n, max_lists, coverable=coverable),
                     set_cover_instances(max_n, max_lists, weighted=True, coverable=coverable))
