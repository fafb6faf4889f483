"""Game records (uno_env.engine.record): a game written as JSON replays exactly, under
every rule variant and from every kind of start; a tampered record is refused naming
the step."""

import copy
import json

import numpy as np
import pytest

from uno_env.agents import make_agent
from uno_env.engine import Game, RuleConfig
from uno_env.engine.record import Recorder, RecordError, load, replay, save

from .variants import params


def random_policy(seed):
    rng = np.random.default_rng(seed)
    return lambda obs, mask: int(rng.choice(np.flatnonzero(mask)))


def played(game, state, policies, max_steps=400, agents=None, annotate=False):
    """Play up to ``max_steps`` decisions, recording them (with the mask's size as an
    annotation when ``annotate``); returns the record and the events of every step."""
    recorder = Recorder(game, state, agents=agents)
    events = [game.events(state)]
    for _ in range(max_steps):
        if game.is_over(state):
            break
        seat = game.current_player(state)
        mask = game.legal_mask(state)
        action = policies[seat](game.observe(state, seat), mask)
        game.step(state, action)
        recorder.add(seat, action, {"legal": int(mask.sum())} if annotate else None)
        events.append(game.events(state))
    return recorder.record(), events


@pytest.mark.parametrize("variant", params("agreement"))
def test_a_record_replays_the_same_game_step_by_step(variant):
    game = Game(RuleConfig(**variant))
    state = game.init(seed=11)
    record, events = played(game, state, [random_policy(s) for s in range(game.num_players)])
    record = json.loads(json.dumps(record))  # what a file holds
    seen = []
    final = replay(record, on_step=lambda step, seat, action, s: seen.append(game.events(s)))
    assert game.position(final) == game.position(state)
    assert seen == events[1:]


def test_records_of_compiled_agents_through_game_play_carry_their_names():
    game = Game(num_players=3, episode="game", target_score=100)
    state = game.init(seed=4, dealer=1)
    names = ["tactical", "keeper", "random_play"]
    agents = [make_agent(name, game, seed=s) for s, name in enumerate(names)]
    recorder = Recorder(game, state, agents=names)
    game.play(state, agents, on_step=recorder.on_step)
    record = recorder.record()
    assert record["agents"] == names and record["result"]["phase"] == "over"
    assert game.position(replay(record)) == game.position(state)


def test_starts_from_a_seed_and_from_a_deck_replay_too():
    game = Game(num_players=2)
    policies = [random_policy(1), random_policy(2)]
    state = game.init(seed=8, dealer=0)
    record, _ = played(game, state, policies, max_steps=60)
    by_seed = {**record, "start": {"seed": 8, "dealer": 0}}
    assert game.position(replay(by_seed)) == game.position(state)
    dealt = game.position(game.init(seed=30))
    deck = [*dealt["discard_pile"], *sum(dealt["hands"], []), *dealt["draw_pile"]]  # the 108 cards in some order
    state = game.init_from_deck(deck, dealer=1, seed=3)
    record, _ = played(game, state, policies, max_steps=60)
    by_deck = {**record, "start": {"deck": deck, "dealer": 1, "seed": 3}}
    assert game.position(replay(by_deck)) == game.position(state)


def test_annotations_and_files_round_trip(tmp_path):
    game = Game(num_players=2, stacking="mixed", seven_o=True)
    state = game.init(seed=5)
    record, _ = played(game, state, [random_policy(3), random_policy(4)], max_steps=80, annotate=True)
    path = save(record, tmp_path / "game.json")
    again = load(path)
    assert again == json.loads(json.dumps(record))
    assert [a["legal"] for a in again["annotations"]][:3] and len(again["annotations"]) == len(again["actions"])
    assert game.position(replay(again)) == game.position(state)


@pytest.fixture(scope="module")
def a_record():
    game = Game(num_players=3)
    state = game.init(seed=21)
    record, _ = played(game, state, [random_policy(s) for s in range(3)], max_steps=120)
    return record


def tampered(record, change):
    out = copy.deepcopy(record)
    change(out)
    return out


def test_a_tampered_record_is_refused_naming_the_step(a_record):
    game = Game(num_players=3)
    step = 7
    seat = a_record["seats"][step]
    state = replay(
        {**a_record, "actions": a_record["actions"][:step], "seats": a_record["seats"][:step], "result": None}
    )
    illegal = int(np.flatnonzero(game.legal_mask(state) == 0)[-1])
    with pytest.raises(RecordError, match=f"step {step}: action {illegal} refused") as err:
        replay(tampered(a_record, lambda r: r["actions"].__setitem__(step, illegal)))
    assert err.value.step == step
    with pytest.raises(RecordError, match=f"step {step}: recorded for seat {(seat + 1) % 3}, but seat {seat}"):
        replay(tampered(a_record, lambda r: r["seats"].__setitem__(step, (seat + 1) % 3)))
    with pytest.raises(RecordError, match="result: the replay ends with step="):
        replay(tampered(a_record, lambda r: (r["actions"].pop(), r["seats"].pop())))
    with pytest.raises(RecordError, match="scores"):
        replay(tampered(a_record, lambda r: r["result"].__setitem__("scores", [1, 2, 3])))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.__setitem__("format", "chess"), "format: expected"),
        (lambda r: r.__setitem__("version", 99), "version: this code reads versions 1..1, got 99"),
        (lambda r: r.__setitem__("version", True), "version"),
        (lambda r: r.__setitem__("actions", [1.5]), "actions: expected a list of integers"),
        (lambda r: r["seats"].pop(), "seats: one per action"),
        (lambda r: r.__setitem__("start", {}), "start: expected one of position, deck, seed"),
        (lambda r: r.__setitem__("annotations", [None]), "annotations: one entry"),
        (lambda r: r.__setitem__("agents", [1, 2, 3]), "agents: expected a list of names"),
        (lambda r: r["settings"].__setitem__("num_players", 1), "settings:"),
        (lambda r: r["start"]["position"].__setitem__("phase", "nonsense"), "start:"),
    ],
)
def test_malformed_records_are_refused_naming_the_key(a_record, change, message):
    with pytest.raises(RecordError, match=message):
        replay(tampered(a_record, change))


def test_a_game_of_other_rules_and_bad_files_are_refused(a_record, tmp_path):
    with pytest.raises(RecordError, match="other rules"):
        replay(a_record, game=Game(RuleConfig(num_players=3, uno_call="off")))
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    with pytest.raises(RecordError, match="bad.json: not a game record"):
        load(path)
    with pytest.raises(RecordError, match="format"):
        save({"format": "x"}, tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()
    game = Game(num_players=3)
    with pytest.raises(ValueError, match="one name per seat"):
        Recorder(game, game.init(seed=1), agents=["a"])


def test_the_aec_env_records_its_game_since_the_last_reset():
    import uno_env

    env = uno_env.env(num_players=3, stacking="same")
    with pytest.raises(AttributeError, match="reset"):
        env.unwrapped.record()
    env.reset(seed=5)
    env.reset(seed=6)  # the record starts here
    rng = np.random.default_rng(0)
    for _ in zip(range(200), env.agent_iter()):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    raw = env.unwrapped
    record = raw.record(agents=["a", "b", "c"])
    assert record["agents"] == ["a", "b", "c"] and 0 < len(record["actions"]) <= 200
    assert raw.game.position(replay(record)) == raw.game.position(raw._state)
