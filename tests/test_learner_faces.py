"""The Gymnasium and SB3 faces agree: one illegal-action default, one opponent spec,
one info layout, a registered Gymnasium id, rendering and settings where SB3 asks."""

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env import UnoGymEnv
from uno_env.agents import make_agent
from uno_env.agents.policies import POLICY_IDS
from uno_env.engine import RuleConfig
from uno_env.learner import ILLEGAL_ACTION, CompiledPolicy, compiled_opponent_seats, opponents_per_seat
from uno_env.vector import UnoGymVectorEnv


def first_legal(observation, mask):
    return int(np.flatnonzero(mask)[0])


def test_agents_are_opponents_of_every_face():
    config = RuleConfig(num_players=3)
    naive = make_agent("naive", config, seed=3)
    env = UnoGymEnv(opponents=naive, num_players=3)
    env.reset(seed=0)  # used to raise TypeError: 'int' object is not callable
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    vec = UnoGymVectorEnv(2, num_players=3, opponents=naive)
    assert list(vec.env.seat_policies[1:]) == [POLICY_IDS["naive"]] * 2
    vec.reset(seed=0)
    pytest.importorskip("stable_baselines3")
    from uno_env.vector import UnoSB3VecEnv

    sb3 = UnoSB3VecEnv(2, num_players=3, opponents={1: naive, 2: "tactical"})
    assert list(sb3.env.seat_policies[1:]) == [POLICY_IDS["naive"], POLICY_IDS["tactical"]]


def test_one_opponent_spec():
    game = uno_env.Game(num_players=4)
    naive = CompiledPolicy("naive", game)
    assert opponents_per_seat(4, 1, "random") == ["random"] * 3
    assert opponents_per_seat(4, 1, {3: naive}) == ["random", "random", naive]
    assert opponents_per_seat(4, 1, [first_legal, "keeper", 2]) == [first_legal, "keeper", 2]
    assert compiled_opponent_seats(4, 1, {3: naive, 0: "keeper"}) == [
        POLICY_IDS["keeper"],
        None,
        POLICY_IDS["random"],
        POLICY_IDS["naive"],
    ]
    with pytest.raises(ValueError, match="not a seat other than the learner"):
        opponents_per_seat(4, 1, {1: "random"})
    with pytest.raises(ValueError, match="fixed learner_seat"):
        UnoGymEnv(num_players=4, learner_seat="random", opponents={2: "random"})
    with pytest.raises(ValueError, match="one policy or 3"):
        UnoGymEnv(num_players=4, opponents=["random"])
    with pytest.raises(ValueError, match="Python policy.*compiled kernel"):
        UnoGymVectorEnv(2, num_players=2, opponents=first_legal)
    with pytest.raises(ValueError, match="unknown compiled policy"):
        UnoGymVectorEnv(2, num_players=2, opponents="genius")
    env = UnoGymEnv(num_players=4, learner_seat=1, opponents={0: first_legal, 3: "keeper"})
    env.reset(seed=2)
    assert env._seat_policy[0] is first_legal and env._seat_policy[3].name == "keeper"
    assert env._seat_policy[2].name == "random"


def test_seeded_agent_opponents_are_reproducible():
    def run():
        agent = make_agent("random", RuleConfig(num_players=2), seed=9)
        env = UnoGymEnv(num_players=2, opponents=agent)
        env.reset(seed=5)
        trace = []
        for _ in range(30):
            obs, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.tobytes())
            if terminated or truncated:
                break
        return trace

    assert run() == run()


def test_one_illegal_action_default():
    assert ILLEGAL_ACTION == "lose"
    env = UnoGymEnv(num_players=2)
    vec = UnoGymVectorEnv(4, num_players=2)
    assert env.config.illegal_action == vec.config.illegal_action == ILLEGAL_ACTION
    vec.reset(seed=0)
    vec.action_space.seed(0)
    for _ in range(5):  # used to raise where UnoGymEnv ends the episode
        _, rewards, terminated, truncated, infos = vec.step(vec.action_space.sample())
    assert UnoGymVectorEnv(2, RuleConfig(num_players=2), illegal_action="raise").config.illegal_action == "raise"
    pytest.importorskip("stable_baselines3")
    from uno_env.vector import UnoSB3VecEnv

    assert UnoSB3VecEnv(2, num_players=2).config.illegal_action == ILLEGAL_ACTION


def test_one_info_layout():
    env = UnoGymEnv(num_players=2, episode="round")
    _, info = env.reset(seed=3)
    assert set(info) == {"action_mask", "learner_seat"} and info["action_mask"].dtype == bool
    for _ in range(500):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    assert set(info) == {"action_mask", "learner_seat", "outcome", "episode_steps"}
    assert info["outcome"] in (-1, 0, 1) and info["episode_steps"] > 0
    vec = UnoGymVectorEnv(3, num_players=2, episode="round", learner_seat=1)
    _, infos = vec.reset(seed=3)
    assert infos["action_mask"].dtype == bool and list(infos["learner_seat"]) == [1, 1, 1]
    done = np.zeros(3, dtype=bool)
    for _ in range(500):
        _, _, terminated, truncated, infos = vec.step(np.array([np.flatnonzero(m)[0] for m in vec.action_masks()]))
        if (terminated | truncated).any():
            done = terminated | truncated
            break
    final = infos["final_info"]
    assert {"outcome", "episode_steps", "learner_seat"} <= set(final)
    assert list(final["learner_seat"][done]) == [1] * done.sum()
    pytest.importorskip("stable_baselines3")
    from uno_env.vector import UnoSB3VecEnv

    sb3 = UnoSB3VecEnv(3, num_players=2, episode="round", seed=3)
    sb3.reset()
    for _ in range(500):
        sb3.step_async(np.array([np.flatnonzero(m)[0] for m in sb3.action_masks()]))
        _, _, dones, infos = sb3.step_wait()
        assert all({"action_mask", "learner_seat"} <= set(info) for info in infos)
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert {"outcome", "episode_steps", "terminal_observation", "TimeLimit.truncated"} <= set(infos[i])
            break
    else:
        raise AssertionError("no episode ended")


def test_gymnasium_make_and_numpy_seeds():
    env = gymnasium.make(uno_env.GYM_ENV_ID, num_players=3, opponents="tactical")
    assert isinstance(env.unwrapped, UnoGymEnv) and env.unwrapped.config.num_players == 3
    a, _ = env.reset(seed=np.int64(4))
    b, _ = UnoGymEnv(num_players=3, opponents="tactical").reset(seed=4)
    assert np.array_equal(a, b)
    aec = uno_env.env(num_players=2)
    aec.reset(seed=np.uint32(4))
    vec = UnoGymVectorEnv(2, num_players=2)
    vec.reset(seed=np.int32(4))


def test_vector_render_get_images_and_set_attr():
    vec = UnoGymVectorEnv(2, num_players=2, render_mode="ansi")
    vec.reset(seed=0)
    frames = vec.render()
    assert len(frames) == 2 and all("UNO" in frame for frame in frames)
    pytest.importorskip("stable_baselines3")
    from uno_env.vector import UnoSB3VecEnv

    sb3 = UnoSB3VecEnv(2, num_players=2, seed=0)
    sb3.reset()
    assert sb3.get_attr("render_mode") == [None, None]
    sb3.set_attr("render_mode", "rgb_array")
    assert sb3.get_attr("render_mode") == ["rgb_array"] * 2
    images = sb3.get_images()
    assert len(images) == 2 and images[0].ndim == 3 and images[0].dtype == np.uint8
    tiled = sb3.render(mode="rgb_array")
    assert tiled.ndim == 3
    with pytest.raises(ValueError, match="every game"):
        sb3.set_attr("render_mode", None, indices=[0])
    with pytest.raises(AttributeError, match="cannot set"):
        sb3.set_attr("num_players", 3)
