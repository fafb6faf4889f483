"""uno_env/training/sb3.py and its modules: the opponent-pool VecEnv (only the learner's decisions, rewards
credited to its seat, other games held still), a smoke run with every output, and seeding."""

import csv
import pickle

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from uno_env.agents import make_agent
from uno_env.engine import RuleConfig
from uno_env.training import sb3 as T
from uno_env.training import sb3_env, sb3_pool
from uno_env.vector import UnoVectorEnv


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Small networks on small batches, on a machine whose two cores are shared: one torch thread
    (idle OpenMP threads that spin, if torch was loaded before train_sb3 asked them not to, take
    the cores from the work)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


FAST = ["--no-progress", "--threads", "1", "--num-envs", "8", "--net-arch", "32", "32", "--n-epochs", "2"]


def pool_env(reward="win", weights="tactical=0.4,random_play=0.3,snapshot=0.3", num_envs=16, seed=0):
    config = RuleConfig(num_players=2, episode="round", reward=reward)
    pool = sb3_pool.OpponentPool(sb3_pool.parse_weights(weights), config, seed=seed)
    env = sb3_env.PoolVecEnv(num_envs, config, pool, seed=seed)
    if "snapshot" in weights:
        model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=32, seed=seed, device="cpu")
        pool.add_snapshot(model.policy)
    return env


def play_learner(env, steps: int) -> tuple[list, set[int]]:
    """Play ``steps`` learner decisions of every game of ``env`` with a fixed policy (keeper),
    checking before each that only learner seats decide and that SB3 is shown the acting
    seat's own observation. Returns each finished episode's (return, info, learner seat) and
    the acting seats seen, relative to the learner seat drawn."""
    learner = make_agent("keeper", env.config, seed=1)
    game, n = env.games.game, env.config.num_players
    obs = env.reset()
    returns = np.zeros(env.num_envs)
    finished, acted = [], set()
    for _ in range(steps):
        seats, acting = env.learner_seat.copy(), env.games.seat.copy()
        assert env.learner[np.arange(env.num_envs), acting].all()  # SB3 only sees learner seats decide
        acted.update(((acting - seats) % n).tolist())
        for i in range(env.num_envs):
            np.testing.assert_array_equal(obs[i], game.observe(env.games.state, int(acting[i]), index=i))
        env.step_async(learner.act_batch(obs, env.action_masks()))
        obs, rewards, dones, infos = env.step_wait()
        returns += rewards
        for i in np.flatnonzero(dones):
            finished.append((returns[i], infos[i], seats[i]))
            returns[i] = 0.0
    return finished, acted


@pytest.mark.parametrize("reward", ["win", "points"])
def test_learner_rewards_are_its_seats_and_episodes_end_with_its_view(reward):
    env = pool_env(reward)
    game = env.games.game
    finished, acted = play_learner(env, 600)
    assert len(finished) > 100 and acted == {0}  # one learner seat: SB3 sees its observation in every game
    totals = {total for total, _, _ in finished}
    assert totals == {-1.0, 1.0} if reward == "win" else len(totals) > 10
    outcomes = np.array([info["outcome"] for _, info, _ in finished])
    assert (outcomes > 0).any() and (outcomes < 0).any()
    assert {info["learner_seat"] for _, info, _ in finished} == {0, 1}
    assert {info["opponent"] for _, info, _ in finished} == {"tactical", "random_play", "snapshot"}
    for total, info, seat in finished:
        assert info["learner_seat"] == seat and not info["TimeLimit.truncated"]
        final_view = game.obs_spec.to_dict(info["terminal_observation"])  # seat 0 of it is the observer
        assert (final_view["hand_sizes"][0] == 0) == (info["outcome"] > 0)  # the view is the learner's own
        if reward == "win":
            assert total == info["outcome"]  # +1 / -1, also when the hand ends on an opponent's move
        else:
            assert total == final_view["scores"][0]  # the points the learner's seat scored in the hand


@pytest.mark.parametrize(
    "partners, team", [(False, False), (True, False), (True, True)], ids=["4p", "partners", "partners-team"]
)
def test_learner_rewards_at_four_players_and_with_partners(partners, team):
    """At 4 players each episode's return is the learner seat's outcome; with partners it is
    its team's (a partner's win is the learner's win), and with ``team`` SB3 sees the
    decisions of both seats of the team, credited the team's outcome once."""
    config = RuleConfig(num_players=4, episode="round", partners=partners)
    pool = sb3_pool.OpponentPool(sb3_pool.parse_weights("tactical=0.5,random_play=0.5"), config, seed=0)
    env = sb3_env.PoolVecEnv(16, config, pool, seed=0, team=team)
    game = env.games.game
    finished, acted = play_learner(env, 800)
    assert len(finished) > 20
    assert env.learner.sum(axis=1).tolist() == [2 if team else 1] * env.num_envs
    assert acted == ({0, 2} if team else {0})  # with a team, the partner's decisions too
    partner_won = False
    for total, info, seat in finished:
        assert info["learner_seat"] == seat and total == info["outcome"]
        went_out = game.obs_spec.to_dict(info["terminal_observation"])["hand_sizes"][0] == 0
        assert went_out <= (info["outcome"] > 0)
        partner_won |= info["outcome"] > 0 and not went_out
    outcomes = np.array([info["outcome"] for _, info, _ in finished])
    assert (outcomes > 0).any() and (outcomes < 0).any()
    assert partner_won == partners  # only with partners does another seat's win count as the learner's


def test_stepping_some_games_leaves_the_others_exactly_as_they_were():
    env = pool_env(weights="random_play=1", num_envs=12)
    env.reset()
    games = env.games
    reference = UnoVectorEnv(12, env.config, seats=None, seed=0)  # then a copy of the games
    reference.cards[:], reference.ints[:], reference.rng[:] = games.cards, games.ints, games.rng
    reference.seat[:], reference.obs[:], reference.mask[:] = games.seat, games.obs, games.mask
    which = np.arange(12) % 3 == 0
    actions = reference.sample_actions().copy()
    before = [a.copy() for a in (games.cards, games.ints, games.rng, games.seat, games.obs, games.mask)]
    env._step_games(which, actions.copy())
    expected = reference.step(actions)
    after = (games.cards, games.ints, games.rng, games.seat, games.obs, games.mask)
    for old, new in zip(before, after):
        np.testing.assert_array_equal(new[~which], old[~which])
    for mine, theirs in zip(after, (reference.cards, reference.ints, reference.rng, *expected[:3])):
        np.testing.assert_array_equal(mine[which], theirs[which])


@pytest.mark.slow
def test_smoke_run_writes_every_output(tmp_path):
    run_dir = T.main(
        FAST
        + ["--out-dir", str(tmp_path), "--total-timesteps", "2048", "--n-steps", "64", "--batch-size", "256"]
        + ["--snapshot-every", "1", "--max-snapshots", "2", "--eval-every", "2", "--eval-hands", "20"]
        + ["--opponent-weights", "tactical=0.3,random_play=0.2,snapshot=0.5"]
    )
    assert run_dir.parent == tmp_path and run_dir.name.startswith("uno_2p_round_win__train_sb3__1__")
    with (run_dir / "eval.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["opponent"] for r in rows] == ["random_play", "keeper", "tactical"] * 2  # rollout 2, final
    assert [r["checkpoint"] for r in rows[::3]] == ["checkpoints/model_1024_steps.zip", "final_model.zip"]
    for r in rows:
        assert int(r["hands"]) == 20 and float(r["win_rate_low"]) <= float(r["win_rate"]) <= float(r["win_rate_high"])
    assert (run_dir / "checkpoints" / "model_1024_steps.zip").exists() and (run_dir / "args.json").exists()

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = list(run_dir.glob("tb_1/events.out.tfevents.*"))
    assert len(events) == 1
    logged = EventAccumulator(str(events[0])).Reload()
    scalars = set(logged.Tags()["scalars"])
    assert {"eval/win_rate_tactical", "eval/win_rate_low_keeper", "pool/win_rate_tactical"} <= scalars
    assert logged.Scalars("pool/share_snapshot")[-1].value > 0.2  # the learner played its snapshots
    assert {"train/loss", "rollout/ep_rew_mean"} <= scalars
    snapshots = logged.Scalars("pool/snapshots")
    assert [int(s.value) for s in snapshots][-1] == 2  # one per rollout, the newest two kept

    # the saved model plays as a tournament agent; its factory can go to worker processes
    agent = sb3_pool.make_policy_agent(RuleConfig(num_players=2), path=str(run_dir / "final_model.zip"))
    assert pickle.loads(pickle.dumps(sb3_pool.make_policy_agent)) is sb3_pool.make_policy_agent
    env = UnoVectorEnv(64, num_players=2, seed=0)
    actions = agent.act_batch(env.obs, env.mask)
    assert env.mask[np.arange(64), actions].all()


@pytest.mark.slow
def test_smoke_run_of_a_team_at_a_partners_table(tmp_path):
    run_dir = T.main(
        FAST
        + ["--out-dir", str(tmp_path), "--total-timesteps", "512", "--n-steps", "32", "--batch-size", "128"]
        + ["--num-players", "4", "--rules", "partners=true", "--learner-team", "--eval-every", "0"]
        + ["--eval-hands", "16", "--eval-opponents", "tactical", "--opponent-weights", "tactical=1"]
    )
    assert run_dir.name.startswith("uno_4p_round_win__")
    with (run_dir / "eval.csv").open() as fh:
        (row,) = list(csv.DictReader(fh))
    assert int(row["hands"]) == 16 and float(row["ratio"]) == pytest.approx(float(row["win_rate"]) / 0.5)
    agent = sb3_pool.make_policy_agent(RuleConfig(num_players=4, partners=True), path=str(run_dir / "final_model.zip"))
    env = UnoVectorEnv(32, num_players=4, partners=True, seed=0)
    assert env.mask[np.arange(32), agent.act_batch(env.obs, env.mask)].all()


def test_a_team_learner_needs_partners(tmp_path):
    with pytest.raises(ValueError, match="--learner-team needs partners"):
        T.main(FAST + ["--out-dir", str(tmp_path), "--num-players", "4", "--learner-team"])
    assert not list(tmp_path.iterdir())  # refused before anything was written


def final_parameters(tmp_path, seed: int, *options: str) -> dict:
    run_dir = T.main(
        FAST
        + ["--out-dir", str(tmp_path), "--seed", str(seed), "--total-timesteps", "512"]
        + ["--n-steps", "32", "--batch-size", "64", "--snapshot-every", "1", *options]
    )
    return MaskablePPO.load(run_dir / "final_model.zip", device="cpu").policy.state_dict()


@pytest.mark.slow
def test_same_seed_same_updates_other_seed_other_updates(tmp_path):
    first = final_parameters(tmp_path / "a", 3, "--eval-hands", "0")
    again = final_parameters(tmp_path / "b", 3, "--eval-hands", "4", "--eval-every", "1")  # evaluating changes nothing
    other = final_parameters(tmp_path / "c", 4, "--eval-hands", "0")
    assert all(torch.equal(first[key], again[key]) for key in first)
    assert not all(torch.equal(first[key], other[key]) for key in first)


def test_opponent_weights_are_checked():
    assert sb3_pool.parse_weights("tactical=0.4, snapshot=0.6") == {"tactical": 0.4, "snapshot": 0.6}
    for bad in ("tactical", "tactical=-1", "keeper=0", "keeper=1,keeper=2"):
        with pytest.raises(ValueError):
            sb3_pool.parse_weights(bad)
