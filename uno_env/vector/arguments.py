"""What a vector env is handed, checked before anything is allocated: who plays each seat
(:func:`seat_policies_for`, and for the one-learner faces :func:`learner_seats`), the batch
size against this machine's memory (:func:`bytes_per_game`), and counts and game indices.
Each check raises ValueError (TypeError for a game index that is no integer) naming the
argument and its value."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..agents import policies as policy_kernels
from ..engine.game import Game
from ..engine.layout import P_C_SIZE, P_I_SIZE
from ..engine.seeding import NOT_INTEGERS
from ..learner import compiled_opponent_seats
from .fused import EXTERNAL

_EXTERNAL_NAMES = (None, "external", "agent", "learner")


def policy_id(policy) -> int:
    """The id of a compiled policy given by name or id; ValueError naming the known ones."""
    return policy_kernels.policy_id_of(policy)


def seat_policies_for(num_players: int, seats) -> np.ndarray:
    """Per seat: ``EXTERNAL`` for a seat the caller plays, else a compiled policy id.

    ``seats``: None (the caller plays every seat), a sequence with one entry per seat
    (None / "external" / "agent" / "learner" for a seat of the caller's, else a policy
    name or id), or a dict seat -> policy (seats not named are the caller's)."""
    out = np.full(num_players, EXTERNAL, dtype=np.int64)
    if seats is None:
        return out
    for seat, policy in seat_entries(num_players, seats):
        out[seat] = EXTERNAL if policy in _EXTERNAL_NAMES else policy_id(policy)
    if not (out == EXTERNAL).any():
        raise ValueError("seats: at least one seat must be played by the caller (None / 'external')")
    return out


def seat_entries(num_players: int, seats):
    """The (seat, policy) pairs of ``seats`` (a dict or a sequence, see :func:`seat_policies_for`),
    each seat checked as it comes; ValueError for anything else."""
    if isinstance(seats, dict):
        for seat, policy in seats.items():
            if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)):
                raise ValueError(f"seats: a seat must be an integer, got {seat!r}")
            if not 0 <= seat < num_players:
                raise ValueError(f"seats: seat {seat} out of range 0..{num_players - 1}")
            yield seat, policy
    elif isinstance(seats, Sequence) and not isinstance(seats, str):
        if len(seats) != num_players:
            raise ValueError(f"seats: expected one entry per seat ({num_players}), got {len(seats)}")
        yield from enumerate(seats)
    else:
        raise ValueError(f"seats must be None, a sequence with one entry per seat or a dict, got {seats!r}")


def bytes_per_game(game: Game, final_seats: int) -> int:
    """The bytes one game of a :class:`UnoVectorEnv` keeps (state, buffers, ``final_seats``
    final observations), for the size check before anything is allocated."""
    P, n = game.params, game.num_players
    state = int(P[P_C_SIZE]) + 4 * int(P[P_I_SIZE]) + 8 + 8 + 8 + 4
    buffers = 4 * game.observation_size * (1 + final_seats) + game.num_actions + 8 * n + 4 * n + n + 8 + 4 + 8 + 4
    return state + buffers


def check_batch(num_envs, parallel, final_observation) -> None:
    """ValueError unless ``num_envs`` is a positive integer, ``parallel`` "auto", True or False
    and ``final_observation`` True or False (a bool: not 1, 0 or "no")."""
    if isinstance(num_envs, NOT_INTEGERS) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if not (isinstance(parallel, bool) or (isinstance(parallel, str) and parallel == "auto")):
        raise ValueError(f"parallel must be 'auto', True or False, got {parallel!r}")
    if not isinstance(final_observation, bool):
        raise ValueError(f"final_observation must be True or False, got {final_observation!r}")


def check_memory(num_envs: int, game: Game, final_seats: int) -> None:
    """ValueError when ``num_envs`` games (:func:`bytes_per_game`) need more than this machine's memory."""
    needed = num_envs * bytes_per_game(game, final_seats)
    memory = physical_memory()
    if memory and needed > memory:
        raise ValueError(
            f"num_envs={num_envs}: the buffers of that many games need about {needed / 2**30:.1f} GiB, more than "
            f"this machine's {memory / 2**30:.1f} GiB of memory"
        )


def check_count(value, name: str) -> None:
    """ValueError unless ``value`` is an integer (not a bool) from 1 to the largest int64."""
    limit = np.iinfo(np.int64).max
    if isinstance(value, NOT_INTEGERS) or not isinstance(value, (int, np.integer)) or not 1 <= value <= limit:
        raise ValueError(f"{name} must be an integer 1..{limit}, got {value!r}")


def physical_memory() -> int:
    """Bytes of memory of this machine (0 where the system does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return 0


def game_index(index, num_envs: int, what: str = "index") -> int:
    """``index`` as a game of the batch: an integer (not a bool) in ``0..num_envs - 1``."""
    if isinstance(index, NOT_INTEGERS) or not isinstance(index, (int, np.integer)):
        kind = type(index).__name__
        raise TypeError(f"{what} must be an integer game index 0..{num_envs - 1}, got {index!r} ({kind})")
    if not 0 <= index < num_envs:
        raise ValueError(f"{what} must be a game 0..{num_envs - 1}, got {index!r}")
    return int(index)


def learner_seats(num_players: int, learner_seat: int, opponents) -> list:
    """The ``seats`` of a one-learner env: None at ``learner_seat``, compiled policies elsewhere.

    ``opponents``: one policy for every other seat, a sequence with one policy per other
    seat in seat order, or a dict seat -> policy (others: random); a policy is a compiled
    policy's name or id, or an object with a ``policy_id`` (a ``CompiledPolicy``, an agent
    of ``uno_env.agents.make_agent``). The one parser of :mod:`uno_env.learner`."""
    return compiled_opponent_seats(num_players, learner_seat, opponents)
