"""The agent protocol (docs/PROTOCOL.md) as the host speaks it: the handshake, the decisions,
the round and game ends, nothing a seat may not see, the play loop's hooks, and the doc's
example (written by ``python -m uno_env.docs --write``), which is checked against what a
program run as a process really reads and writes."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from uno_env.agents import make_agent
from uno_env.agents.following import FollowingAgent
from uno_env.agents.protocol import PROTOCOL, Messages, ProtocolError, parse_action, parse_ready
from uno_env.engine import Game
from uno_env.engine.events import seen_by
from uno_env.engine.observers import with_hooks
from uno_env.protocol_doc import EXAMPLE_HEAD, EXAMPLE_SEED, EXAMPLE_TAIL, example_exchange

BOTS = Path(__file__).resolve().parent / "bots"


def bot(script: str, *args: str) -> str:
    return "cmd:" + shlex.join([sys.executable, str(BOTS / script), *args])


def logged_game(game: Game, seat: int, seed: int, folder: Path, others: str = "tactical") -> tuple[list, object]:
    """Play one game with the log bot at ``seat``: (the lines it read and wrote, the state)."""
    log = folder / "log.txt"
    agent = make_agent(bot("log_bot.py", str(log)), game, seed=7)
    players = [agent if s == seat else make_agent(others, game, seed=s) for s in range(game.num_players)]
    state = game.init(seed=seed)
    game.play(state, players)
    agent.close()
    return log.read_text(encoding="utf-8").splitlines(), state


def test_the_handshake_the_decisions_and_the_ends(tmp_path):
    game = Game(num_players=3, episode="game", target_score=150)
    lines, state = logged_game(game, seat=1, seed=6, folder=tmp_path)
    read = [json.loads(line[2:]) for line in lines if line.startswith("> ")]
    written = [json.loads(line[2:]) for line in lines if line.startswith("< ")]
    hello = read[0]
    assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL == 1
    assert (hello["seat"], hello["num_players"], hello["seed"]) == (1, 3, 7)
    assert hello["rules"] == game.config.to_dict()
    assert hello["actions"] == list(game.actions.strings)
    assert list(hello["observation_labels"]) == [s.name for s in game.obs_spec.slices]
    assert hello["observation_labels"]["hand"][:2] == ["R0", "R1"]
    assert written[0] == {"type": "ready", "name": "log_bot"}
    decisions = [m for m in read if m["type"] == "decision"]
    assert len(decisions) == len(written) - 1 > 10
    for message, answer in zip(decisions, written[1:]):
        assert set(message) == {"type", "observation", "legal", "events"}
        assert list(message["observation"]) == list(hello["observation_labels"])
        assert answer["action"] == message["legal"][0]["action"]
        assert all(game.actions.strings[item["id"]] == item["action"] for item in message["legal"])
    rounds = [m for m in read if m["type"] == "round_end"]
    assert len(rounds) == game.round_number(state) + 1 >= 2
    for message in rounds:
        assert message["events"][-1]["type"] == "score" or message["events"][-1]["type"] == "round_end"
        assert any(e["type"] == "round_end" and e["winner"] == message["winner"] for e in message["events"])
        assert message["scores"] == [
            {k: e[k] for k in ("seat", "points", "total")} for e in message["events"] if e["type"] == "score"
        ]
    end = read[-1]
    assert end["type"] == "game_end"
    assert end["outcome"] == game.outcome(state) and end["scores"] == game.scores(state)
    assert [m["type"] for m in read].count("hello") == 1


VARIANTS = [
    {"num_players": 3, "episode": "round"},
    {"num_players": 4, "deck": "fashion_trend", "episode": "round", "partners": True},
    {"num_players": 3, "episode": "round", "jump_in": True, "seven_o": True, "stacking": "mixed"},
]


@pytest.mark.parametrize("settings", VARIANTS, ids=["classic", "fashion_trend", "house_rules"])
def test_messages_carry_nothing_a_seat_may_not_see(settings, tmp_path):
    """At every seat a program: what it reads is its own observation at each decision, and the
    events exactly as its seat saw them (others' drawn cards hidden, others' jump-in passes left
    out), each once and in order, from the deal to the end."""
    game = Game(**settings)
    n = game.num_players
    messages = Messages(game)
    logs = [tmp_path / f"seat{s}.txt" for s in range(n)]
    agents = [make_agent(bot("log_bot.py", str(logs[s])), game, seed=s) for s in range(n)]
    expected: list[list] = [[] for _ in range(n)]

    def recording(seat: int):
        def act(observation, mask):
            expected[seat].append(messages.observation(observation))
            return agents[seat](observation, mask)

        return with_hooks(act, agents[seat])

    state = game.init(seed=11)
    god = list(game.events(state))
    game.play(state, [recording(s) for s in range(n)], on_step=lambda seat, action: god.extend(game.events(state)))
    hidden = 0
    for s in range(n):
        agents[s].close()
        read = [json.loads(line[2:]) for line in logs[s].read_text().splitlines() if line.startswith("> ")]
        told = [e for m in read for e in m.get("events", [])]
        assert told == seen_by(god, s)
        assert [m["observation"] for m in read if m["type"] == "decision"] == expected[s]
        hidden += sum(1 for e in told if e["type"] in ("draw", "trend_show") and e["card"] is None)
        assert not any(e["type"] == "jump_pass" and e["seat"] != s for e in told)
    assert hidden > 0  # others' cards were drawn, and hidden


@pytest.mark.parametrize("settings", VARIANTS, ids=["classic", "fashion_trend", "house_rules"])
def test_the_observation_text_is_json_of_the_named_fields(settings):
    """The decision's observation (written the fast way) is exactly ``observe_dict`` as JSON."""
    game = Game(**settings, target_score=100)
    messages = Messages(game)
    agents = [make_agent("random", game, seed=s) for s in range(game.num_players)]
    state = game.init(seed=2)
    checked = 0
    while not game.is_over(state) and checked < 300:
        seat = game.current_player(state)
        observation = game.observe(state, seat)
        named = {k: v.tolist() for k, v in game.observe_dict(state, seat).items()}
        assert json.loads(messages.observation_json(observation)) == named
        assert messages.observation_json(observation) == json.dumps(
            messages.observation(observation), separators=(",", ":")
        )
        game.step(state, agents[seat](observation, game.legal_mask(state)))
        checked += 1
    huge = game.observe(state, 0)
    huge[game.obs_spec.offset("scores")] = 10**6  # beyond the looked-up texts: the slow way, the same JSON
    assert json.loads(messages.observation_json(huge))["scores"][0] == 10**6


def test_parse_the_answers():
    game = Game(num_players=2)
    assert parse_action(b'{"action": "play R7"}', game) == game.string_to_action("play R7")
    assert parse_action(b'{"action": "PLAY  w+4 green"}', game) == game.string_to_action("play W+4 G")
    assert parse_action(b'{"action": 12, "note": "kept"}', game) == 12
    assert parse_action(b'{"action": 12.0}', game) == 12
    for line, words in [
        (b"play R7", "not a line of JSON"),
        (b'["play R7"]', "expected a JSON object"),
        (b'{"move": "draw"}', 'expected {"action"'),
        (b'{"action": "fly"}', "action 'fly'"),
        (b'{"action": true}', "an action text or an id"),
        (b'{"action": 100000}', "an action text or an id"),
        (b'{"action": -1}', "an action text or an id"),
        (b"\xff\xfe", "not a line of JSON"),
    ]:
        with pytest.raises(ProtocolError, match=re.escape(words)):
            parse_action(line, game)
    assert parse_ready(b'{"type": "ready", "name": "x", "text": true}')["text"] is True
    for line in (b'{"type": "hello"}', b'{"type": "ready", "name": 3}', b'{"type": "ready", "text": "yes"}'):
        with pytest.raises(ProtocolError):
            parse_ready(line)


class Follower(FollowingAgent):
    """Writes down what the hooks tell it."""

    name = "follower"

    def __init__(self, rules, seed=0):
        self.seen: list = []
        super().__init__(rules, seed)

    def act(self, observation, mask):
        self.seen.append(("decide", self.seat, len(self.take_events())))
        return int(np.flatnonzero(mask)[0])

    def game_started(self):
        self.seen.append(("start", self.seat, self.game_seed()))

    def round_ended(self, events):
        self.seen.append(("round", events[-1]["type"]))

    def game_ended(self, outcome, scores):
        self.seen.append(("end", outcome[self.seat]))


def test_the_play_loop_tells_following_agents_each_step_once():
    game = Game(num_players=2, episode="round")
    follower, other = Follower(game, seed=3), make_agent("tactical", game)
    for seed in (1, 2):
        state = game.init(seed=seed)
        players = {0: other, 1: follower}
        game.play(state, players, until=1)
        game.play(state, players, until=1)  # nothing happened: the same step is not told again
        game.play(state, players)
        game.play(state, players)  # over: the end is not told again
    starts = [entry for entry in follower.seen if entry[0] == "start"]
    assert starts == [("start", 1, 3), ("start", 1, follower.game_seed())] and follower.games == 2
    kinds = [entry[0] for entry in follower.seen]
    assert kinds.count("end") == kinds.count("round") == 2
    assert kinds[-2:] == ["round", "end"] and follower.seen[-2] == ("round", "score")
    first_decisions = [follower.seen[k + 1] for k, kind in enumerate(kinds) if kind == "start"]
    assert all(kind == "decide" and events > 0 for kind, _, events in first_decisions)  # the deal, told


def test_one_following_agent_plays_one_seat():
    game = Game(num_players=3, episode="round")
    follower = Follower(game)
    with pytest.raises(ValueError, match="one agent plays one seat, here seats 0 and 1"):
        game.play(game.init(seed=1), [follower, follower, make_agent("random", game)])


# ---------------------------------------------------------------------- the doc's example


def test_the_doc_example_is_what_a_program_reads_and_writes(tmp_path):
    """The example exchange of docs/PROTOCOL.md (:func:`uno_env.protocol_doc.example_exchange`,
    written by ``python -m uno_env.docs --write``) is what a program run as a process reads
    and writes in the same hand."""
    lines, _ = logged_game(Game(num_players=2, episode="round"), seat=0, seed=EXAMPLE_SEED, folder=tmp_path)
    seen = [("host" if line.startswith(">") else "program", json.loads(line[2:])) for line in lines]
    assert seen == example_exchange()
    assert len(seen) > EXAMPLE_HEAD + EXAMPLE_TAIL
