"""Settings that would be silently wrong are answered in one line (issue 40, item 4):
`objectives.mode = "pareto"` with an algorithm whose survival is lexicographic (refused,
exit 2), more workers than an embedded Ray on this machine holds (capped, said), and a run
stopped from under it (failed, exit 1)."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.evaluation import capacity, engines
from pipeline.evaluation.local import LocalEvaluator
from pipeline.spec import SpecError, load_spec, parse_spec
from pipeline.spec_notes import resume_notes

ROOT = Path(__file__).resolve().parents[2]
RULES = str(ROOT / "runs" / "nim-rules.toml")
ISLANDS = str(ROOT / "runs" / "setcover-200-islands.toml")


def _refused(capsys, tmp_path, argv: list[str]) -> str:
    """Run `evo` expecting exit 2: the one line on stderr; nothing on stdout, nothing written."""
    out = tmp_path / "never"
    assert main([*argv, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, lines
    assert captured.out == ""  # refused before the start line
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("algorithm", ["mu+lambda", "mu,lambda", "steady-state"])
def test_pareto_with_a_lexicographic_algorithm_is_refused(tmp_path, monkeypatch, capsys, algorithm):
    monkeypatch.chdir(ROOT)
    line = _refused(capsys, tmp_path, ["run", RULES, "--workers", "0", "--set", "objectives.mode=pareto",
                                       "--set", f"population.algorithm={algorithm}"])
    assert "--set objectives.mode=pareto: 'pareto' is not Pareto" in line  # the flag is named
    assert f"population.algorithm = {algorithm!r}" in line and "'nsga2'" in line


def test_pareto_islands_are_refused_with_their_algorithm(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    line = _refused(capsys, tmp_path, ["run", ISLANDS, "--workers", "0", "--set", "objectives.mode=pareto",
                                       "--set", "population.algorithm=steady-state"])
    assert "population.algorithm = 'steady-state'" in line and "lexicographically" in line


def test_pareto_is_kept_with_nsga2_and_lexicographic_with_the_others():
    assert load_spec(RULES, {"objectives.mode": "pareto", "population.algorithm": "nsga2"})
    assert load_spec(RULES, {"objectives.mode": "lexicographic", "population.algorithm": "steady-state"})


def test_a_run_started_with_the_combination_resumes_as_it_began(monkeypatch):
    """run.json of a run started before the refusal still parses (resume, open_run), and says so."""
    monkeypatch.chdir(ROOT)
    recorded = load_spec(RULES, {"objectives.mode": "lexicographic"}).model_dump(mode="json")
    recorded["objectives"]["mode"] = "pareto"
    with pytest.raises(SpecError, match="objectives.mode: 'pareto' is not Pareto"):
        parse_spec(json.loads(json.dumps(recorded)), "run.json", resolved=True)  # a new run: refused
    spec = parse_spec(json.loads(json.dumps(recorded)), "run.json", resolved=True, recorded=True)
    assert spec.objectives.mode == "pareto"
    notes = resume_notes(recorded)
    assert any("goes on as it began" in note and "lexicographically" in note for note in notes), notes
    recorded["population"]["algorithm"] = "nsga2"
    assert not any("lexicographically" in note for note in resume_notes(recorded))


# --- more workers than an embedded Ray on this machine holds -------------------------------------

GIB = 2**30
TABLE = str(ROOT / "runs" / "nim-table.toml")


@pytest.fixture
def small_machine(monkeypatch):
    """A machine with 4 GiB available that would start its own Ray (whatever this test session runs)."""
    monkeypatch.setattr(capacity, "available_memory", lambda: 4 * GIB)
    monkeypatch.setattr(capacity, "_starts_embedded_ray", lambda address: address is None)
    monkeypatch.setattr(engines, "ray_initialized", lambda: False)  # `auto`: the pool, even beside a session Ray
    return capacity.embedded_actor_limit(4 * GIB)


def test_the_limit_follows_available_memory():
    assert capacity.embedded_actor_limit(4 * GIB) == int((4 * GIB * 0.8 - GIB) // capacity.ACTOR_BYTES) == 12
    assert capacity.embedded_actor_limit(GIB // 2) == 1  # always one actor
    assert capacity.embedded_actor_limit(23 * GIB) > capacity.embedded_actor_limit(12 * GIB) > 2


@settings(max_examples=200, deadline=None)
@given(workers=st.integers(1, 1024), others=st.integers(0, 40), gib=st.floats(0.1, 512))
def test_fitted_workers_never_exceed_the_machine_and_never_shrink_what_fits(workers, others, gib):
    available = int(gib * GIB)
    limit = capacity.embedded_actor_limit(available)
    with pytest.MonkeyPatch.context() as patch:  # as if no Ray ran here (an earlier test's may, in this session)
        patch.setattr(capacity, "_starts_embedded_ray", lambda address: address is None)
        fitted, note = capacity.fit_workers(workers, None, others, available=available)
    if workers <= max(1, limit - others):
        assert (fitted, note) == (workers, None)
    else:
        assert fitted == max(1, limit - others) < workers and note is not None
        assert f"execution.workers = {workers}:" in note and f"runs {fitted}" in note and "\n" not in note


def test_a_cluster_and_in_process_keep_any_number(small_machine):
    assert capacity.fit_workers(1000, "127.0.0.1:6379") == (1000, None)
    assert capacity.fit_workers(1000, "auto") == (1000, None)
    assert capacity.fit_workers(0, None) == (0, None)
    assert capacity.fit_workers(small_machine, None) == (small_machine, None)


def test_a_ray_this_process_already_joined_keeps_any_number(monkeypatch):
    import sys
    import types

    monkeypatch.setattr(capacity, "available_memory", lambda: 4 * GIB)
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: True))
    assert capacity.fit_workers(1000, None) == (1000, None)


def test_auto_is_capped_only_where_the_cpus_outnumber_what_memory_holds(small_machine, monkeypatch):
    monkeypatch.setattr(capacity.os, "cpu_count", lambda: 2)
    assert capacity.fit_workers("auto", None) == ("auto", None)
    monkeypatch.setattr(capacity.os, "cpu_count", lambda: 64)
    fitted, note = capacity.fit_workers("auto", None)
    assert fitted == small_machine and "execution.workers = 'auto' (64 CPUs)" in note


def test_evo_run_caps_the_workers_in_one_line_on_stderr(tmp_path, monkeypatch, capsys, small_machine):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "run"
    assert main(["run", TABLE, "--workers", "1000", "--generations", "0", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evo run: execution.workers = 1000: this machine holds about "
                                                   f"{small_machine} Ray actors"), lines
    assert f"{small_machine} worker processes" in captured.out.splitlines()[0]  # the start line says the same
    assert json.loads((out / "run.json").read_text())["spec"]["execution"]["workers"] == small_machine


def test_evo_resume_caps_the_workers_too(tmp_path, monkeypatch, capsys, small_machine):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "run"
    assert main(["run", TABLE, "--workers", "0", "--generations", "0", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["resume", str(out), "--workers", "1000", "--generations", "1"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evo resume: execution.workers = 1000"), err
    assert json.loads((out / "run.json").read_text())["spec"]["execution"]["workers"] == small_machine


def test_the_python_api_warns_and_caps(tmp_path, monkeypatch, small_machine):
    import pipeline
    from pipeline.spec_notes import RunNote

    monkeypatch.chdir(ROOT)
    with pytest.warns(RunNote, match="execution.workers = 1000: this machine holds about"):
        run = pipeline.run(TABLE, workers=1000, generations=0, out=str(tmp_path / "run"))
    assert run.spec.execution.workers == small_machine


# --- a run that something stops from under it --------------------------------------------------

class _StoppedUnder(LocalEvaluator):
    """Scores in-process, but its third wait ends in SystemExit(0), as a Ray pool's `ray.wait` does
    in the driver once Ray is stopped under it (Ray's core raises it there); `workers` says where
    the run thinks it evaluates."""

    def __init__(self, task_spec: dict, workers: int) -> None:
        super().__init__(task_spec)
        self.workers, self.waits = workers, 0

    def wait(self, tickets, every=False, timeout=None):
        self.waits += 1
        if self.waits == 3:
            raise SystemExit(0)
        return super().wait(tickets, every, timeout)


def _stopped_under(monkeypatch, workers: int) -> None:
    import pipeline.runner

    monkeypatch.setattr(pipeline.runner, "make_evaluator",
                        lambda task_spec, **_: _StoppedUnder(task_spec, workers))


def test_ray_stopped_under_a_run_fails_it_with_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    """Simulated at the evaluator's wait (where Ray raises it), not with a real Ray stopped."""
    monkeypatch.chdir(ROOT)
    out = tmp_path / "run"
    _stopped_under(monkeypatch, workers=2)
    assert main(["run", TABLE, "--workers", "2", "--engine", "ray", "--generations", "4", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("evo run: Ray stopped under the run after generation 1 "
                                               "(SystemExit: 0)"), err
    assert f"evo resume {out}" in err[0]
    meta = json.loads((out / "run.json").read_text())
    assert meta["status"] == "failed" and meta["error"].startswith("RunStopped: Ray stopped under the run")
    monkeypatch.undo()
    monkeypatch.chdir(ROOT)
    assert main(["resume", str(out), "--workers", "0"]) == 0  # resumable
    assert json.loads((out / "run.json").read_text())["status"] == "finished"


def test_sys_exit_in_process_is_named_as_such(tmp_path, monkeypatch, capsys):
    import pipeline
    from pipeline.runner import RunStopped

    monkeypatch.chdir(ROOT)
    _stopped_under(monkeypatch, workers=0)
    with pytest.raises(RunStopped, match=r"sys.exit\(0\) was called during the run after generation 1"):
        pipeline.run(TABLE, workers=0, generations=4, out=str(tmp_path / "run"))
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "failed"


def test_a_command_ending_in_system_exit_0_exits_1(monkeypatch, capsys):
    from pipeline.commands import report

    def exits(args):
        raise SystemExit(0)

    monkeypatch.setattr(report, "run", exits)
    assert main(["report", "anywhere"]) == 1
    assert capsys.readouterr().err.strip() == "evo report: error: stopped by SystemExit: 0"
