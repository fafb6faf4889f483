"""What the tactical policy weighs under the house rules (HOUSE_RULES.md), each term 0 when
its rule is off: the cards a 7 or a 0 gains under Seven-O (:func:`swap_gain`), the last
stackable card kept back under stacking (:func:`last_stackable`). :func:`.tactical.house_terms`
adds them to its card scores (``WEIGHT_SWAP`` and the other house weights)."""

from __future__ import annotations

import numpy as np

from ...engine.cards import RANK_DRAW_TWO, RANK_SEVEN, RANK_ZERO, RANKS_PER_COLOUR, WILD, WILD_DRAW_FOUR
from ...engine.jit import describe, kernel
from ...engine.layout import O_HAND, P_SEVEN_O, P_STACKING, STACKING_OFF
from ...engine.readers import obs_hand_size, obs_swap_partner

describe(__name__, "the agents' compiled policies", seconds=30)


@kernel(forceinline=True)
def swap_gain(obs, P, face, own, preceding):
    """Seven-O (R-HOUSE-SEVENO): the cards that playing ``face`` from a hand of ``own`` cards
    gains, the cards handed over (``own - 1``) minus the cards received: a 7 swaps with the
    opponent holding the fewest (:func:`~uno_env.engine.readers.obs_swap_partner`, the
    tactical policy's choice), a 0 passes every hand on, so the hand of the previous seat
    (``preceding``) comes in. 0 for any other card, and for the last card (it ends the
    round, nothing is swapped, R-HOUSE-SEVENO-3)."""
    if P[P_SEVEN_O] == 0 or own <= 1 or face >= WILD:
        return 0
    rank = face % RANKS_PER_COLOUR
    if rank == RANK_SEVEN:
        partner = obs_swap_partner(obs, P)
        return own - 1 - obs_hand_size(obs, P, partner) if partner > 0 else 0
    if rank == RANK_ZERO:
        return own - 1 - obs_hand_size(obs, P, preceding)
    return 0


@kernel(forceinline=True)
def is_stackable(face):
    """A Draw Two or a Wild Draw Four: a card that can answer a stack (R-HOUSE-STACK-2)."""
    return face == WILD_DRAW_FOUR or (face < WILD and face % RANKS_PER_COLOUR == RANK_DRAW_TWO)


@kernel(forceinline=True)
def last_stackable(obs, P, face):
    """Stacking (R-HOUSE-STACK): ``face`` is the only Draw Two or Wild Draw Four in hand, the
    one card that could answer a stack played at this seat."""
    if P[P_STACKING] == STACKING_OFF or not is_stackable(face):
        return False
    held = np.int64(obs[P[O_HAND] + WILD_DRAW_FOUR])
    for c in range(4):
        held += np.int64(obs[P[O_HAND] + c * RANKS_PER_COLOUR + RANK_DRAW_TWO])
    return held == 1
