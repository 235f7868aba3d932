"""Malformed specs stop before anything is written, with one line naming the field."""

from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.spec import SpecError, load_spec

GOOD = """
problem = "nim"
seed = 3
generations = 2
[population]
size = 4
offspring = 4
[genome]
kind = "table"
[nim]
standard = 3
opponents = { expert = 10, random = 10 }
[execution]
workers = 0
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


def test_a_good_spec_loads_with_defaults(tmp_path):
    spec = load_spec(write(tmp_path, GOOD))
    assert spec.name == "spec" and spec.population.algorithm == "mu+lambda"
    assert spec.task_spec()["rows"] == [1, 3, 5]
    assert spec.task_spec()["genome"]["columns"] == ["expert", "random", "longest"]


@pytest.mark.parametrize(
    "change,field,allowed",
    [
        (("[population]\nsize = 4", "[population]\nsize = 0"), "population.size", ">= 2"),
        (("seed = 3", "seed = 3\ncolour = 'red'"), "colour", "unknown key"),
        (("generations = 2", "generations = 'many'"), "generations", "integer"),
        (('kind = "table"', 'kind = "tree"'), "genome.kind", "'bitstring', 'rules', 'table', 'expression' or your own 'module:Name'"),
        (("expert = 10", "wizard = 10"), "nim.opponents", "valid agents: random, expert"),
        (("expert = 10", "expert = 0"), "nim.opponents", "must be >= 1"),
        (('problem = "nim"', 'problem = "chess"'), "problem", "'nim', 'setcover' or your own 'module:Name'"),
        (("standard = 3", "rows = [0, 0]"), "nim", "all rows are zero"),
        (("[execution]", "[objectives]\nweights = { win_rate_wizard = 1.0 }\n[execution]"),
         "objectives.weights", "win_rate_expert"),
        (("workers = 0", "workers = 'many'"), "execution.workers", '"auto" or an integer from 0 to 1024'),
        (("workers = 0", "workers = -2"), "execution.workers", '"auto" or an integer'),
        (("workers = 0", "connect_timeout = 0"), "execution.connect_timeout", "must be > 0"),
    ],
)
def test_malformed_specs_name_the_field_and_what_is_allowed(tmp_path, change, field, allowed):
    old, new = change
    assert old in GOOD
    with pytest.raises(SpecError) as info:
        load_spec(write(tmp_path, GOOD.replace(old, new, 1)))
    message = str(info.value)
    assert "\n" not in message
    assert field in message and allowed in message


def test_execution_takes_auto_workers_and_a_connect_timeout(tmp_path):
    spec = load_spec(write(tmp_path, GOOD.replace("workers = 0", "workers = 'auto'\nconnect_timeout = 5")))
    assert spec.execution.workers == "auto" and spec.execution.connect_timeout == 5
    assert load_spec(write(tmp_path, GOOD)).execution.connect_timeout == 30
    assert load_spec(write(tmp_path, GOOD), {"execution.workers": "auto"}).execution.workers == "auto"


def test_setcover_spec_with_a_missing_instance_file(tmp_path):
    text = GOOD.replace('problem = "nim"', 'problem = "setcover"').replace('kind = "table"', 'kind = "bitstring"')
    text = text.replace("[nim]\nstandard = 3\nopponents = { expert = 10, random = 10 }\n",
                        "[setcover]\ninstance = 'nowhere.json'\n")
    with pytest.raises(SpecError, match="setcover.instance: no such file"):
        load_spec(write(tmp_path, text))


def test_not_toml_and_missing_file(tmp_path):
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(write(tmp_path, "problem = = 3"))
    with pytest.raises(SpecError, match="no such spec file"):
        load_spec(tmp_path / "absent.toml")


def test_cli_refuses_a_bad_spec_without_writing_anything(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = write(tmp_path, GOOD.replace("size = 4", "size = -1"))
    assert main(["run", str(spec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "population.size" in err[0]
    assert not (tmp_path / "runs").exists()


def test_shipped_specs_are_valid():
    root = Path(__file__).resolve().parents[2] / "runs"
    specs = sorted(root.glob("*.toml"))
    assert {p.stem for p in specs} >= {"nim-rules", "nim-table", "nim-misere-k3", "setcover-1000"}
    for path in specs:
        load_spec(path)


def test_run_ids_of_runs_made_before_plugins_stay_valid():
    """Resume compares run ids; the keys plug-ins added must not change them while unused.
    46c6fd5365 is what evo computed for this spec before those keys existed."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert load_spec(root / "runs" / "setcover-1000.toml").fingerprint() == "46c6fd5365"
