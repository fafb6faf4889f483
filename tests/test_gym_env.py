"""The Gymnasium single-agent wrapper."""

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from uno_env import IllegalActionError, UnoGymEnv


@pytest.mark.parametrize("settings", [{"num_players": 2}, {"num_players": 4, "deck": "fashion_trend"}])
def test_both_env_checkers_pass(settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gymnasium_check_env(UnoGymEnv(**settings), skip_render_check=False)
        sb3_check_env(UnoGymEnv(**settings), warn=True)


def test_masks_and_a_random_masked_episode():
    env = UnoGymEnv(num_players=3, opponents="random", episode="round", max_steps=3000)
    observation, info = env.reset(seed=3)
    assert observation.shape == env.observation_space.shape
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        observation, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated or truncated:
            break
    assert steps > 5
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)


def learner_wins_position():
    return {"hands": [["R2"], ["Y1", "Y2"], ["G1", "G2"]], "discard_pile": ["R7"], "current_player": 0}


def test_learner_gets_its_own_reward():
    env = UnoGymEnv(num_players=3, learner_seat=0, episode="round")
    env.reset(seed=0, options={"position": learner_wins_position()})
    _, reward, terminated, _, _ = env.step(env.game.string_to_action("play R2"))
    assert reward == 1.0 and terminated

    # the learner loses: seat 1 goes out during the opponents' turn, the -1 comes with the learner's step
    def first_legal(observation, mask):
        return int(np.flatnonzero(mask)[0])

    env = UnoGymEnv(num_players=3, learner_seat=0, opponents=first_legal, episode="round")
    position = {
        "hands": [["G1", "G2"], ["R2"], ["G3", "G4"]],
        "discard_pile": ["R7"],
        "draw_pile": ["B5", "..."],
        "current_player": 0,
    }
    env.reset(seed=0, options={"position": position})
    _, reward, terminated, _, _ = env.step(env.game.string_to_action("draw"))
    assert reward == -1.0 and terminated


def test_callable_opponents_and_a_random_learner_seat():
    calls = []

    def first_legal(observation, mask):
        calls.append(observation.shape)
        return int(np.flatnonzero(mask)[0])

    env = UnoGymEnv(num_players=4, opponents=[first_legal, "random", first_legal], learner_seat="random")
    seats = set()
    for seed in range(12):
        env.reset(seed=seed)
        seats.add(env.learner_seat)
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert len(seats) > 1 and calls
    with pytest.raises(ValueError, match="opponents"):
        UnoGymEnv(num_players=4, opponents=["random"])
    with pytest.raises(ValueError, match="unknown compiled policy"):
        UnoGymEnv(num_players=2, opponents="genius")
    with pytest.raises(ValueError, match="learner_seat"):
        UnoGymEnv(num_players=2, learner_seat=2)


def test_seeded_resets_are_reproducible():
    a, b = UnoGymEnv(num_players=3), UnoGymEnv(num_players=3)
    for env in (a, b):
        env.reset(seed=8)
    for _ in range(50):
        action = int(np.flatnonzero(a.action_masks())[0])
        out_a, out_b = a.step(action), b.step(action)
        assert np.array_equal(out_a[0], out_b[0]) and out_a[1:4] == out_b[1:4]
        if out_a[2] or out_a[3]:
            break


@pytest.mark.slow
def test_short_maskable_ppo_run_learns_without_error():
    from sb3_contrib import MaskablePPO

    env = UnoGymEnv(num_players=2, episode="round", max_steps=400)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, device="cpu")
    model.learn(total_timesteps=2048)
    observation, _ = env.reset(seed=1)
    action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
