"""JSON embedded in the HTML pages (``uno replay``, the notebook viewer ``Replay``, the replay
``uno serve`` answers) cannot close or bend its ``<script>`` element: names such as
``</script><script>``, ``<!--<script>`` and U+2028 show as text in a real browser, and no
script of theirs runs."""

from __future__ import annotations

import json

import pytest

from uno_env.agents import make_agent
from uno_env.cli.serve_tables import Table
from uno_env.engine import Game, RuleConfig
from uno_env.engine.record import Recorder
from uno_env.replay import Replay, script_json, to_html

from .browser import browser, console, wait_for

NAMES = [
    "</script><script>document.title='pwned'</script>",
    "<!--<script>",
    "a\u2028b\u2029c & <b>bold</b> &amp; </SCRIPT",
]


def record_of(names: list[str]) -> dict:
    game = Game(num_players=3, episode="round")
    state = game.init(seed=4)
    agents = [make_agent("tactical", game, seed=s) for s in range(3)]
    recorder = Recorder(game, state, agents=names)
    game.play(state, agents, on_step=recorder.on_step)
    return recorder.record()


def test_script_json_escapes_what_could_end_or_bend_a_script():
    data = {"names": NAMES, "n": 1, "nested": [{"k": "<!--"}]}
    text = script_json(data)
    assert not any(c in text for c in "<>&\u2028\u2029") and text.isascii()
    assert json.loads(text) == data


def serve_page(names: list[str]) -> str:
    """The replay page ``uno serve`` answers for a finished game whose seats bear ``names``."""
    table = Table("t", RuleConfig(num_players=3, episode="round"), ["tactical"], 0, seed=4)
    table.names = list(names)  # the server builds names from checked specs; here the worst a name could be
    bound = 2000
    while not table.game.is_over(table.state) and bound:
        bound -= 1
        if table.waiting():
            table.resume()
        else:
            table.act(int(table.game.legal_actions(table.state)[0]))
    return table.replay("abc")


def test_every_page_shows_the_names_as_text_and_runs_none_of_them(tmp_path):
    from selenium.webdriver.common.by import By

    record = record_of(NAMES)
    pages = {
        "replay": to_html(record),
        "notebook": f"<!DOCTYPE html><html><body>{Replay(record)._repr_html_()}</body></html>",
        "serve": serve_page(NAMES),
    }
    driver = browser()
    try:
        for kind, page in pages.items():
            path = tmp_path / f"{kind}.html"
            path.write_text(page)
            driver.get(f"file://{path}")
            if kind == "notebook":
                driver.switch_to.frame(driver.find_element(By.TAG_NAME, "iframe"))
            wait_for(driver, "return document.getElementById('stepno').textContent.startsWith('0 /')", kind)
            shown = driver.execute_script(
                "return [...document.querySelectorAll('#table .seat h2')].map(h => h.textContent)"
            )
            for seat, name in enumerate(NAMES):
                assert f"P{seat} {name}:" in shown[seat], (kind, seat, shown)
            assert driver.title != "pwned", kind
            errors = [line for line in console(driver) if line.startswith("SEVERE")]
            assert not errors, (kind, errors)
            driver.switch_to.default_content()
    finally:
        driver.quit()


@pytest.mark.parametrize("name", NAMES)
def test_the_pages_data_reads_back_whole(name):
    page = to_html(record_of([name, "tactical", "keeper"]))
    inside = page.split('<script id="data" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(inside)["agents"][0] == name
