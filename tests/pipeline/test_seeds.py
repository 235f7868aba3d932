"""The vectorised spawn of seeds holds NumPy's `SeedSequence` to the bit (the golden logs depend on it)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evaluation.seeds import Ahead, first_child_seeds, generator_states, seeded_generator, spawned_seeds


def numpy_children(entropy: int, key: tuple[int, ...], n: int) -> list[int]:
    children = np.random.SeedSequence(entropy, spawn_key=key).spawn(n)
    return [int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children]


@settings(max_examples=300, deadline=None)
@given(entropy=st.one_of(st.integers(0, 2**32), st.integers(0, 2**200)),
       key=st.lists(st.one_of(st.integers(0, 3), st.integers(0, 2**70)), max_size=4).map(tuple),
       n=st.integers(0, 40))
def test_the_same_seeds_as_spawning_numpys_seed_sequences(entropy, key, n):
    assert spawned_seeds(entropy, key, n) == numpy_children(entropy, key, n)


def test_a_large_spawn_and_its_prefixes_agree_with_numpy():
    seeds = spawned_seeds(1, (0,), 5000)
    assert seeds == numpy_children(1, (0,), 5000)
    assert seeds[:17] == spawned_seeds(1, (0,), 17)
    assert all(isinstance(s, int) and 0 <= s < 2**63 for s in seeds)


@pytest.mark.parametrize("n", [3, 40])  # NumPy's path, the vector path
@pytest.mark.parametrize("entropy, key", [(-1, ()), (1, (-2,))])
def test_negative_seed_material_is_refused(entropy, key, n):
    with pytest.raises(ValueError, match="negative|>= 0"):
        spawned_seeds(entropy, key, n)


@settings(max_examples=100, deadline=None)
@given(entropy=st.one_of(st.integers(0, 2**32), st.integers(0, 2**130)),
       start=st.one_of(st.integers(0, 300), st.integers(2**32 - 70, 2**32 - 1)), count=st.integers(0, 70),
       step=st.integers(1, 9))
def test_first_seeds_of_many_batches_are_spawning_numpys_one_by_one(entropy, start, count, step):
    batches = range(start, min(start + count * step, 2**32), step)  # (an island's: every `islands`-th)
    assert first_child_seeds(entropy, 2**32 - 2, batches) == [numpy_children(entropy, (2**32 - 2, b), 1)[0]
                                                               for b in batches]


@settings(max_examples=60, deadline=None)
@given(before=st.lists(st.one_of(st.integers(0, 5), st.integers(0, 2**100)), max_size=3).map(tuple),
       after=st.lists(st.integers(0, 2**40), max_size=2).map(tuple),
       start=st.one_of(st.integers(0, 100), st.integers(2**32 - 9, 2**32 - 1)), count=st.integers(1, 9),
       step=st.integers(1, 4))
def test_generators_seeded_from_many_batches_states_draw_what_numpys_own_draw(before, after, start, count, step):
    batches = range(start, min(start + count * step, 2**32), step)
    for batch, state in zip(batches, generator_states(before, batches, after), strict=True):
        rng = seeded_generator(state)
        numpy_rng = np.random.default_rng(np.random.SeedSequence([*before, batch, *after]))
        assert rng.integers(0, 2**63, 5).tolist() == numpy_rng.integers(0, 2**63, 5).tolist()
        assert rng.random() == numpy_rng.random()


def test_ahead_computes_windows_along_the_step_asked_and_past_its_range_one_by_one():
    computed = []

    def compute(batches: range) -> list[int]:
        computed.append(batches)
        return [10 * b for b in batches]

    ahead = Ahead(compute, lambda b: -b, count=4)
    assert [ahead(b) for b in range(6)] == [0, 10, 20, 30, 40, 50]
    assert computed == [range(0, 4), range(4, 8)]
    assert [ahead(b) for b in (9, 12, 15, 18, 21)] == [90, 120, 150, 180, 210]  # an island's: every 3rd
    assert computed[2:] == [range(9, 25, 4), range(12, 24, 3)]  # (5 to 9: a step of 4, then 3)
    assert ahead(2**32 + 5) == -(2**32 + 5) and ahead(2**32 - 1) == 10 * (2**32 - 1)
    assert computed[-1] == range(2**32 - 1, 2**32)
