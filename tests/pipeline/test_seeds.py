"""The vectorised spawn of seeds holds NumPy's `SeedSequence` to the bit (the golden logs depend on it)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evaluation.seeds import spawned_seeds


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
