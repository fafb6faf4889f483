"""``uno play``: a person plays in the terminal; driven here through stdin."""

import io
import subprocess
import sys

import numpy as np
import pytest

from uno_env.agents.human import HumanAgent
from uno_env.cli.play import main

from .conftest import make_game, setup

# a person who never plays a card: each prompt reads lines until one is legal
STUBBORN = "draw\npass\naccept\ncolor R\n" * 3000


def run_play(argv, script):
    out = io.StringIO()
    rc = main(argv, stdin=io.StringIO(script), stdout=out)
    return rc, out.getvalue()


def test_play_a_hand_through_stdin_with_help_and_bad_input():
    script = "help\nfoo\nplay ZZ\n99\nchallenge\n" + STUBBORN
    rc, text = run_play(["--players", "3", "--opponents", "naive,keeper", "--seed", "4"], script)
    assert rc == 0
    assert "UNO: 3 players, you are P0; opponents: P1 naive, P2 keeper" in text
    assert "rules: 3 players, one hand, classic deck (108 cards), standard scoring" in text
    assert "RuleConfig(" not in text  # the settings in words, not the dataclass
    assert "legal actions:" in text and "draw" in text.split("legal actions:")[1].split(">")[0]
    assert "unknown action 'foo'" in text
    assert "unknown card 'ZZ'" in text
    assert "there is no option 99" in text
    assert "'challenge' is not legal now" in text
    assert "top card" in text and "your hand:" in text and "direction clockwise" in text
    assert "winner: P" in text and "you lose." in text  # never playing a card, P0 cannot win
    assert "scores: P0 0" in text


def test_the_table_shows_the_own_hand_and_only_counts_for_the_others():
    game = make_game(num_players=3)
    state = setup(game, [["R1", "G7", "W"], ["Y1", "Y2"], ["B5", "B6", "B7", "B8"]], ["R7"], current=0, dealer=2)
    human = HumanAgent(game, seat=0)
    human.notify(["P2 plays R7"])
    text = human.render(game.observe(state, 0))
    assert "your hand: R1 G7 W" in text
    assert "Y1" not in text and "B5" not in text
    assert "P1           2 cards" in text and "P2           4 cards" in text and "(dealer)" in text
    assert "top card R7   colour red" in text and "P2 plays R7" in text
    assert "(next: P1)" in text


def test_typed_actions_are_parsed_with_shorthands():
    game = make_game(num_players=2)
    state = setup(game, [["R1", "G7", "B3", "W"], ["Y1", "Y2"]], ["R7"])
    mask = game.legal_mask(state)
    human = HumanAgent(game)
    assert human.parse("play R1", mask) == game.string_to_action("play R1")
    assert human.parse("r1", mask) == game.string_to_action("play R1")
    assert human.parse("W g", mask) == game.string_to_action("play W G")
    assert human.parse("DRAW", mask) == game.string_to_action("draw")
    legal = [game.action_to_string(int(a)) for a in np.flatnonzero(mask)]
    assert human.parse("2", mask) == game.string_to_action(legal[1])
    with pytest.raises(ValueError, match="not legal now"):
        human.parse("play B3", mask)
    with pytest.raises(ValueError, match="names a colour"):
        human.parse("play W", mask)


def test_quit_and_end_of_input_leave_cleanly():
    rc, text = run_play(["--players", "2", "--opponents", "tactical", "--seed", "1"], "quit\n")
    assert rc == 0 and "bye (quit)" in text
    rc, text = run_play(["--players", "2", "--opponents", "tactical", "--seed", "1"], "")
    assert rc == 0 and "bye (the input ended)" in text


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--players", "11"], "num_players=11"),
        (["--opponents", "alphauno"], "unknown agent 'alphauno'"),
        (["--opponents", "human"], "'human' is you"),
        (["--seat", "5"], "--seat 5"),
        (["--set", "deck=tiny"], "invalid setting deck='tiny'"),
    ],
)
def test_bad_options_are_named(argv, message, capsys):
    rc, _ = run_play(argv, "")
    assert rc == 2
    assert message in capsys.readouterr().err


def test_uno_play_console_command_through_stdin():
    script = "help\n" + STUBBORN
    proc = subprocess.run(
        [sys.executable, "-m", "uno_env.cli", "play", "--players", "2", "--opponents", "keeper", "--seed", "7"],
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "legal actions:" in proc.stdout and "winner: P1" in proc.stdout


def test_a_person_plays_every_house_rule_in_the_terminal():
    """All five house rules on: the person's prompts name the new decisions, and a scripted
    person answers them by number (the first legal action) until the hand ends."""
    script = "1\n" * 4000
    settings = ["--set", "stacking=mixed", "--set", "seven_o=true", "--set", "jump_in=true"]
    settings += ["--set", "draw_until_playable=true", "--set", "force_play=true"]
    seen = set()
    for seed in range(6):
        rc, text = run_play(
            ["--players", "4", "--opponents", "random_play,tactical,keeper", "--seed", str(seed), *settings], script
        )
        assert rc == 0 and "winner: P" in text
        assert "house rules: stacking (mixed), seven-O, jump-in, draw until playable, force play" in text
        seen |= {
            phase
            for phase in ("a draw penalty is on you", "you played a 7", "you hold the card just played")
            if phase in text
        }
    assert len(seen) >= 2, seen


def test_the_table_shows_the_house_rules_facts():
    game = make_game(num_players=3, stacking="same", seven_o=True)
    state = setup(game, [["R7", "G+2", "B1", "B2"], ["R+2", "Y1", "Y2"], ["B5", "B6", "B7"]], ["R3"])
    game.step(state, "play R7")
    human = HumanAgent(game, seat=0)
    text = human.render(game.observe(state, 0))
    assert "you played a 7: choose whom to swap hands with" in text and "then it is P1's turn" in text
    assert human.parse("swap 2", game.legal_mask(state)) == game.string_to_action("swap 2")
    game.step(state, "swap 2")
    text = HumanAgent(game, seat=1).render(game.observe(state, 1))
    assert "last 7 swap: P2 and P0" in text
    game.step(state, "play R+2")
    text = HumanAgent(game, seat=2).render(game.observe(state, 2))
    assert "pending draw penalty: 2 cards" in text and "a draw penalty is on you" in text


def test_uno_play_record_writes_the_game_it_played(tmp_path):
    from uno_env.engine import Game
    from uno_env.engine.record import load, replay

    path = tmp_path / "mine.json"
    argv = ["--players", "3", "--opponents", "naive,keeper", "--seed", "4", "--record", str(path)]
    rc, text = run_play(argv, STUBBORN)
    assert rc == 0 and f"wrote the game record to {path}" in text
    record = load(path)
    assert record["agents"][0].startswith("you") and record["agents"][1:] == ["naive", "keeper"]
    game = Game(num_players=3, episode="round")
    final = replay(record)
    assert game.is_over(final) and 0 not in game.winners(final)  # the stubborn person never wins
    rc, _ = run_play([*argv[:-1], str(tmp_path / "missing" / "x.json")], STUBBORN)
    assert rc == 2
