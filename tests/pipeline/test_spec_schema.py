"""The spec's JSON Schema and reference are current, every shipped spec names the schema and
validates against it, and `evo spec SPEC` prints a spec that runs as the original does."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.cli import main
from pipeline.commands.spec import runnable
from pipeline.kinds import OPERATOR_NAMES
from pipeline.spec import SpecError, load_spec
from pipeline.spec_reference import REFERENCE_PATH
from pipeline.spec_schema import SCHEMA_PATH, run_spec_schema
from pipeline.toml_text import dumps

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted([*ROOT.glob("runs/*.toml"), *ROOT.glob("examples/**/*.toml"), *ROOT.glob("tests/golden/specs/*.toml")])
VALIDATOR = jsonschema.Draft7Validator(json.loads((ROOT / SCHEMA_PATH).read_text()))


def _printed(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_committed_schema_is_current(capsys) -> None:
    """schema/run-spec.json is what `evo spec --schema` prints now (regenerate: that command > the file)."""
    assert (ROOT / SCHEMA_PATH).read_text() == _printed(capsys, "spec", "--schema")
    jsonschema.Draft7Validator.check_schema(run_spec_schema())


def test_committed_reference_is_current(capsys) -> None:
    """docs/spec-reference.md is what `evo spec --reference` prints now."""
    assert (ROOT / REFERENCE_PATH).read_text() == _printed(capsys, "spec", "--reference")


def test_shipped_specs_are_found() -> None:
    assert len(SHIPPED) >= 16 and any("examples" in str(p) for p in SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_spec_names_the_schema_and_validates(path: Path) -> None:
    first = path.read_text().splitlines()[0]
    assert first.startswith("#:schema "), f"{path}: first line must be a #:schema directive"
    assert (path.parent / first.removeprefix("#:schema ").strip()).resolve() == (ROOT / SCHEMA_PATH).resolve()
    data = tomllib.loads(path.read_text())
    errors = [f"{'.'.join(map(str, e.path))}: {e.message}" for e in VALIDATOR.iter_errors(data)]
    assert not errors, errors


def _walk(node: dict, path: str = ""):
    for key, prop in node.get("properties", {}).items():
        yield f"{path}{key}", prop
        yield from _walk(prop, f"{path}{key}.")


def test_every_key_has_a_meaning() -> None:
    missing = [key for key, prop in _walk(run_spec_schema()) if not prop.get("description")]
    assert not missing, f"give these spec fields a description: {missing}"


@pytest.mark.parametrize("data, bad", [
    ({"problem": "nim", "genome": {"kind": "table"}, "populaton": {}}, "populaton"),
    ({"problem": "nim", "genome": {"kind": "table"}, "population": {"algorithm": "mu-lambda"}}, "mu-lambda"),
    ({"problem": "nim", "genome": {"kind": "table"}, "execution": {"workers": -1}}, "-1"),
    ({"problem": "nim", "genome": {"kind": "table"}, "operators": {"mutation": "nope"}}, "nope"),
    ({"problem": "nim", "genome": {"kind": "table"}, "log": {"mlflow": "yes"}}, "yes"),
    ({"problem": "nim"}, "genome"),
])
def test_schema_refuses_what_the_spec_refuses(data: dict, bad: str) -> None:
    errors = list(VALIDATOR.iter_errors(data))
    assert errors and bad in " ".join(e.message for e in errors)


def test_schema_takes_plugins_and_open_sections() -> None:
    data = {"problem": "knapsack:Problem", "problem_options": {"any": [1, 2]},
            "genome": {"kind": "knapsack:Kind", "options": {"p": 0.5}},
            "population": {"algorithm": "my.algos:Mine", "options": {"x": "y"}},
            "operators": {"params": {"rate": 2.0}}, "execution": {"workers": "auto"}}
    assert not list(VALIDATOR.iter_errors(data))


@pytest.mark.parametrize("kind, spec", [("table", "nim-table"), ("rules", "nim-rules"),
                                        ("expression", "nim-gp"), ("bitstring", "setcover-scp")])
@pytest.mark.parametrize("role", ["crossover", "mutation"])
def test_operator_names_are_the_kinds(kind: str, spec: str, role: str, monkeypatch) -> None:
    """kinds.OPERATOR_NAMES (the schema's enums) lists exactly what each kind accepts."""
    monkeypatch.chdir(ROOT)
    with pytest.raises(SpecError, match="valid: ") as refused:
        load_spec(ROOT / "runs" / f"{spec}.toml", {f"operators.{role}": "nope"})
    assert str(refused.value).split("valid: ")[1].split(", ") == list(OPERATOR_NAMES[kind][role])


def _without_none(value):
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_printed_spec_runs_as_the_original(path: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """`evo spec SPEC` prints TOML that validates against the schema and loads to the same spec;
    `--json` is the spec as run.json records it."""
    monkeypatch.chdir(ROOT)
    original = load_spec(path)
    text = _printed(capsys, "spec", str(path))
    assert not list(VALIDATOR.iter_errors(tomllib.loads(text)))
    copy = tmp_path / path.name
    copy.write_text(text)
    assert load_spec(copy) == original
    assert json.loads(_printed(capsys, "spec", str(path), "--json")) == original.model_dump(mode="json")


def test_spec_set_overrides(capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    text = _printed(capsys, "spec", "runs/nim-table.toml", "--set", "population.size=12", "--set", "log.mlflow=true")
    data = tomllib.loads(text)
    assert data["population"]["size"] == 12 and data["log"]["mlflow"] is True
    assert data["sampling"] == {"common_random_numbers": True, "reevaluate": True, "hall_of_fame_games": 20000}


@pytest.mark.parametrize("argv, said", [
    (["spec"], "give a SPEC"),
    (["spec", "--schema", "runs/nim-table.toml"], "--schema describes every spec"),
    (["spec", "runs/nim-table.toml", "--set", "population.sise=3"], "--set population.sise=3: unknown key 'sise'"),
])
def test_spec_command_refusals_are_one_line(argv: list[str], said: str, capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


_scalars = st.one_of(st.booleans(), st.integers(-2**63, 2**63 - 1), st.text(),
                     st.floats(allow_nan=False), st.none())
_keys = st.text(min_size=1, max_size=8)
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner.filter(lambda v: v is not None), max_size=3),
                                                         st.dictionaries(_keys, inner, max_size=3)), max_leaves=8)


@given(st.dictionaries(_keys, _values, max_size=5))
def test_toml_text_round_trips(data: dict) -> None:
    """Whatever plain data `dumps` writes, tomllib reads back (None left out)."""
    assert tomllib.loads(dumps(data)) == _without_none(data)
