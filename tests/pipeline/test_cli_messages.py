"""What `evo` says when something is off (issue 44): the flag blamed for a flag's error,
refusals before the start line, the resume hint after Ctrl-C, honest counts and
rates after a resume, run directories as agents, and "did you mean"."""

import json
import re
from pathlib import Path

import pytest

from pipeline.cli import main

ROOT = Path(__file__).resolve().parents[2]
TABLE = str(ROOT / "runs" / "nim-table.toml")
SMALL = ["--workers", "0", "--set", "population.size=6", "--set", "population.offspring=4"]


def _code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exit_:  # argparse's own errors
        return exit_.code


@pytest.fixture(scope="module")
def table_run(tmp_path_factory) -> Path:
    """A finished two-generation nim-table run."""
    out = tmp_path_factory.mktemp("runs") / "nim-table"
    assert main(["run", TABLE, "--generations", "2", "--out", str(out), *SMALL]) == 0
    return out


@pytest.mark.parametrize(("args", "said"), [
    (["--workers", "-1"], '--workers: must be "auto" or an integer from 0 to 1024 (got -1)'),
    (["--generations", "-1"], "--generations: must be >= 0 (got -1)"),
    (["--set", "population.sise=50"], "--set population.sise=50: unknown key 'sise' in [population] "
                                      "(did you mean 'size'?)"),
    (["--set", "generashuns=5"], "--set generashuns=5: unknown key 'generashuns' (did you mean 'generations'?)"),
])
def test_a_flag_error_names_the_flag_not_the_spec(tmp_path, capsys, args, said):
    out = tmp_path / "never"
    assert _code(["run", TABLE, "--out", str(out), *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [f"evo run: error: {said}"]
    assert captured.out == "" and not out.exists()


def test_a_spec_error_still_names_the_spec(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text(Path(TABLE).read_text().replace("[population]", "[population]\nsise = 3"))
    assert _code(["run", str(spec), "--workers", "0", "--out", str(tmp_path / "never")]) == 2
    assert f"{spec}: population.sise: unknown key; did you mean 'size'?" in capsys.readouterr().err


def test_a_resume_flag_error_names_the_flag(table_run, capsys):
    assert _code(["resume", str(table_run), "--workers", "-1"]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        'evo resume: error: --workers: must be "auto" or an integer from 0 to 1024 (got -1)']
    assert captured.out == ""


def test_a_directory_holding_another_run_is_refused_before_the_start_line(table_run, capsys):
    before = (table_run / "run.json").read_text()
    assert _code(["run", TABLE, "--out", str(table_run), *SMALL]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no "nim-table → ..." line
    assert captured.err.strip().splitlines() == [f"evo run: error: {table_run} already holds a run; use "
                                                 f"`evo resume {table_run}` or --force to overwrite"]
    assert (table_run / "run.json").read_text() == before


@pytest.mark.parametrize("command", ["run", "resume"])
def test_a_live_run_is_refused_before_the_start_line(table_run, capsys, command):
    from pipeline.records.lock import RunLock

    argv = ["run", TABLE, "--out", str(table_run), "--force", *SMALL] if command == "run" \
        else ["resume", str(table_run), "--generations", "3"]
    with RunLock(table_run):  # another process's lock, as flock sees it: another open file
        assert _code(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "another evo process" in err[0] and "is writing this run directory" in err[0]


def test_ctrl_c_says_how_to_resume(tmp_path, monkeypatch, capsys):
    from pipeline.progress import RunProgress

    def interrupt(self, row):
        if row["generation"] == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(RunProgress, "on_generation", interrupt)
    out = tmp_path / "nim table"
    assert main(["run", TABLE, "--generations", "3", "--out", str(out), *SMALL]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"evo run: interrupted; `evo resume '{out}'` continues it"]
    monkeypatch.undo()
    assert main(["resume", str(out)]) == 0


def test_after_a_resume_the_done_line_counts_the_whole_log_and_this_part(tmp_path, capsys):
    import pandas as pd

    out = tmp_path / "run"
    assert main(["run", TABLE, "--generations", "2", "--out", str(out), *SMALL]) == 0
    logged_before = len(pd.read_parquet(out / "individuals"))
    capsys.readouterr()
    assert main(["resume", str(out), "--generations", "4"]) == 0
    done = capsys.readouterr().out.strip().splitlines()[-1]
    total = len(pd.read_parquet(out / "individuals"))
    said = f"  ·  {total:,} evaluations ({total - logged_before:,} in this resume) in-process"
    assert re.search(re.escape(said) + r"( \(first evaluation after [0-9.]+ s\))?  ·  ", done), done


def test_the_rate_counts_only_this_process(monkeypatch, capsys):
    """A resume's first line: the evaluations it made over its own seconds, not the log's."""
    import pipeline.progress as progress

    now = [100.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    bar = progress.RunProgress(live=False)
    bar.on_start(10, 6, "fitness", evaluations=100_000)
    now[0] = 102.0
    bar.on_generation({"generation": 6, "evaluations": 100_100, "wall_seconds": 0.001})
    now[0] = 104.0
    bar.on_generation({"generation": 7, "evaluations": 100_200, "wall_seconds": 0.001})
    lines = capsys.readouterr().out.splitlines()
    assert "gen 6/10  50 evals/s" in lines[1] and "gen 7/10  50 evals/s" in lines[2]


def test_the_help_and_the_done_line_say_the_handover_rule(capsys):
    from pipeline.commands.run_lines import _where

    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--workers local processes" in text and "over ~30 s evaluating" in text
    said = _where(["local"] * 30, {"workers": 2, "handover": True, "engine": "ray"})
    assert "Ray starts only once the evaluation still to do is expected to take over ~30 s" in said


def test_a_folder_of_runs_is_named_as_such(table_run, capsys):
    assert _code(["resume", str(table_run.parent)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert f"{table_run.parent} is a folder of runs, not a run directory: did you mean {table_run}?" in err[0]


@pytest.mark.parametrize("given", ["dir", "best.json"])
def test_a_run_directory_plays_as_an_agent(table_run, monkeypatch, capsys, given):
    monkeypatch.chdir(table_run.parent)
    agent = "nim-table" if given == "dir" else "nim-table/best.json"
    assert main(["match", agent, "expert", "--games", "200"]) == 0
    assert f"A: {agent}" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "said"), [
    (["match", "expret", "random"], "unknown agent 'expret'; did you mean 'expert'?"),
    (["match", "expert", "random", "--rows", "0"], "--rows: must be >= 1, got 0"),
    (["match", "expert", "random", "--board", "3,-1"], "--board: rows[1] must be >= 0, got -1"),
    (["run", "runs/nim-tabel.toml"], "runs/nim-tabel.toml: no such spec file; did you mean runs/nim-table.toml?"),
    (["run", "nim-table.toml"], "nim-table.toml: no such spec file; did you mean runs/nim-table.toml?"),
])
def test_did_you_mean_and_flags_named(monkeypatch, capsys, args, said):
    monkeypatch.chdir(ROOT)
    assert _code(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err
