"""Strategy tables: legal, fast path == slow path, probabilities honoured, one-hot == its agent."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, play, solve
from fitness.nim.agents.mixture import FEATURES, MixtureAgent, feature_size, feature_values
from fitness.nim.genomes import decode
from fitness.nim.space import StateSpace
from tests.strategies import nim_positions

COLUMN_POOL = ["expert", "random", "longest", "gabriele", "sloppy:0.3", "rule-dict", "rule-expert"]


@st.composite
def cases(draw):
    rules, positions, seed = draw(nim_positions())
    rng = np.random.default_rng(seed + 1)
    columns = draw(st.lists(st.sampled_from(COLUMN_POOL), min_size=1, max_size=4, unique=True))
    feature = draw(st.sampled_from(sorted(FEATURES)))
    table = rng.dirichlet(np.ones(len(columns)), size=feature_size(feature, rules))
    table[rng.random(table.shape) < 0.3] = 0.0  # some dead columns
    table[np.arange(len(table)), rng.integers(len(columns), size=len(table))] += 0.1
    player = decode("table", table.tolist(), {"columns": columns, "feature": feature}, rules)
    return rules, positions, seed, player


@settings(max_examples=100, deadline=None)
@given(case=cases())
def test_mixtures_play_legal_moves_on_any_board(case):
    rules, positions, seed, player = case
    rows, takes = player.act(positions, np.random.default_rng(seed))
    assert rules.legal_mask(positions, rows, takes).all()


@settings(max_examples=80, deadline=None)
@given(case=cases())
def test_coded_path_equals_position_path(case):
    rules, positions, seed, player = case
    space = StateSpace(rules.rows)
    slow = player.act(positions, np.random.default_rng(seed))
    fast = player.coded(space).act(space.encode(positions), np.random.default_rng(seed))
    np.testing.assert_array_equal(slow[0], fast[0])
    np.testing.assert_array_equal(slow[1], fast[1])


def test_feature_sizes_and_values():
    rules = Rules.standard(5)
    assert feature_size("nimsum", rules) == 16
    assert feature_size("nimsum", Rules((7, 3))) == 8 and feature_size("nimsum", Rules((8,))) == 16
    assert feature_size("none", rules) == 1 and feature_size("active_rows", rules) == 5
    positions = np.asarray([[1, 3, 5, 7, 9], [0, 0, 0, 0, 9], [1, 2, 4, 8, 0]])
    assert feature_values("nimsum", positions).tolist() == [9, 9, 15]
    assert feature_values("active_rows", positions).tolist() == [4, 0, 3]
    every = StateSpace(rules.rows).all_positions()[1:]
    assert feature_values("nimsum", every).max() < 16
    with pytest.raises(ValueError, match="unknown feature 'parity'; valid features: nimsum"):
        feature_size("parity", rules)


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 3])
def test_one_hot_expert_row_plays_exactly_like_the_expert(k, misere):
    rules = Rules.standard(4, k=k, misere=misere)
    table = np.zeros((feature_size("nimsum", rules), 3))
    table[:, 0] = 1.0
    player = decode("table", table, {"columns": ["expert", "random", "longest"]}, rules)
    positions = StateSpace(rules.rows).all_positions()[1:]
    rows, takes = player(positions, np.random.default_rng(0))
    e_rows, e_takes = agent("expert", rules)(positions, np.random.default_rng(0))
    np.testing.assert_array_equal(rows, e_rows)
    np.testing.assert_array_equal(takes, e_takes)
    # The oracle: from every winning position the move leaves the opponent lost.
    solved = solve(rules)
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    for before, child in zip(positions, after):
        if solved.is_winning(tuple(before)):
            assert not solved.is_winning(tuple(child))


def test_columns_are_drawn_with_the_table_probabilities():
    rules = Rules.standard(5)
    player = MixtureAgent("m", rules, [[0.2, 0.8]], ["gabriele", "longest"], feature="none")
    rows, _ = player(np.tile(rules.rows, (20_000, 1)), np.random.default_rng(1))
    assert abs(np.mean(rows == 0) - 0.2) < 0.015  # gabriele plays row 0, longest row 4


class _TopOfRange:
    """An rng whose uniforms sit just below 1, the edge of every probability row."""

    def random(self, n):
        return np.full(n, np.nextafter(1.0, 0.0))


def test_a_draw_at_the_top_of_a_row_never_picks_a_dead_column():
    rules = Rules.standard(5)
    player = MixtureAgent("m", rules, [[0.1, 0.7, 0.2, 0.0]], ["gabriele", "longest", "expert", "silly"], "none")
    positions = np.asarray([[0, 3, 5, 7, 9]])
    assert player.act(positions, _TopOfRange())[0].tolist() == agent("expert", rules).act(positions, None)[0].tolist()
    space = StateSpace(rules.rows)
    coded = player.coded(space).act(space.encode(positions), _TopOfRange())
    assert coded[0].tolist() == player.act(positions, _TopOfRange())[0].tolist()


def test_table_decoder_rejects_bad_tables():
    rules = Rules.standard(5)
    config = {"columns": ["expert", "random"], "feature": "nimsum"}
    with pytest.raises(ValueError, match=r"shape \(16, 2\)"):
        decode("table", np.ones((4, 2)), config, rules)
    with pytest.raises(ValueError, match=">= 0"):
        decode("table", -np.ones((16, 2)), config, rules)
    zero_row = np.ones((16, 2))
    zero_row[3] = 0
    with pytest.raises(ValueError, match=r"rows \[3\] are all 0"):
        decode("table", zero_row, config, rules)
    with pytest.raises(ValueError, match="columns"):
        decode("table", np.ones((16, 2)), {}, rules)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        decode("table", np.ones((16, 1)), {"columns": ["nobody"]}, rules)


def test_mixture_beats_random_when_it_leans_on_the_expert_and_plays_large_boards():
    rules = Rules.standard(5)
    table = np.tile([0.9, 0.05, 0.05], (16, 1))
    player = decode("table", table, {"columns": ["expert", "random", "longest"]}, rules)
    assert play(player, agent("random", rules), rules, games=4000, seed=3).win_rate_a > 0.9
    big = Rules.standard(8, k=5)
    table = np.full((feature_size("nimsum", big), 2), 0.5)
    player = decode("table", table, {"columns": ["expert", "random"]}, big)
    assert play(player, agent("random", big), big, games=300, seed=0).games == 300


def test_many_columns_are_fine():
    rules = Rules.standard(5)
    table = np.zeros((1, 70))
    table[0, 69] = 1.0
    player = MixtureAgent("m", rules, table, ["gabriele"] * 69 + ["longest"], feature="none")
    positions = StateSpace(rules.rows).all_positions()[1:]
    np.testing.assert_array_equal(player(positions)[0], agent("longest", rules)(positions)[0])
