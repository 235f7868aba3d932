"""Exact fitness: the DP over codes against a plain per-position interpreter, the
solver as the oracle of optimal moves, and sampled play as a sanity check."""

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, play, solve
from fitness.nim.agents.mixture import FEATURES, feature_size, feature_values
from fitness.nim.exact import optimal_move_rates, win_probabilities
from fitness.nim.genomes import decode
from fitness.nim.space import StateSpace
from fitness.nim.task import NimTask

SIMPLE = ["expert", "random", "longest", "gabriele", "sloppy:0.3", "rule-dict", "rule-expert", "minimax"]


def legal_moves(position, k):
    return [(r, t) for r, v in enumerate(position) for t in range(1, (v if k is None else min(v, k)) + 1)]


def oracle_moves(name_or_table, position, rules):
    """{(row, take): probability} from the agents' own definitions, one position at a time."""
    if isinstance(name_or_table, tuple):  # (table, columns, feature)
        table, columns, feature = name_or_table
        bucket = int(feature_values(feature, np.asarray([position]))[0])
        moves = {}
        for j, column in enumerate(columns):
            for move, p in oracle_moves(column, position, rules).items():
                moves[move] = moves.get(move, 0.0) + table[bucket][j] * p
        return moves
    legal = legal_moves(position, rules.k)
    if name_or_table == "random":  # a non-empty row uniformly, then a count uniformly
        rows = sorted({r for r, _ in legal})
        return {(r, t): 1 / len(rows) / sum(1 for rr, _ in legal if rr == r) for r, t in legal}
    if name_or_table.startswith("sloppy:"):
        p = float(name_or_table.split(":")[1])
        moves = {m: p * q for m, q in oracle_moves("random", position, rules).items()}
        for m, q in oracle_moves("expert", position, rules).items():
            moves[m] = moves.get(m, 0.0) + (1 - p) * q
        return moves
    player = agent(name_or_table, rules)
    if name_or_table == "rule-dict":
        rows, takes, fallback = player._rule_moves(np.asarray([position]))
        if fallback[0]:
            return {m: 1 / len(legal) for m in legal}
        return {(int(rows[0]), int(takes[0])): 1.0}
    rows, takes = player(np.asarray([position]), np.random.default_rng(0))
    return {(int(rows[0]), int(takes[0])): 1.0}


def oracle_win_probability(player, opponent, rules):
    """Plain recursion over positions: P(player wins), first mover alternating."""

    @lru_cache(maxsize=None)
    def value(position, player_to_move):
        if sum(position) == 0:
            mover_wins = rules.misere
            return float(mover_wins == player_to_move)
        mover = player if player_to_move else opponent
        total = 0.0
        for (r, t), p in oracle_moves(mover, position, rules).items():
            after = list(position)
            after[r] -= t
            total += p * value(tuple(after), not player_to_move)
        return total

    return 0.5 * (value(rules.rows, True) + value(rules.rows, False))


@st.composite
def small_games(draw):
    board = draw(st.lists(st.integers(0, 4), min_size=1, max_size=3).filter(lambda r: sum(r) > 0))
    rules = Rules(rows=tuple(board), k=draw(st.one_of(st.none(), st.integers(1, 3))), misere=draw(st.booleans()))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = tuple(draw(st.lists(st.sampled_from(SIMPLE), min_size=1, max_size=3, unique=True)))
    feature = draw(st.sampled_from(sorted(FEATURES)))
    table = rng.dirichlet(np.ones(len(columns)), size=feature_size(feature, rules))
    table[rng.random(table.shape) < 0.3] = 0.0
    table[np.arange(len(table)), rng.integers(len(columns), size=len(table))] += 0.1
    table = table / table.sum(axis=1, keepdims=True)
    opponent = draw(st.sampled_from(SIMPLE))
    return rules, (tuple(map(tuple, table)), columns, feature), opponent


@settings(max_examples=60, deadline=None)
@given(game=small_games())
def test_exact_win_probability_equals_a_per_position_interpreter(game):
    rules, (table, columns, feature), opponent_name = game
    space = StateSpace.of(rules.rows)
    mixture = decode("table", [list(r) for r in table], {"columns": list(columns), "feature": feature}, rules)
    players = [mixture] + [agent(name, rules) for name in SIMPLE]
    exact = win_probabilities([p.distribution(space) for p in players],
                              agent(opponent_name, rules).distribution(space), rules)
    expected = [oracle_win_probability(x, opponent_name, rules) for x in [(table, columns, feature), *SIMPLE]]
    np.testing.assert_allclose(exact, expected, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(game=small_games())
def test_optimal_move_rate_is_the_share_of_winning_positions_kept_winning(game):
    rules, (table, columns, feature), _ = game
    space = StateSpace.of(rules.rows)
    solved = solve(rules)
    mixture = decode("table", [list(r) for r in table], {"columns": list(columns), "feature": feature}, rules)
    rates = optimal_move_rates([mixture.distribution(space), agent("expert", rules).distribution(space)], rules)
    kept = []
    for position in map(tuple, space.all_positions()[1:]):
        if not solved.is_winning(position):
            continue
        share = 0.0
        for (r, t), p in oracle_moves((table, columns, feature), position, rules).items():
            after = list(position)
            after[r] -= t
            loses = (not rules.misere) if sum(after) == 0 else not solved.is_winning(after)
            share += p * loses
        kept.append(share)
    assert rates[0] == pytest.approx(np.mean(kept) if kept else 0.0, abs=1e-12)
    assert rates[1] == (1.0 if kept else 0.0)  # the expert never gives a win away


@pytest.mark.parametrize("rules", [Rules.standard(5), Rules.standard(5, k=3, misere=True)])
def test_exact_agrees_with_100k_sampled_games(rules):
    space = StateSpace.of(rules.rows)
    table = np.random.default_rng(1).dirichlet(np.ones(3), size=feature_size("nimsum", rules))
    player = decode("table", table, {"columns": ["expert", "random", "longest"], "feature": "nimsum"}, rules)
    for opponent in ("random", "sloppy:0.2"):
        p = win_probabilities([player.distribution(space)], agent(opponent, rules).distribution(space), rules)[0]
        sampled = play(player, agent(opponent, rules), rules, 100_000, seed=4).win_rate_a
        assert abs(sampled - p) < 4.5 * np.sqrt(p * (1 - p) / 100_000), (opponent, p, sampled)


def test_exact_scores_do_not_depend_on_the_batch():
    rules = Rules.standard(4, k=2)
    spec = {"rows": list(rules.rows), "k": 2, "misere": False, "opponents": {"random": "exact", "expert": "exact"},
            "genome": {"kind": "table", "columns": ["expert", "random", "longest"], "feature": "nimsum"}}
    task = NimTask(spec)
    rng = np.random.default_rng(0)
    genomes = [rng.dirichlet(np.ones(3), size=8) for _ in range(7)]
    together = task.evaluate(genomes, [1] * 7)
    apart = [task.evaluate([g], [99]) for g in genomes]
    for name, values in together.items():
        np.testing.assert_array_equal(values, [a[name][0] for a in apart])
    assert set(together) == {"win_rate_random", "win_rate_expert", "optimal_move_rate"}  # no counts when exact


def test_agents_without_a_distribution_and_boards_too_large_are_refused():
    rules = Rules.standard(4)
    base = {"rows": list(rules.rows), "k": None, "misere": False,
            "genome": {"kind": "table", "columns": ["expert", "random"], "feature": "nimsum"}}
    with pytest.raises(ValueError, match="'fixed-rules' cannot give its move distribution"):
        NimTask({**base, "opponents": {"fixed-rules": "exact"}})
    with pytest.raises(ValueError, match="cannot be scored exactly"):
        NimTask({**base, "opponents": {"expert": "exact"},
                 "genome": {"kind": "table", "columns": ["expert", "fixed-rules"], "feature": "nimsum"}})
    with pytest.raises(ValueError, match="give a number of games"):
        NimTask({**base, "rows": [9] * 8, "opponents": {"expert": "exact"}})
    sampled = NimTask({**base, "opponents": {"fixed-rules": 10}})  # sampling works with any agent
    assert sampled.sampled == {"win_rate_fixed_rules": ("wins_fixed_rules", "games_fixed_rules")}


@pytest.mark.parametrize("rows, misere", [((4, 4, 3), True), ((1, 3, 5), False), ((2, 5), True)])
def test_weightless_self_successors_never_turn_fresh_memory_into_nan(monkeypatch, rows, misere):
    """rule-dict's deterministic component points at the code itself where no rule applies
    (weight 0 there); whatever fresh arrays hold, the result must stay exact."""
    rules = Rules(rows=rows, misere=misere)
    space = StateSpace.of(rules.rows)
    players = [agent("rule-dict", rules).distribution(space)]
    opponent = agent("random", rules).distribution(space)
    clean = win_probabilities(players, opponent, rules)
    real_empty = np.empty
    monkeypatch.setattr(np, "empty", lambda shape, *a, **k: np.full(shape, np.nan, *a, **k))
    poisoned = win_probabilities(players, opponent, rules)
    monkeypatch.setattr(np, "empty", real_empty)
    assert np.isfinite(poisoned).all()
    np.testing.assert_allclose(poisoned, clean, atol=1e-12)
    expected = oracle_win_probability("rule-dict", "random", rules)
    np.testing.assert_allclose(clean, [expected], atol=1e-12)
