"""Parameter specs: bounds, grids, snapping, sampling, validation and the plain-data form."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim.params import ChoiceParam, FloatParam, IntParam, ParamSpec, param_from_dict

SPEC = ParamSpec([
    IntParam("n", 1, 5),
    FloatParam("f", 0.1, 1.0, 0.1),
    ChoiceParam("mode", (0, 1), group="rule"),
    IntParam("leave", 0, 9, group="rule"),
    ChoiceParam("name", ("expert", "random")),
])


def test_int_param_snaps_to_its_range():
    p = IntParam("n", 1, 5)
    assert [p.snap(v) for v in (-3, 0, 1, 2.6, 5, 7)] == [1, 1, 1, 3, 5, 5]
    assert p.contains(3) and p.contains(np.int64(5))
    assert not p.contains(6) and not p.contains(2.0) and not p.contains(True)
    assert p.nudge(5, 1) == 5 and p.nudge(3, -1) == 2


def test_float_param_lives_on_its_grid():
    p = FloatParam("f", 0.1, 1.0, 0.1)
    assert len(p.grid) == 10 and p.grid[0] == 0.1 and p.grid[-1] == 1.0
    assert p.snap(0.1 + 0.2) == 0.3 and p.contains(p.snap(0.1 + 0.2))
    assert not p.contains(0.1 + 0.2)  # 0.30000000000000004 is off the grid
    assert p.snap(-4.0) == 0.1 and p.snap(7.0) == 1.0 and p.snap(0.44) == 0.4
    assert p.nudge(1.0, 1) == 1.0 and p.nudge(0.5, -1) == 0.4 and p.nudge(0.1, -1) == 0.1
    with pytest.raises(ValueError, match="not on the grid"):
        FloatParam("g", 0.0, 1.0, 0.3)
    with pytest.raises(ValueError, match="'f'"):
        p.snap(float("nan"))


def test_choice_param_snaps_numbers_to_the_nearest_choice_and_refuses_strangers():
    p = ChoiceParam("mode", (0, 1, 4))
    assert p.snap(3) == 4 and p.snap(0.4) == 0 and p.snap(1) == 1
    assert p.nudge(4, 1) == 4 and p.nudge(0, 2) == 4
    words = ChoiceParam("name", ("expert", "random"))
    with pytest.raises(ValueError, match=r"'name' must be one of \['expert', 'random'\]"):
        words.snap("minimax")


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_samples_are_valid_and_snapping_is_idempotent(seed):
    values = SPEC.sample(np.random.default_rng(seed))
    assert SPEC.validate(values) == values
    assert SPEC.snap(values) == values


@settings(max_examples=50, deadline=None)
@given(values=st.fixed_dictionaries({
    "n": st.integers(-100, 100),
    "f": st.floats(-10, 10, allow_nan=False),
    "mode": st.integers(-3, 3),
    "leave": st.floats(-50, 50, allow_nan=False),
    "name": st.sampled_from(["expert", "random"]),
}))
def test_snap_always_gives_valid_values(values):
    snapped = SPEC.snap(values)
    assert SPEC.validate(snapped) == snapped


def test_sampling_covers_every_allowed_value():
    rng = np.random.default_rng(0)
    draws = [SPEC.sample(rng) for _ in range(400)]
    assert {d["n"] for d in draws} == {1, 2, 3, 4, 5}
    assert {d["f"] for d in draws} == set(SPEC["f"].grid)
    assert {d["name"] for d in draws} == {"expert", "random"}


def test_validate_names_the_parameter_and_what_is_allowed():
    good = {"n": 2, "f": 0.5, "mode": 1, "leave": 3, "name": "random"}
    with pytest.raises(ValueError, match=r"'n' must be an integer in 1\.\.5, got 9"):
        SPEC.validate({**good, "n": 9})
    with pytest.raises(ValueError, match=r"'f' must be a number in 0\.1\.\.1\.0 in steps of 0\.1, got 0\.55"):
        SPEC.validate({**good, "f": 0.55})
    with pytest.raises(ValueError, match=r"unknown: \['x'\], missing: \['leave'\]"):
        SPEC.validate({**{k: v for k, v in good.items() if k != "leave"}, "x": 1})
    with pytest.raises(ValueError, match="dict"):
        SPEC.validate([1, 2])


def test_spec_round_trips_through_plain_json():
    data = json.loads(json.dumps(SPEC.to_dict()))
    again = ParamSpec.from_dict(data)
    assert again == SPEC
    assert again.groups == {"n": ("n",), "f": ("f",), "rule": ("mode", "leave"), "name": ("name",)}
    with pytest.raises(ValueError, match="unknown parameter type"):
        param_from_dict({"type": "complex", "name": "z"})
