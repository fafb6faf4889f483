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
        strings: list[str] = []
        kinds: list[int] = []
        faces: list[int] = []
        colours: list[int] = []
        offsets: dict[str, int] = {}

        def add(text: str, kind: int, face: int = -1, colour: int = -1) -> None:
            strings.append(text)
            kinds.append(kind)
            faces.append(face)
            colours.append(colour)

        for face in range(WILD):
            add(f"play {card_to_str(face)}", PLAY, face, face // 13)
        wild_faces = [WILD, WILD_DRAW_FOUR]
        if self.config.deck == "fashion_trend":
            wild_faces.append(FASHION_TREND)
        for face in wild_faces:
            offsets[card_to_str(face)] = len(strings)
            for colour in range(NUM_COLOURS):
                add(f"play {card_to_str(face)} {COLOURS[colour]}", PLAY, face, colour)
        singles = [("draw", DRAW), ("pass", PASS)]
        if self.config.uno_call != "off":
            singles.append(("uno", UNO))
        singles += [("challenge", CHALLENGE), ("accept", ACCEPT)]
        if self.config.uno_call == "window":
            singles.append(("catch", CATCH))
        for text, kind in singles:
            offsets[text] = len(strings)
            add(text, kind)
        offsets["color"] = len(strings)
        for colour in range(NUM_COLOURS):
            add(f"color {COLOURS[colour]}", COLOR, -1, colour)
        if self.config.seven_o:
            offsets["swap"] = len(strings)
            for k in range(1, self.config.num_players):
                add(f"swap {k}", SWAP, -1, k)  # the colour column holds k for this kind

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
        verb = words[0].lower()
        if verb == "color" or verb == "colour":
            if len(words) != 2:
                raise ValueError(f"{text!r}: expected 'color <R|Y|G|B>'")
            canonical = f"color {COLOURS[parse_colour(words[1])]}"
        elif verb == "swap":
            if len(words) != 2 or not words[1].isdigit():
                raise ValueError(f"{text!r}: expected 'swap <k>', k = seats clockwise from the player")
            canonical = f"swap {int(words[1])}"
        elif verb == "play":
            if len(words) not in (2, 3):
                raise ValueError(f"{text!r}: expected 'play <card>' or 'play <wild> <colour>'")
            face = parse_card(words[1])
            if face >= WILD:
                if len(words) != 3:
                    raise ValueError(
                        f"{text!r}: a {card_to_str(face)} names a colour, e.g. 'play {card_to_str(face)} G'"
                    )
                canonical = f"play {card_to_str(face)} {COLOURS[parse_colour(words[2])]}"
            else:
                if len(words) != 2:
                    raise ValueError(f"{text!r}: only wild cards name a colour")
                canonical = f"play {card_to_str(face)}"
        else:
            if len(words) != 1:
                raise ValueError(f"unknown action {text!r}")
            canonical = verb
        action = self._ids.get(canonical)
        if action is None:
            known = "play <card> [colour], draw, pass, challenge, accept, color <c>"
            if self.config.uno_call != "off":
                known += ", uno"
            if self.config.uno_call == "window":
                known += ", catch"
            if self.config.seven_o:
                known += f", swap <1..{self.config.num_players - 1}>"
            raise ValueError(f"unknown action {text!r} in this configuration: expected {known}")
        return action
