"""The list of bad inputs: every entry point refuses them with a clear error naming the
problem, and nothing changes."""

import numpy as np
import pytest

import uno_env
from uno_env import UnoGymEnv
from uno_env.engine import Game, IllegalActionError, PositionError
from uno_env.engine.position import KEY_NAMES, KEYS, position_table
from uno_env.vector import UnoGymVectorEnv, UnoVectorEnv

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
        varied(alive=[True, True, True], rng="0x1F", direction=-1, scores=[np.int64(3), 0, 0]),
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
    for path in (root / "engine" / "position.py", root.parent / "README.md"):
        assert f"<!-- position-table -->\n{table}\n<!-- /position-table -->" in path.read_text()
    dumped = Game(num_players=2).position(Game(num_players=2).init(seed=0))
    assert set(dumped) == set(KEY_NAMES)  # a dump writes every key the loader knows


def test_ctrl_c_ends_the_cli_without_a_traceback(monkeypatch, capsys):
    import types

    from experiments import cli

    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setitem(cli.COMMANDS, "nap", ("fake_nap_module", "sleeps"))
    monkeypatch.setattr(cli.importlib, "import_module", lambda name: types.SimpleNamespace(main=interrupted))
    assert cli.main(["nap"]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_the_cli_refuses_an_agents_package_from_another_distribution(monkeypatch, tmp_path, capsys):
    import sys

    from experiments import cli

    fake = tmp_path / "agents"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "agents", raising=False)
    assert cli.main(["bench", "--help"]) == 2
    err = capsys.readouterr().err
    assert "'agents' comes from" in err and "another distribution" in err
    monkeypatch.undo()
    assert cli.foreign_packages() == []  # the project's own packages pass
