"""The agent protocol's messages (docs/PROTOCOL.md): what the host writes to a program, and
what it reads back.

JSON lines, one object per line, UTF-8. Every message to a seat is built from what that
seat may see: its observation (:meth:`uno_env.engine.ObservationSpec.to_dict`), its legal
actions, and the events as it saw them (:func:`uno_env.engine.events.seen_by`, applied by
the play loop before the events reach the agent).
"""

from __future__ import annotations

import json
import math

import numpy as np

from uno_env.engine import Game

PROTOCOL = 1
"""The protocol's version (``hello``'s ``protocol``)."""

MAX_LINE = 1 << 20
"""The longest line a program may write (bytes)."""


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # made once: json.dumps makes one a call


_NUMBERS = np.array([str(k) for k in range(-1, 4096)], dtype=object)
"""The text of each integer -1..4094 (:meth:`Messages.observation_json`; larger ones take the slow way)."""


def dumps(message) -> str:
    """One message (or a part of one) as compact JSON on one line (no newline)."""
    return _ENCODER.encode(message)


class ProtocolError(ValueError):
    """A program's line that the protocol does not allow ("garbage")."""


class Messages:
    """The host's messages for one table (a :class:`~uno_env.engine.Game`); the parts every
    decision repeats are built once."""

    def __init__(self, game: Game):
        self.game = game
        spec = game.obs_spec
        self._legal = [dumps({"id": a, "action": text}) for a, text in enumerate(game.actions.strings)]
        shapes = {name: np.shape(value) for name, value in spec.to_dict(np.zeros(spec.size, np.float32)).items()}
        self.labels = {s.name: np.array(s.labels, dtype=object).reshape(shapes[s.name]).tolist() for s in spec.slices}
        """Per observation field, the meaning of each entry, shaped like the field."""
        # the fields as to_dict names and shapes them, read from a flat list (to_dict's arrays cost more)
        self._fields = [
            (s.name, s.offset, s.stop, shapes[s.name][1] if len(shapes[s.name]) == 2 else 0) for s in spec.slices
        ]
        self._heads = [f'"{name}":' for name, *_ in self._fields]

    def hello(self, seat: int | None, seed: int) -> dict:
        """The first message of every game."""
        game = self.game
        return {
            "type": "hello",
            "protocol": PROTOCOL,
            "seat": seat,
            "num_players": game.num_players,
            "seed": seed,
            "rules": game.config.to_dict(),
            "actions": list(game.actions.strings),
            "observation_labels": self.labels,
        }

    def observation(self, observation: np.ndarray) -> dict:
        """The observation's named fields as JSON values (integers where every entry is whole,
        as in every observation the engine makes)."""
        whole = observation.astype(np.int64)
        values = (whole if np.array_equal(whole, observation) else observation.astype(np.float64)).tolist()
        out = {}
        for name, start, stop, width in self._fields:
            part = values[start:stop]
            out[name] = [part[k : k + width] for k in range(0, len(part), width)] if width else part
        return out

    def observation_json(self, observation: np.ndarray) -> str:
        """``dumps(self.observation(observation))``, four times faster: the integers' texts are
        looked up (json's encoder makes each one anew, most of a decision's cost otherwise)."""
        whole = observation.astype(np.int64)
        if not np.array_equal(whole, observation) or whole.min() < -1 or whole.max() >= len(_NUMBERS) - 1:
            return dumps(self.observation(observation))
        texts = _NUMBERS[whole + 1].tolist()
        parts = []
        for head, (_, start, stop, width) in zip(self._heads, self._fields):
            if width:
                rows = "],[".join(",".join(texts[k : k + width]) for k in range(start, stop, width))
                parts.append(f"{head}[[{rows}]]")
            else:
                parts.append(f"{head}[{','.join(texts[start:stop])}]")
        return "{" + ",".join(parts) + "}"

    def decision(self, observation: np.ndarray, mask: np.ndarray, events: list[dict], text: str | None = None) -> str:
        """The line of one decision: the observation, the legal actions, the events since the
        last message, and (``text``) the decision in words."""
        legal = ",".join(self._legal[a] for a in mask.nonzero()[0].tolist())
        line = (
            f'{{"type":"decision","observation":{self.observation_json(observation)},'
            f'"legal":[{legal}],"events":{dumps(events)}'
        )
        return line + (f',"text":{dumps(text)}}}' if text is not None else "}")

    @staticmethod
    def round_end(events: list[dict]) -> dict:
        """A round's end: its winner, the points, the score lines, and the events since the last
        message (which end with the round's end and its scores)."""
        end = next(e for e in reversed(events) if e["type"] == "round_end")
        scores = [{k: e[k] for k in ("seat", "points", "total")} for e in events if e["type"] == "score"]
        return {
            "type": "round_end",
            "winner": end["winner"],
            "points": end["points"],
            "scores": scores,
            "events": events,
        }

    @staticmethod
    def game_end(outcome: list[int], scores: list[int], events: list[dict]) -> dict:
        """The game's end: per seat +1 won, -1 lost, 0 neither (a truncated game: all 0); the scores."""
        return {"type": "game_end", "outcome": list(outcome), "scores": list(scores), "events": events}


def parse_object(line: bytes) -> dict:
    """A line as a JSON object; ProtocolError naming what is wrong otherwise."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, ValueError) as err:
        raise ProtocolError(f"not a line of JSON ({err}): {shorten(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {shorten(line)}")
    return message


def parse_ready(line: bytes) -> dict:
    """The answer to ``hello``: ``{"type": "ready"}``, optionally with ``name`` (text) and
    ``text`` (true: decisions carry the decision in words)."""
    message = parse_object(line)
    if message.get("type") != "ready":
        raise ProtocolError(f'expected {{"type": "ready"}} after hello, got {shorten(line)}')
    if not isinstance(message.get("name", ""), str) or not isinstance(message.get("text", False), bool):
        raise ProtocolError(f"ready: name must be text and text true or false, got {shorten(line)}")
    return message


def parse_action(line: bytes, game: Game) -> int:
    """The answer to a decision: ``{"action": "play R7"}`` (any action text of the table) or
    ``{"action": 12}`` (an action id), as an action id. It need not be legal now: the game's
    ``illegal_action`` setting decides what an unavailable action costs."""
    message = parse_object(line)
    if "action" not in message:
        raise ProtocolError(f'expected {{"action": ...}}, got {shorten(line)}')
    action = message["action"]
    if isinstance(action, str):
        try:
            return game.actions.to_id(action)
        except ValueError as err:
            raise ProtocolError(f"action {action!r}: {err}") from None
    if isinstance(action, float) and math.isfinite(action) and action.is_integer():
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < game.num_actions:
        raise ProtocolError(f"action: expected an action text or an id 0..{game.num_actions - 1}, got {action!r}")
    return action


def shorten(line: bytes | str, limit: int = 120) -> str:
    """A line for an error message: at most ``limit`` characters."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


__all__ = [
    "MAX_LINE",
    "PROTOCOL",
    "Messages",
    "ProtocolError",
    "dumps",
    "parse_action",
    "parse_object",
    "parse_ready",
]
