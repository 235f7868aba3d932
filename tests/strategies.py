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
def set_cover_instances(draw, max_n=12, max_lists=10):
    """Small instances: N elements, lists of distinct elements (some may be uncoverable)."""
    N = draw(st.integers(1, max_n))
    lists = draw(
        st.lists(st.lists(st.integers(0, N - 1), unique=True, max_size=N), min_size=1, max_size=max_lists)
    )
    return Instance(N, lists)
