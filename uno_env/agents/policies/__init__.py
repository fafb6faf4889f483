"""Compiled policies: agents written once as numba functions of (observation, mask).

A policy sees exactly what an agent sees: the acting player's observation
vector and legal-action mask (offsets come from the parameter vector ``P``), plus
its own random generator. The same function serves the Python agents of
:mod:`uno_env.agents`, whole games played inside one compiled call (tournaments of
millions of hands, search rollouts) and the vector env. Inside those play loops
the observation is written only for the policies that read it: the random ones
read only the mask, and the naive and keeper policies read the few facts they use
(:func:`keeper_view_of_state`) from the state, the same values their observation
holds (tested at every decision), and decide the same way.

Where each part lives:

* :mod:`.simple`: ``random``, ``random_play``, ``naive`` and ``keeper``;
* :mod:`.tactical`: ``tactical`` (its weights, the bluff estimate, card scores) and
  ``tactical_v1`` (the same before it weighed the house rules); :mod:`.house`: its house-rule terms;
* :mod:`.choices`: what the heuristics share (the colour to name, the simple answers);
* :mod:`.dispatch`: the ids (:data:`POLICY_IDS`) and one decision of the policy of an id;
  ``ppo`` is the shipped network's policy, :func:`uno_env.agents.neural.shipped_policy`;
* :mod:`.play`: whole games in compiled code (:func:`play_game`, :func:`play_batch`);
* :mod:`.threads`: batch kernels over worker threads (:func:`run_in_parts`).

Every name is importable from here (``from uno_env.agents import policies``), as it
was when this was one module. To add a policy, write a function
``name(obs, mask, P, prng, b) -> action`` compiled with :func:`~uno_env.engine.jit.kernel`,
give it an id in :data:`POLICY_IDS` and a branch in :func:`policy_act`.
"""

from __future__ import annotations

from ...engine.readers import action_face, drew_on, face_value, wild_action  # read through this module by callers
from .choices import (
    draw_or_pass,
    first_legal,
    forced_to_play,
    most_played,
    simple_choice,
    simple_decision,
    strongest_colour,
    strongest_held,
    strongest_of,
    swap_action,
)
from .dispatch import (
    KEEPER,
    NAIVE,
    POLICY_IDS,
    PPO,
    RANDOM,
    RANDOM_PLAY,
    TACTICAL,
    TACTICAL_V1,
    policy_act,
    policy_act_batch,
    policy_decision,
    policy_id_of,
    policy_name,
)
from .play import play_batch, play_batch_serial, play_game
from .simple import (
    keeper_card,
    keeper_choice,
    keeper_policy,
    keeper_view,
    keeper_view_of_state,
    keeper_wild,
    naive_choice,
    naive_policy,
    random_below,
    random_legal_below,
    random_play_policy,
    random_policy,
)
from .tactical import (
    BLUFF_CHALLENGED,
    COLOUR_COPIES,
    NUM_TACTICAL_WEIGHTS,
    TACTICAL_V1_WEIGHTS,
    TACTICAL_WEIGHTS,
    WEIGHT_BLUFF,
    WEIGHT_BREAK_EVEN,
    WEIGHT_COLOUR,
    WEIGHT_DEFEND,
    WEIGHT_DREW,
    WEIGHT_DUMP,
    WEIGHT_HOLD_WILD,
    WEIGHT_HOUSE,
    WEIGHT_PRIOR,
    WEIGHT_REVERSE,
    WEIGHT_SCARCE,
    WEIGHT_SCARCE_RANK,
    WEIGHT_STACK_KEEP,
    WEIGHT_SWAP,
    WEIGHT_SWAP_KEEP,
    WEIGHT_TEMPO,
    WEIGHT_THREAT,
    WEIGHT_WILD_LOW_HAND,
    bluff_probability,
    card_score,
    tactical_penalty,
    tactical_play,
    tactical_policy,
    tactical_v1_policy,
    tactical_weighted,
)
from .threads import run_in_parts

__all__ = [
    "BLUFF_CHALLENGED",
    "COLOUR_COPIES",
    "KEEPER",
    "NAIVE",
    "NUM_TACTICAL_WEIGHTS",
    "POLICY_IDS",
    "PPO",
    "RANDOM",
    "RANDOM_PLAY",
    "TACTICAL",
    "TACTICAL_V1",
    "TACTICAL_V1_WEIGHTS",
    "TACTICAL_WEIGHTS",
    "WEIGHT_BLUFF",
    "WEIGHT_BREAK_EVEN",
    "WEIGHT_COLOUR",
    "WEIGHT_DEFEND",
    "WEIGHT_DREW",
    "WEIGHT_DUMP",
    "WEIGHT_HOLD_WILD",
    "WEIGHT_HOUSE",
    "WEIGHT_PRIOR",
    "WEIGHT_REVERSE",
    "WEIGHT_SCARCE",
    "WEIGHT_SCARCE_RANK",
    "WEIGHT_STACK_KEEP",
    "WEIGHT_SWAP",
    "WEIGHT_SWAP_KEEP",
    "WEIGHT_TEMPO",
    "WEIGHT_THREAT",
    "WEIGHT_WILD_LOW_HAND",
    "action_face",
    "bluff_probability",
    "card_score",
    "draw_or_pass",
    "drew_on",
    "face_value",
    "first_legal",
    "forced_to_play",
    "keeper_card",
    "keeper_choice",
    "keeper_policy",
    "keeper_view",
    "keeper_view_of_state",
    "keeper_wild",
    "most_played",
    "naive_choice",
    "naive_policy",
    "play_batch",
    "play_batch_serial",
    "play_game",
    "policy_act",
    "policy_act_batch",
    "policy_decision",
    "policy_id_of",
    "policy_name",
    "random_below",
    "random_legal_below",
    "random_play_policy",
    "random_policy",
    "run_in_parts",
    "simple_choice",
    "simple_decision",
    "strongest_colour",
    "strongest_held",
    "strongest_of",
    "swap_action",
    "tactical_penalty",
    "tactical_play",
    "tactical_policy",
    "tactical_v1_policy",
    "tactical_weighted",
    "wild_action",
]
