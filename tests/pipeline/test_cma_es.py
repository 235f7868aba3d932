"""CMA-ES (`population.algorithm = "cma-es"`): its strategy (weights as pycma's, a fixed-order
eigendecomposition, an exact JSON round trip), runs on the float-vector Rosenbrock plug-in and the
table kind, the same log on Ray workers, exact resume after a SIGKILL (across an IPOP restart),
and one-line refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.evolution.cma_strategy import Distribution, Parameters, symmetric_eigen
from pipeline.spec import SpecError, load_spec
from tests.golden.digest import run_digests
from tests.pipeline.killed_runs import killed_run

ROOT = Path(__file__).resolve().parents[2]
ROSENBROCK = ROOT / "runs/cma-es-rosenbrock.toml"
TABLE = ROOT / "runs/cma-es-table.toml"
# 2-D Rosenbrock converges in about 100 generations: a restart comes early
SMALL = {"problem_options__dimension": 2, "population__size": 3, "population__offspring": 6,
         "cma_es__restarts": 2, "stop__target": -1.0}  # f >= 0: never stops early


def test_weights_and_rates_are_pycmas():
    cma = pytest.importorskip("cma")
    from cma.recombination_weights import RecombinationWeights

    for dim, offspring in [(10, 10), (48, 16), (2, 6)]:
        params = Parameters.of(dim, offspring, offspring // 2)
        theirs = RecombinationWeights(offspring)
        theirs.finalize_negative_weights(dim, params.c1, params.cmu)
        assert np.allclose(params.weights, list(theirs), rtol=0, atol=1e-15)
        assert params.mueff == pytest.approx(theirs.mueff, rel=1e-14)
        assert cma  # imported for its weights only


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1))
def test_the_eigendecomposition_is_numpys_to_rounding(dim, seed):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((dim, dim))
    matrix = m @ m.T + 1e-3 * np.eye(dim)
    matrix = (matrix + matrix.T) / 2
    values, vectors = symmetric_eigen(matrix, np.eye(dim))
    assert np.all(np.diff(values) >= 0)
    assert np.allclose(values, np.linalg.eigh(matrix)[0], rtol=1e-10, atol=1e-12 * values[-1])
    assert np.allclose(vectors @ np.diag(values) @ vectors.T, matrix, atol=1e-10 * values[-1])
    assert np.allclose(vectors.T @ vectors, np.eye(dim), atol=1e-12)


def test_the_state_round_trips_through_json_exactly():
    rng = np.random.default_rng(3)
    d = Distribution.start(rng.uniform(-1, 1, 5), 0.4)
    params = Parameters.of(5, 8, 4)
    for _ in range(5):
        points = d.sample(8, rng)
        d.update(params, points[np.argsort(np.sum(points ** 2, axis=1))])
    back = Distribution.from_json(json.loads(json.dumps(d.to_json())))
    assert json.dumps(back.to_json()) == json.dumps(d.to_json())
    assert np.array_equal(back.sample(8, np.random.default_rng(1)), d.sample(8, np.random.default_rng(1)))


def test_rosenbrock_reaches_the_target_and_stops(tmp_path):
    result = pipeline.run(ROSENBROCK, workers=0, out=str(tmp_path / "r"), force=True,
                          problem_options__dimension=4, population__size=4, population__offspring=8)
    rows = result.generations()
    assert rows.best_f.iloc[-1] <= 1e-8 < rows.best_f.iloc[-2]
    assert rows.evaluations.iloc[-1] < 20_000
    individuals = result.individuals(columns=["generation", "origin", "genome"])
    assert set(individuals.origin) <= {"init", "sample", "restart"}
    assert all(len(g) == 4 for g in individuals.genome)


def test_table_samples_are_tables_and_the_population_is_the_best_mu(tmp_path):
    result = pipeline.run(TABLE, workers=0, out=str(tmp_path / "t"), force=True, generations=3)
    individuals = result.individuals(columns=["generation", "id", "genome", "fitness"])
    for genome in individuals.genome:
        table = np.array([list(row) for row in genome])
        assert table.shape == (16, 3) and np.all(table >= 0) and np.allclose(table.sum(axis=1), 1.0)
    for g in range(4):
        scored = individuals[individuals.generation == g].sort_values("fitness", ascending=False, kind="stable")
        assert set(result.population(g).id) == set(scored.id[:8])


def test_the_log_is_the_same_on_ray_workers(tmp_path, ray_session):
    local = pipeline.run(TABLE, workers=0, out=str(tmp_path / "local"), force=True, generations=3)
    ray = pipeline.run(TABLE, workers=2, out=str(tmp_path / "ray"), force=True, generations=3)
    assert run_digests(ray.path) == run_digests(local.path)


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> pipeline.Run:
    return pipeline.run(ROSENBROCK, workers=0, out=str(tmp_path_factory.mktemp("cma") / "whole"), force=True,
                        generations=160, **SMALL)


def test_an_ipop_restart_doubles_the_population(whole):
    individuals = whole.individuals(columns=["generation", "origin"])
    sizes = individuals.groupby("generation").size()
    first = individuals.generation[individuals.origin == "restart"].min()
    assert sizes[first - 1] == 6 and sizes[first] == 12, "the case should restart within 160 generations"


@pytest.mark.parametrize("kill_at", [5, 140])
def test_a_run_killed_mid_run_resumes_to_the_uninterrupted_log(tmp_path, whole, kill_at):
    cut = tmp_path / "cut"
    killed_run(ROSENBROCK, cut, kill_at, generations=160, **SMALL)
    pipeline.resume(cut, workers=0)
    assert run_digests(cut) == run_digests(whole.path)


@pytest.mark.parametrize("spec, overrides, message", [
    ("runs/nim-rules.toml", {"population.algorithm": "cma-es", "population.size": 10, "population.offspring": 20},
     "genome.kind 'rules' is neither"),
    ("runs/cma-es-table.toml", {"population.size": 20}, "size <= offspring"),
    ("runs/nim-table.toml", {"cma_es.sigma": 0.5}, "cma_es: the section applies to population.algorithm = 'cma-es'"),
    ("runs/cma-es-table.toml", {"operators.mutation": "transfer"}, "cma-es samples its own children"),
    ("runs/cma-es-table.toml", {"objectives.mode": "pareto"}, "is not Pareto"),
    ("runs/cma-es-table.toml", {"islands.count": 2}, "islands: the island model runs the algorithms"),
    ("runs/cma-es-table.toml", {"cma_es.sigma": 0.0}, "cma_es.sigma"),
])
def test_bad_cma_es_specs_are_refused_in_one_line(spec, overrides, message):
    with pytest.raises(SpecError) as caught:
        load_spec(ROOT / spec, overrides)
    text = str(caught.value)
    assert message in text and "\n" not in text


def test_unused_the_section_keeps_old_run_ids():
    assert load_spec(ROOT / "runs/setcover-1000.toml").fingerprint() == "46c6fd5365"
    assert load_spec(TABLE).fingerprint() != load_spec(TABLE, {"cma_es.restarts": 1}).fingerprint()


def test_report_draws_a_cma_es_run(tmp_path):
    result = pipeline.run(TABLE, workers=0, out=str(tmp_path / "t"), force=True, generations=2)
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "report", str(result.path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert any((result.path / "report").iterdir())
