"""Every env class and Game pickles (plain pickle and cloudpickle), rebuilds its compiled
entry points on load, and a copy pickled mid-game continues the same trajectory."""

import pickle

import cloudpickle
import numpy as np
import pytest

import uno_env
from uno_env import UnoGymEnv
from uno_env.engine import Game
from uno_env.vector import UnoGymVectorEnv, UnoVectorEnv
from uno_env.vector.sb3_adapter import UnoSB3VecEnv

PICKLERS = {"pickle": pickle, "cloudpickle": cloudpickle}


def round_trip(obj, pickler):
    return pickle.loads(PICKLERS[pickler].dumps(obj))


def random_legal(mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("pickler", PICKLERS)
def test_game_and_state_continue_after_a_round_trip(pickler):
    game = Game(num_players=3, deck="fashion_trend")
    state = game.init(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(40):
        game.step(state, random_legal(game.legal_mask(state), rng))
    copy_game, copy_state = round_trip((game, state), pickler)
    assert copy_game.config == game.config and copy_state == state
    for _ in range(200):
        if game.is_over(state):
            break
        action = random_legal(game.legal_mask(state), rng)
        original, copied = game.step(state, action), copy_game.step(copy_state, action)
        assert np.array_equal(original.rewards, copied.rewards) and original.events == copied.events
        seat = game.current_player(state)
        assert np.array_equal(game.observe(state, seat), copy_game.observe(copy_state, seat))
    assert copy_state == state


@pytest.mark.parametrize("pickler", PICKLERS)
def test_pettingzoo_env_continues_after_a_round_trip(pickler):
    env = uno_env.env(num_players=4, render_mode="ansi")
    env.reset(seed=5)
    rng = np.random.default_rng(1)

    def play(env, steps, rng):
        record = []
        for agent in env.agent_iter(max_iter=steps):
            observation, reward, termination, truncation, info = env.last()
            record.append((agent, observation["observation"].copy(), reward, termination, truncation))
            env.step(None if termination or truncation else random_legal(observation["action_mask"], rng))
        return record

    play(env, 30, rng)
    copy = round_trip(env, pickler)
    copy_rng = pickle.loads(pickle.dumps(rng))
    first, second = play(env, 120, rng), play(copy, 120, copy_rng)
    assert len(first) == len(second) > 0
    for a, b in zip(first, second):
        assert a[0] == b[0] and np.array_equal(a[1], b[1]) and a[2:] == b[2:]
    assert env.render() == copy.render()


@pytest.mark.parametrize("pickler", PICKLERS)
def test_gym_env_continues_after_a_round_trip(pickler):
    env = UnoGymEnv(num_players=3, opponents="tactical", episode="round")
    observation, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(5):
        env.step(random_legal(env.action_masks(), rng))
    copy = round_trip(env, pickler)
    for _ in range(60):
        action = random_legal(env.action_masks(), rng)
        a, b = env.step(action), copy.step(action)
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        if a[2] or a[3]:
            observation, _ = env.reset()
            assert np.array_equal(observation, copy.reset()[0])  # the same generator carries on


@pytest.mark.parametrize("pickler", PICKLERS)
def test_vector_envs_continue_after_a_round_trip(pickler):
    env = UnoVectorEnv(8, num_players=2, seats=[None, "keeper"], seed=3)
    for _ in range(20):
        env.step(env.sample_actions())
    copy = round_trip(env, pickler)
    for _ in range(50):
        actions = env.sample_actions()
        assert np.array_equal(actions, copy.sample_actions())
        a, b = env.step(actions), copy.step(actions)
        for name in ("obs", "mask", "rewards", "terminated", "truncated", "seat"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name

    gym_vector = UnoGymVectorEnv(4, num_players=2)
    gym_vector.reset(seed=4)
    gym_copy = round_trip(gym_vector, pickler)
    actions = np.array([random_legal(m, np.random.default_rng(0)) for m in gym_vector.action_masks()])
    a, b = gym_vector.step(actions), gym_copy.step(actions)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])

    sb3 = UnoSB3VecEnv(4, num_players=2)
    sb3.seed(6)
    sb3.reset()
    sb3_copy = round_trip(sb3, pickler)
    actions = np.array([random_legal(m, np.random.default_rng(1)) for m in sb3.action_masks()])
    a, b = sb3.step(actions), sb3_copy.step(actions)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def pickled_objects():
    game = Game(num_players=2)
    return {
        "Game": game,
        "State": game.init(seed=1),
        "env": uno_env.env(num_players=2),
        "raw_env": uno_env.raw_env(num_players=2),
        "UnoGymEnv": UnoGymEnv(num_players=2),
        "UnoVectorEnv": UnoVectorEnv(2, num_players=2),
        "UnoGymVectorEnv": UnoGymVectorEnv(2, num_players=2),
    }


def test_protocols_below_2_are_refused_naming_the_lowest_that_works():
    for name, obj in pickled_objects().items():
        for protocol in (0, 1):
            with pytest.raises(pickle.PicklingError, match=rf"with protocol 2 or higher .*not protocol {protocol}"):
                pickle.dumps(obj, protocol=protocol)
        assert type(pickle.loads(pickle.dumps(obj, protocol=2))) is type(obj), name
