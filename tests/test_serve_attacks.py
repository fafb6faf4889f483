"""`uno serve` attacked over real sockets (tests/serve_attacks.py): a live server in this
process (uvicorn in a thread, so that its games can be counted) refuses every attack with
its status and a one-line reason, and nothing changes; a served subprocess refuses a 50 MB
body before reading it, its memory staying put, answers (the page's options, other games)
while an agent thinks for about a minute, and ends within 2 s of SIGTERM."""

from __future__ import annotations

import signal
import socket
import threading
import time

import pytest

pytest.importorskip("uvicorn", reason='uno serve needs the web extra: pip install "uno-env[web]"')

from uno_env.cli import warm  # noqa: E402
from uno_env.cli.serve import Tables  # noqa: E402

from .serve_attacks import GAME, MB, ROOT, THINKER, Served, Target, attacks, serving  # noqa: E402

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


def test_open_connections_are_bounded(thinker):
    """A hundred connections held open: the next request is refused (503), not queued in memory."""
    held = [socket.create_connection(("127.0.0.1", thinker.port)) for _ in range(100)]
    try:
        for sock in held:
            sock.sendall(b"GET /api/options HTTP/1.1\r\n")  # headers never finished
        time.sleep(0.5)
        assert thinker.request("GET", "/api/options", timeout=10).status == 503
    finally:
        for sock in held:
            sock.close()
    end = time.monotonic() + 10
    while thinker.request("GET", "/api/options", timeout=10).status != 200:
        assert time.monotonic() < end, "the server did not answer again"
        time.sleep(0.1)


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
