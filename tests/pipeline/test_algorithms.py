"""A user's own algorithm (`population.algorithm = "module:Name"`): it runs on evo's loop, its own
state is checkpointed and resumed exactly, and a broken one is refused in one line before any file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline
from pipeline.spec import SpecError
from tests.golden.digest import run_digests
from tests.pipeline.test_plugins import _copy_example

SPEC = "setcover-restarts.toml"


@pytest.fixture(scope="module")
def restarts(tmp_path_factory) -> Path:
    return _copy_example("restarts", tmp_path_factory.mktemp("restarts"))


def test_the_restarts_example_runs_and_keeps_its_own_state_in_the_checkpoint(restarts, tmp_path):
    run = pipeline.run(restarts / SPEC, generations=40, out=str(tmp_path / "run"))
    checkpoint = json.loads((run.path / "checkpoint.json").read_text())
    assert checkpoint["algorithm"]["restarts"] >= 1  # the plateau was reached and acted on
    individuals = run.individuals(columns=["generation", "origin", "born"])
    # a restart generation scores fresh genomes only, born in it
    fresh = individuals[(individuals.generation > 0) & (individuals.origin == "init")]
    assert len(fresh) and (fresh.born == fresh.generation).all()
    assert run.generations()["best_cost"].is_monotonic_decreasing


def test_a_user_algorithm_resumes_to_the_uninterrupted_log(restarts, tmp_path):
    whole = pipeline.run(restarts / SPEC, generations=40, out=str(tmp_path / "whole"))
    stopped = pipeline.run(restarts / SPEC, generations=40, out=str(tmp_path / "cut"),
                           on_generation=lambda row: row["generation"] == 23)
    assert stopped.meta["stop_reason"] == "callback"
    pipeline.resume(stopped.path)
    assert run_digests(stopped.path) == run_digests(whole.path)


@pytest.mark.parametrize("algorithm, options, message", [
    ("restarts:Nope", {}, "population.algorithm: .*has no attribute 'Nope'|algorithm 'restarts:Nope'"),
    ("restarts:Restarts", {"patience": 0}, "population.algorithm 'restarts:Restarts': ValueError: options are"),
    ("json:dumps", {}, "population.algorithm 'json:dumps'"),
    ("mu+lambda", {"patience": 3}, "population.options: the built-in algorithms take no options"),
    ("simulated-annealing", {}, "population.algorithm: must be one of 'mu\\+lambda', 'mu,lambda', 'nsga2'"),
])
def test_a_broken_algorithm_is_one_line_before_anything_is_written(restarts, tmp_path, algorithm, options, message):
    out = tmp_path / "never"
    with pytest.raises((SpecError, ValueError), match=message) as raised:
        pipeline.run(restarts / SPEC, generations=2, out=str(out), population__algorithm=algorithm,
                     population__options=options)
    assert "\n" not in str(raised.value)
    assert not out.exists()


def test_the_cli_names_a_broken_algorithm_in_one_line_with_exit_2(restarts):
    spec = (restarts / SPEC).read_text().replace('"restarts:Restarts"', '"restarts:Missing"')
    (restarts / "broken.toml").write_text(spec)
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "run", "broken.toml", "--generations", "1"],
                          cwd=restarts, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "restarts:Missing" in lines[0]
    assert not (restarts / "runs" / "broken").exists()
