"""Baseline agents: the registry, legality in every variant, the documented heuristics, and
the determinized search (samples consistent with the observation, search results)."""

import importlib
import math
import re

import numpy as np
import pytest

from uno_env import agents
from uno_env.agents import CompiledAgent, ISMCTSAgent, agent_names, make_agent, parse_agent_spec
from uno_env.agents import policies as policy_kernels
from uno_env.agents.ismcts import determinized_position, forced_action
from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import card_to_str, deck_counts, parse_card
from uno_env.engine.checks import invariant_violations
from uno_env.engine.config import HOUSE_PHASES
from uno_env.engine.game import seed_to_rng
from uno_env.engine.layout import P_C_HANDS
from uno_env.engine.named import PHASE_NAMES
from uno_env.engine.readers import determinize

from . import variants
from .conftest import make_game, setup

COMPILED_AGENTS = ["random", "naive", "keeper", "tactical", "random_play"]


def play_steps(game, agents, steps, seed, check=None):
    """Step games with one agent per seat until ``steps`` decisions are taken; every
    action must be legal. Returns (decisions, hands finished)."""
    state = game.init(seed=seed)
    finished = 0
    for k in range(steps):
        if game.is_over(state):
            state = game.init(seed=seed + 1 + k)
        seat = game.current_player(state)
        obs = game.observe(state, seat)
        mask = game.legal_mask(state)
        action = agents[seat](obs, mask)
        assert isinstance(action, int) and mask[action] == 1, (
            f"{agents[seat].name} chose {action} ({game.action_to_string(action) if 0 <= action < len(mask) else '?'})"
            f" not legal in phase {game.phase(state)}"
        )
        if check is not None:
            check(state, seat, obs, mask, action)
        result = game.step(state, action)
        assert result.status == 0
        finished += sum(e["type"] == "round_end" for e in result.events)
    return steps, finished


@pytest.mark.invariants
@pytest.mark.parametrize("settings", variants.params("agents"))
@pytest.mark.parametrize("name", COMPILED_AGENTS)
def test_compiled_agents_play_only_legal_actions_in_every_variant(name, settings):
    game = make_game(**settings)
    agents = [make_agent(name, game, seed=s) for s in range(game.num_players)]
    _, finished = play_steps(game, agents, 5000, seed=11)
    if name in ("naive", "keeper", "tactical"):  # random hands are long (about 1,400 decisions for two players)
        assert finished >= 1


@pytest.mark.invariants
@pytest.mark.parametrize("settings", variants.params("agents"))
def test_ismcts_plays_only_legal_actions_in_every_variant(settings):
    game = make_game(**settings)
    agents = [make_agent("ismcts:determinizations=3:max_rollout_steps=300", game, seed=s) for s in range(2)]
    agents += [make_agent("tactical", game, seed=s) for s in range(2, game.num_players)]
    play_steps(game, agents, 300, seed=5)


def test_registry_names_specs_and_errors():
    assert agent_names()[:6] == ["random", "naive", "keeper", "tactical", "random_play", "ismcts"]
    assert "human" in agent_names()
    assert parse_agent_spec("ismcts:determinizations=64:rollout=keeper:bluff_prior=0.5") == (
        "ismcts",
        {"determinizations": 64, "rollout": "keeper", "bluff_prior": 0.5},
    )
    config = RuleConfig(num_players=3)
    agent = make_agent("keeper", config, seed=1)
    assert agent.policy_id == policy_kernels.POLICY_IDS["keeper"] and agent.config == config
    assert make_agent("ismcts", config).policy_id is None
    with pytest.raises(ValueError, match="unknown agent 'alphauno'.*known agents: random, naive"):
        make_agent("alphauno", config)
    with pytest.raises(ValueError, match="takes no options"):
        make_agent("keeper:depth=3", config)
    with pytest.raises(ValueError, match="unknown option 'depth'; its options: determinizations"):
        make_agent("ismcts:depth=3", config)
    with pytest.raises(ValueError, match="determinizations='0': expected a positive integer"):
        make_agent("ismcts:determinizations=0", config)
    with pytest.raises(ValueError, match="rollout='smart': expected a compiled policy: keeper, naive"):
        make_agent("ismcts:rollout=smart", config)
    with pytest.raises(ValueError, match=r"agent 'ismcts': bluff_prior='abc': expected a number within 0\.\.1"):
        make_agent("ismcts:bluff_prior=abc", config)
    with pytest.raises(ValueError, match="option 'rollout' is given twice"):
        parse_agent_spec("ismcts:rollout=keeper:rollout=tactical")
    with pytest.raises(ValueError, match="colours='avg': expected average or as_seen"):
        parse_agent_spec("ppo:colours=avg")
    with pytest.raises(ValueError, match="unknown rollout policy 'smart'"):  # the agent's own check, called directly
        ISMCTSAgent(config, rollout="smart")
    with pytest.raises(ValueError, match="key=value"):
        parse_agent_spec("ismcts:64")
    with pytest.raises(ValueError, match="RuleConfig or a Game"):
        make_agent("random", {"num_players": 2})


def resolve(dotted: str):
    """The object a dotted name names (the longest importable module, then attributes)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(dotted)


def test_the_registry_page_names_every_agent_and_where_its_logic_lives():
    """uno_env.agents' docstring gives each built-in agent one line naming what holds its
    logic; every name there exists, and a compiled policy's function decides as its id does."""
    lines = {line.split()[0]: line for line in (agents.__doc__ or "").splitlines() if line.startswith("    ")}
    assert sorted(name for name in lines if name in agents._BUILTIN) == sorted(agents._BUILTIN)
    game = Game(num_players=2)
    state = game.init(seed=3)
    decisions = []
    for k in range(60):
        if game.is_over(state):
            state = game.init(seed=4 + k)
        mask = game.legal_mask(state)
        decisions.append((game.observe(state, game.current_player(state)), mask))
        game.step(state, int(np.flatnonzero(mask)[len(decisions) % mask.sum()]))
    for name in agents._BUILTIN:
        named = [resolve(dotted) for dotted in re.findall(r"uno_env\.agents\.[\w.]+\w", lines[name])]
        assert named, name
        if "compiled policy" not in lines[name]:
            continue
        policy_id = policy_kernels.POLICY_IDS[name]
        for obs, mask in decisions:
            by_id, by_name = np.array([seed_to_rng(5)], dtype=np.uint64), np.array([seed_to_rng(5)], dtype=np.uint64)
            expected = policy_kernels.policy_act(policy_id, obs, mask, game.params, by_id, 0)
            assert named[0](obs, mask, game.params, by_name, 0) == expected, name


def test_agent_inputs_are_checked_and_batches_match_single_calls():
    game = make_game(num_players=3)
    agent = make_agent("tactical", game, seed=3)
    with pytest.raises(ValueError, match="observation of shape"):
        agent(np.zeros(5, np.float32), np.ones(game.num_actions, np.int8))
    with pytest.raises(ValueError, match="allows no action"):
        agent(np.zeros(game.observation_size, np.float32), np.zeros(game.num_actions, np.int8))
    observations, masks = [], []
    for seed in range(40):
        state = game.init(seed=seed)
        observations.append(game.observe(state, game.current_player(state)))
        masks.append(game.legal_mask(state))
    observations, masks = np.array(observations), np.array(masks)
    batch = agent.act_batch(observations, masks)
    assert batch.tolist() == [agent(o, m) for o, m in zip(observations, masks)]  # tactical is deterministic
    rand = make_agent("random", game, seed=3)
    first = rand.act_batch(observations, masks)
    assert all(masks[b, a] for b, a in enumerate(first))
    rand.reset(3)
    assert rand.act_batch(observations, masks).tolist() == first.tolist()
    rand.reset(3)
    assert rand.act_batch(observations[:5], masks[:5]).tolist() == first[:5].tolist()  # rows keep their generators


def test_compiled_agent_matches_the_compiled_policy():
    game = make_game(num_players=2)
    state = game.init(seed=2)
    obs, mask = game.observe(state, game.current_player(state)), game.legal_mask(state)
    prng = np.array([seed_to_rng(9)], dtype=np.uint64)
    agent = CompiledAgent("random", game, seed=9)
    assert [agent(obs, mask) for _ in range(20)] == [
        int(policy_kernels.policy_act(policy_kernels.RANDOM, obs, mask, game.params, prng, 0)) for _ in range(20)
    ]


# ---------------------------------------------------------------- the heuristics do what their docstrings say
YELLOW = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y8", "Y9", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"]
BLUE = ["B1", "B2", "B3", "B4", "B6", "B7", "B8", "B9", "B1", "B2", "B3", "B4", "B6", "B7"]


def choose(name, game, state, seat=None):
    seat = game.current_player(state) if seat is None else seat
    agent = make_agent(name, game, seed=0)
    return game.action_to_string(agent(game.observe(state, seat), game.legal_mask(state)))


def test_naive_plays_the_first_legal_card_and_never_catches_or_challenges():
    game = make_game(num_players=3)
    state = setup(game, [["B5", "R9", "R2", "W"], YELLOW[:2], BLUE[:2]], ["R7"])
    assert choose("naive", game, state) == "play R2"
    state = setup(game, [["B5", "W", "G2"], YELLOW[:2], BLUE[:2]], ["R7"])
    assert choose("naive", game, state) == "play W R"
    state = setup(game, [["B5", "R2"], YELLOW[:2], BLUE[:2]], ["R7"])
    assert choose("naive", game, state) == "uno"
    wd4 = {"phase": "challenge", "wild_draw_four": {"offender": 0}, "previous_colour": "R", "colour": "G"}
    state = setup(game, [["R1", "R2"], YELLOW[:9], BLUE[:2]], ["R7", "W+4"], current=1, **wd4)
    assert choose("naive", game, state) == "accept"
    window = {"phase": "catch", "catch_window": {"exposed": 0, "next_player": 1}}
    state = setup(game, [["R1"], YELLOW[:2], BLUE[:2]], ["R7"], current=1, **window)
    assert choose("naive", game, state) == "pass"


def test_keeper_plays_its_longest_colour_holds_wilds_and_names_its_strongest_colour():
    game = make_game(num_players=3)
    # red 7 on top: R2 matches by colour, G7 by number; keeper holds three greens
    state = setup(game, [["R2", "G7", "G1", "G5", "W"], YELLOW[:3], BLUE[:3]], ["R7"])
    assert choose("keeper", game, state) == "play G7"
    # only a wild can be played: a Wild before a Wild Draw Four, naming the colour held most
    state = setup(game, [["W+4", "W", "B1", "B2", "G3"], YELLOW[:3], ["R1", "R2", "R3"]], ["R7"])
    assert choose("keeper", game, state) == "play W B"
    window = {"phase": "catch", "catch_window": {"exposed": 2, "next_player": 0}}
    state = setup(game, [["R1", "R2"], YELLOW[:2], BLUE[:1]], ["R7"], current=0, **window)
    assert choose("keeper", game, state) == "catch"
    partners = make_game(num_players=4, partners=True)
    window = {"phase": "catch", "catch_window": {"exposed": 2, "next_player": 3}}
    state = setup(partners, [["R1", "R2"], ["G1", "G2"], YELLOW[:1], BLUE[:2]], ["R7"], current=0, **window)
    assert choose("keeper", partners, state) == "pass"  # seat 2 is its partner
    state = setup(game, [["B5", "R2"], YELLOW[:2], BLUE[:2]], ["R7"])
    assert choose("keeper", game, state) == "uno"


def test_tactical_attacks_a_threatening_next_player_and_otherwise_keeps_the_colour():
    game = make_game(num_players=3)
    hands = [["R2", "RS", "R+2", "G5", "G6"], YELLOW[:1], BLUE[:5]]
    state = setup(game, hands, ["R7"])  # P1 holds one card (and called UNO)
    assert choose("tactical", game, state) in ("play RS", "play R+2")
    hands = [["R2", "RS", "R+2", "G5", "G6"], YELLOW[:6], BLUE[:5]]
    assert choose("tactical", game, setup(game, hands, ["R7"])) == "play R2"
    # with two players a Skip is an extra turn
    two = make_game(num_players=2)
    state = setup(two, [["R2", "RS", "G5", "G6"], YELLOW[:6]], ["R7"])
    assert choose("tactical", two, state) == "play RS"


def test_tactical_leaves_on_top_a_colour_the_opponent_drew_on():
    game = make_game(num_players=2)
    hands = [["R5", "G5", "B9"], YELLOW[:6]]
    # red and green are alike for tactical (as many held, as many unseen): action order decides
    assert choose("tactical", game, setup(game, hands, ["Y5"])) == "play R5"
    # the opponent drew instead of playing on green and has not played since (public, drew_on)
    state = setup(game, hands, ["Y5"], colour="Y", drew_on=[[], ["G"]])
    assert policy_kernels.drew_on(game.observe(state, 0), game.params, 1, 2)
    assert choose("tactical", game, state) == "play G5"
    # what seat 0 drew on itself does not matter
    state = setup(game, hands, ["Y5"], colour="Y", drew_on=[["G"], []])
    assert choose("tactical", game, state) == "play R5"


def test_tactical_bluffs_a_wild_draw_four_only_to_stop_a_player_about_to_go_out():
    game = make_game(num_players=2)
    calm = setup(game, [["R2", "G5", "W+4"], YELLOW[:6]], ["R7"])
    assert choose("tactical", game, calm) == "play R2"
    threat = setup(game, [["R2", "G5", "W+4"], YELLOW[:1]], ["R7"])
    assert choose("tactical", game, threat).startswith("play W+4")


def test_bluff_probability_is_the_hypergeometric_posterior():
    game = make_game(num_players=2)
    wd4 = {"phase": "challenge", "wild_draw_four": {"offender": 1}, "previous_colour": "B", "colour": "G"}
    state = setup(game, [["R1", "R2", "Y3"], ["G1", "G2", "G3", "G4", "G5"]], ["R7", "B2", "W+4"], current=0, **wd4)
    obs = game.observe(state, 0)
    counts = deck_counts("classic").astype(int)
    unseen = counts.sum() - 3 - 3  # own hand and discard pile
    blue = 25 - 1  # B2 is in the discard pile
    q = 1 - math.comb(unseen - blue, 5) / math.comb(unseen, 5)
    for prior in (0.0, 0.1, 1.0):
        expected = prior * q / (prior * q + 1 - q)
        assert policy_kernels.bluff_probability(obs, game.params, prior) == pytest.approx(expected, rel=1e-9)
    # the tactical policy challenges when the estimate with its prior beats 1/3
    prior = policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR]
    expected = prior * q / (prior * q + 1 - q)
    assert choose("tactical", game, state) == ("challenge" if expected > 1 / 3 else "accept")
    small = setup(game, [["R1", "R2", "Y3"], ["G1", "G2"]], ["R7", "B2", "W+4"], current=0, **wd4)
    q_small = 1 - math.comb(unseen - blue, 2) / math.comb(unseen, 2)
    assert prior * q_small / (prior * q_small + 1 - q_small) < 1 / 3
    assert choose("tactical", game, small) == "accept"  # two cards: likely no blue one
    big = setup(
        game,
        [["R1", "R2", "Y3"], ["G1", "G2", "G3", "G4", "G5"] * 2 + ["G6", "G7", "G8", "G9"]],
        ["R7", "B2", "W+4"],
        current=0,
        **wd4,
    )
    assert choose("tactical", game, big) == "challenge"  # 14 cards and no blue one: unlikely
    assert choose("keeper", game, big) == "accept"


def test_random_play_plays_a_card_whenever_it_can():
    game = make_game(num_players=2)
    state = setup(game, [["R2", "G5", "B9"], YELLOW[:6]], ["R7"])
    agent = make_agent("random_play", game, seed=1)
    obs, mask = game.observe(state, 0), game.legal_mask(state)
    assert {game.action_to_string(agent(obs, mask)) for _ in range(50)} == {"play R2"}


def test_heuristics_beat_random_and_each_other_in_the_expected_order():
    """A small compiled round robin: random < naive < keeper < tactical (two players)."""
    from uno_env.arena import run_tournament

    summary, *_ = run_tournament(
        ["random", "naive", "keeper", "tactical"], RuleConfig(num_players=2, episode="round"), 4000, seed=1, bootstrap=0
    )
    rates = {row["agent"]: row["win_rate"] for row in summary["leaderboard"]}
    h2h = summary["head_to_head"]
    assert rates["random"] < 0.1 < rates["naive"] < rates["keeper"] < rates["tactical"]
    assert h2h["tactical"]["random"]["win_rate_ci"][0] > 0.9
    assert h2h["tactical"]["keeper"]["win_rate"] > 0.5


# ---------------------------------------------------------------- determinized search
HOUSE_VARIANTS = [dict(v.settings) for v in variants.variants("agents") if v.config.house_rules]
"""The agents sweep's house-rule variants: each house rule (HOUSE_RULES.md), then all of them together."""


@pytest.mark.invariants
@pytest.mark.parametrize("settings", variants.params("agents"))
def test_determinized_states_show_the_same_observation_and_mask(settings):
    """Every sampled state gives the observer exactly its observation and legal mask, keeps
    every card of the deck, and loads back through Game.from_position. Under the house
    rules every phase of the configuration comes up (a Seven-O choice only with three
    players or more: with two the swap needs no decision)."""
    game = make_game(**settings)
    sample = game.new_state()
    prng = np.array([seed_to_rng(3)], dtype=np.uint64)
    agents = [make_agent("random_play", game, seed=s) for s in range(game.num_players)]
    checked = []

    def check(state, seat, obs, mask, action):
        assert determinize(obs, game.params, prng, 0, sample.cards, sample.ints, sample.rng, 0, 1.0, 20)
        assert invariant_violations(game, sample) == []
        assert np.array_equal(game.observe(sample, 0), obs)
        assert np.array_equal(game.legal_mask(sample), mask)
        if len(checked) % 25 == 0:
            loaded = game.from_position(determinized_position(game, obs, seed=len(checked)))
            assert np.array_equal(game.observe(loaded, 0), obs)
        checked.append(game.phase(state))

    play_steps(game, agents, 800, seed=21, check=check)
    assert len(checked) == 800
    for rule, phase in ((rule, PHASE_NAMES[code]) for code, rule in HOUSE_PHASES.items()):
        if settings.get(rule, "off") not in ("off", False) and not (phase == "swap" and game.num_players == 2):
            assert phase in checked, rule


def test_determinization_deals_unseen_cards_uniformly():
    game = make_game(num_players=2)
    state = setup(game, [["R1", "R2", "Y3", "G4", "B5"], ["G1", "G1", "G2", "Y9", "Y9"]], ["R7"])
    obs = game.observe(state, 0)
    prng = np.array([seed_to_rng(8)], dtype=np.uint64)
    sample = game.new_state()
    start = game.params[P_C_HANDS] + 54  # the opponent's hand
    held = np.zeros(54)
    trials = 2000
    for _ in range(trials):
        determinize(obs, game.params, prng, 0, sample.cards, sample.ints, sample.rng, 0, 1.0, 20)
        held += sample.cards[0, start : start + 54]
    unseen = deck_counts("classic").astype(float)
    for card in ("R1", "R2", "Y3", "G4", "B5", "R7"):
        unseen[parse_card(card)] -= 1
    expected = trials * 5 * unseen / unseen.sum()
    assert held.sum() == trials * 5
    assert held[parse_card("R0")] > 0 and np.all(held[expected == 0] == 0)
    chi = ((held - expected) ** 2 / expected)[expected > 0].sum()
    assert chi < 100  # 53 degrees of freedom: about 53 +- 10 when uniform


def test_draw_inference_deals_a_seat_none_of_what_it_drew_on():
    """With draw_inference=1 a seat that drew on red (and has not played since) is dealt no
    red card and no wild, the other unseen cards uniformly; with 0 it is dealt them as
    any card (the default, unchanged); the sample still shows the observer its observation."""
    game = make_game(num_players=3)
    state = setup(game, [["R1", "Y3", "G4"], YELLOW[:5], ["B5", "G7", "G8"]], ["R7"], drew_on=[[], ["R"], []])
    obs = game.observe(state, 0)
    prng = np.array([seed_to_rng(4)], dtype=np.uint64)
    sample = game.new_state()
    start = game.params[P_C_HANDS] + 54  # relative seat 1, the one that drew on red
    red_or_wild = np.array([card[0] == "R" or card[0] == "W" for card in map(card_to_str, range(54))])
    held = {0.0: np.zeros(54), 1.0: np.zeros(54)}
    trials = 2000
    for inference in held:
        for _ in range(trials):
            assert determinize(obs, game.params, prng, 0, sample.cards, sample.ints, sample.rng, 0, 1.0, 20, inference)
            assert np.array_equal(game.observe(sample, 0), obs) and invariant_violations(game, sample) == []
            held[inference] += sample.cards[0, start : start + 54]
    assert held[0.0][red_or_wild].sum() > 0 and held[1.0][red_or_wild].sum() == 0
    unseen = deck_counts("classic").astype(float)
    for card in ("R1", "Y3", "G4", "R7"):
        unseen[parse_card(card)] -= 1
    unseen[red_or_wild] = 0
    expected = trials * 5 * unseen / unseen.sum()
    some = expected > 0
    chi = ((held[1.0][some] - expected[some]) ** 2 / expected[some]).sum()
    assert chi < 80  # 38 degrees of freedom: about 38 +- 9 when uniform among the allowed cards
    # a seat that cannot be dealt within what it lacks is dealt as if nothing were known
    everything = setup(game, [["R1"], YELLOW[:5], ["B5"]], ["R7"], drew_on=[[], ["R", "Y", "G", "B"], []])
    obs = game.observe(everything, 0)
    assert determinize(obs, game.params, prng, 0, sample.cards, sample.ints, sample.rng, 0, 1.0, 20, 1.0)
    assert np.array_equal(game.observe(sample, 0), obs)
    with pytest.raises(ValueError, match="draw_inference"):
        make_agent("ismcts:draw_inference=2", game)


def test_determinization_keeps_a_fresh_challenge_reveal_in_the_owners_hand():
    game = make_game(num_players=3)
    reveal = {"viewer": 0, "owner": 2, "hand": ["B1", "B2", "G7"]}
    state = setup(game, [["R1", "R2"], YELLOW[:4], ["B1", "B2", "G7"]], ["R7"], challenge_reveal=reveal)
    obs = game.observe(state, 0)
    for seed in range(20):
        position = determinized_position(game, obs, seed=seed)
        assert sorted(position["hands"][2]) == ["B1", "B2", "G7"]  # relative seat 2 is seat 2
        shown = position["challenge_reveal"]
        assert (shown["viewer"], shown["owner"], sorted(shown["hand"])) == (0, 2, sorted(reveal["hand"]))


def test_ismcts_takes_free_decisions_without_search_and_finds_the_winning_card():
    game = make_game(num_players=3)
    agent = ISMCTSAgent(game, seed=1, determinizations=16)
    state = setup(game, [["B5", "R2"], YELLOW[:2], BLUE[:2]], ["R7"])
    obs, mask = game.observe(state, 0), game.legal_mask(state)
    assert forced_action(obs, mask, game.params) == game.string_to_action("uno")
    assert game.action_to_string(agent(obs, mask)) == "uno" and agent.searches == 0
    # the last card wins the hand: its value is exactly 1, and the search keeps it
    state = setup(game, [["R2"], YELLOW[:2], BLUE[:2]], ["R7"], uno_called=False)
    obs, mask = game.observe(state, 0), game.legal_mask(state)
    assert game.action_to_string(agent(obs, mask)) == "play R2"
    assert agent.last_values[game.string_to_action("play R2")] == 1.0
    assert agent.last_values[game.string_to_action("draw")] < 1.0


def test_ismcts_is_reproducible_from_its_seed():
    game = make_game(num_players=2)
    state = setup(game, [["R2", "G7", "W", "B3", "Y5"], YELLOW[:5]], ["R7"])
    obs, mask = game.observe(state, 0), game.legal_mask(state)
    first = ISMCTSAgent(game, seed=4, determinizations=40)
    second = ISMCTSAgent(game, seed=4, determinizations=40)
    assert first(obs, mask) == second(obs, mask)
    assert first.last_values == second.last_values
    assert len(first.last_values) == int(mask.sum())


def test_ismcts_rolls_out_its_opponents_with_opponent_rollout():
    game = make_game(num_players=4)
    state = setup(game, [["R2", "G7", "B3", "Y5"], YELLOW[:4], BLUE[:4], YELLOW[4:8]], ["R7"])
    obs, mask = game.observe(state, 0), game.legal_mask(state)

    def values(**options):
        agent = ISMCTSAgent(game, seed=4, determinizations=64, **options)
        agent(obs, mask)
        return agent.last_values

    same = values(rollout="tactical")
    assert values(rollout="tactical", opponent_rollout="tactical") == same
    # opponents that play at random lose far more rollouts than tactical ones
    weak = values(rollout="tactical", opponent_rollout="random")
    assert weak.keys() == same.keys()
    assert np.mean(list(weak.values())) > np.mean(list(same.values())) + 0.1
    with pytest.raises(ValueError, match="opponent_rollout='smart': expected a compiled policy"):
        make_agent("ismcts:opponent_rollout=smart", game)


def test_ppo_search_is_ismcts_over_ppo_that_keeps_ppos_choice_without_evidence():
    game = make_game(num_players=2)
    agent = make_agent("ppo_search", game, seed=3)
    assert (agent.rollout, agent.opponent_rollout, agent.determinizations) == ("ppo", "ppo", 128)
    assert (agent.confidence, agent.draw_inference) == (2.0, 1.0)
    assert make_agent("ppo_search", make_game(num_players=4)).determinizations == 32  # the best point there
    assert make_agent("ppo_search:determinizations=8:confidence=2", game).determinizations == 8
    # no evidence can overrule the default: ppo_search plays ppo's (greedy) choice at every
    # searched decision of a whole hand, and its own search values every candidate
    ppo = make_agent("ppo", game)
    sure = make_agent("ppo_search:determinizations=8:confidence=1e9", game, seed=3)
    state, searched = game.init(seed=11), 0
    while not game.is_over(state):
        obs, mask = game.observe(state, game.current_player(state)), game.legal_mask(state)
        action = sure(obs, mask)
        if forced_action(obs, mask, game.params) < 0:
            searched += 1
            assert action == ppo(obs, mask)
            assert set(sure.last_values) == set(np.flatnonzero(mask).tolist()) - {game.string_to_action("uno")}
        game.step(state, action)
    assert searched == sure.searches > 10


def test_make_agent_builds_from_a_game_or_a_config():
    config = RuleConfig(num_players=4, deck="fashion_trend")
    from_config = make_agent("tactical", config, seed=2)
    from_game = make_agent("tactical", Game(config), seed=2)
    assert from_config.config == from_game.config == config
    assert from_config.game.num_actions == from_game.game.num_actions
