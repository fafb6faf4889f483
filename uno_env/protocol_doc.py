"""The generated parts of docs/PROTOCOL.md: every observation field and every event field in
words (from the observation's named slices and the events' field list), the decisions of
every phase as short transcripts of real positions played by the engine, and the example
exchange of a whole hand. ``python -m uno_env.docs --write`` writes them; a test checks that
they are up to date."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from .agents import make_agent
from .agents.following import FollowingAgent
from .agents.protocol import Messages
from .engine import Game, RuleConfig
from .engine.cards import COLOURS, DECKS, RANK_SYMBOLS, card_to_str, deck_counts, num_faces
from .engine.config import HOUSE_PHASES, HOUSE_SWITCHES, house_rules_on
from .engine.events import EVENT_DOCS, EVENT_NAMES, FIELDS, REASON_DOCS, REASON_NAMES, seen_by
from .engine.named import PHASE_NAMES
from .engine.observation import COUNT_SLICES, SLICE_WORDS, ObservationSpec, phases_of

EVERY_SLICE = RuleConfig(num_players=3, deck="fashion_trend").replace(**house_rules_on())
"""A configuration with every slice and phase, for the field table (three seats: ``self``,
``seat+1``, ``seat+2``): every house rule on, so that a new one is in by itself."""

SWITCHES = {
    '`deck="fashion_trend"`': RuleConfig(num_players=3, deck="fashion_trend"),
    **{
        f"`{name}`" if name in HOUSE_SWITCHES else f"`{name}` on": RuleConfig(num_players=3).replace(**{name: value})
        for name, value in house_rules_on().items()
    },
}
"""The settings that may add slices, as the table names them, and a configuration with each:
the Fashion Trend deck and each house rule."""


def _present(name: str) -> str:
    """When slice ``name`` is in the observation: always, or with the settings that add it."""
    if name in ObservationSpec(RuleConfig(num_players=3)).by_name:
        return "always"
    adding = [words for words, config in SWITCHES.items() if name in ObservationSpec(config).by_name]
    return "with " + " or ".join(adding)


def _entries(spec: ObservationSpec, name: str) -> str:
    """What the entries of slice ``name`` stand for, read from its labels."""
    labels = spec.by_name[name].labels
    faces = tuple(card_to_str(f) for f in range(num_faces(spec.config.deck)))
    seats = tuple(f"seat+{i}" if i else "self" for i in range(spec.config.num_players))
    if labels == faces:
        return "one per card face: `R0` ... `B+2`, `W`, `W+4` (54), then `FT` with the Fashion Trend deck (55)"
    if labels == COLOURS:
        return "one per colour: `R`, `Y`, `G`, `B`"
    if labels == seats:
        return "one per seat: [0] yourself, [k] the seat k places clockwise"
    if labels == tuple(f"{s}:{c}" for s in seats for c in COLOURS):
        return "a list per seat (as above) of 4 colours `R`, `Y`, `G`, `B`"
    if labels == tuple(f"{s}:{r}" for s in seats for r in RANK_SYMBOLS):
        return "a list per seat (as above) of 13 ranks `0` ... `9`, `S`, `R`, `+2`"
    if labels == phases_of(spec.config):
        return (
            "one per phase: "
            + ", ".join(f"`{p}`" for p in labels)
            + "; the house rules' phases are there up to the last one in use ("
            + "; ".join(f"`{setting}`: to `{PHASE_NAMES[phase]}`" for phase, setting in HOUSE_PHASES.items())
            + "), so read them from `observation_labels`"
        )
    return "one number"


def _values(spec: ObservationSpec, name: str) -> str:
    """The values an entry takes, from the slice's bounds."""
    s = spec.by_name[name]
    high = s.high.astype(np.int64)
    kind = "count" if name in COUNT_SLICES and name != "direction" else "0 or 1"
    if name == "direction":
        return "-1 or +1"
    if kind == "0 or 1":
        return "0 or 1"
    if len(set(high.tolist())) > 1:
        copies = sorted({int(c) for c in deck_counts(spec.config.deck)})
        return f"0 to the copies of the face in the deck ({', '.join(map(str, copies))})"
    if name == "scores":
        return "0 up"
    if high.max() > 1:
        sizes = [int(deck_counts(deck).sum()) for deck in DECKS]
        return f"0 to the cards in the deck ({sizes[0]}; {sizes[1]} with Fashion Trend)"
    return f"0 to {int(high.max())}"


def observation_fields() -> str:
    """The table of every observation field in words: entries, values, when present, meaning."""
    spec = ObservationSpec(EVERY_SLICE)
    rows = ["| field | entries | values | present | meaning |", "|---|---|---|---|---|"]
    for s in spec.slices:
        row = [f"`{s.name}`", _entries(spec, s.name), _values(spec, s.name), _present(s.name), SLICE_WORDS[s.name]]
        rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows)


def event_fields(kind: int) -> list[str]:
    """The fields of event type ``kind`` (a play's ``colour`` included: it is there for a wild)."""
    fields = FIELDS.get(kind)
    return [] if fields is None else list(fields(0, 0, 0))


def event_table() -> str:
    """The table of every event type: when it happens and each field in words."""
    rows = ["| event | when | fields |", "|---|---|---|"]
    for kind, name in EVENT_NAMES.items():
        when, fields = EVENT_DOCS[name]
        described = "<br>".join(f"`{field}`: {fields[field]}" for field in event_fields(kind)) or "none"
        rows.append(f"| `{name}` | {when} | {described} |")
    rows += ["", "The `reason` of a `draw`:", "", "| reason | why the seat draws |", "|---|---|"]
    rows += [f"| `{reason}` | {REASON_DOCS[reason]} |" for reason in REASON_NAMES]
    return "\n".join(rows)


# ---------------------------------------------------------------------- decisions, phase by phase


@dataclass(frozen=True)
class Scenario:
    """A position, the actions taken from it, the fields worth showing, and what it teaches."""

    title: str
    caption: str
    settings: dict
    position: dict
    actions: tuple[str, ...]
    fields: tuple[str, ...] = ("phase", "hand", "top_card", "colour")


def _field(view: dict, name: str, labels: tuple[str, ...]) -> str:
    """One observation field as the transcript shows it: a face field by the faces it counts,
    a phase or colour by its label, any other field as its JSON value."""
    values = np.asarray(view[name]).reshape(-1).tolist()
    if name in ("hand", "top_card", "drawn_card", "challenge_reveal", "discard_pile"):
        return f"{name}=[{' '.join(label for label, count in zip(labels, values) for _ in range(int(count)))}]"
    if name in ("phase", "colour", "previous_colour"):
        return f"{name}={labels[values.index(1)] if 1 in values else '-'}"
    return f"{name}={json.dumps(np.asarray(view[name]).astype(np.int64).tolist())}"


def transcript(scenario: Scenario) -> str:
    """The decisions of a scenario as the seats asked see them: what each seat is asked, its
    answer, and the events that followed as that seat saw them."""
    game = Game(**scenario.settings)
    state = game.from_position(scenario.position, seed=1)
    labels = {s.name: s.labels for s in game.obs_spec.slices}
    lines = []
    for action in scenario.actions:
        seat = game.current_player(state)
        view = game.observe_dict(state, seat)
        legal = [game.action_to_string(a) for a in game.legal_actions(state)]
        if action not in legal:
            raise ValueError(f"{scenario.title}: {action!r} is not legal at seat {seat}: {legal}")
        shown = " ".join(_field(view, name, labels[name]) for name in scenario.fields)
        lines.append(f"→ seat {seat} decides: {shown}")
        lines.append(f"  legal: {', '.join(legal)}")
        events = seen_by(game.step(state, action).events, seat)
        lines.append(f'← seat {seat}: {{"action": "{action}"}}')
        lines.append(f"  events: {json.dumps(events)}")
    return "```text\n" + "\n".join(lines) + "\n```"


def _hands(n: int, *hands: str) -> list[list[str]]:
    return [hand.split() for hand in hands][:n]


SCENARIOS = (
    Scenario(
        "play: the UNO call",
        "With two cards and a card to play, `uno` is offered: calling is a decision of its own, "
        "after which the same seat is asked again (now with `uno_called=[1]` and no `uno`) and plays. "
        "Calling costs nothing. Not calling before playing the next-to-last card exposes the seat "
        '(next example). Under `uno_call="auto"` `uno` is still offered, since a seat that does not '
        'call is caught at once (2 cards, no catch window); under `uno_call="off"` it is never offered.',
        {"num_players": 2},
        {"hands": _hands(2, "R2 G5", "B1 B2 Y3"), "discard_pile": ["R7"], "current_player": 0},
        ("uno", "play R2"),
        ("phase", "hand", "top_card", "uno_called"),
    ),
    Scenario(
        'play under uno_call="auto": no call, caught at once',
        'The same position under `uno_call="auto"`, without the call: the seat is exposed and caught '
        "at once (`catcher` `null`): it draws 2, and play goes on.",
        {"num_players": 2, "uno_call": "auto"},
        {"hands": _hands(2, "R2 G5", "B1 B2 Y3"), "discard_pile": ["R7"], "current_player": 0},
        ("play R2",),
        ("phase", "hand", "uno_called"),
    ),
    Scenario(
        "catch: the catch window",
        "A seat that plays its next-to-last card without calling is exposed (`exposed` marks it, "
        "`after_window` marks whose turn comes after), and the other seats are asked in turn order, "
        "from the next one, until one answers `catch` (the exposed seat draws 2) or all have answered "
        "`pass` (it keeps its card). Catching and passing cost the catcher nothing; the exposed seat "
        "is never asked.",
        {"num_players": 3},
        {"hands": _hands(3, "R2 G5", "B1 B2 Y3", "Y4 Y5 G6"), "discard_pile": ["R7"], "current_player": 0},
        ("play R2", "pass", "catch"),
        ("phase", "hand", "exposed", "after_window"),
    ),
    Scenario(
        "challenge: a Wild Draw Four caught as a bluff",
        "The seat after a Wild Draw Four is asked to `accept` (it draws 4 and is skipped) or to "
        "`challenge`. Its player, the offender, is the seat that played the top card: the seat before "
        "you in the order of play (the one still in the game), named by the last `play` event you were "
        "sent (with stacking a catch window on it may ask you first: then in that decision's events), by "
        "`top_card_player` with `jump_in`, and as `offender` in the `challenge` or `accept` event that "
        "follows. A Wild Draw Four is honest only when its player held no card of "
        "`previous_colour`. Challenged, its player's hand is shown to the challenger (its "
        "`challenge_reveal` from then on, as the challenger's next decision shows); "
        "a bluff (`bluff: true`) costs the offender 4 cards and the "
        "challenger plays its turn; an honest play costs the challenger 6 cards (next example) "
        "and its turn. So challenging pays when the chance of a bluff is above one in three.",
        {"num_players": 2},
        {"hands": _hands(2, "W+4 R3 G1", "B1 B2 Y3"), "discard_pile": ["R7"], "current_player": 0},
        ("play W+4 B", "challenge", "play B1"),
        ("phase", "hand", "colour", "previous_colour", "challenge_reveal", "challenge_reveal_seat"),
    ),
    Scenario(
        "challenge: an honest Wild Draw Four",
        "The same, but its player held no red card: the challenge is lost (`bluff: false`) and the "
        "challenger draws 6 (reason `challenge_lost`) and is skipped.",
        {"num_players": 2},
        {"hands": _hands(2, "W+4 G3 G1", "B1 B2 Y3"), "discard_pile": ["R7"], "current_player": 0},
        ("play W+4 B", "challenge"),
        ("phase", "hand", "colour", "previous_colour"),
    ),
    Scenario(
        "color: a starting Wild",
        "When the first card turned up is a Wild, the first player names its colour (any `color` "
        "action, free) and then takes a normal turn. A Wild played from the hand names its colour in "
        "the play action itself (`play W G`): there is no separate colour decision then.",
        {"num_players": 2},
        {
            "hands": _hands(2, "G2 B5 B6", "B1 B2 Y3"),
            "discard_pile": ["W"],
            "current_player": 0,
            "phase": "color",
            "colour": None,
        },
        ("color G", "play G2"),
        ("phase", "hand", "top_card", "colour"),
    ),
    Scenario(
        "drawn: the drawn card",
        "`draw` takes one card. When it can be played, the seat is asked again in phase `drawn` "
        "(`drawn_card` shows it): `play` it, or `pass` to keep it (the turn ends). When it cannot be "
        "played, the turn ends at once (a `keep` event) and there is no decision. Only the drawn card "
        "may be played then.",
        {"num_players": 2},
        {
            "hands": _hands(2, "B5 Y2", "B1 B2 Y3"),
            "discard_pile": ["R7"],
            "draw_pile": ["R3", "..."],
            "current_player": 0,
        },
        ("draw", "pass"),
        ("phase", "hand", "drawn_card"),
    ),
    Scenario(
        "drawn under force_play and draw_until_playable",
        "With the house rule `draw_until_playable`, `draw` goes on drawing until a card can be "
        "played (one `draw` event each). With `force_play`, `pass` is not offered: a playable drawn "
        "card must be played, and when it is a coloured card and `uno` is not offered it is played "
        "at once, with no decision; a drawn Wild still asks for its colour, as here.",
        {"num_players": 2, "force_play": True, "draw_until_playable": True},
        {
            "hands": _hands(2, "B5 Y2 Y4", "B1 B2 Y3"),
            "discard_pile": ["R7"],
            "draw_pile": ["G1", "G2", "W", "..."],
            "current_player": 0,
        },
        ("draw", "play W B"),
        ("phase", "hand", "drawn_card"),
    ),
    Scenario(
        "penalty: a stack (stacking)",
        "With `stacking` on, the target of a Draw Two (or Wild Draw Four) is asked in phase `penalty`: "
        'stack a draw card on it (with `"same"` a Draw Two on a Draw Two) to pass the growing '
        "penalty on, or `accept` and draw `pending_penalty` cards (reason `penalty`) and lose the turn. "
        "On a Wild Draw Four this is also where to `challenge` it (there is no phase `challenge` with "
        "stacking on): a bluff makes its player draw the whole pending penalty and you play your turn; an "
        "honest card costs you the pending penalty plus 2 and your turn. So with P cards pending, "
        "challenging pays when the chance of a bluff is above 2 / (P + 2) (1/3 for a lone Wild Draw Four).",
        {"num_players": 2, "stacking": "same"},
        {"hands": _hands(2, "R+2 G5 G6", "B+2 B2 Y3"), "discard_pile": ["R7"], "current_player": 0},
        ("play R+2", "play B+2", "accept"),
        ("phase", "hand", "pending_penalty"),
    ),
    Scenario(
        "swap: Seven-O",
        "With `seven_o`, the player of a 7 is asked in phase `swap` whom to swap hands with: "
        "`swap k` takes the hand of the seat k places clockwise (a `swap` event, public). "
        "A 0 passes every hand on without a decision (a `rotate` event): each seat takes the hand of the "
        "seat before it in the direction of play (with `direction` +1, yours comes from `seat-1`).",
        {"num_players": 3, "seven_o": True},
        {"hands": _hands(3, "R7 G5 G6", "B1", "Y3 Y4"), "discard_pile": ["R2"], "current_player": 0},
        ("play R7", "swap 1"),
        ("phase", "hand", "hand_sizes", "next_turn"),
    ),
    Scenario(
        "jump: Jump-In",
        "With `jump_in`, after a card is played a seat that holds an identical card is asked in "
        "phase `jump` (only it knows): play that card out of turn (`jump_in`, then `play`; play "
        "goes on from the jumper) or `pass` (a `jump_pass` only it sees). Jumping in costs nothing.",
        {"num_players": 3, "jump_in": True},
        {"hands": _hands(3, "R5 G5 G6", "B1 B2", "R5 Y3 Y4"), "discard_pile": ["R2"], "current_player": 0},
        ("play R5", "play R5"),
        ("phase", "hand", "top_card_player", "next_turn"),
    ),
)


def _settings(settings: dict) -> str:
    return ", ".join(f"`{key}={json.dumps(value)}`" for key, value in settings.items())


def phase_section() -> str:
    """Every scenario: its title, what it teaches, its rules and its transcript."""
    parts = []
    for scenario in SCENARIOS:
        head = f"**{scenario.title}** ({_settings(scenario.settings)}). {scenario.caption}"
        parts += [head, transcript(scenario)]
    return "\n\n".join(parts)


# ---------------------------------------------------------------------- the example exchange

EXAMPLE_SEED = 4
EXAMPLE_HEAD, EXAMPLE_TAIL = 6, 4
"""The example shows the first ``EXAMPLE_HEAD`` messages of the exchange and its last ``EXAMPLE_TAIL``."""


class FirstLegalProgram(FollowingAgent):
    """The example's program, run in this process: it plays the first legal action (by its
    text) and keeps every message as the host sends it (``host``: built by
    :class:`~uno_env.agents.protocol.Messages`, as for a program) and as it answers
    (``program``). tests/test_protocol.py checks that a real program, run as a process, reads
    and writes the same."""

    name = "log_bot"

    def __init__(self, rules: RuleConfig | Game | None = None, seed: int = 0):
        super().__init__(rules, seed)
        self.messages = Messages(self.game)
        self.exchange: list[tuple[str, dict]] = []
        """Each message in order: who wrote it (``host`` or ``program``) and the message."""

    def game_started(self) -> None:
        self.exchange.append(("host", self.messages.hello(self.seat, self.game_seed())))
        self.exchange.append(("program", {"type": "ready", "name": self.name}))

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        self.exchange.append(("host", json.loads(self.messages.decision(obs, legal, self.take_events()))))
        action = int(np.flatnonzero(legal)[0])
        self.exchange.append(("program", {"action": self.game.actions.strings[action]}))
        return action

    def round_ended(self, events: list[dict]) -> None:
        self.exchange.append(("host", Messages.round_end(self.take_events())))

    def game_ended(self, outcome: list[int], scores: list[int]) -> None:
        self.exchange.append(("host", Messages.game_end(outcome, scores, self.take_events())))


def example_exchange() -> list[tuple[str, dict]]:
    """The example's messages, (``host`` or ``program``, message) in order: a hand of two
    players, :class:`FirstLegalProgram` at seat 0 against ``tactical``."""
    game = Game(num_players=2, episode="round")
    program = FirstLegalProgram(game, seed=7)
    game.play(game.init(seed=EXAMPLE_SEED), [program, make_agent("tactical", game, seed=1)])
    return program.exchange


def _pretty(message: dict) -> str:
    """A message as the doc shows it: a key a line, the observation and the labels a field a line."""
    items = []
    for key, value in message.items():
        if isinstance(value, dict) and key in ("observation", "observation_labels", "rules"):
            inner = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            items.append(f"  {json.dumps(key)}: {{\n{inner}\n  }}")
        else:
            items.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(items) + "\n}"


def example_section() -> str:
    """The example of docs/PROTOCOL.md: a hand of two players, the first-legal-action program
    at seat 0 against ``tactical``; its first and last messages, each one indented."""
    exchange = example_exchange()
    parts = []
    for k, (writer, message) in enumerate(exchange):
        if k == EXAMPLE_HEAD:
            parts.append(f"*({len(exchange) - EXAMPLE_HEAD - EXAMPLE_TAIL} more lines: the game goes on)*")
        if EXAMPLE_HEAD <= k < len(exchange) - EXAMPLE_TAIL:
            continue
        who = "host → program" if writer == "host" else "program → host"
        parts.append(f"{who}:\n\n```json\n{_pretty(message)}\n```")
    return "\n\n".join(parts)
