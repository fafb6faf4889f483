"""The agents under the house rules (HOUSE_RULES.md): legal decisions in every phase, the
heuristics' documented choices in the new decisions, and the search."""

import numpy as np
import pytest

from uno_env.agents import make_agent
from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import RANK_DRAW_TWO, WILD_DRAW_FOUR, card_to_str, parse_card
from uno_env.engine.checks import invariant_violations
from uno_env.engine.config import CHOICES, HOUSE_RULE_SETTINGS
from uno_env.engine.game import seed_to_rng
from uno_env.engine.layout import PH_DRAWN, PH_JUMP, PH_PENALTY, PH_SWAP, S_CURRENT, S_PHASE

from .conftest import make_game
from .test_agents import HOUSE_VARIANTS, play_steps
from .test_policies import fresh_batch
from .variants import HOUSE_ALL

HOUSE_RULES = [
    *({name: value} for name in HOUSE_RULE_SETTINGS for value in CHOICES.get(name, (True,)) if value != "off"),
    HOUSE_ALL,
]
"""Each house rule (each value of those with named values), then all of them together."""
TABLES = [{"num_players": 2}, {"num_players": 4, "partners": True}, {"num_players": 6}]
COMPILED = [
    policy_kernels.RANDOM,
    policy_kernels.NAIVE,
    policy_kernels.KEEPER,
    policy_kernels.TACTICAL,
    policy_kernels.RANDOM_PLAY,
    policy_kernels.PPO,
    policy_kernels.TACTICAL_V1,
]  # every compiled policy (ppo: the shipped network, trained without house rules)
DECISIONS = 100_000  # in-kernel decisions per house-rule variant, over the three tables


def rule_id(settings):
    return "-".join(f"{k}={v}" for k, v in settings.items())


@pytest.mark.invariants
@pytest.mark.parametrize("house", HOUSE_RULES, ids=rule_id)
def test_compiled_policies_make_only_legal_decisions_under_the_house_rules(house):
    """Games played inside the compiled loop (play_batch_serial) by every compiled policy
    (the shipped network too), seated at random, at 2, 4 (partners) and 6 players: 100,000 decisions per
    house-rule variant and not one refused. ``illegal_action="raise"`` makes the engine
    refuse every action outside the legal mask (a wrong card too), and a refused action
    stops its game (``steps`` -1): the refusals counted are the policies' illegal choices."""
    total = 0
    for t, table in enumerate(TABLES):
        game = Game(RuleConfig(episode="round", illegal_action="raise", **table, **house))
        n = game.num_players
        share = DECISIONS // len(TABLES) + (1 if t < DECISIONS % len(TABLES) else 0)
        chooser = np.random.default_rng(t)
        done = refused = seed = 0
        while done < share:
            size = 32
            state, prng = fresh_batch(game, size, seed=1000 * t + seed)
            seed += size
            policies = np.array(COMPILED, dtype=np.int64)[chooser.integers(0, len(COMPILED), (size, n))]
            steps = np.zeros(size, np.int64)
            rewards = np.zeros((size, n), np.float32)
            policy_kernels.play_batch_serial(
                state.cards, state.ints, state.rng, prng, game.params, policies, True, 1500, rewards, steps
            )
            for b in np.flatnonzero(steps < 0):
                seat = int(state.ints[b, S_CURRENT])  # a refused action leaves the game as it was
                refused += 1
                mask = game.legal_mask(state, b)
                pytest.fail(
                    f"{table}: {policy_kernels.policy_name(int(policies[b, seat]))} at seat {seat} "
                    "chose an action the engine "
                    f"refused in phase {game.phase(state, b)} (legal: "
                    f"{[game.action_to_string(a) for a in np.flatnonzero(mask)]})"
                )
            for b in range(size):
                assert invariant_violations(game, state, b) == []
            done += int(steps.sum())
        assert refused == 0
        total += done
    assert total >= DECISIONS


@pytest.mark.parametrize("settings", HOUSE_VARIANTS, ids=rule_id)
def test_compiled_agents_pick_from_the_legal_mask_under_the_house_rules(settings):
    """The agents' Python path (CompiledAgent): each action is in the legal mask."""
    game = make_game(**settings)
    for name in ("random", "naive", "keeper", "tactical", "random_play", "tactical_v1"):
        agents = [make_agent(name, game, seed=s) for s in range(game.num_players)]
        play_steps(game, agents, 600, seed=3)


# ---------------------------------------------------------------- the heuristics' choices
def house_decisions(settings, games, limit=1500):
    """(game, state, seat, obs, mask) at every decision of seeded games played by a mix of
    the compiled agents (random ones too, so that hands get long and every phase comes up)."""
    game = make_game(**settings)
    names = ["random_play", "tactical", "keeper", "naive", "random"]
    for seed in range(games):
        agents = [make_agent(names[(seed + s) % len(names)], game, seed=seed * 10 + s) for s in range(game.num_players)]
        state = game.init(seed=seed)
        for _ in range(limit):
            if game.is_over(state):
                break
            seat = game.current_player(state)
            obs, mask = game.observe(state, seat), game.legal_mask(state)
            yield game, state, seat, obs, mask
            game.step(state, agents[seat](obs, mask))


def choice(game, policy, obs, mask):
    prng = np.array([seed_to_rng(1)], dtype=np.uint64)
    return game.action_to_string(int(policy_kernels.policy_act(policy, obs, mask, game.params, prng, 0)))


def legal_texts(game, mask):
    return [game.action_to_string(a) for a in np.flatnonzero(mask)]


def colour_held_most(hand, cards):
    """Of ``cards`` (coloured), the one whose colour ``hand`` holds most (ties: action order)."""
    held = [sum(1 for c in hand if parse_card(c) < 52 and parse_card(c) // 13 == parse_card(x) // 13) for x in cards]
    return cards[int(np.argmax(held))]


def fewest_cards_opponent(game, state, seat):
    """Seven-O: ``swap k`` with the opponent in play (not a partner) holding the fewest cards,
    ties to the nearest clockwise."""
    n, sizes, alive = game.num_players, game.hand_sizes(state), game.position(state)["alive"]
    options = [
        (sizes[(seat + k) % n], k)
        for k in range(1, n)
        if alive[(seat + k) % n] and not (game.config.partners and k == n // 2)
    ]
    return f"swap {min(options)[1]}"


@pytest.mark.parametrize(
    "settings",
    [
        {"num_players": 2, "stacking": "mixed"},
        {"num_players": 3, "stacking": "same"},
        {"num_players": 4, "partners": True, "stacking": "mixed", "jump_in": True},
    ],
    ids=rule_id,
)
def test_the_heuristics_stack_draw_cards_their_way(settings):
    """In a stack's penalty decision: naive plays the first stackable card, keeper a Draw
    Two of the colour it holds most and a Wild Draw Four only honestly, tactical a Draw
    Two before a Wild Draw Four and otherwise challenges or accepts by the break-even
    2/(pending+2); each accepts when it does not answer (and calls UNO first)."""
    seen = {"stackable": 0, "both": 0, "not": 0}
    for game, state, seat, obs, mask in house_decisions(settings, 40):
        if state.ints[0, S_PHASE] != PH_PENALTY:
            continue
        position = game.position(state)
        hand, colour = position["hands"][seat], position["colour"]
        legal = legal_texts(game, mask)
        naive, keeper, tactical = (
            choice(game, p, obs, mask) for p in (policy_kernels.NAIVE, policy_kernels.KEEPER, policy_kernels.TACTICAL)
        )
        assert "draw" not in legal and "pass" not in legal
        if "uno" in legal:
            assert naive == keeper == tactical == "uno"
            continue
        draw_twos = [a for a in legal if a.startswith("play ") and parse_card(a.split()[1]) % 13 == RANK_DRAW_TWO]
        draw_twos = [a for a in draw_twos if parse_card(a.split()[1]) < 52]
        wild_fours = [a for a in legal if a.startswith("play W+4")]
        honest = not any(parse_card(c) < 52 and "RYGB"[parse_card(c) // 13] == colour for c in hand)
        plays = [a for a in legal if a.startswith("play ")]
        assert naive == (plays[0] if plays else "accept")
        if draw_twos:
            seen["stackable"] += 1
            seen["both"] += bool(wild_fours)
            best = colour_held_most(hand, [a.split()[1] for a in draw_twos])
            assert keeper == tactical == f"play {best}"
        elif wild_fours and honest:
            seen["stackable"] += 1
            assert keeper.startswith("play W+4") and tactical.startswith("play W+4")
        else:
            assert keeper == "accept"
            seen["not"] += 1
            pending = int(obs[game.obs_spec.by_name["pending_penalty"].offset])
            p = policy_kernels.bluff_probability(
                obs, game.params, policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR]
            )
            challenge = "challenge" in legal and p > 2 / (pending + 2)
            cost = (1 - p) * (pending + 2) if challenge else pending
            if wild_fours and 0.5 * (pending + 4) < cost:  # a bluff expected to cost fewer cards
                assert tactical.startswith("play W+4")
            else:
                assert tactical == ("challenge" if challenge else "accept")
    assert seen["stackable"] > 0 and seen["not"] > 0
    if settings["stacking"] == "mixed":
        assert seen["both"] > 0  # a Draw Two and a Wild Draw Four both stack: the Draw Two goes first


@pytest.mark.parametrize(
    "settings",
    [{"num_players": 4, "seven_o": True}, {"num_players": 6, "partners": True, "seven_o": True, "jump_in": True}],
    ids=rule_id,
)
def test_the_heuristics_swap_with_the_opponent_holding_fewest_cards(settings):
    """Seven-O: keeper and tactical swap with the opponent holding the fewest cards (ties:
    the nearest clockwise; never the partner), naive with the nearest seat clockwise."""
    swaps = 0
    for game, state, seat, obs, mask in house_decisions(settings, 30):
        if state.ints[0, S_PHASE] != PH_SWAP:
            continue
        swaps += 1
        expected = fewest_cards_opponent(game, state, seat)
        assert (
            choice(game, policy_kernels.KEEPER, obs, mask)
            == choice(game, policy_kernels.TACTICAL, obs, mask)
            == expected
        )
        assert choice(game, policy_kernels.NAIVE, obs, mask) == legal_texts(game, mask)[0] == "swap 1"
    assert swaps >= 5


@pytest.mark.parametrize(
    "settings", [{"num_players": 3, "jump_in": True}, {"num_players": 4, "jump_in": True, "seven_o": True}], ids=rule_id
)
def test_the_heuristics_jump_in_whenever_they_can(settings):
    """Jump-In: naive, keeper and tactical_v1 play the identical card (calling UNO first when
    it is their next-to-last card), never ``pass``; tactical too, but for a 7 or a 0 under
    Seven-O whose swap would lose it cards (R-HOUSE-SEVENO), where it passes."""
    jumps = kept = 0
    for game, state, seat, obs, mask in house_decisions(settings, 20):
        if state.ints[0, S_PHASE] != PH_JUMP:
            continue
        jumps += 1
        legal = legal_texts(game, mask)
        top = game.position(state)["discard_pile"][-1]
        expected = "uno" if "uno" in legal else f"play {top}"
        heuristics = (policy_kernels.NAIVE, policy_kernels.KEEPER, policy_kernels.TACTICAL_V1)
        assert {choice(game, p, obs, mask) for p in heuristics} == {expected}
        tactical = choice(game, policy_kernels.TACTICAL, obs, mask)
        if tactical != expected:
            assert tactical == "pass" and swap_gain(game, state, seat, top) < 0
            kept += 1
    assert jumps >= 5
    if settings.get("seven_o"):
        assert kept > 0


def swap_gain(game, state, seat, card):
    """Seven-O: the cards ``seat`` gains by playing ``card`` (a 7: swapped with the fewest
    cards; a 0: the previous seat's hand comes in), from a hand of more than one card."""
    position = game.position(state)
    sizes, alive, n = game.hand_sizes(state), position["alive"], game.num_players
    own = sizes[seat] - 1
    if card[1:] == "7":
        return own - min(sizes[s] for s in range(n) if s != seat and alive[s])
    if card[1:] == "0":
        previous = next(
            (seat - k * position["direction"]) % n for k in range(1, n) if alive[(seat - k * position["direction"]) % n]
        )
        return own - sizes[previous]
    return 0


def test_the_heuristics_play_a_drawn_card_that_force_play_requires():
    """force_play: the drawn-card decision has no ``pass``; the heuristics play the card
    (a drawn Wild Draw Four too, even as a bluff, naming their strongest colour)."""
    forced = wild_fours = 0
    for game, state, _seat, obs, mask in house_decisions({"num_players": 3, "force_play": True}, 60):
        if state.ints[0, S_PHASE] != PH_DRAWN:
            continue
        forced += 1
        legal = legal_texts(game, mask)
        assert "pass" not in legal
        wild_fours += int(game.position(state)["drawn_card"] == card_to_str(WILD_DRAW_FOUR))
        for policy in (policy_kernels.NAIVE, policy_kernels.KEEPER, policy_kernels.TACTICAL):
            picked = choice(game, policy, obs, mask)
            assert picked in legal and (picked == "uno" or picked.startswith("play "))
    assert forced > 0 and wild_fours > 0


# ---------------------------------------------------------------- the search
@pytest.mark.invariants
@pytest.mark.parametrize("settings", HOUSE_VARIANTS, ids=rule_id)
def test_ismcts_searches_under_the_house_rules(settings):
    """A short seeded game per house rule: two searching seats (determinized from their
    observations, rolled out with tactical), the others tactical; every action legal."""
    game = make_game(**settings)
    agents = [make_agent("ismcts:determinizations=4:max_rollout_steps=200", game, seed=s) for s in range(2)]
    agents += [make_agent("tactical", game, seed=s) for s in range(2, game.num_players)]
    play_steps(game, agents, 150, seed=7)
    assert agents[0].searches + agents[1].searches > 0
