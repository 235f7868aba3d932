"""`[log] individuals`: "all", "every N" or "survivors" (records/recorder.py `_thinned`). What
each keeps, that every population stays readable whole, and that resume stays exact."""

from __future__ import annotations

import pandas as pd
import pytest

import pipeline
from pipeline.spec import SpecError

from .test_runs import SETCOVER_SPEC, comparable, generations_log, spec_file

GENERATIONS = 6


def _run(tmp_path, mode: str, name: str, **more) -> pipeline.Run:
    """The spec in its own folder, under one name: the run id (in every row) comes from it."""
    (tmp_path / name).mkdir()
    return pipeline.run(spec_file(tmp_path / name, SETCOVER_SPEC), out=str(tmp_path / name / "run"),
                        generations=GENERATIONS, log__individuals=mode, **more)


@pytest.fixture(scope="module")
def everything(tmp_path_factory) -> pipeline.Run:
    return _run(tmp_path_factory.mktemp("all"), "all", "all")


@pytest.mark.parametrize("mode", ["every 3", "survivors"])
def test_a_thinned_log_keeps_whole_generations_and_every_member_alive(tmp_path, everything, mode):
    thinned = _run(tmp_path, mode, "thin")
    full, kept = everything.individuals(), thinned.individuals()
    for g in range(GENERATIONS + 1):
        alive = everything.population(g)
        rows = kept[kept["generation"] == g]
        if mode == "every 3" and g % 3 == 0:
            assert len(rows) == (full["generation"] == g).sum()
        else:  # the rows of the members alive after g (and the hall of fame), nothing else
            assert set(alive["id"]) & set(full[full["generation"] == g]["id"]) <= set(rows["id"])
            assert g == 0 or len(rows) < (full["generation"] == g).sum()  # generation 0: all alive
        variable = ["eval_seconds", "worker"]
        pd.testing.assert_frame_equal(thinned.population(g).drop(columns=variable), alive.drop(columns=variable))
    pd.testing.assert_frame_equal(generations_log(thinned.path), generations_log(everything.path))
    assert thinned.best(None).drop(columns=["copies"]).equals(everything.best(None).drop(columns=["copies"]))


@pytest.mark.parametrize("mode", ["every 2", "survivors"])
def test_a_thinned_run_stopped_and_resumed_writes_the_uninterrupted_log(tmp_path, mode):
    whole = _run(tmp_path, mode, "whole")
    stopped = _run(tmp_path, mode, "stopped", on_generation=lambda row: row["generation"] == 3)
    assert stopped.generations()["generation"].max() == 3
    resumed = pipeline.resume(stopped.path)
    pd.testing.assert_frame_equal(comparable(resumed.path), comparable(whole.path))
    pd.testing.assert_frame_equal(generations_log(resumed.path), generations_log(whole.path))


@pytest.mark.parametrize("bad", ["some", "every 0", "every", "every -2", "every 2.5"])
def test_a_bad_individuals_value_is_one_line_naming_the_key(tmp_path, bad):
    with pytest.raises(SpecError) as caught:
        _run(tmp_path, bad, "bad")
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and "log.individuals" in message and '"every N"' in message
    assert not (tmp_path / "bad" / "run").exists()
