"""Resume trusts nothing it reads: tampered, missing, stale or stray files are
repaired exactly (the log then equals an uninterrupted run's) or refused in
one line with nothing deleted. In-process runs (workers = 0): Ray is not the point."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from pipeline.cli import main
from pipeline.records import RunDir, log_files

from .test_runs import NIM_SPEC, comparable, generations_log, run_spec

pytestmark = pytest.mark.timeout(120)

TEXT = NIM_SPEC.format(generations=3, kind="rules", games=20)


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict[int, Path]:
    """Uninterrupted runs of TEXT for 3 and 5 generations."""
    root = tmp_path_factory.mktemp("references")
    return {3: run_spec(root, TEXT, "ref3"),
            5: run_spec(root, TEXT.replace("generations = 3", "generations = 5"), "ref5")}


@pytest.fixture
def uncompacted(monkeypatch):
    """Runs that leave every generation in recent/ as committed, as a run killed before it
    compacted them does (a closed run's are in one part)."""
    monkeypatch.setattr(log_files, "compact", lambda rundir, rows, fault=None, held=None: 0)
    return monkeypatch  # .undo(): compaction back, for the resume


def same_log(reference: Path, run: Path) -> None:
    pd.testing.assert_frame_equal(comparable(reference), comparable(run))
    pd.testing.assert_frame_equal(generations_log(reference), generations_log(run))
    assert json.loads((run / "best.json").read_text()) == json.loads((reference / "best.json").read_text())
    assert RunDir(run).read_run()["status"] == "finished"


def resume(run: Path, capsys, *more: str) -> tuple[int, list[str]]:
    code = main(["resume", str(run), *more])
    return code, capsys.readouterr().err.strip().splitlines()


def as_if_killed(run: Path) -> None:
    """The status a SIGKILLed writer leaves behind."""
    meta = json.loads((run / "run.json").read_text())
    meta["status"] = "running"
    (run / "run.json").write_text(json.dumps(meta))


def edit_json(path: Path, **changes) -> None:
    payload = json.loads(path.read_text())
    payload.update(changes)
    path.write_text(json.dumps(payload))


def test_checkpoint_edited_ahead_of_the_log_recomputes_the_missing_generations(tmp_path, references, capsys):
    run = run_spec(tmp_path, TEXT, "ahead")
    as_if_killed(run)
    edit_json(run / "checkpoint.json", generation=5)  # the log ends at 3
    code, err = resume(run, capsys, "--generations", "5")
    assert code == 0
    assert any("generations 4-5 recomputed" in line for line in err)
    same_log(references[5], run)  # no gap: 4 and 5 recomputed exactly


@pytest.mark.parametrize("damage", ["missing", "empty", "garbage", "behind"])
def test_a_missing_or_damaged_checkpoint_is_rebuilt_from_the_log(tmp_path, references, capsys, damage):
    run = run_spec(tmp_path, TEXT, damage)
    as_if_killed(run)
    checkpoint = run / "checkpoint.json"
    if damage == "missing":
        checkpoint.unlink()
    elif damage == "empty":
        checkpoint.write_text("{}")
    elif damage == "garbage":
        checkpoint.write_text("{not json")
    else:  # written now and then: behind the log is no damage, and no repair is said
        shorter = run_spec(tmp_path, TEXT.replace("generations = 3", "generations = 1"), "shorter")
        shutil.copy(shorter / "checkpoint.json", checkpoint)
        edit_json(checkpoint, run_id=RunDir(run).read_run()["run_id"])
    code, err = resume(run, capsys)
    assert code == 0
    if damage != "behind":
        assert err and all("checkpoint.json" in line for line in err)  # the repair is said, not silent
    same_log(references[3], run)  # no completed generation deleted


def test_stale_best_json_and_generations_table_are_rewritten(tmp_path, references, capsys, uncompacted):
    # Killed after generation 3's committed file, before the derived files caught up.
    run = run_spec(tmp_path, TEXT, "stale")
    shorter = run_spec(tmp_path, TEXT.replace("generations = 3", "generations = 2"), "shorter")
    for name in ("best.json", "checkpoint.json"):  # generations.parquet: only once compacted
        shutil.copy(shorter / name, run / name)
    edit_json(run / "checkpoint.json", run_id=RunDir(run).read_run()["run_id"])
    as_if_killed(run)
    uncompacted.undo()
    code, _ = resume(run, capsys)
    assert code == 0
    same_log(references[3], run)
    assert json.loads((run / "best.json").read_text())["generation"] == 3


@pytest.mark.parametrize("field", ["seed", "spec.seed"])
def test_edited_seed_in_run_json_is_refused_in_one_line(tmp_path, capsys, field):
    run = run_spec(tmp_path, TEXT, "seed")
    as_if_killed(run)
    meta = json.loads((run / "run.json").read_text())
    if field == "seed":
        meta["seed"] = 12
    else:
        meta["spec"]["seed"] = 12
    (run / "run.json").write_text(json.dumps(meta))
    before = sorted(p.name for p in (run / "individuals").iterdir())
    code, err = resume(run, capsys, "--generations", "5")
    assert code == 2 and len(err) == 1
    assert "run.json" in err[0] and "refusing to mix two runs" in err[0]
    assert sorted(p.name for p in (run / "individuals").iterdir()) == before


def test_a_generation_of_another_run_is_refused(tmp_path, capsys, uncompacted):
    run = run_spec(tmp_path, TEXT, "mine")
    other = run_spec(tmp_path, TEXT.replace("seed = 11", "seed = 12"), "other")
    shutil.copy(other / "recent" / "gen-000000.arrows", run / "recent" / "gen-000000.arrows")
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1
    assert "gen-000000.arrows" in err[0] and "s12" in err[0] and "refusing to mix" in err[0]


def test_a_part_of_another_run_is_refused(tmp_path, capsys):
    run = run_spec(tmp_path, TEXT, "mine")
    other = run_spec(tmp_path, TEXT.replace("seed = 11", "seed = 12"), "other")
    shutil.copy(other / "individuals" / "part-000000-000003.parquet", run / "individuals" / "part-000000-000003.parquet")
    as_if_killed(run)
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1
    assert "part-000000-000003.parquet" in err[0] and "s12" in err[0] and "refusing to mix" in err[0]


def test_a_gap_is_refused_and_nothing_is_deleted(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(log_files, "BLOCK_ROWS", 1)  # a part per generation
    run = run_spec(tmp_path, TEXT, "gap")
    (run / "individuals" / "part-000001-000001.parquet").unlink()
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1 and "generation 1 is missing" in err[0]
    assert sorted(p.name for p in (run / "individuals").iterdir()) == [
        "part-000000-000000.parquet", "part-000002-000002.parquet", "part-000003-000003.parquet"]


def test_row_counts_that_disagree_with_the_checkpoint_are_refused(tmp_path, capsys):
    run = run_spec(tmp_path, TEXT, "rows")
    logged = json.loads((run / "checkpoint.json").read_text())["rows_logged"]
    edit_json(run / "checkpoint.json", rows_logged=logged - 1)
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1
    assert "checkpoint.json" in err[0] and f"records {logged - 1} rows up to generation 3" in err[0]


def test_stray_and_temp_files_are_ignored_by_name_or_cleaned(tmp_path, references, capsys, uncompacted):
    run = run_spec(tmp_path, TEXT.replace("generations = 3", "generations = 2"), "stray")
    recent = run / "recent"
    shutil.copy(recent / "gen-000000.arrows", recent / "gen-000000.arrows.bak")
    (recent / "notes.txt").write_text("mine")
    (recent / ".gen-000003.arrows.x1y2.tmp").write_bytes(b"half")
    (run / ".checkpoint.json.a1b2.tmp").write_text("{")
    uncompacted.undo()
    code, err = resume(run, capsys, "--generations", "3")
    assert code == 0
    assert any("ignored" in line and "gen-000000.arrows.bak" in line for line in err)
    assert not list(run.rglob("*.tmp"))
    assert (recent / "gen-000000.arrows.bak").exists() and (recent / "notes.txt").exists()
    assert sorted(RunDir(run).generation_files()) == [0, 1, 2, 3]
    frame = RunDir(run).read_individuals()
    pd.testing.assert_frame_equal(
        frame.drop(columns=["eval_seconds", "worker"]).astype(str),
        RunDir(references[3]).read_individuals().drop(columns=["eval_seconds", "worker"]).astype(str))


def test_an_unfinished_first_generation_starts_over(tmp_path, references, capsys):
    run = run_spec(tmp_path, TEXT, "fresh")
    for file in [*(run / "individuals").iterdir(), *(run / "population").iterdir()]:
        file.unlink()
    for name in ("checkpoint.json", "best.json"):
        (run / name).unlink()
    shutil.rmtree(run / "generations")
    as_if_killed(run)
    code, _ = resume(run, capsys)
    assert code == 0
    same_log(references[3], run)


@pytest.mark.parametrize("content,expected", [
    ("{garbage", "run.json: not valid JSON"),
    ('{"run_id": "x", "seed": 1}', "run.json: no valid 'spec' entry"),
    ("[1, 2]", "run.json: expected a JSON object"),
])
def test_a_broken_run_json_is_one_line_naming_it_in_resume_and_report(tmp_path, capsys, content, expected):
    run = run_spec(tmp_path, TEXT, "broken")
    (run / "run.json").write_text(content)
    for command in ("resume", "report"):
        assert main([command, str(run)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and expected in err[0], (command, err)


def test_resume_of_a_directory_without_a_run_says_so(tmp_path, capsys):
    (tmp_path / "empty" / "individuals").mkdir(parents=True)
    assert main(["resume", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds no run yet" in err[0]
    assert main(["resume", str(tmp_path / "absent")]) == 2
    assert "no such run directory" in capsys.readouterr().err
