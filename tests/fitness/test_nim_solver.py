"""The exact solver against a plain recursive search, and the theory against the solver."""

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, canonical, is_p_position, solve
from fitness.nim.space import StateSpace


def recursive_winner(rules: Rules):
    """Textbook memoised minimax on raw tuples: the slow, obviously right oracle."""

    @lru_cache(maxsize=None)
    def wins(position: tuple) -> bool:
        if sum(position) == 0:
            return rules.misere
        for r, v in enumerate(position):
            limit = v if rules.k is None else min(v, rules.k)
            for take in range(1, limit + 1):
                child = position[:r] + (v - take,) + position[r + 1:]
                if not wins(child):
                    return True
        return False

    return wins


boards = st.lists(st.integers(0, 6), min_size=1, max_size=4).filter(lambda r: sum(r) > 0)
bounds = st.one_of(st.none(), st.integers(1, 5))


@settings(max_examples=60, deadline=None)
@given(board=boards, k=bounds, misere=st.booleans())
def test_solver_agrees_with_recursive_search_on_every_position(board, k, misere):
    rules = Rules(rows=tuple(board), k=k, misere=misere)
    oracle = recursive_winner(rules)
    positions = StateSpace(rules.rows).all_positions()[1:]
    expected = np.array([oracle(tuple(int(v) for v in p)) for p in positions])
    assert (solve(rules).winning(positions) == expected).all()


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("k", [None, 2, 3])
@pytest.mark.parametrize("misere", [False, True])
def test_solver_on_standard_boards(n, k, misere):
    rules = Rules.standard(n, k=k, misere=misere)
    oracle = recursive_winner(rules)
    positions = StateSpace(rules.rows).all_positions()[1:]
    expected = np.array([oracle(tuple(int(v) for v in p)) for p in positions])
    assert (solve(rules).winning(positions) == expected).all()


def test_empty_board_value_depends_on_variant():
    assert not solve(Rules((1, 2))).is_winning((0, 0))
    assert solve(Rules((1, 2), misere=True)).is_winning((0, 0))


def test_canonical_sorts_and_drops_empty_rows():
    assert canonical((3, 0, 1, 3)) == (1, 3, 3)
    table = solve(Rules.standard(4))
    assert table.is_winning((0, 3, 5, 1)) == table.is_winning((5, 1, 3, 0))


def test_solver_labels_canonical_states_only():
    table = solve(Rules.standard(5))
    states, labels = table.states()
    assert (np.diff(states, axis=1) >= 0).all()  # every state is sorted
    assert len({tuple(s) for s in states}) == table.n_states
    assert table.n_losing == int((~labels).sum())


def test_best_move_leads_to_a_losing_position_from_every_winning_one():
    rules = Rules.standard(4, k=3, misere=True)
    table = solve(rules)
    positions = StateSpace(rules.rows).all_positions()[1:]
    rows, takes = table.best_moves(positions)
    assert rules.legal_mask(positions, rows, takes).all()
    after = positions.copy()
    after[np.arange(len(after)), rows] -= takes
    winning = table.winning(positions)
    assert not table.winning(after[winning]).any()


def test_solver_rejects_positions_off_the_board():
    table = solve(Rules.standard(3))
    with pytest.raises(ValueError, match="not reachable"):
        table.is_winning((9, 9, 9))


def test_solve_is_cached_per_variant():
    assert solve(Rules.standard(5, k=2)) is solve(Rules.standard(5, k=2))
    assert solve(Rules.standard(5, k=2)) is not solve(Rules.standard(5, k=2, misere=True))


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_closed_form_theory_matches_the_solver(n, k, misere):
    rules = Rules.standard(n, k=k, misere=misere)
    positions = StateSpace(rules.rows).all_positions()
    assert (is_p_position(positions, rules) == ~solve(rules).winning(positions)).all()
