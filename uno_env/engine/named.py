"""The engine's named codes: phases and the settings' codes as ``IntEnum`` classes, and
each phase's decision (:data:`PHASE_DECISIONS`: the setting that brings it, its words).

Every name list (``PHASE_NAMES``, the allowed values of each setting of
:class:`~uno_env.engine.RuleConfig`) is derived from these classes, so no two
lists line up by hand. numba compiles ``IntEnum`` members used in the kernels as
constants; Python hot paths use the plain-int short names of
:mod:`uno_env.engine.layout` (``PH_OVER``...), since numpy handles an IntEnum member
slowly. The state's indices are named the same way in :mod:`uno_env.engine.layout`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .cards import RANK_NAMES, RANK_SEVEN, WILD, face_rank


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


@dataclass(frozen=True)
class Choice:
    """A choice its player makes right after playing a card of some ranks (Seven-O's swap after
    a 7): the card is on top, played by the chooser (``top_card_player`` is the acting seat)."""

    ranks: tuple[int, ...] | None
    """The ranks of the coloured card just played that bring it (``(cards.RANK_SEVEN,)``, the
    ten number ranks...); None: any card, a wild-type one too."""
    rule: str
    """The rule's id in refusals of a position in the phase (``R-HOUSE-SEVENO-1``)."""
    alone: str | None
    """What the card does without a decision with two players in the game ("swaps": "a 7
    swaps without a decision"), so that the phase needs three; None: asked with two too."""
    words: str = ""
    """The cards in words where one rank's name does not say them ("number card"); by default
    the ranks' names ("7", "Skip or Reverse")."""

    @property
    def card(self) -> str:
        """The card's words: "7", "Skip", "number card"."""
        if self.words or self.ranks is None:
            return self.words or "card"
        return " or ".join(RANK_NAMES[rank] for rank in self.ranks)

    def follows(self, face: int) -> bool:
        """Whether a card of face ``face``, just played, brings the choice."""
        return self.ranks is None or (face < WILD and face_rank(face) in self.ranks)

    @property
    def min_players(self) -> int:
        """The players in the game the choice needs."""
        return 2 if self.alone is None else 3


@dataclass(frozen=True)
class Decision:
    """What a phase asks, declared once: the rest of the project derives from it the
    observation's phase slice (``observation.phases_of`` and its compiled copy), the phases a
    position may load, and the phase's words in refusals, prompts and the docs."""

    house: bool
    """A house rule's phase (False for the classic phases). The setting that brings it names
    it (``decides=`` in its declaration, ``config.HOUSE_PHASES``); the phase is in the
    observation's ``phase`` slice when that setting, or one of a later house phase, is on
    (its code in the kernels not 0: a switch True, a named value other than its first,
    ``"off"``)."""
    words: str
    """What is decided, in a few words (the ``phase`` slice's row of docs/PROTOCOL.md); for a
    house rule's phase, the rule's name."""
    prompt: str | None
    """What a person is asked (``uno play``, ``uno serve``, the text agents); None: never asked."""
    refusal: str
    """The decision in "... is not available to player k during {refusal}" (``{drawn}``: the
    card just drawn)."""
    uno_call_hands: tuple[int, ...] = ()
    """The cards its player may hold having called UNO this turn (D-UNO: two, before playing
    the last but one; three after a call and a draw; one after a call and a play that leaves
    a decision); empty: ``uno_called`` is never set in the phase (but where a window
    interrupted another)."""
    uno_call_more: str | None = None
    """A setting with which any hand larger than those fits too (phase ``drawn``:
    ``draw_until_playable``, drawing on after the call, R-HOUSE-DRAW-1)."""
    choice: Choice | None = None
    """Set for a choice after a card (the chooser played the card on top)."""
    shows_next_turn: bool = False
    """Whose turn follows the decision is known to the acting seat: the observation's
    ``next_turn`` slice and a position's ``next_turn`` key hold it."""
    plays_cards: bool = False
    """A card may be played in the decision (``kernels.legality.may_play`` allows some there);
    in the other phases it allows none (``tests/test_legality.py`` checks both, phase by phase)."""
    asked: str = "choice"
    """When the decision is asked (:data:`ASKED`): ``"always"``, even with one action left
    (a turn with only ``draw``, a penalty decision with only ``accept``: not asking would
    tell the others about the hand); ``"choice"``, only with two actions or more, in public;
    ``"privately"``, only of the seats with a choice, and only they know it: every other
    seat is shown the turn that follows (``shows_next_turn`` is then required), and the
    event of its declining answer (``declined``) is the asked seat's alone."""
    declined: str | None = None
    """A privately asked decision's event for declining (``jump_pass``), seen by its seat only."""

    def __post_init__(self) -> None:
        if self.asked not in ASKED:
            raise ValueError(f"asked must be one of {ASKED}, got {self.asked!r}")
        if (self.asked == "privately") != (self.declined is not None) or (
            self.asked == "privately" and not self.shows_next_turn
        ):
            raise ValueError("a privately asked decision names its declining event and shows the next turn")


ASKED = ("always", "choice", "privately")
"""When a decision is asked (:attr:`Decision.asked`)."""


PHASE_DECISIONS: dict[Phase, Decision] = {
    Phase.PLAY: Decision(
        False,
        "a turn",
        "your turn: play a card or draw",
        "a normal turn",
        uno_call_hands=(2,),
        plays_cards=True,
        asked="always",
    ),
    Phase.DRAWN: Decision(
        False,
        "play the card just drawn, or keep it",
        "you drew a playable card: play it or pass",
        "the decision on the drawn card {drawn} (play it or pass)",
        uno_call_hands=(2, 3),
        uno_call_more="draw_until_playable",
        plays_cards=True,
    ),
    Phase.COLOR: Decision(
        False,
        "name the colour of a starting Wild",
        "name the colour of the starting Wild (color R/Y/G/B)",
        "naming the colour of the starting Wild",
    ),
    Phase.CHALLENGE: Decision(
        False,
        "a Wild Draw Four was played on you",
        "a Wild Draw Four was played on you: challenge or accept",
        "the answer to a Wild Draw Four (challenge or accept)",
    ),
    Phase.CATCH: Decision(
        False,
        "the catch window",
        "someone has one card and did not call UNO: catch or pass",
        "the catch window (catch or pass)",
    ),
    Phase.OVER: Decision(False, "never asked", None, "the game's end"),
    Phase.PENALTY: Decision(
        True,
        "stacking",
        "a draw penalty is on you: stack a card on it, accept it (draw it all), or challenge a W+4",
        "the answer to a pending draw penalty (stack, accept, or challenge a Wild Draw Four)",
        uno_call_hands=(2,),
        plays_cards=True,
        asked="always",
    ),
    Phase.SWAP: Decision(
        True,
        "Seven-O",
        "you played a 7: choose whom to swap hands with (swap k: the player k seats clockwise)",
        "the choice of the player to swap hands with (Seven-O)",
        choice=Choice((RANK_SEVEN,), "R-HOUSE-SEVENO-1", alone="swaps"),
        shows_next_turn=True,
    ),
    Phase.JUMP: Decision(
        True,
        "Jump-In",
        "you hold the card just played: jump in with it out of turn, or pass",
        "a jump-in window (play the identical card or pass)",
        uno_call_hands=(2,),
        shows_next_turn=True,
        plays_cards=True,
        asked="privately",
        declined="jump_pass",
    ),
}
"""Each phase's decision, in code order: the classic phases (up to ``OVER``), then the house
rules' phases, each appended with its setting."""


def phase_mask(phases) -> int:
    """The phases as bits (``1 << code``): the kernels test ``(MASK >> phase) & 1`` against a
    constant."""
    return sum(1 << int(phase) for phase in phases)


UNO_CALL_PHASES = tuple(int(p) for p, d in PHASE_DECISIONS.items() if d.uno_call_hands)
"""The phases in which ``uno_called`` may be set (outside an interrupted decision)."""
CHOICE_PHASES = {int(p): d.choice for p, d in PHASE_DECISIONS.items() if d.choice is not None}
"""The choices after a card, by phase code."""
CHOICE_PHASE_MASK = phase_mask(CHOICE_PHASES)
""":data:`CHOICE_PHASES` as bits: in them the acting seat played the top card."""
NEXT_TURN_PHASES = tuple(int(p) for p, d in PHASE_DECISIONS.items() if d.shows_next_turn)
"""The phases whose acting seat knows whose turn follows (``next_turn``)."""
NEXT_TURN_PHASE_MASK = phase_mask(NEXT_TURN_PHASES)
"""As bits, for the kernels."""
CARD_PHASES = tuple(int(p) for p, d in PHASE_DECISIONS.items() if d.plays_cards)
"""The phases in which a card may be played."""
ALWAYS_ASKED_PHASES = tuple(int(p) for p, d in PHASE_DECISIONS.items() if d.asked == "always")
"""The phases asked even with one action left (the state's invariants refuse it elsewhere)."""
PRIVATE_PHASES = tuple(int(p) for p, d in PHASE_DECISIONS.items() if d.asked == "privately")
"""The phases asked privately: to a seat not asked, the turn that follows."""
PRIVATE_PHASE_MASK = phase_mask(PRIVATE_PHASES)
"""As bits, for the kernels."""
PRIVATE_EVENTS = tuple(d.declined for d in PHASE_DECISIONS.values() if d.declined is not None)
"""The events of declining a privately asked decision: seen by the seat that declines only."""


def uno_call_fits(phase: int, size: int, config) -> bool:
    """Whether a player holding ``size`` cards in ``phase`` may have called UNO this turn (the
    phase's ``uno_call_hands``, and any larger hand under its ``uno_call_more`` setting)."""
    decision = PHASE_DECISIONS[Phase(phase)]
    hands = decision.uno_call_hands
    more = decision.uno_call_more is not None and bool(getattr(config, decision.uno_call_more))
    return size in hands or (more and bool(hands) and size >= min(hands))


def phase_list(phases) -> str:
    """The phases' names in words: "'swap' or 'jump'"."""
    quoted = [repr(PHASE_NAMES[p]) for p in phases]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
