"""Cards: face ids, the text notation and card values (R-DECK).

A *face* is a kind of card. Coloured faces are ``colour * 13 + rank`` with the
colours ``R Y G B`` (0..3) and the ranks 0..9, Skip (10), Reverse (11) and
Draw Two (12); then Wild (52), Wild Draw Four (53) and Fashion Trend (54).
The classic deck uses faces 0..53, the Fashion Trend deck 0..54.

Notation: ``R7``, ``RS`` (skip), ``RR`` (reverse), ``R+2``, ``W``, ``W+4``, ``FT``.

R-TURN-1's match (:func:`matches_on`) is defined once, here: the kernels inline this very
function (an :func:`~uno_env.engine.jit.accessor`; ``kernels.matches_on``), Python code
(positions) calls it as it is.
"""

from __future__ import annotations

import itertools

import numpy as np

from .jit import accessor

COLOURS = ("R", "Y", "G", "B")
COLOUR_NAMES = ("red", "yellow", "green", "blue")
NUM_COLOURS = 4
RANKS_PER_COLOUR = 13
RANK_ZERO = 0
RANK_SEVEN = 7
RANK_SKIP = 10
RANK_REVERSE = 11
RANK_DRAW_TWO = 12
RANK_SYMBOLS = tuple(str(r) for r in range(10)) + ("S", "R", "+2")
RANK_NAMES = tuple(str(r) for r in range(10)) + ("Skip", "Reverse", "Draw Two")

WILD = 52
WILD_DRAW_FOUR = 53
FASHION_TREND = 54
NUM_CLASSIC_FACES = 54
NUM_FASHION_FACES = 55

DECKS = ("classic", "fashion_trend")

COLOUR_PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(NUM_COLOURS)))
"""Every relabelling of the four colours (colour c becomes ``mapping[c]``), the identity
first. The rules treat the colours alike (R-DECK-1), so a game with every card, colour and
action relabelled is played alike (a test plays both); ``ppo`` averages its network over them."""


def face_colour(face: int) -> int:
    """Colour index of a coloured face, -1 for wild-type faces."""
    return face // RANKS_PER_COLOUR if face < WILD else -1


def face_rank(face: int) -> int:
    """Rank of a coloured face (0..12), -1 for wild-type faces."""
    return face % RANKS_PER_COLOUR if face < WILD else -1


@accessor
def matches_on(face: int, colour: int, top: int) -> bool:
    """R-TURN-1: ``face`` may be played on ``top`` with ``colour`` in force: the same colour,
    the same number or symbol as a coloured top card, or a wild-type card (always)."""
    if face >= WILD:
        return True
    if face // RANKS_PER_COLOUR == colour:
        return True
    return top < WILD and top % RANKS_PER_COLOUR == face % RANKS_PER_COLOUR


def is_draw_card(face: int) -> bool:
    """A Draw Two or a Wild Draw Four: a card that makes the next player draw (R-ACT,
    R-WD4), what a stack is made of (R-HOUSE-STACK)."""
    return face == WILD_DRAW_FOUR or (face < WILD and face % RANKS_PER_COLOUR == RANK_DRAW_TWO)


def recolour_face(face: int, mapping) -> int:
    """The face with its colour relabelled by ``mapping`` (:data:`COLOUR_PERMUTATIONS`);
    wild-type faces are colourless and stay."""
    face = int(face)
    if face >= WILD:
        return face
    return int(mapping[face_colour(face)]) * RANKS_PER_COLOUR + face_rank(face)


def recolour_faces(count: int, mapping) -> np.ndarray:
    """:func:`recolour_face` of the faces 0..count-1 (a slice or block with one entry per face)."""
    return np.array([recolour_face(face, mapping) for face in range(count)], dtype=np.int64)


def is_wild_type(face: int) -> bool:
    """Wild, Wild Draw Four and Fashion Trend: the player names a colour."""
    return face >= WILD


def card_value(face: int) -> int:
    """Scoring value (R-DECK-3)."""
    if face >= WILD:
        return 50
    rank = face % RANKS_PER_COLOUR
    return rank if rank < 10 else 20


def card_to_str(face: int | np.integer) -> str:
    """Text of a face: ``R7``, ``GS``, ``B+2``, ``W``, ``W+4``, ``FT``."""
    face = int(face)
    if face == WILD:
        return "W"
    if face == WILD_DRAW_FOUR:
        return "W+4"
    if face == FASHION_TREND:
        return "FT"
    if not 0 <= face < WILD:
        raise ValueError(f"unknown card face id {face}")
    return COLOURS[face // RANKS_PER_COLOUR] + RANK_SYMBOLS[face % RANKS_PER_COLOUR]


def card_name(face: int) -> str:
    """Long English name of a face, e.g. ``red 7``, ``blue Draw Two``."""
    face = int(face)
    if face == WILD:
        return "Wild"
    if face == WILD_DRAW_FOUR:
        return "Wild Draw Four"
    if face == FASHION_TREND:
        return "Fashion Trend"
    return f"{COLOUR_NAMES[face // RANKS_PER_COLOUR]} {RANK_NAMES[face % RANKS_PER_COLOUR]}"


_TEXT_TO_FACE = {card_to_str(f): f for f in range(NUM_FASHION_FACES)}


def parse_card(text: str) -> int:
    """Face id of a card text (case-insensitive); ValueError for unknown text."""
    if not isinstance(text, str):
        raise ValueError(f"a card must be given as text such as 'R7', got {text!r}")
    face = _TEXT_TO_FACE.get(text.strip().upper())
    if face is None:
        raise ValueError(
            f"unknown card {text!r}: expected a colour R/Y/G/B followed by 0-9, S, R or +2 "
            "(e.g. 'R7', 'GS', 'B+2'), or W, W+4, FT"
        )
    return face


def parse_colour(text: str) -> int:
    """Colour index of ``R``/``Y``/``G``/``B`` (or the English name)."""
    key = str(text).strip().upper()
    for index, (letter, name) in enumerate(zip(COLOURS, COLOUR_NAMES)):
        if key in (letter, name.upper()):
            return index
    raise ValueError(f"unknown colour {text!r}: expected one of R, Y, G, B")


def num_faces(deck: str) -> int:
    """Number of faces of a deck: 54 classic, 55 with Fashion Trend."""
    return NUM_FASHION_FACES if deck == "fashion_trend" else NUM_CLASSIC_FACES


def deck_counts(deck: str) -> np.ndarray:
    """Copies of each face in a deck (R-DECK-1, R-DECK-2), indexed by face id."""
    counts = np.zeros(num_faces(deck), dtype=np.int8)
    for colour in range(NUM_COLOURS):
        base = colour * RANKS_PER_COLOUR
        counts[base] = 1
        counts[base + 1 : base + RANKS_PER_COLOUR] = 2
    counts[WILD] = 4
    counts[WILD_DRAW_FOUR] = 4
    if deck == "fashion_trend":
        counts[FASHION_TREND] = 4
    return counts


def deck_faces(deck: str) -> np.ndarray:
    """The deck as a list of face ids in canonical (sorted) order."""
    return np.repeat(np.arange(num_faces(deck), dtype=np.int8), deck_counts(deck))


CARD_VALUES = np.array([card_value(f) for f in range(NUM_FASHION_FACES)], dtype=np.int32)
# Copies of each face id in the deck that holds it (every face but FT is in both decks).
FACE_COPIES = deck_counts("fashion_trend").astype(np.int64)
