"""`evo train-rl` end to end on a tiny board, then `evo match rl:PATH`, and its errors."""

import json

import pandas as pd
import pytest

from pipeline.cli import main


def run_cli(args, capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_train_save_curve_table_then_match_through_the_registry(tmp_path, capsys):
    out = tmp_path / "tiny.rlagent"
    code, stdout, err = run_cli(["train-rl", "--board", "1,2,3", "--misere", "--method", "mc",
                                 "--episodes", "3000", "--eval-every", "1000", "--eval-games", "200",
                                 "--final-games", "500", "--opponents", "random=0.5,self=0.5",
                                 "--seed", "4", "--out", str(out)], capsys)
    assert code == 0, err
    stdout = " ".join(stdout.split())  # rich wraps long lines on narrow terminals
    for text in ("mc", "rows=[1, 2, 3] unbounded misère", "3,000 episodes", "random 50%", "self 50%",
                 "win rate", "95% CI", "random", "expert", "winning positions", f"evo match rl:{out} expert"):
        assert text in stdout
    doc = json.loads(out.read_text())
    assert doc["rules"] == {"rows": [1, 2, 3], "k": None, "misere": True}
    assert doc["hyperparameters"]["method"] == "mc" and doc["training"]["seed"] == 4
    curve = pd.read_parquet(tmp_path / "tiny.curve.parquet")
    assert curve["episode"].tolist() == [0, 1024, 2048, 3000]
    for column in ("win_rate_random", "win_rate_expert", "epsilon", "alpha", "states_known"):
        assert column in curve
    assert curve["epsilon"].is_monotonic_decreasing
    import pyarrow.parquet as pq

    metadata = pq.read_metadata(tmp_path / "tiny.curve.parquet").metadata
    assert metadata[b"evo.method"] == b"mc" and metadata[b"evo.seed"] == b"4"
    assert json.loads(metadata[b"evo.opponents"]) == {"random": 0.5, "self": 0.5}
    assert json.loads(metadata[b"evo.hyperparameters"])["method"] == "mc"

    code, stdout, err = run_cli(["match", f"rl:{out}", "expert", "--board", "1,2,3", "--misere",
                                 "--games", "100"], capsys)
    assert code == 0, err
    assert "A moving second won 100.00%" in stdout  # 1,2,3 misère: the opener loses

    code, _, err = run_cli(["match", f"rl:{out}", "expert", "--board", "1,2,3", "--games", "100"], capsys)
    assert code == 2
    assert f"{out}: this agent was trained on rows=[1, 2, 3] unbounded misère, not rows=[1, 2, 3] unbounded normal" in err


def test_the_same_seed_gives_the_same_file(tmp_path, capsys):
    files = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.rlagent"
        assert run_cli(["train-rl", "--rows", "3", "--k", "2", "--episodes", "800", "--final-games", "10",
                        "--eval-games", "10", "--opponents", "random", "--out", str(path),
                        "--curve", str(tmp_path / f"{name}.parquet")], capsys)[0] == 0
        doc = json.loads(path.read_text())
        doc["training"].pop("seconds")
        files.append(doc)
    assert files[0] == files[1]


@pytest.mark.parametrize("args,expected", [
    (["--opponents", "wizard"], "unknown agent 'wizard'"),
    (["--opponents", "random=x"], "not a number"),
    (["--episodes", "0"], "--episodes must be >= 1"),
    (["--alpha", "2"], "alpha must be in (0, 1]"),
    (["--method", "sarsa"], "invalid choice"),
])
def test_bad_options_are_one_line(tmp_path, capsys, args, expected):
    code, _, err = run_cli(["train-rl", "--rows", "2", "--out", str(tmp_path / "x.rlagent"), *args], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0]
