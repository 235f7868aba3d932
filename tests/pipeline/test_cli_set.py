"""`evo run SPEC --set KEY=VALUE`: any spec key from the command line, validated like the file."""

import argparse
import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.commands.run import setting

ROOT = Path(__file__).resolve().parents[2]
SPEC = str(ROOT / "runs" / "setcover-scp.toml")


@pytest.mark.parametrize(("text", "expected"), [
    ("population.size=50", ("population.size", 50)),
    ("operators.mutation_rate=0.25", ("operators.mutation_rate", 0.25)),
    ("population.distinct=false", ("population.distinct", False)),
    ("setcover.instance=data/scp41.txt", ("setcover.instance", "data/scp41.txt")),  # a bare word is a string
    ('name="123"', ("name", "123")),
    ("operators.params={ flips = 5.0 }", ("operators.params", {"flips": 5.0})),
    ("nim.rows=[1, 3, 5]", ("nim.rows", [1, 3, 5])),
])
def test_values_are_toml(text, expected):
    assert setting(text) == expected


@pytest.mark.parametrize("text", ["foo", "=3", ".a=1", "a..b=1", "population.size=", "population.size=[1,",
                                  "name='unterminated"])
def test_a_malformed_setting_is_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        setting(text)


def test_a_run_takes_its_settings(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "run"
    code = main(["run", SPEC, "--workers", "0", "--out", str(out), "--set", "generations=1",
                 "--set", "population.size=6", "--set", "population.offspring=4",
                 "--set", "setcover.instance=runs/setcover-scp.txt", "--set", "population.size=8"])
    assert code == 0
    spec = json.loads((out / "run.json").read_text())["spec"]
    assert spec["population"]["size"] == 8 and spec["population"]["offspring"] == 4  # the last one counts
    assert spec["generations"] == 1


@pytest.mark.parametrize(("args", "words"), [
    (["--set", "foo"], "argument --set: expected KEY=VALUE"),
    (["--set", "population.size=[1,"], "population.size: '[1,' is not a TOML value"),
    (["--set", "seed.x=1"], "error: --set seed.x=1: seed is a value, not a section"),
    (["--set", "population.sise=3"], "error: --set population.sise=3: unknown key 'sise' in [population] "
                                     "(did you mean 'size'?)"),
    (["--set", "population.size=ten"], "error: --set population.size=ten: must be an integer (got 'ten')"),
    (["--set", "operators.repair=yes"], 'error: --set operators.repair=yes: must be true, false or "lagrangian"'),
    (["--set", "setcover.instance=nowhere.txt"], "error: --set setcover.instance=nowhere.txt: no such file "
                                                "'nowhere.txt' (looked in the current folder"),
    (["--set", "seed=3", "--seed", "4"], "--set seed=... and --seed both set seed"),
])
def test_a_bad_setting_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, words):
    monkeypatch.chdir(ROOT)
    try:
        code = main(["run", SPEC, "--out", str(tmp_path / "never"), *args])
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert not (tmp_path / "never").exists()
