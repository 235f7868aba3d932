"""The expert is exact in all four variants: proven position by position by the solver."""

import numpy as np
import pytest

from fitness.nim import Rules, agent, play, solve
from fitness.nim.space import StateSpace


def _apply(positions, rows, takes):
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    return after


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_expert_plays_a_winning_move_from_every_winning_position(n, k, misere):
    rules = Rules.standard(n, k=k, misere=misere)
    table = solve(rules)
    positions = StateSpace(rules.rows).all_positions()[1:]  # every reachable position
    rows, takes = agent("expert", rules)(positions, np.random.default_rng(0))
    winning = table.winning(positions)
    after = _apply(positions, rows, takes)
    assert not table.winning(after[winning]).any(), "a winning position was thrown away"
    # From a losing position: one object off the largest row.
    lost = ~winning
    assert (takes[lost] == 1).all()
    assert (positions[lost, rows[lost]] == positions[lost].max(axis=1)).all()


@pytest.mark.parametrize("rows,k", [((4, 9, 2, 12, 7), 3), ((20, 1, 1, 6), None), ((10, 10, 3), 4)])
@pytest.mark.parametrize("misere", [False, True])
def test_expert_is_exact_on_irregular_boards(rows, k, misere):
    rules = Rules(rows=rows, k=k, misere=misere)
    table = solve(rules)
    positions = StateSpace(rules.rows).all_positions()[1:]
    r, t = agent("expert", rules)(positions, np.random.default_rng(0))
    winning = table.winning(positions)
    assert not table.winning(_apply(positions, r, t)[winning]).any()


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 3])
def test_expert_never_loses_from_a_winning_start(misere, k):
    rules = Rules.standard(5, k=k, misere=misere)
    assert solve(rules).is_winning(rules.rows)
    for opponent in ("random", "expert", "minimax", "sloppy:0.3", "fixed-rules"):
        result = play(agent("expert", rules), agent(opponent, rules), rules, games=2000, seed=3)
        assert result.wins_a_first == result.games_a_first, opponent
