"""Many players in one lockstep match: results independent of the batch, and
the same whether players move together (stacked) or one by one."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, play, solve
from fitness.nim.agents.mixture import MixtureAgent, stack_mixtures
from fitness.nim.population import GameStreams, play_population, stack_tabulated
from fitness.nim.space import StateSpace

RULES = Rules.standard(4, k=3)


def tables(n, seed, columns=("expert", "random", "longest"), rules=RULES):
    rng = np.random.default_rng(seed)
    return [MixtureAgent(f"t{i}", rules, rng.dirichlet(np.ones(len(columns)), size=8), columns) for i in range(n)]


def outcome(results):
    return [(r.wins_a, r.wins_a_first, r.plies) for r in results]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), split=st.integers(1, 5))
def test_a_players_result_does_not_depend_on_who_shares_the_batch(seed, split):
    players = tables(6, seed)
    seeds = [seed + i for i in range(6)]
    opponent = agent("sloppy:0.3", RULES)
    whole = play_population(players, opponent, RULES, 60, seeds)
    parts = (play_population(players[:split], opponent, RULES, 60, seeds[:split])
             + play_population(players[split:], opponent, RULES, 60, seeds[split:]))
    assert outcome(whole) == outcome(parts)


def test_stacked_tables_move_exactly_like_tables_one_by_one():
    players = tables(5, 1)
    seeds = list(range(5))
    space = StateSpace(RULES.rows)
    stacked = stack_mixtures(players, space)
    assert stacked is not None
    opponent = agent("random", RULES)
    assert outcome(play_population(players, opponent, RULES, 80, seeds, stacked=stacked)) == \
        outcome(play_population(players, opponent, RULES, 80, seeds))


def test_stacked_deterministic_players_match_their_own_tables():
    players = [agent(name, RULES) for name in ("expert", "gabriele", "silly", "rule-expert")]
    space = StateSpace(RULES.rows)
    stacked = stack_tabulated(players, space)
    opponent = agent("fixed-rules", RULES)
    seeds = [7, 8, 9, 10]
    assert outcome(play_population(players, opponent, RULES, 100, seeds, stacked=stacked)) == \
        outcome(play_population(players, opponent, RULES, 100, seeds))
    assert stack_tabulated([agent("random", RULES)], space) is None  # not deterministic


@pytest.mark.parametrize("misere", [False, True])
def test_perfect_players_win_every_game_they_start_from_a_winning_board(misere):
    rules = Rules.standard(5, k=2, misere=misere)
    assert solve(rules).is_winning(rules.rows)
    results = play_population([agent("expert", rules), agent("minimax", rules)], agent("random", rules),
                              rules, 101, [1, 2])
    for r in results:
        assert r.games_a_first == 51 and r.wins_a_first == 51


def test_win_rates_agree_with_the_ordinary_engine():
    """Different random numbers, same game: rates within sampling error."""
    rules = Rules.standard(5)
    a, b = agent("sloppy:0.5", rules), agent("random", rules)
    batched = play_population([a] * 4, b, rules, 5000, [11, 12, 13, 14])
    rate = sum(r.wins_a for r in batched) / 20_000
    reference = play(a, b, rules, 20_000, seed=3).win_rate_a
    assert abs(rate - reference) < 0.02


def test_streams_are_uniform_and_independent_per_game():
    streams = GameStreams.for_seeds([5, 6], 50_000)
    ids = np.arange(100_000)
    first, second = streams.for_games(ids).random(100_000), streams.for_games(ids).random(100_000)
    assert 0.0 <= first.min() and first.max() < 1.0
    assert abs(first.mean() - 0.5) < 0.005 and abs(np.corrcoef(first, second)[0, 1]) < 0.02
    assert np.histogram(first, bins=10, range=(0, 1))[0].min() > 9_500
    with pytest.raises(TypeError, match="one number per game"):
        streams.for_games(ids[:3]).random(5)


def test_boards_too_large_to_number_fall_back_to_play():
    rules = Rules.standard(9)
    results = play_population([agent("expert", rules)], agent("random", rules), rules, 40, [3])
    assert results[0].wins_a_first == results[0].games_a_first == 20
