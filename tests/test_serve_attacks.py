"""`uno serve` attacked over real sockets (tests/serve_attacks.py): a live server in this
process (uvicorn in a thread, so that its games can be counted) refuses every attack with
its status and a one-line reason, and nothing changes; a served subprocess refuses a 50 MB
body before reading it, its memory staying put, answers (the page's options, other games)
while an agent thinks for about a minute, and ends within 2 s of SIGTERM."""

from __future__ import annotations

import select
import signal
import socket
import threading
import time

import pytest

pytest.importorskip("uvicorn", reason='uno serve needs the web extra: pip install "uno-env[web]"')

from uno_env.cli import warm  # noqa: E402
from uno_env.cli.serve import Tables  # noqa: E402
from uno_env.cli.serve_http import BODY_TIMEOUT, HEAD_TIMEOUT, KEEP_ALIVE, MAX_WAITING  # noqa: E402

from .serve_attacks import (  # noqa: E402
    GAME,
    MB,
    ROOT,
    THINKER,
    Served,
    Target,
    attacks,
    held_connections,
    long_game,
    serving,
    slowloris,
)

EXPECTED = {
    "cross-origin simple POST (text/plain, Origin evil, no token)": (403, "no valid token"),
    "cross-origin POST carrying the token": (403, "Origin 'http://evil.example' is not this page's"),
    "text/plain POST with the token": (415, "Content-Type: application/json"),
    "foreign Host (DNS rebinding)": (403, "Host 'evil.example:"),
    "no token": (403, "no valid token"),
    "wrong token": (403, "no valid token"),
    "50 MB body (Content-Length)": (413, "the body is 52428800 bytes; at most 65536"),
    "50 MB body (chunked)": (413, "the body is over 65536 bytes"),
    "nesting 50,000 deep": (400, "nested more than 16 deep"),
    "an integer of 5,000 digits": (400, "not JSON"),
    "60 KB string echoed back": (400, "seed: expected an integer or null, got 'AAAA"),
    "7,000 agents (60 KB)": (400, "at most 16 specs"),
    "search budget 10^9": (400, "determinizations=1000000000 costs too much"),
    "ppo rollouts in a search": (400, "rollout='ppo'"),
    "weights=/etc/passwd (a file)": (400, "weights=... is refused from the browser"),
    "weights=/nonexistent (no file)": (400, "weights=... is refused from the browser"),
    "malformed request line": (400, "Invalid HTTP request received. This server reads HTTP/1.1"),
    "empty Host": (403, "Host '' is not this server"),
    "two Host headers": (400, "with one Host header"),
    "a 1 MB header": (400, "a request head of at most 16384 bytes"),
    "a lone surrogate as an unknown key": (400, "body: a key holds a lone surrogate U+D800"),
    "a lone surrogate as a setting's name": (400, "settings: a key holds a lone surrogate U+D800"),
    "a lone surrogate in a repeated option": (400, "agents[0]: a lone surrogate U+D800 at character 15"),
    "a control character in a spec": (400, "agents[0]: a control character U+0000"),
    "markup in a repeated option": (400, "rollout='<img src=x onerror=alert(1)>': expected a compiled policy"),
    "a repeated option": (400, "option 'rollout' is given twice"),
    "<!--<script> as a value": (400, "colours='<!--<script>': expected average or as_seen"),
    "an unknown option": (400, "agent 'tactical' takes no options, got 'x'"),
    "a 20,000-step game": (400, "max_steps=20000: at most 2000 from the browser"),
    "two Origin headers (the page's last)": (400, "the header origin is sent twice"),
    "10,000 headers in one write": (431, "at most 16384 in 64"),
    "a 100 KB URL in one write": (431, "at most 16384 in 64"),
}


@pytest.fixture(scope="module")
def live():
    """A live server in a thread of this process, and its tables (to count the games)."""
    tables = Tables({"num_players": 2, "episode": "round"}, ["tactical"])
    with serving(tables) as target:
        yield target, tables


def test_every_attack_is_listed():
    assert [name for name, _ in attacks(Target("127.0.0.1", 1, None))] == list(EXPECTED)


@pytest.mark.parametrize("name", EXPECTED)
def test_an_attack_is_refused_with_one_line_and_changes_nothing(live, name):
    target, tables = live
    watched = target.request("POST", "/api/games", GAME).json()
    table = tables.get(watched["id"])
    before = (target.request("GET", f"/api/games/{watched['id']}").body, list(table.recorder.actions))
    count = len(tables.games)
    answer = dict(attacks(target))[name]()
    status, words = EXPECTED[name]
    assert answer.status == status and words in answer.reason, answer
    assert "\n" not in answer.reason and answer.size < 300
    assert answer.headers.get("x-content-type-options") == "nosniff" and "frame-ancestors 'none'" in answer.headers.get(
        "content-security-policy", ""
    )
    assert len(tables.games) == count
    assert (target.request("GET", f"/api/games/{watched['id']}").body, list(table.recorder.actions)) == before


def test_the_two_weights_refusals_are_the_same(live):
    """Whether the file exists does not show: a file and no file get the same answer."""
    target, _ = live
    named = dict(attacks(target))
    answers = [named[name]() for name in ("weights=/etc/passwd (a file)", "weights=/nonexistent (no file)")]
    assert answers[0].status == answers[1].status == 400 and answers[0].body == answers[1].body


@pytest.fixture(scope="module")
def thinker():
    """``uno serve`` whose preset agent thinks for about a minute a decision (the command line may seat it).
    The search and the engine are compiled here first (a no-op once numba's cache holds them): a
    first compilation in the server holds the GIL for tens of seconds, and the test would stop
    the server before it could write the cache."""
    warm.engine()
    warm.search()
    served = Served(ROOT, ("--players", "2", "--opponents", THINKER))
    yield served
    served.stop()


def test_a_big_body_is_refused_before_it_is_read(thinker):
    thinker.request("POST", "/api/games", GAME)  # what a game needs is loaded: the memory below is the attack's
    rss, peak = thinker.memory_kb()
    for chunked in (False, True):
        answer = thinker.upload("/api/games", 50 * MB, chunked=chunked)
        assert answer.status == 413, answer
    after, peak_after = thinker.memory_kb()
    assert peak_after - peak < 8 * 1024 and after - rss < 8 * 1024  # kB: far below the 50 MB sent


def test_idle_and_stalled_connections_do_not_lock_the_page_out(thinker):
    """200 connections that never send a byte and 100 POSTs with the token stalled
    mid-body, all open: the page's next request is served (not a 503)."""
    answer = held_connections(thinker)
    assert answer.status == 200 and "agents" in answer.json(), answer


def closed_within(socks: list[socket.socket], seconds: float) -> list[float | None]:
    """Per socket, the seconds until the server closed it (None: still open after ``seconds``)."""
    start, closed = time.monotonic(), [None] * len(socks)
    while None in closed and time.monotonic() - start < seconds:
        open_ones = [s for k, s in enumerate(socks) if closed[k] is None]
        for sock in select.select(open_ones, [], [], 0.5)[0]:
            try:
                ended = sock.recv(65536) == b""
            except OSError:
                ended = True
            if ended:
                closed[socks.index(sock)] = time.monotonic() - start
    return closed


def test_every_phase_of_a_connection_has_a_deadline(live):
    """A stalled body (with the token) is closed after BODY_TIMEOUT, a connection idle after
    its answer after KEEP_ALIVE, a silent one after HEAD_TIMEOUT (with room for a busy machine)."""
    target, _ = live
    stalled, idle, silent = (socket.create_connection(("127.0.0.1", target.port)) for _ in range(3))
    head = target.headers({"Content-Type": "application/json", "Content-Length": "100"}, True)
    stalled.sendall(
        ("POST /api/games HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items()) + "\r\n{").encode()
    )
    idle.sendall(target.head())
    idle.recv(65536)  # the answer (small: one read); then nothing more is sent
    try:
        closed = closed_within([stalled, idle, silent], max(BODY_TIMEOUT, HEAD_TIMEOUT) + 30)
    finally:
        for sock in (stalled, idle, silent):
            sock.close()
    assert None not in closed, closed
    assert closed[1] >= KEEP_ALIVE / 2 and closed[2] >= HEAD_TIMEOUT / 2, closed  # not closed early either


def test_a_new_connection_closes_the_oldest_waiting_one(live):
    """MAX_WAITING + 10 silent connections: the 10 oldest are closed at once, the newest kept."""
    target, _ = live
    socks = []
    try:
        for _ in range(MAX_WAITING + 10):
            socks.append(socket.create_connection(("127.0.0.1", target.port)))
            time.sleep(0.005)  # in order
        closed = closed_within(socks, 5.0)
    finally:
        for sock in socks:
            sock.close()
    assert all(c is not None for c in closed[:10]) and all(c is None for c in closed[-MAX_WAITING + 10 :]), closed


def test_slowloris_while_the_page_plays_a_game(thinker):
    """150 connections sending a request head a header a second: the page plays a whole game
    meanwhile, every answer a success, and the server closes every slow connection (within
    the head's deadline, with room for a busy machine)."""
    loris = slowloris(thinker, count=150, patience=HEAD_TIMEOUT + 30)
    answers = loris["answers"]
    assert answers[-1].json()["over"] and {a.status for a in answers} <= {200, 201}, answers[-1]
    assert None not in loris["closed"], loris["closed"]


def test_a_game_is_cut_at_the_step_cap_and_its_replay_is_kept(thinker):
    """A browser's game runs to 2000 steps at most (the form says so); its replay was built as
    it was played: the second request answers the same page, in bounded size."""
    answers, replays = long_game(thinker)
    last = answers[-1].json()
    assert last["over"] and last["step"] <= 2000
    assert [r.status for r in replays] == [200, 200] and replays[0].size == replays[1].size < 3 * MB
    limits = thinker.request("GET", "/api/options").json()["limits"]
    assert limits["max_steps"] == 2000


def test_the_first_game_of_each_browser_agent_is_compiled_already(thinker):
    """The server warmed every agent a browser may seat before it printed its address (its
    first ``ppo:colours=average`` game took 14.3 s when it compiled inside the request): a
    first game of each is answered (the seconds: ``python tests/serve_attacks.py``)."""
    for spec in ("ppo:colours=average", "ppo:colours=as_seen", "ismcts:determinizations=8"):
        assert thinker.request("POST", "/api/games", dict(GAME, agents=[spec], seat=1), timeout=120).status == 201


def test_sigterm_ends_the_server_within_2_s_while_an_agent_thinks(thinker):
    answers: list = []
    game = {"settings": {"num_players": 2}, "agents": [THINKER], "seat": 1, "seed": 1}  # the person first

    def play():
        view = thinker.request("POST", "/api/games", game, timeout=60).json()
        answers.append(view)
        answers.append(thinker.request("POST", f"/api/games/{view['id']}/action", {"action": view["legal"][0]["id"]}))

    threading.Thread(target=play, daemon=True).start()
    end = time.monotonic() + 60
    while not answers:
        assert time.monotonic() < end, "the game was not created"
        time.sleep(0.05)
    time.sleep(1.0)
    assert len(answers) == 1  # the person played; the agent thinks (a minute: the action has no answer yet)
    assert thinker.request("GET", "/api/options", timeout=30).status == 200  # the server still answers,
    other = thinker.request("POST", "/api/games", dict(GAME, agents=["tactical"]), timeout=30)
    assert other.status == 201  # and other games are played meanwhile
    view = other.json()
    played = thinker.request("POST", f"/api/games/{view['id']}/action", {"action": view["legal"][0]["id"]}, timeout=30)
    assert played.status == 200 and played.json()["decisions"] == 1
    assert len(answers) == 1
    thinker.process.send_signal(signal.SIGTERM)
    thinker.process.wait(timeout=2)  # TimeoutExpired: it did not end within 2 s
    assert thinker.process.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM)
