"""Game records: one game as JSON (the settings, where it started, every action), both ways.

>>> from uno_env.engine import Game
>>> from uno_env.engine.record import Recorder, replay
>>> game = Game(num_players=3)
>>> state = game.init(seed=7)
>>> recorder = Recorder(game, state, agents=["first legal"] * 3)
>>> _ = game.play(state, [lambda obs, mask: int(mask.nonzero()[0][0])] * 3, on_step=recorder.on_step)
>>> record = recorder.record()
>>> replayed = replay(record)
>>> game.position(replayed) == game.position(state)
True

A record (format version :data:`VERSION`) is a dict with the keys:

| key | meaning |
|---|---|
| `format` | `"uno-env game record"` |
| `version` | the format version (refused if newer than this code's) |
| `settings` | `RuleConfig.to_dict()` of the game |
| `start` | where it started: `{"position": {...}}` (a god's-eye position, generator included), |
| | `{"seed": s, "dealer": d}` (`Game.init`), or `{"deck": [...], "dealer": d, "seed": s}` (`init_from_deck`) |
| `actions` | every action id in order, the acting seat's |
| `seats` | the seat that took each action |
| `uno_env.agents` | the agents' names per seat, or `null` |
| `annotations` | per action `null` or a JSON object an agent attached (action probabilities, a value), or absent |
| `result` | what the game showed after the last action: `step`, `phase`, `scores`, `outcome`, or absent |

:func:`replay` rebuilds the game exactly: each action is stepped, and a record whose
action the engine refuses there, taken by another seat than recorded, or whose
result differs from the replay's is refused with :class:`RecordError` naming the step.
A recorder's start is the god's-eye position when the recorder was made, so records
of games from any start (seeded, a deck, a position) replay the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import RuleConfig
from .game import Game

if TYPE_CHECKING:
    from .game import State

FORMAT = "uno-env game record"
VERSION = 1
START_KINDS = ("position", "deck", "seed")
START_KEYS = {"position": {"position"}, "deck": {"deck", "dealer", "seed"}, "seed": {"seed", "dealer"}}
"""The keys of a record's start, by its kind."""


class RecordError(ValueError):
    """A record that cannot be replayed; ``step`` is the action's index where one is to blame."""

    def __init__(self, message: str, step: int | None = None):
        super().__init__(message)
        self.step = step


class Recorder:
    """Builds the record of one game while it is played: made right after the game's
    reset, then :meth:`add` (or :meth:`on_step`, the ``Game.play`` callback) after each step."""

    def __init__(self, game: Game, state: State, agents=None, index: int = 0, start: dict | None = None):
        if agents is not None:
            agents = [str(a) for a in agents]
            if len(agents) != game.num_players:
                raise ValueError(f"agents: expected one name per seat ({game.num_players}), got {len(agents)}")
        self.game, self.state, self.index = game, state, index
        self.start = start if start is not None else {"position": game.position(state, index)}
        self.agents = agents
        self.actions: list[int] = []
        self.seats: list[int] = []
        self.annotations: list[Any] = []

    def add(self, seat: int, action: int, annotation: dict | None = None) -> None:
        """The step just taken: ``seat`` took ``action``; ``annotation`` (JSON-able) is kept with it."""
        if annotation is not None:
            json.dumps(annotation)  # refuse what a record could not hold, before keeping anything
        self.actions.append(int(action))
        self.seats.append(int(seat))
        self.annotations.append(annotation)

    def on_step(self, seat: int, action: int) -> None:
        self.add(seat, action)

    def record(self) -> dict:
        """The record of the game so far (its result as the state shows it now)."""
        out = {
            "format": FORMAT,
            "version": VERSION,
            "settings": self.game.config.to_dict(),
            "start": self.start,
            "agents": self.agents,
            "actions": list(self.actions),
            "seats": list(self.seats),
            "result": result_of(self.game, self.state, self.index),
        }
        if any(a is not None for a in self.annotations):
            out["annotations"] = list(self.annotations)
        return out


def result_of(game: Game, state: State, index: int = 0) -> dict:
    return {
        "step": game.step_count(state, index),
        "phase": game.phase(state, index),
        "scores": game.scores(state, index),
        "outcome": game.outcome(state, index),
    }


def save(record: dict, path) -> Path:
    """Write ``record`` as JSON to ``path`` (checked first: nothing is written for a bad one)."""
    check(record)
    path = Path(path)
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path


def load(path) -> dict:
    """Read and check a record file."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RecordError(f"{path}: not a game record ({err})") from None
    check(record)
    return record


def check(record) -> None:
    """Refuse a record whose shape is wrong (RecordError naming the key); the actions
    themselves are checked by :func:`replay`."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object (dict), got {type(record).__name__}")
    check_header(record)
    check_moves(record)


def check_header(record: dict) -> None:
    """The format and version, the settings, and how the game starts."""
    if record.get("format") != FORMAT:
        raise RecordError(f"format: expected {FORMAT!r}, got {record.get('format')!r}")
    version = record.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        raise RecordError(f"version: this code reads versions 1..{VERSION}, got {version!r}")
    for key in ("settings", "start"):
        if not isinstance(record.get(key), dict):
            raise RecordError(f"{key}: expected a JSON object, got {record.get(key)!r}")
    check_start(record["start"])


def check_start(start: dict) -> None:
    """A start of one kind (a position, a deck or a seed) with that kind's keys."""
    kind = next((k for k in START_KINDS if k in start), None)
    if kind is None or not set(start) <= START_KEYS[kind]:
        raise RecordError(f"start: expected one of {', '.join(START_KINDS)} (and its keys), got keys {sorted(start)}")


def _is_list_of(values, test) -> bool:
    return isinstance(values, list) and all(test(v) for v in values)


def _is_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_moves(record: dict) -> None:
    """The actions, the seat of each, and the optional annotations and agents' names."""
    for key in ("actions", "seats"):
        if not _is_list_of(record.get(key), _is_integer):
            raise RecordError(f"{key}: expected a list of integers")
    actions: list = record["actions"]
    seats: list = record["seats"]
    if len(seats) != len(actions):
        raise RecordError(f"seats: one per action ({len(actions)}), got {len(seats)}")
    annotations = record.get("annotations")
    if annotations is not None and (not isinstance(annotations, list) or len(annotations) != len(actions)):
        raise RecordError(f"annotations: one entry (or null) per action ({len(actions)})")
    agents = record.get("agents")
    if agents is not None and not _is_list_of(agents, lambda a: isinstance(a, str)):
        raise RecordError("agents: expected a list of names, one per seat, or null")


def game_of(record: dict) -> Game:
    try:
        return Game(RuleConfig(**record["settings"]))
    except (TypeError, ValueError) as err:
        raise RecordError(f"settings: {err}") from None


def start_state(game: Game, start: dict) -> State:
    """The state a record starts from."""
    try:
        if "position" in start:
            return game.from_position(start["position"])
        dealer = start.get("dealer")
        if "deck" in start:
            return game.init_from_deck(start["deck"], dealer=dealer, seed=start.get("seed"))
        return game.init(seed=start["seed"], dealer=dealer)
    except ValueError as err:
        raise RecordError(f"start: {err}") from None


def replay(record: dict, on_step=None, game: Game | None = None) -> State:
    """Rebuild the game of ``record`` exactly, checking every action; returns the final
    state. ``on_step(step, seat, action, state)`` runs after each step (the state's event
    buffer then holds that step's events). ``game``: one made for the record's settings."""
    check(record)
    if game is None:
        game = game_of(record)
    elif game.config.to_dict() != record["settings"]:
        raise RecordError("settings: the record was made for other rules than this game's")
    state = start_state(game, record["start"])
    for step, (action, seat) in enumerate(zip(record["actions"], record["seats"])):
        replay_step(game, state, step, action, seat)
        if on_step is not None:
            on_step(step, seat, action, state)
    expected = record.get("result")
    if expected is not None:
        check_result(game, state, expected, len(record["actions"]))
    return state


def replay_step(game: Game, state: State, step: int, action: int, seat: int) -> None:
    """Step the record's ``action``, refused where the game is over, another seat acts, or the rules refuse it."""
    acting = game.current_player(state)
    if game.is_over(state):
        raise RecordError(f"step {step}: the game is over, but the record goes on", step)
    if seat != acting:
        raise RecordError(f"step {step}: recorded for seat {seat}, but seat {acting} is to act", step)
    try:
        game.step(state, action)
    except ValueError as err:  # IllegalActionError and bad ids; the state is unchanged
        raise RecordError(f"step {step}: action {action} refused: {err}", step) from None


def check_result(game: Game, state: State, expected: dict, steps: int) -> None:
    """The replay's result is the record's (each key that differs is named)."""
    got = result_of(game, state)
    wrong = sorted(k for k in expected if got.get(k) != expected[k])
    if wrong:
        raise RecordError(
            f"result: the replay ends with {', '.join(f'{k}={got.get(k)!r}' for k in wrong)}, "
            f"the record says {', '.join(f'{k}={expected[k]!r}' for k in wrong)}",
            steps,
        )


__all__ = ["FORMAT", "VERSION", "RecordError", "Recorder", "check", "load", "replay", "save"]
