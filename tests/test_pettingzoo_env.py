"""The PettingZoo AEC environment."""

import json
import os
import subprocess
import sys
import textwrap
import warnings
from xml.etree import ElementTree

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import uno_env
from uno_env import IllegalActionError

from . import variants
from .test_observation import permute_hidden


@pytest.mark.parametrize("settings", variants.params("pettingzoo"))
def test_api_test_passes(settings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(uno_env.env(**settings), num_cycles=400)


@pytest.mark.parametrize("settings", variants.params("seed"))
def test_seed_test_passes(settings):
    seed_test(lambda: uno_env.env(**settings), num_cycles=200)


@pytest.mark.parametrize("settings", variants.params("render"))
def test_render_test_passes(settings):
    render_test(lambda render_mode=None: uno_env.env(render_mode=render_mode, **settings))


def test_registered_with_pettingzoo_and_metadata():
    env = pettingzoo.make("aec", uno_env.ENV_ID, num_players=4)
    assert env.unwrapped.config.num_players == 4
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2", "player_3"]
    meta = env.unwrapped.metadata
    assert meta["name"] == "uno_v1" and meta["is_parallelizable"] is False
    assert set(meta["render_modes"]) == {"human", "ansi", "rgb_array", "svg"}
    assert env.action_space("player_0").n == 70
    with pytest.raises(ValueError, match="num_players"):
        uno_env.env(num_players=11)
    with pytest.raises(ValueError, match="bogus"):
        uno_env.env(bogus=1)


def test_only_the_acting_agent_has_actions():
    env = uno_env.env(num_players=4)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(300):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        for other in env.agents:
            mask = env.unwrapped.observe(other)["action_mask"]
            assert (mask.sum() > 0) == (other == agent)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def test_actions_as_text_and_positions():
    env = uno_env.env(num_players=3)
    raw = env.unwrapped
    assert raw.decode_action(raw.encode_action("play W+4 G")) == "play W+4 G"
    for action in range(env.action_space("player_0").n):
        assert raw.encode_action(raw.decode_action(action)) == action
    position = {"hands": [["R2", "G9", "B1"], ["Y1"], ["G1"]], "discard_pile": ["R7"], "current_player": 0}
    env.reset(seed=1, options={"position": position})
    assert env.agent_selection == "player_0"
    assert set(raw.legal_actions()) == {"play R2", "draw"}
    env.step(raw.encode_action("play R2"))
    assert env.agent_selection == "player_1"
    dumped = raw.position()
    assert json.loads(json.dumps(dumped)) == dumped and dumped["discard_pile"] == ["R7", "R2"]


def test_reset_from_deck_order_and_dealer():
    from .conftest import deck_with

    env = uno_env.env(num_players=2)
    deck = deck_with(["R1", "Y1", "R2", "Y2", "R3", "Y3", "R4", "Y4", "R5", "Y5", "R6", "Y6", "R7", "Y7", "G7"])
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    assert env.agent_selection == "player_0"
    assert env.unwrapped.position()["hands"][0] == ["R1", "R2", "R3", "R4", "R5", "R6", "R7"]
    with pytest.raises(ValueError, match="missing"):
        env.reset(options={"deck": ["R1"]})
    with pytest.warns(UserWarning, match="ignored reset option"):
        env.reset(options={"colour": "R"})


def test_observation_dict_and_no_hidden_information():
    env = uno_env.env(num_players=4, deck="fashion_trend")
    raw = env.unwrapped
    env.reset(seed=21)
    rng = np.random.default_rng(2)
    for _ in env.agent_iter(200):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        position = raw.position()
        for seat, other in enumerate(raw.possible_agents):
            view = raw.observation_dict(other)
            assert view["hand"].sum() == len(position["hands"][seat])
            twin = uno_env.env(num_players=4, deck="fashion_trend")
            twin.reset(options={"position": permute_hidden(raw.game, position, seat, rng)})
            assert np.array_equal(twin.unwrapped.observe(other)["observation"], raw.observe(other)["observation"])
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def play_out(env, chooser):
    """Play to the end; returns each agent's total reward as seen through last()."""
    returns = {agent: 0.0 for agent in env.possible_agents}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        returns[agent] += reward
        env.step(None if termination or truncation else chooser(env, agent, observation))
    return returns


def test_reward_goes_to_the_winner_through_the_aec_cycle():
    env = uno_env.env(num_players=3, episode="round")
    env.reset(
        options={
            "position": {"hands": [["R2"], ["Y1", "Y2"], ["G1", "G2"]], "discard_pile": ["R7"], "current_player": 0}
        }
    )
    returns = play_out(env, lambda e, a, o: e.unwrapped.encode_action("play R2"))
    assert returns == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_reward_arising_in_an_opponents_step_reaches_the_winner():
    """The last card is a Wild Draw Four: the round ends in the target's step."""
    env = uno_env.env(num_players=3, episode="round")
    env.reset(
        options={
            "position": {"hands": [["G1", "G2"], ["W+4"], ["Y1", "Y2"]], "discard_pile": ["R7"], "current_player": 1}
        }
    )

    def choose(e, agent, observation):
        return e.unwrapped.encode_action("play W+4 G" if agent == "player_1" else "accept")

    returns = play_out(env, choose)
    assert returns == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0}


def test_eliminated_agents_leave_env_agents():
    env = uno_env.env(num_players=3, scoring="challenge", target_score=50)
    raw = env.unwrapped
    env.reset(
        options={"position": {"hands": [["R2"], ["W", "W"], ["G1", "G2"]], "discard_pile": ["R7"], "current_player": 0}}
    )
    env.step(raw.encode_action("play R2"))
    assert env.terminations["player_1"] and env.agent_selection == "player_1"
    assert env._cumulative_rewards["player_1"] == -1
    _, reward, termination, _, _ = env.last()
    assert reward == -1 and termination
    env.step(None)
    assert env.agents == ["player_0", "player_2"] and env.agent_selection in env.agents


@pytest.mark.parametrize("mode", ["penalty", "raise", "lose"])
def test_illegal_action_settings(mode):
    env = uno_env.env(num_players=3, illegal_action=mode)
    raw = env.unwrapped
    position = {"hands": [["R2", "G9", "B1"], ["Y1"], ["G1"]], "discard_pile": ["R7"], "current_player": 0}
    env.reset(options={"position": position})
    wrong = raw.encode_action("play G9")
    if mode == "penalty":
        env.step(wrong)
        assert len(raw.position()["hands"][0]) == 5 and env.agent_selection == "player_1"
        with pytest.raises(IllegalActionError, match="not available"):
            env.step(raw.encode_action("challenge"))
    elif mode == "raise":
        with pytest.raises(IllegalActionError):
            env.step(wrong)
        assert raw.position()["hands"][0] == ["R2", "G9", "B1"]
    else:
        env.step(raw.encode_action("accept"))
        assert all(env.terminations.values())
        assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


def test_out_of_range_actions_are_refused():
    env = uno_env.env(num_players=2)
    env.reset(seed=0)
    before = env.unwrapped.position()
    for bad in (10**6, 2**63, -1, True, 1.0, "1", None, np.array([1]), np.float32(3)):
        with pytest.raises(IllegalActionError, match="out of range|integer action id"):
            env.step(bad)
    assert env.unwrapped.position() == before
    env.step(np.int64(env.unwrapped.encode_action("draw")))  # numpy integers are ids too
    raw = uno_env.raw_env(num_players=2)
    raw.reset(seed=0)
    for bad in (-1, 70, "draw", 1.5):
        with pytest.raises(IllegalActionError):
            raw.step(bad)
    assert raw.position() == before


SCRIPT = textwrap.dedent(
    """
    import json, numpy as np, uno_env
    env = uno_env.env(num_players=4)
    env.reset(seed=77)
    rng = np.random.default_rng(5)
    trace = []
    for agent in env.agent_iter(600):
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        trace.append([agent, action, float(reward), float(observation["observation"].sum())])
        env.step(action)
    print(json.dumps(trace))
    """
)


def test_same_seed_same_trajectory_in_separate_processes():
    outputs = []
    for hash_seed in ("1", "4242"):
        environ = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=environ, capture_output=True, text=True, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and len(json.loads(outputs[0])) > 100


def test_render_modes():
    env = uno_env.env(num_players=3, render_mode="ansi", render_seat=1)
    env.reset(seed=4)
    text = env.render()
    hands = env.unwrapped.position()["hands"]
    assert " ".join(hands[1]) in text and " ".join(hands[0]) not in text
    env = uno_env.env(num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3 and image.std() > 10
    env = uno_env.env(num_players=3, render_mode="svg", render_seat=1)
    env.reset(seed=4)
    svg = env.render()
    root = ElementTree.fromstring(svg)  # a well-formed SVG document
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]  # the face-up cards
    hands = env.unwrapped.position()["hands"]
    assert titles[1:] == hands[1] and titles[0] == env.unwrapped.position()["discard_pile"][-1]
    assert svg.count(">UNO</text>") == len(hands[0]) + len(hands[2])  # the others' cards face down
    with pytest.raises(ValueError, match="render_mode"):
        uno_env.env(render_mode="3d")
    with pytest.raises(ValueError, match="render_seat"):
        uno_env.env(num_players=3, render_seat=5)


def test_doc_tables_are_generated_from_the_code():
    from uno_env.docs import stale_files

    assert stale_files() == []
    doc = uno_env.env.__module__ and sys.modules["uno_env.env"].__doc__
    assert "<!-- action-table -->" in doc and "| 60 | `draw` |" in doc and "| `hand` | 0 | 54 |" in doc


def test_position_resets_after_a_seeded_reset_are_deterministic():
    position = {"hands": [["R2"], ["Y1"]], "discard_pile": ["R7"], "current_player": 0}
    piles = []
    for _ in range(2):
        env = uno_env.env(num_players=2)
        env.reset(seed=3)
        env.reset(options={"position": position})
        piles.append(env.unwrapped.position()["draw_pile"])
    assert piles[0] == piles[1] and len(piles[0]) == 105
