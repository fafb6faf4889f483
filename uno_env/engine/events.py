"""The structured event log: what happened during a step, in order.

The kernels write events as rows of four int32 (type, a, b, c); :func:`decode`
turns them into dicts. The log is the god's-eye view (faces of drawn cards
included): renderers and replays filter it with :func:`visible_to`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .cards import COLOURS, card_to_str

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
    if kind == "jump_pass" and event["seat"] != seat:
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
