"""Rendering a game: a compact text table (``ansi``) and an image (``rgb_array``).

Both show one seat's view: that seat's hand face up, counts for the others,
the top card, colour, direction, scores and the last events as that seat saw
them. ``viewer=None`` shows every hand (the god's-eye view).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

from .engine.cards import COLOUR_NAMES, COLOURS, parse_card
from .engine.events import summarize
from .engine.layout import S_FOLLOWING, S_PENDING, S_PHASE, S_SWAP_FROM, S_SWAP_TO
from .engine.named import PRIVATE_PHASES

CARD_RGB = {
    "R": (214, 40, 57),
    "Y": (242, 196, 22),
    "G": (46, 150, 72),
    "B": (26, 102, 196),
    "W": (30, 30, 30),
}
TABLE_RGB = (22, 92, 58)
RECENT_EVENTS = 12
"""Events a rendered view lists (the newest last): every env keeps this many."""


def _seat_label(seat: int) -> str:
    return f"P{seat}"


def shown_turn(game, state, viewer: int | None) -> tuple[int, str]:
    """(acting seat, phase) as ``viewer`` may see them: a privately asked decision (a jump-in
    window) is the next player's turn to every seat not asked (R-HOUSE-JUMP-2)."""
    ints = state.ints[0]
    current = game.current_player(state)
    if ints[S_PHASE] in PRIVATE_PHASES and viewer is not None and viewer != current:
        return int(ints[S_FOLLOWING]), "play"
    return current, game.phase(state)


def house_rule_facts(game, state) -> list[str]:
    """The public facts of the house rules that are in play: the pending penalty, the last swap."""
    ints = state.ints[0]
    facts = []
    if ints[S_PENDING] > 0:
        facts.append(f"pending penalty {int(ints[S_PENDING])} cards")
    if game.config.seven_o and ints[S_SWAP_FROM] >= 0:
        facts.append(f"last swap {_seat_label(int(ints[S_SWAP_FROM]))}-{_seat_label(int(ints[S_SWAP_TO]))}")
    return facts


def render_text(game, state, viewer: int | None = None, events: Sequence[dict] = ()) -> str:
    """The table as text, from ``viewer``'s seat (``None``: every hand shown)."""
    position = game.position(state)
    current, phase = shown_turn(game, state, viewer)
    direction = "clockwise (to seat+1)" if position["direction"] > 0 else "counter-clockwise (to seat-1)"
    colour = position["colour"]
    colour_text = f"{colour} ({COLOUR_NAMES[COLOURS.index(colour)]})" if colour else "to be named"
    lines = [
        f"UNO | round {position['round'] + 1} | step {position['step']} | dealer "
        f"{_seat_label(position['dealer'])} | {direction}",
        f"top {position['discard_pile'][-1]:>4} | colour {colour_text} | draw pile {len(position['draw_pile'])} "
        f"| discard pile {len(position['discard_pile'])}",
    ]
    facts = house_rule_facts(game, state)
    if facts:
        lines.append(" | ".join(facts))
    for seat in range(game.num_players):
        marks = _text_marks(position, seat, f"<- {phase}" if seat == current else None)
        hand = position["hands"][seat]
        shown = " ".join(hand) if viewer is None or seat == viewer else ""
        lines.append(
            f"  {_seat_label(seat):>9} {len(hand):3d} cards  score {position['scores'][seat]:4d}  "
            f"{shown}  {' '.join(marks)}".rstrip()
        )
    if game.is_over(state):
        lines.append(_game_over_text(game, state))
    if events:
        lines.append("last: " + "; ".join(summarize(events, viewer)[-6:]))
    return "\n".join(lines)


def _text_marks(position: dict, seat: int, acting: str | None) -> list[str]:
    """What the text table notes beside a seat: ``acting`` (when it decides), out, UNO."""
    alive = position["alive"][seat]
    marks = [acting] if acting else []
    if not alive:
        marks.append("eliminated")
    if seat == (position.get("catch_window") or {}).get("exposed"):
        marks.append("exposed, no UNO!")
    elif len(position["hands"][seat]) == 1 and alive:
        marks.append("UNO")
    return marks


def _game_over_text(game, state) -> str:
    if game.is_truncated(state):
        return "game over: truncated at the step limit"
    winners = ", ".join(_seat_label(s) for s in game.winners(state))
    return f"game over: {winners or 'nobody'} won"


SVG_SHAPES = {  # a shape per colour on every card, so that colour is never the only cue
    "R": '<circle cx="{x}" cy="{y}" r="{r}" fill="#fff"/>',
    "Y": '<polygon points="{x},{top} {right},{bottom} {left},{bottom}" fill="#fff"/>',
    "G": '<rect x="{left}" y="{top}" width="{d}" height="{d}" fill="#fff"/>',
    "B": '<polygon points="{x},{top} {right},{y} {x},{bottom} {left},{y}" fill="#fff"/>',
}
SVG_SIGNS = {"S": "\u2298", "R": "\u21c4"}  # Skip, Reverse


def _hex(rgb) -> str:
    return "#" + "".join(f"{v:02x}" for v in rgb)


def _svg_card(x: int, y: int, text: str | None, w: int = 42, h: int = 60) -> str:
    """One card at (x, y): its rank or sign, colour letter and shape (as on the HTML
    replay's cards), or a card back for ``None``."""
    if text is None:
        return (
            f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="#334155" stroke="#fff" stroke-width="2"/>'
            f'<text x="{x + w / 2}" y="{y + h / 2 + 4}" fill="#fde047" font-size="11" font-weight="700" '
            'text-anchor="middle">UNO</text>'
        )
    wild = text[0] == "W" or text == "FT"
    colour = "W" if wild else text[0]
    fill = _hex(CARD_RGB[colour])
    ink = "#111" if colour == "Y" else "#fff"
    rank = text if wild else SVG_SIGNS.get(text[1:], text[1:])
    r = 4
    cx, cy = x + w - 10, y + 11
    shape = SVG_SHAPES.get(colour, "").format(
        x=cx, y=cy, r=r, top=cy - r, bottom=cy + r, left=cx - r, right=cx + r, d=2 * r
    )
    letter = "" if wild else colour
    return (
        f'<g><title>{escape(text)}</title><rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" '
        f'stroke="#fff" stroke-width="2"/>{shape}<text x="{x + 6}" y="{y + 14}" fill="{ink}" font-size="11" '
        f'font-weight="700">{letter}</text><text x="{x + w / 2}" y="{y + h / 2 + 6}" fill="{ink}" '
        f'font-size="{13 if len(rank) > 2 else 17}" font-weight="800" text-anchor="middle">{escape(rank)}</text></g>'
    )


def render_svg(game, state, viewer: int | None = None, events: Sequence[dict] = ()) -> str:
    """The table as one SVG document, from ``viewer``'s seat (``None``: every hand shown):
    the hands (backs for the others'), the top card, colour, direction, scores, whose
    decision it is, the house rules' facts and the last events as the viewer saw them."""
    position = game.position(state)
    current, phase = shown_turn(game, state, viewer)
    width, height = 900, 40 + 110 + game.num_players * SVG_ROW + 24 * min(len(events), 6) + 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        f'<rect width="{width}" height="{height}" fill="{_hex(TABLE_RGB)}"/>',
        *_svg_centre(position, house_rule_facts(game, state)),
    ]
    y = 150
    for seat in range(game.num_players):
        parts += _svg_seat(position, seat, phase if seat == current else None, viewer is None or seat == viewer, y)
        y += SVG_ROW
    for line in summarize(events, viewer)[-6:]:
        parts.append(_svg_label(12, y + 4, line, 13))
        y += 24
    parts.append("</svg>")
    return "".join(parts)


SVG_ROW = 88
"""The height of a seat's row in :func:`render_svg`."""
SVG_HAND = 19
"""The cards of a hand that :func:`render_svg` draws (a count for the rest)."""


def _svg_label(x: int, y: int, text: str, size: int = 14, weight: int = 400) -> str:
    return f'<text x="{x}" y="{y}" fill="#f8fafc" font-size="{size}" font-weight="{weight}">{escape(text)}</text>'


def _svg_centre(position: dict, facts: list[str]) -> list[str]:
    """The round, step and direction, the top card, the colour in force, the piles and the house rules' facts."""
    colour = position["colour"]
    direction = "clockwise" if position["direction"] > 0 else "counter-clockwise"
    parts = [_svg_label(12, 24, f"round {position['round'] + 1}, step {position['step']}, {direction}", 15, 700)]
    if position["discard_pile"]:
        parts.append(_svg_card(12, 40, position["discard_pile"][-1], 56, 80))
    colour_text = COLOUR_NAMES[COLOURS.index(colour)] if colour else "to be named"
    parts.append(_svg_label(84, 62, f"colour in force: {colour_text}"))
    parts.append(
        _svg_label(84, 84, f"draw pile {len(position['draw_pile'])}, discard pile {len(position['discard_pile'])}")
    )
    if facts:
        parts.append(_svg_label(84, 106, " | ".join(facts)))
    return parts


def _svg_seat(position: dict, seat: int, acting: str | None, face_up: bool, y: int) -> list[str]:
    """One seat's row at ``y``: its score, count, ``acting`` (the phase, when it decides) and cards."""
    hand = position["hands"][seat]
    marks = [f"score {position['scores'][seat]}", f"{len(hand)} cards"]
    if acting is not None:
        marks.append(f"to act: {acting}")
    if not position["alive"][seat]:
        marks.append("out")
    parts = [_svg_label(12, y, f"{_seat_label(seat)}: " + ", ".join(marks), 14, 400 if acting is None else 700)]
    for k, card in enumerate(hand[:SVG_HAND]):
        parts.append(_svg_card(12 + 46 * k, y + 10, card if face_up else None, 42, 60))
    if len(hand) > SVG_HAND:
        parts.append(_svg_label(12 + 46 * SVG_HAND, y + 40, f"+{len(hand) - SVG_HAND}"))
    return parts


def _font(size: int):
    from PIL import ImageFont  # only for rgb_array rendering (Pillow loads in about 0.1 s)

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _draw_card(draw, x: int, y: int, w: int, h: int, text: str | None) -> None:
    """A card at (x, y); ``text=None`` draws a card back."""
    if text is None:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=w // 6, fill=(20, 20, 20), outline=(240, 240, 240))
        draw.ellipse((x + w * 0.15, y + h * 0.3, x + w * 0.85, y + h * 0.7), fill=(214, 40, 57))
        return
    face = parse_card(text)
    key = "W" if face >= 52 else text[0]
    draw.rounded_rectangle((x, y, x + w, y + h), radius=w // 6, fill=CARD_RGB[key], outline=(250, 250, 250), width=2)
    label = text if face >= 52 else text[1:]
    font = _font(max(10, int(h * 0.32)))
    box = draw.textbbox((0, 0), label, font=font)
    draw.text(
        (x + (w - (box[2] - box[0])) / 2, y + (h - (box[3] - box[1])) / 2 - box[1]),
        label,
        fill=(255, 255, 255),
        font=font,
    )


def render_image(game, state, viewer: int | None = None, events: Sequence[dict] = (), size=(960, 640)) -> np.ndarray:
    """The table as an RGB image (uint8, height x width x 3)."""
    from PIL import Image, ImageDraw  # only for rgb_array rendering

    width, height = size
    image = Image.new("RGB", size, TABLE_RGB)
    draw = ImageDraw.Draw(image)
    position = game.position(state)
    current, _ = shown_turn(game, state, viewer)
    small, medium = _font(14), _font(18)
    cx, cy = width // 2, int(height * 0.42)
    _draw_centre(draw, position, house_rule_facts(game, state), (cx, cy), medium, small)
    _draw_seats(draw, position, viewer, current, size, (small, medium))
    for k, line in enumerate(summarize(events, viewer)[-5:]):
        draw.text((12, 10 + 18 * k), line, fill=(235, 235, 235), font=small)
    if game.is_over(state):
        winners = ", ".join(_seat_label(s) for s in game.winners(state)) or "nobody"
        draw.text((cx - 90, cy + 75), f"game over: {winners} won", fill=(255, 230, 90), font=medium)
    return np.asarray(image, dtype=np.uint8)


def _draw_centre(draw, position: dict, facts: list[str], centre: tuple[int, int], medium, small) -> None:
    """The draw pile, the top card, the colour in force, round and direction, the house rules' facts."""
    cx, cy = centre
    _draw_card(draw, cx - 90, cy - 45, 60, 90, None)
    draw.text((cx - 90, cy + 50), f"{len(position['draw_pile'])} left", fill="white", font=small)
    _draw_card(draw, cx + 10, cy - 45, 60, 90, position["discard_pile"][-1])
    colour = position["colour"]
    if colour:
        draw.ellipse((cx + 85, cy - 20, cx + 125, cy + 20), fill=CARD_RGB[colour], outline="white", width=2)
    arrow = "clockwise" if position["direction"] > 0 else "counter-clockwise"
    draw.text((cx - 90, cy - 75), f"round {position['round'] + 1}  |  {arrow}", fill="white", font=medium)
    for k, fact in enumerate(facts):
        draw.text((cx - 90, cy + 70 + 20 * k), fact, fill=(255, 230, 90), font=medium)


def _draw_seats(draw, position: dict, viewer: int | None, current: int, size: tuple[int, int], fonts) -> None:
    """The seats around an ellipse, seat 0 (or the viewer) at the bottom, its hand face up."""
    width, height = size
    small, medium = fonts
    cx, cy = width // 2, int(height * 0.42)
    n = len(position["hands"])
    bottom = 0 if viewer is None else viewer
    for seat in range(n):
        hand = position["hands"][seat]
        face_up = viewer is None or seat == viewer
        label = f"{_seat_label(seat)}  {len(hand)} cards  {position['scores'][seat]} pts"
        label += "" if position["alive"][seat] else "  (out)"
        ink = (255, 230, 90) if seat == current else (255, 255, 255)
        if face_up and seat == bottom:
            _draw_own_hand(draw, hand, label, ink, size, medium)
            continue
        angle = np.pi / 2 + 2 * np.pi * ((seat - bottom) % n) / n
        place = (int(cx + 0.40 * width * np.cos(angle)), int(cy + 0.36 * height * np.sin(angle)))
        _draw_seat(draw, hand if face_up else None, len(hand), label, ink, place, small)


def _draw_own_hand(draw, hand: list[str], label: str, ink, size: tuple[int, int], font) -> None:
    """The bottom seat's hand face up along the bottom edge (its first 18 cards), its label above."""
    width, height = size
    cw, ch = 44, 64
    shown = hand[:18]
    step = min(cw + 4, (width - 40) // max(1, len(shown)))
    x0 = max(10, width // 2 - step * len(shown) // 2)
    for k, card in enumerate(shown):
        _draw_card(draw, x0 + k * step, height - ch - 12, cw, ch, card)
    draw.text((x0, height - ch - 34), label, fill=ink, font=font)


def _draw_seat(draw, hand: list[str] | None, held: int, label: str, ink, place: tuple[int, int], font) -> None:
    """Another seat at ``place``: up to 8 small cards (backs when ``hand`` is None), its label below."""
    sx, sy = place
    count = min(held, 8)
    small_w, small_h = 22, 32
    x0 = sx - (count * 10 + small_w) // 2
    for k in range(count):
        _draw_card(draw, x0 + k * 10, sy - small_h // 2, small_w, small_h, None if hand is None else hand[k])
    box = draw.textbbox((0, 0), label, font=font)
    draw.text((sx - (box[2] - box[0]) // 2, sy + small_h // 2 + 4), label, fill=ink, font=font)
