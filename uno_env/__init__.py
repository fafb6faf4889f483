"""UNO with the full official rules, for reinforcement learning.

* ``uno_env.env(**settings)`` / ``uno_env.raw_env``: the PettingZoo AEC environment
  (also ``pettingzoo.make("aec", "uno/uno_v1", ...)`` once ``uno_env`` is imported, with
  PettingZoo 1.27 or later: 1.25 and 1.26 have no registry);
* ``uno_env.UnoGymEnv``: a Gymnasium single-agent wrapper (one learner seat,
  opponents played by given policies; also ``gymnasium.make("uno_env/Uno-v1", ...)``
  once ``uno_env`` is imported, :data:`GYM_ENV_ID`);
* ``uno_env.engine``: the compiled rules engine (numpy and numba only).

Whatever numba compiles on a first use (an empty cache) says so in one line on stderr
(:mod:`uno_env.engine.compile_notice`); later runs load it from the cache, silently.
"""

import gymnasium as _gymnasium
import pettingzoo as _pettingzoo

from .engine import Game, IllegalActionError, ObservationSpec, PositionError, RuleConfig
from .env import ENV_ID, env, raw_env
from .gym_env import UnoGymEnv

__version__ = "0.1.0"

GYM_ENV_ID = "uno_env/Uno-v1"
"""The Gymnasium id of :class:`UnoGymEnv` (``gymnasium.make(GYM_ENV_ID, num_players=3)``)."""

# PettingZoo has a registry (``pettingzoo.make``) from 1.27 on; with 1.25 and 1.26 (AgileRL
# pins pettingzoo<1.27) the env is made by ``uno_env.env()`` alone
if hasattr(_pettingzoo, "register") and ENV_ID not in _pettingzoo.aec_registry:
    _pettingzoo.register("aec", ENV_ID, entry_point="uno_env.env:env")
if GYM_ENV_ID not in _gymnasium.registry:
    # no TimeLimit: the rules' max_steps truncates
    _gymnasium.register(GYM_ENV_ID, entry_point="uno_env.gym_env:UnoGymEnv")

__all__ = [
    "ENV_ID",
    "GYM_ENV_ID",
    "Game",
    "IllegalActionError",
    "ObservationSpec",
    "PositionError",
    "RuleConfig",
    "UnoGymEnv",
    "env",
    "raw_env",
]
