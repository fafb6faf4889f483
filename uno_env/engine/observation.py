"""The observation: one flat float32 vector built from a list of named slices.

The same list gives the offsets the compiled kernel writes to, the dict view for
humans and notebooks, the text view, the bounds of the observation space and the
table in the docs. Seats are relative to the observer: index 0 is the observer,
1 the next seat clockwise, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import CARD_VALUES, COLOURS, NUM_COLOURS, RANK_SYMBOLS, card_to_str, deck_counts, num_faces, recolour_faces
from .config import HOUSE_PHASES, RuleConfig
from .named import NEXT_TURN_PHASES, PHASE_DECISIONS, PHASE_NAMES, Phase


def phases_of(config: RuleConfig) -> tuple[str, ...]:
    """The phases a configuration can reach, in code order: the classic six, then those of
    the house rules up to the last one that is on (the phase slice has one entry each)."""
    on = [phase for phase in HOUSE_PHASES if config.asks(phase)]
    return PHASE_NAMES[: max([Phase.OVER, *on]) + 1]


@dataclass(frozen=True)
class ObsSlice:
    name: str
    size: int
    low: float
    high: np.ndarray
    description: str
    labels: tuple[str, ...]
    offset: int = 0

    @property
    def stop(self) -> int:
        return self.offset + self.size


# every slice name the kernel knows, in observation order
SLICE_NAMES = (
    "hand",
    "top_card",
    "colour",
    "previous_colour",
    "direction",
    "phase",
    "acting",
    "dealer",
    "hand_sizes",
    "scores",
    "alive",
    "draw_pile_size",
    "discard_pile",
    "drawn_card",
    "uno_called",
    "exposed",
    "after_window",
    "drew_on",
    "named_colour",
    "challenge_reveal",
    "challenge_reveal_seat",
    "trend_colour",
    "trend_shown",
    "pending_penalty",
    "last_swap",
    "top_card_player",
    "next_turn",
)

COUNT_SLICES = (
    "hand",
    "direction",
    "hand_sizes",
    "scores",
    "draw_pile_size",
    "discard_pile",
    "challenge_reveal",
    "pending_penalty",
)
"""Slices of counts (and the direction's sign): integers (int64) in :meth:`ObservationSpec.to_dict`;
the flat observation stays float32."""

COLOUR_SLICES: dict[str, str] = {
    "hand": "face",
    "top_card": "face",
    "discard_pile": "face",
    "drawn_card": "face",
    "challenge_reveal": "face",
    "colour": "colour",
    "previous_colour": "colour",
    "trend_colour": "colour",
    "drew_on": "seat_colour",
    "named_colour": "seat_colour",
}
"""The slices whose entries name a colour, by how: one entry per card face, per colour, or
per seat and colour (in that order); the other slices are colourless."""


SLICE_WORDS: dict[str, str] = {
    "hand": (
        "your hand as counts: copies you hold of each card face (not one-hot: 2 means two copies); its sum is"
        " your hand size"
    ),
    "top_card": (
        "the face on top of the discard pile, one-hot; a Wild stays `W`, `W+4` or `FT` there (the colour it "
        "named is `colour`)"
    ),
    "colour": (
        "the colour a card must match now, one-hot: the top card's, or the one its Wild, Wild Draw Four or "
        "Fashion Trend named (while `FT` is on top: the trend's colour, the one the other seats were asked to "
        "show); all 0 only while a starting Wild waits for its colour (phase `color`)"
    ),
    "previous_colour": (
        "the colour in force before the top card was played, one-hot (all 0 before the first play of a "
        "round): a Wild Draw Four is honest only if its player held no card of this colour, so its target "
        "judges a challenge by it"
    ),
    "direction": (
        "+1: play goes clockwise, the next seat is entry 1 (`seat+1`) of the per-seat fields; -1: counter-"
        "clockwise, the next seat is their last entry"
    ),
    "phase": (
        "the kind of decision asked now, one-hot: "
        + ", ".join(f"`{PHASE_NAMES[p]}` ({d.words})" for p, d in PHASE_DECISIONS.items() if not d.house)
        + "; the house rules' "
        + ", ".join(f"`{PHASE_NAMES[p]}` ({d.words})" for p, d in PHASE_DECISIONS.items() if d.house)
        + '. "Decisions, phase by phase" below shows each'
    ),
    "acting": ("the seat whose decision it is, one-hot: at the decisions sent to a program always entry 0, itself"),
    "dealer": ("the dealer of this round, one-hot"),
    "hand_sizes": ("cards each seat holds (public, R-TURN-6)"),
    "scores": (
        "each seat's game score from the rounds before this one, by the game's `scoring` (a team's score on "
        "both partners); all 0 in a game of one round"
    ),
    "alive": ("1 while the seat is in the game, 0 once eliminated (only Challenge UNO scoring eliminates)"),
    "draw_pile_size": ("cards left in the draw pile"),
    "discard_pile": (
        "copies of each face in the discard pile, the top card included: every card played since the pile was"
        " last reshuffled into the draw pile"
    ),
    "drawn_card": ("in phase `drawn`: the card you just drew, one-hot (it is in `hand` too); all 0 otherwise"),
    "uno_called": (
        "1 once the acting seat (you, at your decisions) has called UNO this turn: calling is a decision of "
        "its own, and `uno` is not offered again until the next turn"
    ),
    "exposed": (
        "one-hot: the seat that went down to one card without calling UNO, while it may be caught (phase "
        "`catch`) or while its last-but-one card, a Wild Draw Four, waits for your answer (phase "
        "`challenge`); all 0 otherwise"
    ),
    "after_window": (
        "one-hot, in phase `catch` only: the seat whose turn begins when the catch window closes (by a catch "
        "or when every seat asked has passed)"
    ),
    "drew_on": (
        "per seat, 1 for each colour that was in force when the seat drew instead of playing, since its last "
        "play: a hint that it holds no card of that colour"
    ),
    "named_colour": (
        "per seat, the colour its last Wild, Wild Draw Four or Fashion Trend named this round, one-hot (all 0"
        " before its first, and after a Seven-O swap)"
    ),
    "challenge_reveal": (
        "the hand of a Wild Draw Four's player as it was shown to you by your challenge (counts per face), "
        "until your next challenge or the round's end; all 0 if you have not challenged this round"
    ),
    "challenge_reveal_seat": ("one-hot: whose hand `challenge_reveal` shows"),
    "trend_colour": ("the colour your last Fashion Trend named, one-hot (all 0 before you play one)"),
    "trend_shown": (
        "per seat, the rank (`0`-`9`, `S`, `R`, `+2`) of the card it showed you for that trend, one-hot; all "
        "0 for a seat that could not show one"
    ),
    "pending_penalty": (
        "the cards the target of a stack (you, in phase `penalty`) must draw unless it stacks another draw card on it"
    ),
    "last_swap": (
        "1 on the two seats of the last 7 swap of this round (the 7's player and the one it chose); all 0 "
        "before the first"
    ),
    "top_card_player": ("the seat that played the top card, one-hot; all 0 for the starting card"),
    "next_turn": (
        "one-hot, in phases `swap` and `jump` (to the seat asked): the seat whose turn begins after this decision"
    ),
}
"""Per slice, what it holds in words for a program's author: what it counts, its values and
whose seat (the field table of docs/PROTOCOL.md, :mod:`uno_env.protocol_doc`)."""


def recolour_entries(name: str, size: int, mapping) -> np.ndarray:
    """Where the entries of slice ``name`` (its first ``size``) go when the colours are
    relabelled by ``mapping`` (:data:`uno_env.engine.cards.COLOUR_PERMUTATIONS`): entry k's
    value becomes entry ``result[k]``, within the slice."""
    kind = COLOUR_SLICES.get(name)
    entries = np.arange(size, dtype=np.int64)
    if kind == "face":
        return recolour_faces(size, mapping)
    if kind == "colour":
        return np.asarray(mapping, dtype=np.int64)[entries]
    if kind == "seat_colour":
        return entries - entries % NUM_COLOURS + np.asarray(mapping, dtype=np.int64)[entries % NUM_COLOURS]
    return entries


@dataclass(frozen=True)
class _Sizes:
    """What the slices' sizes, bounds and labels are made of, for one configuration."""

    n: int
    faces: int
    counts: np.ndarray  # copies of each face in the deck (float32)
    deck_size: float
    max_score: float
    face_labels: tuple[str, ...]
    seat_labels: tuple[str, ...]

    @classmethod
    def of(cls, config: RuleConfig) -> _Sizes:
        faces = num_faces(config.deck)
        counts = deck_counts(config.deck).astype(np.float32)
        total_value = float((CARD_VALUES[:faces] * counts).sum())
        return cls(
            n=config.num_players,
            faces=faces,
            counts=counts,
            deck_size=float(counts.sum()),
            max_score=float(config.target_score - 1) + total_value,
            face_labels=tuple(card_to_str(f) for f in range(faces)),
            seat_labels=tuple(f"seat+{i}" if i else "self" for i in range(config.num_players)),
        )

    def seat_colour_labels(self) -> tuple[str, ...]:
        return tuple(f"{s}:{c}" for s in self.seat_labels for c in COLOURS)


def _full(size: int, value: float) -> np.ndarray:
    return np.full(size, value, dtype=np.float32)


def _card_slices(z: _Sizes) -> list[tuple]:
    """The cards the observer sees: its hand, the top card, the colours in force."""
    return [
        ("hand", z.faces, 0, z.counts, "own hand: copies held of each card face", z.face_labels),
        ("top_card", z.faces, 0, _full(z.faces, 1), "one-hot face of the top discard", z.face_labels),
        ("colour", 4, 0, _full(4, 1), "current colour, one-hot (none while a starting Wild waits)", COLOURS),
        (
            "previous_colour",
            4,
            0,
            _full(4, 1),
            "colour in force before the top card was played (judges a Wild Draw Four)",
            COLOURS,
        ),
    ]


def _table_slices(z: _Sizes, phases: tuple[str, ...]) -> list[tuple]:
    """The table: direction, the decision and who takes it, the seats' public counts, the piles."""
    n = z.n
    return [
        ("direction", 1, -1, _full(1, 1), "+1 clockwise (seat+1 plays next), -1 counter-clockwise", ("direction",)),
        ("phase", len(phases), 0, _full(len(phases), 1), "decision phase, one-hot", phases),
        ("acting", n, 0, _full(n, 1), "seat whose decision it is, one-hot", z.seat_labels),
        ("dealer", n, 0, _full(n, 1), "dealer of this round, one-hot", z.seat_labels),
        ("hand_sizes", n, 0, _full(n, z.deck_size), "cards held by each seat", z.seat_labels),
        (
            "scores",
            n,
            0,
            _full(n, z.max_score),
            "game score of each seat (a team's score on both partners)",
            z.seat_labels,
        ),
        ("alive", n, 0, _full(n, 1), "1 while the seat is in the game (Challenge UNO eliminates)", z.seat_labels),
        ("draw_pile_size", 1, 0, _full(1, z.deck_size), "cards in the draw pile", ("draw_pile_size",)),
        (
            "discard_pile",
            z.faces,
            0,
            z.counts,
            "copies of each face in the discard pile (played since the last reshuffle)",
            z.face_labels,
        ),
    ]


def _decision_slices(z: _Sizes) -> list[tuple]:
    """The decision's details and what seats revealed: the drawn card, the UNO call, the catch
    window, what each seat drew on and named, a challenge's reveal."""
    n = z.n
    return [
        (
            "drawn_card",
            z.faces,
            0,
            _full(z.faces, 1),
            "the card just drawn, when deciding whether to play it",
            z.face_labels,
        ),
        ("uno_called", 1, 0, _full(1, 1), "the acting player has called UNO this turn", ("uno_called",)),
        (
            "exposed",
            n,
            0,
            _full(n, 1),
            "seat with one card and no UNO call (catch window, or its Wild Draw Four pending)",
            z.seat_labels,
        ),
        ("after_window", n, 0, _full(n, 1), "seat that plays when the catch window closes", z.seat_labels),
        (
            "drew_on",
            n * 4,
            0,
            _full(n * 4, 1),
            "colours in force when each seat drew instead of playing, since its last play",
            z.seat_colour_labels(),
        ),
        (
            "named_colour",
            n * 4,
            0,
            _full(n * 4, 1),
            "colour each seat's last Wild (or Fashion Trend) named this round, one-hot per seat",
            z.seat_colour_labels(),
        ),
        (
            "challenge_reveal",
            z.faces,
            0,
            z.counts,
            "hand of a Wild Draw Four player shown to this observer by its challenge",
            z.face_labels,
        ),
        ("challenge_reveal_seat", n, 0, _full(n, 1), "whose hand challenge_reveal shows, one-hot", z.seat_labels),
    ]


def _variant_slices(config: RuleConfig, z: _Sizes) -> list[tuple]:
    """The slices present only with their deck or house rule (the classic observation is
    unchanged without them)."""
    n = z.n
    spec: list[tuple] = []
    if config.deck == "fashion_trend":
        spec += [
            ("trend_colour", 4, 0, _full(4, 1), "colour of the last Fashion Trend this observer played", COLOURS),
            (
                "trend_shown",
                n * 13,
                0,
                _full(n * 13, 1),
                "rank each seat showed to this observer for that trend, one-hot per seat",
                tuple(f"{s}:{r}" for s in z.seat_labels for r in RANK_SYMBOLS),
            ),
        ]
    if config.stacking != "off":
        spec.append(
            (
                "pending_penalty",
                1,
                0,
                _full(1, z.deck_size),
                "cards the acting target of a stack must draw unless it answers (stacking)",
                ("pending_penalty",),
            )
        )
    if config.seven_o:
        spec.append(
            ("last_swap", n, 0, _full(n, 1), "the two seats of the last 7 swap of this round (Seven-O)", z.seat_labels)
        )
    if config.jump_in:
        spec.append(
            (
                "top_card_player",
                n,
                0,
                _full(n, 1),
                "seat that played the top card, none for the starter (Jump-In)",
                z.seat_labels,
            )
        )
    if any(config.asks(phase) for phase in NEXT_TURN_PHASES):  # a decision whose seat knows the next turn
        spec.append(
            (
                "next_turn",
                n,
                0,
                _full(n, 1),
                "to the seat deciding a Seven-O swap or a jump-in: whose turn begins after it",
                z.seat_labels,
            )
        )
    return spec


def observation_slices(config: RuleConfig) -> tuple[ObsSlice, ...]:
    """The slices of a configuration's observation, with their offsets (in the order of
    :data:`SLICE_NAMES`)."""
    z = _Sizes.of(config)
    spec = _card_slices(z) + _table_slices(z, phases_of(config)) + _decision_slices(z) + _variant_slices(config, z)
    slices = []
    offset = 0
    for name, size, low, high, description, labels in spec:
        assert len(labels) == size and len(high) == size, name
        slices.append(ObsSlice(name, size, float(low), np.asarray(high, np.float32), description, labels, offset))
        offset += size
    return tuple(slices)


class ObservationSpec:
    """Offsets, bounds and views of a configuration's observation vector."""

    def __init__(self, config: RuleConfig):
        self.config = config
        self.slices = observation_slices(config)
        self.by_name = {s.name: s for s in self.slices}
        self.size = self.slices[-1].stop
        self.low = np.concatenate([np.full(s.size, s.low, np.float32) for s in self.slices])
        self.high = np.concatenate([s.high for s in self.slices])

    def offset(self, name: str) -> int:
        """Offset of a slice, -1 when the configuration has none."""
        return self.by_name[name].offset if name in self.by_name else -1

    def recolouring(self, mapping) -> np.ndarray:
        """Where each entry of the observation goes when the colours are relabelled by
        ``mapping``: ``recoloured[result] = observation`` (:func:`recolour_entries`)."""
        return np.concatenate([s.offset + recolour_entries(s.name, s.size, mapping) for s in self.slices])

    def to_dict(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Slice name to its part of an observation vector; counts (:data:`COUNT_SLICES`) as
        integers when they are whole numbers, as an observation's are."""
        vector = np.asarray(vector)
        if vector.shape != (self.size,):
            raise ValueError(f"expected an observation of shape ({self.size},), got {vector.shape}")
        view = {}
        for s in self.slices:
            part = vector[s.offset : s.stop]
            if s.name in COUNT_SLICES and np.array_equal(part, np.round(part)):
                part = part.astype(np.int64)
            view[s.name] = part
        view["drew_on"] = view["drew_on"].reshape(self.config.num_players, 4)
        view["named_colour"] = view["named_colour"].reshape(self.config.num_players, 4)
        if "trend_shown" in view:
            view["trend_shown"] = view["trend_shown"].reshape(self.config.num_players, 13)
        return view

    def to_text(self, vector: np.ndarray) -> str:
        """A readable summary of an observation: one line per slice, zeros left out."""
        lines = []
        for s in self.slices:
            part = np.asarray(vector)[s.offset : s.stop]
            items = [
                f"{label}={value:g}" if value != 1 or s.high.max() != 1 else label
                for label, value in zip(s.labels, part)
                if value != 0
            ]
            lines.append(f"{s.name:22s} {' '.join(items) if items else '-'}")
        return "\n".join(lines)

    def markdown_table(self) -> str:
        """The observation table of the docs, generated from the slices."""
        rows = ["| slice | offset | size | range | meaning |", "|---|---|---|---|---|"]
        for s in self.slices:
            rows.append(
                f"| `{s.name}` | {s.offset} | {s.size} | {s.low:g}..{float(s.high.max()):g} | {s.description} |"
            )
        return "\n".join(rows)
