"""UNO with the full official rules, for reinforcement learning.

* ``uno_env.env(**settings)`` / ``uno_env.raw_env``: the PettingZoo AEC environment
  (also ``pettingzoo.make("aec", "uno/uno_v0", ...)`` once ``uno_env`` is imported);
* ``uno_env.UnoGymEnv``: a Gymnasium single-agent wrapper (one learner seat,
  opponents played by given policies; also ``gymnasium.make("uno_env/Uno-v0", ...)``
  once ``uno_env`` is imported, :data:`GYM_ENV_ID`);
* ``uno_env.engine``: the compiled rules engine (numpy and numba only).
"""

import pathlib as _pathlib
import sys as _sys

import gymnasium as _gymnasium
import pettingzoo as _pettingzoo

from .engine import Game, IllegalActionError, ObservationSpec, PositionError, RuleConfig
from .engine import numba_cache as _numba_cache
from .env import ENV_ID, env, raw_env
from .gym_env import UnoGymEnv


def _kernels_cached() -> bool:
    """Whether numba's cache holds the engine's kernels (else the first use compiles them)."""
    root = _pathlib.Path(__file__).resolve().parent.parent
    kernels = root / "uno_env" / "engine" / "kernels.py"
    return any(any(folder.glob("kernels.*.nbi")) for _, folder in _numba_cache.cache_locations(root, kernels))


if not _kernels_cached():  # the first use compiles, silently for minutes otherwise
    print("uno_env: compiling the engine's kernels (once, about a minute)...", file=_sys.stderr, flush=True)

__version__ = "0.1.0"

GYM_ENV_ID = "uno_env/Uno-v0"
"""The Gymnasium id of :class:`UnoGymEnv` (``gymnasium.make(GYM_ENV_ID, num_players=3)``)."""

if ENV_ID not in _pettingzoo.aec_registry:
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
