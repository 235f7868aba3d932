"""Fitness that tells the truth: exact runs log exact figures; sampled runs pair their
games, pool re-evaluations, and report a hall of fame that a fresh match confirms."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fitness.nim import agent, play
from fitness.tasks import build_task
from pipeline.hall_of_fame import load_agent, saved_rules
from operators.table import from_record
from pipeline.runner import resume_run, start_run
from pipeline.spec import SpecError, load_spec

SPEC = """
problem = "nim"
seed = 3
generations = {generations}
[population]
size = 8
offspring = 12
[genome]
kind = "table"
columns = ["expert", "random", "longest"]
[operators]
mutation = "transfer"
crossover = "row-uniform"
crossover_rate = 0.2
mutation_rate = 0.5
[nim]
standard = 4
opponents = {opponents}
{extra}
[execution]
workers = 0
"""


def run(tmp_path, name, generations=3, opponents="{ expert = 40, random = 40 }", extra=""):
    path = tmp_path / f"{name}.toml"
    path.write_text(SPEC.format(generations=generations, opponents=opponents, extra=extra))
    spec = load_spec(path, {"execution.output": str(tmp_path / name)})
    return spec, start_run(spec)


def test_an_exact_run_logs_exact_figures_and_never_rescores(tmp_path):
    spec, out = run(tmp_path, "exact", opponents='{ expert = "exact", random = "exact" }')
    individuals = pd.read_parquet(out / "individuals")
    assert not any(c.startswith(("wins_", "games_")) for c in individuals.columns)
    assert (individuals["born"] == individuals["generation"]).all()  # nothing evaluated twice
    best = json.loads((out / "best.json").read_text())
    assert "verdict" not in best
    top = best["hall_of_fame"][0]
    again = build_task(spec.task_spec()).evaluate([from_record(top["genome"])], [0])
    for name, value in top["objectives"].items():
        assert value == again[name][0]


def test_an_exact_run_resumes_from_its_resolved_spec(tmp_path):
    _, out = run(tmp_path, "again", opponents='{ expert = "exact", random = "exact" }')
    resume_run(out, overrides={"generations": 5})
    assert pd.read_parquet(out / "generations")["generation"].tolist() == [0, 1, 2, 3, 4, 5]


def test_sampled_best_json_agrees_with_a_fresh_100k_match(tmp_path):
    _, out = run(tmp_path, "sampled", generations=4)
    best = json.loads((out / "best.json").read_text())
    assert best["verdict"]["games"] == 20_000
    rules = saved_rules(best)
    entries = best["hall_of_fame"]
    fitness = [e["fitness"][0] for e in entries]
    assert fitness == sorted(fitness, reverse=True)  # ranked by the fresh figures
    top = entries[0]
    for opponent in ("expert", "random"):
        logged = top["objectives"][f"win_rate_{opponent}"]
        low, high = top["intervals"][f"win_rate_{opponent}"]
        assert low <= logged <= high and top["objectives"][f"games_{opponent}"] == 20_000
        fresh = play(load_agent(out / "best.json", rules), agent(opponent, rules), rules, 100_000, seed=77)
        assert abs(fresh.win_rate_a - logged) <= 0.015, (opponent, logged, fresh.win_rate_a)
    assert "selection_objectives" in top


def test_common_random_numbers_give_copies_the_same_games(tmp_path):
    _, paired = run(tmp_path, "paired", generations=3)
    _, unpaired = run(tmp_path, "unpaired", generations=3, extra="[sampling]\ncommon_random_numbers = false")
    for out, same in ((paired, True), (unpaired, False)):
        frame = pd.read_parquet(out / "individuals")
        fresh = frame[frame["born"] == frame["generation"]].copy()
        fresh["key"] = fresh["genome"].map(lambda g: np.asarray(from_record(g)).tobytes())
        groups = [g for _, g in fresh.groupby(["generation", "key"]) if len(g) > 1]
        assert groups, "the spec should breed identical copies (reproduction)"
        identical = all(g["wins_expert"].nunique() == 1 and g["wins_random"].nunique() == 1 for g in groups)
        assert identical == same


def test_without_reevaluation_survivors_keep_their_first_figures(tmp_path):
    _, out = run(tmp_path, "once", extra="[sampling]\nreevaluate = false")
    frame = pd.read_parquet(out / "individuals")
    assert frame["id"].is_unique and (frame["games_expert"] == 40).all()


@pytest.mark.parametrize("opponents, extra, message", [
    ('{ expert = "exakt" }', "", "nim.opponents.expert"),
    ('{ expert = 0 }', "", 'must be >= 1 or "exact"'),
    ('{ expert = "exact" }', "[sampling]\nreevaluate = false", "[sampling] applies only"),
    ('{ expert = 10 }', "[sampling]\nhall_of_fame_games = 0", "sampling.hall_of_fame_games: must be >= 1"),
    ('{ "fixed-rules" = "exact" }', "", "cannot give its move distribution"),
])
def test_bad_sampling_settings_are_refused_in_one_line(tmp_path, opponents, extra, message):
    path = tmp_path / "bad.toml"
    path.write_text(SPEC.format(generations=1, opponents=opponents, extra=extra))
    with pytest.raises(SpecError) as error:
        load_spec(path)
    assert message in str(error.value) and "\n" not in str(error.value)
