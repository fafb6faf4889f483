"""Where everything lives in the state arrays, and the parameter vector of the kernels.

A batch of games is three arrays with a leading batch dimension:

* ``cards`` (int8): hands as copies per face for each seat, the draw pile (a
  stack, top last), the discard pile (top last), copies of each face in the
  discard pile, and the hand snapshot shown by the last challenge;
* ``ints`` (int32): the scalars below, then per-seat blocks (hand sizes,
  scores, alive flags, the card each seat showed to a Fashion Trend, outcome,
  the colours each seat drew on since it last played, as bits, and the colour its
  last Wild named this round, -1 for none);
* ``rng`` (uint64): one xorshift64* generator per game.

The kernels receive one int64 parameter vector ``P`` built from the
configuration: sizes, settings and offsets, so no size is a module constant.
"""

from __future__ import annotations

import pathlib
import re
from enum import IntEnum

import numpy as np

from .actions import BLOCKS, ActionTable, kind_lines
from .cards import num_faces
from .config import SETTINGS, RuleConfig
from .named import Episode, IllegalAction, Phase, Reward, Scoring, Stacking, UnoCall, names
from .observation import SLICE_NAMES, ObservationSpec


# --- scalar indices in ``ints`` -------------------------------------------------
class Scalar(IntEnum):
    """The scalars at the start of each game's ``ints`` row."""

    PHASE = 0  # a Phase
    CURRENT = 1  # seat whose decision it is, -1 when the game is over
    DIRECTION = 2
    DEALER = 3
    COLOUR = 4  # current colour 0..3, -1 while a starting Wild waits for its colour
    PREV_COLOUR = 5  # colour before the top card was played
    DRAW_COUNT = 6
    DISCARD_COUNT = 7
    DRAWN = 8  # face drawn this turn (drawn-card decision), -1 otherwise
    UNO_CALLED = 9
    EXPOSED = 10  # seat in the catch window, -1 otherwise
    AFTER_WINDOW = 11  # seat that plays when the catch window closes
    WD4_OFFENDER = 12
    WD4_GUILTY = 13
    WD4_OUT = 14  # the Wild Draw Four was the offender's last card
    WD4_EXPOSED = 15  # the offender went down to one card without calling
    REVEAL_VIEWER = 16
    REVEAL_OWNER = 17
    TREND_VIEWER = 18
    TREND_COLOUR = 19
    ROUND = 20
    STEP = 21  # decisions taken in this episode
    TERMINATED = 22
    TRUNCATED = 23
    N_ALIVE = 24
    LAST_WINNER = 25  # seat that went out last
    FORFEIT = 26  # seat that lost by an illegal action (illegal_action="lose")
    EPISODES = 27  # episodes finished in this slot (vector env)
    PENDING = 28  # stacking: cards the acting target must draw unless it answers (0: none)
    TOP_PLAYER = 29  # seat that played the top card of the discard pile, -1 for the starter
    FOLLOWING = 30  # seat whose turn begins when a Seven-O choice or a jump-in window closes
    SWAP_FROM = 31  # Seven-O: the seats of the last 7 swap of this round, -1 before one
    SWAP_TO = 32


SCALAR_NAMES = list(names(Scalar))
NUM_SCALARS = len(Scalar)


LAYOUT_PARAMS = (
    ("FACES", "card faces of the deck"),
    ("DECK_SIZE", "cards in the deck"),
    ("C_HANDS", "offsets in ``cards``: hands (seat-major, per face)"),
    ("C_DRAW", "the draw pile, top last"),
    ("C_DISCARD", "the discard pile, top last"),
    ("C_DISCARD_COUNTS", "copies of each face in the discard pile"),
    ("C_REVEAL", "the hand shown by the last challenge"),
    ("C_SIZE", "the length of a game's ``cards`` row"),
    ("I_HAND_SIZE", "offsets of the per-seat blocks in ``ints``"),
    ("I_SCORE", ""),
    ("I_ALIVE", ""),
    ("I_TREND", ""),
    ("I_OUTCOME", ""),
    ("I_DREW_ON", ""),
    ("I_NAMED", "per seat: the colour its last Wild named this round (-1: none)"),
    ("I_SIZE", "the length of a game's ``ints`` row"),
    *((block.param, f"first action id of the block {block.name!r} (-1: absent)") for block in BLOCKS[1:]),
    ("NUM_ACTIONS", ""),
    ("ACTION_TABLE", "where the action table starts in ``P``: action a's kind, face and colour at 3a, 3a + 1, 3a + 2"),
    ("O_SIZE", "observation size"),
)
"""The entries of ``P`` after the settings: sizes and offsets, with what they mean (the
first id of each action block after the first: :data:`ACTION_OFFSETS`)."""

PARAM_NAMES = (*(f.name.upper() for f in SETTINGS), *(name for name, _ in LAYOUT_PARAMS), "O_FIRST")
# derived, so that no setting is numbered by hand (mypy sees no members: code reads the short names)
Param = IntEnum("Param", [(name, k) for k, name in enumerate(PARAM_NAMES)])  # type: ignore[misc]
Param.__doc__ = """Entries of the kernels' parameter vector ``P``: each setting of
:class:`~uno_env.engine.config.RuleConfig` in declaration order (its name upper-cased, its
value as :meth:`RuleConfig.codes` gives it), then :data:`LAYOUT_PARAMS`, then ``O_FIRST``:
the observation's slice offsets from there on (:data:`ObsSlot`)."""
O_FIRST = int(Param["O_FIRST"])


class ObsSlot(IntEnum):
    """Per name of SLICE_NAMES (upper-cased, same order), the index in ``P`` of its offset in
    the observation (-1: absent). Spelled out so that type checkers see the members."""

    HAND = O_FIRST + 0
    TOP_CARD = O_FIRST + 1
    COLOUR = O_FIRST + 2
    PREVIOUS_COLOUR = O_FIRST + 3
    DIRECTION = O_FIRST + 4
    PHASE = O_FIRST + 5
    ACTING = O_FIRST + 6
    DEALER = O_FIRST + 7
    HAND_SIZES = O_FIRST + 8
    SCORES = O_FIRST + 9
    ALIVE = O_FIRST + 10
    DRAW_PILE_SIZE = O_FIRST + 11
    DISCARD_PILE = O_FIRST + 12
    DRAWN_CARD = O_FIRST + 13
    UNO_CALLED = O_FIRST + 14
    EXPOSED = O_FIRST + 15
    AFTER_WINDOW = O_FIRST + 16
    DREW_ON = O_FIRST + 17
    NAMED_COLOUR = O_FIRST + 18
    CHALLENGE_REVEAL = O_FIRST + 19
    CHALLENGE_REVEAL_SEAT = O_FIRST + 20
    TREND_COLOUR = O_FIRST + 21
    TREND_SHOWN = O_FIRST + 22
    PENDING_PENALTY = O_FIRST + 23
    LAST_SWAP = O_FIRST + 24
    TOP_CARD_PLAYER = O_FIRST + 25
    NEXT_TURN = O_FIRST + 26


if [(slot.name, int(slot)) for slot in ObsSlot] != [
    (name.upper(), O_FIRST + k) for k, name in enumerate(SLICE_NAMES)
]:  # pragma: no cover - a guard for edits of SLICE_NAMES
    raise ImportError("layout.ObsSlot is out of step with observation.SLICE_NAMES")

NUM_PARAMS = O_FIRST + len(SLICE_NAMES)
"""The entries of ``P`` before its action table (which is as long as the configuration's
action table makes it: three entries per action)."""
ACTION_OFFSETS = {block.name: int(Param[block.param]) for block in BLOCKS[1:]}
"""Per action block of ``ActionTable.offsets``, the entry of ``P`` that holds its first id."""

# The short names of the kernels and the Python hot paths: plain ints taken from the members
# above. numba compiles them as constants either way, but numpy compares and indexes with an
# IntEnum member through Enum.__getattr__, microseconds per operation (Game.step ran 2.5x slower).
# The block below is generated from the enums by short_name_lines() (`python -m uno_env.docs
# --write`); tests/test_engine_design.py checks that it is up to date.
# <generated short names>
S_PHASE = int(Scalar.PHASE)
S_CURRENT = int(Scalar.CURRENT)
S_DIRECTION = int(Scalar.DIRECTION)
S_DEALER = int(Scalar.DEALER)
S_COLOUR = int(Scalar.COLOUR)
S_PREV_COLOUR = int(Scalar.PREV_COLOUR)
S_DRAW_COUNT = int(Scalar.DRAW_COUNT)
S_DISCARD_COUNT = int(Scalar.DISCARD_COUNT)
S_DRAWN = int(Scalar.DRAWN)
S_UNO_CALLED = int(Scalar.UNO_CALLED)
S_EXPOSED = int(Scalar.EXPOSED)
S_AFTER_WINDOW = int(Scalar.AFTER_WINDOW)
S_WD4_OFFENDER = int(Scalar.WD4_OFFENDER)
S_WD4_GUILTY = int(Scalar.WD4_GUILTY)
S_WD4_OUT = int(Scalar.WD4_OUT)
S_WD4_EXPOSED = int(Scalar.WD4_EXPOSED)
S_REVEAL_VIEWER = int(Scalar.REVEAL_VIEWER)
S_REVEAL_OWNER = int(Scalar.REVEAL_OWNER)
S_TREND_VIEWER = int(Scalar.TREND_VIEWER)
S_TREND_COLOUR = int(Scalar.TREND_COLOUR)
S_ROUND = int(Scalar.ROUND)
S_STEP = int(Scalar.STEP)
S_TERMINATED = int(Scalar.TERMINATED)
S_TRUNCATED = int(Scalar.TRUNCATED)
S_N_ALIVE = int(Scalar.N_ALIVE)
S_LAST_WINNER = int(Scalar.LAST_WINNER)
S_FORFEIT = int(Scalar.FORFEIT)
S_EPISODES = int(Scalar.EPISODES)
S_PENDING = int(Scalar.PENDING)
S_TOP_PLAYER = int(Scalar.TOP_PLAYER)
S_FOLLOWING = int(Scalar.FOLLOWING)
S_SWAP_FROM = int(Scalar.SWAP_FROM)
S_SWAP_TO = int(Scalar.SWAP_TO)
PH_PLAY = int(Phase.PLAY)
PH_DRAWN = int(Phase.DRAWN)
PH_COLOR = int(Phase.COLOR)
PH_CHALLENGE = int(Phase.CHALLENGE)
PH_CATCH = int(Phase.CATCH)
PH_OVER = int(Phase.OVER)
PH_PENALTY = int(Phase.PENALTY)
PH_SWAP = int(Phase.SWAP)
PH_JUMP = int(Phase.JUMP)
SCORING_STANDARD = int(Scoring.STANDARD)
SCORING_ALTERNATIVE = int(Scoring.ALTERNATIVE)
SCORING_CHALLENGE = int(Scoring.CHALLENGE)
UNO_WINDOW = int(UnoCall.WINDOW)
UNO_AUTO = int(UnoCall.AUTO)
UNO_OFF = int(UnoCall.OFF)
ILLEGAL_PENALTY = int(IllegalAction.PENALTY)
ILLEGAL_RAISE = int(IllegalAction.RAISE)
ILLEGAL_LOSE = int(IllegalAction.LOSE)
EPISODE_GAME = int(Episode.GAME)
EPISODE_ROUND = int(Episode.ROUND)
REWARD_WIN = int(Reward.WIN)
REWARD_POINTS = int(Reward.POINTS)
STACKING_OFF = int(Stacking.OFF)
STACKING_SAME = int(Stacking.SAME)
STACKING_MIXED = int(Stacking.MIXED)
P_NUM_PLAYERS = int(Param["NUM_PLAYERS"])
P_DECK = int(Param["DECK"])
P_PARTNERS = int(Param["PARTNERS"])
P_SCORING = int(Param["SCORING"])
P_TARGET_SCORE = int(Param["TARGET_SCORE"])
P_UNO_CALL = int(Param["UNO_CALL"])
P_ILLEGAL_ACTION = int(Param["ILLEGAL_ACTION"])
P_EPISODE = int(Param["EPISODE"])
P_REWARD = int(Param["REWARD"])
P_MAX_STEPS = int(Param["MAX_STEPS"])
P_STACKING = int(Param["STACKING"])
P_SEVEN_O = int(Param["SEVEN_O"])
P_JUMP_IN = int(Param["JUMP_IN"])
P_DRAW_UNTIL_PLAYABLE = int(Param["DRAW_UNTIL_PLAYABLE"])
P_FORCE_PLAY = int(Param["FORCE_PLAY"])
P_FACES = int(Param["FACES"])
P_DECK_SIZE = int(Param["DECK_SIZE"])
P_C_HANDS = int(Param["C_HANDS"])
P_C_DRAW = int(Param["C_DRAW"])
P_C_DISCARD = int(Param["C_DISCARD"])
P_C_DISCARD_COUNTS = int(Param["C_DISCARD_COUNTS"])
P_C_REVEAL = int(Param["C_REVEAL"])
P_C_SIZE = int(Param["C_SIZE"])
P_I_HAND_SIZE = int(Param["I_HAND_SIZE"])
P_I_SCORE = int(Param["I_SCORE"])
P_I_ALIVE = int(Param["I_ALIVE"])
P_I_TREND = int(Param["I_TREND"])
P_I_OUTCOME = int(Param["I_OUTCOME"])
P_I_DREW_ON = int(Param["I_DREW_ON"])
P_I_NAMED = int(Param["I_NAMED"])
P_I_SIZE = int(Param["I_SIZE"])
P_A_W = int(Param["A_W"])
P_A_W4 = int(Param["A_W4"])
P_A_FT = int(Param["A_FT"])
P_A_DRAW = int(Param["A_DRAW"])
P_A_PASS = int(Param["A_PASS"])
P_A_UNO = int(Param["A_UNO"])
P_A_CHALLENGE = int(Param["A_CHALLENGE"])
P_A_ACCEPT = int(Param["A_ACCEPT"])
P_A_CATCH = int(Param["A_CATCH"])
P_A_COLOR = int(Param["A_COLOR"])
P_A_SWAP = int(Param["A_SWAP"])
P_NUM_ACTIONS = int(Param["NUM_ACTIONS"])
P_ACTION_TABLE = int(Param["ACTION_TABLE"])
P_O_SIZE = int(Param["O_SIZE"])
P_O_FIRST = int(Param["O_FIRST"])
O_HAND = int(ObsSlot.HAND)
O_TOP_CARD = int(ObsSlot.TOP_CARD)
O_COLOUR = int(ObsSlot.COLOUR)
O_PREVIOUS_COLOUR = int(ObsSlot.PREVIOUS_COLOUR)
O_DIRECTION = int(ObsSlot.DIRECTION)
O_PHASE = int(ObsSlot.PHASE)
O_ACTING = int(ObsSlot.ACTING)
O_DEALER = int(ObsSlot.DEALER)
O_HAND_SIZES = int(ObsSlot.HAND_SIZES)
O_SCORES = int(ObsSlot.SCORES)
O_ALIVE = int(ObsSlot.ALIVE)
O_DRAW_PILE_SIZE = int(ObsSlot.DRAW_PILE_SIZE)
O_DISCARD_PILE = int(ObsSlot.DISCARD_PILE)
O_DRAWN_CARD = int(ObsSlot.DRAWN_CARD)
O_UNO_CALLED = int(ObsSlot.UNO_CALLED)
O_EXPOSED = int(ObsSlot.EXPOSED)
O_AFTER_WINDOW = int(ObsSlot.AFTER_WINDOW)
O_DREW_ON = int(ObsSlot.DREW_ON)
O_NAMED_COLOUR = int(ObsSlot.NAMED_COLOUR)
O_CHALLENGE_REVEAL = int(ObsSlot.CHALLENGE_REVEAL)
O_CHALLENGE_REVEAL_SEAT = int(ObsSlot.CHALLENGE_REVEAL_SEAT)
O_TREND_COLOUR = int(ObsSlot.TREND_COLOUR)
O_TREND_SHOWN = int(ObsSlot.TREND_SHOWN)
O_PENDING_PENALTY = int(ObsSlot.PENDING_PENALTY)
O_LAST_SWAP = int(ObsSlot.LAST_SWAP)
O_TOP_CARD_PLAYER = int(ObsSlot.TOP_CARD_PLAYER)
O_NEXT_TURN = int(ObsSlot.NEXT_TURN)
# </generated short names>


def build_params(config: RuleConfig, actions: ActionTable, obs: ObservationSpec) -> np.ndarray:
    """The kernels' parameter vector for a configuration: the entries of :class:`Param`,
    then the action table (per action id, its kind, face and colour)."""
    n = config.num_players
    faces = num_faces(config.deck)
    deck_size = 112 if config.deck == "fashion_trend" else 108
    P = np.full(NUM_PARAMS + 3 * actions.num_actions, -1, dtype=np.int64)
    for name, code in config.codes().items():
        P[Param[name.upper()]] = code
    P[P_FACES] = faces
    P[P_DECK_SIZE] = deck_size
    offset = 0
    for index, size in (
        (P_C_HANDS, n * faces),
        (P_C_DRAW, deck_size),
        (P_C_DISCARD, deck_size),
        (P_C_DISCARD_COUNTS, faces),
        (P_C_REVEAL, faces),
    ):
        P[index] = offset
        offset += size
    P[P_C_SIZE] = offset
    offset = NUM_SCALARS
    for index in (P_I_HAND_SIZE, P_I_SCORE, P_I_ALIVE, P_I_TREND, P_I_OUTCOME, P_I_DREW_ON, P_I_NAMED):
        P[index] = offset
        offset += n
    P[P_I_SIZE] = offset
    for name, index in ACTION_OFFSETS.items():
        P[index] = actions.offset(name)
    P[P_NUM_ACTIONS] = actions.num_actions
    P[P_O_SIZE] = obs.size
    for name in SLICE_NAMES:
        P[ObsSlot[name.upper()]] = obs.offset(name)
    P[P_ACTION_TABLE] = NUM_PARAMS
    P[NUM_PARAMS:] = np.stack([actions.kinds, actions.faces, actions.colours], axis=1).ravel()
    return P


SHORT_NAME_PREFIXES = (
    (Scalar, "S_"),
    (Phase, "PH_"),
    (Scoring, "SCORING_"),
    (UnoCall, "UNO_"),
    (IllegalAction, "ILLEGAL_"),
    (Episode, "EPISODE_"),
    (Reward, "REWARD_"),
    (Stacking, "STACKING_"),
    (Param, "P_"),
    (ObsSlot, "O_"),
)
"""Each enum whose members get a short name, and the prefix of those names."""


def short_name_value(module: str, name: str, prefixes) -> int:
    """The value of a short name that ``docs --write`` has not written yet into ``module``'s
    generated block (a new setting's ``P_<NAME>``, a new block's ``KIND_<NAME>``), from the
    enum of its prefix among ``prefixes`` ((enum, prefix) pairs): a module's ``__getattr__``
    answers with it, so that a kernel may import the name before the block is regenerated
    (``tests/test_engine_design.py`` then asks for the regeneration)."""
    for codes, prefix in prefixes:
        member = name[len(prefix) :]
        if name.startswith(prefix) and member in codes.__members__:
            return int(codes[member])
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def __getattr__(name: str) -> int:
    return short_name_value(__name__, name, SHORT_NAME_PREFIXES)


def short_name_lines() -> list[str]:
    """The lines of the generated block of short names: ``PREFIX_MEMBER = int(Enum.MEMBER)``."""
    return [
        f'{prefix}{member.name} = int({codes.__name__}["{member.name}"])'
        if codes is Param
        else f"{prefix}{member.name} = int({codes.__name__}.{member.name})"
        for codes, prefix in SHORT_NAME_PREFIXES
        for member in sorted(codes, key=int)
    ]


def generated_block(name: str) -> re.Pattern:
    """The block of a source file that a generator writes, between ``# <generated NAME>``
    and ``# </generated NAME>``."""
    return re.compile(rf"(# <generated {name}>\n).*?(# </generated {name}>)", re.DOTALL)


BLOCK = generated_block("short names")
KINDS_BLOCK = generated_block("kinds")
CODES_PATH = pathlib.Path(__file__).parent / "kernels" / "codes.py"
"""The kernels' module whose block of action kinds (``KIND_*``) is generated from actions.py."""


def rewrite_block(path, block: re.Pattern, lines: list[str]) -> bool:
    """Rewrite the generated block ``block`` of the file ``path`` as ``lines``; True when it changed."""
    path = pathlib.Path(path)
    text = path.read_text()
    fresh = block.sub(lambda m: m.group(1) + "".join(line + "\n" for line in lines) + m.group(2), text)
    if fresh != text:
        path.write_text(fresh)
    return fresh != text


def write_short_names(path=None) -> bool:
    """Rewrite the generated blocks: this file's short names and the action kinds of
    ``kernels/codes.py``; True when one changed."""
    names = rewrite_block(path or __file__, BLOCK, short_name_lines())
    kinds = rewrite_block(CODES_PATH, KINDS_BLOCK, kind_lines())
    return names or kinds
