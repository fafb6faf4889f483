"""Positions: the god's-eye view of a game as a JSON-able dict, both ways.

A dump (``Game.position``, :mod:`.dump`) always writes every key; a load (``Game.from_position``)
needs only ``hands``, ``discard_pile`` and ``current_player``, the others take
their defaults. The keys are parsed in this order by the parsers of :data:`KEYS`
(this table is generated from it by ``python -m uno_env.docs --write``); a value
that does not fit, or a position that no game could reach, raises
:class:`PositionError` naming the key (``error.key``), and nothing is loaded.

The house rules (HOUSE_RULES.md) add their phases and keys: a dump writes them in
every configuration (``null`` or ``0`` where the rule is off), and a load refuses a
phase or a value that needs a rule the configuration does not have:
``pending_penalty`` needs stacking, ``last_swap`` seven_o, ``next_turn`` seven_o or
jump_in (in phase ``swap`` it defaults to the next seat in play). ``wild_draw_four``
is set in phase ``challenge``, or with stacking in phase ``penalty`` and in the catch
window before it; its ``guilty`` is dumped with stacking, where the offender may have
drawn (a catch) since playing it (D-HOUSE-STACK-JUDGE), and defaults to the
offender's hand holding the previous colour. ``top_card_player`` defaults to the seat
that the decision implies, and must be it there: the exposed seat in phase ``catch``,
the offender under a pending W+4, ``current_player`` in ``swap`` (without jump_in,
where only the Seven-O choice reads it, ``null`` is accepted too outside ``swap``).

A game that ended in the middle of a decision (truncated at ``max_steps``, or
forfeited) keeps that decision's keys in phase ``over``, as the engine leaves them;
they are then checked as values only.

What no game reaches is refused too: a colour in force other than the coloured card's
on top, ``step`` at ``max_steps`` in play (beyond it when over; a truncated game stops
exactly there), more rounds than decisions, scores below 0 or (in play) at the target,
partners with different scores, eliminated seats outside Challenge UNO or below its
target, outcomes other than 0 (-1 eliminated) in play, or other than the ending implies
in phase ``over`` (exactly one of ``terminated`` and ``truncated``), a round's winner
in round 0, a forfeit without ``illegal_action="lose"``, an empty hand in play (but the
player of a last Wild Draw Four while its target decides, R-END-2), and, last, any
violation of the engine's invariants (:mod:`~uno_env.engine.checks`). Round, step and
the last round's winner may be left at their defaults (a state sampled from an
observation knows none of them). Without a seed and an ``rng``, the fresh seed is drawn
only once the position is found valid.

<!-- position-table -->
| key | default | meaning |
|---|---|---|
| `num_players` | the configuration's | must match the configuration |
| `deck` | the configuration's | `"classic"` or `"fashion_trend"`, must match the configuration |
| `hands` | required | one list of card texts per seat |
| `discard_pile` | required | card texts, **top last** (at least the top card) |
| `draw_pile` | `["..."]` | card texts, **top first**; a final `"..."` puts the rest of the deck below, seeded |
| `rng` | from the seed | engine generator state as a hex string (`"0x..."`, as dumped) |
| `phase` | `"play"` | `play`, `drawn`, `color`, `challenge`, `catch`, `over`; `penalty`, `swap`, `jump` (house rules) |
| `colour` | the top card's colour | current colour `R`/`Y`/`G`/`B`; `null` only in phase `color` (a starting Wild) |
| `previous_colour` | `null` | colour before the top card was played (judges a Wild Draw Four) |
| `direction` | `1` | `1` (clockwise) or `-1` |
| `dealer` | `0` | seat of the dealer |
| `alive` | all `true` | per seat, `true`/`false`: still in the game (Challenge UNO) |
| `drew_on` | none | per seat, the colours in force when it drew instead of playing since it last played (public) |
| `named_colour` | none | per seat, the colour its last Wild named this round, or `null` (public) |
| `scores` | zeros | per seat, integer scores |
| `outcome` | 0 (-1 where eliminated) | per seat, `1` won, `-1` lost, `0` undecided |
| `round` | `0` | rounds played (`0` in an episode of one round) |
| `step` | `0` | decisions taken, under `max_steps` while in play |
| `terminated` | `false` | the game ended (phase `over` only) |
| `truncated` | `false` | the game hit `max_steps` (phase `over` only) |
| `forfeit` | `null` | seat that lost by an illegal action |
| `last_winner` | `null` | seat that won the last round |
| `current_player` | required (`null` in phase `over`) | seat whose decision it is; it must be in the game |
| `uno_called` | `false` | the acting player called UNO this turn (two cards; `play`, `drawn`, `penalty`, `jump`) |
| `drawn_card` | `null` | the playable card drawn this turn (phase `drawn` only, required there) |
| `catch_window` | `null` | `{"exposed": seat, "next_player": seat}` (phase `catch` only; `current_player` is asked) |
| `pending_penalty` | `0` | cards a stack's target draws unless it answers (phase `penalty`, or `catch` before it) |
| `wild_draw_four` | `null` | `{"offender": s, "exposed": b, "guilty": b}` (a W+4 on top, its decision pending) |
| `top_card_player` | the phase's, else `null` | seat that played the top card, `null` for the starting card |
| `next_turn` | `null` | seat whose turn begins after phase `swap` or `jump` (only there; required in `jump`) |
| `last_swap` | `null` | `{"seat": s, "other": t}`: the last 7 swap of the round, `s` played the 7 |
| `challenge_reveal` | `null` | `{"viewer": seat, "owner": seat, "hand": [cards]}`: a hand shown to its challenger |
| `fashion_trend` | `null` | `{"player": seat, "colour": c, "shown": [card or null per seat]}` (Fashion Trend deck) |
<!-- /position-table -->

The modules: :mod:`.loader` (PositionError, card texts, the loader the parsers fill),
:mod:`.piles`, :mod:`.table`, :mod:`.decision` and :mod:`.shown` (the parsers of the keys,
by what they describe), :mod:`.reachable` (what only the whole position tells, judged with
the engine's own functions: its game end, ``next_alive``, ``holds_colour`` and the
invariants of :mod:`~uno_env.engine.checks`), :mod:`.keys` (the table of keys, the load)
and :mod:`.dump`.
"""

from __future__ import annotations

from .dump import dump_position
from .keys import KEY_NAMES, KEYS, Key, load_position, position_table
from .loader import (
    FILL,
    MISSING,
    PositionError,
    check_counts,
    parse_cards,
    parse_deck_order,
)

__all__ = [
    "FILL",
    "KEYS",
    "KEY_NAMES",
    "MISSING",
    "Key",
    "PositionError",
    "check_counts",
    "dump_position",
    "load_position",
    "parse_cards",
    "parse_deck_order",
    "position_table",
]
