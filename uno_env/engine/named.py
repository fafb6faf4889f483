"""The engine's named codes: phases and the settings' codes as ``IntEnum`` classes.

Every name list (``PHASE_NAMES``, the allowed values of each setting of
:class:`~uno_env.engine.RuleConfig`) is derived from these classes, so no two
lists line up by hand. numba compiles ``IntEnum`` members used in the kernels as
constants; Python hot paths use the plain-int short names of
:mod:`uno_env.engine.layout` (``PH_OVER``...), since numpy handles an IntEnum member
slowly. The state's indices are named the same way in :mod:`uno_env.engine.layout`.
"""

from __future__ import annotations

from enum import IntEnum


def names(codes: type[IntEnum]) -> tuple[str, ...]:
    """The lower-case names of an enum's members, in code order (the strings that the
    configuration, positions and views use)."""
    return tuple(member.name.lower() for member in sorted(codes))


class Phase(IntEnum):
    """The decision the acting seat faces (``ints[S_PHASE]``)."""

    PLAY = 0  # play a card, draw, or call UNO
    DRAWN = 1  # play or keep the card just drawn
    COLOR = 2  # name the colour of a Wild (or of a starting Wild)
    CHALLENGE = 3  # challenge a Wild Draw Four or accept it
    CATCH = 4  # catch a player who did not call UNO
    OVER = 5  # the episode has ended


class Scoring(IntEnum):
    STANDARD = 0  # R-SCORE
    ALTERNATIVE = 1  # R-VAR-ALT
    CHALLENGE = 2  # R-VAR-CHALLENGE


class UnoCall(IntEnum):
    WINDOW = 0  # others may catch a missed call
    AUTO = 1  # a missed call is always caught
    OFF = 2  # no UNO call (R-UNO-4)


class IllegalAction(IntEnum):
    PENALTY = 0  # a wrong card is taken back and its player draws 2
    RAISE = 1  # refused with an error, nothing changes
    LOSE = 2  # its player loses the episode


class Episode(IntEnum):
    GAME = 0  # hands until the target score
    ROUND = 1  # one hand


class Reward(IntEnum):
    WIN = 0  # +1 to winners, -1 to losers at the end
    POINTS = 1  # points at each hand's end


PHASE_NAMES = names(Phase)
