"""Move-scoring expressions: the compiler agrees with a plain interpreter, simplifying
keeps every score, and the known rule is expressible (so the GP search space holds it)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, solve
from fitness.nim.agents.expression import ExpressionAgent, candidate_moves
from fitness.nim.exact import optimal_move_rates
from fitness.nim.expression import PRIMITIVES, TERMINALS, Context, Node, compile_expression, interpret, parse, \
    simplify, to_string
from fitness.nim.expression.language import UNBOUNDED_K
from fitness.nim.space import StateSpace

G = "vmod(rows, add(k, 1))"  # each row's Grundy value, written in primitives
NORMAL = f"eq(xor_all({G}), 0)"
MISERE = f"if_(gt(max_all({G}), 1), eq(xor_all({G}), 0), eq(mod(sum_all({G}), 2), 1))"


def trees(kind: str, depth: int):
    leaves = [Node(n) for n, t in TERMINALS.items() if t == kind]
    if kind == "S":
        leaves += [Node(str(c)) for c in (0, 1, 2, 3, -1, 7)]
    if depth == 0:
        return st.sampled_from(leaves)
    options = [name for name, (_, result, _) in PRIMITIVES.items() if result == kind]

    @st.composite
    def build(draw):
        if draw(st.integers(0, 3)) == 0:
            return draw(st.sampled_from(leaves))
        name = draw(st.sampled_from(options))
        return Node(name, tuple(draw(trees(a, depth - 1)) for a in PRIMITIVES[name][0]))

    return build()


@st.composite
def candidates(draw):
    rows = draw(st.lists(st.integers(0, 12), min_size=1, max_size=5).filter(lambda r: sum(r) > 0))
    k = draw(st.one_of(st.none(), st.integers(1, 4)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    positions = rng.integers(0, np.asarray(rows) + 1, size=(6, len(rows)))
    positions[0] = rows
    positions = positions[positions.sum(axis=1) > 0]
    return positions, k


def context(positions, k):
    owner, row, take = candidate_moves(positions, k)
    after = positions[owner].copy()
    before = after[np.arange(len(owner)), row]
    after[np.arange(len(owner)), row] -= take
    return Context(after, take, before, UNBOUNDED_K if k is None else k)


@settings(max_examples=150, deadline=None)
@given(tree=trees("S", 4), case=candidates())
def test_compiled_expressions_agree_with_the_plain_interpreter(tree, case):
    ctx = context(*case)
    compiled = np.broadcast_to(compile_expression(tree)(ctx), ctx.take.shape)
    for i in range(len(ctx.take)):
        expected = interpret(tree, ctx.rows[i].tolist(), int(ctx.take[i]), int(ctx.before[i]), ctx.k)
        assert compiled[i] == expected, (to_string(tree), i)


@settings(max_examples=150, deadline=None)
@given(tree=trees("S", 4), case=candidates())
def test_expressions_round_trip_and_simplifying_keeps_every_score(tree, case):
    text = to_string(tree)
    assert to_string(parse(text)) == text
    ctx = context(*case)
    short = simplify(tree)
    assert short.size() <= tree.size()
    np.testing.assert_array_equal(np.broadcast_to(compile_expression(short)(ctx), ctx.take.shape),
                                  np.broadcast_to(compile_expression(tree)(ctx), ctx.take.shape))


def test_simplify_removes_obvious_bloat():
    assert to_string(simplify(parse("add(mul(1, xor_all(rows)), sub(take, take))"))) == "xor_all(rows)"
    assert to_string(simplify(parse("if_(gt(3, 2), n, k)"))) == "n"


@pytest.mark.parametrize("text, message", [
    ("", "non-empty"),
    ("rows", "not a row vector"),
    ("add(1)", "expected ','"),
    ("add(1, rows)", "argument 2 of add must be a number"),
    ("nimsum(rows)", "unknown name 'nimsum'"),
    ("add(1, 2) 3", "unexpected '3'"),
])
def test_bad_expressions_are_refused_with_the_reason(text, message):
    with pytest.raises(ValueError, match=message):
        parse(text)


@pytest.mark.parametrize("rules", [
    Rules.standard(5), Rules.standard(5, k=3), Rules.standard(5, misere=True), Rules.standard(5, k=3, misere=True),
    Rules((2, 2, 6, 6, 13)), Rules.standard(6, k=2, misere=True), Rules((4, 4, 1), k=1), Rules((7,), misere=True),
])
def test_the_known_rule_written_in_primitives_is_exact_in_all_four_variants(rules):
    player = ExpressionAgent("rule", rules, MISERE if rules.misere else NORMAL)
    assert optimal_move_rates([player.distribution(StateSpace.of(rules.rows))], rules)[0] == 1.0
    solved = solve(rules)
    positions = StateSpace.of(rules.rows).all_positions()[1:]
    rows, takes = player(positions)
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    winning = solved.winning(positions)
    empty = after.sum(axis=1) == 0
    keeps = np.where(empty, not rules.misere, ~solved.winning(np.where(empty[:, None], 1, after)))
    assert keeps[winning].all()


def test_ties_go_to_the_lowest_row_then_the_smallest_take():
    rules = Rules((3, 0, 2))
    rows, takes = ExpressionAgent("flat", rules, "1")(np.asarray([[3, 0, 2], [0, 0, 2]]))
    assert rows.tolist() == [0, 2] and takes.tolist() == [1, 1]
    rows, takes = ExpressionAgent("most", rules, "take")(np.asarray([[3, 0, 2]]))
    assert (rows[0], takes[0]) == (0, 3)


def test_an_expression_plays_any_board_with_the_same_rules():
    for rules in (Rules.standard(3), Rules((9, 1, 1, 4)), Rules.standard(7)):
        player = ExpressionAgent("rule", rules, NORMAL)
        positions = np.asarray([rules.rows])
        rows, takes = player(positions)
        assert rules.legal_mask(positions, rows, takes).all()


def every_move_scored(tree: Node, positions: np.ndarray, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The agent's moves as it chose them before issue 18: every candidate of every position
    scored, then a sort (best score, then the lowest row, then the smallest take)."""
    owner, row, take = candidate_moves(positions, k)
    ctx = context(positions, k)
    score = np.broadcast_to(compile_expression(tree)(ctx), owner.shape)
    order = np.lexsort((np.arange(len(owner)), ~score, owner))
    first = np.ones(len(order), dtype=bool)
    first[1:] = owner[order][1:] != owner[order][:-1]
    return row[order[first]], take[order[first]]


@st.composite
def crowded_positions(draw):
    """Positions with many equal rows and permutations of one another: where scoring each
    distinct sorted position once, and mapping the move back, could go wrong."""
    n_rows = draw(st.integers(1, 7))
    k = draw(st.one_of(st.none(), st.integers(1, 4)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    positions = rng.integers(0, draw(st.integers(1, 9)) + 1, size=(30, n_rows))
    shuffled = rng.permuted(positions, axis=1)
    positions = np.concatenate([positions, shuffled, positions[:, ::-1]])
    return positions[positions.sum(axis=1) > 0], k


@settings(max_examples=200, deadline=None)
@given(tree=trees("S", 4), case=crowded_positions())
def test_the_agent_plays_exactly_what_scoring_every_move_picks(tree, case):
    positions, k = case
    if not len(positions):
        return
    expected = every_move_scored(tree, positions, k)
    board = Rules(tuple(int(v) for v in positions.max(axis=0)), k=k)  # remembers sorted positions
    small = Rules((1,) * positions.shape[1], k=k)  # positions beyond its board: no memo, same moves
    player = ExpressionAgent("e", board, to_string(tree))
    half = len(positions) // 2
    for got, wanted in ((player.act(positions[:half], None), (e[:half] for e in expected)),
                        (player.act(positions, None), expected),  # half of it remembered
                        (ExpressionAgent("e", small, to_string(tree)).act(positions, None), expected)):
        for a, b in zip(got, wanted):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=25, deadline=None)
@given(tree=trees("S", 3), seed=st.integers(0, 2**32 - 1))
def test_on_a_large_board_the_coded_moves_are_the_same_position_by_position(tree, seed):
    rules = Rules.standard(7)  # 645,120 positions: looked up lazily, as games reach them
    space = StateSpace.of(rules.rows)
    codes = np.random.default_rng(seed).integers(1, space.size, size=400)
    player = ExpressionAgent("e", rules, to_string(tree))
    for batch in (codes[:150], codes):  # the second batch mixes known and fresh codes
        rows, takes = player.coded(space).act(batch, None)
        expected_rows, expected_takes = every_move_scored(tree, space.decode(batch), None)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(takes, expected_takes)


def test_a_match_on_seven_rows_asks_the_expression_only_about_positions_it_reaches():
    """Issue 18: `evo match best.json expert --rows 7` tabulated the expression over all
    645,120 positions first (19 s); now it is asked about the positions games reach."""
    from fitness.nim import agent, play

    rules = Rules.standard(7)
    asked = []

    class Counting(ExpressionAgent):
        def act(self, positions, rng):
            asked.append(len(positions))
            return super().act(positions, rng)

    result = play(Counting("rule", rules, NORMAL), agent("expert", rules), rules, games=2000, seed=1)
    assert result.wins_a + result.wins_b == 2000
    assert 0 < sum(asked) < 1000


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(-20, 5000), min_size=1, max_size=30), divisor=st.integers(-3, 9),
       varied=st.booleans())
def test_mod_by_table_or_division_is_python_mod_with_mod_zero_zero(values, divisor, varied):
    from fitness.nim.expression.language import _safe_mod

    a = np.asarray(values, dtype=np.int64).reshape(-1, 1).repeat(2, axis=1)  # (rows, m), as `vmod` sees it
    b = np.asarray([[divisor, divisor + 1 if varied else divisor]], dtype=np.int64)
    got = _safe_mod(a, b)
    assert got.shape == a.shape
    for (x, y), value in zip(np.broadcast(a, b), got.ravel()):
        assert value == (x % y if y else 0)


@settings(max_examples=200, deadline=None)
@given(first=trees("S", 4), second=trees("S", 4), case=crowded_positions())
def test_a_board_scores_each_distinct_move_once_and_plays_what_scoring_every_move_picks(first, second, case):
    """`BoardMoves` scores (sorted rows after, take, before) once each, subtrees of `rows`
    alone once per sorted position, and keeps subtree values between expressions."""
    from fitness.nim.expression.board import BoardMoves

    positions, k = case
    if not len(positions):
        return
    board = BoardMoves(positions, k)
    for tree in (first, second, first):
        rows, takes = board.moves(tree)
        expected_rows, expected_takes = every_move_scored(tree, positions, k)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(takes, expected_takes)


@settings(max_examples=150, deadline=None)
@given(rows=st.integers(0, 40), width=st.integers(1, 6), high=st.sampled_from([1, 3, 13, 1000, 2**40]),
       negative=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_unique_rows_are_numpys_distinct_rows_and_map_every_row_back(rows, width, high, negative, seed):
    from fitness.nim.expression.language import unique_rows

    table = np.random.default_rng(seed).integers(-high if negative else 0, high + 1, size=(rows, width))
    unique, inverse = unique_rows(table)
    np.testing.assert_array_equal(unique, np.unique(table, axis=0))
    np.testing.assert_array_equal(unique[inverse], table)
