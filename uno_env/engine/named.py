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
    PENALTY = 6  # stacking: answer a pending draw penalty with a stackable card, accept it, or challenge
    SWAP = 7  # Seven-O: choose the player to swap hands with after playing a 7
    JUMP = 8  # Jump-In: play the identical card out of turn, or pass


class Scoring(IntEnum):
    STANDARD = 0  # R-SCORE
    ALTERNATIVE = 1  # R-VAR-ALT
    CHALLENGE = 2  # R-VAR-CHALLENGE


class Stacking(IntEnum):
    OFF = 0  # R-ACT-4: no stacking
    SAME = 1  # a Draw Two answers a Draw Two, a Wild Draw Four a Wild Draw Four (R-HOUSE-STACK-2)
    MIXED = 2  # also a Wild Draw Four on a Draw Two, a Draw Two on a Wild Draw Four in its colour


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
