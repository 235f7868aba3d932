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
    (["match", "expert", "random", "--k", "0"], "k must be >= 1"),
    (["match", "expert", "random", "--board", "3,x"], "--board must be comma-separated integers"),
    (["match", "expert", "random", "--games", "0"], "--games must be >= 1"),
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


def _evo(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_version_and_bare_evo_say_what_there_is():
    from importlib import metadata

    done = _evo("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"evo {metadata.version('evo-pipeline')}"
    bare = _evo()
    assert bare.returncode == 2
    for command in ("run", "resume", "report", "match", "play", "bench", "train-rl"):
        assert f"\n    {command} " in bare.stderr
    assert "evo run runs/nim-table.toml" in bare.stderr


@pytest.mark.parametrize("command", ["run", "resume", "report", "match", "play", "bench", "train-rl"])
def test_every_command_describes_itself(command):
    help_text = _evo(command, "--help").stdout
    description = help_text.split("\n\n")[1]  # after the usage block
    assert not description.startswith(("positional arguments", "options")) and len(description) > 40


def test_piped_run_prints_plain_lines_with_whole_paths(tmp_path):
    out = tmp_path / ("a-rather-long-directory-name-" * 3) / "run"
    done = _evo("run", "runs/nim-table.toml", "--generations", "5", "--workers", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stdout and "\x1b[" not in done.stdout  # no redrawn bar, no escape codes
    lines = done.stdout.splitlines()
    assert "(seed 1, 1 Ray worker)" in lines[0]
    progress = [line for line in lines if line.startswith("gen ")]
    assert [line.split(" · ")[0] for line in progress] == [f"gen {g}/5" for g in range(6)]
    assert any(str(out) in line for line in lines[-1:])  # the path whole, on the last line
