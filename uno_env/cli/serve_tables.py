"""The games of ``uno serve`` (:mod:`uno_env.cli.serve`): one :class:`Table` per game, the
:class:`Tables` in memory, and what a browser may ask for.

A browser seats agents by name (:data:`BROWSER_AGENTS`), with options whose cost is
capped (:data:`SEARCH_CAPS`: one ``ismcts`` decision takes at most about a second on two
cores; its rollouts play the heuristics of :data:`ROLLOUT_POLICIES`), and never names a file (``weights=``
is refused before anything is opened). The specs ``uno serve --opponents`` gave are
allowed as they are: the command line keeps its full freedom. The agents play at most
:data:`DEADLINE` seconds per request (checked between their decisions); a table whose
agents have more to play says so (``waiting``) and plays on when asked (``continue``).
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
import warnings
import zlib
from collections import OrderedDict
from typing import Any

import numpy as np

from uno_env.agents import COMPILED, agent_names, make_agent, parse_agent_spec, spec_text
from uno_env.agents.base import hash_seed
from uno_env.agents.human import PHASE_PROMPTS
from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import COLOURS, RANK_SYMBOLS, card_to_str
from uno_env.engine.config import CHOICES, setting_docs
from uno_env.engine.events import summarize
from uno_env.engine.record import Recorder, replay, start_state
from uno_env.replay import frame, replay_page, script_json

from .serve_guard import clip, excerpt

MAX_GAMES = 200
DEADLINE = 5.0  # seconds of the agents' play per request (checked between decisions)
MAX_SPECS = 16
MAX_SPEC_LENGTH = 200
BROWSER_AGENTS = (*COMPILED, "ppo", "ismcts")
SEARCH_CAPS = {"determinizations": 320, "max_rollout_steps": 2000}
"""The most a browser may give ``ismcts``: its defaults. There one searched decision took at
most 0.74 s (tactical rollouts, 10 players, house rules; 0.4 s under the official rules),
with keeper, naive or random_play rollouts 0.27 s, on a shared two-core machine."""
ROLLOUT_POLICIES = ("tactical", "keeper", "naive", "random_play")
"""The rollout policies a browser may ask for: ``random`` rollouts draw and play at random,
so hands run long (up to 4.3 s a decision at 320 samples), and ``ppo`` ones cost a network
pass a step (two players, whole games: up to 3 s a decision, that network plays averaged over
the colours; 10 players: 0.7 s)."""
ROLLOUT_OPTIONS = ("rollout", "opponent_rollout")
MAX_STEPS = 2000
"""A browser's game is cut there (the form says so; ``uno serve --set max_steps=N`` sets
more): its replay, built step by step as the game is played (about 1.5 ms a step), is
then at most about 3 MB (10 players; 1 MB at two), and the history a reload asks for is
replayed within a second. ``tactical`` plays a whole game of two in 820 steps on average
(90th percentile 1,172; docs/RL_LIBRARIES.md)."""
HUMAN = "human"


class Refused(Exception):
    """A request that is refused before anything changes: ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class OutOfTime(Exception):
    """The agents' play of one request reached its deadline (between two decisions)."""


# ---------------------------------------------------------------------- one game


def prompt(over: bool, waiting: bool, phase: str) -> str:
    """The line that tells the person what happens now."""
    if over:
        return "the game is over"
    if waiting:
        return "the agents are playing..."
    return PHASE_PROMPTS.get(phase, phase)


def first_on(values) -> int | None:
    """The index of the one-hot ``values``, None when none is on."""
    return int(np.argmax(values)) if values.any() else None


def opening_lines(game: Game, state, seat: int) -> list[str]:
    """The deal as ``seat`` saw it (the draw for the dealer left out)."""
    events = [e for e in game.events(state) if e["type"] != "dealer_draw"]
    return [line for line in summarize(events, seat) if line]


class Seen:
    """A seat's observation read in absolute seats (the observation's are relative to the observer)."""

    def __init__(self, obs: dict, seat: int, num_players: int):
        self.obs, self.seat, self.n = obs, seat, num_players

    def absolute(self, values) -> list:
        values = np.asarray(values)
        return [values[(s - self.seat) % self.n].tolist() for s in range(self.n)]

    def one_seat(self, field: str) -> int | None:
        """The seat a one-hot field names (absolute), None when the field is absent or empty."""
        if field not in self.obs or not self.obs[field].any():
            return None
        return (int(np.argmax(self.obs[field])) + self.seat) % self.n

    def scalar(self, field: str, default: int = 0) -> int:
        return int(self.obs[field][0]) if field in self.obs else default

    def table(self) -> dict:
        """The cards, counts and seats on the table."""
        obs = self.obs
        top = first_on(obs["top_card"])
        colour = first_on(obs["colour"])
        return {
            "hand": cards(obs["hand"]),
            "hand_sizes": [int(v) for v in self.absolute(obs["hand_sizes"])],
            "scores": [int(v) for v in self.absolute(obs["scores"])],
            "alive": [bool(v) for v in self.absolute(obs["alive"])],
            "dealer": self.one_seat("dealer"),
            "exposed": [bool(v) for v in self.absolute(obs["exposed"])],
            "top": card_to_str(top) if top is not None else None,
            "top_player": self.one_seat("top_card_player"),
            "colour": COLOURS[colour] if colour is not None else None,
            "direction": 1 if obs["direction"][0] >= 0 else -1,
            "draw_pile": int(obs["draw_pile_size"][0]),
            "drawn": cards(obs["drawn_card"]),
            "uno_called": bool(obs["uno_called"][0]),
            "pending_penalty": self.scalar("pending_penalty"),
            "challenge_reveal": self.challenge_reveal(),
        }

    def challenge_reveal(self) -> dict | None:
        """The hand a Wild Draw Four's challenge showed the person, and whose."""
        reveal_seat = self.one_seat("challenge_reveal_seat")
        if reveal_seat is None:
            return None
        return {"seat": reveal_seat, "cards": cards(self.obs["challenge_reveal"])}

    def trend_shown(self) -> list[dict]:
        """The cards shown to the person for their Fashion Trend, by seat."""
        obs = self.obs
        if "trend_colour" not in obs or not obs["trend_colour"].any():
            return []
        colour = COLOURS[int(np.argmax(obs["trend_colour"]))]
        shown = self.absolute(obs["trend_shown"].reshape(self.n, -1))
        return [
            {"seat": s, "card": colour + RANK_SYMBOLS[k]}
            for s, row in enumerate(shown)
            for k, on in enumerate(row)
            if on
        ]

    def last_swap(self) -> list[int]:
        """The seats whose hands the last Seven-O swap exchanged."""
        if "last_swap" not in self.obs:
            return []
        return [s for s, v in enumerate(self.absolute(self.obs["last_swap"])) if v]


def cards(counts) -> list[str]:
    """The cards of a count per card face, one string per card."""
    return [card_to_str(f) for f in range(len(counts)) for _ in range(int(counts[f]))]


class Table:
    """One game: a person at ``seat``, agents at the others, its record as it is played."""

    def __init__(self, game_id: str, config: RuleConfig, specs: list[str], seat: int, seed: int):
        self.id, self.seat, self.seed = game_id, seat, seed
        self.game = game = Game(config)
        others = [s for s in range(game.num_players) if s != seat]
        self.agents = {
            s: make_agent(specs[k % len(specs)], game, seed=hash_seed(seed, s)) for k, s in enumerate(others)
        }
        self.names = [HUMAN if s == seat else specs[others.index(s) % len(specs)] for s in range(game.num_players)]
        self.notices = list(dict.fromkeys(a.notice for a in self.agents.values() if a.notice))
        self.lock = threading.Lock()  # held while a request works on the game (serve.py)
        self.state = game.init(seed=seed)
        self.recorder = Recorder(game, self.state, agents=self.names)
        self.frames: zlib._Compress | None = zlib.compressobj(6, zlib.DEFLATED, 13, 4)  # the replay's, as played
        first = frame(game, start_state(game, self.recorder.start), None)  # as uno replay draws it: no events yet
        self.framed = [self.frames.compress(script_json(first).encode())]
        self.replay_page: bytes | None = None  # compressed, once the game is over
        self.decisions = 0  # the person's decisions so far
        self.deal = opening_lines(game, self.state, seat)
        self.recent = list(self.deal)  # the lines since the person's last decision
        self.advance()

    def on_step(self, seat: int, action: int) -> None:
        self.recorder.add(seat, action)
        self.recent += summarize(self.game.events(self.state), self.seat)
        if self.frames is not None:
            taken = {"seat": seat, "action": self.game.actions.strings[action], "annotation": None}
            self.framed.append(self.frames.compress(b"," + script_json(frame(self.game, self.state, taken)).encode()))

    def finish(self) -> None:
        """The game is over: its replay page, from the frames kept as it was played, kept compressed."""
        if self.frames is None:
            return
        listed = "[" + zlib.decompress(b"".join(self.framed) + self.frames.flush(), 13).decode() + "]"
        self.frames, self.framed = None, []
        title = f"UNO: {self.game.num_players} players, you were P{self.seat}"
        page = replay_page(self.game, title, self.names, listed, None, "__NONCE__")
        self.replay_page = zlib.compress(page.encode(), 6)

    def replay(self, nonce: str) -> str:
        """The replay page (refused until the game is over), its tags carrying ``nonce``."""
        self.record()  # the refusal
        self.finish()
        assert self.replay_page is not None
        return zlib.decompress(self.replay_page).decode().replace('nonce="__NONCE__"', f'nonce="{nonce}"')

    def waiting(self) -> bool:
        """Whether the agents have more to play before the person decides (or the game ends)."""
        return not self.game.is_over(self.state) and self.game.current_player(self.state) != self.seat

    def advance(self) -> None:
        """The agents play until the person must decide, the game is over or :data:`DEADLINE`
        seconds passed (checked after each decision: a decision's own cost is capped apart)."""
        game, state = self.game, self.state
        end = time.monotonic() + DEADLINE

        def step(seat: int, action: int) -> None:
            self.on_step(seat, action)
            if time.monotonic() > end:
                raise OutOfTime

        try:
            game.play(state, self.agents, until=self.seat, on_step=step)
            if not game.is_over(state) and not game.alive(state)[self.seat]:  # out (Challenge UNO): the rest play on
                game.play(state, self.agents, on_step=step)
        except OutOfTime:
            pass
        if game.is_over(state):  # programs (cmd: agents of --opponents) end with their game
            for agent in self.agents.values():
                getattr(agent, "close", lambda: None)()
            self.finish()

    def resume(self) -> None:
        """``continue``: the agents play on (a refusal when they have nothing to play)."""
        if not self.waiting():
            why = "the game is over" if self.game.is_over(self.state) else "it is your turn"
            raise Refused(409, f"game {self.id}: nothing to continue, {why}")
        self.advance()

    def act(self, action: Any) -> None:
        """The person's action: checked first (a refusal changes nothing), then stepped."""
        game, state = self.game, self.state
        if game.is_over(state):
            raise Refused(409, f"game {self.id}: the game is over")
        if game.current_player(state) != self.seat:
            raise Refused(409, f"game {self.id}: it is not your turn; the agents play on when asked (continue)")
        if isinstance(action, bool) or not isinstance(action, int):
            raise Refused(400, f"action: expected an action id (an integer), got {excerpt(action)}")
        legal = game.legal_actions(state)
        if action not in legal:
            what = f"{action} ({game.actions.strings[action]!r})" if 0 <= action < game.num_actions else excerpt(action)
            options = ", ".join(f"{a} {game.actions.strings[a]!r}" for a in legal)
            raise Refused(422, f"action {what} is not legal now; legal: {options}")
        self.recent = []
        game.step(state, action)
        self.decisions += 1
        self.on_step(self.seat, action)
        self.advance()

    def history(self) -> dict:
        """Every line the person's seat saw, by decision (``after``: the person's decisions
        before them), rebuilt from the record: nothing is kept but the actions."""
        lines: list[list[str]] = [list(self.deal)]  # lines[k]: after the person's k-th decision

        def add(step, seat, action, state) -> None:
            if seat == self.seat:
                lines.append([])
            lines[-1] += summarize(self.game.events(state), self.seat)

        replay(self.recorder.record(), on_step=add, game=self.game)
        return {"id": self.id, "history": [{"after": k, "lines": group} for k, group in enumerate(lines)]}

    def view(self) -> dict:
        """What the person's seat may see now (from its observation), in absolute seats."""
        game = self.game
        seen = Seen(game.observe_dict(self.state, self.seat), self.seat, game.num_players)
        return {
            "id": self.id,
            "seat": self.seat,
            "seed": self.seed,
            "players": self.names,
            "settings": game.config.in_words(),
            "partners": game.config.partners,
            "notices": self.notices,
            **seen.table(),
            "trend_shown": seen.trend_shown(),
            "last_swap": seen.last_swap(),
            "next_turn": seen.one_seat("next_turn"),
            **self.turn(),
        }

    def turn(self) -> dict:
        """Where the game stands: whose decision, what the person may do, who won."""
        game, state = self.game, self.state
        over = bool(game.is_over(state))
        phase = game.phase(state)
        acting = None if over else int(game.current_player(state))
        legal = game.legal_actions(state) if acting == self.seat else []
        waiting = self.waiting()
        return {
            "round": game.round_number(state),
            "step": game.step_count(state),
            "decisions": self.decisions,
            "phase": phase,
            "acting": acting,
            "waiting": waiting,
            "prompt": prompt(over, waiting, phase),
            "legal": [{"id": a, "text": game.actions.strings[a]} for a in legal],
            "events": list(self.recent),
            "over": over,
            "truncated": bool(game.is_truncated(state)),
            "winners": [int(w) for w in game.winners(state)] if over else [],
        }

    def record(self) -> dict:
        if not self.game.is_over(self.state):  # the record starts from the whole deck: only after the game
            raise Refused(409, f"game {self.id}: the record is offered when the game is over")
        return self.recorder.record()


# ---------------------------------------------------------------------- requests


def settings_of(body: dict, preset: dict) -> RuleConfig:
    settings = body.get("settings", {})
    if not isinstance(settings, dict):
        raise Refused(400, f"settings: expected a JSON object of rule settings, got {excerpt(settings)}")
    fields = {f.name for f in dataclasses.fields(RuleConfig)}
    unknown = sorted(set(settings) - fields)
    if unknown:
        names = clip(", ".join(unknown), 120)
        raise Refused(400, f"settings: unknown setting(s) {names}; known: {', '.join(sorted(fields))}")
    steps = settings.get("max_steps")
    most = max(MAX_STEPS, preset.get("max_steps", MAX_STEPS))
    if isinstance(steps, int) and not isinstance(steps, bool) and steps > most:
        raise Refused(400, f"settings: max_steps={excerpt(steps)}: at most {most} from the browser")
    try:
        return RuleConfig(**{"max_steps": MAX_STEPS, **preset, **settings})
    except (TypeError, ValueError) as err:
        raise Refused(400, f"settings: {clip(err)}") from None


def check_browser_spec(spec: str) -> None:
    """Refuse (400; 403 for a program) an agent spec a browser may not ask for: the module docstring."""
    name, options = parse_agent_spec(spec)  # ValueError: the caller's 400
    if name == "cmd":  # a browser never starts a program
        raise Refused(403, f"agents: {excerpt(spec)}: programs (cmd:) are named on uno serve's command line only")
    if "weights" in options:  # refused before any file is looked at: the answer says nothing of the file
        raise Refused(
            400, "agents: weights=... is refused from the browser; name network files in uno serve --opponents"
        )
    if name not in BROWSER_AGENTS:
        raise Refused(400, f"agents: the page seats {', '.join(BROWSER_AGENTS)}; uno serve --opponents seats {name}")
    check_costs(options)


def check_costs(options: dict) -> None:
    """Refuse (400) the search options a browser may not ask for: more than :data:`SEARCH_CAPS`,
    rollouts by other policies than :data:`ROLLOUT_POLICIES`."""
    for key, cap in SEARCH_CAPS.items():
        value = options.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > cap:
            raise Refused(
                400,
                f"agents: {key}={excerpt(value)} costs too much; at most {cap} from the browser "
                "(one decision in about a second; uno serve --opponents sets more)",
            )
    for key in ROLLOUT_OPTIONS:
        if key in options and options[key] not in ROLLOUT_POLICIES:
            raise Refused(400, f"agents: {key}={excerpt(options[key])}: rollouts play {', '.join(ROLLOUT_POLICIES)}")


def specs_of(body: dict, preset: list[str], browser: bool = True) -> list[str]:
    """The agent specs of a request; ``browser``: checked against what a browser may seat
    (the ``preset`` specs, from the command line, are allowed as they are)."""
    specs = listed_specs(body.get("agents", preset))
    if browser and (len(specs) > MAX_SPECS or any(len(s) > MAX_SPEC_LENGTH for s in specs)):
        raise Refused(400, f"agents: at most {MAX_SPECS} specs of {MAX_SPEC_LENGTH} characters each")
    try:
        return [check_spec(spec, preset, browser) for spec in specs]
    except ValueError as err:
        raise Refused(400, f"agents: {clip(err)}") from None


def listed_specs(specs: Any) -> list[str]:
    """The specs as a list (a string is split at commas); refused (400) when they are not strings."""
    if isinstance(specs, str):
        specs = [s.strip() for s in specs.split(",") if s.strip()]
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise Refused(400, f"agents: expected a list of agent specs such as ['tactical'], got {excerpt(specs)}")
    return specs


def check_spec(spec: str, preset: list[str], browser: bool) -> str:
    """One spec as the seat shows it: never a person; from a browser, only what it may seat,
    written back from its checked parts (ValueError: a bad spec)."""
    name, options = parse_agent_spec(spec)
    if name == HUMAN:
        raise Refused(400, "agents: 'human' is you; choose computer agents for the other seats")
    if not browser or spec in preset:
        return spec
    check_browser_spec(spec)
    return spec_text(name, options)


def integer(body: dict, key: str, default, or_none: bool = False):
    value = body.get(key, default)
    if value is None and or_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(400, f"{key}: expected an integer{' or null' if or_none else ''}, got {excerpt(value)}")
    return value


WARM_SPECS = ("random", "tactical", "ppo", "ppo:colours=average", "ppo:colours=as_seen", "ismcts:determinizations=2")


def warm_spec(spec: str) -> str:
    """``spec`` with a search budget of 2: what compiles does not depend on the budget."""
    name, options = parse_agent_spec(spec)
    return spec_text(name, {**options, "determinizations": 2}) if "determinizations" in options else spec


def warm_up(extra: list[str] = (), players=(2, 3)) -> None:  # type: ignore[assignment]
    """Play a few decisions of a small game with each agent a browser may seat (and the
    command line's ``extra`` specs, programs left out), the replay included: whatever a
    browser's game needs is compiled (or loaded from numba's cache) before the server
    says it is ready, not inside a request."""
    specs = [*WARM_SPECS, *(warm_spec(s) for s in extra if not s.strip().startswith("cmd:"))]
    for n in players:
        for k, spec in enumerate(specs):
            with warnings.catch_warnings():  # ppo outside its tables: the notice a real game shows
                warnings.simplefilter("ignore")
                table = Table(f"warm{k}", RuleConfig(num_players=n, episode="round", max_steps=40), [spec], 0, seed=k)
            while not table.game.is_over(table.state):
                if table.waiting():
                    table.resume()
                else:
                    table.act(int(table.game.legal_actions(table.state)[0]))
            table.replay("warm")
            table.history()


class Tables:
    """The games being played, by id (the newest :data:`MAX_GAMES`)."""

    def __init__(self, preset: dict | None = None, agents: list[str] | None = None, seat: int = 0):
        self.preset = dict(preset or {"num_players": 2, "episode": "round"})
        self.preset_agents = list(agents or ["tactical"])
        self.preset_seat = seat
        self.games: OrderedDict[str, Table] = OrderedDict()
        self.lock = threading.Lock()

    def options(self) -> dict:
        settings = []
        for name, default, text in setting_docs():
            kind = "bool" if isinstance(default, bool) else "int" if isinstance(default, int) else "str"
            settings.append(
                {
                    "name": name,
                    "default": default,
                    "kind": kind,
                    "choices": list(CHOICES.get(name, ())),
                    "description": text,
                }
            )
        return {
            "agents": [a for a in agent_names() if a in BROWSER_AGENTS],
            "limits": {"ismcts": dict(SEARCH_CAPS), "rollouts": list(ROLLOUT_POLICIES), "max_steps": MAX_STEPS},
            "settings": settings,
            "preset": {"settings": self.preset, "agents": self.preset_agents, "seat": self.preset_seat},
        }

    def create(self, body: Any) -> Table:
        if not isinstance(body, dict):
            raise Refused(400, f"a new game takes a JSON object (settings, agents, seat, seed), got {excerpt(body)}")
        unknown = sorted(set(body) - {"settings", "agents", "seat", "seed"})
        if unknown:
            names = clip(", ".join(unknown), 120)
            raise Refused(400, f"unknown key(s) {names}; a new game takes settings, agents, seat, seed")
        config = settings_of(body, self.preset)
        specs = specs_of(body, self.preset_agents)
        seat = integer(body, "seat", self.preset_seat)
        if not 0 <= seat < config.num_players:
            raise Refused(400, f"seat: expected a seat 0..{config.num_players - 1}, got {excerpt(seat)}")
        seed = integer(body, "seed", None, or_none=True)
        if seed is None:
            seed = secrets.randbelow(2**31)
        elif not 0 <= seed < 2**63:
            raise Refused(400, f"seed: expected 0..2**63-1, got {excerpt(seed)}")
        game_id = secrets.token_urlsafe(8)
        try:
            table = Table(game_id, config, specs, seat, seed)
        except ValueError as err:  # an agent's options (e.g. a network file that does not fit these rules)
            raise Refused(400, f"agents: {clip(err)}") from None
        with self.lock:
            self.games[game_id] = table
            while len(self.games) > MAX_GAMES:
                self.games.popitem(last=False)
        return table

    def get(self, game_id: str) -> Table:
        with self.lock:
            table = self.games.get(game_id)
        if table is None:
            raise Refused(
                404, f"unknown game {excerpt(game_id)} (the server keeps the newest {MAX_GAMES} games in memory)"
            )
        return table


__all__ = ["BROWSER_AGENTS", "DEADLINE", "MAX_GAMES", "SEARCH_CAPS", "Refused", "Table", "Tables"]
