"""The position keys in the order they are parsed, and a position loaded key by key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..config import HOUSE_PHASES
from ..layout import S_TERMINATED, S_TRUNCATED
from ..named import PHASE_DECISIONS, PHASE_NAMES
from .decision import (
    read_catch_window,
    read_drawn_card,
    read_next_turn,
    read_pending_penalty,
    read_top_card_player,
    read_uno_called,
    read_wild_draw_four,
)
from .loader import MISSING, Loader, PositionError
from .piles import (
    read_deck,
    read_discard_pile,
    read_draw_pile,
    read_hands,
    read_num_players,
    read_rng,
    seed_generator,
)
from .reachable import check_reachable
from .shown import read_challenge_reveal, read_fashion_trend, read_last_swap
from .table import (
    read_alive,
    read_colour,
    read_current_player,
    read_dealer,
    read_direction,
    read_drew_on,
    read_forfeit,
    read_game_end,
    read_last_winner,
    read_named_colour,
    read_outcome,
    read_phase,
    read_previous_colour,
    read_round,
    read_scores,
    read_step,
)


@dataclass(frozen=True)
class Key:
    """One position key: its name, its default in words, what it means, and its parser."""

    name: str
    default: str
    doc: str
    parse: Callable[[Loader, object], None]


KEYS: tuple[Key, ...] = (
    Key(
        "num_players",
        "the configuration's",
        "must match the configuration",
        read_num_players,
    ),
    Key(
        "deck",
        "the configuration's",
        '`"classic"` or `"fashion_trend"`, must match the configuration',
        read_deck,
    ),
    Key("hands", "required", "one list of card texts per seat", read_hands),
    Key(
        "discard_pile",
        "required",
        "card texts, **top last** (at least the top card)",
        read_discard_pile,
    ),
    Key(
        "draw_pile",
        '`["..."]`',
        'card texts, **top first**; a final `"..."` puts the rest of the deck below, seeded',
        read_draw_pile,
    ),
    Key(
        "rng",
        "from the seed",
        'engine generator state as a hex string (`"0x..."`, as dumped)',
        read_rng,
    ),
    Key(
        "phase",
        '`"play"`',
        ", ".join(f"`{PHASE_NAMES[p]}`" for p, d in PHASE_DECISIONS.items() if not d.house)
        + "; "
        + ", ".join(f"`{PHASE_NAMES[p]}`" for p in HOUSE_PHASES)
        + " (house rules)",
        read_phase,
    ),
    Key(
        "colour",
        "the top card's colour",
        "current colour `R`/`Y`/`G`/`B`; `null` only in phase `color` (a starting Wild)",
        read_colour,
    ),
    Key(
        "previous_colour",
        "`null`",
        "colour before the top card was played (judges a Wild Draw Four)",
        read_previous_colour,
    ),
    Key("direction", "`1`", "`1` (clockwise) or `-1`", read_direction),
    Key("dealer", "`0`", "seat of the dealer", read_dealer),
    Key(
        "alive",
        "all `true`",
        "per seat, `true`/`false`: still in the game (Challenge UNO)",
        read_alive,
    ),
    Key(
        "drew_on",
        "none",
        "per seat, the colours in force when it drew instead of playing since it last played (public)",
        read_drew_on,
    ),
    Key(
        "named_colour",
        "none",
        "per seat, the colour its last Wild named this round, or `null` (public)",
        read_named_colour,
    ),
    Key("scores", "zeros", "per seat, integer scores", read_scores),
    Key(
        "outcome",
        "0 (-1 where eliminated)",
        "per seat, `1` won, `-1` lost, `0` undecided",
        read_outcome,
    ),
    Key("round", "`0`", "rounds played (`0` in an episode of one round)", read_round),
    Key("step", "`0`", "decisions taken, under `max_steps` while in play", read_step),
    Key(
        "terminated",
        "`false`",
        "the game ended (phase `over` only)",
        read_game_end(S_TERMINATED, "terminated"),
    ),
    Key(
        "truncated",
        "`false`",
        "the game hit `max_steps` (phase `over` only)",
        read_game_end(S_TRUNCATED, "truncated"),
    ),
    Key("forfeit", "`null`", "seat that lost by an illegal action", read_forfeit),
    Key("last_winner", "`null`", "seat that won the last round", read_last_winner),
    Key(
        "current_player",
        "required (`null` in phase `over`)",
        "seat whose decision it is; it must be in the game",
        read_current_player,
    ),
    Key(
        "uno_called",
        "`false`",
        "the acting player called UNO this turn (two cards; `play`, `drawn`, `penalty`, `jump`)",
        read_uno_called,
    ),
    Key(
        "drawn_card",
        "`null`",
        "the playable card drawn this turn (phase `drawn` only, required there)",
        read_drawn_card,
    ),
    Key(
        "catch_window",
        "`null`",
        '`{"exposed": seat, "next_player": seat}` (phase `catch` only; `current_player` is asked)',
        read_catch_window,
    ),
    Key(
        "pending_penalty",
        "`0`",
        "cards a stack's target draws unless it answers (phase `penalty`, or `catch` before it)",
        read_pending_penalty,
    ),
    Key(
        "wild_draw_four",
        "`null`",
        '`{"offender": s, "exposed": b, "guilty": b}` (a W+4 on top, its decision pending)',
        read_wild_draw_four,
    ),
    Key(
        "top_card_player",
        "the phase's, else `null`",
        "seat that played the top card, `null` for the starting card",
        read_top_card_player,
    ),
    Key(
        "next_turn",
        "`null`",
        "seat whose turn begins after phase `swap` or `jump` (only there; required in `jump`)",
        read_next_turn,
    ),
    Key(
        "last_swap",
        "`null`",
        '`{"seat": s, "other": t}`: the last 7 swap of the round, `s` played the 7',
        read_last_swap,
    ),
    Key(
        "challenge_reveal",
        "`null`",
        '`{"viewer": seat, "owner": seat, "hand": [cards]}`: a hand shown to its challenger',
        read_challenge_reveal,
    ),
    Key(
        "fashion_trend",
        "`null`",
        '`{"player": seat, "colour": c, "shown": [card or null per seat]}` (Fashion Trend deck)',
        read_fashion_trend,
    ),
)
"""The position keys in the order they are parsed (a key's parser may rely on those before it)."""


KEY_NAMES = tuple(key.name for key in KEYS)


def position_table() -> str:
    """Markdown table of the position keys (generated into the docs by :mod:`uno_env.docs`)."""
    rows = ["| key | default | meaning |", "|---|---|---|"]
    for key in KEYS:
        rows.append(f"| `{key.name}` | {key.default} | {key.doc} |")
    return "\n".join(rows)


def load_position(game, position: dict, seed: int | None = None):
    """A one-game State from a position dict; :class:`PositionError` (a ValueError)
    names the key of the first problem found. Each key of :data:`KEYS` is parsed in
    turn, its default applied where it is left out."""
    if not isinstance(position, dict):
        raise PositionError("", f"a position must be a dict, got {type(position).__name__}")
    unknown = sorted(str(k) for k in set(position) - set(KEY_NAMES))
    if unknown:
        raise PositionError(
            "",
            f"unknown position key(s): {', '.join(unknown)}; known: {', '.join(KEY_NAMES)}",
        )
    loader = Loader(game, position, seed)
    for key in KEYS:
        key.parse(loader, position.get(key.name, MISSING))
    check_reachable(loader)
    seed_generator(loader)
    return loader.state
