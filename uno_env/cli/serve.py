"""``uno serve``: a table in the browser, where a person plays against agents.

    uno serve                                   # prints http://127.0.0.1:8000/?token=...: open it
    uno serve --port 8080 --opponents ppo,tactical --players 3 --set stacking=mixed

The options preset the page's form (any agent spec that ``uno tournament`` takes, weights
files included, every rule setting); the page can change them before each game, within
what a browser may ask for (below). The person sees only what their seat may see (their
own hand, the others' card counts, what they were shown), the events as their seat saw
them, and the legal actions as cards and buttons: nothing else is offered. When the game
is over the page offers the game's record (JSON, :mod:`uno_env.engine.record`) and its
replay (:mod:`uno_env.replay`).

Only the page may drive the server (:mod:`uno_env.cli.serve_guard`). It listens on
127.0.0.1 unless ``--host`` says otherwise; ``uno serve`` prints the address to open, ``http://127.0.0.1:PORT/?token=T``
with a secret token ``T`` (fresh each start; ``--token`` sets it). Opening it sets the
cookie ``uno-token-PORT`` (HttpOnly, SameSite=Strict) and redirects to ``/``, as Jupyter
does; scripts send the header ``X-Uno-Token: T`` instead. Every request needs the token
and a ``Host`` of this server (127.0.0.1, localhost, [::1], the ``--host`` address and the
``--allow-host`` names, with its port); a POST must come from the page's own origin, be
``Content-Type: application/json`` and at most 64 KB, nested at most 16 deep, its text
free of lone surrogates and control characters. A request names ``Host``, ``Origin``
and the other headers the guard reads once, in a head of at most 16 KB and 64 headers.
Each answer, uvicorn's own refusals included, carries a Content-Security-Policy that
runs only the page's own code, with ``frame-ancestors 'none'``,
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and
``Cache-Control: no-store``, and a body of one line of JSON (the page and the replay
excepted).

A connection has 10 s to send a request head (from its opening or its last answer), 10 s
more for the body, and is kept 5 s idle; at most 64 wait without a request in flight,
and a new one closes the oldest of them (:mod:`uno_env.cli.serve_http`): idle or slow
connections, however many, never keep the page from being served. Whatever a browser's
game may need is compiled (or loaded from numba's cache) before the address is printed.

The JSON API (every refusal is a 4xx answer ``{"error": "..."}``, one line naming the
problem (the field, for malformed text) and quoting at most a short excerpt of the
input, and changes nothing; 403: the host, token or origin, 413: too large, 415: not
JSON, 431: a head too large, 503 with ``Retry-After``: the game still busy with an
earlier request after 30 s):

| method, path | what |
|---|---|
| `GET /api/options` | agent names, the browser's limits, the rule settings (defaults, choices, words), the preset |
| `POST /api/games` | a new game: `{"settings": {...}, "agents": [spec], "seat": 0, "seed": 7}` -> the view, its `id` |
| `GET /api/games/{id}` | the person's view: table, hand, decision, legal actions, recent events, `notices`, `waiting` |
| `GET /api/games/{id}/log` | every event line the person saw, by decision (the page's log after a reload) |
| `POST /api/games/{id}/action` | `{"action": id}`: one legal action id; the agents then play up to the next decision |
| `POST /api/games/{id}/continue` | `{}`: the agents play on, when the view said `waiting` |
| `GET /api/games/{id}/record` | the record (JSON download), once the game is over |
| `GET /api/games/{id}/replay` | the replay page, once the game is over |

``settings`` are RuleConfig fields with JSON values (those left out: the server's preset,
from ``uno serve``'s options; ``max_steps`` at most 2000 from a browser, its default
there, unless ``--set max_steps=N`` says more); ``agents`` the
specs of the other seats in seat order, repeated in turn (like ``uno play --opponents``):
from a browser the compiled agents, ``ppo`` (no ``weights=``: files are named on the
command line only) and ``ismcts`` with at most its default budget (``determinizations``
320, ``max_rollout_steps`` 2000, rollouts by tactical, keeper, naive or random_play: a
decision in about a second), or exactly a spec of ``--opponents`` (a program, ``cmd:...``,
only so: the page never starts another); ``seed`` ``null`` draws one (shown in the view). The
agents think in worker threads, at most 5 s per request (checked between decisions): a
view with ``waiting`` true asks for ``continue``. ``notices``: what the agents' builders
warned of (``ppo`` outside the tables it was trained for). The record and the replay are
refused until the game is over: a record starts from the whole deck; the replay is built
as the game is played and kept (compressed) once it is over. An agent spec from a browser
is read strictly (an option given twice, one the agent does not take, or a value outside
what it takes is refused, naming the option) and its seat shows it written back from
those checked parts. The games live in
memory, the newest ``MAX_GAMES``; each has its own id, so two browser tabs play two
games. Ctrl-C or SIGTERM ends the server within about a second, whatever it is doing.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import sys
import threading

import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse

from uno_env.cli.args import add_rule_arguments, rule_config
from uno_env.engine import RuleConfig

from .serve_api import Api, Workers
from .serve_guard import FAILED, Guard
from .serve_http import server_config
from .serve_tables import MAX_GAMES, Refused, Table, Tables, specs_of, warm_up

EXIT_GRACE = 1.0  # seconds between Ctrl-C / SIGTERM and the end of the process, whatever runs


def app_for(
    tables: Tables | None = None,
    token: str | None = None,
    port: int = 8000,
    hosts=(),
    workers=None,
) -> Guard:
    """The ASGI application of ``tables`` (a fresh set by default): the Starlette app of
    :class:`uno_env.cli.serve_api.Api` behind its :class:`~uno_env.cli.serve_guard.Guard`
    (``token``: a fresh one by default, as ``.token``; ``port`` and ``hosts``: what requests
    must name in ``Host``), the games' work in ``workers``' threads (a
    :class:`~uno_env.cli.serve_api.Workers`)."""
    api = Api(tables if tables is not None else Tables(), workers if workers is not None else Workers())
    failed = {Exception: lambda request, err: JSONResponse({"error": FAILED}, status_code=500)}
    return Guard(Starlette(routes=api.routes(), exception_handlers=failed), token=token, port=port, hosts=hosts)


# ---------------------------------------------------------------------- the command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno serve", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: a free one)")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the page may be opened by (e.g. this machine's name or address with --host 0.0.0.0)",
    )
    parser.add_argument("--token", default=None, help="the secret the page needs (default: a fresh random one)")
    add_rule_arguments(parser, "round")
    parser.add_argument(
        "--opponents",
        default="tactical",
        help="the form's agents for the other seats, comma-separated, in turn (any spec, weights files included)",
    )
    parser.add_argument("--seat", type=int, default=0, help="the form's seat for you (default 0)")
    return parser


def exit_soon(sig: int) -> None:
    """End the process :data:`EXIT_GRACE` seconds from now, whatever is still running then
    (a search in a worker thread cannot be interrupted)."""

    def end() -> None:
        print("\nuno serve: interrupted", file=sys.stderr, flush=True)
        os._exit(128 + sig)

    timer = threading.Timer(EXIT_GRACE, end)
    timer.daemon = True
    timer.start()


class Server(uvicorn.Server):
    """uvicorn's server, ended :data:`EXIT_GRACE` seconds after a signal at the latest; the
    signal that stopped it is ``stopped_by`` (the command's exit status says so), not raised
    again after the shutdown as uvicorn does (that raise raced with asyncio's own Ctrl-C
    handling, and the command sometimes ended with status 0)."""

    stopped_by: int | None = None

    def handle_exit(self, sig: int, frame) -> None:
        if not self.should_exit:
            self.stopped_by = sig
            exit_soon(sig)
        super().handle_exit(sig, frame)
        getattr(self, "_captured_signals", []).clear()  # uvicorn (0.29 on) raises these again after the shutdown


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = rule_config(args)
        agents = specs_of({"agents": args.opponents}, [], browser=False)
        if not 0 <= args.seat < config.num_players:
            raise ValueError(f"--seat {args.seat}: expected a seat 0..{config.num_players - 1}")
        if args.token is not None and (len(args.token) < 8 or not args.token.isprintable() or " " in args.token):
            raise ValueError("--token: at least 8 printable characters, no spaces")
    except (ValueError, Refused) as err:
        parser.error(str(err))
    defaults = RuleConfig().to_dict()  # the form's preset: the settings the options changed, and the table's size
    preset = {k: v for k, v in config.to_dict().items() if v != defaults[k] or k == "num_players"}
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    try:
        listening = socket.create_server((args.host, args.port), family=family)
    except (OSError, OverflowError) as err:
        parser.error(f"--host {args.host} --port {args.port}: {getattr(err, 'strerror', None) or err}")
    port = listening.getsockname()[1]
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    workers = Workers()
    tables = Tables(preset, agents, args.seat)
    app = app_for(tables, args.token or secrets.token_urlsafe(24), port, [host, *args.allow_host], workers)

    warm_up(agents, (config.num_players,))  # compiled (or loaded from numba's cache) before the address is shown
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else host
    print(f"uno serve: playing at {app.address(shown)}  (open it; Ctrl-C ends it)", flush=True)
    server = Server(server_config(app))
    server.run(sockets=[listening])
    if server.stopped_by is None:
        return 0
    print("\nuno serve: interrupted", file=sys.stderr, flush=True)
    if workers.busy:
        os._exit(128 + server.stopped_by)  # a worker thread still thinking: no waiting for it
    return 128 + server.stopped_by  # 130 for Ctrl-C, 143 for SIGTERM


__all__ = ["MAX_GAMES", "Refused", "Table", "Tables", "app_for", "main"]
