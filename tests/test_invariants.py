"""Random play over every variant and 2-10 players, with invariants checked at every step.

`make test` runs these with NUMBA_BOUNDSCHECK=1 so that a bad index in the
compiled kernels fails loudly. Runs are bounded by steps, not by games.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_env.engine import Game, IllegalActionError
from uno_env.engine.cards import CARD_VALUES, parse_card
from uno_env.engine.checks import invariant_violations
from uno_env.engine.layout import P_C_HANDS, P_FACES, P_I_SCORE

from . import variants

pytestmark = pytest.mark.invariants

STEPS_PER_CONFIG = 1500


def config_id(settings_dict):
    """The settings as text; its length seeds a variant's run."""
    return "-".join(f"{k}={v}" for k, v in settings_dict.items())


def hands_of(game, state):
    P = game.params
    n, F = game.num_players, int(P[P_FACES])
    return state.cards[0, P[P_C_HANDS] : P[P_C_HANDS] + n * F].reshape(n, F).astype(np.int64).copy()


def check_scores(game, hands_before, alive_before, scores_before, scores_after, events):
    """Scores move only at a round end, by the values of the cards left in hands."""
    if not any(e["type"] == "round_end" for e in events):
        assert scores_after == scores_before, events
        return
    hands = hands_before.copy()
    for event in events:
        if event["type"] == "round_end":
            break
        if event["type"] == "play":
            hands[event["seat"], parse_card(event["card"])] -= 1
        elif event["type"] == "draw":
            hands[event["seat"], parse_card(event["card"])] += 1
        elif event["type"] == "swap":  # R-HOUSE-SEVENO-1
            hands[[event["seat"], event["other"]]] = hands[[event["other"], event["seat"]]]
        elif event["type"] == "rotate":  # R-HOUSE-SEVENO-2: each hand to the next seat in play
            n = game.num_players
            order = [(event["seat"] + event["direction"] * k) % n for k in range(n)]
            order = [s for s in order if alive_before[s]]
            hands[order[1:] + order[:1]] = hands[order].copy()
    values = hands @ CARD_VALUES[: hands.shape[1]]
    winner = next(e for e in events if e["type"] == "round_end")["winner"]
    assert hands[winner].sum() == 0
    added = {e["seat"]: e["points"] for e in events if e["type"] == "score"}
    n = game.num_players
    if game.config.scoring == "standard":
        half = n // 2
        team = [s for s in range(n) if (s % half == winner % half if game.config.partners else s == winner)]
        points = int(sum(values[s] for s in range(n) if alive_before[s] and s not in team))
        assert added == {s: points for s in team}
    else:
        assert added == {s: int(values[s]) for s in range(n) if alive_before[s]}
    for seat in range(n):
        assert scores_after[seat] == scores_before[seat] + added.get(seat, 0)


def random_play(settings_dict, steps, seed, check_every_step=True, on_state=None):
    """Seeded random games, ``steps`` decisions in all (wrong cards now and then); the
    invariants checked after every step, and ``on_state(game, state)`` called on every
    state reached (the first of each game, then after each step)."""
    game = Game(**{"target_score": 60, "max_steps": 600, **settings_dict})
    rng = np.random.default_rng(seed)
    done = 0
    finished = 0
    while done < steps:
        state = game.init(seed=int(rng.integers(2**31)))
        assert invariant_violations(game, state) == []
        if on_state is not None:
            on_state(game, state)
        while not game.is_over(state) and done < steps:
            player = game.current_player(state)
            mask = game.legal_mask(state)
            legal = np.flatnonzero(mask)
            assert len(legal) > 0
            action = int(rng.choice(legal))
            if game.phase(state) in ("play", "drawn", "penalty") and rng.random() < 0.05:
                held = [f for f in range(52) if hands_of(game, state)[player, f] > 0 and not mask[f]]
                if held:
                    action = int(rng.choice(held))  # a wrong card (R-WRONG-1)
            hands_before = hands_of(game, state)
            alive_before = game.alive(state)
            scores_before = game.scores(state)
            before = state.copy()
            try:
                result = game.step(state, action)
            except IllegalActionError:
                assert game.config.illegal_action == "raise" and state == before
                continue
            done += 1
            if on_state is not None:
                on_state(game, state)
            check_scores(game, hands_before, alive_before, scores_before, game.scores(state), result.events)
            if check_every_step:
                assert invariant_violations(game, state) == [], result.events
            nonzero = np.flatnonzero(result.rewards)
            if game.config.reward == "win" and len(nonzero):
                assert game.is_over(state) or any(e["type"] == "eliminated" for e in result.events)
        if game.is_over(state):
            finished += 1
            assert game.is_terminated(state) != game.is_truncated(state)
            assert game.current_player(state) == -1 and game.legal_actions(state) == []
    return finished


@pytest.mark.parametrize("settings_dict", variants.params())
def test_random_play_keeps_the_invariants(settings_dict):
    random_play(settings_dict, STEPS_PER_CONFIG, seed=len(config_id(settings_dict)))


@pytest.mark.parametrize("n", [2, 4, 10])
def test_every_game_ends_terminated_or_truncated(n):
    finished = random_play({"num_players": n, "episode": "round"}, 3000, seed=n, check_every_step=False)
    assert finished >= 2


def test_scores_reach_the_target_in_whole_games():
    game = Game(num_players=2, target_score=40, max_steps=5000)
    rng = np.random.default_rng(1)
    ended = 0
    for seed in range(6):
        state = game.init(seed=seed)
        while not game.is_over(state):
            game.step(state, int(rng.choice(game.legal_actions(state))))
        if game.is_terminated(state):
            ended += 1
            winner = game.winners(state)[0]
            assert game.scores(state)[winner] >= 40
            start = game.params[P_I_SCORE]
            assert state.ints[0, start + winner] == max(game.scores(state))
    assert ended >= 4


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(variants.variants()),
    seed=st.integers(0, 2**32),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=150),
)
def test_property_any_legal_sequence_keeps_invariants_and_positions_round_trip(variant, seed, choices):
    game = Game(**variant.settings)
    state = game.init(seed=seed)
    for choice in choices:
        if game.is_over(state):
            break
        legal = game.legal_actions(state)
        game.step(state, legal[choice % len(legal)])
        assert invariant_violations(game, state) == []
    position = game.position(state)
    again = game.from_position(position)
    assert game.position(again) == position
    for choice in choices[:30]:  # the loaded position has the same future
        if game.is_over(state):
            break
        legal = game.legal_actions(state)
        assert game.legal_actions(again) == legal
        game.step(state, legal[choice % len(legal)])
        game.step(again, legal[choice % len(legal)])
        assert game.position(again) == game.position(state)
