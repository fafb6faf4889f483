"""The list of bad inputs: every entry point refuses them with a clear error naming the
problem, and nothing changes."""

import numpy as np
import pytest

import uno_env
from uno_env import UnoGymEnv
from uno_env.engine import Game, IllegalActionError, PositionError
from uno_env.engine.checks import invariant_violations
from uno_env.engine.position import KEY_NAMES, KEYS, position_table
from uno_env.vector import UnoGymVectorEnv, UnoVectorEnv

from .conftest import make_game

BAD_ACTIONS = [
    pytest.param(60.7, id="float"),
    pytest.param("60", id="digit-string"),
    pytest.param(np.float32(60.5), id="numpy-float"),
    pytest.param(True, id="bool"),
    pytest.param(np.bool_(True), id="numpy-bool"),
    pytest.param(None, id="none"),
    pytest.param(np.array([1, 2]), id="array"),
    pytest.param([1], id="list"),
    pytest.param(2**63, id="2**63"),
    pytest.param(2**70, id="2**70"),
    pytest.param(np.uint64(2**63), id="uint64-2**63"),
    pytest.param(-1, id="negative"),
    pytest.param(70, id="num_actions"),
]

ACTION_ERROR = "integer action id|out of range|unknown action"


@pytest.mark.parametrize("bad", BAD_ACTIONS)
def test_game_step_refuses(bad):
    game = Game(num_players=2)
    state = game.init(seed=1)
    before = game.position(state)
    with pytest.raises(IllegalActionError if not isinstance(bad, str) else ValueError, match=ACTION_ERROR):
        game.step(state, bad)
    assert game.position(state) == before


@pytest.mark.parametrize("bad", BAD_ACTIONS)
def test_aec_env_refuses(bad):
    for env in (uno_env.env(num_players=2), uno_env.raw_env(num_players=2)):
        env.reset(seed=1)
        before = env.unwrapped.position()
        with pytest.raises(IllegalActionError, match="integer action id|out of range"):
            env.step(bad)
        assert env.unwrapped.position() == before


@pytest.mark.parametrize("bad", BAD_ACTIONS)
def test_gym_env_refuses(bad):
    env = UnoGymEnv(num_players=2)
    env.reset(seed=1)
    before = env.position()
    with pytest.raises(IllegalActionError, match="integer action id|out of range"):
        env.step(bad)
    assert env.position() == before


def test_gym_env_takes_numpy_integers_and_0d_arrays():
    env = UnoGymEnv(num_players=2)
    env.reset(seed=np.int64(1))  # Gymnasium's own seeding takes Python ints only
    draw = env.game.string_to_action("draw")
    env.step(np.int16(draw))
    env.reset(seed=1)
    env.step(np.array(draw))


BAD_BATCHES = [
    pytest.param(np.zeros(4), id="floats"),
    pytest.param(np.zeros(4, dtype=bool), id="bools"),
    pytest.param(np.zeros(3, dtype=np.int64), id="short"),
    pytest.param(np.zeros((4, 1), dtype=np.int64), id="column"),
    pytest.param(np.full(4, 2**63, dtype=np.uint64), id="2**63"),
    pytest.param(np.array([0, 0, -1, 0]), id="negative"),
    pytest.param([0, 0, None, 0], id="none"),
    pytest.param("0000", id="string"),
    pytest.param(None, id="None"),
    pytest.param(3, id="scalar"),
]


@pytest.mark.parametrize("bad", BAD_BATCHES)
def test_vector_envs_refuse_bad_batches(bad):
    env = UnoVectorEnv(4, num_players=2)
    env.reset(seed=0)
    ints = env.ints.copy()
    with pytest.raises(IllegalActionError, match=r"integer|shape|out of range"):
        env.step(bad)
    assert np.array_equal(env.ints, ints)
    gym_env = UnoGymVectorEnv(4, num_players=2)
    gym_env.reset(seed=0)
    ints = gym_env.env.ints.copy()
    with pytest.raises(IllegalActionError, match=r"integer|shape|out of range"):
        gym_env.step(bad)
    assert np.array_equal(gym_env.env.ints, ints)


@pytest.mark.parametrize("bad", BAD_BATCHES[:3])
def test_sb3_vec_env_refuses_bad_batches(bad):
    pytest.importorskip("stable_baselines3")
    from uno_env.vector import UnoSB3VecEnv

    env = UnoSB3VecEnv(4, num_players=2, seed=0)
    env.reset()
    ints = env.env.ints.copy()
    with pytest.raises(IllegalActionError):
        env.step_async(bad)
    assert np.array_equal(env.env.ints, ints)


# ---------------------------------------------------------------------- positions
BASE = {"hands": [["R1", "Y2"], ["G3", "B4"], ["R5"]], "discard_pile": ["R7"], "current_player": 0}


def varied(**changes):
    position = {**BASE, **changes}
    return {k: v for k, v in position.items() if v is not _DROP}


_DROP = object()

BAD_POSITIONS = [
    ("challenge_reveal", varied(challenge_reveal={"viewer": 1, "owner": 0, "hand": ["R1"] * 200})),
    ("challenge_reveal", varied(challenge_reveal={"viewer": 1, "owner": 0, "hand": ["W+4"] * 5})),
    ("challenge_reveal", varied(challenge_reveal={"viewer": 1, "owner": 1, "hand": []})),
    ("challenge_reveal", varied(challenge_reveal=["R1"])),
    ("challenge_reveal", varied(challenge_reveal={"viewer": 1, "owner": 0, "cards": []})),
    ("hands", varied(hands=[["W+4"] * 5, ["G3"], ["R5"]])),
    ("hands", varied(hands=[["R1"], ["G3"]])),
    ("hands", varied(hands="R1 G3 R5")),
    ("hands", varied(hands=_DROP)),
    ("terminated", varied(terminated=True)),
    ("truncated", varied(truncated=True)),
    ("terminated", varied(terminated="yes")),
    ("alive", varied(alive=["no", True, True])),
    ("alive", varied(alive=[1, 1, 1])),
    ("alive", varied(alive=[True, True])),
    ("alive", varied(alive=[True, False, False])),
    ("uno_called", varied(hands=[["R1", "Y2", "G1", "G2", "G4", "G5", "G6"], ["G3"], ["R5"]], uno_called=True)),
    ("uno_called", varied(uno_called="true")),
    ("rng", varied(rng=12345)),
    ("rng", varied(rng="0xZZ")),
    ("rng", varied(rng="0x" + "f" * 17)),
    ("rng", varied(rng="0x0")),
    ("direction", varied(direction=True)),
    ("direction", varied(direction=2)),
    ("direction", varied(direction=1.0)),
    ("phase", varied(phase="lunch")),
    ("phase", varied(phase=3)),
    ("colour", varied(colour=0)),
    ("colour", varied(colour="purple")),
    ("previous_colour", varied(previous_colour=[])),
    ("dealer", varied(dealer=3)),
    ("current_player", varied(current_player=None)),
    ("current_player", varied(current_player=1.0)),
    ("scores", varied(scores=[0, "1", 0])),
    ("scores", varied(scores=[2**40, 0, 0])),
    ("outcome", varied(outcome=[2, 0, 0])),
    ("round", varied(round=-1)),
    ("step", varied(step=2**40)),
    ("forfeit", varied(forfeit=7)),
    ("drew_on", varied(drew_on=["R", [], []])),
    ("drew_on", varied(drew_on=[["X"], [], []])),
    ("named_colour", varied(named_colour=["R", None])),
    ("named_colour", varied(named_colour=[["R"], None, None])),
    ("named_colour", varied(named_colour=["X", None, None])),
    ("drawn_card", varied(drawn_card="R1")),
    ("catch_window", varied(phase="catch", catch_window="seat 2")),
    ("catch_window", varied(phase="catch", catch_window={"exposed": 2})),
    ("wild_draw_four", varied(phase="challenge", wild_draw_four=None)),
    ("fashion_trend", varied(fashion_trend={"player": 0, "colour": "R"})),
    ("draw_pile", varied(draw_pile="...")),
    ("discard_pile", varied(discard_pile=[])),
    ("num_players", varied(num_players=4)),
    ("deck", varied(deck="fashion_trend")),
    ("", ["not", "a", "dict"]),
    ("", varied(foo=1)),
]


@pytest.mark.parametrize(
    "key,position", BAD_POSITIONS, ids=[f"{k or 'dict'}-{i}" for i, (k, _) in enumerate(BAD_POSITIONS)]
)
def test_bad_positions_name_the_key(key, position):
    game = Game(num_players=3)
    with pytest.raises(PositionError) as info:
        game.from_position(position, seed=0)
    assert info.value.key == key
    assert str(info.value).startswith(key)


def test_the_base_position_and_its_good_variants_load():
    game = Game(num_players=3)
    for position in (
        BASE,
        varied(hands=[["R1", "Y2"], ["G3", "B4"], ["R5"]], uno_called=True),
        # called UNO with two cards, then drew a playable card (reachable in play)
        varied(hands=[["R1", "Y2", "R3"], ["G3", "B4"], ["R5"]], uno_called=True, phase="drawn", drawn_card="R3"),
        varied(
            alive=[True, True, True],
            rng="0x1F",
            direction=-1,
            scores=[np.int64(3), 0, 0],
            round=1,
            last_winner=0,
            step=9,
        ),
        varied(challenge_reveal={"viewer": 1, "owner": 0, "hand": ["R1", "Y2"]}),
    ):
        state = game.from_position(position, seed=0)
        assert game.position(game.from_position(game.position(state))) == game.position(state)


def test_position_keys_table_is_generated_from_the_key_table():
    table = position_table()
    assert [line.split("`")[1] for line in table.splitlines()[2:]] == list(KEY_NAMES)
    assert len(KEYS) == len(set(KEY_NAMES))
    import pathlib

    root = pathlib.Path(uno_env.__file__).resolve().parent
    for path in (root / "engine" / "position" / "__init__.py", root.parent / "docs" / "envs.md"):
        assert f"<!-- position-table -->\n{table}\n<!-- /position-table -->" in path.read_text()
    dumped = Game(num_players=2).position(Game(num_players=2).init(seed=0))
    assert set(dumped) == set(KEY_NAMES)  # a dump writes every key the loader knows


# ---------------------------------------------------------------------- house-rule positions
STACK = {"stacking": "mixed"}
SAME = {"stacking": "same"}
SEVEN = {"num_players": 4, "seven_o": True}
JUMP = {"num_players": 4, "jump_in": True}
FORCE = {"force_play": True}
# the target of a Draw Two decides on its pending penalty
PENALTY = {**BASE, "discard_pile": ["R7", "R+2"], "current_player": 1, "phase": "penalty", "pending_penalty": 2}
PENALTY["top_card_player"] = 0
# ... of a Wild Draw Four naming blue (its player held no red: not guilty)
PENALTY_W4 = {
    **PENALTY,
    "discard_pile": ["R7", "W+4"],
    "colour": "B",
    "previous_colour": "R",
    "pending_penalty": 4,
    "wild_draw_four": {"offender": 0, "exposed": False},
}
PENALTY_W4["hands"] = [["Y1", "G2"], ["G3", "B4"], ["R5"]]
PENALTY_W4.pop("top_card_player")  # the offender's by default
CATCH_BEFORE_PENALTY = {
    **PENALTY,
    "hands": [["R1"], ["G3", "B4"], ["R5"]],
    "phase": "catch",
    "catch_window": {"exposed": 0, "next_player": 1},
}
HANDS4 = [["R1"], ["G3", "B4"], ["R5", "Y5"], ["B9"]]
# player 1 played a 7 and chooses whom to swap with
SWAP = {"hands": HANDS4, "discard_pile": ["R3", "R7"], "current_player": 1, "phase": "swap"}
# player 0 played R5; player 2 holds the other R5 and may jump in before player 1's turn
JUMP_IN = {
    "hands": [["R1", "Y1"], ["G3", "B4"], ["R5", "Y5"], ["B9"]],
    "discard_pile": ["R9", "R5"],
    "current_player": 2,
    "phase": "jump",
    "top_card_player": 0,
    "next_turn": 1,
}
DRAWN = {**BASE, "hands": [["R1", "Y2", "R3"], ["G3", "B4"], ["R5"]], "phase": "drawn", "drawn_card": "R3"}
INTERRUPTED = {  # truncated in the middle of a stacked Wild Draw Four's catch window
    **CATCH_BEFORE_PENALTY,
    "discard_pile": ["R7", "W+4"],
    "colour": "B",
    "previous_colour": "R",
    "pending_penalty": 4,
    "wild_draw_four": {"offender": 0, "exposed": False, "guilty": False},
    "phase": "over",
    "current_player": None,
    "truncated": True,
    "step": 20_000,  # the decision that reached max_steps
}
INTERRUPTED["hands"] = [["Y1"], ["G3", "B4"], ["R5"]]


def on(position, **changes):
    return {**position, **changes}


HOUSE_BAD_POSITIONS = [
    # stacking (R-HOUSE-STACK)
    ("phase", {}, PENALTY),  # no stacking
    ("pending_penalty", STACK, on(PENALTY, pending_penalty=0)),
    ("pending_penalty", STACK, on(PENALTY, phase="play")),
    ("pending_penalty", {}, on(PENALTY, phase="play")),  # stacking off
    ("pending_penalty", STACK, on(PENALTY, pending_penalty=-2)),
    ("pending_penalty", STACK, on(PENALTY, pending_penalty=3)),
    ("pending_penalty", STACK, on(PENALTY_W4, pending_penalty=2)),
    ("pending_penalty", SAME, on(PENALTY_W4, pending_penalty=6)),
    ("pending_penalty", STACK, on(CATCH_BEFORE_PENALTY, pending_penalty=0)),
    ("pending_penalty", STACK, on(PENALTY, phase="drawn", hands=[["R1", "Y2"], ["G3", "R4"], ["R5"]], drawn_card="R4")),
    ("phase", STACK, on(PENALTY, discard_pile=["R7", "R8"])),  # no draw card on top
    ("phase", STACK, on(PENALTY_W4, phase="challenge", pending_penalty=0)),
    ("wild_draw_four", STACK, on(PENALTY_W4, wild_draw_four=None)),
    ("wild_draw_four", STACK, on(PENALTY, wild_draw_four={"offender": 0})),  # a Draw Two on top
    ("wild_draw_four", STACK, on(PENALTY_W4, wild_draw_four={"offender": 1})),  # the target
    ("wild_draw_four", STACK, on(PENALTY_W4, wild_draw_four={"offender": 0, "exposed": True})),
    ("wild_draw_four", STACK, on(PENALTY_W4, wild_draw_four={"offender": 0, "guilty": True})),
    ("wild_draw_four", STACK, on(PENALTY_W4, wild_draw_four={"offender": 0, "verdict": True})),
    # not guilty, yet it holds red and drew nothing since (no catch: two cards)
    (
        "wild_draw_four",
        STACK,
        on(PENALTY_W4, hands=[["R1", "G2"], ["G3", "B4"], ["R5"]], wild_draw_four={"offender": 0, "guilty": False}),
    ),
    (
        "wild_draw_four",
        STACK,
        on(
            CATCH_BEFORE_PENALTY,
            discard_pile=["R7", "W+4"],
            colour="B",
            pending_penalty=4,
            wild_draw_four={"offender": 2},
        ),
    ),
    ("top_card_player", STACK, on(PENALTY_W4, top_card_player=2)),
    ("top_card_player", {**STACK, "jump_in": True}, on(PENALTY, top_card_player=None, pending_penalty=4)),
    ("top_card_player", {**STACK, "jump_in": True}, on(PENALTY_W4, top_card_player=None)),
    ("top_card_player", STACK, on(CATCH_BEFORE_PENALTY, top_card_player=2)),
    ("uno_called", STACK, on(PENALTY, hands=[["R1", "Y2"], ["G3", "B4", "B5"], ["R5"]], uno_called=True)),
    # Seven-O (R-HOUSE-SEVENO)
    ("phase", {"num_players": 4}, SWAP),  # no seven_o
    ("phase", SEVEN, on(SWAP, discard_pile=["R3", "R8"])),
    (
        "phase",
        {**SEVEN, "scoring": "challenge"},
        on(
            SWAP,
            hands=[[], ["G3", "B4"], ["R5", "Y5"], []],
            alive=[False, True, True, False],
            scores=[500, 0, 0, 500],
            dealer=1,
        ),
    ),
    ("top_card_player", SEVEN, on(SWAP, top_card_player=0)),
    ("next_turn", SEVEN, on(SWAP, next_turn=3)),
    ("next_turn", SEVEN, on(SWAP, phase="play", next_turn=2)),
    ("next_turn", {"num_players": 4}, on(SWAP, phase="play", next_turn=2)),  # neither seven_o nor jump_in
    ("uno_called", SEVEN, on(SWAP, uno_called=True)),
    ("last_swap", {"num_players": 4}, on(SWAP, phase="play", last_swap={"seat": 1, "other": 2})),
    ("last_swap", SEVEN, on(SWAP, last_swap={"seat": 1, "other": 1})),
    ("last_swap", SEVEN, on(SWAP, last_swap={"from": 1, "to": 2})),
    ("last_swap", SEVEN, on(SWAP, last_swap=[1, 2])),
    # Jump-In (R-HOUSE-JUMP)
    ("phase", {"num_players": 4}, JUMP_IN),  # no jump_in
    ("phase", JUMP, on(JUMP_IN, discard_pile=["R9", "W"], colour="R")),
    ("current_player", JUMP, on(JUMP_IN, current_player=3)),  # holds no R5
    ("top_card_player", JUMP, on(JUMP_IN, top_card_player=2)),  # it played the R5 itself
    ("top_card_player", JUMP, on(JUMP_IN, top_card_player=None)),  # no window on a starting card
    ("next_turn", JUMP, on(JUMP_IN, next_turn=2)),  # its own turn is next
    ("next_turn", JUMP, on(JUMP_IN, next_turn=None)),
    ("uno_called", JUMP, on(JUMP_IN, hands=[["R1", "Y1"], ["G3", "B4"], ["R5", "Y5", "G5"], ["B9"]], uno_called=True)),
    # draw to match and force play (R-HOUSE-DRAW, R-HOUSE-FORCE)
    ("drawn_card", FORCE, DRAWN),  # a drawn R3 that must be played is not decided on
    ("uno_called", {}, on(DRAWN, hands=[["R1", "Y2", "G2", "R3"], ["G3", "B4"], ["R5"]], uno_called=True)),
    # the top card's player in the classic phases
    ("top_card_player", {}, on(BASE, discard_pile=["W"], colour=None, phase="color", top_card_player=1)),
    ("top_card_player", {}, on(CATCH_BEFORE_PENALTY, phase="catch", pending_penalty=0, top_card_player=2)),
    ("top_card_player", {}, on(BASE, top_card_player=3)),
    # a finished game keeps a decision's keys only when it was cut short in it
    ("pending_penalty", STACK, on(INTERRUPTED, truncated=False, terminated=True, catch_window=None, last_winner=0)),
    ("drawn_card", {}, on(BASE, phase="over", current_player=None, terminated=True, last_winner=0, drawn_card="R1")),
    ("drawn_card", {}, on(BASE, phase="over", current_player=None, truncated=True, step=20_000, drawn_card="G9")),
    (
        "colour",
        {},
        on(BASE, discard_pile=["W"], colour=None, phase="over", current_player=None, terminated=True, last_winner=0),
    ),
]

HOUSE_GOOD_POSITIONS = [
    (STACK, PENALTY),
    (STACK, on(PENALTY, top_card_player=None)),  # a starting Draw Two (R-HOUSE-STACK-4)
    # without jump_in nothing reads the top card's player: it may be unknown (a sampled state)
    (STACK, on(PENALTY_W4, top_card_player=None)),
    ({}, on(CATCH_BEFORE_PENALTY, pending_penalty=0, top_card_player=None)),
    (STACK, on(PENALTY, uno_called=True, hands=[["R1", "Y2"], ["G+2", "B4"], ["R5"]])),
    (STACK, PENALTY_W4),
    (SAME, on(PENALTY_W4, pending_penalty=8)),
    (STACK, on(PENALTY_W4, pending_penalty=6)),
    # caught in the window before the decision: not guilty although it now holds red (D-HOUSE-STACK-JUDGE)
    (
        STACK,
        on(
            PENALTY_W4,
            hands=[["Y1", "R2", "R3"], ["G3", "B4"], ["R5"]],
            wild_draw_four={"offender": 0, "guilty": False},
        ),
    ),
    (STACK, CATCH_BEFORE_PENALTY),
    (STACK, INTERRUPTED),
    (SEVEN, SWAP),
    (SEVEN, on(SWAP, direction=-1, next_turn=0, last_swap={"seat": 2, "other": 3})),
    (JUMP, JUMP_IN),
    (JUMP, on(JUMP_IN, next_turn=0, hands=[["R1", "Y1"], ["G3", "B4"], ["R5", "Y5"], ["B9"]], uno_called=True)),
    ({"draw_until_playable": True}, on(DRAWN, hands=[["R1", "Y2", "G2", "R3"], ["G3", "B4"], ["R5"]], uno_called=True)),
    (FORCE, on(DRAWN, hands=[["R1", "R3"], ["G3", "B4"], ["R5"]])),  # UNO may be called first
    (FORCE, on(DRAWN, drawn_card="W", hands=[["R1", "Y2", "W"], ["G3", "B4"], ["R5"]])),
    ({**STACK, "seven_o": True, "jump_in": True}, on(BASE, top_card_player=2, last_swap={"seat": 2, "other": 0})),
]


@pytest.mark.parametrize("settings,position", HOUSE_GOOD_POSITIONS)
def test_house_rule_positions_load_consistent_and_round_trip(settings, position):
    dumped = loads_and_round_trips(settings, position)
    for key in ("phase", "pending_penalty", "top_card_player", "next_turn", "last_swap", "uno_called"):
        if key in position:
            assert dumped[key] == position[key], key


def test_house_rule_keys_default_to_what_the_decision_implies():
    swap = make_game(num_players=4, seven_o=True).position(make_game(num_players=4, seven_o=True).from_position(SWAP))
    assert (swap["top_card_player"], swap["next_turn"], swap["last_swap"]) == (1, 2, None)
    game = make_game(num_players=3, stacking="mixed")
    penalty = game.position(game.from_position(PENALTY_W4))
    assert penalty["top_card_player"] == 0
    assert penalty["wild_draw_four"] == {"offender": 0, "exposed": False, "guilty": False}
    classic = Game(num_players=3).position(Game(num_players=3).from_position(BASE))
    assert (classic["pending_penalty"], classic["top_card_player"], classic["next_turn"]) == (0, None, None)


def test_ctrl_c_ends_the_cli_without_a_traceback(monkeypatch, capsys):
    import types

    from uno_env.cli import main as cli

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "nap", ("fake_nap_module", "sleeps"))
    monkeypatch.setattr(cli.importlib, "import_module", lambda name: types.SimpleNamespace(main=interrupted))
    assert cli.main(["nap"]) == 130
    assert "interrupted" in capsys.readouterr().err


# ---------------------------------------------------------------------- unreachable positions
# what no game shows: scores, outcomes, counters and seats that the rules never leave
OVER = {**BASE, "phase": "over", "current_player": None, "terminated": True, "step": 40}
WON = {**OVER, "hands": [[], ["G3", "B4"], ["R5", "R1", "Y2"]], "last_winner": 0, "scores": [512, 0, 0]}
WON["outcome"] = [1, -1, -1]
ROUND_2 = {"round": 2, "step": 90, "last_winner": 1, "scores": [0, 30, 12]}
LATER = {**BASE, **ROUND_2}  # in a later round
CHALLENGE = {"scoring": "challenge"}
OUT = {  # Challenge UNO: seat 2 reached the target in an earlier round and is out
    **BASE,
    **ROUND_2,
    "hands": [["R1", "Y2"], ["G3", "B4", "R5"], []],
    "alive": [True, True, False],
    "scores": [0, 30, 512],
}
CHALLENGE_WON = {
    **OUT,
    **OVER,
    "step": 90,
    "hands": [[], ["G3", "B4", "R5"], ["R1", "Y2"]],
    "alive": [True, False, False],
    "scores": [0, 530, 512],
    "outcome": [1, -1, -1],
    "last_winner": 0,
}
PARTNERS = {"num_players": 4, "partners": True}
HANDS_4 = [["R1", "Y2"], ["G3", "B4"], ["R5"], ["G7"]]
LAST_WILD_DRAW_FOUR = {  # played as the last card: its target still accepts or challenges (R-END-2)
    **BASE,
    "hands": [[], ["G3", "B4"], ["R5", "R1", "Y2"]],
    "discard_pile": ["R7", "W+4"],
    "colour": "G",
    "previous_colour": "R",
    "phase": "challenge",
    "current_player": 1,
    "wild_draw_four": {"offender": 0},
}

UNREACHABLE_POSITIONS = [
    ("num_players", {}, on(BASE, num_players=3.0)),
    ("num_players", {}, on(BASE, num_players="3")),
    ("deck", {}, on(BASE, deck=["classic"])),
    # a number card on top sets the colour (only a wild names another)
    ("colour", {}, on(BASE, colour="B")),
    ("colour", {"deck": "fashion_trend"}, on(BASE, colour="G")),
    # counters: the decision that reaches max_steps truncates the game
    ("step", {}, on(BASE, step=20_000)),
    ("step", {}, on(BASE, step=2**31 - 2)),
    ("step", {"max_steps": 30}, on(OVER, step=31)),
    ("round", {}, on(BASE, round=5, step=3, last_winner=0)),
    ("round", {"episode": "round"}, on(LATER)),
    ("truncated", {"max_steps": 30}, on(OVER, terminated=False, truncated=True, step=12)),
    ("terminated", {}, on(OVER, terminated=False)),
    ("current_player", {}, on(WON, current_player=0)),
    ("truncated", {"max_steps": 40}, on(OVER, truncated=True)),
    # scores: never negative, 0 before the first round's end, under the target in play
    ("scores", {}, on(BASE, scores=[-3, 0, 0], round=1, step=9, last_winner=0)),
    ("scores", {}, on(LATER, scores=[500, 0, 0])),
    ("scores", {"scoring": "alternative", "target_score": 50}, on(LATER, scores=[10, 50, 0])),
    ("scores", {}, on(LATER, scores=[10**6, 0, 0])),
    ("scores", PARTNERS, on(LATER, hands=HANDS_4, scores=[10, 10, 0, 0])),  # partners sit across: 0 and 2
    # seats: eliminated only under Challenge UNO, with a score at the target, and out of play
    ("alive", {}, on(OUT, scores=[0, 0, 0])),
    ("alive", {**CHALLENGE, "episode": "round"}, on(OUT, round=0, last_winner=None, scores=[0, 0, 0])),
    ("scores", CHALLENGE, on(OUT, scores=[0, 30, 12])),
    ("scores", CHALLENGE, on(OUT, scores=[0, 600, 512])),
    ("dealer", CHALLENGE, on(OUT, dealer=2)),
    ("drew_on", CHALLENGE, on(OUT, drew_on=[[], [], ["R"]])),
    ("named_colour", CHALLENGE, on(OUT, named_colour=[None, None, "G"])),
    ("outcome", CHALLENGE, on(OUT, outcome=[0, 0, 0])),
    ("outcome", {}, on(BASE, outcome=[1, -1, -1])),
    ("forfeit", {}, on(OVER, forfeit=0)),  # illegal_action is not 'lose'
    ("forfeit", {"illegal_action": "lose"}, on(BASE, forfeit=0)),
    ("last_winner", {}, on(BASE, last_winner=1)),  # round 0: nobody won a round yet
    ("last_winner", CHALLENGE, on(OUT, last_winner=2)),
    # hands: empty only once the round is over (the offender of a last Wild Draw Four aside)
    ("hands", {}, on(BASE, hands=[[], ["G3", "B4"], ["R5", "R1", "Y2"]])),
    ("hands", {}, on(BASE, hands=[["R1", "Y2", "R5"], ["G3", "B4"], []])),
    ("hands", {}, on(LAST_WILD_DRAW_FOUR, hands=[[], [], ["R5", "R1", "Y2", "G3", "B4"]])),
    # how a finished game ended
    ("outcome", {}, on(WON, outcome=[0, 0, 0])),
    ("outcome", {}, on(WON, outcome=[1, 1, -1])),
    ("scores", {}, on(WON, scores=[12, 0, 0])),
    ("last_winner", {}, on(WON, last_winner=None)),
    ("scores", {"scoring": "alternative"}, on(WON, scores=[0, 40, 12])),
    ("outcome", {"scoring": "alternative"}, on(WON, scores=[12, 512, 12])),
    ("alive", CHALLENGE, on(WON, scores=[0, 40, 12])),
    ("scores", CHALLENGE, on(CHALLENGE_WON, scores=[500, 530, 512])),
]

REACHABLE_POSITIONS = [
    ({}, on(BASE, num_players=np.int64(3), scores=[np.int64(3), 0, 0], round=1, step=9, last_winner=0)),
    ({}, on(BASE, discard_pile=["R7", "W"], colour="B")),  # a Wild names any colour
    ({"deck": "fashion_trend"}, on(BASE, discard_pile=["R7", "FT"], colour="G")),
    ({}, on(BASE, step=19_999)),
    ({"max_steps": 40}, on(OVER, terminated=False, truncated=True)),
    ({}, WON),
    ({"episode": "round"}, on(WON, scores=[12, 0, 0])),
    ({"scoring": "alternative"}, on(WON, scores=[0, 512, 12])),
    ({"scoring": "alternative"}, on(WON, scores=[12, 512, 12], outcome=[1, -1, 1])),
    ({"illegal_action": "lose"}, on(OVER, forfeit=1, outcome=[0, -1, 0])),
    (PARTNERS, on(LATER, hands=HANDS_4, scores=[10, 0, 10, 0], last_winner=0)),
    (CHALLENGE, OUT),
    (CHALLENGE, CHALLENGE_WON),
    ({}, LAST_WILD_DRAW_FOUR),
]


@pytest.mark.parametrize(
    "key,settings,position",
    HOUSE_BAD_POSITIONS + UNREACHABLE_POSITIONS,
    ids=[f"house-{k}-{i}" for i, (k, _, _) in enumerate(HOUSE_BAD_POSITIONS)]
    + [f"{k}-{i}" for i, (k, _, _) in enumerate(UNREACHABLE_POSITIONS)],
)
def test_unreachable_positions_name_the_key(key, settings, position):
    """A position that no game under the configuration reaches (3 players unless the
    settings say), or a house-rule key in a configuration without that rule, is refused
    naming the key at fault."""
    game = make_game(**{"num_players": 3, **settings})
    with pytest.raises(PositionError) as info:
        game.from_position(position, seed=0)
    assert info.value.key == key, info.value
    assert str(info.value).startswith(key)


@pytest.mark.parametrize("settings,position", REACHABLE_POSITIONS)
def test_reachable_positions_beside_them_load(settings, position):
    loads_and_round_trips(settings, position)


def loads_and_round_trips(settings: dict, position: dict) -> dict:
    """Load ``position`` (3 players unless the settings say): consistent with the engine's
    invariants while in play, and its dump reloads to itself. Returns the dump."""
    game = make_game(**{"num_players": 3, **settings})
    state = game.from_position(position, seed=0)
    if not game.is_over(state):
        assert invariant_violations(game, state) == []
    dumped = game.position(state)
    assert game.position(game.from_position(dumped)) == dumped
    return dumped


def test_a_refused_position_draws_no_fresh_seed(monkeypatch):
    """Unseeded, a position takes a fresh seed from the OS only once it is found valid."""
    import uno_env.engine.seeding as seeding

    drawn = []
    monkeypatch.setattr(seeding, "fresh_seed", lambda: drawn.append(1) or 12345)
    game = Game(num_players=3)
    refused = [p for _, p in BAD_POSITIONS[:5]] + [p for _, s, p in UNREACHABLE_POSITIONS if not s][:5]
    for position in refused:
        with pytest.raises(PositionError):
            game.from_position(position)
    assert drawn == []
    game.from_position(BASE)
    assert drawn == [1]
