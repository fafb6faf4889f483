"""Decisions in words and agents made of functions text -> text (uno_env/agents/text.py), with
scripted functions: no model is downloaded."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from uno_env.agents import make_agent, text_agent
from uno_env.agents.text import decision_text, parse_answer
from uno_env.engine import Game

from .conftest import make_game, setup

BOTS = Path(__file__).resolve().parent / "bots"


def test_the_decision_in_words_says_what_the_seat_may_know():
    game = make_game(num_players=3, episode="game")
    state = setup(game, [["R1", "G7", "W"], ["Y1", "Y2"], ["B5", "B6", "B7", "B8"]], ["R7"], current=0, dealer=2)
    events = [{"type": "play", "seat": 2, "card": "R7"}, {"type": "draw", "seat": 1, "card": None, "reason": "choice"}]
    text = decision_text(game, game.observe(state, 0), game.legal_mask(state), events, seat=0)
    assert "You play UNO as P0 (you). Rules: 3 players, a whole game to 500 points" in text
    assert "- P2 plays R7\n- P1 draws a card" in text
    assert "Top card: R7. Colour to match: red. Play goes clockwise; next after you: P1." in text
    assert "Cards held: P0 (you) 3 cards, P1 2 cards, P2 4 cards." in text
    assert "Scores (game to 500): P0 (you) 0, P1 0, P2 0" in text
    assert "Your hand: R1 G7 W." in text and "Decision: your turn, play a card or draw." in text
    assert "Legal moves:\n1. play R1\n2. play G7\n3. play W R\n4. play W Y\n5. play W G\n6. play W B\n7. draw" in text
    for hidden in ("Y1", "Y2", "B5", "B8"):  # the others' cards
        assert hidden not in text
    anonymous = decision_text(game, game.observe(state, 1), game.legal_mask(state), [])
    assert "as you." in anonymous and "you 2 cards, seat+1 4 cards, seat+2 3 cards" in anonymous


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("2", "play G7"),
        ("  Move 2.  ", "play G7"),
        ("play g7", "play G7"),
        ("I will PLAY G7 now.", "play G7"),
        ("G7", "play G7"),
        ("my pick: g7!", "play G7"),
        ("Wild, naming green: W green", "play W G"),
        ("play W+4 blue", None),  # not held: not a legal move
        ("draw", "draw"),
        ("Let me think. R1 or G7?\nG7 is better.\nAnswer: 2", "play G7"),
        ("R1 or G7", None),
        ("3 or 4", None),
        ("I pass", None),
        ("", None),
        ("42", None),
    ],
)
def test_answers_are_read_leniently(answer, expected):
    game = make_game(num_players=2)
    state = setup(game, [["R1", "G7", "W"], ["Y1"]], ["R7"])
    legal = game.legal_actions(state)
    action, why = parse_answer(answer, game, legal)
    if expected is None:
        assert action is None and why
    else:
        assert action == game.string_to_action(expected) and why == ""


def test_not_text_is_not_an_answer():
    game = make_game(num_players=2)
    state = setup(game, [["R1"], ["Y1"]], ["R7"])
    assert parse_answer(None, game, game.legal_actions(state)) == (None, "the answer must be text, got NoneType")


def test_the_adapter_asks_again_once_then_falls_back_and_says_so():
    game = make_game(num_players=2, episode="round")
    state = setup(game, [["R1", "G7", "W"], ["Y1", "Y2"]], ["R7"])
    asked: list[str] = []
    answers = iter(["hmm", "play G7", "no idea", "still no idea"])

    def scripted(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    agent = text_agent(scripted, game)
    assert agent(game.observe(state, 0), game.legal_mask(state)) == game.string_to_action("play G7")
    assert (
        "Your answer 'hmm' could not be used: it names none of the legal moves. Answer with one number from 1 to 7."
        in asked[1]
    )
    assert asked[1].startswith(asked[0])
    assert agent(game.observe(state, 0), game.legal_mask(state)) == game.string_to_action("play R1")  # the first
    assert (agent.decisions, agent.retries, agent.fallbacks) == (2, 2, 1)
    (fallback,) = agent.log
    assert fallback["answers"] == ["no idea", "still no idea"] and fallback["played"] == game.string_to_action(
        "play R1"
    )
    with pytest.raises(ValueError, match="fallback='draw': expected one of first, random"):
        text_agent(scripted, game, fallback="draw")
    with pytest.raises(ValueError, match="function must be callable"):
        text_agent("not a function", game)


def test_a_function_plays_whole_games_and_is_told_what_happened():
    """A scripted 'model' that answers the last legal move's number; under illegal_action
    'raise' any unreadable or unavailable answer would stop the game."""
    game = Game(num_players=3, episode="round", illegal_action="raise")
    prompts: list[str] = []

    def last_move(prompt: str) -> str:
        prompts.append(prompt)
        numbered = [line for line in prompt.splitlines() if line[:1].isdigit()]
        return f"I choose move {numbered[-1].split('.')[0]}."

    agent = text_agent(last_move, game, seed=1)
    for seed in range(3):
        state = game.init(seed=seed)
        game.play(state, [make_agent("tactical", game), agent, make_agent("keeper", game)])
        assert game.is_over(state)
    assert agent.fallbacks == agent.retries == 0 and agent.decisions == len(prompts) > 10
    assert all("You play UNO as P1 (you)" in p for p in prompts)
    assert sum("P0 plays" in p for p in prompts) > 5  # the others' moves since its last turn
    assert "deals" in prompts[0] and "is turned up" in prompts[0]  # the deal, told at the first decision


def test_a_random_fallback_is_seeded():
    game = Game(num_players=2, episode="round")
    state = game.init(seed=4)
    picks = []
    for _ in range(2):
        agent = text_agent(lambda prompt: "?", game, seed=5, fallback="random")
        picks.append([agent(game.observe(state, game.current_player(state)), game.legal_mask(state)) for _ in range(5)])
    assert picks[0] == picks[1]


def test_a_program_may_ask_for_the_decision_in_words(tmp_path):
    log = tmp_path / "log.txt"
    game = Game(num_players=2, episode="round")
    spec = "cmd:" + shlex.join([sys.executable, str(BOTS / "log_bot.py"), str(log), "--text"])
    agent = make_agent(spec, game)
    game.play(game.init(seed=2), [agent, make_agent("tactical", game)])
    agent.close()
    read = [json.loads(line[2:]) for line in log.read_text().splitlines() if line.startswith(">")]
    decisions = [m for m in read if m["type"] == "decision"]
    assert decisions and all(m["text"].startswith("You play UNO as P0 (you).") for m in decisions)
    assert all(m["text"].endswith("Answer with the number of one legal move.") for m in decisions)
