"""The AEC env's shortcuts behave as the long way round: OrderEnforcing.step going
straight to the raw env gives the errors and results PettingZoo's OrderEnforcingWrapper
over our AssertOutOfBounds gives, and last() returns what observe() returns, in fresh
arrays."""

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import uno_env
from uno_env.env import AssertOutOfBounds, raw_env

ACTIONS = [0, 5, 60, 69, 70, -1, 2**63, None, True, 1.0, "1", np.int64(60), np.int8(-1), np.array(60), np.array([1])]
ROUND_END = {"hands": [["R2"], ["Y1", "Y2"], ["G1", "G2"]], "discard_pile": ["R7"], "current_player": 0}


def outcome(make, setup, action):
    env = make()
    setup(env)
    try:
        env.step(action)
    except Exception as error:  # the type and message are what is compared
        return type(error).__name__, str(error)
    raw = env.unwrapped
    return "ok", raw.position(), raw.agents, raw.agent_selection, dict(raw.rewards), dict(raw._cumulative_rewards)


def live(env):
    env.reset(seed=3)


def dead(env):  # the round is over: every agent is terminated and steps None
    env.reset(seed=3, options={"position": ROUND_END})
    env.step(env.unwrapped.encode_action("play R2"))
    assert env.unwrapped.terminations[env.unwrapped.agent_selection]


@pytest.mark.parametrize("setup", [live, dead], ids=["agent-in-play", "agent-terminated"])
@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_order_enforcing_step_matches_pettingzoos_wrapper_chain(setup, action):
    def ours():
        return uno_env.env(num_players=3, episode="round")

    def pettingzoos():
        return wrappers.OrderEnforcingWrapper(AssertOutOfBounds(raw_env(num_players=3, episode="round")))

    assert outcome(ours, setup, action) == outcome(pettingzoos, setup, action)


def test_step_before_reset_and_after_the_end_as_pettingzoo():
    env = uno_env.env(num_players=2)
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = env.agents
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(Exception, match="reset"):
        env.step(0)


def test_last_returns_observe_in_fresh_arrays():
    env = uno_env.env(num_players=3)
    env.reset(seed=5)
    raw = env.unwrapped
    first, second = env.last()[0], env.last()[0]
    expected = raw.observe(raw.agent_selection)
    for key in ("observation", "action_mask"):
        assert first[key] is not second[key] and not np.shares_memory(first[key], second[key])
        assert first[key].dtype == expected[key].dtype
        np.testing.assert_array_equal(first[key], expected[key])
    assert env.last(observe=False)[0] is None


def test_last_uses_an_overridden_observe():
    class Marked(raw_env):
        def observe(self, agent):
            observation = super().observe(agent)
            observation["observation"][0] = -7.0
            return observation

    env = Marked(num_players=2)
    env.reset(seed=1)
    assert env.last()[0]["observation"][0] == -7.0


def test_once_reset_step_is_the_raw_envs_and_agent_iter_still_asks_for_a_step():
    env = uno_env.env(num_players=2)
    env.reset(seed=5)
    assert env.step == env.unwrapped.step  # no wrapper frame a decision
    iterator = iter(env.agent_iter(10))
    next(iterator)
    with pytest.raises(AssertionError, match="need to call step"):
        next(iterator)  # no step since the last agent
    observation, *_ = env.last()
    with pytest.raises(uno_env.IllegalActionError):
        env.step(999)  # refused: not a step, so the iterator still asks for one
    with pytest.raises(AssertionError, match="need to call step"):
        next(iterator)
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert next(iterator) == env.agent_selection
    env.reset(seed=6)  # a reset counts as a step for the iterator, as in PettingZoo
    assert next(iter(env.agent_iter(10))) == env.agent_selection
