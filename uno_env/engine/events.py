"""The structured event log: what happened during a step, in order.

The kernels write events as rows of four int32 (type, a, b, c); :func:`decode`
turns them into dicts. The log is the god's-eye view (faces of drawn cards
included): renderers and replays filter it with :func:`visible_to`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .cards import COLOURS, card_to_str
from .named import PRIVATE_EVENTS

EVENT_WIDTH = 4
MAX_EVENTS = 64

EV_PLAY = 1  # seat, face, named colour (-1 for coloured cards)
EV_DRAW = 2  # seat, face, reason
EV_KEEP = 3  # seat: keeps the drawn card (or cannot play it), turn ends
EV_SKIP = 4  # seat that loses its turn
EV_REVERSE = 5  # seat, new direction
EV_UNO = 6  # seat calls UNO
EV_EXPOSED = 7  # seat went down to one card without calling UNO
EV_CATCH = 8  # catcher (-1 when automatic), exposed seat
EV_DECLINE = 9  # seat lets the exposed player go
EV_ACCEPT = 10  # target, offender
EV_CHALLENGE = 11  # challenger, offender, 1 if the Wild Draw Four was a bluff
EV_COLOR = 12  # seat names the colour of a starting Wild
EV_WRONG = 13  # seat, face: a wrong card, taken back
EV_RESHUFFLE = 14  # cards shuffled into the new draw pile
EV_TREND_SHOW = 15  # seat, face shown, viewer
EV_TREND_FAIL = 16  # seat that cannot show the trend colour
EV_ROUND_END = 17  # winner, points scored by the winner (standard scoring)
EV_SCORE = 18  # seat, points added this round, total
EV_ELIMINATED = 19  # seat (Challenge UNO)
EV_GAME_END = 20  # seat of a winner (one event per winner)
EV_DEAL = 21  # dealer, round
EV_DEALER_DRAW = 22  # seat, face drawn to choose the dealer
EV_STARTER = 23  # face turned up to start the discard pile
EV_STARTER_RETURNED = 24  # a starting Wild Draw Four returned to the draw pile
EV_TRUNCATED = 25  # step limit reached
EV_FORFEIT = 26  # seat, face: loses the game by an illegal action
EV_PASS = 27  # seat keeps the drawn card although it could play it
EV_PENALTY_ACCEPT = 28  # seat, cards, 1 if stacked (more than one card): accepts the pending penalty (stacking)
EV_SWAP = 29  # seat, other seat: a 7 swaps their hands (Seven-O)
EV_ROTATE = 30  # seat, direction: a 0 passes every hand on in that direction (Seven-O)
EV_JUMP_IN = 31  # seat plays out of turn (Jump-In; the play event follows)
EV_JUMP_PASS = 32  # seat does not jump in (seen by that seat only: who is asked is private)

EVENT_NAMES = {
    EV_PLAY: "play",
    EV_DRAW: "draw",
    EV_KEEP: "keep",
    EV_SKIP: "skip",
    EV_REVERSE: "reverse",
    EV_UNO: "uno",
    EV_EXPOSED: "exposed",
    EV_CATCH: "catch",
    EV_DECLINE: "decline",
    EV_ACCEPT: "accept",
    EV_CHALLENGE: "challenge",
    EV_COLOR: "color",
    EV_WRONG: "wrong_card",
    EV_RESHUFFLE: "reshuffle",
    EV_TREND_SHOW: "trend_show",
    EV_TREND_FAIL: "trend_fail",
    EV_ROUND_END: "round_end",
    EV_SCORE: "score",
    EV_ELIMINATED: "eliminated",
    EV_GAME_END: "game_end",
    EV_DEAL: "deal",
    EV_DEALER_DRAW: "dealer_draw",
    EV_STARTER: "starter",
    EV_STARTER_RETURNED: "starter_returned",
    EV_TRUNCATED: "truncated",
    EV_FORFEIT: "forfeit",
    EV_PASS: "pass",
    EV_PENALTY_ACCEPT: "penalty_accept",
    EV_SWAP: "swap",
    EV_ROTATE: "rotate",
    EV_JUMP_IN: "jump_in",
    EV_JUMP_PASS: "jump_pass",
}

# why cards were drawn
R_CHOICE = 0
R_DRAW_TWO = 1
R_WILD_DRAW_FOUR = 2
R_CHALLENGE_LOST = 3
R_BLUFF_CAUGHT = 4
R_UNO_CAUGHT = 5
R_WRONG_CARD = 6
R_TREND = 7
R_STARTER_DRAW_TWO = 8
R_DEAL = 9
R_PENALTY = 10
REASON_NAMES = (
    "choice",
    "draw_two",
    "wild_draw_four",
    "challenge_lost",
    "bluff_caught",
    "uno_caught",
    "wrong_card",
    "fashion_trend",
    "starting_draw_two",
    "deal",
    "penalty",
)


def _seat(a: int, b: int, c: int) -> dict:
    return {"seat": a}


def _play(a: int, b: int, c: int) -> dict:
    event: dict = {"seat": a, "card": card_to_str(b)}
    if c >= 0:
        event["colour"] = COLOURS[c]
    return event


FIELDS: dict[int, Callable[[int, int, int], dict]] = {
    EV_PLAY: _play,
    EV_DRAW: lambda a, b, c: {"seat": a, "card": card_to_str(b), "reason": REASON_NAMES[c]},
    **dict.fromkeys((EV_KEEP, EV_SKIP, EV_UNO, EV_EXPOSED, EV_DECLINE, EV_TREND_FAIL, EV_ELIMINATED), _seat),
    **dict.fromkeys((EV_PASS, EV_JUMP_IN, EV_JUMP_PASS), _seat),
    EV_GAME_END: lambda a, b, c: {"winner": a},
    EV_REVERSE: lambda a, b, c: {"seat": a, "direction": b},
    EV_CATCH: lambda a, b, c: {"catcher": None if a < 0 else a, "seat": b},
    EV_ACCEPT: lambda a, b, c: {"seat": a, "offender": b},
    EV_CHALLENGE: lambda a, b, c: {"seat": a, "offender": b, "bluff": bool(c)},
    EV_COLOR: lambda a, b, c: {"seat": a, "colour": COLOURS[b]},
    EV_WRONG: lambda a, b, c: {"seat": a, "card": card_to_str(b)},
    EV_FORFEIT: lambda a, b, c: {"seat": a, "card": card_to_str(b) if b >= 0 else None},
    EV_RESHUFFLE: lambda a, b, c: {"cards": a},
    EV_TREND_SHOW: lambda a, b, c: {"seat": a, "card": card_to_str(b), "viewer": c},
    EV_ROUND_END: lambda a, b, c: {"winner": a, "points": b},
    EV_SCORE: lambda a, b, c: {"seat": a, "points": b, "total": c},
    EV_DEAL: lambda a, b, c: {"dealer": a, "round": b},
    EV_PENALTY_ACCEPT: lambda a, b, c: {"seat": a, "cards": b, "stacked": bool(c)},
    EV_SWAP: lambda a, b, c: {"seat": a, "other": b},
    EV_ROTATE: lambda a, b, c: {"seat": a, "direction": b},
    EV_DEALER_DRAW: lambda a, b, c: {"seat": a, "card": card_to_str(b)},
    EV_STARTER: lambda a, b, c: {"card": card_to_str(a)},
    EV_STARTER_RETURNED: lambda a, b, c: {"card": card_to_str(a)},
}
"""Per event type, the fields of its dict from the row's three values (a, b, c); a type
without an entry (the truncation) has none."""


EVENT_DOCS: dict[str, tuple[str, dict[str, str]]] = {
    "play": (
        "a card is played: on a turn, as the drawn card, on a stack or by a jump-in",
        {"seat": "who played it", "card": "its face", "colour": "for a wild only: the colour it names"},
    ),
    "draw": (
        "one card is drawn (one event per card)",
        {
            "seat": "who drew it",
            "card": "its face; `null` when another seat drew it",
            "reason": "why (the reasons below)",
        },
    ),
    "keep": (
        (
            "the seat drew and cannot play the card it drew (with `draw_until_playable`: nothing playable was left "
            "to draw): it keeps it and its turn ends"
        ),
        {"seat": "who drew"},
    ),
    "pass": (
        "the seat keeps the card it drew although it could play it (the answer `pass`); its turn ends",
        {"seat": "who kept it"},
    ),
    "skip": (
        "the seat loses its turn: a Skip, a Draw Two, a Wild Draw Four accepted or challenged in vain, a starting "
        "Draw Two or Skip, a stack's penalty accepted",
        {"seat": "who is skipped"},
    ),
    "reverse": (
        "a Reverse flips the direction",
        {"seat": "who played it", "direction": "the new direction: +1 clockwise, -1 counter-clockwise"},
    ),
    "uno": ("the seat calls UNO (the action `uno`)", {"seat": "who called"}),
    "exposed": (
        (
            "the seat went down to one card without calling UNO: the catch window opens (under "
            '`uno_call="auto"` it is caught at once)'
        ),
        {"seat": "who is exposed"},
    ),
    "catch": (
        "the exposed seat is caught: it draws 2 (`draw` events, reason `uno_caught`) and the window closes",
        {"catcher": 'who caught it; `null` when the catch is automatic (`uno_call="auto"`)', "seat": "who is caught"},
    ),
    "decline": (
        "a seat asked in the catch window lets the exposed seat go (the answer `pass`)",
        {"seat": "who passed"},
    ),
    "accept": (
        "the target of a Wild Draw Four accepts it: it draws 4 (reason `wild_draw_four`) and is skipped",
        {"seat": "the target", "offender": "who played the Wild Draw Four"},
    ),
    "challenge": (
        (
            "the target of a Wild Draw Four challenges it: the offender's hand is shown to the "
            "challenger only (its `challenge_reveal`)"
        ),
        {
            "seat": "the challenger (the target)",
            "offender": "who played the Wild Draw Four",
            "bluff": (
                "`true`: the offender held a card of the colour in force when it played (the "
                "challenger's `previous_colour`), so the play was illegal: the "
                "offender draws 4 (reason `bluff_caught`; with stacking, the whole pending penalty) and the "
                "challenger plays its turn; `false`: the play was legal: the challenger draws 6 (reason "
                "`challenge_lost`; with stacking, the pending penalty plus 2) and is skipped"
            ),
        },
    ),
    "color": (
        "the colour of a starting Wild is named",
        {"seat": "who named it (the first player)", "colour": "the colour named"},
    ),
    "wrong_card": (
        (
            'a held card that does not match was played (`illegal_action="penalty"`): it is taken back,'
            " its player draws 2 (reason `wrong_card`) and its turn ends"
        ),
        {"seat": "who played it", "card": "the card"},
    ),
    "forfeit": (
        'an unavailable action under `illegal_action="lose"`: the seat loses the game, which ends',
        {"seat": "who forfeits", "card": "the wrong card played; `null` for any other unavailable action"},
    ),
    "reshuffle": (
        "the discard pile but its top card is shuffled into a new draw pile",
        {"cards": "cards in the new draw pile"},
    ),
    "trend_show": (
        "Fashion Trend: a seat shows a card of the trend's colour to the trend's player",
        {
            "seat": "who shows it",
            "card": "the card; `null` unless you showed it or it was shown to you",
            "viewer": "who sees it (the trend's player)",
        },
    ),
    "trend_fail": (
        "Fashion Trend: the seat cannot show a card of the trend's colour: it draws 2 and the trend stops",
        {"seat": "who cannot"},
    ),
    "round_end": (
        "a seat went out and the round ends",
        {
            "winner": "who went out",
            "points": (
                "under standard scoring what the winner (and its partner) scores: the points of the cards left "
                "in the other hands; 0 under the other scorings, where the `score` events charge each hand its own"
            ),
        },
    ),
    "score": (
        "a seat's game score changes at the round's end, one event per seat: the winner's side under standard "
        "scoring, every seat in the game under the others",
        {"seat": "whose score", "points": "points added this round", "total": "its game score now"},
    ),
    "eliminated": ("Challenge UNO scoring: the seat reached the target and leaves the game", {"seat": "who"}),
    "game_end": ("the game is over (one event per winner)", {"winner": "a seat that won"}),
    "deal": (
        "a round is dealt: 7 cards to each seat (not sent as draws)",
        {"dealer": "who deals (the seat after it plays first, R-SETUP-3)", "round": "the round's number, from 0"},
    ),
    "dealer_draw": (
        "before the first round, a card drawn to choose the dealer (the highest number deals)",
        {"seat": "who drew it", "card": "its face"},
    ),
    "starter": ("the card turned up to start the discard pile", {"card": "its face"}),
    "starter_returned": (
        "a Wild Draw Four turned up as the starter goes back into the deck, and another card is turned",
        {"card": "its face"},
    ),
    "truncated": ("the game reached `max_steps` decisions and stops, nobody winning", {}),
    "penalty_accept": (
        "stacking: the target of a pending draw penalty accepts it and draws the cards (reason `penalty`)",
        {
            "seat": "who accepts",
            "cards": "how many it draws",
            "stacked": "`true` when cards were stacked (more than one draw card)",
        },
    ),
    "swap": (
        "Seven-O: the player of a 7 swaps hands with a seat it chose",
        {"seat": "who played the 7", "other": "the seat it chose"},
    ),
    "rotate": (
        "Seven-O: a 0 was played and every hand passes on to the next seat in play",
        {
            "seat": "who played the 0",
            "direction": (
                "the way the hands pass: +1 clockwise, -1 counter-clockwise (the direction of play); each seat "
                "still in the game takes the hand of the seat before it that way: with +1 yours comes from "
                "`seat-1`, the last entry of the per-seat observation fields, with -1 from entry 1"
            ),
        },
    ),
    "jump_in": (
        "Jump-In: the seat plays out of turn a card identical to the top card; its `play` event follows",
        {"seat": "who jumps in"},
    ),
    "jump_pass": ("Jump-In: you were asked and did not jump in (only the seat asked sees it)", {"seat": "you"}),
}
"""Per event type, when it happens and what each of its fields holds, in words: the events
table of docs/PROTOCOL.md (a test checks that the fields are exactly those :data:`FIELDS`
gives)."""

REASON_DOCS = {
    "choice": "the action `draw`",
    "draw_two": "a Draw Two played on the seat",
    "wild_draw_four": "a Wild Draw Four accepted",
    "challenge_lost": "a challenge of a legal Wild Draw Four: 6 cards (with stacking, the pending penalty plus 2)",
    "bluff_caught": "a Wild Draw Four found to be a bluff: its player draws 4 (with stacking, the pending penalty)",
    "uno_caught": "caught with one card and no UNO call: 2 cards",
    "wrong_card": "a wrong card taken back: 2 cards",
    "fashion_trend": "Fashion Trend: a seat that cannot show the colour, 2 cards",
    "starting_draw_two": "a Draw Two turned up as the starter: the first player draws 2",
    "deal": "dealt (not sent: the deal's cards are not events)",
    "penalty": "stacking: a pending draw penalty accepted",
}
"""Per draw reason (:data:`REASON_NAMES`), what made the seat draw."""


def _decode_one(kind: int, a: int, b: int, c: int) -> dict:
    name = EVENT_NAMES.get(kind, f"unknown_{kind}")
    fields = FIELDS.get(kind)
    return {"type": name, **(fields(a, b, c) if fields is not None else {})}


def decode(rows: np.ndarray, count: int) -> list[dict]:
    """Dicts of the first ``count`` event rows of one game."""
    count = min(int(count), rows.shape[0])
    return [_decode_one(*row) for row in rows[:count].tolist()]  # tolist: Python ints, at once


def visible_to(event: dict, seat: int) -> dict | None:
    """The event as ``seat`` sees it: faces of other players' drawn cards and of
    cards shown to someone else are hidden (``"card": None``); ``None`` for an event
    that ``seat`` does not know happened (another seat declining to jump in)."""
    kind = event["type"]
    if kind == "draw" and event["seat"] != seat:
        return {**event, "card": None}
    if kind == "trend_show" and seat not in (event["seat"], event["viewer"]):
        return {**event, "card": None}
    if kind in PRIVATE_EVENTS and event["seat"] != seat:  # declining a privately asked decision
        return None
    return event


def seen_by(events, seat: int) -> list[dict]:
    """The events as ``seat`` saw them (:func:`visible_to`), those it did not see left out."""
    seen = (visible_to(e, seat) for e in events)
    return [e for e in seen if e is not None]


DESCRIPTIONS = {
    "play": "{who} plays {card}{naming}",
    "draw": "{who} draws {some_card}{why}",
    "keep": "{who} keeps the drawn card",
    "pass": "{who} keeps the playable drawn card",
    "skip": "{who} is skipped",
    "reverse": "direction is now {way}",
    "uno": "{who} calls UNO",
    "exposed": "{who} has one card and did not call UNO",
    "catch": "{who} is caught {by}",
    "decline": "{who} lets it go",
    "accept": "{who} accepts the Wild Draw Four",
    "challenge": "{who} challenges P{offender}: the Wild Draw Four was {verdict}",
    "color": "{who} names {colour}",
    "wrong_card": "{who} played a wrong card {card}: taken back",
    "forfeit": "{who} played {forfeited} and loses the game",
    "reshuffle": "the discard pile is reshuffled into {cards} cards",
    "trend_show": "{who} shows {some_card} to P{viewer}",
    "trend_fail": "{who} cannot follow the trend",
    "round_end": "P{winner} goes out{scored}",
    "score": "{who} +{points} = {total}",
    "eliminated": "{who} is eliminated",
    "game_end": "P{winner} wins the game",
    "deal": "round {round_number}: P{dealer} deals",
    "dealer_draw": "{who} draws {card} for the deal",
    "starter": "{card} is turned up",
    "starter_returned": "{card} is returned and the pile reshuffled",
    "truncated": "step limit reached: the game is truncated",
    "penalty_accept": "{who} accepts the {stacked_}penalty of {cards} cards",
    "swap": "{who} swaps hands with P{other}",
    "rotate": "every hand passes to the next player {way}",
    "jump_in": "{who} jumps in",
    "jump_pass": "{who} does not jump in",
}
"""Per event type, its line of English: a template over the event's fields and the
phrases of :func:`phrases`."""


def phrases(event: dict) -> dict[str, str]:
    """The phrases the templates of :data:`DESCRIPTIONS` use besides the event's own fields."""
    seat, card = event.get("seat"), event.get("card")
    reason = event.get("reason", "choice")
    return {
        "who": f"P{seat}" if seat is not None else "",
        "some_card": card if card is not None else "a card",
        "naming": f" naming {event['colour']}" if "colour" in event else "",
        "why": "" if reason == "choice" else f" ({reason.replace('_', ' ')})",
        "way": "clockwise" if event.get("direction", 1) > 0 else "counter-clockwise",
        "by": "automatically" if event.get("catcher") is None else f"by P{event['catcher']}",
        "verdict": "a bluff" if event.get("bluff") else "legal",
        "stacked_": "stacked " if event.get("stacked") else "",
        "forfeited": f"a wrong card {card}" if card is not None else "an unavailable action",
        "scored": f" and scores {event['points']}" if event.get("points") else "",
        "round_number": str(event.get("round", 0) + 1),
    }


def describe(event: dict) -> str:
    """One line of English for an event (seats as 'P<k>'); an unknown type reads as its name."""
    template = DESCRIPTIONS.get(event["type"])
    return event["type"] if template is None else template.format(**{**event, **phrases(event)})


def summarize(events, viewer: int | None = None) -> list[str]:
    """Lines of English for events as ``viewer`` saw them (``None``: everything), with
    runs of draws by one seat for one reason merged into one line."""
    seen = seen_by(events, viewer) if viewer is not None else list(events)
    lines: list[str] = []
    k = 0
    while k < len(seen):
        run = draw_run(seen, k) if seen[k]["type"] == "draw" else [seen[k]]
        lines.append(describe(run[0]) if len(run) == 1 else describe_draws(run))
        k += len(run)
    return lines


def draw_run(events: list[dict], k: int) -> list[dict]:
    """The draws from ``events[k]`` on by the same seat for the same reason."""
    first = events[k]
    end = k + 1
    while end < len(events) and all(events[end][key] == first[key] for key in ("type", "seat", "reason")):
        end += 1
    return events[k:end]


def describe_draws(run: list[dict]) -> str:
    """One line for several draws by one seat for one reason: the cards, where all are seen."""
    event = run[0]
    cards = [e["card"] for e in run]
    what = ", ".join(cards) if all(c is not None for c in cards) else f"{len(run)} cards"
    reason = "" if event["reason"] == "choice" else f" ({event['reason'].replace('_', ' ')})"
    return f"P{event['seat']} draws {what}{reason}"
