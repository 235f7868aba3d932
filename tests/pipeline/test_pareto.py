"""Multi-objective runs: NSGA-III end to end, the logged hypervolume against DEAP's recomputed
from the logged population, an old run's schema on resume, the front in the API and report."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from deap import base, creator
from deap.benchmarks.tools import hypervolume as deap_hypervolume

import pipeline
from operators.survival import reference_points
from pipeline.records.schema import Schema
from pipeline.spec import SpecError
from tests.golden.digest import run_digests
from tests.pipeline.killed_runs import killed_run

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "runs" / "nim-table.toml"
SMALL = {"population__size": 12, "population__offspring": 24, "objectives__mode": "pareto"}

if not hasattr(creator, "FitnessPareto4"):
    creator.create("FitnessPareto4", base.Fitness, weights=(1.0, 1.0, 1.0, 1.0))


class _Logged:
    def __init__(self, values):
        self.fitness = creator.FitnessPareto4(values)


def run(out: Path, algorithm: str = "nsga3", generations: int = 3, workers: int = 0, **overrides) -> pipeline.Run:
    done = pipeline.run(TABLE, workers=workers, out=str(out), force=True, generations=generations,
                        population__algorithm=algorithm, **{**SMALL, **overrides})
    return pipeline.open_run(done.path)


def test_the_logged_hypervolume_is_deaps_recomputed_from_the_logged_population(tmp_path):
    result = run(tmp_path / "run")
    checkpoint = json.loads((result.path / "checkpoint.json").read_text())
    reference = checkpoint["hypervolume_reference"]
    names = list(reference)
    assert names == ["win_rate_expert", "win_rate_random", "win_rate_minimax", "optimal_move_rate"]
    assert all(value == pytest.approx(-0.1) for value in reference.values())  # rates: 0 is the worst
    for _, row in result.generations().iterrows():
        population = result.population(int(row["generation"]))
        logged = [_Logged(tuple(values)) for values in population[names].itertuples(index=False)]
        expected = deap_hypervolume(logged, ref=[-value for value in reference.values()])
        assert row["hypervolume"] == pytest.approx(expected, rel=1e-12)
    hypervolumes = result.generations()["hypervolume"].tolist()
    assert hypervolumes == sorted(hypervolumes)


def test_nsga3_records_its_reference_points_and_a_killed_run_resumes_exactly(tmp_path):
    whole = run(tmp_path / "whole", generations=5)
    state = json.loads((whole.path / "checkpoint.json").read_text())["algorithm"]
    assert state["reference_points"] == reference_points(4, 12)
    cut = tmp_path / "cut"
    killed_run(TABLE, cut, 2, generations=5, population__algorithm="nsga3", **SMALL)
    pipeline.resume(cut, workers=0)
    assert run_digests(cut) == run_digests(whole.path)


def test_nsga3_writes_the_same_log_on_2_ray_workers(tmp_path, ray_session):
    local = run(tmp_path / "local")
    pooled = run(tmp_path / "pooled", workers=2)
    assert run_digests(pooled.path) == run_digests(local.path)


def _old_generation_row(original):
    def generation_row(self, *args, **kwargs):  # as the code before the hypervolume column wrote it
        row = original(self, *args, **kwargs)
        row.pop("hypervolume", None)
        self.hypervolume_reference = None
        return row
    return generation_row


def test_an_old_pareto_run_keeps_rows_without_hypervolume_on_resume(tmp_path, monkeypatch):
    with monkeypatch.context() as old:
        old.setattr(Schema, "generation_row", _old_generation_row(Schema.generation_row))
        whole = run(tmp_path / "whole", algorithm="nsga2", generations=4)
        cut = run(tmp_path / "cut", algorithm="nsga2", generations=2)
    assert "hypervolume" not in pq.read_schema(next((cut.path / "generations").iterdir())).names
    pipeline.resume(cut.path, workers=0, generations=4)
    assert all("hypervolume" not in pq.read_schema(part).names for part in (cut.path / "generations").iterdir())
    assert run_digests(cut.path) == run_digests(whole.path)


def test_the_front_is_in_the_api_and_the_report(tmp_path):
    result = run(tmp_path / "run", algorithm="nsga2", generations=2)
    front = result.pareto_front()
    population = result.population()
    assert set(front["id"]) == set(population[population["rank"] == 0]["id"]) and len(front) >= 1
    files = {path.name for path in result.report()}
    assert {"pareto_front.png", "hypervolume.png"} <= files
    summary = (result.path / "report" / "summary.md").read_text()
    assert "## Pareto front" in summary and all(f"| {i} |" in summary for i in front["id"].head(20))


def test_pareto_front_and_nsga3_refuse_a_run_that_is_not_pareto(tmp_path):
    plain = pipeline.open_run(pipeline.run(TABLE, workers=0, out=str(tmp_path / "plain"), force=True,
                                           generations=1).path)
    with pytest.raises(ValueError, match="pareto_front: only for objectives.mode = 'pareto'"):
        plain.pareto_front()
    with pytest.raises(SpecError, match="nsga3 needs objectives.mode = 'pareto'"):
        pipeline.run(TABLE, workers=0, out=str(tmp_path / "x"), population__algorithm="nsga3")
