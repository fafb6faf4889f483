"""HTML replays of game records: one self-contained page (inline CSS, JS and SVG cards;
nothing is fetched when it opens) that shows the table at every step.

    uno replay game.json -o game.html          # a record written by uno_env.engine.record
    uno replay game.json -o game.html --seat 1 # opened as seat 1 saw it (a switch on the page)

In a notebook, ``Replay(record)`` displays itself (``_repr_html_``). The page shows every
hand (face up, or as one seat saw it), the discard pile's top and the colour in force,
the direction, scores, the pending decision with its legal actions, the action taken
and its annotation, and the step's events in words. Controls: play/pause, speed, a
step slider, previous/next (the arrow keys), next round. Each card carries its text
(``R7``, ``B+2``, ``W+4``) and a shape per colour (red circle, yellow triangle, green
square, blue diamond): readable without telling the colours apart.
The address ``game.html#step=K&view=S`` (``view=all`` or a seat) opens one decision;
the page keeps it up to date as it moves, so the address of a step can be shared.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path

from .engine import Game
from .engine.events import summarize
from .engine.record import RecordError, check, game_of, load, replay, start_state


def frames(record: dict) -> tuple[Game, list[dict]]:
    """The table before the first action and after each one, as JSON-able dicts."""
    game = game_of(record)
    annotations = record.get("annotations") or [None] * len(record["actions"])
    out = [frame(game, start_state(game, record["start"]), None)]

    def add(step, seat, action, state):
        taken = {"seat": seat, "action": game.actions.strings[action], "annotation": annotations[step]}
        out.append(frame(game, state, taken))

    replay(record, on_step=add, game=game)
    return game, out


def frame(game: Game, state, taken: dict | None) -> dict:
    position = game.position(state)
    n = game.num_players
    over = game.is_over(state)
    events = game.events(state)
    return {
        "hands": position["hands"],
        "top": position["discard_pile"][-1] if position["discard_pile"] else None,
        "discard": len(position["discard_pile"]),
        "draw": len(position["draw_pile"]),
        "colour": position["colour"],
        "direction": position["direction"],
        "current": position["current_player"],
        "phase": position["phase"],
        "scores": position["scores"],
        "alive": position["alive"],
        "round": position["round"],
        "step": position["step"],
        "pending": position["pending_penalty"],
        "outcome": position["outcome"] if over else None,
        "legal": [] if over else [game.actions.strings[a] for a in game.legal_actions(state)],
        "taken": taken,
        "events": summarize(events),
        "seen": [summarize(events, seat) for seat in range(n)],
    }


def to_html(record: dict, title: str | None = None, seat: int | None = None, nonce: str | None = None) -> str:
    """The replay page of ``record`` (checked and replayed first: a bad record raises
    :class:`~uno_env.engine.record.RecordError` naming the step). ``nonce``: put on the
    page's script and style tags, for a Content-Security-Policy that allows only them."""
    check(record)
    players = game_of(record).num_players
    if seat is not None and not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < players):
        raise ValueError(f"seat must be 0..{players - 1} or None, got {seat!r}")
    game, table = frames(record)
    agents = record.get("agents") or [f"P{s}" for s in range(game.num_players)]
    heading = title or f"UNO: {game.num_players} players, {len(record['actions'])} decisions"
    listed = "[" + ",".join(script_json(f) for f in table) + "]"
    return replay_page(game, heading, agents, listed, seat, nonce)


def script_json(data) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element of an HTML page: ``<``,
    ``>`` and ``&`` escaped (no ``</script>`` or ``<!--`` can close or bend the element),
    and every character beyond ASCII (U+2028 and U+2029 included) escaped too."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def replay_page(game: Game, heading: str, agents: list, listed_frames: str, seat: int | None, nonce: str | None) -> str:
    """The replay page of ``game``'s frames, given as their JSON array already made by
    :func:`script_json` (``uno serve`` makes it step by step)."""
    data = {
        "title": heading,
        "agents": agents,
        "settings": game.config.in_words() if hasattr(game.config, "in_words") else repr(game.config),
        "seat": seat,
    }
    payload = script_json(data)[:-1] + ',"frames":' + listed_frames + "}"
    page = page_with_cards(DATA / "replay.html", nonce)  # the viewer: HTML, CSS and JS
    page = page.replace("__DATA__", payload, 1)  # the first of each: the template's own (the title's is the first)
    return page.replace("__TITLE__", html.escape(heading), 1)


DATA = Path(__file__).parent / "data"


def page_with_cards(path, nonce: str | None = None) -> str:
    """The page at ``path`` with the shared SVG card drawing (``data/cards.js``) inlined
    where it says ``__CARDS__`` (also the table of ``uno serve``); ``nonce``: an attribute
    of the page's own ``<script>`` and ``<style>`` tags (put there before anything else is
    inlined, so that only they carry it)."""
    page = Path(path).read_text()
    if nonce is not None:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", nonce):
            raise ValueError(f"nonce: expected letters, digits, '_' and '-', got {nonce!r}")
        page = re.sub(r"<(script|style)\b", lambda m: f'<{m.group(1)} nonce="{nonce}"', page)
    return page.replace("__CARDS__", (DATA / "cards.js").read_text(), 1)


class Replay:
    """A record that shows itself as its replay in Jupyter (and writes the page with :meth:`save`)."""

    def __init__(self, record: dict, seat: int | None = None, height: int = 620):
        self.record, self.seat, self.height = record, seat, height
        self.page = to_html(record, seat=seat)

    def save(self, path) -> Path:
        path = Path(path)
        path.write_text(self.page)
        return path

    def _repr_html_(self) -> str:  # an iframe keeps the page's script and style to itself
        return (
            f'<iframe srcdoc="{html.escape(self.page, quote=True)}" style="width:100%;height:{self.height}px;'
            'border:0" sandbox="allow-scripts"></iframe>'
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="uno replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("record", help="a game record (JSON, uno_env.engine.record)")
    parser.add_argument("-o", "--out", help="the HTML file to write (default: the record's name with .html)")
    parser.add_argument("--seat", type=int, default=None, help="open the page as this seat saw the game")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    try:
        page = to_html(load(args.record), title=args.title, seat=args.seat)
    except (RecordError, ValueError) as err:
        parser.error(str(err))
    out = Path(args.out) if args.out else Path(args.record).with_suffix(".html")
    try:
        out.write_text(page)
    except OSError as err:
        parser.error(f"--out {out}: {err.strerror or err}")
    print(f"wrote {out}", file=sys.stderr)
    return 0


__all__ = ["Replay", "frame", "frames", "main", "page_with_cards", "replay_page", "script_json", "to_html"]
