"""Nim's behaviour descriptors: exact shares over every position with objects left, equal to
counting the moves one position at a time (a deterministic agent), and zero_nimsum_rate of the
expert is the share of positions it can win from (normal play)."""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest

from fitness.nim import Rules, agent
from fitness.nim.descriptors import descriptor_values
from fitness.nim.space import StateSpace
from fitness.tasks import build_task


def _counted(name: str, rules: Rules) -> tuple[float, float]:
    space = StateSpace(rules.rows)
    positions = space.decode(np.arange(1, space.size))
    rows, takes = agent(name, rules)(positions, np.random.default_rng(0))
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    emptied = (positions[np.arange(len(after)), rows] == takes).mean()
    zero = (reduce(np.bitwise_xor, after.T) == 0).mean()
    return float(emptied), float(zero)


@pytest.mark.parametrize("name", ["expert", "longest"])
@pytest.mark.parametrize("rules", [Rules.standard(4), Rules(rows=(2, 3, 4), k=2, misere=True)])
def test_descriptors_count_the_moves_of_a_deterministic_agent(name, rules):
    space = StateSpace.of(rules.rows)
    values = descriptor_values(["empty_row_rate", "zero_nimsum_rate"], [agent(name, rules).distribution(space)], rules)
    emptied, zero = _counted(name, rules)
    assert values["empty_row_rate"][0] == pytest.approx(emptied, abs=1e-12)
    assert values["zero_nimsum_rate"][0] == pytest.approx(zero, abs=1e-12)


def test_the_expert_leaves_a_zero_nimsum_wherever_it_can():
    rules = Rules.standard(4)
    space = StateSpace.of(rules.rows)
    positions = space.decode(np.arange(1, space.size))
    winnable = (reduce(np.bitwise_xor, positions.T) != 0).mean()
    value = descriptor_values(["zero_nimsum_rate"], [agent("expert", rules).distribution(space)], rules)
    assert value["zero_nimsum_rate"][0] == pytest.approx(winnable, abs=1e-12)


def test_a_task_asked_for_descriptors_returns_them_and_refuses_unknown_ones():
    spec = {"problem": "nim", "rows": [1, 3, 5], "k": None, "misere": False,
            "genome": {"kind": "table", "columns": ["expert", "random"], "feature": "nimsum"},
            "opponents": {"expert": "exact"}}
    plain = build_task(spec)
    asked = build_task({**spec, "descriptors": ["zero_nimsum_rate", "empty_row_rate"]})
    assert plain.descriptors == () and asked.descriptors == ("zero_nimsum_rate", "empty_row_rate")
    with pytest.raises(ValueError, match="unknown Nim descriptor 'x'"):
        build_task({**spec, "descriptors": ["x"]})
