"""The vector env: agreement with the single-game engine, serial = parallel, autoreset,
reward credit, and the Gymnasium / stable-baselines3 adapters."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game, IllegalActionError
from uno_env.engine.game import seed_to_rng
from uno_env.engine.layout import P_C_HANDS, P_C_SIZE, P_FACES, P_I_SIZE, PH_DRAWN, PH_PLAY, S_EPISODES, S_PHASE, S_STEP
from uno_env.vector import (
    UnoGymVectorEnv,
    UnoVectorEnv,
    policy_seed_to_rng,
    seat_policies_for,
    seeds_to_rng,
)
from uno_env.vector.fused import EXTERNAL

from . import variants
from .conftest import setup

HEURISTIC = next((name for name in policy_kernels.POLICY_IDS if name != "random"), "random")


def pick_actions(env, chooser, wrong_rate=0.0):
    """Random legal actions, and now and then a held card that does not match (a wrong card)."""
    actions = env.sample_actions().copy()
    if wrong_rate:
        P = env.params
        for i in range(env.num_envs):
            if chooser.random() < wrong_rate and env.ints[i, S_PHASE] in (PH_PLAY, PH_DRAWN):
                seat = int(env.seat[i])
                base = int(P[P_C_HANDS] + seat * P[P_FACES])
                held = np.flatnonzero(env.cards[i, base : base + 52])  # coloured faces = action ids
                wrong = [int(f) for f in held if not env.mask[i, f]]
                if wrong:
                    actions[i] = wrong[chooser.randrange(len(wrong))]
    return actions


def assert_same_game(env, i, game, state):
    assert np.array_equal(env.cards[i], state.cards[0])
    assert np.array_equal(env.ints[i], state.ints[0])
    assert env.rng[i] == state.rng[0]


def run_agreement(settings, steps, num_envs=4, seed=11, wrong_cards=True):
    import random

    env = UnoVectorEnv(num_envs, parallel=False, **settings)
    game = env.game
    step = env.reset(seed=seed)
    singles = [game.init(seed=seed + i) for i in range(num_envs)]
    chooser = random.Random(seed)
    wrong_rate = 0.05 if wrong_cards and game.config.illegal_action != "raise" else 0.0
    ended = {"terminated": 0, "truncated": 0}
    for _ in range(steps):
        for i, state in enumerate(singles):
            assert_same_game(env, i, game, state)
            seat = game.current_player(state)
            assert step.seat[i] == seat
            assert np.array_equal(step.obs[i], game.observe(state, seat))
            assert np.array_equal(step.mask[i], game.legal_mask(state))
        actions = pick_actions(env, chooser, wrong_rate)
        step = env.step(actions)
        for i, state in enumerate(singles):
            result = game.step(state, int(actions[i]))
            assert step.info["status"][i] == result.status
            assert np.array_equal(step.rewards[i], result.rewards)
            if game.is_over(state):
                assert step.terminated[i] == game.is_terminated(state)
                assert step.truncated[i] == game.is_truncated(state)
                ended["truncated" if step.truncated[i] else "terminated"] += 1
                for k, s in enumerate(env.external_seats):
                    assert np.array_equal(step.info["final_obs"][i, k], game.observe(state, s))
                assert list(step.info["final_outcome"][i]) == game.outcome(state)
                assert step.info["final_steps"][i] == game.step_count(state)
                game.reset(state)  # no seed: the game's own generator continues
            else:
                assert not step.terminated[i] and not step.truncated[i]
    return ended


def test_seeds_to_rng_matches_the_engine():
    for seed in (0, 1, 12345, 2**63 + 7, 2**64 - 5):
        assert list(seeds_to_rng(seed, 5)) == [seed_to_rng(seed + i) for i in range(5)]


@pytest.mark.parametrize("settings", variants.params("agreement"))
def test_vector_env_agrees_with_single_game_engine(settings):
    ended = run_agreement(settings, steps=700)
    assert sum(ended.values()) >= 2, ended  # trajectories crossed auto-resets


@pytest.mark.parametrize("settings", variants.params())
def test_vector_env_accepts_every_setting(settings):
    """Every variant once more, in shorter runs."""
    run_agreement(settings, steps=120, num_envs=3)


def test_agreement_covers_termination_by_a_winner():
    settings = {"num_players": 2, "episode": "round", "uno_call": "auto"}
    ended = run_agreement(settings, steps=2500, num_envs=4, wrong_cards=False)
    assert ended["terminated"] >= 2, ended


def buffers(env):
    return [
        env.cards,
        env.ints,
        env.rng,
        env.prng,
        env.seat,
        env.obs,
        env.mask,
        env.rewards,
        env.terminated,
        env.truncated,
        env.final_obs,
        env.final_steps,
        env.final_outcome,
        env.status,
    ]


@pytest.mark.parametrize(
    "settings,seats",
    [
        ({"num_players": 2, "episode": "round", "max_steps": 90}, None),
        ({"num_players": 3, "scoring": "challenge", "target_score": 80}, [None, "random", HEURISTIC]),
    ],
    ids=["all-seats", "learner-and-compiled"],
)
@pytest.mark.parametrize("threads", [2, 3])
def test_serial_and_parallel_paths_are_identical(settings, seats, threads, monkeypatch):
    """The parallel path splits the batch into ``numba.get_num_threads()`` parts, one per
    thread (sample_actions too, here from any size): the games of the serial path."""
    from uno_env.vector import core

    monkeypatch.setattr(core.numba, "get_num_threads", lambda: threads)
    monkeypatch.setattr(core, "SAMPLE_PARALLEL_THRESHOLD", 1)
    envs = [UnoVectorEnv(300, parallel=p, seats=seats, seed=5, **settings) for p in (False, True)]
    assert [e.parallel for e in envs] == [False, True]
    assert np.array_equal(envs[0].sample_actions(), envs[1].sample_actions())
    ended = 0
    for _ in range(250):
        steps = [e.step(e.sample_actions()) for e in envs]
        for a, b in zip(buffers(envs[0]), buffers(envs[1])):
            assert np.array_equal(a, b)
        ended += int((steps[0].terminated | steps[0].truncated).sum())
    assert ended > 0
    which = np.arange(300) % 3 == 0
    for e in envs:
        e.reset(seed=99, which=which)
    for a, b in zip(buffers(envs[0]), buffers(envs[1])):
        assert np.array_equal(a, b)
    results = [e.play(200, policies=["random"] + [HEURISTIC] * (e.num_players - 1)) for e in envs]
    for key in results[0]:
        assert np.array_equal(results[0][key], results[1][key])
    for a, b in zip(buffers(envs[0]), buffers(envs[1])):
        assert np.array_equal(a, b)


def test_parallel_env_steps_in_a_forked_child():
    """The worker threads of the parallel path are rebuilt in a forked child (its copy of
    the parent's pool has no threads): a step there finishes, with the parent's result."""
    import multiprocessing

    env = UnoVectorEnv(64, parallel=True, seed=8)
    env.step(env.sample_actions())  # the parent's pool now exists
    actions = env.sample_actions().copy()
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        child = pool.apply_async(_step_and_return_state, (env, actions)).get(timeout=120)
    env.step(actions)
    assert np.array_equal(child, env.ints)


def _step_and_return_state(env, actions):
    env.step(actions)
    return env.ints


def test_parallel_auto_follows_the_threshold(monkeypatch):
    from uno_env.vector import core

    monkeypatch.setattr(core.numba, "get_num_threads", lambda: 2)
    assert not UnoVectorEnv(core.PARALLEL_THRESHOLD - 1).parallel
    assert UnoVectorEnv(core.PARALLEL_THRESHOLD).parallel
    monkeypatch.setattr(core.numba, "get_num_threads", lambda: 1)
    assert not UnoVectorEnv(core.PARALLEL_THRESHOLD).parallel


def test_autoreset_starts_the_next_episode_in_the_same_step():
    env = UnoVectorEnv(16, num_players=2, episode="round", max_steps=40, seed=3)
    before = env.ints[:, S_EPISODES].copy()
    for t in range(40):
        step = env.step(env.sample_actions())
        if t < 39:
            assert not step.truncated.any()
    assert step.truncated.all() and not step.terminated.any()
    assert (step.info["final_steps"] == 40).all()
    assert (env.ints[:, S_STEP] == 0).all()  # the new episode, at its first decision
    assert (env.ints[:, S_EPISODES] == before + 1).all()
    # the new first observation is a fresh deal: 7 cards in the acting seat's hand
    spec = env.game.obs_spec
    hands = step.obs[:, spec.offset("hand") : spec.offset("hand") + 54].sum(axis=1)
    assert np.all(hands >= 7)
    # and the final observations are the old episode's last ones, not the new ones
    assert not np.array_equal(step.info["final_obs"][:, 0], step.obs)


def test_seeded_reset_restarts_like_a_new_env():
    a = UnoVectorEnv(8, num_players=3, seed=21)
    for _ in range(30):
        a.step(a.sample_actions())
    a.reset(seed=21)
    b = UnoVectorEnv(8, num_players=3, seed=21)
    for x, y in zip(buffers(a), buffers(b)):
        assert np.array_equal(x, y)


def test_a_win_is_credited_to_the_winner_and_the_loser():
    game = Game(num_players=2, episode="round")
    state = setup(game, [["R1", "G2", "B7"], ["R5"]], ["R3"], current=1)
    env = UnoVectorEnv(3, num_players=2, episode="round", seed=0)
    env.load_state(1, state)
    actions = env.sample_actions().copy()
    actions[1] = game.string_to_action("play R5")
    step = env.step(actions)
    assert step.terminated[1] and not step.truncated[1]
    assert list(step.rewards[1]) == [-1.0, 1.0]
    assert list(step.info["final_outcome"][1]) == [-1, 1]
    hand = game.obs_spec.by_name["hand"]
    assert step.info["final_obs"][1, 1, hand.offset : hand.stop].sum() == 0  # seat 1 went out
    assert step.info["final_obs"][1, 0, hand.offset : hand.stop].sum() == 3


class Reference:
    """One game played through the single-game API with the vector env's learner semantics."""

    def __init__(self, game, seat_policies, seed):
        self.game = game
        self.policies = seat_policies
        self.state = game.init(seed=seed)
        self.prng = np.array([policy_seed_to_rng(seed)], dtype=np.uint64)
        self.settle(False)

    def external_alive(self):
        alive = self.game.alive(self.state)
        return any(alive[s] for s in range(self.game.num_players) if self.policies[s] == EXTERNAL)

    def settle(self, reporting):
        game, state = self.game, self.state
        rewards = np.zeros(game.num_players, dtype=np.float32)
        ended = None
        while True:
            if game.is_over(state) or not self.external_alive():
                if reporting:
                    ended = {
                        "truncated": game.is_truncated(state),
                        "final_obs": [game.observe(state, s) for s in np.flatnonzero(self.policies == EXTERNAL)],
                        "outcome": game.outcome(state),
                        "steps": game.step_count(state),
                    }
                    reporting = False
                game.reset(state)
                continue
            seat = game.current_player(state)
            if self.policies[seat] == EXTERNAL:
                return rewards, ended
            obs = game.observe(state, seat)
            action = policy_kernels.policy_act(
                self.policies[seat], obs, game.legal_mask(state), game.params, self.prng, 0
            )
            result = game.step(state, int(action))
            if reporting:
                rewards += result.rewards

    def step(self, action):
        rewards = self.game.step(self.state, action).rewards.copy()
        more, ended = self.settle(True)
        return rewards + more, ended


@pytest.mark.parametrize(
    "settings,seats",
    [
        ({"num_players": 2, "episode": "round", "max_steps": 300}, [None, "random"]),
        ({"num_players": 3, "scoring": "challenge", "target_score": 60, "max_steps": 900}, ["random", None, HEURISTIC]),
        ({"num_players": 4, "partners": True, "reward": "points", "max_steps": 500}, [HEURISTIC, "random", None, None]),
        (  # the house rules' decisions (penalty, swap, jump-in) on both sides of the kernel
            {"num_players": 4, "stacking": "mixed", "seven_o": True, "jump_in": True, "force_play": True},
            ["keeper", None, "tactical", "naive"],
        ),
    ],
    ids=["2p", "3p-challenge", "4p-partners-two-external", "4p-house-rules"],
)
def test_compiled_seats_match_the_single_game_api(settings, seats):
    env = UnoVectorEnv(4, parallel=False, seats=seats, seed=40, **settings)
    references = [Reference(env.game, env.seat_policies, 40 + i) for i in range(4)]
    ends = 0
    for _ in range(500):
        for i, ref in enumerate(references):
            assert_same_game(env, i, env.game, ref.state)
            assert env.seat[i] == env.game.current_player(ref.state)
            assert np.array_equal(env.obs[i], env.game.observe(ref.state, int(env.seat[i])))
        actions = env.sample_actions().copy()
        step = env.step(actions)
        for i, ref in enumerate(references):
            rewards, ended = ref.step(int(actions[i]))
            assert np.array_equal(step.rewards[i], rewards)
            assert bool(step.terminated[i] or step.truncated[i]) == (ended is not None)
            if ended:
                ends += 1
                assert step.truncated[i] == ended["truncated"]
                assert list(step.info["final_outcome"][i]) == ended["outcome"]
                assert step.info["final_steps"][i] == ended["steps"]
                for k, obs in enumerate(ended["final_obs"]):
                    assert np.array_equal(step.info["final_obs"][i, k], obs)
    assert ends > 0


@pytest.mark.parametrize("learner_seat", [0, 1])
def test_learner_returns_are_its_own_outcomes(learner_seat):
    env = UnoGymVectorEnv(48, num_players=2, episode="round", learner_seat=learner_seat, opponents="random", seed=8)
    obs, infos = env.reset()
    returns = np.zeros(48)
    outcomes = []
    for _ in range(1500):
        masks = infos["action_mask"]
        actions = np.array([np.flatnonzero(m)[k % m.sum()] for k, m in enumerate(masks)])
        obs, rewards, terminated, truncated, infos = env.step(actions)
        returns += rewards
        done = terminated | truncated
        for i in np.flatnonzero(done):
            outcome = infos["final_info"]["outcome"][i]
            assert returns[i] == outcome  # +1 / -1 credited to the learner, whoever moved last
            outcomes.append(outcome)
            returns[i] = 0
    assert outcomes.count(1) >= 3 and outcomes.count(-1) >= 3, outcomes


def test_gymnasium_vector_env_adapter():
    import gymnasium
    from gymnasium.vector import AutoresetMode

    env = UnoGymVectorEnv(6, num_players=3, learner_seat=2, opponents=["random", HEURISTIC], max_steps=60)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.observation_space.shape == (6, env.single_observation_space.shape[0])
    obs, infos = env.reset(seed=4)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert infos["action_mask"].shape == (6, env.single_action_space.n)
    assert (env.env.seat == 2).all()
    again, _ = UnoGymVectorEnv(6, num_players=3, learner_seat=2, opponents=["random", HEURISTIC], max_steps=60).reset(
        seed=4
    )
    assert np.array_equal(obs, again)
    seen_final = False
    for _ in range(80):
        actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert rewards.shape == (6,) and terminated.dtype == bool and truncated.dtype == bool
        assert env.observation_space.contains(obs)
        if (terminated | truncated).any():
            seen_final = True
            done = terminated | truncated
            assert np.array_equal(infos["_final_obs"], done)
            for i in np.flatnonzero(done):
                assert infos["final_obs"][i].shape == env.single_observation_space.shape
                assert not np.array_equal(infos["final_obs"][i], obs[i])
            assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~done))
    assert seen_final
    mask = np.zeros(6, dtype=bool)
    mask[[1, 4]] = True
    kept = obs.copy()
    obs, _ = env.reset(options={"reset_mask": mask})
    assert np.array_equal(obs[~mask], kept[~mask])
    env.close()


@pytest.mark.slow
def test_sb3_vec_env_adapter_trains_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecEnv

    from uno_env.vector import UnoSB3VecEnv

    env = UnoSB3VecEnv(8, num_players=2, episode="round", max_steps=200, opponents="random", seed=1)
    assert isinstance(env, VecEnv) and is_masking_supported(env)
    obs = env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (8, env.action_space.n) and masks.dtype == bool
    assert np.array_equal(masks, env.env.mask.astype(bool))
    with pytest.raises(AttributeError):
        env.get_attr("no_such_thing")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=256, n_epochs=2, seed=0, verbose=0)
    model.learn(total_timesteps=3000)
    assert model.num_timesteps >= 3000
    obs = env.reset()
    saw_truncation = False
    for _ in range(300):
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=False)
        assert masks[np.arange(8), actions].all()
        obs, rewards, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == env.observation_space.shape
            saw_truncation |= infos[i]["TimeLimit.truncated"]
    assert saw_truncation  # max_steps=200 cuts some random hands


def test_bad_input_gives_clear_errors():
    with pytest.raises(ValueError, match="num_envs"):
        UnoVectorEnv(0)
    with pytest.raises(ValueError, match="parallel"):
        UnoVectorEnv(2, parallel="yes")
    with pytest.raises(ValueError, match="unknown compiled policy"):
        UnoVectorEnv(2, seats=[None, "clever"])
    with pytest.raises(ValueError, match="at least one seat"):
        seat_policies_for(2, ["random", "random"])
    with pytest.raises(ValueError, match="one entry per seat"):
        UnoVectorEnv(2, num_players=3, seats=[None, "random"])
    with pytest.raises(ValueError, match="learner_seat"):
        UnoGymVectorEnv(2, num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="num_players"):
        UnoVectorEnv(2, num_players=11)
    env = UnoVectorEnv(4, num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="first reset"):
        env.reset(seed=0, which=np.array([True, False, True, True]))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="integer"):
        env.step(np.zeros(4))
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed="x")
    # an id outside the action space: refused before any game changes
    actions = env.sample_actions().copy()
    actions[2] = env.game.num_actions + 5
    everything = env.ints.copy()
    with pytest.raises(IllegalActionError, match="game 2: 75"):
        env.step(actions)
    assert np.array_equal(env.ints, everything)
    # an action the engine refuses: that game is unchanged, the others advance, the error says which
    actions[2] = env.game.string_to_action("challenge")  # not available in a normal turn
    before = env.ints[2].copy()
    steps_before = env.ints[:, S_STEP].copy()
    with pytest.raises(IllegalActionError, match="game 2") as info:
        env.step(actions)
    assert list(info.value.games) == [2]
    assert np.array_equal(env.ints[2], before)
    others = [0, 1, 3]
    assert np.all((env.ints[others, S_STEP] == steps_before[others] + 1) | (env.ints[others, S_STEP] == 0))


def test_state_stays_within_a_kilobyte_per_game_for_two_players():
    env = UnoVectorEnv(64, num_players=2)
    params = env.game.params
    assert env.state.nbytes_per_game() == params[P_C_SIZE] + 4 * params[P_I_SIZE] + 8  # int8, int32, uint64 rng
    assert env.nbytes_per_game <= 1024
