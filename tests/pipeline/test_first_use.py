"""What a new user trips over (issue 18): start lines that say what will happen, done
lines that say what did, every refusal in one line before anything is printed,
a finished run that is told finished, and reports whose figures read alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import pipeline
from pipeline.cli import main
from pipeline.reporting.summary import fmt

from .test_runs import NIM_SPEC, SETCOVER_SPEC, spec_file

STAGNANT_SPEC = NIM_SPEC.format(generations=40, kind="table", games="\"exact\"") + "[stop]\nstagnation = 1\n"


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- 1. the start line says what will happen, the done line what did -------------------------

@pytest.mark.parametrize("execution, algorithm, islands, expected", [
    ({"workers": 0}, None, None, "in-process, no Ray"),
    ({"workers": 2, "engine": "processes"}, None, None, "2 worker processes on this machine"),
    ({"workers": 2}, None, None, "2 worker processes on this machine"),
    ({"workers": 1}, None, None, "1 worker process on this machine"),
    ({"workers": 2, "engine": "in-process"}, None, None, "in-process, no Ray"),
    ({"workers": 2, "engine": "ray"}, None, None, "in-process; 2 Ray workers on an embedded Ray join only if the run grows past ~30 s"),
    ({"workers": 1, "engine": "ray"}, None, None, "in-process; 1 Ray worker on an embedded Ray joins only if"),
    ({"workers": "auto", "engine": "ray"}, None, None, "in-process; Ray workers (one per CPU) on an embedded Ray join only if"),
    ({"workers": 2, "engine": "ray", "handover": False}, None, None, "2 Ray workers on an embedded Ray (loopback), started now"),
    ({"workers": 2}, None, {"count": 2}, "2 Ray workers on an embedded Ray (loopback), started now"),  # on runners
    ({"workers": 2}, "nsga2", {"count": 2}, "2 Ray workers on an embedded Ray (loopback), started now"),
    ({"workers": 2}, "steady-state", {"count": 2}, "2 worker processes on this machine"),
    ({"workers": 2, "engine": "ray"}, "steady-state", {"count": 2}, "in-process; 2 Ray workers on an embedded Ray join only if"),
    ({"workers": 3, "address": "10.0.0.2:6379"}, None, None, "3 Ray workers on the cluster at 10.0.0.2:6379"),
])
def test_the_start_line_says_where_the_run_will_evaluate(execution, algorithm, islands, expected, monkeypatch):
    from pipeline.commands.run_lines import execution_plan
    from pipeline.spec_islands import on_runners

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr("pipeline.evaluation.engines.ray_initialized", lambda: False)
    assert execution_plan(execution, on_runners(algorithm, islands)).startswith(expected)


def test_a_ray_job_driver_says_it_joins_its_cluster(monkeypatch):
    from pipeline.commands.run_lines import execution_plan

    monkeypatch.setenv("RAY_ADDRESS", "http://127.0.0.1:8265")
    assert execution_plan({"workers": 2}) == "2 Ray workers on the cluster at http://127.0.0.1:8265"


def test_the_done_line_counts_where_the_evaluations_ran():
    from pipeline.commands.run_lines import _where

    embedded = {"workers": 2, "handover": True, "engine": "ray"}
    pool = {"workers": 2, "engine": "auto"}
    assert _where(["local"] * 30, pool) == "30 evaluations, all in-process"
    assert _where(["process-1/7"] * 30, pool) == "30 evaluations, all on worker processes"
    assert _where(["local"] * 10 + ["process-2/8"] * 30, pool) == \
        "40 evaluations, 75% on worker processes (the rest in-process, where that was faster)"
    assert _where(["local"] * 30, {"workers": 0}) == "30 evaluations in-process"
    assert _where(["local"] * 30, embedded).startswith("30 evaluations, all in-process (the embedded Ray starts only")
    assert _where(["actor-1@x/y"] * 30, embedded) == "30 evaluations, all on Ray actors"
    assert _where(["local"] * 10 + ["actor-0@x/y"] * 30, embedded) == \
        "40 evaluations, 75% on Ray actors (the first 10 in-process)"
    assert "99% on Ray actors" in _where(["local"] + ["actor-0@x/y"] * 999, embedded)  # never a false 100%


# -- 2. an output path that is not a directory: one line, exit 2, before anything ------------

def test_out_at_a_regular_file_is_refused_before_the_start_line(tmp_path, capsys):
    spec = spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10))
    regular = tmp_path / "regfile"
    regular.write_text("mine")
    code, out, err = run_cli(["run", str(spec), "--out", str(regular)], capsys)
    assert (code, out) == (2, "")
    assert err == f"evo run: error: {regular}: a regular file, not a run directory; " \
                  "give --out a new path or a run directory\n"
    code, out, err = run_cli(["run", str(spec), "--out", str(regular / "run")], capsys)
    assert (code, out) == (2, "")
    assert f"{regular} is a regular file, not a folder" in err and err.count("\n") == 1
    assert regular.read_text() == "mine"
    with pytest.raises(ValueError, match="a regular file, not a run directory"):
        pipeline.run(spec, out=regular)  # a Path is taken as the string a spec would hold
    code, out, err = run_cli(["resume", str(regular)], capsys)
    assert (code, out) == (2, "") and f"{regular}: a regular file, not a run directory" in err


# -- 3. resuming a finished run says so, why, and how to go on --------------------------------

def _logs(run_dir: Path) -> dict[str, bytes]:
    """Every file of a run but run.json (its `resumed` time) and the lock."""
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*"))
            if p.is_file() and p.name not in ("run.lock", "run.json")}


def test_resume_of_a_run_that_ran_all_its_generations_says_how_to_extend_it(tmp_path, capsys):
    out = tmp_path / "run"
    spec = spec_file(tmp_path, NIM_SPEC.format(generations=2, kind="table", games=10))
    assert run_cli(["run", str(spec), "--out", str(out)], capsys)[0] == 0
    before = _logs(out)
    code, stdout, err = run_cli(["resume", str(out)], capsys)
    assert code == 0, err
    assert stdout.strip() == (f"{out} already finished: it ran all its generations, to generation 2. "
                              f"To go on: evo resume {out} --generations N, with N above 2")
    assert _logs(out) == before  # nothing ran, nothing changed
    assert json.loads((out / "run.json").read_text())["status"] == "finished"
    code, stdout, err = run_cli(["resume", str(out), "--generations", "3"], capsys)
    assert code == 0 and "generation 3 of 3" in stdout.splitlines()[-1]


def test_resume_asked_for_fewer_generations_than_done_is_refused_and_changes_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    spec = spec_file(tmp_path, NIM_SPEC.format(generations=6, kind="table", games=10))
    pipeline.run(spec, out=str(out), on_generation=lambda row: row["generation"] == 4)  # stopped at 4 of 6
    before, meta = _logs(out), json.loads((out / "run.json").read_text())
    code, stdout, err = run_cli(["resume", str(out), "--generations", "2"], capsys)
    assert code == 2 and not stdout
    assert err.strip() == (f"evo resume: error: {out} has already run to generation 4: generations = 2 would run "
                           "nothing; give 4 or more (it was set to run 6)")
    with pytest.raises(ValueError, match="has already run to generation 4"):
        pipeline.resume(out, generations=3)
    assert _logs(out) == before and json.loads((out / "run.json").read_text()) == meta
    code, stdout, err = run_cli(["resume", str(out)], capsys)  # the run as it was set
    assert code == 0 and "generation 6 of 6" in stdout.splitlines()[-1], err
    code, stdout, err = run_cli(["resume", str(out), "--generations", "5"], capsys)  # finished: told so
    assert code == 0 and stdout.startswith(f"{out} already finished: it ran all its generations, to generation 6")
    assert json.loads((out / "run.json").read_text())["spec"]["generations"] == 6


def test_resume_of_a_run_stopped_on_stagnation_says_why_and_goes_on_with_a_new_rule(tmp_path, capsys):
    out = tmp_path / "run"
    spec = spec_file(tmp_path, STAGNANT_SPEC)
    assert run_cli(["run", str(spec), "--out", str(out)], capsys)[0] == 0
    meta = json.loads((out / "run.json").read_text())
    assert meta["stop_reason"] == "stagnation"
    last = int(pd.read_parquet(out / "generations")["generation"].max())
    code, stdout, _ = run_cli(["resume", str(out)], capsys)
    assert code == 0
    assert stdout.startswith(f"{out} already finished at generation {last} of 40: no improvement in 1 "
                             "generations (stop.stagnation). To go on, allow more: ")
    code, again, _ = run_cli(["resume", str(out), "--generations", str(last + 3)], capsys)  # no new rule
    assert code == 0 and again == stdout
    assert json.loads((out / "run.json").read_text())["spec"] == meta["spec"]  # nothing ran, nothing rewritten
    assert f"evo resume {out} --stagnation 2" in stdout and "resuming" not in stdout
    code, stdout, err = run_cli(["resume", str(out), "--stagnation", "40", "--generations", str(last + 2)], capsys)
    assert code == 0, err
    assert f"generation {last + 2} of {last + 2}" in stdout.splitlines()[-1]
    assert json.loads((out / "run.json").read_text())["spec"]["stop"]["stagnation"] == 40


# -- 6. a directory for a spec; --generations 0 ----------------------------------------------

def test_a_directory_given_as_the_spec_is_named_with_the_specs_in_it(tmp_path, capsys):
    (tmp_path / "b.toml").write_text("")
    (tmp_path / "a.toml").write_text("")
    code, out, err = run_cli(["run", str(tmp_path)], capsys)
    assert (code, out) == (2, "")
    assert err == (f"evo run: error: {tmp_path}: a directory, not a spec file; the specs in it: "
                   f"{tmp_path / 'a.toml'}, {tmp_path / 'b.toml'}\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "it holds no spec (*.toml)" in run_cli(["run", str(empty)], capsys)[2]


def test_zero_generations_runs_the_initial_population_and_says_so(tmp_path, capsys):
    spec = spec_file(tmp_path, NIM_SPEC.format(generations=3, kind="table", games=10))
    code, out, err = run_cli(["run", str(spec), "--generations", "0", "--out", str(tmp_path / "run")], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("generations = 0: only the initial population (generation 0) is made and scored")
    assert "generation 0 of 0" in lines[-1]
    assert pd.read_parquet(tmp_path / "run" / "individuals")["generation"].unique().tolist() == [0]



@pytest.mark.parametrize("execution, said", [
    ({"steal": True, "workers": 2}, True),
    ({"steal": True, "workers": 0}, True),
    ({"steal": True, "workers": 4}, True),  # generational islands on actors: their own actors, nothing to steal
    ({"steal": False, "workers": 2}, False),
    ({"workers": 2}, False),
])
def test_a_steal_the_run_cannot_use_is_said_not_ignored(execution, said):
    from pipeline.spec_notes import unused_steal_note

    note = unused_steal_note(execution)
    assert (note is not None) == said
    assert note is None or note.startswith("execution.steal = true is not used here")


@pytest.mark.parametrize("execution, algorithm, why", [
    ({"in_flight": 8, "workers": 4}, "mu+lambda", "mu+lambda waits for each generation"),
    ({"in_flight": 8, "workers": "auto"}, "nsga2", "nsga2 waits for each generation"),
    ({"in_flight": 8, "workers": 0}, "steady-state", "in-process (workers = 0) one child at a time"),
    ({"in_flight": 8, "workers": 4}, "steady-state", None),
    ({"in_flight": 8, "workers": 4}, "mine:Asynchronous", None),  # a plug-in may be asynchronous
    ({"in_flight": 2, "workers": 0}, "nsga2", None),  # the default: nothing asked
    ({"workers": 0}, "nsga2", None),  # an old run's spec, without the key
])
def test_an_in_flight_the_run_cannot_use_is_said_not_ignored(execution, algorithm, why):
    from pipeline.spec_notes import unused_in_flight_note

    note = unused_in_flight_note(execution, algorithm)
    assert (note is not None) == (why is not None)
    assert note is None or (note.startswith("execution.in_flight = 8 is not used here") and why in note)


def test_evo_run_and_resume_say_when_in_flight_is_not_used(tmp_path, capsys):
    from pipeline.spec_notes import unused_in_flight_note

    spec = spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10) + "in_flight = 3\n")
    run = tmp_path / "run"
    code, out, err = run_cli(["run", str(spec), "--out", str(run)], capsys)
    assert code == 0, err
    note = unused_in_flight_note({"in_flight": 3, "workers": 0}, "mu+lambda")
    assert out.splitlines()[1] == note
    code, out, err = run_cli(["resume", str(run), "--generations", "2"], capsys)
    assert code == 0, err
    assert out.splitlines()[1] == note


def test_evo_run_and_resume_say_when_steal_is_not_used(tmp_path, capsys):
    from pipeline.spec_notes import unused_steal_note

    spec = spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10) + "steal = true\n")
    run = tmp_path / "run"
    code, out, err = run_cli(["run", str(spec), "--out", str(run)], capsys)
    assert code == 0, err
    note = unused_steal_note({"steal": True})
    assert out.splitlines()[1] == note  # as written: no part taken for console markup
    code, out, err = run_cli(["resume", str(run), "--generations", "2"], capsys)
    assert code == 0, err
    assert out.splitlines()[1] == note


def test_a_path_with_brackets_is_printed_as_written(tmp_path, capsys):
    """Console markup would take `[islands]` for a style and drop it from the lines a user copies."""
    spec = spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10))
    run = tmp_path / "[islands]" / "run"
    code, out, err = run_cli(["run", str(spec), "--out", str(run)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert f"→ {run} (seed 11, in-process, no Ray)" in lines[0]
    assert lines[-1].startswith(f"done: {run}  ·") and f"evo report {run}" in lines[-1]

# -- 5. train-rl piped: whole lines ----------------------------------------------------------

def test_piped_train_rl_prints_whole_progress_lines(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "train-rl", "--rows", "3", "--episodes", "3000",
                           "--batch", "256", "--final-games", "100", "--eval-games", "100",
                           "--out", str(tmp_path / "a.rlagent")], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, COLUMNS="80"))
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stdout and "\x1b" not in done.stdout and "…" not in done.stdout
    progress = [line for line in done.stdout.splitlines() if line.startswith("episodes ")]
    assert 10 <= len(progress) <= 21
    assert progress[-1].startswith("episodes 3,000/3,000 ") and progress[-1].endswith(" s")
    assert all(" states " in line for line in progress)


# -- 7. the report: one way per number, each genome once ------------------------------------

def test_a_number_reads_the_same_from_best_json_and_from_parquet():
    import numpy as np

    assert fmt(1000) == fmt(1000.0) == fmt(np.int64(1000)) == fmt(np.float64(1000.0)) == "1,000"
    assert fmt(3150.25) == "3,150.2" and fmt(0.93871) == "0.9387" and fmt(True) == "True"


def test_setcover_summary_row_reads_alike_in_every_column(tmp_path):
    run = pipeline.run(spec_file(tmp_path, SETCOVER_SPEC.replace("N = 100", "N = 1000")), out=str(tmp_path / "run"))
    run.report()
    row = next(line for line in (tmp_path / "run" / "report" / "summary.md").read_text().splitlines()
               if line.startswith("| covered |"))
    assert row == "| covered | 1,000 | 1,000 | 1,000 |"  # an int in best.json, floats in generations.parquet


def test_identical_genomes_in_the_hall_of_fame_are_listed_once(tmp_path):
    run = pipeline.run(spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10)),
                       out=str(tmp_path / "run"))
    best = json.loads((tmp_path / "run" / "best.json").read_text())
    seen: dict[str, dict] = {}
    for entry in best["hall_of_fame"]:  # distinct genomes only, to start from
        seen.setdefault(json.dumps(entry["genome"]), entry)
    hall = list(seen.values())
    assert len(hall) >= 2
    twins = [dict(hall[0], id=900 + i) for i in range(3)]  # the same genome, made again under new ids
    best["hall_of_fame"] = hall[:1] + twins + hall[1:]
    (tmp_path / "run" / "best.json").write_text(json.dumps(best))
    table = run.best(None)
    assert table["id"].tolist() == [e["id"] for e in hall]
    assert table["copies"].iloc[0] == [900, 901, 902] and table["copies"].iloc[1] == []
    assert run.agent(1).name.endswith(f"#{hall[1]['id']}")  # ranks count distinct genomes, as best() does
    for rank in (len(hall), -1):  # once "not a readable best.json (list index out of range)", or the last
        with pytest.raises(ValueError, match=f"rank {rank}: .* holds {len(hall)} distinct genomes: ranks 0 to "):
            run.agent(rank)
    run.report()
    summary = (tmp_path / "run" / "report" / "summary.md").read_text()
    assert f"best.json holds {len(hall) + 3} entries: {len(hall)} distinct genomes" in summary
    assert "| 3 (ids 900, 901, 902) |" in summary and "| 900 |" not in summary


def test_the_python_api_gives_the_cli_notes_as_warnings(tmp_path):
    """A notebook hears what `evo run` and `evo resume` print: a key the run will not use, and
    each file resume repaired (these used to be said by the CLI only)."""
    from pipeline import RunNote
    from pipeline.spec_notes import unused_steal_note

    steal = unused_steal_note({"steal": True})
    spec = spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10) + "steal = true\n")
    with pytest.warns(RunNote) as caught:
        run = pipeline.run(spec, out=tmp_path / "run")
    assert [str(w.message) for w in caught] == [steal]
    checkpoint = run.path / "checkpoint.json"
    checkpoint.write_text("{not json")
    with pytest.warns(RunNote) as caught:
        pipeline.resume(run.path, generations=2)
    said = [str(w.message) for w in caught]
    assert said[0] == steal
    assert len(said) == 2 and said[1].startswith("repaired: ") and "checkpoint.json" in said[1]
    assert all(w.filename == __file__ for w in caught)  # pointed at the caller's line


def test_the_python_api_notes_zero_generations(tmp_path):
    from pipeline import RunNote

    spec = spec_file(tmp_path, NIM_SPEC.format(generations=1, kind="table", games=10))
    with pytest.warns(RunNote, match="generations = 0: only the initial population"):
        pipeline.run(spec, out=tmp_path / "run", generations=0)
