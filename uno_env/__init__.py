"""UNO with the full official rules, for reinforcement learning.

* ``uno_env.env(**settings)`` / ``uno_env.raw_env``: the PettingZoo AEC environment
  (also ``pettingzoo.make("aec", "uno/uno_v0", ...)`` once ``uno_env`` is imported);
* ``uno_env.UnoGymEnv``: a Gymnasium single-agent wrapper (one learner seat,
  opponents played by given policies);
* ``uno_env.engine``: the compiled rules engine (numpy and numba only).
"""

import pettingzoo as _pettingzoo

from .engine import Game, IllegalActionError, ObservationSpec, PositionError, RuleConfig
from .env import ENV_ID, env, raw_env
from .gym_env import UnoGymEnv

__version__ = "0.1.0"

if "uno/uno-v0" not in _pettingzoo.aec_registry:
    _pettingzoo.register("aec", ENV_ID, entry_point="uno_env.env:env")

__all__ = [
    "ENV_ID",
    "Game",
    "IllegalActionError",
    "ObservationSpec",
    "PositionError",
    "RuleConfig",
    "UnoGymEnv",
    "env",
    "raw_env",
]
