"""Rules validation and the lockstep engine: determinism, alternation, illegal moves."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import IllegalMoveError, Rules, agent, play, solve, wilson_interval
from fitness.nim.agents import Agent


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(rows=()), "must not be empty"),
        (dict(rows=(1, -2)), r"rows\[1\] must be >= 0"),
        (dict(rows=(0, 0)), "all rows are zero"),
        (dict(rows=(1, 2.5)), r"rows\[1\] must be an integer"),
        (dict(rows=(1, 2.0)), "float"),
        (dict(rows=(1, 3), k=0), "k must be >= 1"),
        (dict(rows=(1, 3), k=1.5), "k must be an integer"),
        (dict(rows=(1, True)), "must be an integer"),
        (dict(rows=5), "sequence of integers"),
    ],
)
def test_invalid_rules_name_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Rules(**kwargs)


def test_standard_board():
    assert Rules.standard(5).rows == (1, 3, 5, 7, 9)
    assert Rules.standard(3, k=2, misere=True) == Rules((1, 3, 5), 2, True)
    with pytest.raises(ValueError, match="number of rows"):
        Rules.standard(0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), games=st.integers(0, 300), k=st.one_of(st.none(), st.integers(1, 4)))
def test_play_is_deterministic_for_a_seed(seed, games, k):
    rules = Rules.standard(4, k=k)
    first = play(agent("random", rules), agent("fixed-rules", rules), rules, games, seed)
    again = play(agent("random", rules), agent("fixed-rules", rules), rules, games, seed)
    assert (first.wins_a, first.wins_a_first, first.plies) == (again.wins_a, again.wins_a_first, again.plies)
    assert first.wins_a + first.wins_b == first.games == games


def test_different_seeds_give_different_matches():
    rules = Rules.standard(5)
    results = {play(agent("random", rules), agent("random", rules), rules, 1000, s).plies for s in range(5)}
    assert len(results) > 1


@pytest.mark.parametrize("games", [1, 2, 7, 1000])
@pytest.mark.parametrize("misere,k", [(False, None), (True, None), (False, 3), (True, 3)])
def test_first_mover_alternates(games, misere, k):
    """Perfect players: whoever moves first from a winning start wins, so the
    first player's wins count exactly the games each side started."""
    rules = Rules.standard(5, k=k, misere=misere)
    assert solve(rules).is_winning(rules.rows)
    result = play(agent("expert", rules), agent("minimax", rules), rules, games, seed=0)
    assert result.games_a_first == (games + 1) // 2
    assert result.wins_a == result.wins_a_first == result.games_a_first


def test_big_boards_use_position_arrays_with_the_same_outcomes():
    rules = Rules.standard(9, k=4)  # 185 million positions: too many to tabulate
    result = play(agent("expert", rules), agent("random", rules), rules, 500, seed=2)
    assert result.wins_a_first == result.games_a_first  # the start is winning
    assert result.wins_a == play(agent("expert", rules), agent("random", rules), rules, 500, seed=2).wins_a


class Cheater(Agent):
    def act(self, positions, rng):
        return np.zeros(len(positions), dtype=np.int64), positions[:, 0] + 1


def test_an_illegal_move_raises_naming_agent_and_position():
    rules = Rules.standard(3)
    with pytest.raises(IllegalMoveError, match=r"'cheater'.*take 2.*position \[1, 3, 5\]"):
        play(Cheater("cheater", rules), agent("random", rules), rules, 10, seed=1)
    big = Rules.standard(9)
    with pytest.raises(IllegalMoveError, match="'cheater'"):
        play(agent("random", big), Cheater("cheater", big), big, 10, seed=1)


def test_agents_must_match_the_rules_of_the_match():
    with pytest.raises(ValueError, match="was built for"):
        play(agent("expert", Rules.standard(3)), agent("random", Rules.standard(4)), Rules.standard(4), 5)


def test_bad_game_counts_are_refused():
    rules = Rules.standard(3)
    with pytest.raises(ValueError, match="games must be"):
        play(agent("expert", rules), agent("random", rules), rules, -1)


def test_wilson_interval_contains_the_rate_and_stays_in_bounds():
    low, high = wilson_interval(50, 100)
    assert low < 0.5 < high
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
