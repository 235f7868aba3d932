"""Canonical training boards (`[nim] canonical_boards`, `canonical_positions`): an expression's
rate there is, exactly, its rate over the sorted winning positions of the whole board; a sample
is a fixed subset; and the task counts the board like any other."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fitness.nim import Rules
from fitness.nim.boards import TrainingBoards, _board, _canonical_board
from fitness.nim.expression import parse
from fitness.nim.task import NimTask

EXPRESSIONS = ["take", "sub(0, xor_all(rows))", "eq(xor_all(vmod(rows, add(k, 1))), 0)", "max_all(rows)",
               "xor(xor_all(vand(rows, 3)), before)", "sub(count(vgt(rows, 1)), mul(take, xor_all(rows)))",
               "sum_all(vmod(rows, 3))", "gt(before, xor_all(rows))"]
BOARDS = [(1, 2, 4, 6), (2, 2, 3, 5), (1, 3, 5, 7), (3, 3, 3, 4, 6)]


def sorted_rate(tree, rules: Rules) -> float:
    """The oracle: the whole board's verdicts, over its winning positions that are sorted
    (a board given in ascending order: exactly its canonical states)."""
    board = _board(rules)
    chosen = board.moves.best(tree)
    positions = board.moves.context.rows  # after the move; the position itself is before it
    owner = board.moves.candidates.owner
    starts = board.moves.candidates.starts
    before = positions[starts].copy()
    rows, takes = board.moves.candidates.row[starts], board.moves.candidates.take[starts]
    before[np.arange(len(starts)), rows] += takes
    ascending = (np.diff(before, axis=1) >= 0).all(axis=1)
    assert len(owner) == len(board.good)
    return float(board.good[chosen][ascending].mean())


@settings(max_examples=40, deadline=None)
@given(expression=st.sampled_from(EXPRESSIONS), board=st.sampled_from(BOARDS),
       k=st.sampled_from([None, 2, 3, 5]), misere=st.booleans())
def test_the_canonical_rate_is_the_rate_over_the_sorted_positions(expression, board, k, misere):
    rules = Rules(rows=board, k=k, misere=misere)
    tree = parse(expression)
    assert _canonical_board(rules, None).outcome(tree)[0] == pytest.approx(sorted_rate(tree, rules), abs=1e-12)


def test_a_sample_is_a_fixed_subset_of_the_canonical_positions():
    rules = Rules(rows=(2, 4, 5, 7, 9, 11, 12), k=3, misere=True)
    whole, sample = _canonical_board(rules, None), _canonical_board.__wrapped__(rules, 500)
    again = _canonical_board.__wrapped__(rules, 500)
    starts = sample.moves.candidates.starts
    assert len(starts) == 500
    assert np.array_equal(sample.moves.context.rows, again.moves.context.rows)
    mine = {tuple(r) for r in sample.moves.context.rows.tolist()}
    assert mine <= {tuple(r) for r in whole.moves.context.rows.tolist()}


def test_the_task_counts_a_canonical_board_like_any_other():
    spec = {"rows": [1, 3, 5], "k": 3, "misere": True, "genome": {"kind": "expression"},
            "opponents": {"random": "exact"}}
    rule = "eq(xor_all(vmod(rows, add(k, 1))), 0)"  # normal play's rule: wrong in misère somewhere
    plain = NimTask(spec).evaluate([rule], [0])
    extra = NimTask({**spec, "canonical_boards": [[2, 4, 6, 9]]}).evaluate([rule], [0])
    rate = _canonical_board(Rules(rows=(2, 4, 6, 9), k=3, misere=True), None).outcome(parse(rule))[0]
    assert extra["optimal_move_rate"][0] == pytest.approx((plain["optimal_move_rate"][0] + rate) / 2)
    assert extra["boards_solved"][0] == int(plain["optimal_move_rate"][0] == 1.0) + int(rate == 1.0)


def test_a_canonical_board_given_twice_is_refused():
    with pytest.raises(ValueError, match="canonical_boards: each board must be given once"):
        TrainingBoards(Rules(rows=(1, 3, 5)), [], [(2, 4), (2, 4)])


OVERFIT = "mul(if_(xor_all(vmod(rows, k1)), count(veq(rows, k1)), k1), 3)"  # normal k = 4, seed 5 of issue 20
NORMAL_RULE = "eq(xor_all(vmod(rows, add(k, 1))), 0)"


def test_confirming_scores_an_expression_perfect_on_the_sample_on_every_canonical_position():
    """The 4,000-position sample of the shipped spec holds no position where five rows equal 5
    after a move, where OVERFIT errs; confirmed, it is no longer perfect; the rule still is."""
    spec = {"rows": [1, 3, 5, 7, 9], "k": 4, "genome": {"kind": "expression"}, "opponents": {"random": "exact"},
            "boards": [[2, 5, 13], [1, 2, 3, 4, 5, 6], [3, 8, 11, 6]],
            "canonical_boards": [[2, 4, 5, 7, 9, 11, 12]], "canonical_positions": 4000}
    plain = NimTask(spec).evaluate([OVERFIT, NORMAL_RULE], [0, 0])
    confirmed = NimTask({**spec, "canonical_confirm": True}).evaluate([OVERFIT, NORMAL_RULE], [0, 0])
    assert list(plain["boards_solved"]) == [5, 5] and list(plain["optimal_move_rate"]) == [1.0, 1.0]
    assert list(confirmed["boards_solved"]) == [4, 5]
    assert 0.999 < confirmed["optimal_move_rate"][0] < 1.0 == confirmed["optimal_move_rate"][1]


@settings(max_examples=30, deadline=None)
@given(expression=st.sampled_from(EXPRESSIONS + [OVERFIT]), k=st.sampled_from([None, 2, 3, 4]),
       misere=st.booleans(), sample=st.integers(1, 40))
def test_confirming_changes_only_the_scores_of_expressions_perfect_on_every_board(expression, k, misere, sample):
    spec = {"rows": [1, 3, 5], "k": k, "misere": misere, "genome": {"kind": "expression"},
            "opponents": {"random": "exact"}, "canonical_boards": [[2, 3, 5, 6]], "canonical_positions": sample}
    plain = NimTask(spec).evaluate([expression], [0])
    confirmed = NimTask({**spec, "canonical_confirm": True}).evaluate([expression], [0])
    whole = _canonical_board(Rules(rows=(2, 3, 5, 6), k=k, misere=misere), None).outcome(parse(expression))[0]
    if plain["boards_solved"][0] < 2:
        assert confirmed["optimal_move_rate"][0] == plain["optimal_move_rate"][0]
        assert confirmed["boards_solved"][0] == plain["boards_solved"][0]
    else:
        assert confirmed["optimal_move_rate"][0] == pytest.approx((1.0 + whole) / 2)
        assert confirmed["boards_solved"][0] == 1 + int(whole == 1.0)
