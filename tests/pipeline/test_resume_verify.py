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
from pipeline.records import RunDir

from .test_runs import NIM_SPEC, comparable, generations_log, run_spec

pytestmark = pytest.mark.timeout(120)

TEXT = NIM_SPEC.format(generations=3, kind="rules", games=20)


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict[int, Path]:
    """Uninterrupted runs of TEXT for 3 and 5 generations."""
    root = tmp_path_factory.mktemp("references")
    return {3: run_spec(root, TEXT, "ref3"),
            5: run_spec(root, TEXT.replace("generations = 3", "generations = 5"), "ref5")}


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
    else:
        edit_json(checkpoint, generation=0)
    code, err = resume(run, capsys)
    assert code == 0
    assert err and all("checkpoint.json" in line for line in err)  # the repair is said, not silent
    same_log(references[3], run)  # no completed generation deleted


def test_stale_best_json_and_generations_table_are_rewritten(tmp_path, references, capsys):
    # Killed after generation 3's individuals file, before the derived files caught up.
    run = run_spec(tmp_path, TEXT, "stale")
    shorter = run_spec(tmp_path, TEXT.replace("generations = 3", "generations = 2"), "shorter")
    for name in ("best.json", "checkpoint.json", "generations.parquet"):
        shutil.copy(shorter / name, run / name)
    edit_json(run / "checkpoint.json", run_id=RunDir(run).read_run()["run_id"])
    as_if_killed(run)
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


def test_a_generation_of_another_run_is_refused(tmp_path, capsys):
    run = run_spec(tmp_path, TEXT, "mine")
    other = run_spec(tmp_path, TEXT.replace("seed = 11", "seed = 12"), "other")
    shutil.copy(other / "individuals" / "gen-000002.parquet", run / "individuals" / "gen-000002.parquet")
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1
    assert "gen-000002.parquet" in err[0] and "s12" in err[0] and "refusing to mix" in err[0]


def test_a_gap_is_refused_and_nothing_is_deleted(tmp_path, capsys):
    run = run_spec(tmp_path, TEXT, "gap")
    (run / "individuals" / "gen-000001.parquet").unlink()
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1 and "generation 1 is missing" in err[0]
    assert sorted(p.name for p in (run / "individuals").iterdir()) == [
        "gen-000000.parquet", "gen-000002.parquet", "gen-000003.parquet"]


def test_row_counts_that_disagree_with_the_checkpoint_are_refused(tmp_path, capsys):
    run = run_spec(tmp_path, TEXT, "rows")
    counts = json.loads((run / "checkpoint.json").read_text())["rows_per_generation"]
    edit_json(run / "checkpoint.json", rows_per_generation=counts[:2] + [counts[2] - 1] + counts[3:])
    code, err = resume(run, capsys)
    assert code == 2 and len(err) == 1
    assert "checkpoint.json" in err[0] and f"{counts[2] - 1} rows for generation 2" in err[0]


def test_stray_and_temp_files_are_ignored_by_name_or_cleaned(tmp_path, references, capsys):
    run = run_spec(tmp_path, TEXT.replace("generations = 3", "generations = 2"), "stray")
    individuals = run / "individuals"
    shutil.copy(individuals / "gen-000002.parquet", individuals / "gen-000002.parquet.bak")
    (individuals / "notes.txt").write_text("mine")
    (individuals / ".gen-000003.parquet.x1y2.tmp").write_bytes(b"half")
    (run / ".checkpoint.json.a1b2.tmp").write_text("{")
    code, err = resume(run, capsys, "--generations", "3")
    assert code == 0
    assert any("ignored" in line and "gen-000002.parquet.bak" in line for line in err)
    assert not list(run.rglob("*.tmp"))
    assert (individuals / "gen-000002.parquet.bak").exists() and (individuals / "notes.txt").exists()
    assert sorted(RunDir(run).generation_files()) == [0, 1, 2, 3]
    frame = RunDir(run).read_individuals()
    pd.testing.assert_frame_equal(
        frame.drop(columns=["eval_seconds", "worker"]).astype(str),
        RunDir(references[3]).read_individuals().drop(columns=["eval_seconds", "worker"]).astype(str))


def test_an_unfinished_first_generation_starts_over(tmp_path, references, capsys):
    run = run_spec(tmp_path, TEXT, "fresh")
    for file in (run / "individuals").iterdir():
        file.unlink()
    for name in ("checkpoint.json", "best.json", "generations.parquet"):
        (run / name).unlink()
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
