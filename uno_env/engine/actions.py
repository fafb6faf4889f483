"""The action table: one id per action, mapped to the text notation both ways.

Each block of actions is declared once, in :data:`BLOCKS` (in id order; ids are contiguous
and a block the configuration lacks takes none): its name, verb, kind, words for the docs
and its actions in a configuration. Derived from it: the kinds (:data:`KINDS`, the
kernels' ``KIND_*`` in ``kernels/codes.py``), the entries of the parameter vector (its
``A_*`` first ids and the per-action table that ``kernels/step.decode_action`` reads), the
blocks a network file names, the docs' action table and the verbs a person may type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from .cards import (
    COLOURS,
    FASHION_TREND,
    NUM_COLOURS,
    RANKS_PER_COLOUR,
    WILD,
    WILD_DRAW_FOUR,
    card_to_str,
    parse_card,
    parse_colour,
    recolour_faces,
)
from .config import RuleConfig
from .named import Phase

Entry = tuple[str, int, int]
"""An action of a block: its words after the verb ("" for none), face (-1: none) and
colour (-1: none; ``swap``: its k)."""
Row = tuple[str, int, int, int]
"""An action's text, kind, face and colour (as in :data:`Entry`)."""


@dataclass(frozen=True)
class Block:
    """A block of the action table, declared once.

    ``name``: ``ActionTable.offsets``' key, the name a network file records, and (letters and
    digits upper-cased) the name of its entry ``A_<NAME>`` of the parameter vector (the first
    block has none: it starts at 0); ``verb``: the first word of its actions' texts;
    ``kind``: what the kernels make of it (``KIND_<kind>``; blocks may share one); ``when``:
    its words in the docs' action table; ``entries``: its actions in a configuration (none:
    the configuration lacks it); ``recolour``: what relabelling the colours does to its
    actions (``"faces"``: coloured faces, ``"colours"``: one per colour, ``""``: nothing);
    ``form``: how an error message shows it (``{first}``, ``{last}``: its first and last
    action's words)."""

    name: str
    verb: str
    kind: str
    when: str
    entries: Callable[[RuleConfig], list[Entry]]
    recolour: str = ""
    form: str = ""

    def __post_init__(self) -> None:
        if not self.kind.isidentifier() or self.kind != self.kind.upper():
            raise ValueError(f"action block {self.name!r}: kind {self.kind!r} must be an upper-case name (KIND_<kind>)")
        if self.recolour not in ("", "faces", "colours"):
            raise ValueError(f"action block {self.name!r}: recolour must be '', 'faces' or 'colours'")

    @property
    def param(self) -> str:
        """The name of its entry of ``P`` (the first id of the block, -1 when absent)."""
        return "A_" + re.sub(r"[^0-9A-Za-z]", "", self.name).upper()

    def rows(self, config: RuleConfig) -> list[Row]:
        """Its actions in ``config`` as (text, kind, face, colour)."""
        kind = KINDS.index(self.kind)
        return [(f"{self.verb} {words}".strip(), kind, face, colour) for words, face, colour in self.entries(config)]

    def shown(self, config: RuleConfig) -> str:
        """How an error message names its actions in ``config`` ("" when absent)."""
        entries = self.entries(config)
        if not entries:
            return ""
        return (self.form or self.verb).format(first=entries[0][0], last=entries[-1][0])


def coloured_plays(config: RuleConfig) -> list[Entry]:
    return [(card_to_str(face), face, face // RANKS_PER_COLOUR) for face in range(WILD)]


def wild_plays(face: int, decks: tuple[str, ...] = ()) -> Callable[[RuleConfig], list[Entry]]:
    """A wild face naming each colour (only with one of ``decks``; none given: any deck)."""

    def entries(config: RuleConfig) -> list[Entry]:
        if decks and config.deck not in decks:
            return []
        return [(f"{card_to_str(face)} {COLOURS[c]}", face, c) for c in range(NUM_COLOURS)]

    return entries


def single(when: Callable[[RuleConfig], bool] = lambda config: True) -> Callable[[RuleConfig], list[Entry]]:
    """One action of the bare verb, in the configurations ``when`` accepts."""
    return lambda config: [("", -1, -1)] if when(config) else []


def colour_choices(config: RuleConfig) -> list[Entry]:
    return [(COLOURS[c], -1, c) for c in range(NUM_COLOURS)]


def swap_choices(config: RuleConfig) -> list[Entry]:
    return [(str(k), -1, k) for k in range(1, config.num_players)] if config.asks(Phase.SWAP) else []


PLAY_FORM = "play <card> [colour]"
BLOCKS = (
    Block(
        "play",
        verb="play",
        kind="PLAY",
        when="a coloured card: colour R Y G B, rank 0-9, S (skip), R (reverse), +2",
        entries=coloured_plays,
        recolour="faces",
        form=PLAY_FORM,
    ),
    Block(
        "W",
        verb="play",
        kind="PLAY",
        when="a Wild naming a colour",
        entries=wild_plays(WILD),
        recolour="colours",
        form=PLAY_FORM,
    ),
    Block(
        "W+4",
        verb="play",
        kind="PLAY",
        when="a Wild Draw Four naming a colour (a bluff is allowed)",
        entries=wild_plays(WILD_DRAW_FOUR),
        recolour="colours",
        form=PLAY_FORM,
    ),
    Block(
        "FT",
        verb="play",
        kind="PLAY",
        when="a Fashion Trend naming a colour",
        entries=wild_plays(FASHION_TREND, decks=("fashion_trend",)),
        recolour="colours",
        form=PLAY_FORM,
    ),
    Block("draw", verb="draw", kind="DRAW", when="draw a card instead of playing (always allowed)", entries=single()),
    Block("pass", verb="pass", kind="PASS", when="keep the drawn card / let an exposed player go", entries=single()),
    Block(
        "uno",
        verb="uno",
        kind="UNO",
        when="call UNO with two cards before playing the next-to-last",
        entries=single(lambda config: config.uno_call != "off"),
    ),
    Block(
        "challenge",
        verb="challenge",
        kind="CHALLENGE",
        when="challenge the Wild Draw Four just played on you",
        entries=single(),
    ),
    Block(
        "accept",
        verb="accept",
        kind="ACCEPT",
        when="accept it and draw 4 (with stacking: draw the whole pending penalty)",
        entries=single(),
    ),
    Block(
        "catch",
        verb="catch",
        kind="CATCH",
        when="catch the player exposed with one card and no UNO call",
        entries=single(lambda config: config.uno_call == "window"),
    ),
    Block(
        "color",
        verb="color",
        kind="COLOUR",
        when="name the colour of a starting Wild",
        entries=colour_choices,
        recolour="colours",
        form="color <c>",
    ),
    Block(
        "swap",
        verb="swap",
        kind="SWAP",
        when="Seven-O: swap hands with the player k seats clockwise (after your 7)",
        entries=swap_choices,
        form="swap <{first}..{last}>",
    ),
)
"""Every block of the action table, in id order (see :class:`Block`)."""

BLOCK_BY_NAME = {block.name: block for block in BLOCKS}
KINDS = tuple(dict.fromkeys(block.kind for block in BLOCKS))
"""The action kinds, numbered in the order the blocks first name them."""
Kind = IntEnum("Kind", [(name, code) for code, name in enumerate(KINDS)])  # type: ignore[misc]
Kind.__doc__ = """The action kinds by name (:data:`KINDS`); the kernels compare with their
short names ``KIND_*``, generated into ``kernels/codes.py`` (``python -m uno_env.docs --write``)."""
KIND_NAMES = tuple(next(block.verb for block in BLOCKS if block.kind == kind) for kind in KINDS)
"""The verb of each kind, in kind order."""
COLOUR_BLOCKS = tuple(block.name for block in BLOCKS if block.recolour == "colours")
"""The action blocks of one action per colour."""


def kind_lines() -> list[str]:
    """The generated block of ``kernels/codes.py``: ``KIND_<NAME> = int(Kind["<NAME>"])``."""
    return [f'KIND_{name} = int(Kind["{name}"])' for name in KINDS]


def recolour_block(name: str, size: int, mapping) -> np.ndarray:
    """Where the actions of block ``name`` (its first ``size``) go when the colours are
    relabelled by ``mapping``: action k becomes ``result[k]``, within the block."""
    entries = np.arange(size, dtype=np.int64)
    recolour = BLOCK_BY_NAME[name].recolour if name in BLOCK_BY_NAME else ""
    if recolour == "faces":
        return recolour_faces(size, mapping)
    if recolour == "colours":
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
        rows: list[Row] = []
        offsets: dict[str, int] = {}
        for block in BLOCKS:
            block_rows = block.rows(self.config)
            if block is not BLOCKS[0] and block_rows:
                offsets[block.name] = len(rows)
            rows += block_rows
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
        canonical = CANONICAL_TEXT.get(words[0].lower(), _as_written)(text, words)
        action = self._ids.get(canonical)
        if action is None:
            raise ValueError(f"unknown action {text!r} in this configuration: expected {self._known_texts()}")
        return action

    def _known_texts(self) -> str:
        """The forms of the actions of this configuration, for an error message."""
        return ", ".join(dict.fromkeys(shown for block in BLOCKS if (shown := block.shown(self.config))))


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


def _as_written(text: str, words: list[str]) -> str:
    """The other verbs' actions (``draw``, ``uno``...): the verb in lower case, its words as written."""
    return " ".join([words[0].lower(), *words[1:]])


CANONICAL_TEXT = {"color": _colour_text, "colour": _colour_text, "swap": _swap_text, "play": _play_text}
"""The canonical text of an action given by its verb and words (ValueError: malformed); other
verbs: as written (:func:`_as_written`)."""

VERBS = tuple(dict.fromkeys([*(block.verb for block in BLOCKS), *CANONICAL_TEXT]))
"""The words an action's text may start with: each block's verb, and the other spellings ``to_id`` reads."""
