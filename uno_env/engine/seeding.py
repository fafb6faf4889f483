"""Seeds: the one home of seed derivation (splitmix64) for the engine, the vector env,
the compiled policies and the agents. One seed gives one game in any process: nothing
here uses Python's salted ``hash`` or the order of a set."""

from __future__ import annotations

from typing import cast

import numpy as np

_MASK64 = (1 << 64) - 1
NOT_INTEGERS = (bool, np.bool_, np.timedelta64)
"""What ``isinstance(x, (int, np.integer))`` lets through but no door takes as an integer:
bools, and numpy's timedelta64 (an integer subclass)."""
SEED_MAX = _MASK64
"""The largest seed: seeds are the integers 0..2**64 - 1 (:func:`check_seed`)."""
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB  # splitmix64
_NONZERO = np.uint64(0x2545F4914F6CDD1D)  # xorshift generators must not start at 0
_POLICY_SALT = np.uint64(0xD1B54A32D192ED03)


def splitmix64(z: np.ndarray) -> np.ndarray:
    """One splitmix64 step of each uint64 in ``z``: the mixed value of ``z`` (a new array)."""
    with np.errstate(over="ignore"):
        z = np.asarray(z, dtype=np.uint64) + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    return z ^ (z >> np.uint64(31))


def splitmix64_int(z: int) -> int:
    """:func:`splitmix64` of one value as Python ints: the scalar paths (a seed per game,
    per agent reset) run it thousands of times, and numpy's scalars and ``errstate`` cost
    about 20 us a call against 4 here."""
    z = (z + _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def _nonzero(z: np.ndarray) -> np.ndarray:
    z[z == 0] = _NONZERO
    return z


def check_seed(seed, what: str = "seed") -> int:
    """``seed`` as a Python int: an integer (a Python or numpy integer, not a bool) in
    ``0..2**64 - 1``. Anything else raises ValueError naming ``what`` and the value. The
    one check of every door that takes a seed (the engine, the envs, the agents)."""
    if type(seed) is int:
        if 0 <= seed <= _MASK64:
            return seed
    elif isinstance(seed, NOT_INTEGERS) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{what} must be an integer in 0..2**64 - 1 (a seed must be an integer), got {_shown(seed)}")
    else:
        value = int(seed)
        if 0 <= value <= _MASK64:
            return value
    raise ValueError(f"{what} must be an integer in 0..2**64 - 1, got {int(seed)}")


def _shown(value) -> str:
    text = repr(value)
    return f"{text[:57]}... ({type(value).__name__})" if len(text) > 60 else f"{text} ({type(value).__name__})"


def seeds_to_rng(seed: int | np.integer, count: int) -> np.ndarray:
    """Engine generator states for the seeds ``seed, seed + 1, ..., seed + count - 1``
    (never zero); every one of them must be a seed (:func:`check_seed`)."""
    first = check_seed(seed)
    if count > 0 and first + count - 1 > _MASK64:
        raise ValueError(f"seed {first} + {count - 1} (one seed per game) is beyond the largest seed 2**64 - 1")
    z = np.uint64(first) + np.arange(count, dtype=np.uint64)
    return _nonzero(splitmix64(z))


def seed_to_rng(seed: int | np.integer) -> np.uint64:
    """The engine generator state for a seed (``seeds_to_rng(seed, 1)[0]``)."""
    return np.uint64(splitmix64_int(check_seed(seed))) or _NONZERO


def policy_seeds(engine_rng: np.ndarray) -> np.ndarray:
    """The compiled policies' generator states of games whose engine generators were just
    seeded: a stream separate from the engine's (vectorized)."""
    return _nonzero(splitmix64(np.asarray(engine_rng, dtype=np.uint64) ^ _POLICY_SALT))


def policy_seed_to_rng(seed: int) -> np.uint64:
    """The compiled policies' generator state of a game seeded with ``seed``."""
    return policy_seeds(np.array([seed_to_rng(seed)], dtype=np.uint64))[0]


def hash_seed(*parts: int) -> int:
    """A 63-bit seed mixed from integers (one splitmix64 step per part); the same parts give
    the same seed in every process."""
    z = 0x243F6A8885A308D3
    for part in parts:
        z = splitmix64_int(z ^ (int(part) & _MASK64))
    return z >> 1


def fresh_seed() -> int:
    """A seed from the OS, for resets without one (63 bits: ``seed + i`` of a batch stays a seed)."""
    entropy = np.random.SeedSequence().entropy  # drawn from the OS: an int (the stubs allow any seed input)
    return int(cast(int, entropy)) & (_MASK64 >> 1)
