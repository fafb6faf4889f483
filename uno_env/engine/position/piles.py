"""The keys of the cards: the table, the hands, the piles and the generator."""

from __future__ import annotations

import numpy as np

from .. import seeding
from ..cards import card_to_str, deck_counts
from ..layout import S_DISCARD_COUNT, S_DRAW_COUNT
from ..seeding import seed_to_rng
from ..state import discard_counts, discard_pile, draw_pile, hands, set_hand_size
from .loader import FILL, MISSING, Loader, PositionError, check_counts, parse_cards


def read_num_players(L: Loader, value) -> None:
    if value is MISSING:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise PositionError("num_players", f"expected an integer, got {value!r}")
    if value != L.n:
        raise PositionError("num_players", f"got {value!r} but the configuration has {L.n} players")


def read_deck(L: Loader, value) -> None:
    if value is not MISSING and (not isinstance(value, str) or value != L.config.deck):
        raise PositionError(
            "deck",
            f"got {value!r} but the configuration uses the {L.config.deck!r} deck",
        )


def read_hands(L: Loader, value) -> None:
    if value is MISSING:
        raise PositionError("hands", "required: one list of card texts per seat")
    if not isinstance(value, (list, tuple)) or len(value) != L.n:
        raise PositionError("hands", f"expected {L.n} lists of cards, got {value!r}")
    L.hands = [parse_cards(h, "hands", f"hands[{s}]") for s, h in enumerate(value)]


def read_discard_pile(L: Loader, value) -> None:
    L.discard = parse_cards([] if value is MISSING else value, "discard_pile")
    if not L.discard:
        raise PositionError("discard_pile", "at least the top card is needed")


def read_draw_pile(L: Loader, value) -> None:
    texts = [FILL] if value is MISSING else value
    if not isinstance(texts, (list, tuple)):
        raise PositionError("draw_pile", f"expected a list of card texts, got {texts!r}")
    texts = list(texts)
    fill = bool(texts) and texts[-1] == FILL
    if fill:
        texts = texts[:-1]
    draw = parse_cards(texts, "draw_pile")
    F, config = L.F, L.config
    counts = face_counts(L, draw)
    check_counts(config, counts, not fill, "draw_pile" if value is not MISSING else "hands")
    if fill:
        rest = np.repeat(np.arange(F), deck_counts(config.deck).astype(np.int64) - counts)
        filler = np.random.default_rng(int(seed_to_rng(0 if L.seed is None else L.seed)))
        draw = draw + [int(f) for f in filler.permutation(rest)]
    write_cards(L, draw)


def face_counts(L: Loader, draw: list[int]) -> np.ndarray:
    """The copies of each face in the hands and piles; a face the deck lacks is refused."""
    counts = np.zeros(L.F, dtype=np.int64)
    for key, faces in [("hands", f) for f in L.hands] + [
        ("discard_pile", L.discard),
        ("draw_pile", draw),
    ]:
        for f in faces:
            if f >= L.F:
                raise PositionError(key, f"card {card_to_str(f)} is not in the {L.config.deck} deck")
            counts[f] += 1
    return counts


def write_cards(L: Loader, draw: list[int]) -> None:
    """The hands and both piles into the state (``draw``: the draw pile, top card last)."""
    P, cards, ints = L.P, L.state.cards, L.state.ints
    held = hands(cards, P, 0)
    for s, faces in enumerate(L.hands):
        held[s] = L.hand_face_counts(faces)
        set_hand_size(ints, P, 0, s, len(faces))
    draw_pile(cards, P, 0)[: len(draw)] = draw[::-1]
    L.ints[S_DRAW_COUNT] = len(draw)
    discard_pile(cards, P, 0)[: len(L.discard)] = L.discard
    discard_counts(cards, P, 0)[:] = L.hand_face_counts(L.discard)
    L.ints[S_DISCARD_COUNT] = len(L.discard)


def read_rng(L: Loader, value) -> None:
    # the generator is set once the whole position is found valid (seed_generator): a
    # refused position draws no fresh seed
    L.rng_state = None
    if value is MISSING or value is None:
        return
    digits = hex_digits(value)
    if not digits or len(digits) > 16 or any(c not in "0123456789abcdef" for c in digits):
        raise PositionError(
            "rng",
            f"expected a hex string of at most 16 digits such as '0x1f', got {value!r}",
        )
    state = int(digits, 16)
    if state == 0:
        raise PositionError("rng", "the generator state must not be zero")
    L.rng_state = state


def hex_digits(value) -> str | None:
    """The digits of a text such as ``0x1F`` (lower case, without ``0x``); None for anything but text."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    return text[2:] if text.startswith("0x") else text


def seed_generator(L: Loader) -> None:
    """The state's generator: the position's ``rng``, else from the seed (a fresh one
    without), set last so that a refused position consumes no randomness."""
    if L.rng_state is not None:
        L.state.rng[0] = np.uint64(L.rng_state)
    else:
        L.state.rng[0] = seed_to_rng(seeding.fresh_seed() if L.seed is None else L.seed)
