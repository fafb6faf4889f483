"""``uno serve``: a table in the browser, where a person plays against agents.

    uno serve                                   # http://127.0.0.1:8000/
    uno serve --port 8080 --opponents ppo,tactical --players 3 --set stacking=mixed

The options preset the page's form (any agent spec that ``uno tournament`` takes, every
rule setting); the page can change them before each game. The person sees only what
their seat may see (their own hand, the others' card counts, what they were shown), the
events between their decisions as their seat saw them, and the legal actions as cards
and buttons: nothing else is offered. When the game is over the page offers the game's
record (JSON, :mod:`uno_env.engine.record`) and its replay (:mod:`uno_env.replay`).

The JSON API (every refusal is a 4xx answer ``{"error": "..."}`` naming the problem,
and changes nothing):

| method, path | what |
|---|---|
| `GET /api/options` | agent names, the rule settings with their defaults, choices and descriptions, the form's preset |
| `POST /api/games` | a new game: `{"settings": {...}, "agents": [spec], "seat": 0, "seed": 7}` -> the view, its `id` |
| `GET /api/games/{id}` | the person's view: table, hand, decision, legal actions, events since the last decision |
| `POST /api/games/{id}/action` | `{"action": id}`: one legal action id; the agents then play up to the next decision |
| `GET /api/games/{id}/record` | the record (JSON download), once the game is over |
| `GET /api/games/{id}/replay` | the replay page, once the game is over |

``settings`` are RuleConfig fields with JSON values (those left out: the server's preset,
from ``uno serve``'s options); ``uno_env.agents`` the specs of the other seats in seat order,
repeated in turn (like ``uno play --opponents``; a program, ``cmd:...``, only as named in
``--opponents``: the page never starts another); ``seed`` ``null`` draws one (shown in
the view). The record and the replay are refused until the game is over: a record
starts from the whole deck. The games
live in memory, the newest :data:`MAX_GAMES`; each has its own id, so two browser tabs
play two games.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import secrets
import socket
import sys
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.agents import agent_names, make_agent, parse_agent_spec
from uno_env.agents.base import hash_seed
from uno_env.agents.human import PHASE_PROMPTS
from uno_env.cli.play import add_rule_arguments, rule_config
from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import COLOURS, DECKS, RANK_SYMBOLS, card_to_str
from uno_env.engine.config import EPISODES, ILLEGAL_ACTIONS, REWARDS, SCORINGS, STACKINGS, UNO_CALLS, setting_docs
from uno_env.engine.events import summarize
from uno_env.engine.record import Recorder

PAGE = Path(__file__).parent / "data" / "serve.html"
MAX_GAMES = 200
CHOICES = {
    "deck": DECKS,
    "scoring": SCORINGS,
    "uno_call": UNO_CALLS,
    "illegal_action": ILLEGAL_ACTIONS,
    "episode": EPISODES,
    "reward": REWARDS,
    "stacking": STACKINGS,
}
HUMAN = "human"
PROGRAM = "cmd"


class Refused(Exception):
    """A request that is refused before anything changes: ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------- one game


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
        self.lock = threading.Lock()
        self.state = game.init(seed=seed)
        self.recorder = Recorder(game, self.state, agents=self.names)
        self.decisions = 0  # the person's decisions so far
        self.recent: list[str] = [
            line for line in summarize([e for e in game.events(self.state) if e["type"] != "dealer_draw"], seat) if line
        ]
        self.advance()

    def on_step(self, seat: int, action: int) -> None:
        self.recorder.add(seat, action)
        self.recent += summarize(self.game.events(self.state), self.seat)

    def advance(self) -> None:
        """The agents play until the person must decide or the game is over."""
        game, state = self.game, self.state
        game.play(state, self.agents, until=self.seat, on_step=self.on_step)
        if not game.is_over(state) and not game.alive(state)[self.seat]:  # out (Challenge UNO): the rest play on
            game.play(state, self.agents, on_step=self.on_step)
        if game.is_over(state):  # programs (cmd:) end with their game
            for agent in self.agents.values():
                getattr(agent, "close", lambda: None)()

    def act(self, action: Any) -> None:
        """The person's action: checked first (a refusal changes nothing), then stepped."""
        game, state = self.game, self.state
        if game.is_over(state):
            raise Refused(409, f"game {self.id}: the game is over")
        if game.current_player(state) != self.seat:  # cannot happen between requests; checked all the same
            raise Refused(409, f"game {self.id}: it is not your turn")
        if isinstance(action, bool) or not isinstance(action, int):
            raise Refused(400, f"action: expected an action id (an integer), got {action!r}")
        legal = game.legal_actions(state)
        if action not in legal:
            what = f"{action} ({game.actions.strings[action]!r})" if 0 <= action < game.num_actions else str(action)
            options = ", ".join(f"{a} {game.actions.strings[a]!r}" for a in legal)
            raise Refused(422, f"action {what} is not legal now; legal: {options}")
        self.recent = []
        game.step(state, action)
        self.decisions += 1
        self.on_step(self.seat, action)
        self.advance()

    def view(self) -> dict:
        """What the person's seat may see now (from its observation), in absolute seats."""
        game, state, seat = self.game, self.state, self.seat
        n = game.num_players
        obs = game.observe_dict(state, seat)

        def absolute(values) -> list:  # the observation's seats are relative to the observer
            values = np.asarray(values)
            return [values[(s - seat) % n].tolist() for s in range(n)]

        def cards(counts) -> list[str]:
            return [card_to_str(f) for f in range(len(counts)) for _ in range(int(counts[f]))]

        def one_seat(field: str) -> int | None:
            if field not in obs or not obs[field].any():
                return None
            return (int(np.argmax(obs[field])) + seat) % n

        over = bool(game.is_over(state))
        phase = game.phase(state)
        acting = None if over else int(game.current_player(state))
        legal = game.legal_actions(state) if acting == seat else []
        top = int(np.argmax(obs["top_card"])) if obs["top_card"].any() else None
        colour = int(np.argmax(obs["colour"])) if obs["colour"].any() else None
        reveal_seat = one_seat("challenge_reveal_seat")
        trend = []
        if "trend_colour" in obs and obs["trend_colour"].any():
            trend_colour = COLOURS[int(np.argmax(obs["trend_colour"]))]
            shown = absolute(obs["trend_shown"].reshape(n, -1))
            trend = [
                {"seat": s, "card": trend_colour + RANK_SYMBOLS[k]}
                for s in range(n)
                for k, on in enumerate(shown[s])
                if on
            ]
        return {
            "id": self.id,
            "seat": seat,
            "seed": self.seed,
            "players": self.names,
            "settings": game.config.in_words(),
            "partners": game.config.partners,
            "hand": cards(obs["hand"]),
            "hand_sizes": [int(v) for v in absolute(obs["hand_sizes"])],
            "scores": [int(v) for v in absolute(obs["scores"])],
            "alive": [bool(v) for v in absolute(obs["alive"])],
            "dealer": one_seat("dealer"),
            "exposed": [bool(v) for v in absolute(obs["exposed"])],
            "top": card_to_str(top) if top is not None else None,
            "top_player": one_seat("top_card_player"),
            "colour": COLOURS[colour] if colour is not None else None,
            "direction": 1 if obs["direction"][0] >= 0 else -1,
            "draw_pile": int(obs["draw_pile_size"][0]),
            "drawn": cards(obs["drawn_card"]),
            "uno_called": bool(obs["uno_called"][0]),
            "pending_penalty": int(obs["pending_penalty"][0]) if "pending_penalty" in obs else 0,
            "challenge_reveal": {"seat": reveal_seat, "cards": cards(obs["challenge_reveal"])}
            if reveal_seat is not None
            else None,
            "trend_shown": trend,
            "last_swap": [s for s, v in enumerate(absolute(obs["last_swap"])) if v] if "last_swap" in obs else [],
            "next_turn": one_seat("next_turn"),
            "round": game.round_number(state),
            "step": game.step_count(state),
            "decisions": self.decisions,
            "phase": phase,
            "acting": acting,
            "prompt": "the game is over" if over else PHASE_PROMPTS.get(phase, phase),
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
        raise Refused(400, f"settings: expected a JSON object of rule settings, got {settings!r}")
    fields = {f.name for f in dataclasses.fields(RuleConfig)}
    unknown = sorted(set(settings) - fields)
    if unknown:
        raise Refused(400, f"settings: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(fields))}")
    try:
        return RuleConfig(**{**preset, **settings})
    except (TypeError, ValueError) as err:
        raise Refused(400, f"settings: {err}") from None


def specs_of(body: dict, preset: list[str]) -> list[str]:
    specs = body.get("agents", preset)
    if isinstance(specs, str):
        specs = [s.strip() for s in specs.split(",") if s.strip()]
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise Refused(400, f"agents: expected a list of agent specs such as ['tactical'], got {specs!r}")
    for spec in specs:
        try:
            name, _ = parse_agent_spec(spec)
        except ValueError as err:
            raise Refused(400, f"agents: {err}") from None
        if name == HUMAN:
            raise Refused(400, "agents: 'human' is you; choose computer agents for the other seats")
    return specs


def integer(body: dict, key: str, default):
    value = body.get(key, default)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise Refused(400, f"{key}: expected an integer, got {value!r}")
    return value


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
            "agents": [a for a in agent_names() if a not in (HUMAN, PROGRAM)],
            "settings": settings,
            "preset": {"settings": self.preset, "agents": self.preset_agents, "seat": self.preset_seat},
        }

    def create(self, body: Any) -> Table:
        if not isinstance(body, dict):
            raise Refused(400, f"a new game takes a JSON object (settings, agents, seat, seed), got {body!r}")
        unknown = sorted(set(body) - {"settings", "agents", "seat", "seed"})
        if unknown:
            raise Refused(400, f"unknown key(s) {', '.join(unknown)}; a new game takes settings, agents, seat, seed")
        config = settings_of(body, self.preset)
        specs = specs_of(body, self.preset_agents)
        for spec in specs:  # the page may choose the programs of the command line, never start another
            if parse_agent_spec(spec)[0] == PROGRAM and spec not in self.preset_agents:
                raise Refused(403, f"agents: {spec!r}: programs (cmd:) are named on uno serve's command line only")
        seat = integer(body, "seat", self.preset_seat)
        if not 0 <= seat < config.num_players:
            raise Refused(400, f"seat: expected a seat 0..{config.num_players - 1}, got {seat}")
        seed = integer(body, "seed", None)
        if seed is None:
            seed = secrets.randbelow(2**31)
        elif not 0 <= seed < 2**63:
            raise Refused(400, f"seed: expected 0..2**63-1, got {seed}")
        game_id = secrets.token_urlsafe(8)
        try:
            table = Table(game_id, config, specs, seat, seed)
        except ValueError as err:  # an agent's options (e.g. a network file that does not fit these rules)
            raise Refused(400, f"agents: {err}") from None
        with self.lock:
            self.games[game_id] = table
            while len(self.games) > MAX_GAMES:
                self.games.popitem(last=False)
        return table

    def get(self, game_id: str) -> Table:
        with self.lock:
            table = self.games.get(game_id)
        if table is None:
            raise Refused(404, f"unknown game {game_id!r} (the server keeps the newest {MAX_GAMES} games in memory)")
        return table


def app_for(tables: Tables | None = None):
    """The Starlette application of ``tables`` (a fresh set by default)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    from uno_env.replay import page_with_cards, to_html

    tables = tables if tables is not None else Tables()
    page = page_with_cards(PAGE)

    def refusing(handler):
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except Refused as why:
                return JSONResponse({"error": str(why)}, status_code=why.status)

        return endpoint

    async def body_of(request: Request) -> Any:
        raw = await request.body()
        try:
            return json.loads(raw or b"{}")
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise Refused(400, f"the request's body is not JSON ({err})") from None

    async def run(function, *args):  # the game's work in a worker thread: the server answers others meanwhile
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(function, *args)

    async def index(request: Request) -> Response:
        return HTMLResponse(page)

    async def options(request: Request) -> Response:
        return JSONResponse(tables.options())

    async def create(request: Request) -> Response:
        body = await body_of(request)
        table = await run(tables.create, body)
        return JSONResponse(table.view(), status_code=201)

    def locked(table: Table, function, *args):
        with table.lock:
            return function(*args)

    async def view(request: Request) -> Response:
        table = tables.get(request.path_params["game"])
        return JSONResponse(await run(locked, table, table.view))

    async def act(request: Request) -> Response:
        table = tables.get(request.path_params["game"])
        body = await body_of(request)
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise Refused(400, f'an action is a JSON object {{"action": id}}, got {body!r}')

        def step():
            table.act(body["action"])
            return table.view()

        return JSONResponse(await run(locked, table, step))

    async def record(request: Request) -> Response:
        table = tables.get(request.path_params["game"])
        record = await run(locked, table, table.record)
        return Response(
            json.dumps(record, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="uno-{table.id}.json"'},
        )

    async def replay(request: Request) -> Response:
        table = tables.get(request.path_params["game"])
        record = await run(locked, table, table.record)
        title = f"UNO: {table.game.num_players} players, you were P{table.seat}"
        return HTMLResponse(await run(to_html, record, title))

    routes = [
        Route("/", index),
        Route("/api/options", refusing(options)),
        Route("/api/games", refusing(create), methods=["POST"]),
        Route("/api/games/{game}", refusing(view)),
        Route("/api/games/{game}/action", refusing(act), methods=["POST"]),
        Route("/api/games/{game}/record", refusing(record)),
        Route("/api/games/{game}/replay", refusing(replay)),
    ]
    return Starlette(routes=routes)


# ---------------------------------------------------------------------- the command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno serve", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: a free one)")
    add_rule_arguments(parser, "round")
    parser.add_argument(
        "--opponents", default="tactical", help="the form's agents for the other seats, comma-separated, in turn"
    )
    parser.add_argument("--seat", type=int, default=0, help="the form's seat for you (default 0)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = rule_config(args)
        agents = specs_of({"agents": args.opponents}, [])
        if not 0 <= args.seat < config.num_players:
            raise ValueError(f"--seat {args.seat}: expected a seat 0..{config.num_players - 1}")
    except (ValueError, Refused) as err:
        parser.error(str(err))
    defaults = RuleConfig().to_dict()  # the form's preset: the settings the options changed, and the table's size
    preset = {k: v for k, v in config.to_dict().items() if v != defaults[k] or k == "num_players"}
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        print("uno serve: needs Starlette and uvicorn: pip install -e '.[web]'", file=sys.stderr)
        return 2
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    try:
        listening = socket.create_server((args.host, args.port), family=family)
    except (OSError, OverflowError) as err:
        parser.error(f"--host {args.host} --port {args.port}: {getattr(err, 'strerror', None) or err}")
    port = listening.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app_for(Tables(preset, agents, args.seat)), log_level="warning"))
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(f"uno serve: playing at http://{host}:{port}/  (Ctrl-C ends it)", flush=True)
    server.run(sockets=[listening])  # uvicorn shuts down cleanly on Ctrl-C, then the uno command says so
    return 0


__all__ = ["MAX_GAMES", "Refused", "Table", "Tables", "app_for", "main"]
