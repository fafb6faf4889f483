"""A refused reset changes nothing, at every door: the Gym wrapper (built directly and through
gymnasium.make), the PettingZoo AEC env and the vector envs. Each test refuses resets with a
seed and a bad option in the middle of a game, then compares every generator (the env's, the
opponents', the games') and the game's continuation with a twin that was never asked."""

from __future__ import annotations

import copy
import random

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env import UnoGymEnv
from uno_env.vector import UnoGymVectorEnv, UnoVectorEnv

BAD_DEALERS = [5, -1, True, 1.0, "0"]
BAD_OPTIONS = [{"dealer": dealer} for dealer in BAD_DEALERS] + [
    {"dealer": 0, "colour": "red"},  # an unknown option beside a good one
    {"position": {"players": 2}, "deck": ["R0"]},
    {"deck": ["not a card"]},
    {"position": {"not": "a position"}},
]
BAD_SEEDS = [-1, 2**64, True, 1.5, "7"]


def gym_generators(env) -> tuple:
    raw = env.unwrapped
    opponents = tuple(policy.random_state().tobytes() for policy in raw.opponents)
    return repr(raw.np_random.bit_generator.state), opponents, raw._state.rng.tobytes()


def gym_continuation(env, steps: int = 40) -> list:
    chooser = random.Random(3)
    mask = env.unwrapped.action_masks()
    out = []
    for _ in range(steps):
        legal = mask.nonzero()[0]
        observation, reward, terminated, truncated, info = env.step(int(legal[chooser.randrange(len(legal))]))
        out.append((observation.tobytes(), reward, terminated, truncated, info["action_mask"].tobytes()))
        if terminated or truncated:
            observation, info = env.reset()
            out.append(observation.tobytes())
        mask = env.unwrapped.action_masks()
    return out


def mid_game(env, steps: int = 5):
    env.reset(seed=4)
    gym_continuation(env, steps)
    return env


@pytest.mark.parametrize("make", ["UnoGymEnv", "gymnasium.make"])
def test_a_refused_gym_reset_changes_nothing(make):
    if make == "UnoGymEnv":
        env = UnoGymEnv(num_players=2, opponents="tactical")
    else:
        env = gymnasium.make("uno_env/Uno-v1", num_players=2, opponents="tactical")
    mid_game(env)
    twin = copy.deepcopy(env)
    before = gym_generators(env)
    for options in BAD_OPTIONS:
        with pytest.raises((ValueError, TypeError)):
            env.reset(seed=9, options=options)
        assert gym_generators(env) == before, options
    for seed in BAD_SEEDS:
        with pytest.raises((ValueError, TypeError)):
            env.reset(seed=seed, options={"dealer": 1})
        assert gym_generators(env) == before, seed
    assert gym_continuation(env) == gym_continuation(twin)


def test_the_gym_wrapper_names_the_bad_dealer():
    env = UnoGymEnv(num_players=2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"dealer must be a seat 0\.\.1, got 5"):
        env.reset(seed=9, options={"dealer": 5})
    _, info = env.reset(seed=9, options={"dealer": 1})  # a good one is taken
    assert env.game.position(env._state)["dealer"] == 1 and info["action_mask"].dtype == bool


def aec_continuation(env, steps: int = 60) -> list:
    chooser = random.Random(3)
    out = []
    for _ in range(steps):
        if not env.agents:
            env.reset()
        observation, reward, terminated, truncated, _ = env.last()
        out.append((env.agent_selection, observation["observation"].tobytes(), reward, terminated, truncated))
        if terminated or truncated:
            env.step(None)
            continue
        legal = observation["action_mask"].nonzero()[0]
        env.step(int(legal[chooser.randrange(len(legal))]))
    return out


def test_a_refused_aec_reset_changes_nothing():
    env = uno_env.env(num_players=2)
    env.reset(seed=4)
    aec_continuation(env, 5)
    twin = copy.deepcopy(env)
    raw = env.unwrapped

    def generators():
        return repr(raw.np_random.bit_generator.state), raw._state.rng.tobytes(), raw._state.ints.tobytes()

    before = generators()
    for options in BAD_OPTIONS:
        if set(options) == {"dealer", "colour"}:
            continue  # the AEC env warns of unknown options (PettingZoo's api_test passes its own)
        with pytest.raises((ValueError, TypeError)):
            env.reset(seed=9, options=options)
        assert generators() == before, options
    for seed in BAD_SEEDS:
        with pytest.raises((ValueError, TypeError)):
            env.reset(seed=seed, options={"dealer": 1})
        assert generators() == before, seed
    assert aec_continuation(env) == aec_continuation(twin)


def vector_generators(env: UnoVectorEnv) -> tuple:
    return env.rng.tobytes(), env.prng.tobytes(), env._sampler_rng.tobytes(), env.ints.tobytes()


def vector_continuation(env: UnoGymVectorEnv, steps: int = 20) -> list:
    out = []
    for _ in range(steps):
        observation, reward, terminated, truncated, _ = env.step(env.env.sample_actions())
        out.append((observation.tobytes(), reward.tobytes(), terminated.tobytes(), truncated.tobytes()))
    return out


def test_a_refused_vector_reset_changes_nothing():
    env = UnoGymVectorEnv(3, num_players=2, opponents="tactical")
    env.reset(seed=4)
    vector_continuation(env, 3)
    twin = copy.deepcopy(env)
    before = vector_generators(env.env)
    refused = [
        {"dealer": 0},
        {"position": {}},
        {"reset_mask": [True, False]},
        {"reset_mask": np.array([1, 0, 1])},
        {"reset_mask": np.ones(3, dtype=bool), "deck": ["R0"]},
    ]
    for options in refused:
        with pytest.raises(ValueError):
            env.reset(seed=9, options=options)
        assert vector_generators(env.env) == before, options
    for seed in ([1, 2], [1, 2, -3], -1, True, "7"):
        with pytest.raises(ValueError):
            env.reset(seed=seed, options={"reset_mask": np.array([True, False, True])})
        assert vector_generators(env.env) == before, seed
    assert vector_continuation(env) == vector_continuation(twin)
