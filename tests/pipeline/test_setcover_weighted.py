"""Weighted set cover through the pipeline: the shipped OR-Library spec, its operators, and their names."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pipeline
from fitness.setcover import beasley_class, format_orlib
from pipeline.spec import SpecError

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "runs" / "setcover-scp.toml"
INSTANCE = ROOT / "runs" / "setcover-scp.txt"


def read_orlib_by_hand(path):
    """An independent reader: the column costs and, per column, the rows it covers."""
    numbers = [int(t) for t in path.read_text().split()]
    m, n = numbers[:2]
    costs, at = numbers[2 : 2 + n], 2 + n
    covers = [set() for _ in range(n)]
    for row in range(m):
        count = numbers[at]
        for column in numbers[at + 1 : at + 1 + count]:
            covers[column - 1].add(row)
        at += 1 + count
    return m, costs, covers


def test_the_shipped_instance_is_beasleys_recipe_class_4_seed_7():
    assert INSTANCE.read_text() == format_orlib(beasley_class("4", 7))


def test_a_short_run_costs_every_cover_by_the_files_column_costs(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = pipeline.run(SPEC, generations=2, population__size=12, population__offspring=10, workers=0,
                       out=str(tmp_path / "run"))
    m, costs, covers = read_orlib_by_hand(INSTANCE)
    frame = pd.read_parquet(run.path / "individuals")
    assert len(frame) == 12 + 2 * 10
    for genome, cost, covered in zip(frame["genome"], frame["cost"], frame["covered"]):
        chosen = np.flatnonzero(np.asarray(genome, dtype=bool))
        assert cost == sum(costs[j] for j in chosen)
        assert covered == m == len(set().union(*(covers[j] for j in chosen)))  # repair: every row covered


@pytest.mark.parametrize("overrides", [
    {"operators__crossover": "uniform"},  # course crossover, Lagrangian repair
    {"operators__crossover": "optimal"},
    {"operators__mutation": "asymmetric", "genome__init": "greedy"},
    {"operators__repair": True},  # the fusion child repaired by the course's ratio greedy
    {"operators__params": {"flips": 4.0, "flips_midpoint": 20.0}},
])
def test_the_new_operators_mix_with_the_old(tmp_path, monkeypatch, overrides):
    monkeypatch.chdir(ROOT)
    run = pipeline.run(SPEC, generations=1, population__size=8, population__offspring=8, workers=0,
                       out=str(tmp_path / "run"), **overrides)
    assert pd.read_parquet(run.path / "individuals")["feasible"].all()


def test_weighted_params_belong_to_the_weighted_operators(monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(SpecError, match="unknown parameter 'flips'"):
        pipeline.run(ROOT / "runs" / "setcover-1000.toml", operators__params={"flips": 3.0}, generations=0)
    with pytest.raises(SpecError, match="flips >= 1"):
        pipeline.run(SPEC, operators__params={"flips": 0.5}, generations=0)
