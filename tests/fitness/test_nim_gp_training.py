"""GP training on several boards, judged by the solver: the whole-board fast path plays the
same moves as the general agent, `let` means substitution, the training-board rates are the
solver's optimal-move rates, and remembered scores change nothing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules
from fitness.nim.agents.base import CodedPolicy
from fitness.nim.agents.expression import ExpressionAgent
from fitness.nim.boards import TrainingBoards
from fitness.nim.exact import optimal_move_rates
from fitness.nim.expression import Node, parse, simplify, to_string
from fitness.nim.expression.language import expand, interpret
from fitness.nim.space import StateSpace
from fitness.tasks import build_task
from operators.expression import random_expression

G = "vmod(rows, k1)"
MISERE = f"let({G}, eq(xor_all(rows), lt(max_all(rows), 2)))"  # the misère rule, bound once


def boards():
    return st.tuples(st.lists(st.integers(0, 9), min_size=1, max_size=4).filter(lambda r: sum(r) > 0),
                     st.one_of(st.none(), st.integers(1, 5)), st.booleans())


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), board=boards(), language=st.sampled_from(["v1", "v2"]))
def test_the_whole_board_fast_path_plays_what_the_agent_plays(seed, board, language):
    rows, k, misere = board
    rules = Rules(tuple(rows), k=k, misere=misere)
    space = StateSpace.of(rules.rows)
    expression = random_expression(np.random.default_rng(seed), 1, 5, language=language)
    fast = ExpressionAgent("x", rules, expression).coded(space).step_table
    slow = CodedPolicy.tabulate(ExpressionAgent("x", rules, expression), space).step_table
    np.testing.assert_array_equal(fast, slow)


def test_let_binds_rows_innermost_first():
    tree = parse("let(vand(rows, 3), let(vmod(rows, 2), sum_all(rows)))")
    assert to_string(expand(tree)) == "sum_all(vmod(vand(rows, 3), 2))"
    assert interpret(tree, [7, 6, 5], 1, 1, 3) == (7 & 3) % 2 + (6 & 3) % 2 + (5 & 3) % 2
    # a binding the body never reads changes nothing; the size counts the genome's own nodes
    assert to_string(expand(parse("let(vgt(rows, 1), add(take, 1))"))) == "add(take, 1)"
    assert parse(MISERE).size() == 11


@pytest.mark.parametrize("k", [None, 2, 3, 4, 5])
def test_the_misere_rule_with_one_binding_is_exact(k):
    for rows in ((1, 3, 5, 7, 9), (2, 2, 6, 6, 13), (4, 10, 1, 7)):
        rules = Rules(rows, k=k, misere=True)
        player = ExpressionAgent("rule", rules, MISERE)
        assert optimal_move_rates([player.distribution(StateSpace.of(rules.rows))], rules)[0] == 1.0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.one_of(st.none(), st.integers(2, 5)), misere=st.booleans())
def test_training_board_rates_are_the_solvers_optimal_move_rates(seed, k, misere):
    rng = np.random.default_rng(seed)
    expressions = [random_expression(rng, 1, 4, language="v2") for _ in range(4)] + [MISERE]
    main_rules = Rules((1, 3, 5), k=k, misere=misere)
    extra = [(2, 5, 7), (1, 1, 2, 4)]
    trees = [parse(e) for e in expressions]
    main = optimal_move_rates([ExpressionAgent("x", main_rules, e).distribution(StateSpace.of(main_rules.rows))
                               for e in expressions], main_rules)
    mean, solved = TrainingBoards(main_rules, extra).rates(trees, main)
    per_board = [main]
    for rows in extra:
        rules = Rules(rows, k=k, misere=misere)
        per_board.append(optimal_move_rates([ExpressionAgent("x", rules, e).distribution(StateSpace.of(rows))
                                             for e in expressions], rules))
    np.testing.assert_allclose(mean, np.mean(per_board, axis=0), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(solved, (np.asarray(per_board) == 1.0).sum(axis=0))
    assert mean[-1] == 1.0 and solved[-1] == 3 or not misere


def test_training_boards_are_refused_when_repeated_or_too_large():
    rules = Rules.standard(3)
    with pytest.raises(ValueError, match="once"):
        TrainingBoards(rules, [(1, 3, 5)])
    with pytest.raises(ValueError, match="too many positions"):
        TrainingBoards(rules, [(40,) * 6])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_remembered_scores_are_the_scores(seed):
    rng = np.random.default_rng(seed)
    pool = [random_expression(rng, 1, 4, language="v2") for _ in range(6)]
    spec = {"problem": "nim", "rows": [1, 3, 5], "k": 3, "misere": True, "genome": {"kind": "expression"},
            "opponents": {"random": "exact"}, "boards": [[2, 6, 3]]}
    task = build_task(spec)
    for _ in range(3):  # chunks mixing new genomes, repeats and genomes seen in earlier chunks
        chunk = [pool[i] for i in rng.integers(len(pool), size=5)]
        remembered = task.evaluate(chunk, [0] * len(chunk))
        fresh = build_task(spec)._evaluate(chunk, [0] * len(chunk))
        assert list(remembered) == list(fresh) == list(task.objectives)
        for name in fresh:
            np.testing.assert_array_equal(remembered[name], fresh[name])
            assert remembered[name].dtype == fresh[name].dtype


def test_simplify_drops_bindings_that_change_nothing():
    assert to_string(simplify(parse("let(rows, sub(0, xor_all(rows)))"))) == "sub(0, xor_all(rows))"
    assert to_string(simplify(parse("let(vgt(rows, 2), add(take, 1))"))) == "add(take, 1)"
    assert simplify(parse(MISERE)) == parse(MISERE)
    assert isinstance(simplify(parse(MISERE)), Node)
