"""Reinforcement-learning agents: exact backups, canonical keys, policy, files, training."""

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fitness.nim import Rules, agent, play, solve
from fitness.nim.rl import (
    CanonicalSpace,
    Hyperparameters,
    QTable,
    RLAgent,
    Rewards,
    load_table,
    parse_mix,
    save_agent,
    train,
    winning_moves,
)
from fitness.nim.rl.episodes import Transitions, play_batch
from fitness.nim.rl.montecarlo import MonteCarloLearner
from fitness.nim.rl.td import TDLearner
from fitness.nim.space import StateSpace

SHAPED = Rewards.shaped()


def act_index(space: CanonicalSpace, state, size: int, take: int) -> int:
    return space.action_index(space.state_index(state), size, take)


# -- canonical states and actions ---------------------------------------------
@pytest.mark.parametrize("rules", [Rules.standard(4), Rules((2, 5, 3), k=2), Rules((4, 4, 1), misere=True)])
def test_space_numbers_exactly_the_solvers_canonical_states(rules):
    space = CanonicalSpace(rules)
    assert space.n_states == solve(rules).n_states
    assert space.index(space.states).tolist() == list(range(space.n_states))


def test_permuted_positions_share_a_state_and_actions_are_distinct_sizes():
    space = CanonicalSpace(Rules((3, 1, 3, 0, 2), k=2))
    assert len(set(space.index(np.array([[3, 1, 3, 0, 2], [2, 3, 0, 1, 3], [0, 3, 3, 2, 1]])).tolist())) == 1
    where = space.action_slice(space.state_index([1, 2, 3, 3]))
    pairs = list(zip(space.sizes[where].tolist(), space.takes[where].tolist()))
    # One action per distinct size and legal take (k = 2), ordered by size then take.
    assert pairs == [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2)]


def test_actions_lead_to_the_right_state_and_play_on_the_lowest_row_of_that_size():
    space = CanonicalSpace(Rules((1, 3, 5, 7)))
    a = act_index(space, [3, 5, 5], 5, 4)
    assert space.describe(int(space.after([a])[0])) == "[1, 3, 5]"
    positions = np.array([[0, 5, 3, 5], [1, 3, 5, 5]])
    assert space.raw_rows(positions, np.array([5, 5])).tolist() == [1, 2]


def test_every_action_leads_where_taking_from_a_row_of_that_size_leads():
    space = CanonicalSpace(Rules((1, 3, 3, 5), k=2))
    actions = np.arange(space.n_actions)
    states = space.states[space.owner(actions)].copy()
    col = np.argmax(states == space.sizes[:, None], axis=1)  # any row of that size will do
    states[actions, col] -= space.takes
    assert space.after(actions).tolist() == space.index(states).tolist()


def test_raw_positions_fit_the_board_in_any_row_order():
    rules = Rules((5, 1, 3))
    space = CanonicalSpace(rules)
    raw = space.raw_positions(np.arange(space.n_states))
    assert (raw <= np.asarray(rules.rows)).all()
    assert space.index(raw).tolist() == list(range(space.n_states))


# -- rewards ------------------------------------------------------------------
def test_ply_rewards_score_the_player_who_just_moved():
    after = np.array([[0, 0, 0], [0, 4, 0], [1, 1, 0]])
    assert Rewards().ply(after, misere=False).tolist() == [1.0, 0.0, 0.0]
    assert Rewards().ply(after, misere=True).tolist() == [-1.0, 0.0, 0.0]
    assert SHAPED.ply(after, misere=False).tolist() == [5.0, -3.0, 0.0]
    assert SHAPED.ply(after, misere=True).tolist() == [-5.0, -3.0, 0.0]


# -- the table ----------------------------------------------------------------
def test_grouped_updates_of_one_action_equal_sequential_steps_when_targets_agree():
    space = CanonicalSpace(Rules((2, 2)))
    table = QTable(space, initial=0.0)
    a = act_index(space, [2, 2], 2, 1)
    table.update(np.array([a, a, a]), np.array([1.0, 1.0, 1.0]), alpha=0.5)
    assert table.q[a] == pytest.approx(0.875)  # 1 - 0.5**3
    table.update(np.array([a, a]), np.array([0.0, 2.0]), alpha=1.0)
    assert table.q[a] == 1.0  # the mean of the targets, never beyond
    assert table.n_known == 1


# -- exact backups on hand-made episodes --------------------------------------
# Board (2, 2), the learner against a fixed opponent: it plays (2,1) from [2,2];
# the opponent answers into [1,1]; the learner must play (1,1), leaving one row,
# and the opponent takes the last object and wins (normal play).
def episode_vs_opponent(space: CanonicalSpace, rewards: Rewards) -> list[Transitions]:
    a1 = act_index(space, [2, 2], 2, 1)
    a2 = act_index(space, [1, 1], 1, 1)
    own = rewards.ply(np.array([[1, 2]]), False)[0] - rewards.ply(np.array([[1, 1]]), False)[0]
    last = rewards.ply(np.array([[0, 1]]), False)[0] - rewards.ply(np.array([[0, 0]]), False)[0]
    return [
        Transitions.build([0], [a1], [own], space.state_index([1, 1]), 1.0),
        Transitions.build([0], [a2], [last], 0, 0.0),
    ]


def run_episodes(learner, episodes: list[Transitions], alpha: float, times: int) -> None:
    for _ in range(times):
        for t in episodes:
            learner.observe(t, alpha)
        learner.finish(alpha)


@pytest.mark.parametrize("rewards,expected", [
    (Rewards(), [(0.0, -0.5), (-0.25, -0.75)]),
    # shaped: the learner's last transition is -3 (it leaves one row) - 5 (the opponent wins)
    (SHAPED, [(0.0, -4.0), (-2.0, -6.0)]),
])
def test_td_backs_up_two_plies_against_a_fixed_opponent(rewards, expected):
    space = CanonicalSpace(Rules((2, 2)))
    table = QTable(space)
    episode = episode_vs_opponent(space, rewards)
    assert episode[1].reward.tolist() == ([-1.0] if rewards == Rewards() else [-8.0])
    learner = TDLearner(table, gamma=1.0)
    for q1, q2 in expected:
        run_episodes(learner, episode, alpha=0.5, times=1)
        assert (table.q[episode[0].action[0]], table.q[episode[1].action[0]]) == pytest.approx((q1, q2))


@pytest.mark.parametrize("rewards,gamma,expected", [
    (Rewards(), 1.0, [(-0.5, -0.5), (-0.75, -0.75)]),
    (Rewards(), 0.9, [(-0.45, -0.5), (-0.675, -0.75)]),
    (SHAPED, 1.0, [(-4.0, -4.0), (-6.0, -6.0)]),
])
def test_monte_carlo_propagates_the_return_backwards(rewards, gamma, expected):
    space = CanonicalSpace(Rules((2, 2)))
    table = QTable(space)
    episode = episode_vs_opponent(space, rewards)
    learner = MonteCarloLearner(table, gamma=gamma)
    for q1, q2 in expected:
        run_episodes(learner, episode, alpha=0.5, times=1)
        assert (table.q[episode[0].action[0]], table.q[episode[1].action[0]]) == pytest.approx((q1, q2))


# Self-play on (1, 2): the first mover takes the 2-row, the second takes the last object and wins.
def selfplay_episode(space: CanonicalSpace, rewards: Rewards) -> list[Transitions]:
    first = rewards.ply(np.array([[1, 0]]), False)[0]
    last = rewards.ply(np.array([[0, 0]]), False)[0]
    return [
        Transitions.build([0], [act_index(space, [1, 2], 2, 2)], [first], space.state_index([1]), -1.0),
        Transitions.build([0], [act_index(space, [1], 1, 1)], [last], 0, 0.0),
    ]


@pytest.mark.parametrize("method,rewards,expected", [
    ("td", Rewards(), [(0.0, 0.5), (-0.25, 0.75)]),  # Q(first) <- -max Q([1]): negamax
    ("td", SHAPED, [(-1.5, 2.5), (-3.5, 3.75)]),
    ("mc", Rewards(), [(-0.5, 0.5), (-0.75, 0.75)]),
    ("mc", SHAPED, [(-4.0, 2.5), (-6.0, 3.75)]),  # G_first = -3 - 5
])
def test_self_play_backs_up_negamax(method, rewards, expected):
    space = CanonicalSpace(Rules((1, 2)))
    table = QTable(space)
    episode = selfplay_episode(space, rewards)
    learner = (TDLearner if method == "td" else MonteCarloLearner)(table, gamma=1.0)
    for q1, q2 in expected:
        run_episodes(learner, episode, alpha=0.5, times=1)
        assert (table.q[episode[0].action[0]], table.q[episode[1].action[0]]) == pytest.approx((q1, q2))


def test_lockstep_episodes_emit_exactly_those_transitions():
    rules = Rules((2, 2))
    space = CanonicalSpace(rules)
    got: list[Transitions] = []
    outcome = play_batch(QTable(space), rules, SHAPED, rules.start(1), np.zeros(1, bool),
                         [agent("expert", rules)], np.zeros(1, int), np.ones(1, bool), 0.0,
                         np.random.default_rng(0), got.append)
    want = episode_vs_opponent(space, SHAPED)
    assert (outcome.wins, outcome.losses) == (0, 1)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        for field in ("game", "action", "reward", "next_state", "sign"):
            assert getattr(g, field).tolist() == getattr(w, field).tolist()

    rules = Rules((1, 2))
    space = CanonicalSpace(rules)
    table = QTable(space)
    table.set(np.array([act_index(space, [1, 2], 2, 2)]), np.array([1.0]))  # greedy: take the 2-row
    got = []
    play_batch(table, rules, SHAPED, rules.start(1), np.zeros(1, bool), [], np.full(1, -1),
               np.ones(1, bool), 0.0, np.random.default_rng(0), got.append)
    want = selfplay_episode(space, SHAPED)
    assert [t.action.tolist() for t in got] == [t.action.tolist() for t in want]
    assert [t.reward.tolist() for t in got] == [[-3.0], [5.0]]
    assert [t.sign.tolist() for t in got] == [[-1.0], [0.0]]


# -- the greedy policy --------------------------------------------------------
def moves(player, positions):
    rows, takes = player.act(np.array(positions), None)
    return list(zip(rows.tolist(), takes.tolist()))


def test_unseen_states_win_at_once_if_they_can_else_play_the_first_action():
    rules = Rules((1, 3))
    assert moves(RLAgent("rl", rules, QTable(CanonicalSpace(rules))), [[0, 3], [1, 3]]) == [(1, 3), (0, 1)]


def test_known_states_play_argmax_q_with_ties_to_the_first_action():
    rules = Rules((1, 3))
    space = CanonicalSpace(rules)
    table = QTable(space)
    table.set(np.array([act_index(space, [1, 3], 3, 1), act_index(space, [1, 3], 3, 2)]), np.array([0.5, 0.5]))
    assert moves(RLAgent("rl", rules, table), [[1, 3]]) == [(1, 1)]
    table.set(np.array([act_index(space, [1, 3], 1, 1)]), np.array([0.7]))
    assert moves(RLAgent("rl", rules, table), [[1, 3]]) == [(0, 1)]


def test_unseen_states_rate_a_move_by_minus_the_opponents_best_value_after_it():
    rules = Rules((1, 3))
    space = CanonicalSpace(rules)
    table = QTable(space)
    table.set(np.array([act_index(space, [1, 1], 1, 1)]), np.array([-1.0]))  # [1, 1] is lost for its mover
    assert moves(RLAgent("rl", rules, table), [[1, 3]]) == [(1, 2)]


def test_unseen_misere_states_do_not_take_the_last_object_when_they_need_not():
    rules = Rules((2,), misere=True)
    assert RLAgent("rl", rules, QTable(CanonicalSpace(rules))).act(np.array([[2], [1]]), None)[1].tolist() == [1, 1]


@st.composite
def variants(draw):
    board = draw(st.lists(st.integers(0, 6), min_size=1, max_size=4).filter(lambda r: sum(r) > 0))
    k = draw(st.one_of(st.none(), st.integers(1, 4)))
    return Rules(rows=tuple(board), k=k, misere=draw(st.booleans())), draw(st.integers(0, 2**31))


@settings(max_examples=40, deadline=None)
@given(case=variants())
def test_agent_is_legal_everywhere_and_its_table_lookup_is_the_same_policy(case):
    rules, seed = case
    space = CanonicalSpace(rules)
    table = QTable(space, initial=-0.5)
    rng = np.random.default_rng(seed)
    picked = rng.random(space.n_actions) < 0.5
    table.set(np.flatnonzero(picked), rng.normal(size=int(picked.sum())))
    player = RLAgent("rl", rules, table)
    raw = StateSpace(rules.rows).all_positions()[1:]
    rows, takes = player(raw)  # checked legal
    coded = player.coded(StateSpace(rules.rows))
    fast = coded.act(StateSpace(rules.rows).encode(raw), rng)
    assert rows.tolist() == fast[0].tolist() and takes.tolist() == fast[1].tolist()
    # Equivalent positions get equivalent moves.
    shuffled = raw[:, rng.permutation(rules.n_rows)]
    a = player.policy[space.index(raw)]
    r2, t2 = player(shuffled)
    assert (shuffled[np.arange(len(raw)), r2] == space.sizes[a]).all() and (t2 == space.takes[a]).all()


def test_agent_refuses_another_variant_but_accepts_the_same_rows_in_another_order():
    table = QTable(CanonicalSpace(Rules((1, 3, 5))))
    RLAgent("rl", Rules((5, 1, 3)), table)
    for other in (Rules((1, 3, 6)), Rules((1, 3, 5), k=3), Rules((1, 3, 5), misere=True)):
        with pytest.raises(ValueError, match="trained on rows=\\[1, 3, 5\\] unbounded normal"):
            RLAgent("rl", other, table)


# -- files --------------------------------------------------------------------
@pytest.fixture(scope="module")
def trained():
    rules = Rules((2, 3, 4), k=3, misere=True)
    return train(rules, "random=1,self=1", 3000, seed=3, hyperparameters=Hyperparameters(batch=64))


def test_save_load_round_trip_plays_the_same_moves_everywhere(trained, tmp_path):
    path = save_agent(tmp_path / "a.rlagent", trained)
    table, meta = load_table(path, trained.rules)
    assert np.array_equal(table.q, trained.table.q) and np.array_equal(table.seen, trained.table.seen)
    assert meta["rules"] == {"rows": [2, 3, 4], "k": 3, "misere": True}
    assert meta["hyperparameters"]["method"] == "td" and meta["training"]["episodes"] == 3000
    raw = StateSpace(trained.rules.rows).all_positions()[1:]
    before = trained.agent()(raw)
    after = agent(f"rl:{path}", trained.rules)(raw)
    assert before[0].tolist() == after[0].tolist() and before[1].tolist() == after[1].tolist()
    shuffled = Rules((4, 2, 3), k=3, misere=True)
    assert play(agent(f"rl:{path}", shuffled), agent("expert", shuffled), shuffled, 10, 0).games == 10


@pytest.mark.parametrize("edit,message", [
    (lambda doc: "{not json", "unreadable JSON"),
    (lambda doc: json.dumps([1, 2]), "not a saved RL agent"),
    (lambda doc: json.dumps({**doc, "format": "other"}), "not a saved RL agent"),
    (lambda doc: json.dumps({**doc, "version": 99}), "version 99 is not supported"),
    (lambda doc: json.dumps({k: v for k, v in doc.items() if k != "values"}), "corrupt.*values"),
    (lambda doc: json.dumps({**doc, "rules": {"rows": [2, -3, 4], "k": 3, "misere": True}}), "corrupt"),
    (lambda doc: json.dumps({**doc, "values": [[[9, 9], [[9, 1, 0.5]]]]}), r"state \[9, 9\] is not a position"),
    (lambda doc: json.dumps({**doc, "values": [[[2, 3], [[3, 4, 0.5]]]]}), r"\(size 3, take 4\) is not a legal"),
    (lambda doc: json.dumps({**doc, "values": [[[2, 3], [[3, 1, float("nan")]]]]}), "not finite"),
    (lambda doc: json.dumps({**doc, "values": [[[2, 3], [[3, 1]]]]}), "corrupt"),
])
def test_corrupt_files_are_refused_naming_the_file(trained, tmp_path, edit, message):
    path = save_agent(tmp_path / "bad.rlagent", trained)
    path.write_text(edit(json.loads(path.read_text())))
    with pytest.raises(ValueError, match=message) as info:
        load_table(path, trained.rules)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("other", [
    Rules((2, 3, 5), k=3, misere=True), Rules((2, 3, 4), k=2, misere=True), Rules((2, 3, 4), k=3),
])
def test_a_file_for_another_variant_is_refused(trained, tmp_path, other):
    path = save_agent(tmp_path / "a.rlagent", trained)
    expected = f"a.rlagent: this agent was trained on {trained.rules.describe()}, not {other.describe()}"
    with pytest.raises(ValueError, match=re.escape(expected)):
        agent(f"rl:{path}", other)


def test_rl_names_need_an_existing_path(tmp_path):
    with pytest.raises(ValueError, match="write rl:PATH"):
        agent("rl", Rules((1, 2)))
    with pytest.raises(FileNotFoundError, match="no saved RL agent"):
        agent(f"rl:{tmp_path / 'missing.rlagent'}", Rules((1, 2)))


# -- training -----------------------------------------------------------------
def test_training_beats_the_untrained_agent_and_is_deterministic_for_a_seed():
    rules = Rules.standard(4)
    args = (rules, {"random": 0.5, "expert": 0.2, "self": 0.3}, 4000)
    hp = Hyperparameters(batch=64)
    a = train(*args, seed=5, hyperparameters=hp, eval_every=2000, eval_games=1000)
    b = train(*args, seed=5, hyperparameters=hp, eval_every=2000, eval_games=1000)
    c = train(*args, seed=6, hyperparameters=hp, eval_every=2000, eval_games=1000)
    assert [r["episode"] for r in a.curve] == [0, 2048, 4000]
    assert a.curve[-1]["win_rate_random"] > a.curve[0]["win_rate_random"] + 0.05
    assert a.curve[-1]["states_known"] > 0 == a.curve[0]["states_known"]
    assert np.array_equal(a.table.q, b.table.q)
    drop = lambda curve: [{k: v for k, v in r.items() if k != "seconds"} for r in curve]  # noqa: E731
    assert json.dumps(drop(a.curve)) == json.dumps(drop(b.curve))
    assert not np.array_equal(a.table.q, c.table.q)


@pytest.mark.parametrize("method", ["td", "mc"])
@pytest.mark.parametrize("k,misere", [(None, False), (None, True), (2, False), (2, True)])
def test_self_play_learns_a_winning_move_in_every_winning_position(method, k, misere):
    rules = Rules((1, 3, 5), k=k, misere=misere)
    run = train(rules, "self", 20_000, seed=1, hyperparameters=Hyperparameters(method=method))
    quality = winning_moves(run.agent())
    assert quality.kept == quality.winning


def test_adaptive_exploration_rises_with_losses():
    rules = Rules.standard(3)
    hp = Hyperparameters(epsilon=0.1, epsilon_min=0.1, adaptive=0.001, explore_starts=0.0, batch=16)
    run = train(rules, "expert", 500, seed=0, hyperparameters=hp, eval_games=10)
    assert run.curve[-1]["epsilon"] > 0.1  # the expert wins most games: exploration went up


def test_opponent_mix_parsing():
    assert parse_mix("random=0.5,expert=0.3,self=0.2") == pytest.approx({"random": 0.5, "expert": 0.3, "self": 0.2})
    assert parse_mix("sloppy:0.1=1, self=3") == {"sloppy:0.1": 0.25, "self": 0.75}
    assert parse_mix('{"random": 2, "expert": 0}') == {"random": 1.0}
    assert parse_mix("expert") == {"expert": 1.0}
    for bad, message in (("random=x", "not a number"), ("=1", "without a name"), ("random=-1", "invalid weight"),
                         ("random=0", "all be zero"), ("{oops", "not valid JSON")):
        with pytest.raises(ValueError, match=message):
            parse_mix(bad)


@pytest.mark.parametrize("kwargs,message", [
    (dict(method="sarsa"), "method must be one of td, mc"),
    (dict(alpha=0.0), "alpha must be in"),
    (dict(epsilon=1.5), "epsilon must be in"),
    (dict(epsilon_min=0.0), "give epsilon_decay"),
    (dict(gamma=0.0), "gamma must be in"),
    (dict(explore_starts=2.0), "explore_starts"),
    (dict(batch=0), "batch must be >= 1"),
])
def test_bad_hyperparameters_name_the_problem(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Hyperparameters(**kwargs)


@given(st.floats(min_value=0.0, max_value=1.0), st.lists(st.integers(0, 5000), min_size=1, max_size=20))
def test_an_integer_power_is_the_power_to_within_rounding(base, exponents):
    from fitness.nim.rl.values import integer_power

    got = integer_power(base, np.asarray(exponents))
    assert np.allclose(got, np.power(base, np.asarray(exponents, dtype=float)), rtol=1e-12, atol=1e-300)
