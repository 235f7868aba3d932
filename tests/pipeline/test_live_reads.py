"""Reading a run while it runs: no read ever fails or sees half a file, and every call sees
whole generations (issue 40: 23 failed reads in 3,708 while setcover-1000 ran)."""

from __future__ import annotations

import json
import itertools
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pipeline
from fitness.atomic import atomic_write_bytes
from pipeline.cli import main
from pipeline.records import RunDir, log_files
from pipeline.records.reading import opened, read_json, read_parquet
from pipeline.reporting import load_run

from .test_runs import SETCOVER_SPEC

# Each round reads generations() and best() while about a hundred generations are written;
# before the fix, 4 to 13 of those reads failed ("Page was smaller than expected").
ROUNDS = 1200
EVERY = 100  # rounds between reads of the whole log (population(), individuals()): they grow with it
REPORTS = (400, 1000)  # rounds at which `evo report` runs
# The writer: the spec above, far more generations than the test lasts, each paced by a short
# sleep so the log stays small enough to read whole a dozen times.
WRITER = textwrap.dedent("""
    import sys, time
    import pipeline
    pipeline.run(sys.argv[1], out=sys.argv[2], generations=100_000, on_generation=lambda row: time.sleep(0.25))
""")


def _parquet_bytes(values: list[int]) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"generation": values}), sink)
    return sink.getvalue().to_pybytes()


def test_an_opened_file_is_one_version_whatever_is_renamed_over_it(tmp_path):
    path = tmp_path / "generations.parquet"
    atomic_write_bytes(path, _parquet_bytes([0, 1]))
    with opened(path) as handle:
        atomic_write_bytes(path, _parquet_bytes(list(range(50))))  # the writer's next version
        assert pq.ParquetFile(handle).read().column("generation").to_pylist() == [0, 1]
    assert len(read_parquet(path)) == 50


def test_read_parquet_names_a_missing_column_and_read_json_a_garbled_file(tmp_path):
    path = tmp_path / "table.parquet"
    path.write_bytes(_parquet_bytes([3]))
    assert read_parquet(path, ["generation"]).column("generation").to_pylist() == [3]
    with pytest.raises(pa.ArrowInvalid, match=r"table\.parquet: no column 'cost'"):
        read_parquet(path, ["cost"])
    (tmp_path / "best.json").write_text('{"hall_of_fame": [')
    with pytest.raises(ValueError, match=r"best\.json: not valid JSON"):
        read_json(tmp_path / "best.json")
    with pytest.raises(FileNotFoundError, match="nothing.json"):
        read_json(tmp_path / "nothing.json")


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    spec = tmp_path_factory.mktemp("spec") / "spec.toml"
    spec.write_text(SETCOVER_SPEC)
    return pipeline.run(spec, out=str(spec.parent / "run"), generations=2).path


@pytest.fixture(scope="module")
def committed(tmp_path_factory) -> Path:
    """A run whose generations are still in recent/, each as committed (not yet compacted)."""
    spec = tmp_path_factory.mktemp("spec") / "spec.toml"
    spec.write_text(SETCOVER_SPEC)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(log_files, "compact", lambda rundir, rows, fault=None, held=None: 0)
        return pipeline.run(spec, out=str(spec.parent / "run"), generations=2).path


def test_a_generation_is_read_only_once_its_batch_is_whole(committed, tmp_path):
    """The moment generation 2's batch is being appended (or a kill tore it): only 0 and 1 are seen."""
    live = tmp_path / "live"
    shutil.copytree(committed, live)
    stream = live / "recent" / "gen-000000.arrows"
    stream.write_bytes(stream.read_bytes()[:-20])  # the end-of-stream marker and the last batch's tail
    rundir = RunDir(live)
    run = pipeline.open_run(live)
    assert rundir.published() == range(2)
    assert run.generations()["generation"].tolist() == [0, 1]
    assert run.population()["generation"].unique().tolist() == [1]
    assert sorted(run.populations()["generation"].unique()) == [0, 1]
    assert sorted(run.individuals()["generation"].unique()) == [0, 1]
    with pytest.raises(ValueError, match="no generation 2 in this run"):
        run.population(2)


def test_a_compacted_run_reads_as_the_committed_one(committed, finished):
    """Parts hold what recent/ held: the same rows, in the same order, through every reader."""
    before, after = pipeline.open_run(committed), pipeline.open_run(finished)
    variable = ["eval_seconds", "worker"]
    pd.testing.assert_frame_equal(before.individuals().drop(columns=variable),
                                  after.individuals().drop(columns=variable))
    pd.testing.assert_frame_equal(before.populations().drop(columns=variable),
                                  after.populations().drop(columns=variable))
    timing = ["wall_seconds", "elapsed_seconds"]
    pd.testing.assert_frame_equal(before.generations().drop(columns=timing),
                                  after.generations().drop(columns=timing))
    assert sorted(p.name for p in (finished / "individuals").iterdir()) == ["part-000000-000002.parquet"]
    assert not (finished / "recent").exists() or not list((finished / "recent").iterdir())


def test_a_report_is_of_the_generation_best_json_names(finished, tmp_path):
    """The moment after generation 2's row, before its best.json: the report stops at 1."""
    live = tmp_path / "live"
    shutil.copytree(finished, live)
    best = read_json(live / "best.json")
    (live / "best.json").write_text(json.dumps({**best, "generation": 1}))
    logs = load_run(live)
    assert logs.generations["generation"].tolist() == [0, 1]
    assert logs.individuals()["generation"].max() == 1
    assert load_run(finished).generations["generation"].tolist() == [0, 1, 2]


def _first_generation(path: Path, writer: subprocess.Popen) -> pipeline.Run:
    """The run once its generation 0 is published (best.json written)."""
    while not (path / "best.json").exists():
        assert writer.poll() is None, writer.communicate()[1]
        time.sleep(0.05)
    return pipeline.open_run(path)


def _whole(generations: pd.DataFrame) -> int:
    """The last generation of a generations() frame, checked to hold every one before it."""
    assert list(generations["generation"]) == list(range(len(generations)))
    return len(generations) - 1


@pytest.mark.slow
@pytest.mark.timeout(300)  # a writer that never publishes generation 0 fails, not hangs
def test_reading_a_running_run_thousands_of_times_never_fails(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SETCOVER_SPEC)
    path = tmp_path / "live"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(spec), str(path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = set()  # the last generation of each generations() read
    try:
        run = _first_generation(path, writer)
        for i in itertools.count():
            if i >= ROUNDS and len(seen) > 10:  # on a fast machine 1,200 reads took less than ten generations
                break
            before = _whole(run.generations())
            assert not run.best().empty
            seen.add(before)
            if i % EVERY == 0:
                population = run.population()
                individuals = run.individuals()
                after = _whole(run.generations())
                assert before <= population["generation"].iloc[0] <= after
                assert not population["cost"].isna().any()  # every member found in the log
                assert before <= individuals["generation"].max() <= after
            if i in REPORTS:
                assert main(["report", str(path)]) == 0, capsys.readouterr().err
        assert writer.poll() is None, "the run ended before the reads did: they were not all of a live run"
    finally:
        writer.kill()
        writer.communicate()
    assert len(seen) > 10  # the reads fell among many generations' writes
