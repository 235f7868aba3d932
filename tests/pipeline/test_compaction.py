"""Compaction (records/compaction.py): recent/ merged into Parquet parts as the run goes and
at close, killed at each of its steps, never loses or duplicates a generation; readers of the
killed run see each generation once, and resume finishes the job to the uninterrupted log."""

from __future__ import annotations

import pandas as pd
import pyarrow.dataset as ds
import pytest

import pipeline
from pipeline.records import RunDir, compaction, log_files
from tests.golden.digest import run_digests

from .test_runs import SETCOVER_SPEC, comparable, generations_log, spec_file

STEPS = ("generations", "population", "individuals", "removed")
GENERATIONS = 10  # 6 rows at 0, then 10 a generation: parts 0-3, 4-6, 7-9 at BLOCK_ROWS = 30, 10-10 at close


class Killed(Exception):
    """The writer dying at a compaction step."""


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(log_files, "BLOCK_ROWS", 30)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pipeline.Run:
    folder = tmp_path_factory.mktemp("reference")
    return pipeline.run(spec_file(folder, SETCOVER_SPEC), out=str(folder / "run"), generations=GENERATIONS)


def _killed_at(step: str, nth: int, monkeypatch):
    """compact() raising `Killed` at `step` of its `nth` call."""
    real, calls = compaction.compact, []

    def compact(rundir, rows, fault=None, held=None):
        calls.append(1)

        def hook(name: str) -> None:
            if len(calls) == nth and name == step:
                raise Killed(f"{step} of compaction {nth}")
        return real(rundir, rows, fault=hook, held=held)
    monkeypatch.setattr(log_files, "compact", compact)


def _each_generation_once(run: pipeline.Run) -> None:
    individuals = run.individuals()
    last = int(individuals["generation"].max())
    assert not individuals.duplicated(["generation", "id"]).any()
    assert run.generations()["generation"].tolist() == list(range(last + 1))
    populations = run.populations()
    assert sorted(populations["generation"].unique()) == list(range(last + 1))
    assert not populations.duplicated(["generation", "id"]).any()


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("nth", [2, 4])  # the second part mid-run, or the one at close
def test_a_compaction_killed_at_any_step_loses_and_repeats_nothing(tmp_path, monkeypatch, small_parts,
                                                                  reference, step, nth):
    _killed_at(step, nth, monkeypatch)
    out = tmp_path / "run"
    with pytest.raises(Killed):
        pipeline.run(spec_file(tmp_path, SETCOVER_SPEC), out=str(out), generations=GENERATIONS)
    _each_generation_once(pipeline.open_run(out))
    monkeypatch.setattr(log_files, "compact", compaction.compact)
    resumed = pipeline.resume(out)
    pd.testing.assert_frame_equal(comparable(resumed.path), comparable(reference.path))
    pd.testing.assert_frame_equal(generations_log(resumed.path), generations_log(reference.path))
    assert not list((out / "recent").glob("*"))
    _each_generation_once(resumed)


def test_parts_as_the_run_goes_read_as_one_part_at_close(tmp_path, small_parts, reference):
    run = pipeline.run(spec_file(tmp_path, SETCOVER_SPEC), out=str(tmp_path / "run"), generations=GENERATIONS)
    parts = sorted(p.name for p in (run.path / "individuals").iterdir())
    assert parts == ["part-000000-000003.parquet", "part-000004-000006.parquet", "part-000007-000009.parquet",
                     "part-000010-000010.parquet"]
    assert sorted(p.name for p in (run.path / "population").iterdir()) == parts
    pd.testing.assert_frame_equal(comparable(run.path), comparable(reference.path))
    variable = ["eval_seconds", "worker"]
    pd.testing.assert_frame_equal(run.populations().drop(columns=variable),
                                  reference.populations().drop(columns=variable))
    for g in (0, 3, 9):
        pd.testing.assert_frame_equal(run.population(g).drop(columns=variable),
                                      reference.population(g).drop(columns=variable))
    # a plain Parquet dataset: pyarrow and pandas scan the folder, with a generation column
    scanned = ds.dataset(run.path / "individuals").to_table(filter=ds.field("generation") == 3)
    assert set(scanned.column("generation").to_pylist()) == {3}
    assert pd.read_parquet(run.path / "individuals")["generation"].max() == GENERATIONS


def test_individuals_reads_only_the_columns_and_generations_asked(reference):
    frame = reference.individuals(columns=["id", "cost"], generations=range(2, 4))
    assert list(frame.columns) == ["id", "cost"]
    whole = reference.individuals()
    expected = whole[whole["generation"].isin([2, 3])][["id", "cost"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(frame, expected)
    assert reference.individuals(generations=5)["generation"].unique().tolist() == [5]
    assert RunDir(reference.path).read_individuals(ids=[0, 3])["id"].tolist() == [0, 3]


def _columns_alone(run: pipeline.Run) -> None:
    """A read that matches no row gives the log's columns and types (a notebook's groupby works)."""
    whole = run.individuals()
    none = run.individuals(generations=range(GENERATIONS + 5, GENERATIONS + 9))
    assert none.empty and none.dtypes.to_dict() == whole.dtypes.to_dict()
    assert list(run.individuals(columns=["id", "cost", "absent"], generations=99).columns) == ["id", "cost"]


def test_a_read_of_no_rows_has_the_logs_columns(reference, tmp_path, monkeypatch, small_parts):
    _columns_alone(reference)  # Parquet parts
    _killed_at("generations", 1, monkeypatch)  # no part written: every generation in recent/'s streams
    out = tmp_path / "run"
    with pytest.raises(Killed):
        pipeline.run(spec_file(tmp_path, SETCOVER_SPEC), out=str(out), generations=GENERATIONS)
    assert not list((out / "individuals").glob("*.parquet")) and list((out / "recent").glob("*"))
    _columns_alone(pipeline.open_run(out))


def test_generations_rows_are_appended_a_part_per_compaction_never_rewritten(tmp_path, monkeypatch, small_parts,
                                                                            reference):
    real, seen = compaction.compact, {}

    def compact(rundir, rows, fault=None, held=None):  # each generations part's file, as each compaction finds it
        seen.update({p.name: p.stat().st_ino for p in rundir.generations_dir.glob("part-*")})
        return real(rundir, rows, fault, held)
    monkeypatch.setattr(log_files, "compact", compact)
    run = pipeline.run(spec_file(tmp_path, SETCOVER_SPEC), out=str(tmp_path / "run"), generations=GENERATIONS)
    parts = {p.name: p.stat().st_ino for p in (run.path / "generations").iterdir()}
    assert sorted(parts) == sorted(p.name for p in (run.path / "individuals").iterdir())
    assert all(parts[name] == inode for name, inode in seen.items())  # written once each
    assert not (run.path / "generations.parquet").exists()
    assert pd.read_parquet(run.path / "generations")["generation"].tolist() == list(range(GENERATIONS + 1))
    pd.testing.assert_frame_equal(generations_log(run.path), generations_log(reference.path))


def test_a_run_with_one_generations_file_reads_and_resumes_to_the_uninterrupted_log(tmp_path, small_parts,
                                                                                    reference):
    """The layout before generations/: generations.parquet holds the rows of every compacted
    generation; a resumed run appends parts after it and reads both."""
    out = tmp_path / "run"
    pipeline.run(spec_file(tmp_path, SETCOVER_SPEC), out=str(out), generations=6)  # parts 0-3, 4-6
    rows = pd.read_parquet(out / "generations")
    for part in (out / "generations").iterdir():
        part.unlink()
    (out / "generations").rmdir()
    rows.to_parquet(out / "generations.parquet", index=False)
    assert pipeline.open_run(out).generations()["generation"].tolist() == list(range(7))
    resumed = pipeline.resume(out, generations=GENERATIONS)
    assert (out / "generations.parquet").exists()  # rows 0-6 stay there, 7.. go to parts
    assert sorted(p.name for p in (out / "generations").iterdir()) == ["part-000007-000009.parquet",
                                                                         "part-000010-000010.parquet"]
    pd.testing.assert_frame_equal(generations_log(resumed.path), generations_log(reference.path))
    pd.testing.assert_frame_equal(comparable(resumed.path), comparable(reference.path))
    assert run_digests(resumed.path)["generations"] == run_digests(reference.path)["generations"]
