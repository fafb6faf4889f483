"""`uno serve` (uno_env/cli/serve.py): the JSON API through Starlette's TestClient (whole
games, every refusal leaving the game unchanged, independent games, records that
replay), the browser's limits, the guard's refusals, and the command itself (its address
with the token, Ctrl-C). The attacks over real sockets: tests/test_serve_attacks.py; the
page in a real browser: tests/test_serve_page.py."""

import collections
import dataclasses
import json
import re
import signal
import warnings

import pytest

pytest.importorskip("starlette", reason='uno serve needs the web extra: pip install "uno-env[web]"')
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2 under its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from uno_env.cli.serve import MAX_GAMES, Tables, app_for  # noqa: E402
from uno_env.engine import Game, RuleConfig  # noqa: E402
from uno_env.engine.record import replay  # noqa: E402
from uno_env.replay import to_html  # noqa: E402

from .serve_attacks import ROOT, Served  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

RULES = {"num_players": 3, "episode": "round", "stacking": "mixed", "seven_o": True, "jump_in": True}
GAME = {"settings": RULES, "agents": ["tactical", "keeper"], "seat": 1, "seed": 11}


@pytest.fixture()
def tables():
    return Tables()


@pytest.fixture()
def app(tables):
    return app_for(tables)


@pytest.fixture()
def client(app):
    """A client of the page's own origin, holding the token (as the page's cookie does)."""
    return TestClient(app, base_url="http://127.0.0.1:8000", headers={"X-Uno-Token": app.token})


def play_first_legal(client, view, bound=2000):
    """Always the first legal action until the game is over; the views on the way."""
    views = [view]
    while not view["over"]:
        assert len(views) < bound, "the game did not end"
        response = client.post(f"/api/games/{view['id']}/action", json={"action": view["legal"][0]["id"]})
        assert response.status_code == 200, response.text
        view = response.json()
        views.append(view)
    return views


def test_a_whole_seeded_game_through_the_api(client, tables):
    created = client.post("/api/games", json=GAME)
    assert created.status_code == 201, created.text
    views = play_first_legal(client, created.json())
    table = tables.get(views[0]["id"])
    game = table.game
    for view in views[:-1]:  # the person decides each time the server answers
        assert view["acting"] == 1 and view["legal"] and view["phase"] != "over"
        assert len(view["hand"]) == view["hand_sizes"][1]
        assert all(a["text"] == game.actions.strings[a["id"]] for a in view["legal"])
    last = views[-1]
    assert (
        last["over"] and last["legal"] == [] and last["winners"] and last["players"] == ["tactical", "human", "keeper"]
    )
    assert sorted(last["hand"]) == sorted(game.position(table.state)["hands"][1])  # the seat's own cards, no more
    # the record: the person's actions where the person acted, and it replays to the same end
    record = client.get(f"/api/games/{last['id']}/record")
    assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
    record = record.json()
    mine = [a for a, s in zip(record["actions"], record["seats"]) if s == 1]
    assert mine == [v["legal"][0]["id"] for v in views[:-1]] and len(mine) == last["decisions"]
    assert game.position(replay(record)) == game.position(table.state)
    page = client.get(f"/api/games/{last['id']}/replay")
    assert page.status_code == 200 and "<svg" not in page.text.split("<script", 1)[0]  # drawn by the page's script
    nonce = page.headers["content-security-policy"].split("'nonce-", 1)[1].split("'", 1)[0]
    assert f'<script nonce="{nonce}" id="data" type="application/json">' in page.text  # the policy's own
    # the page built as the game was played is the page of its record, and it is kept (not rebuilt)
    title = f"UNO: 3 players, you were P{table.seat}"
    assert page.text == to_html(record, title, None, nonce)
    kept = table.replay_page
    assert client.get(f"/api/games/{last['id']}/replay").status_code == 200 and table.replay_page is kept
    # one seed, one game
    again = play_first_legal(client, client.post("/api/games", json=GAME).json())
    assert [v["hand"] for v in again] == [v["hand"] for v in views]
    assert [v["events"] for v in again] == [v["events"] for v in views]


def test_a_seat_shows_its_spec_written_back_from_checked_parts(client):
    spec = "ismcts:determinizations=064:rollout=keeper:bluff_prior=.5"
    view = client.post("/api/games", json={"agents": [spec], "seed": 5}).json()
    assert view["players"] == ["human", "ismcts:determinizations=64:rollout=keeper:bluff_prior=0.5"]


def test_the_view_is_what_the_seat_may_see(client, tables):
    view = client.post("/api/games", json=dict(GAME, seed=3)).json()
    table = tables.get(view["id"])
    position = table.game.position(table.state)
    assert sorted(view["hand"]) == sorted(position["hands"][1])
    assert view["hand_sizes"] == [len(h) for h in position["hands"]]
    assert not {"hands", "deck", "position", "draw_pile_cards"} & set(view)
    # a draw by another seat shows as a count, a draw of one's own with its card
    views = play_first_legal(client, view)
    lines = [line for v in views for line in v["events"]]
    others = [line for line in lines if line.startswith(("P0 draws", "P2 draws"))]
    assert others and all("card" in line for line in others)


def test_every_decision_of_the_rules_comes_to_the_person(client):
    """Random legal choices under the house rules: each phase reaches the person, and every
    card that a legal action plays is in the person's hand (where the page offers it)."""
    import random

    phases: set[str] = set()
    for seed in range(60):
        rules = {
            "num_players": 3 + seed % 3,
            "episode": "round",
            "stacking": ("off", "same", "mixed")[seed % 3],
            "seven_o": True,
            "jump_in": seed % 2 == 0,
            "deck": "fashion_trend" if seed % 4 == 0 else "classic",
        }
        view = client.post("/api/games", json={"settings": rules, "agents": ["tactical", "random"], "seed": seed})
        view = view.json()
        choose = random.Random(seed)
        while not view["over"]:
            phases.add(view["phase"])
            plays = [a["text"].split()[1] for a in view["legal"] if a["text"].startswith("play ")]
            assert set(plays) <= set(view["hand"]), (view["phase"], plays, view["hand"])
            action = choose.choice(view["legal"])["id"]
            view = client.post(f"/api/games/{view['id']}/action", json={"action": action}).json()
        if phases >= {"play", "drawn", "color", "challenge", "catch", "penalty", "swap", "jump"}:
            break
    assert phases == {"play", "drawn", "color", "challenge", "catch", "penalty", "swap", "jump"}


def test_settings_agents_seat_and_seed_are_chosen(client):
    settings = {"num_players": 4, "partners": True, "deck": "fashion_trend", "uno_call": "auto", "episode": "round"}
    view = client.post("/api/games", json={"settings": settings, "agents": "random,naive", "seat": 3}).json()
    assert view["players"] == ["random", "naive", "random", "human"] and view["partners"] and view["seat"] == 3
    assert isinstance(view["seed"], int) and "Fashion Trend deck" in view["settings"]
    options = client.get("/api/options").json()
    assert "human" not in options["agents"] and {"tactical", "ppo", "ismcts"} <= set(options["agents"])
    by_name = {s["name"]: s for s in options["settings"]}
    assert set(by_name) == set(RuleConfig().to_dict()) and by_name["stacking"]["choices"] == ["off", "same", "mixed"]
    assert by_name["seven_o"]["kind"] == "bool" and by_name["target_score"]["default"] == 500


def snapshot(client, tables, game_id):
    table = tables.get(game_id)
    return client.get(f"/api/games/{game_id}").json(), table.game.position(table.state), list(table.recorder.actions)


REFUSALS = [
    # (what, method, path or None for the game's action path, body, status, words in the error)
    ("unknown game", "post", "/api/games/nope/action", {"action": 0}, 404, "unknown game 'nope'"),
    ("unknown game's view", "get", "/api/games/nope", None, 404, "unknown game"),
    ("garbage JSON", "post", None, b"{not json", 400, "not JSON"),
    ("not an object", "post", None, [3], 400, '{"action": id}'),
    ("an extra key", "post", None, {"action": 0, "also": 1}, 400, '{"action": id}'),
    ("a text action", "post", None, {"action": "draw"}, 400, "an action id (an integer)"),
    ("a boolean action", "post", None, {"action": True}, 400, "an action id (an integer)"),
    ("out of range", "post", None, {"action": 10**6}, 422, "1000000 is not legal now"),
    ("record too early", "get", "record", None, 409, "when the game is over"),
    ("replay too early", "get", "replay", None, 409, "when the game is over"),
    ("continue on your turn", "post", "continue", {}, 409, "nothing to continue, it is your turn"),
    ("continue with a body", "post", "continue", {"action": 1}, 400, "an empty JSON object"),
    ("a number too long", "post", None, b'{"action": ' + b"1" * 5000 + b"}", 400, "not JSON"),
    ("a lone surrogate", "post", None, b'{"action": "\\ud800"}', 400, "action: a lone surrogate U+D800"),
    ("garbage JSON game", "post", "/api/games", b"[1,", 400, "not JSON"),
    ("a list game", "post", "/api/games", [1], 400, "a JSON object"),
    ("unknown key", "post", "/api/games", {"seats": 1}, 400, "unknown key(s) seats"),
    ("unknown setting", "post", "/api/games", {"settings": {"decks": "x"}}, 400, "unknown setting(s) decks"),
    ("bad setting", "post", "/api/games", {"settings": {"stacking": "all"}}, 400, "stacking='all'"),
    ("bad setting type", "post", "/api/games", {"settings": {"num_players": "3"}}, 400, "num_players='3'"),
    ("settings not an object", "post", "/api/games", {"settings": [1]}, 400, "settings: expected a JSON object"),
    ("unknown agent", "post", "/api/games", {"agents": ["tactics"]}, 400, "unknown agent 'tactics'"),
    ("bad agent option", "post", "/api/games", {"agents": ["tactical:depth=3"]}, 400, "takes no options"),
    ("a human agent", "post", "/api/games", {"agents": ["human"]}, 400, "'human' is you"),
    ("no agents", "post", "/api/games", {"agents": []}, 400, "agents: expected a list"),
    ("seat out of range", "post", "/api/games", {"seat": 2}, 400, "seat: expected a seat 0..1"),
    ("seed not an integer", "post", "/api/games", {"seed": "x"}, 400, "seed: expected an integer"),
    ("negative seed", "post", "/api/games", {"seed": -1}, 400, "seed: expected 0..2**63-1"),
]


@pytest.mark.parametrize("what, method, path, body, status, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_bad_request_is_refused_and_changes_nothing(client, tables, what, method, path, body, status, words):
    game_id = client.post("/api/games", json=GAME).json()["id"]
    before = snapshot(client, tables, game_id)
    count = len(tables.games)
    if path is None:
        path = f"/api/games/{game_id}/action"
    elif not path.startswith("/"):
        path = f"/api/games/{game_id}/{path}"
    raw = {"content": body, "headers": {"Content-Type": "application/json"}}
    kwargs = {} if body is None else raw if isinstance(body, bytes) else {"json": body}
    response = getattr(client, method)(path, **kwargs)
    assert response.status_code == status, response.text
    assert words in response.json()["error"]
    after = snapshot(client, tables, game_id)
    assert json.dumps(after, sort_keys=True, default=repr) == json.dumps(before, sort_keys=True, default=repr)
    assert len(tables.games) == count


def test_an_illegal_action_is_refused_naming_it_and_the_legal_ones(client, tables):
    view = client.post("/api/games", json=GAME).json()
    legal = {a["id"] for a in view["legal"]}
    illegal = next(a for a in range(tables.get(view["id"]).game.num_actions) if a not in legal)
    before = snapshot(client, tables, view["id"])
    response = client.post(f"/api/games/{view['id']}/action", json={"action": illegal})
    assert response.status_code == 422
    error = response.json()["error"]
    assert f"action {illegal} (" in error and all(f"{a} " in error for a in legal)
    assert snapshot(client, tables, view["id"]) == before
    done = play_first_legal(client, view)[-1]
    over = client.post(f"/api/games/{view['id']}/action", json={"action": 0})
    assert over.status_code == 409 and "the game is over" in over.json()["error"]
    assert client.get(f"/api/games/{view['id']}").json() == done


def test_two_games_are_independent(client, tables):
    first = client.post("/api/games", json=GAME).json()
    second = client.post("/api/games", json=GAME).json()
    assert first["id"] != second["id"] and first["hand"] == second["hand"]
    played = play_first_legal(client, first)
    assert client.get(f"/api/games/{second['id']}").json() == second  # untouched by the other's moves
    rest = play_first_legal(client, second)
    assert [v["hand"] for v in rest] == [v["hand"] for v in played]  # the same seed: the same game, separately
    assert tables.get(first["id"]).state is not tables.get(second["id"]).state


def test_old_games_are_let_go(client, tables, monkeypatch):
    monkeypatch.setattr("uno_env.cli.serve_tables.MAX_GAMES", 2)
    ids = [client.post("/api/games", json=dict(GAME, seed=s)).json()["id"] for s in range(3)]
    assert list(tables.games) == ids[1:]
    assert client.get(f"/api/games/{ids[0]}").status_code == 404
    assert MAX_GAMES > 2


def test_the_page_carries_its_script_and_cards(client):
    page = client.get("/").text
    assert "__CARDS__" not in page and "function card(text, big)" in page
    assert not any(marker in page for marker in ("<link", 'src="http', "src='http", "//cdn"))


def test_the_command_refuses_bad_options(capsys):
    from uno_env.cli.serve import main

    for argv, words in (
        (["--seat", "4"], "--seat 4"),
        (["--opponents", "human"], "'human' is you"),
        (["--set", "decks=x"], "unknown setting"),
        (["--token", "short"], "--token: at least 8 printable characters"),
        (["--token", "has a space"], "no spaces"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and words in capsys.readouterr().err


# ---------------------------------------------------------------------- the guard


def guest(app, base_url="http://127.0.0.1:8000", **headers):
    """A client without the token unless given: what another page or a script may send."""
    return TestClient(app, base_url=base_url, headers=headers, follow_redirects=False)


SECURITY = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer", "cache-control": "no-store"}


def secured(response) -> bool:
    policy = response.headers.get("content-security-policy", "")
    return all(response.headers.get(k) == v for k, v in SECURITY.items()) and all(
        part in policy for part in ("default-src 'none'", "script-src 'nonce-", "frame-ancestors 'none'")
    )


GUARD_CASES = [
    # (what, client's base URL, extra headers, method, path, body, status, words)
    ("no token", None, {}, "get", "/api/options", None, 403, "no valid token"),
    ("no token for the page", None, {}, "get", "/", None, 403, "no valid token"),
    ("a wrong token", None, {"X-Uno-Token": "guess"}, "get", "/api/options", None, 403, "no valid token"),
    ("a foreign Host", "http://evil.example:8000", "token", "get", "/api/options", None, 403, "Host 'evil.example"),
    ("another port", "http://127.0.0.1:9999", "token", "get", "/api/options", None, 403, "is not this server"),
    ("no port", "http://localhost", "token", "get", "/api/options", None, 403, "is not this server"),
    ("another origin", None, {"Origin": "http://evil.example"}, "post", "/api/games", {}, 403, "Origin"),
    ("a sandboxed origin", None, {"Origin": "null"}, "post", "/api/games", {}, 403, "Origin 'null'"),
    ("another site", None, {"Sec-Fetch-Site": "cross-site"}, "post", "/api/games", {}, 403, "Sec-Fetch-Site"),
    ("another port's page", None, {"Sec-Fetch-Site": "same-site"}, "post", "/api/games", {}, 403, "Sec-Fetch-Site"),
    ("text/plain", None, {"Content-Type": "text/plain"}, "post", "/api/games", b"{}", 415, "application/json"),
    ("no content type", None, {}, "post", "/api/games", b"{}", 415, "application/json"),
    ("a form", None, {"Content-Type": "application/x-www-form-urlencoded"}, "post", "/api/games", b"a=1", 415, "got"),
    ("over 64 KB", None, {"Content-Type": "application/json"}, "post", "/api/games", b" " * 65537, 413, "65536"),
    ("nested 17 deep", None, {"Content-Type": "application/json"}, "post", "/api/games", b"[" * 17, 400, "16 deep"),
]


@pytest.mark.parametrize(
    "what, base, headers, method, path, body, status, words", GUARD_CASES, ids=[c[0] for c in GUARD_CASES]
)
def test_the_guard_refuses_saying_why_and_changes_nothing(
    app, tables, what, base, headers, method, path, body, status, words
):
    own = TestClient(app, base_url="http://127.0.0.1:8000", headers={"X-Uno-Token": app.token})
    own.post("/api/games", json=GAME)
    count = len(tables.games)
    headers = {"X-Uno-Token": app.token} if headers == "token" else dict(headers)
    if method == "post" and body is not None and "Origin" not in headers and "Sec-Fetch-Site" not in headers:
        headers["X-Uno-Token"] = app.token  # the token, but the body's kind or size is wrong
    elif method == "post":
        headers["X-Uno-Token"] = app.token  # even with the token: only the page's own origin
    client = guest(app, base or "http://127.0.0.1:8000", **headers)
    kwargs = {} if body is None else {"content": body} if isinstance(body, bytes) else {"json": body}
    response = getattr(client, method)(path, **kwargs)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert words in error and "\n" not in error and len(error) < 200
    assert secured(response) and len(tables.games) == count


def test_the_printed_address_sets_the_cookie_and_leaves_the_address_bar(app):
    opened = guest(app).get(f"/?token={app.token}")
    assert opened.status_code == 303 and opened.headers["location"] == "/"  # the token leaves the address
    cookie = opened.headers["set-cookie"]
    assert cookie.startswith(f"uno-token-8000={app.token};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert guest(app).get("/?token=guess").status_code == 403
    page = guest(app, Cookie=f"uno-token-8000={app.token}").get("/")
    assert page.status_code == 200 and secured(page)
    nonce = page.headers["content-security-policy"].split("'nonce-", 1)[1].split("'", 1)[0]
    tags = re.findall(r"<(?:script|style)\b[^>]*>", page.text)
    assert tags and all(f'nonce="{nonce}"' in tag for tag in tags) and "__NONCE__" not in page.text
    assert nonce not in guest(app, Cookie=f"uno-token-8000={app.token}").get("/").text  # a nonce per answer
    assert guest(app, Cookie=f"uno-token-8000={app.token}").get("/api/options").status_code == 200
    assert guest(app, Cookie=f"uno-token-8001={app.token}").get("/api/options").status_code == 403  # another port's


def test_every_answer_carries_the_security_headers(client):
    game = client.post("/api/games", json=GAME).json()
    answers = [
        client.get("/"),
        client.get("/api/options"),
        client.get(f"/api/games/{game['id']}"),
        client.get(f"/api/games/{game['id']}/log"),
        client.get("/api/nothing"),
        client.get("/api/games/nope"),
        client.put("/api/games", json={}),
        client.get(f"/api/games/{game['id']}/record"),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 404, 404, 405, 409]
    assert all(secured(a) for a in answers)


def test_no_websocket_is_served(client):
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/"):
        pass
    assert closed.value.code == 1008


# ---------------------------------------------------------------------- what a browser may seat


@pytest.fixture()
def preset_client():
    tables = Tables({"num_players": 2, "episode": "round"}, ["tactical", "ismcts:determinizations=100000"])
    app = app_for(tables)
    return TestClient(app, base_url="http://127.0.0.1:8000", headers={"X-Uno-Token": app.token}), tables


BROWSER_REFUSALS = [
    ("ismcts:determinizations=321", "determinizations=321 costs too much; at most 320"),
    ("ismcts:determinizations=1000000000", "at most 320 from the browser"),
    ("ismcts:determinizations=1e12", "determinizations='1e12': expected a positive integer"),
    ("ismcts:rollout=tactical:rollout=keeper", "option 'rollout' is given twice"),
    (
        "ismcts:rollout=<img src=x onerror=alert(1)>:rollout=tactical",
        "rollout='<img src=x onerror=alert(1)>': expected",
    ),
    ("ismcts:depth=3", "unknown option 'depth'; its options: determinizations"),
    ("ismcts:bluff_prior=abc", "bluff_prior='abc': expected a number within 0..1"),
    ("ppo:colours=<!--<script>", "colours='<!--<script>': expected average or as_seen"),
    ("ismcts:max_rollout_steps=2001", "max_rollout_steps=2001 costs too much; at most 2000"),
    ("ismcts:rollout=ppo", "rollout='ppo': rollouts play tactical, keeper, naive, random_play"),
    ("ismcts:rollout=random", "rollout='random': rollouts play"),
    ("ismcts:opponent_rollout=ppo", "opponent_rollout='ppo'"),
    ("ismcts:determinizations=100001", "at most 320"),  # near the preset is not the preset
    ("ppo:weights=/etc/passwd", "weights=... is refused from the browser"),
    ("ppo:weights=/no/such/file.npz", "weights=... is refused from the browser"),
    ("ppo:weights=uno_env/data/ppo_2p.npz", "weights=... is refused from the browser"),
    ("human", "'human' is you"),
]


@pytest.mark.parametrize("spec, words", BROWSER_REFUSALS, ids=[b[0] for b in BROWSER_REFUSALS])
def test_a_browser_seats_agents_of_capped_cost_and_names_no_file(preset_client, spec, words):
    client, tables = preset_client
    response = client.post("/api/games", json={"agents": [spec], "seed": 5})
    assert response.status_code == 400 and words in response.json()["error"], response.text
    assert not tables.games


def test_the_weights_refusal_says_nothing_of_the_file(preset_client):
    client, _ = preset_client
    errors = {
        client.post("/api/games", json={"agents": [f"ppo:weights={path}"]}).json()["error"]
        for path in ("/etc/passwd", "/no/such/file", "uno_env/data/ppo_2p.npz", "/etc", "<b>x</b>")
    }
    assert len(errors) == 1 and "passwd" not in errors.pop()


def test_a_browser_may_seat_the_capped_budgets_and_the_presets(preset_client):
    client, tables = preset_client
    allowed = [
        "ismcts:determinizations=320:rollout=random_play:opponent_rollout=keeper:max_rollout_steps=2000",
        "ppo:colours=as_seen",
        "ismcts:determinizations=100000",  # exactly the command line's preset
        "tactical",
    ]
    for spec in allowed:
        response = client.post("/api/games", json={"agents": [spec], "seed": 5})  # seat 0 plays first: nothing thinks
        assert response.status_code == 201, (spec, response.text)
    assert len(tables.games) == len(allowed)
    limits = client.get("/api/options").json()["limits"]
    assert limits["ismcts"] == {"determinizations": 320, "max_rollout_steps": 2000}
    assert limits["rollouts"] == ["tactical", "keeper", "naive", "random_play"]
    too_many = client.post("/api/games", json={"agents": ["tactical"] * 17})
    assert too_many.status_code == 400 and "at most 16 specs" in too_many.json()["error"]
    long_game = client.post("/api/games", json={"settings": {"max_steps": 2001}})
    assert long_game.status_code == 400 and "max_steps=2001: at most 2000" in long_game.json()["error"]
    assert client.get("/api/options").json()["limits"]["max_steps"] == 2000


@pytest.mark.filterwarnings("ignore::UserWarning")  # ppo's own warning, given once per process
def test_ppo_outside_its_training_tables_says_so_on_every_game(client):
    ten = {"settings": {"num_players": 10, "episode": "round"}, "agents": ["ppo", "tactical"], "seed": 3}
    for _ in range(2):  # the warning is given once per process; the page is told each time
        notices = client.post("/api/games", json=ten).json()["notices"]
        assert len(notices) == 1 and "num_players=10" in notices[0] and "outside the tables it learned on" in notices[0]
    assert client.post("/api/games", json=dict(ten, settings={"num_players": 2})).json()["notices"] == []


# ---------------------------------------------------------------------- the log and the deadline


def merged(views) -> list[dict]:
    """The log as the page keeps it: each view's events under the person's decisions so far."""
    groups: list[dict] = []
    for view in views:
        if groups and groups[-1]["after"] == view["decisions"]:
            groups[-1]["lines"] = view["events"]
        else:
            groups.append({"after": view["decisions"], "lines": view["events"]})
    return groups


def test_the_log_holds_the_whole_history(client):
    views = play_first_legal(client, client.post("/api/games", json=dict(GAME, seed=4)).json())
    log = client.get(f"/api/games/{views[0]['id']}/log").json()["history"]
    assert log == merged(views) and sum(len(g["lines"]) for g in log) > 40
    assert [g["after"] for g in log] == list(range(views[-1]["decisions"] + 1))


def test_the_agents_play_in_steps_when_a_request_reaches_its_deadline(client, monkeypatch):
    monkeypatch.setattr("uno_env.cli.serve_tables.DEADLINE", 0.0)  # one agent decision per request
    view = client.post("/api/games", json={**GAME, "settings": {**RULES, "num_players": 4}, "seat": 0}).json()
    views, continued = [view], 0
    while not view["over"]:
        if view["waiting"]:
            assert view["legal"] == [] and view["acting"] != 0 and view["prompt"] == "the agents are playing..."
            refused = client.post(f"/api/games/{view['id']}/action", json={"action": 0})
            assert refused.status_code == 409 and "it is not your turn" in refused.json()["error"]
            view = client.post(f"/api/games/{view['id']}/continue", json={}).json()
            continued += 1
        else:
            view = client.post(f"/api/games/{view['id']}/action", json={"action": view["legal"][0]["id"]}).json()
        views.append(view)
        assert len(views) < 5000
    assert continued > 10
    over = client.post(f"/api/games/{view['id']}/continue", json={})
    assert over.status_code == 409 and "the game is over" in over.json()["error"]
    assert client.get(f"/api/games/{view['id']}/log").json()["history"] == merged(views)
    record = client.get(f"/api/games/{view['id']}/record").json()
    assert Game(RuleConfig(**record["settings"])).is_over(replay(record))


def test_the_workers_are_daemons_that_end_when_idle(monkeypatch):
    import threading
    import time

    from uno_env.cli.serve_api import Workers

    monkeypatch.setattr("uno_env.cli.serve_api.IDLE", 0.05)
    workers = Workers(count=2)
    release = threading.Event()
    slow = workers.submit(release.wait, 30)
    assert workers.submit(sum, [1, 2]).result(timeout=10) == 3  # the other thread works meanwhile
    end = time.monotonic() + 10  # the busy count follows its job's start and end: wait for the two to settle
    while workers.busy != 1 and time.monotonic() < end:
        time.sleep(0.01)
    assert all(t.daemon for t in workers.threads) and workers.busy == 1  # a busy one keeps no process alive
    release.set()
    assert slow.result(timeout=10) is True
    end = time.monotonic() + 10
    while workers.threads and time.monotonic() < end:
        time.sleep(0.02)
    assert workers.threads == [] and workers.busy == 0
    assert workers.submit(max, 4, 5).result(timeout=10) == 5  # the next job starts one again


# ---------------------------------------------------------------------- no input gives a 500


def malformed_bodies(count: int, seed: int = 0) -> list[bytes]:
    """JSON and not-quite-JSON of every shape, aimed at the game and action doors."""
    import random

    choose = random.Random(seed)
    atoms = [None, True, 0, -1, 2**63, 10**30, 1.5, float("nan"), "", "x" * 300, "\ud800", "ismcts:", [], {}]
    fields = {f.name for f in dataclasses.fields(RuleConfig)}
    specs = ["ismcts:determinizations=", "ismcts:=3", ":", "ppo:colours=", "ismcts:bluff_prior=nan", "tactical:x=1"]
    specs += ["ismcts:confidence=-1", "ismcts:draw_inference=2", "ismcts:rollout=human", "ppo:weights=", "é"]
    bodies = [b"", b"{", b"nul", b"\xff\xfe", b"[]", b"1e999", b"-", b'{"a":1,"a":2}', b'"\\ud800"', b"NaN"]
    while len(bodies) < count:
        kind = choose.randrange(4)
        if kind == 0:
            body: object = {"settings": {choose.choice(sorted(fields)): choose.choice(atoms)}}
        elif kind == 1:
            body = {
                "agents": choose.choice([choose.choice(specs), [choose.choice(specs + atoms)], choose.choice(atoms)])
            }
        elif kind == 2:
            body = {choose.choice(["seat", "seed", "action"]): choose.choice(atoms)}
        else:
            body = choose.choice(atoms)
        text = json.dumps(body, allow_nan=True).encode()
        if choose.random() < 0.2:
            text = text[: choose.randrange(len(text) + 1)]
        bodies.append(text)
    return bodies


def test_no_malformed_body_gives_a_500_or_echoes_more_than_an_excerpt(client):
    game = client.post("/api/games", json=dict(GAME, seed=2)).json()["id"]
    doors = ["/api/games", f"/api/games/{game}/action", f"/api/games/{game}/continue"]
    statuses = collections.Counter()
    for k, body in enumerate(malformed_bodies(240)):
        response = client.post(doors[k % 3], content=body, headers={"Content-Type": "application/json"})
        statuses[response.status_code] += 1
        assert response.status_code < 500, (body, response.text)
        if response.status_code >= 400:
            error = response.json()["error"]
            assert "\n" not in error and len(error) <= 400, (body, error)
    assert statuses[400] > 100  # most are refused, some are games


# ---------------------------------------------------------------------- the command


def test_the_command_serves_with_its_token_and_hosts_and_ends_on_ctrl_c():
    served = Served(ROOT, ("--players", "2", "--token", "a-token-for-tests", "--allow-host", "uno.example"))
    try:
        assert served.url == f"http://127.0.0.1:{served.port}/?token=a-token-for-tests"
        assert served.request("GET", "/api/options").status == 200
        assert served.request("GET", "/api/options", headers={"Host": f"uno.example:{served.port}"}).status == 200
        assert served.request("GET", "/api/options", headers={"Host": f"other.example:{served.port}"}).status == 403
        assert served.request("GET", "/api/options", token=False).status == 403
        served.process.send_signal(signal.SIGINT)
        assert served.process.wait(timeout=30) == 130  # the uno command's status for Ctrl-C
        errors = served.process.stderr.read()
        assert "Traceback" not in errors and "interrupted" in errors
    finally:
        served.stop()
