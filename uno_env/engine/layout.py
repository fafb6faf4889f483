"""Where everything lives in the state arrays, and the parameter vector of the kernels.

A batch of games is three arrays with a leading batch dimension:

* ``cards`` (int8): hands as copies per face for each seat, the draw pile (a
  stack, top last), the discard pile (top last), copies of each face in the
  discard pile, and the hand snapshot shown by the last challenge;
* ``ints`` (int32): the scalars below, then per-seat blocks (hand sizes,
  scores, alive flags, the card each seat showed to a Fashion Trend, outcome,
  the colours each seat drew on since it last played, as bits);
* ``rng`` (uint64): one xorshift64* generator per game.

The kernels receive one int64 parameter vector ``P`` built from the
configuration: sizes, settings and offsets, so no size is a module constant.
"""

from __future__ import annotations

import numpy as np

from .actions import ActionTable
from .cards import num_faces
from .config import RuleConfig
from .observation import SLICE_NAMES, ObservationSpec

# --- scalar indices in ``ints`` -------------------------------------------------
S_PHASE = 0
S_CURRENT = 1  # seat whose decision it is, -1 when the game is over
S_DIRECTION = 2
S_DEALER = 3
S_COLOUR = 4  # current colour 0..3, -1 while a starting Wild waits for its colour
S_PREV_COLOUR = 5  # colour before the top card was played
S_DRAW_COUNT = 6
S_DISCARD_COUNT = 7
S_DRAWN = 8  # face drawn this turn (drawn-card decision), -1 otherwise
S_UNO_CALLED = 9
S_EXPOSED = 10  # seat in the catch window, -1 otherwise
S_AFTER_WINDOW = 11  # seat that plays when the catch window closes
S_WD4_OFFENDER = 12
S_WD4_GUILTY = 13
S_WD4_OUT = 14  # the Wild Draw Four was the offender's last card
S_WD4_EXPOSED = 15  # the offender went down to one card without calling
S_REVEAL_VIEWER = 16
S_REVEAL_OWNER = 17
S_TREND_VIEWER = 18
S_TREND_COLOUR = 19
S_ROUND = 20
S_STEP = 21  # decisions taken in this episode
S_TERMINATED = 22
S_TRUNCATED = 23
S_N_ALIVE = 24
S_LAST_WINNER = 25  # seat that went out last
S_FORFEIT = 26  # seat that lost by an illegal action (illegal_action="lose")
S_EPISODES = 27  # episodes finished in this slot (vector env)
NUM_SCALARS = 28

SCALAR_NAMES = [
    "phase",
    "current",
    "direction",
    "dealer",
    "colour",
    "prev_colour",
    "draw_count",
    "discard_count",
    "drawn",
    "uno_called",
    "exposed",
    "after_window",
    "wd4_offender",
    "wd4_guilty",
    "wd4_out",
    "wd4_exposed",
    "reveal_viewer",
    "reveal_owner",
    "trend_viewer",
    "trend_colour",
    "round",
    "step",
    "terminated",
    "truncated",
    "n_alive",
    "last_winner",
    "forfeit",
    "episodes",
]
assert len(SCALAR_NAMES) == NUM_SCALARS

# --- phases ---------------------------------------------------------------------
PH_PLAY = 0
PH_DRAWN = 1
PH_COLOR = 2
PH_CHALLENGE = 3
PH_CATCH = 4
PH_OVER = 5

# --- settings as numbers ----------------------------------------------------------
SCORING_STANDARD, SCORING_ALTERNATIVE, SCORING_CHALLENGE = 0, 1, 2
UNO_WINDOW, UNO_AUTO, UNO_OFF = 0, 1, 2
ILLEGAL_PENALTY, ILLEGAL_RAISE, ILLEGAL_LOSE = 0, 1, 2
EPISODE_GAME, EPISODE_ROUND = 0, 1
REWARD_WIN, REWARD_POINTS = 0, 1

# --- parameter vector indices -------------------------------------------------------
(
    P_N,
    P_F,
    P_D,
    P_PARTNERS,
    P_SCORING,
    P_TARGET,
    P_UNO,
    P_ILLEGAL,
    P_EPISODE,
    P_REWARD,
    P_MAX_STEPS,
    P_C_HANDS,
    P_C_DRAW,
    P_C_DISCARD,
    P_C_DCOUNT,
    P_C_REVEAL,
    P_C_LEN,
    P_I_HAND_SIZE,
    P_I_SCORE,
    P_I_ALIVE,
    P_I_TREND,
    P_I_OUTCOME,
    P_I_DREW_ON,
    P_I_LEN,
    P_A_W,
    P_A_W4,
    P_A_FT,
    P_A_DRAW,
    P_A_PASS,
    P_A_UNO,
    P_A_CHALLENGE,
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_COLOR,
    P_A_LEN,
    P_O_LEN,
) = range(36)
P_O_FIRST = 36  # then one offset per name of SLICE_NAMES (-1 when absent)
(
    O_HAND,
    O_TOP,
    O_COLOUR,
    O_PREV_COLOUR,
    O_DIRECTION,
    O_PHASE,
    O_ACTING,
    O_DEALER,
    O_HAND_SIZES,
    O_SCORES,
    O_ALIVE,
    O_DRAW_SIZE,
    O_DISCARD,
    O_DRAWN,
    O_UNO_CALLED,
    O_EXPOSED,
    O_AFTER_WINDOW,
    O_DREW_ON,
    O_REVEAL,
    O_REVEAL_SEAT,
    O_TREND_COLOUR,
    O_TREND_SHOWN,
) = range(P_O_FIRST, P_O_FIRST + len(SLICE_NAMES))
NUM_PARAMS = P_O_FIRST + len(SLICE_NAMES)


def build_params(config: RuleConfig, actions: ActionTable, obs: ObservationSpec) -> np.ndarray:
    """The kernels' parameter vector for a configuration."""
    n = config.num_players
    faces = num_faces(config.deck)
    deck_size = 112 if config.deck == "fashion_trend" else 108
    P = np.full(NUM_PARAMS, -1, dtype=np.int64)
    P[P_N] = n
    P[P_F] = faces
    P[P_D] = deck_size
    P[P_PARTNERS] = int(config.partners)
    P[P_SCORING] = ("standard", "alternative", "challenge").index(config.scoring)
    P[P_TARGET] = config.target_score
    P[P_UNO] = ("window", "auto", "off").index(config.uno_call)
    P[P_ILLEGAL] = ("penalty", "raise", "lose").index(config.illegal_action)
    P[P_EPISODE] = ("game", "round").index(config.episode)
    P[P_REWARD] = ("win", "points").index(config.reward)
    P[P_MAX_STEPS] = config.max_steps
    offset = 0
    for index, size in (
        (P_C_HANDS, n * faces),
        (P_C_DRAW, deck_size),
        (P_C_DISCARD, deck_size),
        (P_C_DCOUNT, faces),
        (P_C_REVEAL, faces),
    ):
        P[index] = offset
        offset += size
    P[P_C_LEN] = offset
    offset = NUM_SCALARS
    for index in (P_I_HAND_SIZE, P_I_SCORE, P_I_ALIVE, P_I_TREND, P_I_OUTCOME, P_I_DREW_ON):
        P[index] = offset
        offset += n
    P[P_I_LEN] = offset
    P[P_A_W] = actions.offset("W")
    P[P_A_W4] = actions.offset("W+4")
    P[P_A_FT] = actions.offset("FT")
    P[P_A_DRAW] = actions.offset("draw")
    P[P_A_PASS] = actions.offset("pass")
    P[P_A_UNO] = actions.offset("uno")
    P[P_A_CHALLENGE] = actions.offset("challenge")
    P[P_A_ACCEPT] = actions.offset("accept")
    P[P_A_CATCH] = actions.offset("catch")
    P[P_A_COLOR] = actions.offset("color")
    P[P_A_LEN] = actions.num_actions
    P[P_O_LEN] = obs.size
    for k, name in enumerate(SLICE_NAMES):
        P[P_O_FIRST + k] = obs.offset(name)
    return P
