"""The Python API: runs started, stopped, resumed and read back as the logs say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import pipeline
from pipeline.records import RunDir
from tests.pipeline.test_runs import NIM_SPEC, SETCOVER_SPEC, comparable, generations_log

SAMPLED = NIM_SPEC.format(generations=5, kind="table", games=30)
EXACT = SAMPLED.replace("expert = 30, random = 30, minimax = 30", 'expert = "exact", random = "exact"')
COMMA = SAMPLED.replace("offspring = 8", 'offspring = 8\nalgorithm = "mu,lambda"')


def _spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text", [SAMPLED, EXACT, COMMA, SETCOVER_SPEC], ids=["sampled", "exact", "comma", "setcover"])
def test_populations_summarise_exactly_as_generations_parquet(tmp_path, text):
    run = pipeline.run(_spec(tmp_path, text), out=str(tmp_path / "run"))
    summary = run.generations()
    members = run.populations()
    size = run.spec.population.size
    assert (members.groupby("generation").size() == size).all()
    for name in run.spec.objectives.weights or [c[len("mean_"):] for c in summary if c.startswith("mean_")]:
        if name == "fitness" or name not in members:
            continue
        stats = members.groupby("generation")[name].agg(["mean", "std"])
        np.testing.assert_allclose(stats["mean"], summary[f"mean_{name}"], rtol=1e-12)
        np.testing.assert_allclose(stats["std"] * np.sqrt((size - 1) / size), summary[f"std_{name}"], atol=1e-12)


def test_population_of_a_generation_is_the_checkpointed_one_best_first(tmp_path):
    run = pipeline.run(_spec(tmp_path, SAMPLED), out=str(tmp_path / "run"))
    rundir = RunDir(run.path)
    alive = pd.read_parquet(run.path / "population")  # written from each generation's record
    assert sorted(run.population(5)["id"]) == sorted(rundir.read_record(5)["state"]["population"])
    for g in range(6):
        population = run.population(g)
        assert sorted(population["id"]) == sorted(alive[alive["generation"] == g]["id"])
        assert list(population["rank"]) == list(range(len(population)))
        fitness = population["fitness"].to_numpy()
        assert (np.diff(fitness) <= 1e-12).all(), "rank 0 is the fittest"
    assert run.population().equals(run.population(5))
    with pytest.raises(ValueError, match="no generation 9"):
        run.population(9)


def test_a_callback_stops_the_run_and_resume_finishes_it_identically(tmp_path):
    spec = _spec(tmp_path, SAMPLED)
    seen = []
    stopped = pipeline.run(spec, out=str(tmp_path / "stopped"),
                           on_generation=lambda row: seen.append(row["generation"]) or row["generation"] == 2)
    assert seen == [0, 1, 2]
    meta = stopped.meta
    assert (meta["status"], meta["stop_reason"]) == ("finished", "callback")
    assert list(stopped.generations()["generation"]) == [0, 1, 2]
    resumed = pipeline.resume(stopped.path)
    whole = pipeline.run(spec, out=str(tmp_path / "whole"))
    pd.testing.assert_frame_equal(comparable(resumed.path), comparable(whole.path))
    pd.testing.assert_frame_equal(generations_log(resumed.path), generations_log(whole.path))
    pd.testing.assert_frame_equal(resumed.populations().drop(columns=["eval_seconds", "worker"]),
                                  whole.populations().drop(columns=["eval_seconds", "worker"]))


def test_every_parquet_file_names_its_run_spec_and_versions(tmp_path):
    run = pipeline.run(_spec(tmp_path, SAMPLED), out=str(tmp_path / "run"))
    files = sorted(run.path.rglob("*.parquet"))
    assert {f.parent.name for f in files} == {"individuals", "population", "generations"}
    for file in files:
        metadata = pq.read_metadata(file).metadata
        assert metadata[b"evo.run_id"].decode() == run.run_id
        assert metadata[b"evo.spec_hash"].decode() == run.spec.fingerprint()
        assert b'"evo-pipeline"' in metadata[b"evo.versions"]


def test_overrides_reach_the_spec_and_bad_ones_are_named(tmp_path):
    run = pipeline.run(_spec(tmp_path, SAMPLED), out=str(tmp_path / "run"), generations=1, seed=4,
                       population__size=4)
    assert (run.spec.generations, run.spec.seed, run.spec.population.size) == (1, 4, 4)
    assert len(run.population(1)) == 4
    with pytest.raises(pipeline.SpecError, match=r"population\.size: must be >= 2"):
        pipeline.run(_spec(tmp_path, SAMPLED), out=str(tmp_path / "bad"), population__size=1)
    assert not (tmp_path / "bad").exists()
    with pytest.raises(pipeline.RunExists):
        pipeline.run(_spec(tmp_path, SAMPLED), out=str(tmp_path / "run"))


def test_a_spec_given_as_a_dict_runs(tmp_path):
    import tomllib

    data = tomllib.loads(SAMPLED)
    run = pipeline.run(data, out=str(tmp_path / "run"), generations=2)
    assert run.spec.generations == 2 and data["generations"] == 5  # the caller's dict is untouched


def test_best_and_agent_read_the_hall_of_fame(tmp_path):
    run = pipeline.run(_spec(tmp_path, SAMPLED), out=str(tmp_path / "run"))
    best = run.best(3)
    assert list(best["rank"]) == [0, 1, 2]
    assert {"win_rate_expert_low", "win_rate_expert_high"} <= set(best)  # sampled: the verdict's intervals
    assert (best["win_rate_expert_low"] <= best["win_rate_expert"]).all()
    agent = run.agent()
    assert pipeline.load_agent(run.path).name == agent.name
    from fitness.nim import Rules, agent as named, play

    rules = Rules(rows=(1, 3, 5, 7))
    fresh = play(agent, named("random", rules), rules, games=20_000, seed=99).win_rate_a
    assert abs(fresh - best["win_rate_random"][0]) < 0.03  # the verdict is what the agent plays like


def test_open_run_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such run directory"):
        pipeline.open_run(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="not a run directory"):
        pipeline.open_run(tmp_path / "empty")


def test_pareto_ranks_are_non_dominated_fronts(tmp_path):
    text = SAMPLED.replace(
        "[execution]", '[objectives]\nmode = "pareto"\nweights = { win_rate_random = 1.0, win_rate_expert = 1.0 }\n'
        "[execution]").replace("offspring = 8", 'offspring = 8\nalgorithm = "nsga2"')
    run = pipeline.run(_spec(tmp_path, text), out=str(tmp_path / "run"))
    for _, members in run.populations().groupby("generation"):
        points = members[["win_rate_random", "win_rate_expert", "rank"]].to_numpy()
        for a in points:
            dominated_by = [b for b in points if (b[:2] >= a[:2]).all() and (b[:2] > a[:2]).any()]
            assert (a[2] == 0) == (not dominated_by)  # front 0: dominated by nobody
            assert all(b[2] < a[2] for b in dominated_by)  # whoever dominates is on an earlier front


def test_run_report_writes_the_report_files(tmp_path):
    run = pipeline.run(_spec(tmp_path, EXACT), out=str(tmp_path / "run"), generations=2)
    files = run.report()
    assert {f.name for f in files} >= {"objectives.png", "summary.md", "report.html"}
    assert all(f.parent == run.path / "report" and f.stat().st_size > 0 for f in files)
    assert run.run_id in (run.path / "report" / "report.html").read_text()
