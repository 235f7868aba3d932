"""One rule for data paths in a spec: relative to the spec's folder, like plug-ins (issue 44).

A spec run from any folder finds its files; an old spec whose path only the
current folder finds still runs, with a note; a missing file is one line naming
the key, the path as written and where it looked; run.json records the absolute
path (resume from anywhere) while the run id names it by its folder and file name, the same
from any current folder (and as the old rule did from the checkout's root).
"""

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.spec import load_spec, parse_spec

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--set", "population.size=6", "--set", "population.offspring=4"]

SPEC = """problem = "setcover"
generations = 1
[genome]
kind = "bitstring"
[setcover]
instance = "{instance}"
[execution]
workers = 0
"""


def _project(tmp_path: Path, instance: str) -> Path:
    """tmp/specs/x.toml naming `instance`, tmp/specs/near.json and tmp/data/far.json."""
    for folder, name in (("specs", "near.json"), ("data", "far.json")):
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text("[[0, 1], [1, 2], [2, 3], [0, 3]]")
    spec = tmp_path / "specs" / "x.toml"
    spec.write_text(SPEC.format(instance=instance))
    return spec


def test_a_shipped_spec_runs_from_its_own_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT / "runs")
    out = tmp_path / "run"
    assert main(["run", "setcover-scp.toml", "--generations", "1", "--out", str(out), *SMALL]) == 0
    meta = json.loads((out / "run.json").read_text())
    assert meta["spec"]["setcover"]["instance"] == str(ROOT / "runs" / "setcover-scp.txt")  # absolute
    assert "current folder" not in capsys.readouterr().out  # no note: the spec names it as it should

    monkeypatch.chdir(tmp_path)  # resume finds the instance from any folder
    assert main(["resume", str(out), "--generations", "2"]) == 0


def test_the_run_id_names_the_file_as_the_old_rule_did(monkeypatch):
    """The run id (and so the golden logs) is the one the spec had when it named the file from
    the checkout's root: the same trajectory keeps its id."""
    monkeypatch.chdir(ROOT)
    shipped = load_spec(ROOT / "runs" / "setcover-scp.toml")
    data = json.loads(json.dumps(shipped.model_dump(mode="json")))
    data["setcover"]["instance"] = "runs/setcover-scp.txt"
    old = parse_spec(data, resolved=True)  # the path as the spec named it from the checkout's root
    assert shipped.fingerprint() == old.fingerprint()
    assert shipped.path_names == {"setcover.instance": "runs/setcover-scp.txt"}


def test_the_run_id_is_the_same_from_any_folder(tmp_path, monkeypatch):
    """The run id once hashed the data path from the current folder: `cd runs && evo run
    setcover-scp.toml` got another run id than `evo run runs/setcover-scp.toml`."""
    spec = _project(tmp_path, "../data/far.json")
    ids = set()
    for folder in (ROOT, ROOT / "runs", tmp_path, tmp_path / "specs", tmp_path / "data"):
        monkeypatch.chdir(folder)
        shipped, own = load_spec(ROOT / "runs" / "setcover-scp.toml"), load_spec(spec)
        assert shipped.path_names == {"setcover.instance": "runs/setcover-scp.txt"}
        assert own.path_names == {"setcover.instance": "data/far.json"}
        flagged = load_spec(spec, {"setcover.instance": str(tmp_path / "data" / "far.json")})  # absolute: as printed
        ids.add((shipped.fingerprint(), own.fingerprint(), flagged.fingerprint()))
    assert len(ids) == 1
    assert len(set(next(iter(ids))[1:])) == 1  # an absolute path names the same file as a relative one


def test_a_path_relative_to_the_spec_is_found_from_anywhere(tmp_path, monkeypatch):
    spec = _project(tmp_path, "near.json")
    for folder in (tmp_path, tmp_path / "data", ROOT):
        monkeypatch.chdir(folder)
        assert load_spec(spec).setcover.instance == str(tmp_path / "specs" / "near.json")


def test_an_old_spec_naming_a_path_from_the_current_folder_runs_with_a_note(tmp_path, monkeypatch, capsys):
    spec = _project(tmp_path, "data/far.json")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "old"
    assert main(["run", str(spec), "--out", str(out), *SMALL]) == 0
    said = capsys.readouterr().out
    notes = [line for line in said.splitlines() if "setcover.instance" in line]
    assert len(notes) == 1 and "'data/far.json' is read from the current folder" in notes[0]
    assert "'../data/far.json'" in notes[0]
    meta = json.loads((out / "run.json").read_text())
    assert meta["spec"]["setcover"]["instance"] == str(tmp_path / "data" / "far.json")
    data = tomllib.loads(SPEC.format(instance="data/far.json"))
    data.update(name="x", population={"size": 6, "offspring": 4})
    assert meta["run_id"].endswith(parse_spec(data).fingerprint())  # the run id it always had


@pytest.mark.parametrize(("where", "args", "words"), [
    ("spec", [], "x.toml: setcover.instance: no such file 'nowhere.json' (looked in the spec's folder {tmp}/specs "
                 "and the current folder (the old rule) {tmp})"),
    ("flag", ["--set", "setcover.instance=specs/gone.json"],
     "--set setcover.instance=specs/gone.json: no such file 'specs/gone.json' (looked in the current folder {tmp})"),
])
def test_a_missing_file_names_the_key_the_path_and_where_it_looked(tmp_path, monkeypatch, capsys, where, args, words):
    spec = _project(tmp_path, "nowhere.json")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "never"
    assert main(["run", str(spec), "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words.format(tmp=tmp_path) in err[0], err
    assert not out.exists()


def test_a_path_given_on_the_command_line_is_read_from_the_current_folder(tmp_path, monkeypatch):
    spec = _project(tmp_path, "near.json")
    monkeypatch.chdir(tmp_path / "data")
    given = load_spec(spec, {"setcover.instance": "far.json"})
    assert given.setcover.instance == str(tmp_path / "data" / "far.json")


def test_a_moved_run_directory_still_resumes(tmp_path, monkeypatch):
    """run.json holds the absolute instance: the run directory may move, the instance may not."""
    spec = _project(tmp_path, "near.json")
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(spec), "--out", str(tmp_path / "a"), *SMALL]) == 0
    shutil.move(tmp_path / "a", tmp_path / "data" / "b")
    monkeypatch.chdir(ROOT)
    assert main(["resume", str(tmp_path / "data" / "b"), "--generations", "2"]) == 0


def test_the_default_run_directory_is_under_the_current_folder_and_printed_absolute(tmp_path, monkeypatch, capsys):
    """`runs/<name>` is relative to the current folder (as documented): the first and last lines
    say which folder that was, so a user who ran from elsewhere finds the run."""
    spec = _project(tmp_path, "near.json")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert main(["run", str(spec), *SMALL]) == 0
    run = tmp_path / "elsewhere" / "runs" / "x"
    lines = capsys.readouterr().out.splitlines()
    assert (run / "run.json").is_file()
    assert f"→ {run} (seed" in lines[0]
    assert lines[-1].startswith(f"done: {run}  ·") and lines[-1].endswith(f"evo report {run}")
