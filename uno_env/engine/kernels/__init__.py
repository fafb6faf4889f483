"""The rules, compiled: reset, legal-action mask, step and observation kernels.

Every rule of RULES.md and HOUSE_RULES.md lives here, once, in the module of its area.
Each kernel works on game ``b`` of a batch and reads and writes the state arrays
through the named places of :mod:`~uno_env.engine.state` (see :mod:`~uno_env.engine.layout`
for the arrays). The single-game API, the PettingZoo env and the vector env all call
them, by their names in this package (``from uno_env.engine import kernels as K``;
``K.step_game``). The modules, each importing only those before it (:data:`MODULES`):

* ``codes``: action kinds and step statuses;
* ``basics``: each game's generator and its event buffer;
* ``legality``: whether a card may be played now (``may_play``, the one home of card legality);
* ``draw``: the piles, drawing and the reshuffle;
* ``turn_order``: the next seat in play, partners, whose decision comes next;
* ``uno``: the UNO call and the catch window;
* ``deal``: a new game, the dealer's draw, each round's deal and starting card;
* ``scoring``: round end, scoring, the game's end and a forfeit;
* ``challenge``: the Wild Draw Four's challenge and a stack's penalty decision;
* ``play``: a card played and all its effects (Fashion Trend, Seven-O's swaps included);
* ``turn``: the turn's decisions (play, draw, pass, UNO), a wrong card, a starting Wild's colour;
* ``house``: the house rules' decisions (a stack's penalty, the Seven-O choice, a jump-in), each
  with its legal actions (``house_mask``);
* ``step``: an action decoded and dispatched by phase, refusals, truncation, the summary;
* ``mask``: the legal-action mask;
* ``observe``: the observation;
* ``batch``: the drivers over a batch, serial or with ``prange``.

The hot path (``step_game``, ``apply_action``, ``play_card``, ``legal_mask``, ``observe``,
...) is force-inlined by LLVM (``kernel(forceinline=True)``, see :mod:`~uno_env.engine.jit`).
The pieces a long function is split into for reading, each with one caller (``play_card``'s
effects, the decisions ``apply_action`` hands an action to, ``observe``'s parts), are
inlined by numba (``kernel(inline="always")``), as are small helpers: the compiled function
is the one before the split, and compiles in the same time.

:mod:`~uno_env.engine.interpreted` loads the same modules a second time as plain Python.

Every function a module defines is exported here by its name: the imports below are a block
that ``python -m uno_env.docs --write`` writes (:mod:`uno_env.engine.kernel_exports`), so a new
kernel is ``K.<name>`` with no list kept by hand.
"""

from ..cards import matches_on  # R-TURN-1's match, which the kernels compile in (cards.py)
from ..layout import PH_OVER, S_CURRENT, S_PHASE  # read as K.S_CURRENT above the engine, as before the split
from ..pickling import LOWEST_PICKLE_PROTOCOL, NeedsPickleProtocol2

# <generated exports>
from .basics import (
    emit,
    rng_below,
    shuffle_segment,
)
from .batch import (
    mask_batch,
    observe_batch,
    reset_batch,
    reset_from_deck,
    step_and_observe,
    step_batch,
    step_parallel,
)
from .challenge import (
    clear_wild_draw_four,
    resolve_challenge,
    resolve_penalty,
    reveal_hand,
    wild_draw_four_played,
)
from .codes import (
    KIND_ACCEPT,
    KIND_CATCH,
    KIND_CHALLENGE,
    KIND_COLOUR,
    KIND_DRAW,
    KIND_PASS,
    KIND_PLAY,
    KIND_SWAP,
    KIND_UNO,
    ST_GAME_OVER,
    ST_NOT_AVAILABLE,
    ST_NOT_HELD,
    ST_OK,
    ST_OUT_OF_RANGE,
    ST_WRONG_LOST,
    ST_WRONG_PENALIZED,
    ST_WRONG_REFUSED,
)
from .deal import (
    HAND_START,
    choose_dealer,
    clear_round_info,
    deal_and_start,
    fill_deck,
    gather_and_shuffle,
    reset_game,
    start_round,
)
from .draw import (
    draw_cards,
    draw_one,
    push_discard,
    reshuffle,
)
from .house import (
    apply_house_decision,
    decide_jump,
    decide_penalty,
    decide_swap,
    house_mask,
)
from .legality import (
    allow_if_legal,
    allow_play,
    forbidden,
    holds_card,
    holds_colour,
    matches,
    may_play,
    may_play_any,
    stackable,
)
from .mask import (
    allow_turn_plays,
    legal_mask,
)
from .observe import (
    copy_counts,
    observe,
    observe_and_mask,
    observe_cards,
    observe_decision,
    observe_house_rules,
    observe_seats,
    observe_shown,
    rel_seat,
)
from .play import (
    coloured_effects,
    exchange_hands,
    fashion_trend,
    play_card,
    rank_effects,
    rotate_hands,
    stack_draw_two,
    swap_hands,
    wild_effects,
)
from .scoring import (
    eliminate_at_target,
    end_round,
    finish_game,
    forfeit,
    hand_value,
    lowest_score_wins,
    score_round,
    settle_outcomes,
)
from .step import (
    SUMMARY_ALIVE,
    SUMMARY_PHASE,
    SUMMARY_REWARDED,
    SUMMARY_SEAT,
    SUMMARY_STATUS,
    SUMMARY_STATUS_BIAS,
    apply_action,
    decode_action,
    step_game,
    step_summary,
)
from .turn import (
    decide_colour,
    decide_turn,
    draw_on_turn,
    drawn_playable,
    play_forced_drawn_card,
    play_from_hand,
    refuse_wrong_card,
)
from .turn_order import (
    begin_next,
    begin_turn,
    next_alive,
    next_jumper,
    same_team,
)
from .uno import (
    call_uno,
    close_window,
    decide_catch,
    finish_turn,
    uno_available,
)

KERNELS = [
    "HAND_START",
    "KIND_ACCEPT",
    "KIND_CATCH",
    "KIND_CHALLENGE",
    "KIND_COLOUR",
    "KIND_DRAW",
    "KIND_PASS",
    "KIND_PLAY",
    "KIND_SWAP",
    "KIND_UNO",
    "ST_GAME_OVER",
    "ST_NOT_AVAILABLE",
    "ST_NOT_HELD",
    "ST_OK",
    "ST_OUT_OF_RANGE",
    "ST_WRONG_LOST",
    "ST_WRONG_PENALIZED",
    "ST_WRONG_REFUSED",
    "SUMMARY_ALIVE",
    "SUMMARY_PHASE",
    "SUMMARY_REWARDED",
    "SUMMARY_SEAT",
    "SUMMARY_STATUS",
    "SUMMARY_STATUS_BIAS",
    "allow_if_legal",
    "allow_play",
    "allow_turn_plays",
    "apply_action",
    "apply_house_decision",
    "begin_next",
    "begin_turn",
    "call_uno",
    "choose_dealer",
    "clear_round_info",
    "clear_wild_draw_four",
    "close_window",
    "coloured_effects",
    "copy_counts",
    "deal_and_start",
    "decide_catch",
    "decide_colour",
    "decide_jump",
    "decide_penalty",
    "decide_swap",
    "decide_turn",
    "decode_action",
    "draw_cards",
    "draw_on_turn",
    "draw_one",
    "drawn_playable",
    "eliminate_at_target",
    "emit",
    "end_round",
    "exchange_hands",
    "fashion_trend",
    "fill_deck",
    "finish_game",
    "finish_turn",
    "forbidden",
    "forfeit",
    "gather_and_shuffle",
    "hand_value",
    "holds_card",
    "holds_colour",
    "house_mask",
    "legal_mask",
    "lowest_score_wins",
    "mask_batch",
    "matches",
    "may_play",
    "may_play_any",
    "next_alive",
    "next_jumper",
    "observe",
    "observe_and_mask",
    "observe_batch",
    "observe_cards",
    "observe_decision",
    "observe_house_rules",
    "observe_seats",
    "observe_shown",
    "play_card",
    "play_forced_drawn_card",
    "play_from_hand",
    "push_discard",
    "rank_effects",
    "refuse_wrong_card",
    "rel_seat",
    "reset_batch",
    "reset_from_deck",
    "reset_game",
    "reshuffle",
    "resolve_challenge",
    "resolve_penalty",
    "reveal_hand",
    "rng_below",
    "rotate_hands",
    "same_team",
    "score_round",
    "settle_outcomes",
    "shuffle_segment",
    "stack_draw_two",
    "stackable",
    "start_round",
    "step_and_observe",
    "step_batch",
    "step_game",
    "step_parallel",
    "step_summary",
    "swap_hands",
    "uno_available",
    "wild_draw_four_played",
    "wild_effects",
]
# </generated exports>

MODULES = (
    "codes",
    "basics",
    "legality",
    "draw",
    "turn_order",
    "uno",
    "deal",
    "scoring",
    "challenge",
    "play",
    "turn",
    "house",
    "step",
    "mask",
    "observe",
    "batch",
)
"""The modules of this package in the order they import each other (each only those before it)."""


__all__ = [
    "LOWEST_PICKLE_PROTOCOL",
    "NeedsPickleProtocol2",
    "PH_OVER",
    "S_CURRENT",
    "S_PHASE",
    "matches_on",
    *KERNELS,
]
