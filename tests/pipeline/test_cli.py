"""The CLI as a person meets it: evo match tables and errors, evo play's dialogue."""

import subprocess
import sys

import pytest

from pipeline.cli import main


def test_match_prints_wins_rate_interval_and_speed(capsys):
    assert main(["match", "expert", "random", "--rows", "5", "--k", "3", "--misere",
                 "--games", "2000", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for text in ("k=3 misère", "2,000 games", "games/s", "win rate", "95% CI", "A: expert", "B: random"):
        assert text in out


@pytest.mark.parametrize("args,expected", [
    (["match", "wizard", "random"], "valid agents: random, expert, minimax"),
    (["match", "expert", "random", "--k", "0"], "--k: must be >= 1, got 0"),
    (["match", "expert", "random", "--board", "3,x"], "--board: must be comma-separated integers"),
    (["match", "expert", "random", "--games", "0"], "--games: must be >= 1, got 0"),
    (["match", "expert", "random", "--rows", "many"], "invalid int value"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_naming_what_is_valid(args, expected, capsys):
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0]


def _play(stdin: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_play_refuses_illegal_input_politely_and_finishes_the_game():
    # Board 1,2: the person moves first; take the whole 2-row -> expert takes the last, or vice versa.
    out = _play("hello\n5 1\n0 0\n1 3\n1 2\n0 1\n", "expert", "--board", "1,2")
    assert "please type two whole numbers" in out
    assert "there is no row 5" in out
    assert "at least one object" in out
    assert "row 1 only has 2" in out
    assert "row 0:" in out and "|" in out  # the board is drawn
    assert "wins" in out.lower()


def test_play_against_the_expert_from_a_losing_start_is_lost():
    # 1,1 is a losing start for the mover in normal play: whatever the person does, the expert wins.
    out = _play("0 1\n", "expert", "--board", "1,1")
    assert "expert wins" in out


def test_play_quits_on_eof_or_q():
    assert "bye" in _play("q\n", "random", "--rows", "3")
    assert "bye" in _play("", "random", "--rows", "3")

