"""Settings that would be silently wrong are answered in one line (issue 40, item 4):
`objectives.mode = "pareto"` with an algorithm whose survival is lexicographic."""

import json
from pathlib import Path

import pytest

from pipeline.cli import main
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
    assert "objectives.mode: 'pareto' is not Pareto" in line
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
