"""problem(N, seed) must reproduce the course generator draw for draw and leave `random` alone."""

import hashlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.setcover import problem


def course_reference(N, seed):
    """The course generator as the write-ups describe it (it reseeds the global state)."""
    random.seed(seed)
    return [
        list(set(random.randint(0, N - 1) for _ in range(random.randint(N // 5, N // 2))))
        for _ in range(random.randint(N, N * 5))
    ]


@settings(max_examples=40, deadline=None)
@given(N=st.integers(1, 120), seed=st.one_of(st.integers(-(2**40), 2**40), st.text(max_size=5)))
def test_matches_course_generator(N, seed):
    state = random.getstate()
    try:
        expected = course_reference(N, seed)
    finally:
        random.setstate(state)
    assert problem(N, seed) == expected


def test_seed_42_size_1000_has_3619_lists_and_known_content():
    lists = problem(1000, seed=42)
    assert len(lists) == 3619
    digest = hashlib.sha256(json.dumps(lists).encode()).hexdigest()
    assert digest == "d38eb0821fc609485e34ac60336037d6ff41e099cde09539cc8d444a8a0bcb79"


@pytest.mark.parametrize("seed", [42, None])
def test_restores_global_random_state(seed):
    random.seed(123)
    random.random()
    expected = [random.random() for _ in range(3)]
    random.seed(123)
    random.random()
    problem(50, seed)
    assert [random.random() for _ in range(3)] == expected


def test_restores_state_even_when_seeding_fails():
    random.seed(5)
    state = random.getstate()
    with pytest.raises(TypeError):
        problem(10, seed=[1, 2])  # unhashable: random.seed rejects it
    assert random.getstate() == state


@pytest.mark.parametrize("N", [0, -3, 2.5, True, "10", None])
def test_rejects_bad_N_naming_the_field(N):
    with pytest.raises(ValueError, match="N must be an integer >= 1"):
        problem(N, seed=1)
