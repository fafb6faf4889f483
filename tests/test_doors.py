"""The doors check before they act (issue 21): a refused call names the bad input and
changes nothing. Focused cases; tests/test_door_fuzz.py throws many more at every door."""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pytest
from gymnasium.error import ResetNeeded

import uno_env
from uno_env import UnoGymEnv
from uno_env.agents import make_agent
from uno_env.engine import Game, IllegalActionError
from uno_env.engine.game import State
from uno_env.vector import UnoGymVectorEnv, UnoVectorEnv


def arrays(state):
    return [a.copy() for a in (state.cards, state.ints, state.rng, state.ev, state.evn)]


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("index", [1, -1, 0.0, 0.5, True, np.float64(0), "0", None])
def test_game_refuses_an_index_that_is_not_a_game_of_the_state(index):
    game = Game(num_players=2)
    state = game.init(seed=3)
    before = arrays(state)
    for call in (
        lambda: game.legal_mask(state, index),
        lambda: game.observe(state, 0, index),
        lambda: game.step(state, game.legal_actions(state)[0], index),
        lambda: game.reset(state, seed=1, index=index),
        lambda: game.current_player(state, index),
    ):
        with pytest.raises((TypeError, ValueError), match="index") as refused:
            call()
        assert repr(index) in str(refused.value)
    assert same(arrays(state), before)
    assert game.legal_mask(state, np.int64(0)).any()  # numpy integers are indices


@pytest.mark.parametrize("seat", [2, -1, 0.5, True, "1"])
def test_observe_refuses_a_seat_that_is_not_one(seat):
    game = Game(num_players=2)
    with pytest.raises((TypeError, ValueError), match="seat"):
        game.observe(game.init(seed=1), seat)


TWO_PLAYER_OBS = Game(num_players=2).observation_size


@pytest.mark.parametrize(
    "out",
    [
        np.zeros(TWO_PLAYER_OBS, np.float64),
        np.zeros(TWO_PLAYER_OBS - 1, np.float32),
        np.zeros(2 * TWO_PLAYER_OBS, np.float32)[::2],
        np.zeros((1, TWO_PLAYER_OBS), np.float32),
    ],
)
def test_observe_checks_the_out_buffer(out):
    game = Game(num_players=2)
    with pytest.raises(ValueError, match="out must be"):
        game.observe(game.init(seed=1), 0, out=out)


def test_a_state_remembers_its_configuration_and_another_game_refuses_it():
    two, ten, trend = Game(num_players=2), Game(num_players=10), Game(num_players=2, deck="fashion_trend")
    state = two.init(seed=4)
    assert state.params is two.params and state.copy().params is two.params
    restored = pickle.loads(pickle.dumps(state))
    assert restored == state and two.legal_actions(restored) == two.legal_actions(state)
    assert Game(num_players=2).legal_actions(state) == two.legal_actions(state)  # the same rules, another Game
    for other in (ten, trend):
        with pytest.raises(ValueError, match="another configuration"):
            other.step(state, 0)
        with pytest.raises(ValueError, match="another configuration"):
            other.legal_mask(state)
    with pytest.raises(TypeError, match="state must be"):
        two.legal_mask({"cards": 1})


def test_state_arrays_keep_their_layout():
    state = Game(num_players=2).init(seed=1)
    with pytest.raises(ValueError, match="State.cards"):
        state.cards = np.zeros((1, 5), np.int8)
    with pytest.raises(ValueError, match="State.ints"):
        state.ints = state.ints.astype(np.int64)
    with pytest.raises(ValueError, match="games"):
        State(state.cards, state.ints, np.zeros(2, np.uint64), state.ev, state.evn)


def test_a_refused_step_keeps_the_events_of_the_last_step():
    game = Game(num_players=2, max_steps=4)
    state = game.init(seed=2)
    game.step(state, game.legal_actions(state)[0])
    events = game.events(state)
    mask = game.legal_mask(state)
    with pytest.raises(IllegalActionError):
        game.step(state, int(np.flatnonzero(mask == 0)[-1]))
    assert game.events(state) == events
    while not game.is_over(state):
        game.step(state, game.legal_actions(state)[0])
    events, before = game.events(state), arrays(state)
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.step(state, 0)
    assert game.events(state) == events and same(arrays(state), before)


def test_a_step_with_index_0_0_changes_nothing():
    game = Game(num_players=2)
    state = game.init(seed=5)
    before = arrays(state)
    with pytest.raises(TypeError, match="0.0"):
        game.step(state, game.legal_actions(state)[0], index=0.0)
    assert same(arrays(state), before)


@pytest.mark.parametrize(
    "seed, options",
    [
        (True, None),
        (-1, None),
        (2**64, None),
        (9, "position"),
        (9, {"position": {"hands": "x"}}),
        (None, {"deck": ["XX"]}),
    ],
)
def test_a_refused_aec_reset_does_not_reseed(seed, options):
    env = uno_env.env(num_players=2)
    env.reset(seed=1)
    generator = env.unwrapped.np_random.bit_generator.state
    position = env.unwrapped.position()
    with pytest.raises(ValueError):
        env.reset(seed=seed, options=options)
    assert env.unwrapped.np_random.bit_generator.state == generator
    assert env.unwrapped.position() == position


def test_aec_before_reset_and_after_the_end_in_pettingzoo_words():
    raw = uno_env.raw_env(num_players=2)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        raw.step(0)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before"):
        raw.observe("player_0")
    raw.reset(seed=1)
    with pytest.raises(ValueError, match="player_9"):
        raw.observe("player_9")
    raw = uno_env.raw_env(num_players=2, max_steps=2)
    raw.reset(seed=1)
    while raw.agents:
        _, _, terminated, truncated, _ = raw.last()
        raw.step(None if terminated or truncated else int(raw.observe(raw.agent_selection)["action_mask"].argmax()))
    raw.step(None)  # PettingZoo's warning, nothing changes
    with pytest.raises(RuntimeError, match="call reset"):
        raw.last()


def test_aec_step_after_every_agent_is_done_warns_for_none_and_refuses_an_action(caplog):
    """PettingZoo's convention: its OrderEnforcingWrapper warns for a step once every agent
    is done, and its AECEnv takes only None from a done agent (the spec page says so)."""
    for make in (uno_env.env, uno_env.raw_env):
        env = make(num_players=2, max_steps=2)
        env.reset(seed=1)
        for agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(env.observe(agent)["action_mask"].argmax()))
        position = env.unwrapped.position()
        caplog.clear()
        env.step(None)
        assert "step() called after all agents are terminated or truncated" in caplog.text
        for action in (0, 5, 0.5, "draw"):
            with pytest.raises(ValueError, match=rf"step\({action!r}\): every agent is done.*reset\(\)"):
                env.step(action)
        assert env.unwrapped.position() == position and env.agents == []
        env.reset(seed=2)  # a new game as usual
        assert env.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("render_seat", [True, False, np.bool_(True), 2, -1, "none"])
def test_aec_render_seat_is_a_seat_all_or_none(render_seat):
    with pytest.raises(ValueError, match=f"render_seat must be a seat 0..1, 'all' or None, got {render_seat!r}"):
        uno_env.env(num_players=2, render_seat=render_seat)
    assert uno_env.env(num_players=2, render_seat=np.int64(1)).unwrapped.render_seat == 1


class Spoiler:
    """An opponent playing its first legal action, or ``answer`` once armed."""

    def __init__(self, answer):
        self.answer, self.armed = answer, False

    def __call__(self, observation, mask):
        if not self.armed:
            return int(np.flatnonzero(mask)[0])
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize("answer", [60.7, None, 10**6, ZeroDivisionError("boom")])
def test_an_opponent_bad_answer_leaves_the_gym_env_as_before_the_learners_step(answer):
    spoiler = Spoiler(answer)
    env = UnoGymEnv(num_players=2, opponents=spoiler, illegal_action="penalty")
    env.reset(seed=1)
    for _ in range(50):  # a learner's action after which the opponent must answer
        action = int(np.flatnonzero(env.action_masks())[0])
        twin = copy.deepcopy(env)
        twin.opponents[0].armed = True
        try:
            twin.step(action)
        except (IllegalActionError, RuntimeError):
            break
        env.step(action)
    before = arrays(env._state)
    spoiler.armed = True
    with pytest.raises((IllegalActionError, RuntimeError), match="opponent at seat 1"):
        env.step(action)
    spoiler.armed = False
    assert same(arrays(env._state), before)
    env.step(action)  # the env goes on: it is the learner's turn, as before


def test_gym_env_before_reset_and_refused_seeds():
    env = UnoGymEnv(num_players=2, opponents="tactical")
    with pytest.raises(ResetNeeded):
        env.step(0)
    for render_mode in (None, "ansi", "rgb_array"):  # there is no game yet: Gymnasium's ResetNeeded
        unstarted = UnoGymEnv(num_players=2, render_mode=render_mode)
        for method in ("render", "action_masks", "position"):
            with pytest.raises(ResetNeeded, match=rf"env\.{method}\(\) before calling env\.reset\(\)"):
                getattr(unstarted, method)()
    env.reset(seed=3)
    generator = env.np_random.bit_generator.state
    opponent = env.opponents[0].prng.copy()
    for seed in (True, -1, 2**64, 1.5):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    with pytest.raises(ValueError, match="options"):
        env.reset(seed=9, options="x")
    assert env.np_random.bit_generator.state == generator and np.array_equal(env.opponents[0].prng, opponent)


def test_vector_env_checks_everything_before_it_changes_a_game():
    env = UnoVectorEnv(4, num_players=2, seed=1)
    before = env.rng.copy(), env.cards.copy()
    for seed in ([1, 2, "x", 4], [1, 2, 3, -1], 2**64 - 2, True):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    state = Game(num_players=2).init(seed=9)
    for index in (True, 0.0, 4, -1):
        with pytest.raises((TypeError, ValueError), match="index"):
            env.load_state(index, state)
    with pytest.raises(ValueError, match="another configuration"):
        env.load_state(0, Game(num_players=3).init(seed=1))
    buffers = [b.copy() for b in (env.cards, env.ints, env.rng, env.obs, env.mask, env.seat)]
    with pytest.raises(ValueError, match="load_state: game 0 of the state was never reset"):
        env.load_state(0, Game(num_players=2).new_state())
    assert same([env.cards, env.ints, env.rng, env.obs, env.mask, env.seat], buffers)
    unstarted = UnoVectorEnv(4, num_players=2)
    with pytest.raises(ValueError, match="never reset"):
        unstarted.load_state(0, Game(num_players=2).new_state())
    assert not unstarted.rng.any() and not unstarted.cards.any()
    assert np.array_equal(env.rng, before[0]) and np.array_equal(env.cards, before[1])
    for out in (np.zeros(3, np.int64), np.zeros(4, np.int32), np.zeros(8, np.int64)[::2], np.zeros((4, 1), np.int64)):
        with pytest.raises(ValueError, match="out must be"):
            env.sample_actions(out=out)
    with pytest.raises(ValueError, match="num_envs=1000000000"):
        UnoVectorEnv(10**9, num_players=2)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: UnoVectorEnv(2, num_players=2, final_observation="no"),
            "final_observation must be True or False, got 'no'",
        ),
        (
            lambda: UnoVectorEnv(2, num_players=2, final_observation=None),
            "final_observation must be True or False, got None",
        ),
        (lambda: UnoVectorEnv(2, num_players=2, parallel=1), "parallel must be 'auto', True or False, got 1"),
        (lambda: UnoGymVectorEnv(2, num_players=2, copy="no"), "copy must be True or False, got 'no'"),
        (lambda: UnoGymVectorEnv(2, num_players=2, copy=0), "copy must be True or False, got 0"),
    ],
    ids=["final_observation-no", "final_observation-None", "parallel-1", "copy-no", "copy-0"],
)
def test_vector_flags_are_bools(make, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_gym_vector_env_refuses_reset_options_it_does_not_know():
    """Like UnoGymEnv (the AEC env only warns: PettingZoo's api_test passes made-up options);
    a position goes into one game with UnoVectorEnv.load_state."""
    env = UnoGymVectorEnv(2, num_players=2, seed=5)
    position = {"hands": [["R1"], ["G2"]], "discard_pile": ["R5"], "current_player": 0}
    for options, message in (
        ({"foo": 1}, r"unknown reset option\(s\) foo; known: reset_mask"),
        ({"position": position}, r"reset option 'position' .*load_state"),
        ({"reset_mask": [True, True], "bar": 2}, "bar"),
    ):
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
    assert not env.env.rng.any()  # nothing reset, and the default seed is still to come
    first, _ = env.reset()
    again, _ = UnoGymVectorEnv(2, num_players=2, seed=5).reset()
    assert np.array_equal(first, again)


@pytest.mark.parametrize("name", ["random", "naive", "keeper", "tactical", "random_play", "ismcts:determinizations=4"])
def test_agents_check_their_inputs_and_answer_within_the_mask(name):
    game = Game(num_players=2)
    state = game.init(seed=6)
    agent = make_agent(name, game, seed=3)
    obs, mask = game.observe(state, game.current_player(state)), game.legal_mask(state)
    for bad in (np.full_like(obs, np.inf), np.full_like(obs, np.nan), obs[:-1], np.ma.masked_array(obs)):
        with pytest.raises(ValueError, match="observation"):
            agent(bad, mask)
    for bad in (mask * 2, np.zeros_like(mask), np.array([np.timedelta64(1)] * len(mask))):
        with pytest.raises(ValueError, match="mask"):
            agent(obs, bad)
    only_catch = np.zeros_like(mask)
    only_catch[game.string_to_action("catch")] = 1
    assert agent(obs, only_catch) == game.string_to_action("catch")
    seed = agent.seed
    for bad_seed in (True, -1, 2**64, 1.5):
        with pytest.raises(ValueError, match="seed"):
            agent.reset(bad_seed)
    assert agent.seed == seed
    agent.reset()  # its own seed again


def test_play_checks_its_policies_before_playing():
    game = Game(num_players=3)
    state = game.init(seed=4)
    before = arrays(state)
    first = lambda observation, mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    for policies, error, message in (
        (None, TypeError, "policies must be a sequence of 3 policies .* got None"),
        ("random", TypeError, "policies must be a sequence of 3 policies .* got 'random'"),
        ({0: first, 1: first}, ValueError, "policies has no policy for seat 2"),
        ([first, first], TypeError, "policies must be a sequence of 3"),
        ([first, first, 5], TypeError, r"policies\[2\] must be callable .* got 5"),
    ):
        with pytest.raises(error, match=message):
            game.play(state, policies)
        assert same(arrays(state), before)
    game.play(state, {1: first, 2: first}, until=0)  # the seat played until needs no policy
    assert game.current_player(state) == 0 or game.is_over(state)


def test_agent_specs_and_the_registry_refuse_what_they_cannot_use(monkeypatch):
    from uno_env import agents

    game = Game(num_players=2)
    for spec, message in (
        ("human:seat=2", "human: seat must be a seat 0..1, got 2"),
        ("human:seat=-1", "human: seat must be a seat 0..1, got -1"),
        ("human:seat=true", "human: seat must be a seat 0..1, got True"),
        ("human:stdin=1", "human: stdin must be a text stream with readline() (None: the terminal), got 1"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            make_agent(spec, game)
    assert make_agent("human:seat=1", game).seat == 1
    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))
    monkeypatch.setattr(agents, "_DESCRIPTIONS", dict(agents._DESCRIPTIONS))
    names = agents.agent_names()
    for factory in (5, None, "tactical"):
        with pytest.raises(TypeError, match=re.escape("factory must be callable") + f".*got {factory!r}"):
            agents.register_agent("x", factory)
    assert agents.agent_names() == names

    def failing(rules=None, seed=0, **options):
        return 1 // 0

    agents.register_agent("failing", failing, "fails")
    with pytest.raises(RuntimeError, match="agent 'failing': its factory .* raised ZeroDivisionError") as caught:
        make_agent("failing", game)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
