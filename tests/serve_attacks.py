"""Attacks on a running ``uno serve``, over real sockets (http.client and raw sockets).

Each attack makes one request an attacker could make: from another web page in the same
browser (a cross-origin "simple" POST, which needs no CORS preflight), by DNS rebinding (a
foreign ``Host``), from a script on the machine (no token, a wrong one), or with the token
but a harmful body (50 MB, nesting 50,000 deep, an integer of 5,000 digits, a search
budget of 10^9, a weights path). ``tests/test_serve_attacks.py`` runs them against a live
server and checks each refusal and that nothing changed.

``python tests/serve_attacks.py [--root DIR]`` starts ``python -m uno_env.cli serve`` from
the checkout ``DIR`` (default: this one) and prints the table of answers: status, the
one-line reason, seconds, the size of the answer, the server's resident memory after the
attack and its peak (``VmRSS``, ``VmHWM`` of ``/proc/PID/status``). Only what every version
of ``uno serve`` has is used (a token is sent when the printed address carries one), so the
same script measures an older commit. The last rows start a game whose agent thinks for
about a minute (a budget only the command line may set), time ``/api/options`` meanwhile, and
send SIGTERM: the seconds until the process ended (or ``kill -9`` after 5 s).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# about a minute a decision (20 us a determinization of a 2p deal on a 2-CPU machine): one-step
# rollouts value every candidate alike, so the racing never ends the search early and all the
# determinizations are played (the command line may seat it, a browser may not)
THINKER = "ismcts:determinizations=3000000:max_rollout_steps=1"
MB = 1 << 20


@dataclass
class Answer:
    status: int  # 0: no answer (the connection failed or timed out)
    reason: str  # the answer's one-line reason (its JSON "error", else its first line)
    seconds: float
    size: int = 0  # bytes of the answer's body
    headers: dict = field(default_factory=dict)
    body: bytes = b""

    def json(self):
        return json.loads(self.body)


def reason_of(body: bytes) -> str:
    try:
        data = json.loads(body)
        text = str(data.get("error", "")) if isinstance(data, dict) else ""
    except ValueError:
        text = ""
    if not text:
        text = body.decode("utf-8", "replace").strip().split("\n", 1)[0]
    return text


class Target:
    """A server at ``host:port``; requests carry ``token`` (header ``X-Uno-Token``) when it is set."""

    def __init__(self, host: str, port: int, token: str | None):
        self.host, self.port, self.token = host, port, token

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def headers(self, extra: dict | None, token: bool) -> dict:
        headers = {"Host": f"{self.host}:{self.port}"}
        if token and self.token:
            headers["X-Uno-Token"] = self.token
        headers.update(extra or {})
        return {k: v for k, v in headers.items() if v is not None}

    def request(self, method, path, body=None, headers=None, token=True, timeout=30.0) -> Answer:
        """One request; ``body``: bytes, or JSON data sent as ``application/json``."""
        extra = dict(headers or {})
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            extra.setdefault("Content-Type", "application/json")
        start = time.perf_counter()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for key, value in self.headers(extra, token).items():
                connection.putheader(key, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            data = response.read()
            return Answer(
                response.status,
                reason_of(data),
                time.perf_counter() - start,
                len(data),
                {k.lower(): v for k, v in response.getheaders()},
                data,
            )
        except (OSError, http.client.HTTPException) as err:
            return Answer(0, f"no answer: {type(err).__name__} {err}", time.perf_counter() - start)
        finally:
            connection.close()

    def raw(self, data: bytes, timeout: float = 30.0) -> Answer:
        """``data`` sent as it is in one write (a request h11 may not even read); the answer as sent."""
        start = time.perf_counter()
        try:
            with socket.create_connection((self.host, self.port), timeout=timeout) as sock:
                sock.sendall(data)
                response = http.client.HTTPResponse(sock)
                response.begin()
                body = response.read()
                headers = {k.lower(): v for k, v in response.getheaders()}
                return Answer(response.status, reason_of(body), time.perf_counter() - start, len(body), headers, body)
        except (OSError, http.client.HTTPException) as err:
            return Answer(0, f"no answer: {type(err).__name__} {err}", time.perf_counter() - start)

    def head(self, path: str = "/api/options", lines: tuple[str, ...] = (), token: bool = True) -> bytes:
        """A GET's head with this server's Host (and token), and ``lines`` added."""
        named = [f"{k}: {v}" for k, v in self.headers(None, token).items()]
        return ("\r\n".join([f"GET {path} HTTP/1.1", *named, *lines]) + "\r\n\r\n").encode("latin-1")

    def upload(self, path: str, total: int, chunked: bool, prefix: bytes = b'{"seed": "', timeout=60.0) -> Answer:
        """POST ``total`` bytes of JSON, streamed (never held whole), with Content-Length or
        chunked; the answer is read as soon as it comes, while the body is still being sent."""
        headers = self.headers({"Content-Type": "application/json", "Connection": "close"}, True)
        if chunked:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(total)
        head = f"POST {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        start = time.perf_counter()
        stop = threading.Event()

        def send():
            try:
                sock.sendall(head.encode())
                sent, block = 0, b"A" * (64 * 1024)
                while sent < total and not stop.is_set():
                    piece = (prefix + block)[: min(len(block), total - sent)] if sent == 0 else block
                    piece = piece[: total - sent]
                    sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                    sent += len(piece)
                if chunked and not stop.is_set():
                    sock.sendall(b"0\r\n\r\n")
            except OSError:
                pass  # the server closed the connection: it read no more

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        try:
            response = http.client.HTTPResponse(sock)
            response.begin()
            seconds = time.perf_counter() - start
            data = response.read()
            return Answer(response.status, reason_of(data), seconds, len(data), dict(response.getheaders()), data)
        except (OSError, http.client.HTTPException) as err:
            return Answer(0, f"no answer: {type(err).__name__} {err}", time.perf_counter() - start)
        finally:
            stop.set()
            sock.close()
            sender.join(timeout=5)


class Served(Target):
    """``python -m uno_env.cli serve --port 0 ARGS`` from the checkout ``root``, in a subprocess."""

    def __init__(self, root: Path = ROOT, args=("--players", "2", "--opponents", "tactical")):
        env = dict(os.environ, PYTHONPATH=str(root))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uno_env.cli", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=root,
        )
        line = self.process.stdout.readline()  # printed once the port is bound
        if "playing at " not in line:
            self.process.kill()
            raise RuntimeError(f"uno serve did not start: {line!r} {self.process.stderr.read()[-2000:]}")
        self.url = line.split("playing at ", 1)[1].split()[0]
        parts = urllib.parse.urlsplit(self.url)
        token = urllib.parse.parse_qs(parts.query).get("token", [None])[0]
        super().__init__(parts.hostname, parts.port, token)

    def memory_kb(self) -> tuple[int, int]:
        """The server's resident memory now and its peak (kB)."""
        fields = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else "0"
        return int(fields.get("VmRSS", 0)), int(fields.get("VmHWM", 0))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.process.stdout, self.process.stderr):
            if stream:
                stream.close()


@contextlib.contextmanager
def serving(tables):
    """``uno_env.cli.serve.app_for(tables)`` served by uvicorn in a thread of this process, on
    127.0.0.1 at a free port: real sockets, with the games at hand. Yields a :class:`Target`."""
    import uvicorn

    from uno_env.cli.serve import app_for
    from uno_env.cli.serve_http import server_config

    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    app = app_for(tables, port=port)
    server = uvicorn.Server(server_config(app))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield Target("127.0.0.1", port, app.token)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# ---------------------------------------------------------------------- the attacks

GAME = {"settings": {"num_players": 2}, "agents": ["tactical"], "seat": 0, "seed": 5}  # seat 0 plays first
JSON = {"Content-Type": "application/json"}
EVIL = "http://evil.example"


def attacks(target: Target) -> list[tuple[str, object]]:
    """(name, a call making the attack and returning its Answer), for ``target``."""
    json_type = {"Content-Type": "application/json"}
    return [
        (
            "cross-origin simple POST (text/plain, Origin evil, no token)",
            lambda: target.request(
                "POST",
                "/api/games",
                b"{}",
                {"Content-Type": "text/plain", "Origin": EVIL, "Sec-Fetch-Site": "cross-site"},
                token=False,
            ),
        ),
        (
            "cross-origin POST carrying the token",
            lambda: target.request("POST", "/api/games", GAME, {"Origin": EVIL, "Sec-Fetch-Site": "cross-site"}),
        ),
        (
            "text/plain POST with the token",
            lambda: target.request("POST", "/api/games", b"{}", {"Content-Type": "text/plain"}),
        ),
        (
            "foreign Host (DNS rebinding)",
            lambda: target.request("GET", "/api/options", headers={"Host": f"evil.example:{target.port}"}),
        ),
        ("no token", lambda: target.request("GET", "/api/options", token=False)),
        ("wrong token", lambda: target.request("GET", "/api/options", headers={"X-Uno-Token": "guess"})),
        ("50 MB body (Content-Length)", lambda: target.upload("/api/games", 50 * MB, chunked=False)),
        ("50 MB body (chunked)", lambda: target.upload("/api/games", 50 * MB, chunked=True)),
        ("nesting 50,000 deep", lambda: target.request("POST", "/api/games", b"[" * 50_000, json_type)),
        (
            "an integer of 5,000 digits",
            lambda: target.request("POST", "/api/games", b'{"seed": ' + b"9" * 5000 + b"}", json_type),
        ),
        ("60 KB string echoed back", lambda: target.request("POST", "/api/games", {"seed": "A" * 60_000})),
        (
            "7,000 agents (60 KB)",
            lambda: target.request("POST", "/api/games", {"agents": ",".join(["tactical"] * 7000)}),
        ),
        (
            "search budget 10^9",
            lambda: target.request("POST", "/api/games", dict(GAME, agents=["ismcts:determinizations=1000000000"])),
        ),
        (
            "ppo rollouts in a search",
            lambda: target.request("POST", "/api/games", dict(GAME, agents=["ismcts:rollout=ppo"])),
        ),
        (
            "weights=/etc/passwd (a file)",
            lambda: target.request("POST", "/api/games", dict(GAME, agents=["ppo:weights=/etc/passwd"])),
        ),
        (
            "weights=/nonexistent (no file)",
            lambda: target.request("POST", "/api/games", dict(GAME, agents=["ppo:weights=/nonexistent"])),
        ),
        *server_errors(target),
        *malformed_text(target),
        *bad_specs(target),
        ("a 20,000-step game", lambda: target.request("POST", "/api/games", dict(GAME, settings={"max_steps": 20000}))),
        (
            "two Origin headers (the page's last)",
            lambda: target.raw(target.head(lines=(f"Origin: {EVIL}", f"Origin: {target.origin}"))),
        ),
        (
            "10,000 headers in one write",
            lambda: target.raw(target.head(lines=tuple(f"X-{k}: a" for k in range(10_000)))),
        ),
        ("a 100 KB URL in one write", lambda: target.raw(target.head("/api/options?" + "a" * 100_000))),
    ]


def server_errors(target: Target) -> list[tuple[str, object]]:
    """Requests that uvicorn's h11 refuses itself, before the application sees them."""
    return [
        ("malformed request line", lambda: target.raw(b"GARBAGE\r\n\r\n")),
        ("empty Host", lambda: target.raw(b"GET /api/options HTTP/1.1\r\nHost:\r\n\r\n")),
        ("two Host headers", lambda: target.raw(target.head(lines=(f"Host: evil.example:{target.port}",)))),
        ("a 1 MB header", lambda: target.raw(target.head(lines=("X-Big: " + "a" * MB,)))),
    ]


def malformed_text(target: Target) -> list[tuple[str, object]]:
    """Lone surrogates and control characters where a request carries text (JSON escapes: valid JSON)."""
    post = target.request
    return [
        ("a lone surrogate as an unknown key", lambda: post("POST", "/api/games", b'{"\\ud800": 1}', JSON)),
        (
            "a lone surrogate as a setting's name",
            lambda: post("POST", "/api/games", b'{"settings": {"\\ud800": 1}}', JSON),
        ),
        (
            "a lone surrogate in a repeated option",
            lambda: post("POST", "/api/games", b'{"agents": ["ismcts:rollout=\\ud800:rollout=tactical"]}', JSON),
        ),
        ("a control character in a spec", lambda: post("POST", "/api/games", {"agents": ["tactical\x00"]})),
    ]


def bad_specs(target: Target) -> list[tuple[str, object]]:
    """Agent specs a browser might send to put markup in a seat's name, or to confuse the parser."""
    game = dict(GAME)
    return [
        (
            "markup in a repeated option",
            lambda: target.request(
                "POST",
                "/api/games",
                dict(game, agents=["ismcts:rollout=<img src=x onerror=alert(1)>:rollout=tactical"]),
            ),
        ),
        (
            "a repeated option",
            lambda: target.request("POST", "/api/games", dict(game, agents=["ismcts:rollout=keeper:rollout=tactical"])),
        ),
        (
            "<!--<script> as a value",
            lambda: target.request("POST", "/api/games", dict(game, agents=["ppo:colours=<!--<script>"])),
        ),
        ("an unknown option", lambda: target.request("POST", "/api/games", dict(game, agents=["tactical:x=1"]))),
    ]


def creations(served: Served, count: int = 2000) -> str:
    """``count`` games created one after another (each a legitimate request): the server's
    memory before and after (the games in memory are bounded)."""
    before, _ = served.memory_kb()
    statuses = {served.request("POST", "/api/games", dict(GAME, seed=k)).status for k in range(count)}
    after, peak = served.memory_kb()
    return (
        f"statuses {sorted(statuses)}; VmRSS {before / 1024:.0f} -> {after / 1024:.0f} MB, VmHWM {peak / 1024:.0f} MB"
    )


def play_out(target: Target, game: dict, requests: int = 400, timeout: float = 60.0) -> list[Answer]:
    """A game as the page plays it (always the first legal action): its answers, at most ``requests``."""
    answers = [target.request("POST", "/api/games", game, timeout=timeout)]
    while answers[-1].status in (200, 201) and len(answers) < requests:
        view = answers[-1].json()
        if view["over"]:
            break
        if view["waiting"]:
            answers.append(target.request("POST", f"/api/games/{view['id']}/continue", {}, timeout=timeout))
        else:
            action = {"action": view["legal"][0]["id"]}
            answers.append(target.request("POST", f"/api/games/{view['id']}/action", action, timeout=timeout))
    return answers


def slowloris(target: Target, count: int = 150, patience: float = 40.0) -> dict:
    """``count`` connections that send a request head a header a second, never ending it,
    while the page plays a whole game: the game's answers, and when the server closed the
    slow connections (seconds after they opened; None: still open after ``patience`` s)."""
    socks = [socket.create_connection((target.host, target.port), timeout=5) for _ in range(count)]
    opened = time.monotonic()
    closed: list[float | None] = [None] * count
    stop = threading.Event()

    def trickle():
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.sendall(f"GET /api/options HTTP/1.1\r\nHost: {target.host}:{target.port}\r\n".encode())
        while not stop.is_set() and None in closed and time.monotonic() - opened < patience:
            for k, sock in enumerate(socks):
                if closed[k] is None:
                    try:
                        sock.sendall(b"X-Slow: a\r\n")
                    except OSError:
                        closed[k] = time.monotonic() - opened
            stop.wait(1.0)

    sender = threading.Thread(target=trickle, daemon=True)
    sender.start()
    try:
        time.sleep(1.0)
        start = time.perf_counter()
        answers = play_out(target, GAME)
        played = time.perf_counter() - start
        sender.join(timeout=patience + 10)
    finally:
        stop.set()
        for sock in socks:
            sock.close()
    return {"answers": answers, "seconds": played, "closed": closed}


def held_connections(target: Target, count: int = 200, stalled_bodies: int = 100) -> Answer:
    """``count`` connections that never send a byte and ``stalled_bodies`` POSTs with the
    token that stop mid-body, all open, then one request of the page."""
    held = [socket.create_connection((target.host, target.port)) for _ in range(count)]
    head = target.headers({"Content-Type": "application/json", "Content-Length": "100"}, True)
    text = "POST /api/games HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n{"
    try:
        for _ in range(stalled_bodies):
            sock = socket.create_connection((target.host, target.port))
            held.append(sock)
            sock.sendall(text.encode())
        time.sleep(0.5)
        return target.request("GET", "/api/options", timeout=10)
    finally:
        for sock in held:
            sock.close()


def long_game(target: Target) -> tuple[list[Answer], list[Answer]]:
    """A game of four players to the browser's step cap (random agents, whole games: it is
    cut there), then its replay twice: the answers of the play and of the replays."""
    settings = {"num_players": 4, "episode": "game", "target_score": 10000, "max_steps": 2000}
    game = {"settings": settings, "agents": ["random"], "seed": 3}
    answers = play_out(target, dict(game, seat=0), requests=2000)
    view = answers[-1].json() if answers[-1].status in (200, 201) else {}
    replays = [target.request("GET", f"/api/games/{view.get('id')}/replay", timeout=60) for _ in range(2)]
    return answers, replays


def thinking(served: Served) -> list[tuple[str, Answer | str]]:
    """A game whose agent thinks for about a minute (``THINKER``, seated from the preset), then
    ``/api/options`` meanwhile, then SIGTERM: the rows of the table."""
    rows: list[tuple[str, Answer | str]] = []
    started: list[Answer] = []
    game = {"settings": {"num_players": 2}, "agents": [THINKER], "seat": 1, "seed": 1}

    def create_and_play():
        answer = served.request("POST", "/api/games", game, timeout=120)
        started.append(answer)
        if answer.status == 201:  # the person first: play, then the agent thinks
            view = answer.json()
            if view["legal"]:
                served.request(
                    "POST", f"/api/games/{view['id']}/action", {"action": view["legal"][0]["id"]}, timeout=120
                )

    threading.Thread(target=create_and_play, daemon=True).start()
    time.sleep(3.0)
    rows.append(("/api/options while an agent thinks", served.request("GET", "/api/options", timeout=5)))
    start = time.perf_counter()
    served.process.send_signal(signal.SIGTERM)
    try:
        served.process.wait(timeout=5)
        rows.append(("SIGTERM while an agent thinks", f"exited in {time.perf_counter() - start:.2f} s"))
    except subprocess.TimeoutExpired:
        served.process.kill()
        rows.append(("SIGTERM while an agent thinks", "still running after 5 s (kill -9)"))
    return rows


def figure_rows(served: Served) -> list[str]:
    """The rows of the attacks that take time: slowloris while a game is played, a game to
    the step cap and its replay, the first game of each agent that compiles."""
    rows = []
    loris = slowloris(served)
    statuses = sorted({a.status for a in loris["answers"]})
    slowest = max(a.seconds for a in loris["answers"])
    closed = [c for c in loris["closed"] if c is not None]
    rows.append(
        f"| slowloris: 150 slow heads while the page plays a game | {statuses} | "
        f"{len(loris['answers'])} requests, slowest {slowest:.2f} s; {len(closed)} of 150 closed by the server, "
        f"the last after {max(closed, default=0):.1f} s | {loris['seconds']:.2f} | | "
        f"{served.memory_kb()[0] / 1024:.0f} | |"
    )
    for spec in ("ppo:colours=average", "ppo:colours=as_seen", "ismcts"):
        answer = served.request("POST", "/api/games", dict(GAME, agents=[spec], seat=1), timeout=120)
        rows.append(f"| first {spec} game | {answer.status} | | {answer.seconds:.2f} | | | |")
    answers, replays = long_game(served)
    last = answers[-1].json() if answers[-1].status in (200, 201) else {}
    rows.append(
        f"| a 4-player game to the step cap ({len(answers)} requests) | {answers[-1].status} | "
        f"step {last.get('step')}, truncated {last.get('truncated')}, slowest "
        f"{max(a.seconds for a in answers):.2f} s | {sum(a.seconds for a in answers):.1f} | | | |"
    )
    for k, answer in enumerate(replays):
        rss, peak = served.memory_kb()
        rows.append(
            f"| its replay ({'first' if k == 0 else 'again'}) | {answer.status} | | {answer.seconds:.2f} | "
            f"{answer.size} | {rss / 1024:.0f} | {peak / 1024:.0f} |"
        )
    return rows


def table(root: Path) -> str:
    lines = ["| attack | status | reason (first 70 characters) | s | answer bytes | VmRSS after MB | VmHWM MB |"]
    lines.append("|---|---|---|---|---|---|---|")
    served = Served(root, ("--players", "2", "--opponents", f"tactical,{THINKER}"))
    try:
        served.request("POST", "/api/games", GAME)  # compiles what a game needs: the figures below are the attacks'
        for name, attack in attacks(served):
            answer = attack()
            rss, peak = served.memory_kb()
            reason = answer.reason[:70].replace("|", "/")
            lines.append(
                f"| {name} | {answer.status} | {reason} | {answer.seconds:.2f} | {answer.size} | "
                f"{rss / 1024:.0f} | {peak / 1024:.0f} |"
            )
        answer = held_connections(served)
        lines.append(
            f"| 200 silent connections and 100 stalled bodies, then a request | {answer.status} | "
            f"{answer.reason[:70]} | {answer.seconds:.2f} | {answer.size} | {served.memory_kb()[0] / 1024:.0f} | |"
        )
        lines += figure_rows(served)
        lines.append(f"| 2,000 game creations | | {creations(served)} | | | | |")
    finally:
        served.stop()
    served = Served(root, ("--players", "2", "--opponents", THINKER))
    try:
        for name, result in thinking(served):
            if isinstance(result, Answer):
                reason = result.reason[:70].replace("|", "/")
                lines.append(f"| {name} | {result.status} | {reason} | {result.seconds:.2f} | {result.size} | | |")
            else:
                lines.append(f"| {name} | | {result} | | | | |")
    finally:
        served.stop()
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose uno serve is attacked")
    args = parser.parse_args(argv)
    print(table(args.root.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
