"""Compiled policies and whole games played inside one compiled call."""

import numpy as np
import pytest

from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game
from uno_env.engine import kernels as K
from uno_env.engine.checks import invariant_violations
from uno_env.engine.config import HOUSE_PHASES
from uno_env.engine.game import seed_to_rng

from . import variants


def fresh_batch(game, size, seed):
    state = game.new_state(size, events=False)
    state.rng[:] = [seed_to_rng(seed + i) for i in range(size)]
    K.reset_batch(state.cards, state.ints, state.rng, game.params, np.full(size, -1, np.int64), state.ev, state.evn)
    prng = np.array([seed_to_rng(10**9 + seed + i) for i in range(size)], dtype=np.uint64)
    return state, prng


def test_random_policy_picks_legal_actions_uniformly():
    game = Game(num_players=3)
    state = game.init(seed=4)
    mask = game.legal_mask(state)
    obs = game.observe(state, game.current_player(state))
    prng = np.array([seed_to_rng(1)], dtype=np.uint64)
    picks = [policy_kernels.random_policy(obs, mask, game.params, prng, 0) for _ in range(3000)]
    counts = np.bincount(picks, minlength=game.num_actions)
    assert set(np.flatnonzero(counts)) == set(np.flatnonzero(mask))
    expected = 3000 / mask.sum()
    assert np.all(np.abs(counts[mask == 1] - expected) < 5 * np.sqrt(expected))


def test_play_batch_finishes_hands_and_keeps_invariants():
    game = Game(num_players=4, episode="round", max_steps=4000)
    state, prng = fresh_batch(game, 16, seed=100)
    policies = np.zeros((16, 4), dtype=np.int64)
    rewards = np.zeros((16, 4), dtype=np.float32)
    steps = np.zeros(16, dtype=np.int64)
    policy_kernels.play_batch(
        state.cards, state.ints, state.rng, prng, game.params, policies, True, 4000, rewards, steps
    )
    for b in range(16):
        assert game.is_over(state, b) and invariant_violations(game, state, b) == []
        assert steps[b] == game.step_count(state, b)
        if game.is_terminated(state, b):
            assert sorted(rewards[b]) == [-1, -1, -1, 1]


def run_batch(play, game, state, prng, policies, stop_at_round_end, max_steps):
    """``play`` (play_batch or play_batch_serial) over a batch; returns the decisions per game."""
    steps = np.zeros(state.cards.shape[0], np.int64)
    rewards = np.zeros((state.cards.shape[0], game.num_players), np.float32)
    play(state.cards, state.ints, state.rng, prng, game.params, policies, stop_at_round_end, max_steps, rewards, steps)
    return steps


def test_play_batch_is_deterministic_serial_or_parallel_and_matches_single_game_stepping():
    game = Game(num_players=2, episode="round", max_steps=3000)
    a, prng_a = fresh_batch(game, 4, seed=7)
    b, prng_b = fresh_batch(game, 4, seed=7)
    policies = np.zeros((4, 2), dtype=np.int64)
    run_batch(policy_kernels.play_batch, game, a, prng_a, policies, True, 3000)
    run_batch(policy_kernels.play_batch_serial, game, b, prng_b, policies, True, 3000)
    assert a == b
    # the same game stepped one decision at a time from Python
    single, prng = fresh_batch(game, 1, seed=7)
    while not game.is_over(single):
        obs = game.observe(single, game.current_player(single))
        action = policy_kernels.policy_act(policy_kernels.RANDOM, obs, game.legal_mask(single), game.params, prng, 0)
        game.step(single, int(action))
    assert game.position(single) == game.position(a, 0)


@pytest.mark.parametrize("threads", [1, 3, 16])
def test_play_batch_splits_the_batch_over_threads_into_the_same_games(threads):
    game = Game(num_players=3, episode="round")
    ids = [policy_kernels.POLICY_IDS[name] for name in ("keeper", "tactical", "random_play")]
    policies = np.array([np.roll(ids, k) for k in range(7)], dtype=np.int64)
    results = []
    for play in (lambda *a: policy_kernels.play_batch(*a, threads=threads), policy_kernels.play_batch_serial):
        state, prng = fresh_batch(game, 7, seed=11)
        steps = np.zeros(7, np.int64)
        rewards = np.zeros((7, 3), np.float32)
        play(state.cards, state.ints, state.rng, prng, game.params, policies, True, 20001, rewards, steps)
        results.append((steps, rewards, state.ints.copy()))
    assert all(np.array_equal(x, y) for x, y in zip(*results, strict=True))
    assert (results[0][0] > 0).all()


def test_play_batch_runs_again_and_again_in_parallel_like_serial():
    """Repeated parallel calls with allocating policies (the network) leave memory intact:
    play_batch once borrowed views of its own scratch arrays, which numba had freed."""
    game = Game(num_players=2, episode="round")
    policies = np.tile(np.array([policy_kernels.POLICY_IDS["ppo"], policy_kernels.POLICY_IDS["random"]]), (100, 1))
    for seed in range(3):
        results = []
        for play in (policy_kernels.play_batch, policy_kernels.play_batch_serial):
            state, prng = fresh_batch(game, 100, seed=seed)
            steps = run_batch(play, game, state, prng, policies, False, 20001)
            results.append((steps, state.ints.copy()))
        assert np.array_equal(results[0][0], results[1][0]) and np.array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("settings", variants.params("state_read"))
def test_keeper_and_naive_read_from_the_state_what_the_observation_shows(settings):
    """The play loops skip the observation for naive and keeper: at every decision of
    seeded games (random, naive and keeper moves, so every phase comes up) the facts they
    read from the state equal those read from the acting seat's observation."""
    game = Game(**{**settings, "episode": "round"})  # single rounds, whatever the variant's episode
    P = game.params
    phases = set()
    for seed in range(6):
        state, prng = fresh_batch(game, 1, seed=seed)
        for decision in range(400):
            if game.is_over(state):
                break
            seat = game.current_player(state)
            obs, mask = game.observe(state, seat), game.legal_mask(state)
            view = policy_kernels.keeper_view_of_state(state.cards, state.ints, P, 0, seat)
            assert view == policy_kernels.keeper_view(obs, P), (seed, decision)
            phase = int(state.ints[0, K.S_PHASE])
            assert policy_kernels.naive_choice(phase, mask, P) == policy_kernels.naive_policy(obs, mask, P, prng, 0)
            phases.add(phase)
            policy = (policy_kernels.RANDOM, policy_kernels.KEEPER, policy_kernels.NAIVE)[decision % 3]
            game.step(state, int(policy_kernels.policy_act(policy, obs, mask, P, prng, 0)))
    # play, drawn card, colour, and the catch window where UNO calls are on
    assert len(phases) >= (3 if settings.get("uno_call") == "off" else 4)
    for phase, rule in HOUSE_PHASES.items():
        if settings.get(rule, "off") not in ("off", False):  # the decisions of each house rule came up
            assert phase in phases, rule


@pytest.mark.parametrize("settings", variants.params("state_read"))
def test_play_batch_plays_the_games_of_the_observation_policies(settings):
    """play_batch (naive and keeper reading the state) against stepping from Python with
    every policy reading the observation: the same games, decision by decision."""
    game = Game(**{**settings, "episode": "round", "max_steps": 3000})
    n = game.num_players
    ids = [
        policy_kernels.NAIVE,
        policy_kernels.KEEPER,
        policy_kernels.TACTICAL,
        policy_kernels.KEEPER,
        policy_kernels.RANDOM_PLAY,
    ]
    policies = np.array([[ids[(k + s) % len(ids)] for s in range(n)] for k in range(5)], dtype=np.int64)
    batch, prng = fresh_batch(game, 5, seed=30)
    steps = run_batch(policy_kernels.play_batch_serial, game, batch, prng, policies, True, 3000)
    for k in range(5):
        single, single_prng = fresh_batch(game, 1, seed=30 + k)
        taken = 0
        while not game.is_over(single):
            seat = game.current_player(single)
            obs, mask = game.observe(single, seat), game.legal_mask(single)
            game.step(single, int(policy_kernels.policy_act(policies[k, seat], obs, mask, game.params, single_prng, 0)))
            taken += 1
        assert taken == steps[k]
        assert game.position(single) == game.position(batch, k)
