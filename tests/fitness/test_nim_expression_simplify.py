"""The simplifier folds terms that are one number on every position (issue 44: a report's
"simplified" expression kept `xor_all(vgt(vgt(rows, 0), 2))`, always 0), and a simplified
expression plays the same moves as the original on every position of a board."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules
from fitness.nim.agents.expression import ExpressionAgent
from fitness.nim.expression import Node, compile_expression, parse, simplify, to_string
from fitness.nim.expression.board import Candidates
from fitness.nim.space import StateSpace

from .test_nim_expression import trees

ALWAYS_ZERO = [
    "xor_all(vgt(vgt(rows, 0), 2))",  # a 0/1 vector is never above 2 (the report of issue 44)
    "xor_all(vmod(rows, 1))",
    "sum_all(vmod(rows, 0))",
    "count(veq(vmod(rows, 2), 5))",  # a count over an empty set
    "max_all(vand(veq(rows, 1), 2))",  # a 0/1 vector has no bit 2
    "and_(2, gt(before, 1))",
    "gt(0, count(rows))",
    "lt(sum_all(rows), 0)",
    "lt(before, take)",  # a move takes at most the row
    "gt(take, k)",  # and at most k
    "eq(k, k1)",
    "mod(xor_all(rows), xor_all(rows))",
    "let(vmod(rows, 1), max_all(rows))",  # the body's rows are the binding's
    "mul(sub(take, take), xor_all(rows))",
]

BOARDS = [Rules((1, 3, 5)), Rules((2, 2, 3), k=2), Rules((4, 1), k=3), Rules((1, 2, 3, 4)), Rules((3, 1), k=1),
          Rules((5,), k=2, misere=True)]


def plays_alike(first: Node, second: Node, rules: Rules) -> None:
    """The same score for every move, so the same move, from every position of the board."""
    positions = StateSpace.of(rules.rows).all_positions()[1:]
    candidates = Candidates.of(positions, rules.k)
    scores = [np.broadcast_to(compile_expression(tree)(candidates.context), candidates.take.shape)
              for tree in (first, second)]
    np.testing.assert_array_equal(scores[0], scores[1])
    moves = [ExpressionAgent("x", rules, to_string(tree))(positions) for tree in (first, second)]
    np.testing.assert_array_equal(moves[0][0], moves[1][0])
    np.testing.assert_array_equal(moves[0][1], moves[1][1])


@pytest.mark.parametrize("text", ALWAYS_ZERO)
def test_a_term_that_is_0_on_every_position_is_folded_to_0(text):
    assert to_string(simplify(parse(text))) == "0"
    for rules in BOARDS:
        plays_alike(parse(text), Node("0"), rules)


@pytest.mark.parametrize("text, simplified", [
    ("sub(sub(and_(0, before), xor_all(rows)), xor_all(vgt(vgt(rows, 0), 2)))", "sub(0, xor_all(rows))"),
    ("if_(take, xor_all(rows), before)", "xor_all(rows)"),  # a move always takes something
    ("add(mod(take, k1), xor_all(rows))", "add(take, xor_all(rows))"),  # take < k + 1
    ("count(veq(vand(rows, 2), k1))", "count(veq(vand(rows, 2), k1))"),  # k = 1: rows 2 and 3 count
    ("gt(count(rows), 0)", "gt(count(rows), 0)"),  # the empty board after a winning move
])
def test_what_simplifies_and_what_must_stay(text, simplified):
    assert to_string(simplify(parse(text))) == simplified
    for rules in BOARDS:
        plays_alike(parse(text), parse(simplified), rules)


@settings(max_examples=150, deadline=None)
@given(tree=trees("S", 4), rules=st.sampled_from(BOARDS))
def test_a_simplified_expression_plays_the_same_moves_on_every_position(tree, rules):
    short = simplify(tree)
    assert short.size() <= tree.size()
    plays_alike(tree, short, rules)


@settings(max_examples=100, deadline=None)
@given(tree=trees("S", 3), zero=st.sampled_from(ALWAYS_ZERO), join=st.sampled_from(["add", "sub", "xor", "or_"]))
def test_an_always_zero_term_leaves_nothing_behind(tree, zero, join):
    assert simplify(Node(join, (tree, parse(zero)))) == simplify(tree)
