"""Specs are taken literally: no type coercion, no section or key that the
problem or genome kind would ignore, no board the exact solver cannot hold."""

from __future__ import annotations

import json
import time

import pytest

from pipeline.cli import main
from pipeline.spec import SpecError, load_spec

from .test_spec import GOOD, write

SETCOVER = """
problem = "setcover"
[genome]
kind = "bitstring"
[setcover]
N = 50
[execution]
workers = 0
"""


@pytest.mark.parametrize("old,new,expected", [
    ("standard = 3", 'standard = 3\nmisere = "yes"', "nim.misere: must be true or false (got 'yes')"),
    ("standard = 3", "standard = 3\nmisere = 1", "nim.misere: must be true or false (got 1)"),
    ("size = 4", 'size = "10"', "population.size: must be an integer (got '10')"),
    ("size = 4", "size = 4.0", "population.size: must be an integer (got 4.0)"),
    ("generations = 2", "generations = true", "generations: must be an integer (got True)"),
    ("workers = 0", "workers = false", "execution.workers: must be \"auto\" or an integer from 0 to 1024 (got False)"),
    ("standard = 3", "standard = 3\nrows = [1, 2]", "nim.rows, nim.standard: give one of them, not both"),
    ('kind = "table"', 'kind = "table"\ninit = "sparse"',
     "genome.init: does not apply to a 'table' genome; allowed: kind, columns, feature"),
    ('kind = "table"', 'kind = "rules"\ncolumns = ["expert"]',
     "genome.columns: does not apply to a 'rules' genome; allowed: kind, agent"),
    ("[execution]", "[setcover]\nN = 10\n[execution]", "setcover: a [setcover] section does not apply to problem = 'nim'"),
    ("size = 4", "sise = 4", "population.sise: unknown key; did you mean 'size'? allowed: size, offspring, algorithm"),
    ("seed = 3", "seed = 3\ngenerashuns = 3", "generashuns: unknown key; did you mean 'generations'?"),
    ("standard = 3", "rows = [60, 60, 60, 60, 60, 60, 60, 60, 60, 60]\nopponents = { minimax = 10 }\n[x]",
     "nim.opponents: agent 'minimax': the exact solver is too large here"),
])
def test_coerced_ignored_or_infeasible_specs_are_refused_in_one_line(tmp_path, old, new, expected):
    text = GOOD.replace(old, new, 1)
    if "[x]" in new:  # replace the section's opponents line by the new one
        text = text.replace("[x]\nopponents = { expert = 10, random = 10 }\n", "")
    with pytest.raises(SpecError) as info:
        load_spec(write(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message and expected in message, message


def test_floats_still_take_integers(tmp_path):
    spec = load_spec(write(tmp_path, GOOD.replace("[nim]", "[operators]\ncrossover_rate = 0\nmutation_rate = 1\n[nim]")))
    assert spec.operators.mutation_rate == 1.0 and isinstance(spec.operators.mutation_rate, float)


def test_a_nim_section_in_a_setcover_spec_is_refused(tmp_path):
    assert load_spec(write(tmp_path, SETCOVER)).problem == "setcover"
    with pytest.raises(SpecError, match="nim: a \\[nim\\] section does not apply to problem = 'setcover'"):
        load_spec(write(tmp_path, SETCOVER + "[nim]\nstandard = 3\n"))
    with pytest.raises(SpecError, match="genome.init: does not apply"):
        load_spec(write(tmp_path, GOOD.replace('kind = "table"', 'kind = "table"\ninit = "greedy"')))


def test_an_infeasible_board_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = GOOD.replace("standard = 3", "rows = [60, 60, 60, 60, 60, 60, 60, 60, 60, 60]").replace(
        "expert = 10", "minimax = 10")
    started = time.monotonic()
    assert main(["run", str(write(tmp_path, text))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "canonical states" in err[0] and "minimax:D" in err[0]
    assert time.monotonic() - started < 10
    assert not (tmp_path / "runs").exists()


def test_resume_reads_run_json_specs_that_spell_out_every_key(tmp_path):
    """run.json records the resolved spec (every genome key): that is not an inapplicable key."""
    from pipeline.spec import parse_spec

    spec = load_spec(write(tmp_path, GOOD))
    data = json.loads(json.dumps(spec.model_dump(mode="json")))
    assert parse_spec(data, "run.json", resolved=True) == spec
    with pytest.raises(SpecError, match="does not apply to a 'table' genome"):
        parse_spec(data, "run.json")  # a user's spec with those keys would be refused
