"""Vector envs on the compiled engine kernels: N games in lockstep, autoreset, compiled seats.

* :class:`UnoVectorEnv`: every game's acting seat, its observation and mask, the
  rewards of all seats (:mod:`.core` explains autoreset and seeding).
* :class:`UnoGymVectorEnv`: a ``gymnasium.vector.VectorEnv`` for one learner seat,
  the other seats played inside the kernel by compiled policies.
* ``UnoSB3VecEnv`` (:mod:`.sb3_adapter`, needs stable-baselines3): the same as an
  SB3 ``VecEnv`` with ``action_masks()`` for sb3-contrib's MaskablePPO.
"""

from .core import (
    PARALLEL_THRESHOLD,
    UnoVectorEnv,
    VectorStep,
    policy_id,
    policy_seed_to_rng,
    seat_policies_for,
    seeds_to_rng,
)
from .fused import EXTERNAL
from .gym_adapter import UnoGymVectorEnv


def __getattr__(name):
    """``UnoSB3VecEnv`` imported on first use: its module needs stable-baselines3, an optional dependency."""
    if name == "UnoSB3VecEnv":
        from .sb3_adapter import UnoSB3VecEnv  # stable-baselines3: the train extra

        return UnoSB3VecEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "EXTERNAL",
    "PARALLEL_THRESHOLD",
    "UnoGymVectorEnv",
    "UnoSB3VecEnv",
    "UnoVectorEnv",
    "VectorStep",
    "policy_id",
    "policy_seed_to_rng",
    "seat_policies_for",
    "seeds_to_rng",
]
