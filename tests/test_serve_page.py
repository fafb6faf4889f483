"""`uno serve`'s page in a real browser (Debian's chromium driven by selenium through
chromedriver), against ``python -m uno_env.cli serve`` in a subprocess: opened at the
printed address (the token becomes the page's cookie and leaves the address bar), a whole
game played by clicking, ten players in a wide and an 800-pixel window with the hand, the
top card and every legal move in view at each decision, ppo's training notice on the
page, a reload keeping the whole log, and no Content-Security-Policy violation."""

from __future__ import annotations

import pytest

pytest.importorskip("uvicorn", reason='uno serve needs the web extra: pip install "uno-env[web]"')

from uno_env.cli.serve import Tables  # noqa: E402
from uno_env.engine import Game, RuleConfig  # noqa: E402
from uno_env.engine.record import replay  # noqa: E402

from .browser import browser, console, screenshot, wait_for  # noqa: E402
from .serve_attacks import ROOT, Served, serving  # noqa: E402

IN_VIEW = """
const bad = [];
function inside(el, what) {
  const r = el.getBoundingClientRect();
  if (!r.width || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
    bad.push(`${what} at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`);
}
inside(document.getElementById('hand'), 'the hand');
inside(document.querySelector('#top svg'), 'the top card');
for (const el of document.querySelectorAll('[data-action]')) inside(el, `the move ${el.title}`);
if (scrollX || scrollY) bad.push(`scrolled to ${scrollX},${scrollY}`);
return bad;
"""
SETTLED = "return document.body.dataset.busy === '0' && document.body.dataset.game"


@pytest.fixture(scope="module")
def served():
    served = Served(ROOT, ("--players", "2", "--opponents", "tactical"))
    assert len(served.token) >= 32  # without --token: a fresh secret of 24 random bytes
    yield served
    served.stop()


def home(served: Served) -> str:
    return f"http://127.0.0.1:{served.port}/"


def problems(driver) -> list[str]:
    """The console's errors and policy violations since the last call."""
    return [m for m in console(driver) if m.startswith("SEVERE") or "Content Security Policy" in m]


def start(driver, **fields) -> str:
    """Fill the page's form (element id -> value) and start the game; its id."""
    wait_for(driver, "return !document.getElementById('setup').hidden", "the form")
    for key, value in fields.items():
        driver.execute_script(
            "const el = document.getElementById(arguments[0]);"
            "if (el.type === 'checkbox') el.checked = arguments[1]; else el.value = arguments[1];",
            key,
            value,
        )
    driver.execute_script("document.getElementById('start').click()")
    return wait_for(driver, SETTLED, "a game")


def log_lines(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('#log li:not(.sep)')].map(e => e.textContent)")


def test_a_real_browser_plays_a_game_on_the_page(served):
    from selenium.webdriver.common.by import By

    driver = browser()
    try:
        driver.get(served.url)  # the printed address: the token becomes a cookie and leaves the address bar
        wait_for(driver, "return !document.getElementById('setup').hidden", "the form")
        assert driver.current_url == home(served)
        driver.execute_script("document.getElementById('seed').value = 'soon'")
        driver.find_element(By.ID, "start").click()  # refused: the page says why, no game starts
        error = wait_for(driver, "return document.getElementById('error').textContent", "the refusal")
        assert "seed: expected an integer or null, got 'soon'" in error
        assert driver.execute_script("return document.body.dataset.game") is None
        assert [m for m in problems(driver) if "status of 400" not in m] == []  # the refusal's answer, nothing else
        game_id = start(
            driver,
            seed="5",
            agents="tactical,keeper",
            **{"rule-num_players": "3"},
            **{
                "rule-stacking": "mixed",
                "rule-seven_o": True,
            },
        )
        assert driver.execute_script("return location.hash") == f"#game={game_id}"  # this tab's game
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")  # a second tab plays its own game (the cookie opens the page)
        driver.get(home(served))
        other = start(driver)
        assert other != game_id
        driver.close()
        driver.switch_to.window(first)
        clicks, shot = 0, False
        while True:
            view = served.request("GET", f"/api/games/{game_id}").json()
            offered = driver.execute_script(
                "return [...document.querySelectorAll('[data-action]')].map(e => Number(e.dataset.action))"
            )
            assert set(offered) == {a["id"] for a in view["legal"]}  # every legal action, nothing else
            assert (
                driver.execute_script("return document.querySelectorAll('main button:not([data-action])').length") == 0
            )
            assert driver.execute_script("return document.querySelectorAll('#hand svg[role=img]').length") == len(
                view["hand"]
            )
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
        assert link == f"{home(served)}api/games/{game_id}/record" and driver.find_element(By.ID, "replay")
        record = served.request("GET", f"/api/games/{game_id}/record").json()
        game = Game(RuleConfig(**record["settings"]))
        assert game.is_over(replay(record, game=game))
        assert screenshot(driver, "serve-over").stat().st_size > 10_000
        assert shot and shot.stat().st_size > 10_000
        assert view["players"] == ["human", "tactical", "keeper"] and "seven-O" in view["settings"]
        assert problems(driver) == []  # the page ran whole under its Content-Security-Policy
        driver.get(f"{home(served)}api/games/{game_id}/replay")  # the cookie opens the replay too
        assert wait_for(driver, "return document.getElementById('stepno').textContent", "the replay")
        driver.execute_script("location.hash = '#step=3&view=0'")
        wait_for(driver, "return document.getElementById('stepno').textContent.startsWith('3 /')", "step 3")
        assert driver.find_element(By.ID, "round").get_property("hidden")  # one hand: no next round
        screenshot(driver, "serve-replay")
        assert problems(driver) == []
    finally:
        driver.quit()


@pytest.mark.parametrize("size", [(1400, 900), (800, 900)], ids=["1400x900", "800x900"])
def test_ten_players_keep_the_hand_the_top_card_and_the_moves_in_view(served, size):
    """At each decision of a ten-player game (a handful, not the whole game), without
    scrolling; ppo's notice shows; a reload keeps every line of the log."""
    driver = browser(size=size)
    name = f"serve-10p-{size[0]}"
    try:
        driver.get(served.url)
        start(driver, seed="21", agents="ppo,tactical", **{"rule-num_players": "10", "rule-stacking": "mixed"})
        notice = driver.execute_script(
            "const n = document.getElementById('notices'); return n.hidden ? '' : n.textContent"
        )
        assert "num_players=10" in notice and "outside the tables it learned on" in notice
        for decision in range(8):
            wait_for(driver, SETTLED, f"decision {decision}")
            assert driver.execute_script(IN_VIEW) == [], (size, decision)
            if decision in (0, 5):
                screenshot(driver, f"{name}-decision{decision}")
            plays = driver.execute_script("return document.querySelectorAll('#hand [data-action]').length")
            step = driver.execute_script("return document.body.dataset.step")
            selector = "#hand [data-action]" if plays and decision % 2 == 0 else "[data-action]"
            driver.execute_script(f"document.querySelector('{selector}').click()")
            wait_for(
                driver,
                f"return document.body.dataset.busy === '0' && (document.body.dataset.step !== '{step}'"
                " || document.body.dataset.over === 'true')",
                "the next decision",
            )
        lines = log_lines(driver)
        game_id = driver.execute_script("return document.body.dataset.game")
        history = served.request("GET", f"/api/games/{game_id}/log").json()["history"]
        assert len(lines) == sum(len(g["lines"]) for g in history) > 40
        driver.refresh()
        wait_for(driver, f"return {SETTLED[7:]} === '{game_id}'", "the game after the reload")
        assert log_lines(driver) == lines  # the whole history, not just since the last decision
        assert driver.execute_script(IN_VIEW) == []
        screenshot(driver, f"{name}-reloaded")
        assert problems(driver) == []
    finally:
        driver.quit()


def test_the_page_asks_the_agents_to_play_on_until_the_persons_turn(monkeypatch):
    """With a deadline that lets the agents take one decision per request, the page keeps
    asking (``continue``) until the person decides; its log is the server's whole history."""
    monkeypatch.setattr("uno_env.cli.serve_tables.DEADLINE", 0.0)
    tables = Tables({"num_players": 4, "episode": "round"}, ["tactical", "keeper"])
    with serving(tables) as target:
        driver = browser()
        try:
            driver.get(f"http://127.0.0.1:{target.port}/?token={target.token}")
            game_id = start(driver, seed="8")
            for decision in range(5):
                wait_for(driver, SETTLED, f"decision {decision}")
                view = target.request("GET", f"/api/games/{game_id}").json()
                if view["over"]:
                    break
                assert not view["waiting"] and view["acting"] == 0 and view["step"] > 3 * decision
                offered = driver.execute_script(
                    "return [...document.querySelectorAll('[data-action]')].map(e => Number(e.dataset.action))"
                )
                assert sorted(offered) == sorted(a["id"] for a in view["legal"])
                history = target.request("GET", f"/api/games/{game_id}/log").json()["history"]
                assert log_lines(driver) == [line for group in reversed(history) for line in group["lines"]]
                step = view["step"]
                driver.execute_script("document.querySelector('[data-action]').click()")
                wait_for(driver, f"return document.body.dataset.step !== '{step}'", "the agents' play")
            assert problems(driver) == []
        finally:
            driver.quit()
