"""What the three one-learner faces share: :class:`~uno_env.UnoGymEnv` (Gymnasium),
:class:`~uno_env.vector.UnoGymVectorEnv` (Gymnasium vector) and
:class:`~uno_env.vector.UnoSB3VecEnv` (stable-baselines3).

**Illegal actions.** All three default to ``illegal_action="lose"``
(:data:`ILLEGAL_ACTION`): a Gymnasium env must accept every action of its space,
so a masked-out action id ends the learner's episode with -1 for the learner
(mask your policy to avoid it; ``info["action_mask"]`` and ``action_masks()``
give the legal ones). Pass ``illegal_action="penalty"`` or ``"raise"`` for the
engine's other behaviours (:class:`~uno_env.engine.RuleConfig`). What is not an
action id at all (a bool, float, str, None, an array of the wrong shape, an id
outside the action space) always raises :class:`~uno_env.engine.IllegalActionError`
and changes nothing (:func:`uno_env.engine.action_id`).

**Opponents.** ``opponents`` is one policy for every other seat, a list with one
policy per other seat in seat order (skipping the learner), or a dict seat ->
policy (seats left out play ``"random"``). A policy is

* the name of a compiled policy (:data:`uno_env.agents.policies.POLICY_IDS`, e.g.
  ``"tactical"``) or its id;
* a :class:`CompiledPolicy`, or an agent of ``uno_env.agents.make_agent(...)`` (both have a
  ``policy_id`` when they play a compiled policy);
* any callable ``policy(observation, action_mask) -> action id``.

The vector faces play opponents inside the compiled kernel, so they take the
first two kinds only (an agent by its ``policy_id``, its own generator aside: the
kernel draws per game); a Python callable there raises a ``ValueError`` that says
so. :class:`~uno_env.UnoGymEnv` takes all three; it reseeds an opponent on seeded
resets (``reset(seed)`` of an agent, ``seed(seed)`` of a compiled policy).

**Info.** Every step's info holds ``action_mask`` (bool, the learner's legal
actions; all False once its episode is over) and ``learner_seat``; the step that
ends the learner's episode adds ``outcome`` (+1 won, -1 lost, 0 truncated or
undecided) and ``episode_steps`` (decisions of all seats). The vector faces give
the same keys batched: Gymnasium's ``infos[key]`` arrays (the episode-end keys
under ``infos["final_info"]``, with ``_key`` masks), SB3's one dict per game (with
``terminal_observation`` and ``TimeLimit.truncated`` at episode ends).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .agents import policies
from .agents.inputs import CompiledPolicy, PolicyInputs
from .engine.game import Game

ILLEGAL_ACTION = "lose"
"""The ``illegal_action`` default of the one-learner faces (see the module docstring)."""

Policy = Callable[[np.ndarray, np.ndarray], int]


def _is_seat(value, num_players: int) -> bool:
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and bool(0 <= value < num_players)
    )


def _is_single(spec) -> bool:
    return (
        isinstance(spec, (str, np.integer))
        or (isinstance(spec, int) and not isinstance(spec, bool))
        or callable(spec)
        or getattr(spec, "policy_id", None) is not None
    )


def opponents_per_seat(num_players: int, learner_seat: int | None, opponents) -> list:
    """The opponent spec of each other seat, in seat order (skipping ``learner_seat``).

    ``learner_seat=None`` (a learner seat drawn at each reset) takes one spec or a
    list, not a dict. ValueError names what does not fit."""
    count = num_players - 1
    if isinstance(opponents, Mapping):
        return _opponents_by_seat(num_players, learner_seat, opponents)
    if _is_single(opponents):
        return [opponents] * count
    if isinstance(opponents, Sequence) and not isinstance(opponents, (str, bytes)):
        if len(opponents) != count:
            raise ValueError(
                f"opponents: expected one policy or {count} policies (one per other seat), got {len(opponents)}"
            )
        return list(opponents)
    raise ValueError(
        "opponents must be a policy (a compiled policy name, a CompiledPolicy, an agent or a callable "
        f"policy(observation, mask)), a list with one per other seat, or a dict seat -> policy; got {opponents!r}"
    )


def _opponents_by_seat(num_players: int, learner_seat: int | None, opponents: Mapping) -> list:
    """:func:`opponents_per_seat` of a dict seat -> policy (seats left out play ``random``)."""
    if learner_seat is None:
        raise ValueError("opponents: a dict seat -> policy needs a fixed learner_seat (not 'random')")
    others = [s for s in range(num_players) if s != learner_seat]
    for seat in opponents:
        if not _is_seat(seat, num_players) or seat == learner_seat:
            raise ValueError(f"opponents: {seat!r} is not a seat other than the learner's ({others})")
    return [opponents.get(s, "random") for s in others]


def compiled_policy_id(spec, where: str) -> int:
    """The compiled policy id of an opponent spec (a name, an id, or an object with a
    ``policy_id``); ValueError otherwise, saying which kinds the vector envs take."""
    pid = getattr(spec, "policy_id", None)
    if pid is not None and not isinstance(spec, (str, int, np.integer)):
        spec = pid
    if isinstance(spec, str) or (isinstance(spec, (int, np.integer)) and not isinstance(spec, (bool, np.bool_))):
        try:
            return policies.policy_id_of(spec)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if callable(spec):
        raise ValueError(
            f"{where}: {spec!r} is a Python policy; the vector envs play opponents inside the compiled kernel, "
            "so they take compiled policies only (a name of uno_env.agents.policies.POLICY_IDS, a CompiledPolicy or an "
            "agent with a policy_id such as make_agent('tactical')). Play Python opponents with uno_env.UnoGymEnv "
            "(e.g. in a gymnasium.vector.SyncVectorEnv)"
        )
    raise ValueError(f"{where}: expected a policy, got {spec!r}")


def compiled_opponent_seats(num_players: int, learner_seat, opponents) -> list:
    """``seats`` of a one-learner vector env: None at ``learner_seat``, a compiled policy
    id at every other seat (see the module docstring for ``opponents``)."""
    if not _is_seat(learner_seat, num_players):
        raise ValueError(f"learner_seat must be a seat 0..{num_players - 1}, got {learner_seat!r}")
    others = [s for s in range(num_players) if s != learner_seat]
    seats: list = [None] * num_players
    for seat, spec in zip(others, opponents_per_seat(num_players, int(learner_seat), opponents)):
        seats[seat] = compiled_policy_id(spec, f"opponents (seat {seat})")
    return seats


def opponent_policies(game: Game, learner_seat: int | None, opponents) -> list[Policy]:
    """Callables for the other seats, in seat order: compiled policies by name or id
    become :class:`CompiledPolicy` objects (seeded with their index), callables (agents
    included) are used as they are."""
    out: list[Policy] = []
    names = {v: k for k, v in policies.POLICY_IDS.items()}
    for k, spec in enumerate(opponents_per_seat(game.num_players, learner_seat, opponents)):
        if isinstance(spec, str):
            out.append(CompiledPolicy(spec, game, seed=k, checked=False))  # Game.play hands it the engine's arrays
        elif isinstance(spec, (int, np.integer)) and not isinstance(spec, (bool, np.bool_)):
            if int(spec) not in names:
                raise ValueError(f"opponents[{k}]: unknown compiled policy id {spec!r}")
            out.append(CompiledPolicy(names[int(spec)], game, seed=k, checked=False))
        elif callable(spec):
            out.append(spec)
        else:
            raise ValueError(f"opponents[{k}] must be a policy name, a compiled policy or a callable, got {spec!r}")
    return out


def reseed(policy, seed: int) -> None:
    """Restart an opponent's generator: ``reset(seed)`` (agents, compiled policies) or
    ``seed(seed)`` where that is a method; other callables are left as they are."""
    reset = getattr(policy, "reset", None)
    if callable(reset):
        reset(seed)
        return
    seeder = getattr(policy, "seed", None)
    if callable(seeder):
        seeder(seed)


def random_states(policies) -> list:
    """Snapshots of the opponents' generators (``random_state()`` of the compiled policies
    and of the agents of ``uno_env.agents``; other callables have none), for
    :func:`restore_random_states`: :class:`~uno_env.UnoGymEnv` undoes a refused call."""
    return [(policy, policy.random_state()) for policy in policies if callable(getattr(policy, "random_state", None))]


def restore_random_states(saved: list) -> None:
    for policy, state in saved:
        policy.set_random_state(state)


def is_seedable(policy) -> bool:
    return callable(getattr(policy, "reset", None)) or callable(getattr(policy, "seed", None))


__all__ = [
    "ILLEGAL_ACTION",
    "CompiledPolicy",
    "PolicyInputs",
    "compiled_opponent_seats",
    "compiled_policy_id",
    "random_states",
    "restore_random_states",
    "opponent_policies",
    "opponents_per_seat",
    "reseed",
]
