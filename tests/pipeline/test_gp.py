"""The shipped GP spec end to end: evolution finds a perfect expression, the report
prints it, and the agent plays boards it never saw (same k and rule only)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from fitness.nim import Rules
from fitness.nim.exact import optimal_move_rates
from fitness.nim.space import StateSpace
from pipeline.cli import main
from pipeline.hall_of_fame import load_agent
from pipeline.runner import start_run
from pipeline.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]


def test_gp_spec_evolves_a_perfect_board_independent_expression(tmp_path, capsys):
    spec = load_spec(ROOT / "runs/nim-gp.toml", {"execution.workers": 0, "generations": 6,
                                                  "execution.output": str(tmp_path / "gp")})
    out = start_run(spec)
    individuals = pd.read_parquet(out / "individuals")
    assert (individuals["size"] == individuals["genome"].map(lambda g: g.count("(") + g.count(",") + 1)).all()
    best = json.loads((out / "best.json").read_text())
    assert best["kind"] == "expression" and best["hall_of_fame"][0]["objectives"]["optimal_move_rate"] == 1.0
    for rules in (Rules((2, 2, 6, 6, 13)), Rules.standard(6), Rules((11, 4))):  # boards it never saw
        player = load_agent(out / "best.json", rules)
        assert optimal_move_rates([player.distribution(StateSpace.of(rules.rows))], rules)[0] == 1.0
    assert main(["report", str(out)]) == 0
    assert "best expression, simplified:" in capsys.readouterr().out
    assert main(["match", str(out / "best.json"), "random", "--board", "3,9,4", "--games", "200"]) == 0
    capsys.readouterr()
    assert main(["match", str(out / "best.json"), "random", "--k", "2"]) == 2
    assert "play it with neither --k nor --misere" in capsys.readouterr().err
