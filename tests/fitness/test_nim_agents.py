"""Every agent is legal everywhere; fast paths equal slow ones; seed strategies behave as described."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, agent_names, play, solve
from fitness.nim.space import StateSpace
from tests.strategies import nim_positions

ALL_AGENTS = [
    "random", "expert", "minimax", "minimax:1", "minimax:3", "gabriele", "longest",
    "sloppy:0.3", "silly", "single-row", "even-odd", "fixed-rules",
]


@settings(max_examples=80, deadline=None)
@given(case=nim_positions(), name=st.sampled_from(ALL_AGENTS))
def test_every_agent_plays_legal_moves(case, name):
    rules, positions, seed = case
    rows, takes = agent(name, rules).act(positions, np.random.default_rng(seed))
    assert rules.legal_mask(positions, np.asarray(rows), np.asarray(takes)).all()


@settings(max_examples=60, deadline=None)
@given(case=nim_positions(), name=st.sampled_from(ALL_AGENTS))
def test_code_fast_path_equals_position_path(case, name):
    """The engine's tabulated/coded policies must be the very same policy."""
    rules, positions, seed = case
    space = StateSpace(rules.rows)
    player = agent(name, rules)
    coded = player.coded(space)
    if coded is None:
        return
    slow = player.act(positions, np.random.default_rng(seed))
    fast = coded.act(space.encode(positions), np.random.default_rng(seed))
    np.testing.assert_array_equal(np.asarray(slow[0]), np.asarray(fast[0]))
    np.testing.assert_array_equal(np.asarray(slow[1]), np.asarray(fast[1]))


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 2, 3])
@pytest.mark.parametrize("opponent", ALL_AGENTS)
def test_minimax_never_loses_a_game_it_starts_from_a_winning_position(opponent, k, misere):
    for n in (3, 4, 5):
        rules = Rules.standard(n, k=k, misere=misere)
        result = play(agent("minimax", rules), agent(opponent, rules), rules, games=400, seed=n)
        if solve(rules).is_winning(rules.rows):
            assert result.wins_a_first == result.games_a_first
        else:  # the opponent starts lost when minimax moves second
            lost_for_opponent = result.games - result.games_a_first
            if opponent in ("expert", "minimax"):
                assert result.wins_a - result.wins_a_first <= lost_for_opponent


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 2])
def test_deep_enough_lookahead_is_exact(k, misere):
    """Searching past the end of every game, the heuristic is never consulted."""
    rules = Rules((1, 2, 4), k=k, misere=misere)
    table = solve(rules)
    positions = StateSpace(rules.rows).all_positions()[1:]
    rows, takes = agent("minimax:8", rules)(positions, np.random.default_rng(0))
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    assert not table.winning(after[table.winning(positions)]).any()


def test_random_agent_picks_rows_then_counts_uniformly():
    rules = Rules((0, 2, 4), k=3)
    position = np.tile([[0, 2, 4]], (200_000, 1))
    rows, takes = agent("random", rules)(position, np.random.default_rng(1))
    freq = {(r, t): np.mean((rows == r) & (takes == t)) for r, t in
            [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]}
    expected = {(1, 1): 1 / 4, (1, 2): 1 / 4, (2, 1): 1 / 6, (2, 2): 1 / 6, (2, 3): 1 / 6}
    for move, p in expected.items():
        assert abs(freq[move] - p) < 0.005, move
    assert sum(freq.values()) == pytest.approx(1.0)


def _move(name, rows, k=None, misere=False, seed=0):
    rules = Rules(rows=tuple(max(v, 1) for v in rows), k=k, misere=misere)
    r, t = agent(name, rules)(np.asarray([rows]), np.random.default_rng(seed))
    return int(r[0]), int(t[0])


def test_seed_strategies_follow_their_descriptions():
    assert _move("gabriele", (0, 3, 5)) == (1, 3)
    assert _move("gabriele", (0, 3, 5), k=2) == (1, 2)
    assert _move("longest", (1, 7, 5)) == (1, 7)
    assert _move("longest", (1, 7, 5), k=3) == (1, 3)
    assert _move("silly", (4, 0, 2, 3)) == (2, 2)
    assert _move("silly", (4, 0, 6, 5), k=3) == (0, 3)
    # single-row: clears the largest row it can; else leaves a multiple of k+1.
    assert _move("single-row", (2, 7, 3), k=3) == (2, 3)
    assert _move("single-row", (8, 6), k=3) == (1, 2)
    assert _move("single-row", (8, 4), k=3) == (0, 1)
    # even-odd, odd total (43): 5 is the largest size held by an odd number
    # of heaps, and 3 the next size down, so a 5 becomes a 3.
    assert _move("even-odd", (1, 1, 2, 2, 3, 3, 3, 5, 5, 5, 6, 6, 1)) == (7, 2)
    assert _move("even-odd", (4, 2, 6)) == (1, 2)  # even total: smallest heap, all of it
    # fixed-rules: one row left -> one object; two rows with >1 -> leave one.
    assert _move("fixed-rules", (0, 0, 7)) == (2, 1)
    assert _move("fixed-rules", (1, 0, 1, 0)) == (0, 1)
    r, t = _move("fixed-rules", (5, 0, 3, 0))
    assert (r, t) in {(0, 4), (2, 2)}
    assert _move("fixed-rules", (3, 3, 5)) == (2, 2)


def test_sloppy_zero_is_the_expert_and_sloppy_one_is_random():
    rules = Rules.standard(4, k=2, misere=True)
    positions = StateSpace(rules.rows).all_positions()[1:]
    np.testing.assert_array_equal(
        agent("sloppy:0", rules)(positions, np.random.default_rng(2))[1],
        agent("expert", rules)(positions, np.random.default_rng(2))[1],
    )
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    rng_b.random(len(positions))  # sloppy first draws its coin flips
    np.testing.assert_array_equal(
        agent("sloppy:1", rules)(positions, rng_a)[1],
        agent("random", rules)(positions, rng_b)[1],
    )


@pytest.mark.parametrize(
    "name,message",
    [("nobody", "valid agents: random, expert"), ("sloppy:2", "between 0 and 1"),
     ("sloppy:x", "between 0 and 1"), ("minimax:0", "depth D >= 1"), ("expert:3", "takes no parameter")],
)
def test_bad_agent_names_are_explained(name, message):
    with pytest.raises(ValueError, match=message):
        agent(name, Rules.standard(3))


def test_registry_lists_every_name_with_its_parameter():
    names = agent_names()
    for expected in ("random", "expert", "minimax, minimax:D", "sloppy:P", "gabriele", "fixed-rules"):
        assert expected in names
