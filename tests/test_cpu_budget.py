"""benchmarks/bench_cpu_budget.py: the driver's budget is the largest burn before the first one
that falls below the floor, whatever a noisy larger burn does."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_cpu_budget import budget  # noqa: E402

efficiencies = st.dictionaries(st.integers(0, 200).map(float), st.floats(0.0, 1.0), min_size=1, max_size=8)


@given(efficiencies, st.floats(0.0, 1.0))
def test_every_burn_up_to_the_budget_passes_and_the_next_one_fails(by_burn, floor):
    largest = budget(by_burn, floor)
    burns = sorted(by_burn)
    if largest is None:
        assert by_burn[burns[0]] < floor
        return
    assert all(by_burn[b] >= floor for b in burns if b <= largest)
    above = [b for b in burns if b > largest]
    assert not above or by_burn[above[0]] < floor


def test_a_pass_above_a_failing_burn_is_not_the_budget():
    assert budget({0.0: 0.9, 10.0: 0.7, 20.0: 0.9}, 0.8) == 0.0
    assert budget({0.0: 0.7, 10.0: 0.9}, 0.8) is None
