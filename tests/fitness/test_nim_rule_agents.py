"""Rule agents (seeds 004 and 000): legal everywhere, fast path == slow path, rules as documented."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, play
from fitness.nim.agents.rule_agents import RuleDictAgent, RuleExpertAgent, rule_param_spec
from fitness.nim.genomes import decode
from fitness.nim.space import StateSpace
from tests.strategies import nim_positions

KINDS = ["rule-expert", "rule-dict"]


@st.composite
def cases(draw):
    rules, positions, seed = draw(nim_positions())
    rng = np.random.default_rng(seed + 1)
    kind = draw(st.sampled_from(KINDS))
    params = rule_param_spec(kind, rules).sample(rng) if draw(st.booleans()) else None
    return rules, positions, seed, kind, params


def _build(kind, rules, params):
    return decode("rules", params, {"agent": kind}, rules) if params is not None else agent(kind, rules)


@settings(max_examples=120, deadline=None)
@given(case=cases())
def test_rule_agents_play_legal_moves_on_any_board(case):
    rules, positions, seed, kind, params = case
    rows, takes = _build(kind, rules, params).act(positions, np.random.default_rng(seed))
    assert rules.legal_mask(positions, np.asarray(rows), np.asarray(takes)).all()


@settings(max_examples=80, deadline=None)
@given(case=cases())
def test_coded_path_equals_position_path(case):
    rules, positions, seed, kind, params = case
    player = _build(kind, rules, params)
    space = StateSpace(rules.rows)
    slow = player.act(positions, np.random.default_rng(seed))
    fast = player.coded(space).act(space.encode(positions), np.random.default_rng(seed))
    np.testing.assert_array_equal(slow[0], fast[0])
    np.testing.assert_array_equal(slow[1], fast[1])


def test_rule_expert_defaults_are_seed_004s_first_configuration_clamped_to_the_board():
    five = agent("rule-expert", Rules.standard(5)).params
    assert five == {
        "ACTIVE_ROWS_TH1": 3, "ACTIVE_ROWS_TH2": 2, "ROW_CHOICE1": 5, "ROW_CHOICE2": 5, "ROW_LEN_TH": 5,
        "ITEM_CHOICE1": 0.2, "ITEM_CHOICE2": 0.4, "ITEM_CHOICE3": 0.9, "ITEM_CHOICE4": 0.7,
    }
    two = agent("rule-expert", Rules((2, 3))).params
    assert (two["ACTIVE_ROWS_TH1"], two["ROW_CHOICE1"], two["ROW_LEN_TH"]) == (2, 2, 3)


def _moves(player, positions, seed=0):
    rows, takes = player(np.asarray(positions), np.random.default_rng(seed))
    return list(zip(rows.tolist(), takes.tolist()))


def test_rule_expert_follows_its_documented_procedure():
    rules = Rules((9, 9, 9, 9))
    base = dict(RuleExpertAgent.SEED_DEFAULTS, ROW_CHOICE1=4, ROW_CHOICE2=4, ROW_LEN_TH=5)
    params = dict(base, ACTIVE_ROWS_TH1=3, ROW_CHOICE1=2, ROW_CHOICE2=3, ACTIVE_ROWS_TH2=4,
                  ITEM_CHOICE1=0.1, ITEM_CHOICE2=0.2, ITEM_CHOICE3=0.5, ITEM_CHOICE4=1.0)
    player = RuleExpertAgent("x", rules, params)
    assert _moves(player, [
        [5, 0, 2, 7],  # 3 rows >= TH1: 2nd shortest (row 0, 5 long); 3 < TH2, 5 >= 5: 0.5 * 5 -> 3
        [0, 2, 0, 7],  # 2 rows < TH1: 3rd shortest clamps to the 2nd (row 3); few, long: 0.5 * 7 -> 4
        [0, 0, 4, 9],  # few rows, 3rd shortest -> row 3, 9 long: 0.5 * 9 -> 5
        [3, 1, 2, 0],  # 3 rows: 2nd shortest is row 2 (2 long, short, few): 1.0 * 2 -> 2
        [9, 9, 1, 4],  # 4 rows >= TH2: 2nd shortest row 3 (4, short): 0.2 * 4 -> 1
        [9, 8, 6, 7],  # 2nd shortest row 3 (7, long, many): 0.1 * 7 -> 1 (at least one)
        [0, 0, 8, 0],  # one row left: the win condition takes it all
    ]) == [(0, 3), (3, 4), (3, 5), (2, 2), (3, 1), (3, 1), (2, 8)]
    bounded = RuleExpertAgent("x", Rules((9, 9, 9, 9), k=2), params)
    assert _moves(bounded, [[0, 0, 8, 0], [0, 0, 4, 9]]) == [(2, 2), (3, 2)]


def test_rule_expert_beats_random_more_often_than_random_does():
    rules = Rules.standard(5)
    expert = play(agent("rule-expert", rules), agent("random", rules), rules, games=20_000, seed=1)
    baseline = play(agent("random", rules), agent("random", rules), rules, games=20_000, seed=1)
    assert expert.interval_a()[0] > baseline.interval_a()[1]


RULE_DICT = {
    "rule_1_leave": 2, "rule_2a_mode": 0, "rule_2a_leave": 2, "rule_2b_pile": 0, "rule_2b_leave": 1,
    "rule_3_pile": 0, "rule_3_leave": 0, "rule_4_pile": 0, "rule_4_leave": 3,
}


@pytest.mark.parametrize("change, position, move", [
    ({}, [0, 7, 0, 0, 0], (1, 5)),                       # one pile: leave 2
    ({"rule_1_leave": 9}, [0, 7, 0, 0, 0], (1, 1)),      # cannot leave 9: take one
    ({}, [1, 0, 6, 0, 0], (0, 1)),                       # 2a mode 0: wipe out the single stick
    ({"rule_2a_mode": 1}, [1, 0, 6, 0, 0], (2, 4)),      # 2a mode 1: leave 2 on the other pile
    ({}, [3, 0, 6, 0, 0], (0, 2)),                       # 2b pile 0: the smaller, leave 1
    ({"rule_2b_pile": 1}, [3, 0, 6, 0, 0], (2, 5)),      # 2b pile 1: the larger
    ({}, [2, 5, 2, 0, 0], (1, 5)),                       # 3: wipe the odd pile out
    ({"rule_3_pile": 1}, [2, 5, 2, 0, 0], (0, 2)),       # 3: one of the equal pair
    ({}, [3, 3, 0, 3, 6], (4, 3)),                       # 4: odd pile down to 3
    ({"rule_4_pile": 1, "rule_4_leave": 0}, [3, 3, 0, 3, 6], (0, 3)),
])
def test_rule_dict_rules_do_what_they_say(change, position, move):
    player = RuleDictAgent("d", Rules((9, 9, 9, 9, 9)), dict(RULE_DICT, **change))
    assert _moves(player, [position]) == [move]


def test_rule_dict_respects_k_and_falls_back_to_uniform_random_moves_from_the_rng():
    rules = Rules((9, 9, 9), k=2)
    player = RuleDictAgent("d", rules, RULE_DICT)
    assert _moves(player, [[0, 7, 0]]) == [(1, 2)]
    # Three distinct piles: no rule fits; all 1 + 2 + 2 legal moves come up, about equally.
    moves = _moves(player, np.tile([1, 2, 3], (5000, 1)), seed=3)
    counts = {m: moves.count(m) for m in set(moves)}
    assert set(counts) == {(0, 1), (1, 1), (1, 2), (2, 1), (2, 2)}
    assert all(900 < c < 1100 for c in counts.values())
    assert _moves(player, np.tile([1, 2, 3], (50, 1)), seed=4) != moves[:50]


def test_decoders_build_agents_that_play_and_reject_bad_genomes():
    rules = Rules.standard(4, k=3, misere=True)
    for kind in KINDS:
        genome = rule_param_spec(kind, rules).sample(np.random.default_rng(5))
        player = decode("rules", genome, {"agent": kind}, rules)
        assert player.params == genome
        result = play(player, agent("random", rules), rules, games=500, seed=2)
        assert result.games == 500
    with pytest.raises(ValueError, match="unknown rule agent 'nope'; valid: rule-expert, rule-dict"):
        decode("rules", {}, {"agent": "nope"}, rules)
    bad = dict(RuleExpertAgent.SEED_DEFAULTS, ROW_CHOICE1=9)
    with pytest.raises(ValueError, match=r"'ROW_CHOICE1' must be an integer in 1\.\.4, got 9"):
        decode("rules", bad, {"agent": "rule-expert"}, rules)
    with pytest.raises(ValueError, match="takes no parameter"):
        agent("rule-dict:3", rules)


def test_rule_agents_play_boards_too_large_to_tabulate():
    rules = Rules.standard(8, k=4)
    for kind in KINDS:
        result = play(agent(kind, rules), agent("random", rules), rules, games=300, seed=0)
        assert result.games == 300


@pytest.mark.parametrize("kind", KINDS)
def test_codes_worked_out_lazily_give_the_same_moves_when_met_again(kind):
    rules = Rules.standard(4, k=3)
    player = agent(kind, rules)
    space = StateSpace(rules.rows)
    coded = player.coded(space)
    rng = np.random.default_rng(0)
    for _ in range(3):  # overlapping batches: later ones mix new codes with known ones
        codes = rng.integers(1, space.size, size=300)
        seed = int(rng.integers(2**32))
        fast = coded.act(codes, np.random.default_rng(seed))
        slow = player.act(space.decode(codes), np.random.default_rng(seed))
        np.testing.assert_array_equal(fast[0], slow[0])
        np.testing.assert_array_equal(fast[1], slow[1])


@settings(max_examples=40, deadline=None)
@given(board=st.lists(st.integers(0, 5), min_size=1, max_size=4).filter(lambda r: sum(r) > 0),
       k=st.one_of(st.none(), st.integers(1, 3)), seed=st.integers(0, 2**32 - 1))
def test_rule_expert_distribution_from_the_shared_board_order_equals_its_own_moves(board, k, seed):
    """Exact fitness tabulates from an order shared by all genomes; it must be the agent's own play."""
    from fitness.nim.agents.base import CodedPolicy
    from fitness.nim.agents.rule_agents import RuleExpertAgent
    from fitness.nim.space import StateSpace
    from operators.rules import random_genome

    rules = Rules(rows=tuple(board), k=k)
    space = StateSpace.of(rules.rows)
    genome = random_genome(RuleExpertAgent.param_spec(rules), np.random.default_rng(seed))
    player = RuleExpertAgent("g", rules, genome)
    shared = player.distribution(space).components[0].target
    own = np.arange(space.size) - CodedPolicy.tabulate(RuleExpertAgent("g", rules, genome), space).step_table
    assert np.array_equal(shared[1:], own[1:])
