"""The genome kinds the pipeline binds from a spec (the project's one operator stack):
deterministic from the rng, parents never touched, children valid, bad names refused."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from fitness.nim import agent, play
from fitness.nim.genomes import decode
from fitness.setcover import Instance, score
from fitness.tasks import build_task
from pipeline.kinds import make_kind
from pipeline.spec import SpecError, parse_spec

NIM = {"problem": "nim", "nim": {"standard": 4, "k": 3, "opponents": {"random": 50}}}
SPECS = {
    "rules": {**NIM, "genome": {"kind": "rules", "agent": "rule-dict"},
              "operators": {"crossover": "uniform", "params": {"p": 0.2}}},
    "table": {**NIM, "genome": {"kind": "table", "columns": ["expert", "random", "longest"]},
              "operators": {"mutation": "zero-to-best", "crossover": "row-uniform", "params": {"alpha": 0.5}}},
    "expression": {**NIM, "genome": {"kind": "expression"}},
    "bitstring": {"problem": "setcover", "setcover": {"N": 50}, "genome": {"kind": "bitstring"}},
}


def _kind(name: str, **operators):
    data = copy.deepcopy(SPECS[name])
    data.setdefault("operators", {}).update(operators)
    spec = parse_spec(data)
    return spec, make_kind(spec, build_task(spec.task_spec()))


def _same(a, b) -> bool:
    return bool(np.array_equal(a, b)) if isinstance(a, np.ndarray) else a == b


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_kind_replays_from_its_rng_and_never_touches_parents(name):
    spec, kind = _kind(name)
    first, again = kind.init(6, np.random.default_rng(7)), kind.init(6, np.random.default_rng(7))
    assert all(_same(a, b) for a, b in zip(first, again)) and len(first) == 6
    kept = [kind.copy(g) for g in first]
    rng = np.random.default_rng(3)
    children = [kind.crossover(first[0], first[1], rng), kind.mutate(first[2], rng), kind.repair(first[3], rng)]
    assert all(_same(a, b) for a, b in zip(first, kept))
    for child in children:
        assert _same(kind.from_record(kind.to_record(child)), child)  # lossless record
        if name == "bitstring":
            assert score(build_task(spec.task_spec()).instance, np.array([child])).feasible[0] or child is children[0]
        elif name != "expression":
            player = decode(name, child, spec.task_spec()["genome"], build_task(spec.task_spec()).rules)
            assert play(player, agent("random", player.rules), player.rules, games=100, seed=1).games == 100
    assert 0.0 <= kind.spread(first) and kind.spread([first[0]] * 3) == 0.0


def test_greedy_seeded_bitstrings_start_near_the_greedy_cover():
    _, kind = _kind("bitstring")
    instance = Instance.from_problem(50, 42)
    rng = np.random.default_rng(0)
    population = [kind.repair(g, rng) for g in kind.init(30, rng)]
    seeded, random = population[:15], population[15:]
    assert len({np.packbits(s).tobytes() for s in seeded}) > 5, "perturbation makes them differ"
    assert np.median(score(instance, np.array(seeded)).cost) <= np.median(score(instance, np.array(random)).cost)


@pytest.mark.parametrize("name, operators, message", [
    ("rules", {"mutation": "flip"}, "unknown mutation 'flip' for rules genomes; valid: step, resample-rule"),
    ("rules", {"params": {"sigma": 1}}, "operators.params: unknown parameter 'sigma' for these rules operators"),
    ("table", {"crossover": "cut"}, "unknown crossover 'cut' for table genomes; valid: fusion, row-uniform"),
    ("bitstring", {"crossover": "three_point"}, "unknown crossover 'three_point' for bitstring genomes"),
])
def test_unknown_operators_and_params_are_refused_in_one_line(name, operators, message):
    data = copy.deepcopy(SPECS[name])
    data["operators"] = operators
    with pytest.raises(SpecError, match=message) as raised:
        parse_spec(data)
    assert "\n" not in str(raised.value)
