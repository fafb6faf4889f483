"""The benchmarks of the history (airspeed velocity): each path a user times, at two players.

Only the public API that every commit since the pre-reshape tree (9fbf422) has is used, so
that ``asv continuous 9fbf422 HEAD`` compares like with like. Single-game loops play uniformly
random legal actions drawn with ``random.Random.randrange`` over ``ndarray.nonzero`` of the
mask (as ``uno bench`` and ``benchmarks/ab.py`` do).

numba compiles the engine in the first benchmark's setup of a freshly built commit (a few
minutes; hence the long ``timeout``), in the process: ``UNO_BACKGROUND_COMPILE=0``, so that
no benchmark ever times the interpreted engine that plays while a background process compiles.
"""

from __future__ import annotations

import os
import random

os.environ.setdefault("UNO_BACKGROUND_COMPILE", "0")
os.environ.setdefault("UNO_COMPILE_NOTICE", "0")

DECISIONS = 1000
"""Decisions (or Gym steps) per timed call of the single-game loops."""
COMPILE_TIMEOUT = 1200
"""Seconds a benchmark's setup may take where it compiles the engine (numba's first run)."""


def _choose(chooser: random.Random, mask) -> int:
    legal = mask.nonzero()[0]
    return int(legal[chooser.randrange(len(legal))])


class AEC:
    """``uno_env.env`` (PettingZoo AEC with its wrappers): ``last()``, then ``step``."""

    timeout = COMPILE_TIMEOUT

    def setup(self):
        import uno_env

        self.env = uno_env.env(num_players=2)
        self.chooser = random.Random(0)
        self.episode = 0
        self.env.reset(seed=0)
        self.time_decisions()  # loaded (or compiled), warm

    def time_decisions(self):
        env, chooser = self.env, self.chooser
        done = 0
        while done < DECISIONS:
            if not env.agents:
                self.episode += 1
                env.reset(seed=self.episode)
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(_choose(chooser, observation["action_mask"]))
            done += 1


class Gym:
    """``UnoGymEnv`` with its default opponent (compiled ``random``): learner steps."""

    timeout = COMPILE_TIMEOUT
    params = ["random", "tactical"]
    param_names = ["opponent"]

    def setup(self, opponent):
        from uno_env import UnoGymEnv

        self.env = UnoGymEnv(num_players=2, opponents=opponent)
        self.chooser = random.Random(0)
        self.episode = 0
        _, self.info = self.env.reset(seed=0)
        self.time_steps(opponent)

    def time_steps(self, opponent):
        env, chooser, info = self.env, self.chooser, self.info
        for _ in range(DECISIONS):
            _, _, terminated, truncated, info = env.step(_choose(chooser, info["action_mask"]))
            if terminated or truncated:
                self.episode += 1
                _, info = env.reset(seed=self.episode)
        self.info = info


class SingleGame:
    """``Game``: legal actions, step, the next seat's observation."""

    timeout = COMPILE_TIMEOUT

    def setup(self):
        from uno_env.engine import Game

        self.game = Game(num_players=2)
        self.state = self.game.init(seed=0)
        self.chooser = random.Random(0)
        self.time_decisions()

    def time_decisions(self):
        game, state, chooser = self.game, self.state, self.chooser
        for _ in range(DECISIONS):
            if game.is_over(state):
                game.reset(state)
            legal = game.legal_actions(state)
            game.step(state, legal[chooser.randrange(len(legal))])
            if not game.is_over(state):
                game.observe(state, game.current_player(state))


class Vector:
    """``UnoVectorEnv``: a step of every game with the env's own random legal actions."""

    timeout = COMPILE_TIMEOUT
    params = [1, 256]
    param_names = ["num_envs"]

    def setup(self, num_envs):
        from uno_env.vector import UnoVectorEnv

        self.env = UnoVectorEnv(num_envs, num_players=2, parallel=False, seed=0)
        self.time_steps(num_envs)

    def time_steps(self, num_envs):
        env = self.env
        for _ in range(20):
            env.step(env.sample_actions())


class CompiledPolicies:
    """Compiled policies playing every seat inside the kernel (``UnoVectorEnv.play``), 256 games."""

    timeout = COMPILE_TIMEOUT
    params = ["random", "tactical", "ppo"]
    param_names = ["policy"]

    def setup(self, policy):
        from uno_env.vector import UnoVectorEnv

        self.env = UnoVectorEnv(256 if policy != "ppo" else 32, num_players=2, parallel=False, seed=0)
        self.time_play(policy)

    def time_play(self, policy):
        self.env.play(16, policies=[policy, policy])
