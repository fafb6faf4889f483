"""The step: an action id decoded and handed to the decision of the current phase; the
refusals, truncation at ``max_steps`` and the packed summary for Python callers."""

from __future__ import annotations

from ..cards import RANKS_PER_COLOUR, WILD
from ..events import EV_TRUNCATED
from ..jit import describe, kernel
from ..layout import (
    ILLEGAL_LOSE,
    P_ACTION_TABLE,
    P_ILLEGAL_ACTION,
    P_MAX_STEPS,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_OVER,
    PH_PLAY,
    S_CURRENT,
    S_EPISODES,
    S_N_ALIVE,
    S_PHASE,
    S_STEP,
    S_TRUNCATED,
)
from .basics import emit
from .challenge import resolve_challenge
from .codes import (
    KIND_ACCEPT,
    KIND_CHALLENGE,
    KIND_PLAY,
    ST_GAME_OVER,
    ST_NOT_AVAILABLE,
    ST_NOT_HELD,
    ST_OK,
    ST_OUT_OF_RANGE,
    ST_WRONG_LOST,
)
from .house import apply_house_decision
from .scoring import forfeit
from .turn import decide_colour, decide_turn
from .uno import decide_catch

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel(inline="always")
def decode_action(P, action):
    """(kind, face, colour) of an action id: its row of the action table in ``P`` (see
    actions.py; the caller checks that the id is in range). The coloured plays, the table's
    first block (``actions.BLOCKS``) and most decisions, are decoded without the table:
    their kind known to the compiler, the game's step is faster (measured: the vector env's
    learner path 0.89x with the table alone)."""
    if action < WILD:
        return KIND_PLAY, action, action // RANKS_PER_COLOUR
    row = P[P_ACTION_TABLE] + 3 * action
    return P[row], P[row + 1], P[row + 2]


@kernel(forceinline=True)
def apply_action(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn):
    """The action of the acting player in the current phase; a negative status
    refuses it before anything changes."""
    phase = ints[b, S_PHASE]
    if phase == PH_PLAY or phase == PH_DRAWN:
        return decide_turn(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)
    if phase == PH_COLOR:
        return decide_colour(ints, P, b, kind, colour, ev, evn)
    if phase == PH_CHALLENGE:
        if kind != KIND_CHALLENGE and kind != KIND_ACCEPT:
            return ST_NOT_AVAILABLE
        resolve_challenge(cards, ints, rng, P, b, kind == KIND_CHALLENGE, rw, ev, evn)
        return ST_OK
    if phase > PH_OVER:  # the house rules' phases follow the classic ones (named.PHASE_DECISIONS)
        return apply_house_decision(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)
    return decide_catch(cards, ints, rng, P, b, kind, ev, evn)


@kernel(forceinline=True)
def step_game(cards, ints, rng, P, b, action, rw, ev, evn):
    """Apply one action of the acting player to game b. Returns a status; a negative
    status means the action was refused and the state is unchanged, its events (those of
    the last step) included."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        rw[b, s] = 0.0
    if ints[b, S_PHASE] == PH_OVER:
        return ST_GAME_OVER
    if action < 0 or action >= P[P_NUM_ACTIONS]:
        return ST_OUT_OF_RANGE
    last_events = evn[b]  # a refusal emits nothing: the last step's events stay
    evn[b] = 0
    kind, face, colour = decode_action(P, action)
    status = apply_action(cards, ints, rng, P, b, kind, face, colour, rw, ev, evn)
    if status == ST_NOT_HELD or status == ST_NOT_AVAILABLE:
        if P[P_ILLEGAL_ACTION] != ILLEGAL_LOSE:
            evn[b] = last_events
            return status
        forfeit(ints, P, b, ints[b, S_CURRENT], face, rw, ev, evn)  # any masked-out action loses
        status = ST_WRONG_LOST
    elif status < 0:
        evn[b] = last_events
        return status
    ints[b, S_STEP] += 1
    if ints[b, S_PHASE] != PH_OVER and ints[b, S_STEP] >= P[P_MAX_STEPS]:
        ints[b, S_TRUNCATED] = 1
        ints[b, S_PHASE] = PH_OVER
        ints[b, S_CURRENT] = -1
        emit(ev, evn, b, EV_TRUNCATED, 0, 0, 0)
    if ints[b, S_PHASE] == PH_OVER:
        ints[b, S_EPISODES] += 1
    return status


# the fields of step_summary's packed result: (shift, mask) of each
SUMMARY_STATUS = (0, 0xFF)  # status + SUMMARY_STATUS_BIAS: below the bias, the step was refused
SUMMARY_STATUS_BIAS = 128
SUMMARY_PHASE = (8, 0xF)
SUMMARY_SEAT = (12, 0xFF)  # the acting seat + 1 (0: nobody, the game is over)
SUMMARY_REWARDED = (20, 0x1)  # some seat's reward is non-zero
SUMMARY_ALIVE = (21, 0xFF)  # players still in the game


@kernel
def step_summary(cards, ints, rng, P, b, action, rw, ev, evn):
    """``step_game`` plus what a Python caller needs next, packed in one integer (fewer
    reads from Python); its fields are the ``SUMMARY_*`` (shift, mask) pairs."""
    status = step_game(cards, ints, rng, P, b, action, rw, ev, evn)
    rewarded = 0
    for s in range(P[P_NUM_PLAYERS]):
        if rw[b, s] != 0.0:
            rewarded = 1
    return (
        ((status + SUMMARY_STATUS_BIAS) << SUMMARY_STATUS[0])
        | (ints[b, S_PHASE] << SUMMARY_PHASE[0])
        | ((ints[b, S_CURRENT] + 1) << SUMMARY_SEAT[0])
        | (rewarded << SUMMARY_REWARDED[0])
        | (ints[b, S_N_ALIVE] << SUMMARY_ALIVE[0])
    )
