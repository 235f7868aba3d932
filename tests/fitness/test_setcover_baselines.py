"""Course baselines: the write-up's known totals, a set-based greedy oracle, and A* against brute force."""

import itertools
import time
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fitness.setcover.greedy as greedy
from fitness.setcover import (
    Instance,
    SearchLimitExceeded,
    astar,
    complete_cover,
    naive_greedy,
    pruned_greedy,
    ratio_greedy,
    remove_redundant,
)
from tests.strategies import any_set_cover_instances


@pytest.fixture(scope="module")
def course():
    return {N: Instance.from_problem(N, 42) for N in (20, 40, 100, 500, 1000)}


def small_instances(max_n=10, max_lists=9):
    return any_set_cover_instances(max_n=max_n, max_lists=max_lists)


def covers_all_coverable(instance, chosen):
    covered = set().union(*(set(instance.lists[j]) for j in chosen))
    return covered == set(np.flatnonzero(instance.coverable))


def redundant(instance, chosen):
    return [
        j
        for j in chosen
        if set(instance.lists[j]) <= set().union(*(set(instance.lists[i]) for i in chosen if i != j))
    ]


def test_naive_greedy_known_value(course):
    result = naive_greedy(course[1000])
    assert result.cost == 4652 and result.feasible


@pytest.mark.parametrize(("N", "cost"), [(100, 171), (500, 1256), (1000, 2913)])
def test_ratio_greedy_known_values(course, N, cost):
    result = ratio_greedy(course[N])
    assert result.cost == cost and result.feasible
    assert result.cost == course[N].sizes[list(result.chosen)].sum()


def set_based_ratio_greedy(instance):
    """Slow oracle: cost / newly covered, smallest first, ties to the lowest index (a free list
    counts as costing 1e-9, so among free lists the one covering most goes first)."""
    uncovered = set(np.flatnonzero(instance.coverable).tolist())
    chosen = []
    while uncovered:
        best = min(
            (j for j, lst in enumerate(instance.lists) if uncovered & set(lst)),
            key=lambda j: (instance.costs[j] or 1e-9) / len(uncovered & set(instance.lists[j])),
        )
        chosen.append(best)
        uncovered -= set(instance.lists[best])
    return chosen


@settings(max_examples=80, deadline=None)
@given(small_instances(max_n=30, max_lists=15))
def test_ratio_greedy_matches_set_oracle(instance):
    assert list(ratio_greedy(instance).chosen) == set_based_ratio_greedy(instance)


@settings(max_examples=80, deadline=None)
@given(small_instances(max_n=30, max_lists=15))
def test_greedies_cover_everything_coverable_and_pruning_leaves_no_redundancy(instance):
    naive, ratio, pruned = naive_greedy(instance), ratio_greedy(instance), pruned_greedy(instance)
    for result in (naive, ratio, pruned):
        assert covers_all_coverable(instance, result.chosen)
        assert result.feasible == bool(instance.coverable.all())
    assert redundant(instance, pruned.chosen) == []
    assert set(pruned.chosen) <= set(ratio.chosen) and pruned.cost <= ratio.cost


@settings(max_examples=80, deadline=None)
@given(small_instances(max_n=20, max_lists=12), st.data())
def test_complete_then_remove_redundant_gives_irredundant_cover(instance, data):
    start = np.array(data.draw(st.lists(st.booleans(), min_size=instance.n_lists, max_size=instance.n_lists)))
    completed = complete_cover(instance, start)
    assert (completed >= start).all()
    assert covers_all_coverable(instance, np.flatnonzero(completed))
    kept = remove_redundant(instance, completed)
    assert covers_all_coverable(instance, np.flatnonzero(kept))
    assert redundant(instance, np.flatnonzero(kept).tolist()) == []


@settings(max_examples=80, deadline=None)
@given(small_instances(max_n=20, max_lists=12), st.data())
def test_complete_cover_uses_avoided_lists_only_as_a_last_resort(instance, data):
    flags = st.lists(st.booleans(), min_size=instance.n_lists, max_size=instance.n_lists)
    start, avoid = np.array(data.draw(flags)), np.array(data.draw(flags))
    completed = complete_cover(instance, start, avoid)
    assert covers_all_coverable(instance, np.flatnonzero(completed))
    for j in np.flatnonzero(completed & ~start & avoid):
        # an avoided list was added: it must hold an element that no allowed list holds
        allowed = set().union(*(set(instance.lists[i]) for i in np.flatnonzero(~avoid)))
        assert set(instance.lists[j]) - allowed


def test_complete_cover_avoid_changes_the_choice():
    instance = Instance(3, [[0, 1, 2], [0, 1], [2]])
    nothing = np.zeros(3, dtype=bool)
    assert np.flatnonzero(complete_cover(instance, nothing)).tolist() == [0]
    avoid = np.array([True, False, False])
    assert np.flatnonzero(complete_cover(instance, nothing, avoid)).tolist() == [1, 2]
    # [2] is the only allowed list; 0 and 1 then need an avoided one, the best ratio of which is [0, 1]
    only_last = np.array([True, True, False])
    assert np.flatnonzero(complete_cover(instance, nothing, only_last)).tolist() == [1, 2]


def walked_removal(instance, selected):
    """remove_redundant's rule without its shortcuts: every selected list, dearest first (stable),
    dropped when each of its elements is held by another list still kept."""
    kept = selected.copy()
    for j in sorted(np.flatnonzero(selected), key=lambda j: -instance.costs[j]):
        others = set().union(*(set(instance.lists[i]) for i in np.flatnonzero(kept) if i != j))
        if set(instance.lists[j]) <= others:
            kept[j] = False
    return kept


@settings(max_examples=80, deadline=None)
@given(small_instances(max_n=20, max_lists=12), st.data())
def test_remove_redundant_keeps_the_same_lists_whether_it_counts_over_rows_or_pairs(instance, data):
    selected = np.array(data.draw(st.lists(st.booleans(), min_size=instance.n_lists, max_size=instance.n_lists)))
    expected = walked_removal(instance, selected)
    counts = instance.incidence[selected].sum(axis=0)
    for cells_per_pair in (0, 10**9):  # always pairs, always dense rows
        with mock.patch.object(greedy, "_CELLS_PER_PAIR", cells_per_pair):
            assert (remove_redundant(instance, selected) == expected).all()
            given_counts = counts.copy()
            assert (remove_redundant(instance, selected, given_counts) == expected).all()
            assert (given_counts == counts).all()  # the caller's counts are left as they were


def test_remove_redundant_drops_dearest_first():
    instance = Instance(4, [[0, 1], [2, 3], [0, 1, 2], [3]], costs=[5, 1, 2, 9])
    kept = remove_redundant(instance, np.ones(4, dtype=bool))
    # [3] (cost 9) goes first, then [0, 1] (5); [0, 1, 2] and [2, 3] each hold an element alone.
    assert np.flatnonzero(kept).tolist() == [1, 2]


def test_remove_redundant_drops_largest_first_when_cost_is_size():
    instance = Instance(4, [[0, 1], [2, 3], [0, 1, 2], [3]])
    kept = remove_redundant(instance, np.ones(4, dtype=bool))
    # [0, 1, 2] (largest) goes first; then [0, 1] and [2, 3] are each the only
    # holder of some element, and [3] duplicates [2, 3].
    assert np.flatnonzero(kept).tolist() == [0, 1]


def brute_force_optimum(instance):
    goal = set(np.flatnonzero(instance.coverable).tolist())
    return min(
        sum(instance.costs[j] for j in subset)
        for r in range(instance.n_lists + 1)
        for subset in itertools.combinations(range(instance.n_lists), r)
        if set().union(*(set(instance.lists[j]) for j in subset)) == goal
    )


@settings(max_examples=60, deadline=None)
@given(small_instances())
def test_astar_is_optimal_against_brute_force(instance):
    result = astar(instance)
    assert covers_all_coverable(instance, result.chosen)
    assert result.cost == brute_force_optimum(instance)
    assert result.nodes_visited >= 1


@pytest.mark.parametrize(("N", "optimum"), [(20, 23), (40, 54)])
def test_astar_on_course_instances_beats_or_ties_greedy(course, N, optimum):
    result = astar(course[N])
    assert result.feasible and result.cost == optimum
    assert result.cost <= pruned_greedy(course[N]).cost
    assert result.nodes_visited > 0


def test_astar_refuses_large_instances_quickly(course):
    started = time.monotonic()
    with pytest.raises(SearchLimitExceeded, match=r"N=1000 \(3619 lists\) .*1 s\) with the optimum proven >="):
        astar(course[1000], time_limit=1.0)
    assert time.monotonic() - started < 10  # 1 s budget plus setup, with slack for a loaded machine
    with pytest.raises(SearchLimitExceeded, match=r"N=100 .* after 20 nodes .*greedy"):
        astar(course[100], max_nodes=20, time_limit=60)
