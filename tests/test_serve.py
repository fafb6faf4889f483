"""`uno serve` (uno_env/cli/serve.py): the JSON API through Starlette's TestClient (whole
games, every refusal leaving the game unchanged, independent games, records that
replay), the command itself (its URL, Ctrl-C), and a real browser (Debian's chromium
driven by selenium through chromedriver) playing a game on the page."""

import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="uno serve needs the web extra: pip install -e '.[web]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the dev extra)")

with warnings.catch_warnings():  # Starlette 1.x would rather have httpx2 under its TestClient; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from uno_env.cli.serve import MAX_GAMES, Tables, app_for  # noqa: E402
from uno_env.engine import Game, RuleConfig  # noqa: E402
from uno_env.engine.record import replay  # noqa: E402

from .browser import browser, screenshot, wait_for  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

RULES = {"num_players": 3, "episode": "round", "stacking": "mixed", "seven_o": True, "jump_in": True}
GAME = {"settings": RULES, "agents": ["tactical", "keeper"], "seat": 1, "seed": 11}


@pytest.fixture()
def tables():
    return Tables()


@pytest.fixture()
def client(tables):
    return TestClient(app_for(tables))


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
    assert '<script id="data" type="application/json">' in page.text
    # one seed, one game
    again = play_first_legal(client, client.post("/api/games", json=GAME).json())
    assert [v["hand"] for v in again] == [v["hand"] for v in views]
    assert [v["events"] for v in again] == [v["events"] for v in views]


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
    kwargs = {} if body is None else {"content": body} if isinstance(body, bytes) else {"json": body}
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
    monkeypatch.setattr("uno_env.cli.serve.MAX_GAMES", 2)
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
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and words in capsys.readouterr().err


# ---------------------------------------------------------------------- a served table

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def served():
    """`uno serve --port 0` in a subprocess: its URL, then Ctrl-C (SIGINT) ends it cleanly."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen(
        [sys.executable, "-m", "uno_env.cli", "serve", "--port", "0", "--players", "2", "--opponents", "tactical"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    line = process.stdout.readline()  # printed once the port is bound
    assert "http://127.0.0.1:" in line, (line, process.stderr.read() if process.poll() is not None else "")
    url = line.split("playing at ")[1].split()[0]
    yield url, process
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)


def test_a_real_browser_plays_a_game_on_the_page(served, tmp_path):
    import httpx
    from selenium.webdriver.common.by import By

    url, process = served
    driver = browser()
    try:
        driver.get(url)
        wait_for(driver, "return !document.getElementById('setup').hidden", "the form")
        driver.execute_script("document.getElementById('seed').value = 'soon'")
        driver.find_element(By.ID, "start").click()  # refused: the page says why, no game starts
        error = wait_for(driver, "return document.getElementById('error').textContent", "the refusal")
        assert "seed: expected an integer, got 'soon'" in error
        assert driver.execute_script("return document.body.dataset.game") is None
        driver.execute_script(  # the form: three players, two house rules, a seed
            "document.getElementById('seed').value = '5';"
            "document.getElementById('agents').value = 'tactical,keeper';"
            "document.getElementById('rule-num_players').value = '3';"
            "document.getElementById('rule-stacking').value = 'mixed';"
            "document.getElementById('rule-seven_o').checked = true;"
        )
        driver.find_element(By.ID, "start").click()
        game_id = wait_for(driver, "return document.body.dataset.busy === '0' && document.body.dataset.game", "a game")
        assert driver.execute_script("return location.hash") == f"#game={game_id}"  # this tab's game
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")  # a second tab plays its own game
        driver.get(url)
        wait_for(driver, "return !document.getElementById('setup').hidden", "the form in the second tab")
        driver.find_element(By.ID, "start").click()
        other = wait_for(driver, "return document.body.dataset.busy === '0' && document.body.dataset.game", "a game")
        assert other != game_id
        driver.close()
        driver.switch_to.window(first)
        clicks, shot = 0, False
        while True:
            view = httpx.get(f"{url}api/games/{game_id}", timeout=30).json()
            offered = driver.execute_script(
                "return [...document.querySelectorAll('[data-action]')].map(e => Number(e.dataset.action))"
            )
            assert set(offered) == {a["id"] for a in view["legal"]}  # every legal action, nothing else
            buttons = driver.execute_script("return document.querySelectorAll('main button:not([data-action])').length")
            assert buttons == 0
            shown = driver.execute_script("return document.querySelectorAll('#hand svg[role=img]').length")
            assert shown == len(view["hand"])
            if not shot and driver.execute_script("return document.querySelectorAll('#hand [data-action]').length"):
                shot = screenshot(driver, "serve-cards")  # cards to choose from
            if view["over"] or clicks >= 200:
                break
            step = view["step"]
            driver.find_element(By.CSS_SELECTOR, "[data-action]").click()
            clicks += 1
            wait_for(
                driver,
                f"return document.body.dataset.busy === '0' && document.body.dataset.step !== '{step}'",
                "the next decision",
            )
        assert view["over"], f"the game did not end within {clicks} clicks"
        link = driver.find_element(By.ID, "record").get_attribute("href")
        assert link.endswith(f"/api/games/{game_id}/record") and driver.find_element(By.ID, "replay")
        record = httpx.get(link, timeout=30).json()
        game = Game(RuleConfig(**record["settings"]))
        assert game.is_over(replay(record, game=game))
        assert screenshot(driver, "serve-over").stat().st_size > 10_000
        assert shot and shot.stat().st_size > 10_000
        assert view["players"] == ["human", "tactical", "keeper"] and "seven-O" in view["settings"]
        driver.get(url + f"api/games/{game_id}/replay")
        assert wait_for(driver, "return document.getElementById('stepno').textContent", "the replay")
    finally:
        driver.quit()


def test_the_command_serves_and_ends_on_ctrl_c(served):
    import httpx

    url, process = served
    assert url.startswith("http://127.0.0.1:") and url.endswith("/")
    assert httpx.get(url + "api/options", timeout=30).status_code == 200
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 130  # the uno command's status for Ctrl-C
    errors = process.stderr.read()
    assert "Traceback" not in errors and "interrupted" in errors
