"""The Gym wrapper's opponents in one kernel call (uno_env/opponent_turns.py): the same games as
the Python play loop and as the tree before the reshape (9fbf422), seat by seat and generator
by generator, and the env's copies and pickles keep their opponents' generators bound."""

from __future__ import annotations

import copy
import hashlib
import pickle
import random

import numpy as np
import pytest

from uno_env import UnoGymEnv
from uno_env.agents.inputs import CompiledPolicy
from uno_env.engine import Game
from uno_env.engine.entry import ENGINE

CASES = {
    "2p random": ({"num_players": 2}, 12),
    "3p tactical, keeper": ({"num_players": 3, "opponents": ["tactical", "keeper"]}, 6),
    "4p naive, random_play, ppo; seat 2; games": (
        {"num_players": 4, "opponents": ["naive", "random_play", "ppo"], "learner_seat": 2, "episode": "game"},
        1,
    ),
}

GOLDEN = {
    "2p random": "19a8e0ec911f9aaa313b8fd419ff9490f39819b9a28ae959d19f0eeb7a9f8d12",
    "3p tactical, keeper": "8de1f376f4bec38e24cca5c1e90aedb3fd00642f879774fec497227a0c62f90c",
    "4p naive, random_play, ppo; seat 2; games": "862d404fe26df4442d6bb1bb87c4f8f1cf507269e353b030ba8fa09ee5f91242",
}
"""The fingerprints of :func:`fingerprint` with the Python play loop and CompiledPolicy opponents,
which this test reproduces: the first two on the tree before the reshape (commit 9fbf422), the
third on the tree just before the one-call opponents (63b943f; ``ppo``'s shipped networks
changed after 9fbf422, so its games did too)."""


def fingerprint(env, episodes: int, seed: int = 0) -> str:
    """SHA-256 of every observation, mask, reward, flag and episode-end info of ``episodes``
    seeded episodes with uniformly random legal learner actions."""
    chooser = random.Random(seed)
    digest = hashlib.sha256()
    for episode in range(episodes):
        observation, info = env.reset(seed=seed + episode)
        digest.update(observation.tobytes() + info["action_mask"].tobytes())
        for _ in range(5000):
            legal = info["action_mask"].nonzero()[0]
            observation, reward, terminated, truncated, info = env.step(int(legal[chooser.randrange(len(legal))]))
            digest.update(observation.tobytes() + info["action_mask"].tobytes())
            digest.update(repr((float(reward), terminated, truncated, info.get("outcome"))).encode())
            if terminated or truncated:
                digest.update(repr(info["episode_steps"]).encode())
                break
    return digest.hexdigest()


def python_loop_env(settings: dict) -> UnoGymEnv:
    """The same env with its opponents given as CompiledPolicy objects: the Python play loop."""
    settings = dict(settings)
    n = settings["num_players"]
    names = settings.pop("opponents", "random")
    names = [names] * (n - 1) if isinstance(names, str) else names
    game = Game(**{k: v for k, v in settings.items() if k != "learner_seat"}, illegal_action="lose")
    opponents = [CompiledPolicy(name, game, seed=k, checked=False) for k, name in enumerate(names)]
    return UnoGymEnv(opponents=opponents, **settings)


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_kernel_call_plays_the_games_of_the_python_loop_and_of_the_tree_before(case):
    settings, episodes = CASES[case]
    fused, looped = UnoGymEnv(**settings), python_loop_env(settings)
    ours = fingerprint(fused, episodes)
    if ENGINE.mode == "compiled":
        assert fused._turns is not None  # the kernel path
    assert looped._turns is None and not looped._in_one_call
    assert fingerprint(looped, episodes) == ours
    assert ours == GOLDEN[case]


def continuation(env, actions: int = 60, seed: int = 5) -> list:
    chooser = random.Random(seed)
    mask = env.action_masks()
    out = []
    for _ in range(actions):
        legal = mask.nonzero()[0]
        observation, reward, terminated, truncated, info = env.step(int(legal[chooser.randrange(len(legal))]))
        out.append((observation.tobytes(), reward, terminated, truncated))
        if terminated or truncated:
            env.reset()
        mask = env.action_masks()
    return out


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_keeps_its_opponents_generators_bound_to_its_kernel(how):
    env = UnoGymEnv(num_players=3, opponents=["random", "tactical"])
    env.reset(seed=4)
    continuation(env, 7)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    for policy in twin.opponents:
        assert np.shares_memory(policy.prng, twin._generators)
        assert not np.shares_memory(policy.prng, env._generators)
    assert continuation(twin) == continuation(env)
    twin.opponents[0].seed(99)  # reseeding through the policy reaches the kernel's slot
    assert twin._generators[1] == twin.opponents[0].prng[0] != env._generators[1]
