"""The action table: one id per action, mapped to the text notation both ways.

Order (ids are contiguous; blocks that a configuration does not use are absent):

====================  =========================================================
``play <card>``        the 52 coloured faces, in face order (``play R0`` ... ``play B+2``)
``play W <c>``         Wild naming colour c (R, Y, G, B)
``play W+4 <c>``       Wild Draw Four naming colour c
``play FT <c>``        Fashion Trend naming colour c (``deck="fashion_trend"`` only)
``draw``               draw one card
``pass``               keep the drawn card / let an exposed player go
``uno``                call UNO (not with ``uno_call="off"``)
``challenge``          challenge a Wild Draw Four
``accept``             accept a Wild Draw Four (draw 4)
``catch``              catch the exposed player (``uno_call="window"`` only)
``color <c>``          name the colour of a starting Wild
``swap <k>``           Seven-O: swap hands with the seat k places clockwise (``seven_o=True`` only)
====================  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .cards import (
    COLOURS,
    FASHION_TREND,
    NUM_COLOURS,
    WILD,
    WILD_DRAW_FOUR,
    card_to_str,
    parse_card,
    parse_colour,
    recolour_faces,
)
from .config import RuleConfig

# action kinds
PLAY = 0
DRAW = 1
PASS = 2
UNO = 3
CHALLENGE = 4
ACCEPT = 5
CATCH = 6
COLOR = 7
SWAP = 8

KIND_NAMES = ("play", "draw", "pass", "uno", "challenge", "accept", "catch", "color", "swap")


COLOUR_BLOCKS = ("W", "W+4", "FT", "color")
"""The action blocks of one action per colour (the blocks of ``ActionTable.offsets`` but the
coloured plays, which start the table as the block ``play``)."""


def recolour_block(name: str, size: int, mapping) -> np.ndarray:
    """Where the actions of block ``name`` (its first ``size``; ``play``: the coloured plays)
    go when the colours are relabelled by ``mapping``: action k becomes ``result[k]``, within
    the block (the other blocks are colourless)."""
    entries = np.arange(size, dtype=np.int64)
    if name == "play":
        return recolour_faces(size, mapping)
    if name in COLOUR_BLOCKS:
        return np.asarray(mapping, dtype=np.int64)[entries]
    return entries


Row = tuple[str, int, int, int]
"""An action's text, kind, face (-1: none) and colour (-1: none; ``swap``: its k)."""


def action_blocks(config: RuleConfig) -> list[tuple[str | None, list[Row]]]:
    """The blocks of the action table in order, by name (None: the coloured plays), with their rows."""
    blocks: list[tuple[str | None, list[Row]]] = [
        (None, [(f"play {card_to_str(face)}", PLAY, face, face // 13) for face in range(WILD)])
    ]
    wild_faces = [WILD, WILD_DRAW_FOUR] + ([FASHION_TREND] if config.deck == "fashion_trend" else [])
    for face in wild_faces:
        plays = [(f"play {card_to_str(face)} {COLOURS[c]}", PLAY, face, c) for c in range(NUM_COLOURS)]
        blocks.append((card_to_str(face), plays))
    blocks += [(text, [(text, kind, -1, -1)]) for text, kind in single_actions(config)]
    blocks.append(("color", [(f"color {COLOURS[c]}", COLOR, -1, c) for c in range(NUM_COLOURS)]))
    if config.seven_o:
        blocks.append(("swap", [(f"swap {k}", SWAP, -1, k) for k in range(1, config.num_players)]))
    return blocks


def single_actions(config: RuleConfig) -> list[tuple[str, int]]:
    """The actions of one word, each a block of its own, in table order."""
    singles = [("draw", DRAW), ("pass", PASS)]
    if config.uno_call != "off":
        singles.append(("uno", UNO))
    singles += [("challenge", CHALLENGE), ("accept", ACCEPT)]
    if config.uno_call == "window":
        singles.append(("catch", CATCH))
    return singles


@dataclass(frozen=True)
class ActionTable:
    """Ids, kinds and text of every action of a configuration."""

    config: RuleConfig
    strings: tuple[str, ...] = field(init=False)
    kinds: np.ndarray = field(init=False, repr=False)
    faces: np.ndarray = field(init=False, repr=False)
    colours: np.ndarray = field(init=False, repr=False)
    offsets: dict = field(init=False, repr=False)
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)  # text -> id, from ``strings``

    def __post_init__(self) -> None:
        rows: list[tuple[str, int, int, int]] = []
        offsets: dict[str, int] = {}
        for name, block in action_blocks(self.config):
            if name is not None:
                offsets[name] = len(rows)
            rows += block
        strings, kinds, faces, colours = zip(*rows)
        object.__setattr__(self, "strings", tuple(strings))
        object.__setattr__(self, "kinds", np.array(kinds, dtype=np.int8))
        object.__setattr__(self, "faces", np.array(faces, dtype=np.int8))
        object.__setattr__(self, "colours", np.array(colours, dtype=np.int8))
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "_ids", {s: i for i, s in enumerate(strings)})

    def __len__(self) -> int:
        return len(self.strings)

    @property
    def num_actions(self) -> int:
        return len(self.strings)

    def offset(self, block: str) -> int:
        """First id of a block (``"W"``, ``"W+4"``, ``"FT"``, ``"draw"``, ``"uno"``, ...), -1 if absent."""
        return self.offsets.get(block, -1)

    def blocks(self) -> list[tuple[str, int, int]]:
        """The blocks of the table in id order, as (name, first id, stop): ``play`` (the
        coloured plays, from id 0), then those of :attr:`offsets`."""
        starts = sorted((first, name) for name, first in self.offsets.items())
        if not starts or starts[0][0] > 0:
            starts.insert(0, (0, "play"))
        stops = [first for first, _ in starts[1:]] + [len(self.strings)]
        return [(name, first, stop) for (first, name), stop in zip(starts, stops)]

    def recolouring(self, mapping) -> np.ndarray:
        """Where each action goes when the colours are relabelled by ``mapping``: action
        ``a`` becomes ``result[a]`` (:func:`recolour_block`)."""
        return np.concatenate(
            [first + recolour_block(name, stop - first, mapping) for name, first, stop in self.blocks()]
        )

    def to_string(self, action: int | np.integer) -> str:
        """Text of an action id; ValueError when out of range."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action id must be an integer, got {action!r}")
        if not 0 <= int(action) < len(self.strings):
            raise ValueError(f"action id {action} out of range 0..{len(self.strings) - 1}")
        return self.strings[int(action)]

    def to_id(self, text: str) -> int:
        """Id of an action text such as ``play R7``, ``play W G``, ``draw``; ValueError otherwise."""
        if not isinstance(text, str):
            raise ValueError(f"an action must be given as text such as 'play R7', got {text!r}")
        words = text.strip().split()
        if not words:
            raise ValueError("empty action text")
        canonical = CANONICAL_TEXT.get(words[0].lower(), _one_word)(text, words)
        action = self._ids.get(canonical)
        if action is None:
            raise ValueError(f"unknown action {text!r} in this configuration: expected {self._known_texts()}")
        return action

    def _known_texts(self) -> str:
        """The forms of the actions of this configuration, for an error message."""
        known = "play <card> [colour], draw, pass, challenge, accept, color <c>"
        if self.config.uno_call != "off":
            known += ", uno"
        if self.config.uno_call == "window":
            known += ", catch"
        if self.config.seven_o:
            known += f", swap <1..{self.config.num_players - 1}>"
        return known


# ---------------------------------------------------------------------- action texts, by verb


def _colour_text(text: str, words: list[str]) -> str:
    if len(words) != 2:
        raise ValueError(f"{text!r}: expected 'color <R|Y|G|B>'")
    return f"color {COLOURS[parse_colour(words[1])]}"


def _swap_text(text: str, words: list[str]) -> str:
    if len(words) != 2 or not words[1].isdigit():
        raise ValueError(f"{text!r}: expected 'swap <k>', k = seats clockwise from the player")
    return f"swap {int(words[1])}"


def _play_text(text: str, words: list[str]) -> str:
    if len(words) not in (2, 3):
        raise ValueError(f"{text!r}: expected 'play <card>' or 'play <wild> <colour>'")
    face = parse_card(words[1])
    if face < WILD:
        if len(words) != 2:
            raise ValueError(f"{text!r}: only wild cards name a colour")
        return f"play {card_to_str(face)}"
    if len(words) != 3:
        raise ValueError(f"{text!r}: a {card_to_str(face)} names a colour, e.g. 'play {card_to_str(face)} G'")
    return f"play {card_to_str(face)} {COLOURS[parse_colour(words[2])]}"


def _one_word(text: str, words: list[str]) -> str:
    """The actions of a single word (``draw``, ``uno``...), in lower case."""
    if len(words) != 1:
        raise ValueError(f"unknown action {text!r}")
    return words[0].lower()


CANONICAL_TEXT = {"color": _colour_text, "colour": _colour_text, "swap": _swap_text, "play": _play_text}
"""The canonical text of an action given by its verb and words (ValueError: malformed); other verbs: one word."""
