"""Failed evaluations (issue 40, item 2): a plug-in that raises, returns NaN or +inf for some
genomes, or hangs, runs to the end; failed individuals are logged, never selected, never in
the hall of fame or the statistics; the log is the same on 0 and 2 workers and across a
SIGKILL and resume. The flaky plug-in (tests/pipeline/flaky/) fails as a function of the
genome alone."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from deap import base, creator
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from operators import selection, survival
from pipeline.evaluation import ERROR, EvaluationError, LocalEvaluator
from pipeline.evaluation.core import narrowed
from pipeline.evolution.tracking import GenerationFailed
from tests.golden.digest import run_digests

ROOT = Path(__file__).resolve().parents[2]
FLAKY = ROOT / "tests" / "pipeline" / "flaky" / "flaky.toml"
FLAKY_TASK = {"problem": "flaky:Flaky", "options": {}}


# -- narrowing --------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 40), data=st.data())
def test_narrowing_fails_exactly_the_raising_genomes_and_keeps_the_others_scores(n, data):
    raising = data.draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=n)) if n else set()
    calls = []

    def evaluate(genomes: list, seeds: list) -> dict:
        calls.append(len(genomes))
        bad = [g for g in genomes if g in raising]
        if bad:
            raise ValueError(f"genome {bad[0]} raises\nand says more")
        return {"x": np.asarray(genomes, dtype=float) * 2 + np.asarray(seeds), "n": np.asarray(genomes)}

    genomes, seeds = list(range(n)), [7 * i for i in range(n)]
    columns = narrowed(evaluate, genomes, seeds, "test")
    errors = columns.get(ERROR, np.full(n, None, dtype=object))
    assert {i for i in range(n) if errors[i] is not None} == raising
    for i in raising:
        assert errors[i].startswith("ValueError: genome ") and "\n" not in errors[i]
    for i in set(range(n)) - raising:
        assert columns["x"][i] == 2 * i + 7 * i and columns["n"][i] == i
    assert len(calls) <= 1 + 2 * len(raising) * max(1, math.ceil(math.log2(max(n, 2))))


def test_a_task_that_raises_for_some_genomes_is_narrowed_in_process():
    sys.path.insert(0, str(FLAKY.parent))
    try:
        from flaky import Flaky, genome_hash
        rng = np.random.default_rng(0)
        genomes = [rng.random(24) < 0.3 for _ in range(200)]
        with LocalEvaluator(FLAKY_TASK) as evaluator:
            scored = evaluator.evaluate(genomes, [0] * len(genomes))
        errors = scored.columns[ERROR]
        cursed = {i for i, g in enumerate(genomes) if genome_hash(g) % 25 == 0}
        assert cursed and {i for i, e in enumerate(errors) if e is not None} == cursed
        alone = Flaky({}).evaluate([g for i, g in enumerate(genomes) if i not in cursed], [0] * (200 - len(cursed)))
        kept = np.asarray([i not in cursed for i in range(200)])
        np.testing.assert_array_equal(scored.columns["ones"][kept], alone["ones"])
    finally:
        sys.path.remove(str(FLAKY.parent))


# -- classification and selection ------------------------------------------------------------

def test_nan_and_improving_infinity_fail_and_worsening_infinity_is_a_legal_worst():
    from pipeline.evolution.members import Objectives
    from pipeline.spec import load_spec

    objectives = Objectives(load_spec(FLAKY), ("score", "ones"), (1.0, -1.0), None)
    assert objectives.failure({"score": 1.0, "ones": 2.0}) is None
    assert objectives.failure({"score": math.nan, "ones": 2.0}) == "score is NaN"
    assert "improving direction" in objectives.failure({"score": math.inf, "ones": 2.0})
    assert "improving direction" in objectives.failure({"score": 1.0, "ones": -math.inf})
    assert objectives.failure({"score": -math.inf, "ones": math.inf}) is None  # legal worsts
    assert not objectives.fitness({"score": 1.0, "ones": 2.0}, "boom").valid
    worst = _Ind(0, None)
    worst.fitness = objectives.fitness({"score": -math.inf, "ones": math.inf})
    failed = _Ind(1, None)
    failed.fitness = objectives.fitness({}, "boom")
    assert worst.fitness.valid and selection.best_first([failed, worst]) == [worst, failed]


@settings(max_examples=200, deadline=None)
@given(value=st.floats() | st.integers(-2**60, 2**60) | st.sampled_from([0.0, -0.0]),
       weight=st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1.0, -1.0, 0.5, -0.0]))
def test_one_weighted_objective_takes_the_general_paths_value_to_the_bit(value, weight):
    """`Objectives.fitness`'s path for one weighted objective against `values` times DEAP's weights."""
    from pipeline.evolution.members import Objectives
    from pipeline.spec import load_spec

    spec = load_spec(FLAKY)
    objectives = Objectives(spec.model_copy(update={"objectives": spec.objectives.model_copy(
        update={"mode": "weighted", "weights": {"score": weight}})}), ("score",), (1.0,), None)
    assert objectives._single == ("score", weight)
    columns = {"score": value}
    general = tuple(v * w for v, w in zip(objectives.values(columns), objectives.fitness_class.weights))
    assert repr(objectives.fitness(columns).wvalues) == repr(general)  # NaN and -0.0 alike


class _Ind:
    def __init__(self, i: int, value: float | None) -> None:
        self.id = i
        self.fitness = creator.FitnessFailuresTest() if value is None else creator.FitnessFailuresTest((value,))


if not hasattr(creator, "FitnessFailuresTest"):
    creator.create("FitnessFailuresTest", base.Fitness, weights=(1.0,))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.floats(allow_nan=False)), min_size=1, max_size=30),
       mu=st.integers(1, 30), seed=st.integers(0, 2**32 - 1))
def test_failed_individuals_are_never_survivors_or_parents_while_viable_ones_exist(values, mu, seed):
    pool = [_Ind(i, v) for i, v in enumerate(values)]
    half = len(pool) // 2
    viable = [p for p in pool if p.fitness.valid]
    for survive in (survival.plus, survival.comma):
        for key in (None, lambda ind: ind.id % 3):
            chosen = survive(pool[:half], pool[half:], mu, key)
            candidates = viable if survive is survival.plus else [p for p in pool[half:] if p.fitness.valid]
            assert sum(ind.fitness.valid for ind in chosen) == min(mu, len(candidates))
            assert all(ind.fitness.valid for ind in chosen[:len(candidates)])
    parents = selection.viable_indices(pool)
    assert set(parents.tolist()) == ({p.id for p in viable} or set(range(len(pool))))


# -- runs ------------------------------------------------------------------------------------

def _run(out: Path, workers: int = 0, **overrides) -> pipeline.Run:
    done = pipeline.run(FLAKY, workers=workers, out=str(out), force=True, **overrides)
    return pipeline.open_run(done.path)


def _check_failures_kept_out(run: pipeline.Run) -> None:
    """Failures of every kind are logged; none is selected, ranked best or summarised."""
    individuals = run.individuals()
    errors = individuals["error"].dropna()
    assert (individuals["viable"] == individuals["error"].isna()).all()
    assert errors.str.startswith("RuntimeError: genome hash").any()
    assert (errors == "score is NaN").any() and errors.str.contains("improving direction").any()
    raised = individuals[individuals["error"].fillna("").str.startswith("RuntimeError")]
    assert raised["score"].isna().all()  # null: a genome that raised has no scores
    viable = individuals[individuals["viable"]]
    best = run.best(None)
    assert np.isfinite(best["score"]).all() and set(best["id"]) <= set(viable["id"])
    assert best["score"][0] == viable["score"].max()
    generations = run.generations()
    for g, row in generations.iterrows():
        population = run.population(int(row["generation"]))
        assert population["viable"].all(), population[~population["viable"]]
        assert np.isfinite(row["best_score"]) and row["best_score"] == population["score"].max()
        assert np.isfinite(row["mean_score"]) and np.isfinite(row["std_score"])


def test_a_flaky_plugin_runs_to_the_end_with_failures_kept_out(tmp_path):
    run = _run(tmp_path / "flaky")
    assert run.status == "finished"
    _check_failures_kept_out(run)
    best = json.loads((run.path / "best.json").read_text())
    assert all(math.isfinite(v) for entry in best["hall_of_fame"] for v in entry["fitness"])


@pytest.mark.parametrize("overrides", [
    {"population__algorithm": "mu,lambda"},
    {"population__algorithm": "nsga2", "objectives__mode": "pareto"},
    {"population__algorithm": "nsga3", "objectives__mode": "pareto"},
    {"population__algorithm": "steady-state", "generations": 4},
    {"islands__count": 2, "islands__interval": 2, "islands__migrants": 2, "population__size": 10,
     "population__offspring": 12},
    {"islands__count": 2, "islands__interval": 2, "islands__migrants": 2, "population__size": 10,
     "population__offspring": 12, "population__algorithm": "steady-state", "generations": 4},
], ids=["mu-comma-lambda", "nsga2", "nsga3", "steady-state", "islands", "steady-islands"])
def test_every_algorithm_keeps_failures_out(tmp_path, overrides):
    run = _run(tmp_path / "run", **overrides)
    if overrides.get("objectives__mode") == "pareto":  # no single best: only the population and the front
        individuals = run.individuals()
        assert not individuals["viable"].all()
        for g in run.generations()["generation"]:
            assert run.population(int(g))["viable"].all()
        assert set(run.best(None)["id"]) <= set(individuals[individuals["viable"]]["id"])
        return
    _check_failures_kept_out(run)


def test_the_log_is_the_same_on_0_and_2_ray_workers(tmp_path, ray_session):
    local = _run(tmp_path / "local", generations=4)
    pooled = _run(tmp_path / "pooled", workers=2, generations=4, execution__chunk_size=5)
    assert run_digests(local.path) == run_digests(pooled.path)
    assert not pooled.individuals()["viable"].all()


def test_a_killed_run_resumes_to_the_uninterrupted_log(tmp_path):
    whole = _run(tmp_path / "whole")
    killed = tmp_path / "killed"
    code = ("import os, signal, sys, pipeline\n"
            "def stop(row):\n"
            "    if row['generation'] == 3:\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            f"pipeline.run({str(FLAKY)!r}, workers=0, out={str(killed)!r}, force=True, on_generation=stop)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    pipeline.resume(killed, workers=0)
    assert run_digests(killed) == run_digests(whole.path)


def test_on_error_fail_ends_the_run_at_the_first_failure(tmp_path):
    with pytest.raises(EvaluationError, match=r"^individual \d+ \(born in generation 0\): ") as raised:
        _run(tmp_path / "fail", execution__on_error="fail")
    assert "\n" not in str(raised.value)
    meta = json.loads((tmp_path / "fail" / "run.json").read_text())
    assert meta["status"] == "failed" and meta["error"].startswith("EvaluationError: individual")


def test_a_generation_in_which_every_evaluation_fails_stops_the_run_in_one_line(tmp_path):
    with pytest.raises(GenerationFailed, match=r"^generation 0: all 16 evaluations failed \(individual 0: "
                                               r"ValueError: this task fails for every genome\); .*not bad luck$"):
        _run(tmp_path / "broken", problem_options__fail_all=True)
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(FLAKY), "--workers", "0", "--out",
                           str(tmp_path / "cli"), "--set", "problem_options.fail_all=true"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("evo run: error: GenerationFailed: generation 0: all 16")


def test_on_error_and_eval_timeout_are_checked_in_one_line(tmp_path):
    for key, value, said in (("on_error", "'ignore'", "execution.on_error"),
                             ("eval_timeout", "0", "execution.eval_timeout")):
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", str(FLAKY), "--out",
                               str(tmp_path / key), "--set", f"execution.{key}={value}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and said in done.stderr
        assert not (tmp_path / key).exists()


@pytest.mark.timeout(120)
def test_a_hung_evaluation_times_out_in_process(tmp_path):
    run = _run(tmp_path / "hang", generations=2, problem_options__hang=True, execution__eval_timeout=0.5)
    individuals = run.individuals()
    timed_out = individuals[individuals["error"] == "timeout after 0.5 s"]
    assert len(timed_out) >= 1
    assert individuals["viable"].sum() > len(individuals) // 2  # the rest of each batch kept its scores


@pytest.mark.timeout(300)
def test_a_hung_evaluation_on_ray_replaces_the_actor_and_fails_only_the_hung_genome(tmp_path, ray_session):
    settings = dict(generations=1, problem_options__hang=True, execution__eval_timeout=1.0)
    local = _run(tmp_path / "local", **settings)
    pooled = _run(tmp_path / "pooled", workers=2, execution__chunk_size=4, **settings)
    individuals = pooled.individuals()
    assert (individuals["error"] == "timeout after 1 s").any()
    assert pooled.generations()["worker_failures"].sum() >= 1  # the hung actor was replaced
    assert run_digests(local.path) == run_digests(pooled.path)


def test_a_run_written_before_the_columns_reads_as_viable():
    old = ROOT / "tests" / "golden" / "killed" / "setcover-killed"
    run = pipeline.open_run(old)
    individuals = run.individuals()
    assert individuals["viable"].all() and individuals["error"].isna().all()
    assert list(run.individuals(columns=["id", "viable"]).columns) == ["id", "viable"]
    assert run.population()["viable"].all()
