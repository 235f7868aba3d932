"""The exact solver's size is known before it is built: boards too big for
memory are refused at once, in one line, with an alternative."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent
from fitness.nim.canonical import CanonicalStates, TooManyStates, count_states, require_enumerable


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=5))
def test_the_count_equals_the_enumeration(board):
    assert count_states(board) == CanonicalStates(tuple(sorted(board))).n_states


def test_known_counts_and_huge_boards_are_counted_instantly():
    assert count_states([1, 3, 5, 7, 9, 11, 13, 15, 17]) == 690_690  # the 9-row board
    started = time.monotonic()
    assert count_states([60] * 10) == 396_704_524_216
    assert time.monotonic() - started < 1


def test_boards_over_the_budget_are_refused_by_the_solver_and_the_minimax_agent():
    with pytest.raises(TooManyStates, match="142,498,692 canonical states"):
        require_enumerable(Rules.standard(12).rows)
    with pytest.raises(TooManyStates, match="use 'minimax:D'"):
        agent("minimax", Rules(rows=(60,) * 10))
    assert agent("minimax:2", Rules(rows=(60,) * 10)) is not None  # the alternative offered works
    assert require_enumerable((1, 3, 5), budget=10**6) == 30
    with pytest.raises(TooManyStates, match="over the"):
        require_enumerable((1, 3, 5), budget=100)


@pytest.mark.timeout(30)
def test_evo_match_refuses_a_board_too_big_for_minimax_quickly():
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "match", "minimax", "random", "--rows", "12"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "canonical states" in lines[0] and "minimax:D" in lines[0]
    assert time.monotonic() - started < 20
