"""A run keeps the long-lived heap out of the garbage collector's full passes, and gives it back."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

import pytest

import pipeline
from pipeline.heap import frozen_heap

ROOT = Path(__file__).resolve().parents[2]
SPEC = {"name": "frozen", "problem": "sleepy:Sleepy", "seed": 1, "generations": 3, "problem_options": {"ms": 0},
        "genome": {"kind": "sleepy:Bits"}, "population": {"size": 8, "offspring": 8}}
COUNTING = """
import gc
import numpy as np
from sleepy import Sleepy


class Counting(Sleepy):
    objectives = ("ones",)

    def evaluate(self, genomes, seeds):
        return {**super().evaluate(genomes, seeds), "frozen": np.full(len(genomes), gc.get_freeze_count())}
"""


def _spec(tmp_path: Path, workers: int, problem: str = "sleepy:Sleepy") -> dict:
    shutil.copy(ROOT / "benchmarks" / "sleepy" / "sleepy.py", tmp_path / "sleepy.py")
    (tmp_path / "counting.py").write_text(COUNTING)
    return {**SPEC, "problem": problem, "execution": {"workers": workers, "code_dir": str(tmp_path)}}


def test_a_run_freezes_the_heap_while_it_runs_and_unfreezes_it_after(tmp_path):
    before = gc.get_freeze_count()
    frozen: list[int] = []
    pipeline.run(_spec(tmp_path, 0), out=str(tmp_path / "run"), on_generation=lambda row: frozen.append(gc.get_freeze_count()))
    assert len(frozen) == 4 and min(frozen) > before  # everything alive at the start, Ray's and the modules'
    assert gc.get_freeze_count() == before


def test_the_heap_is_unfrozen_when_a_run_fails(tmp_path):
    before = gc.get_freeze_count()

    def fail(row: dict) -> None:
        raise RuntimeError("a hook that breaks")

    with pytest.raises(RuntimeError, match="a hook that breaks"):
        pipeline.run(_spec(tmp_path, 0), out=str(tmp_path / "run"), on_generation=fail)
    assert gc.get_freeze_count() == before
    with pytest.raises(KeyError), frozen_heap():
        assert gc.get_freeze_count() > before
        raise KeyError("inside")
    assert gc.get_freeze_count() == before


def test_evaluation_actors_freeze_their_heap_once_the_task_is_built(tmp_path, ray_session):
    run = pipeline.run(_spec(tmp_path, 1, "counting:Counting"), out=str(tmp_path / "run"))
    frozen = run.individuals(columns=["frozen", "worker"])
    assert frozen["worker"].str.startswith("actor-").all()
    assert (frozen["frozen"] > 1000).all()  # the actor's modules and Ray's objects, at least
