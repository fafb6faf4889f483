"""The masked PPO script: a seeded smoke run with every output, determinism, resumption,
and the bookkeeping that credits rewards to the learner's transitions."""

import csv
import json
import pathlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from uno_env.agents import neural  # noqa: E402
from uno_env.engine import Game  # noqa: E402
from uno_env.training import network as N  # noqa: E402
from uno_env.training import opponents as O  # noqa: E402
from uno_env.training import ppo as P  # noqa: E402
from uno_env.training import rollout as R  # noqa: E402

from .test_neural import random_network  # noqa: E402

TINY = dict(
    total_timesteps=1500,
    num_envs=16,
    batch_size=512,
    num_minibatches=2,
    update_epochs=2,
    hidden=32,
    snapshot_every=1,
    eval_every=2,
    eval_games=8,
    eval_opponents="random_play",
    checkpoint_every=1,
    bc_decisions=600,
    bc_epochs=1,
    progress=False,
    opponents="tactical=0.3,random_play=0.2,snapshot=0.3,latest=0.2",
    threads=1,  # small networks on two shared cores: two torch threads ran each run 10x slower
)


def read_rows(path) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(f))


def run(tmp_path, name, **changes):
    args = P.Args(**{**TINY, "out_dir": str(tmp_path), "run_name": name, **changes})
    return P.train(args)


@pytest.mark.slow
def test_smoke_run_writes_every_output(tmp_path):
    result = run(tmp_path, "smoke")
    folder = tmp_path / "smoke"
    rows = read_rows(folder / "progress.csv")
    assert len(rows) == result["updates"] >= 3
    assert float(rows[-1]["global_step"]) >= TINY["total_timesteps"]
    assert rows[-1]["eval_random_play_win_rate"] != "" and 0 <= float(rows[-1]["eval_random_play_lo"]) <= 1
    assert all(0 <= float(r["env_share"]) <= 1 for r in rows)
    for name in ("checkpoint.pt", "policy.npz", "curve.png", "args.json"):
        assert (folder / name).is_file(), name
    assert list(folder.glob("events.out.tfevents.*"))
    assert json.loads((folder / "args.json").read_text())["seed"] == 1
    assert set(result["evaluation"]) == {"random_play"}
    shares = [sum(float(r[k]) for k in ("env_share", "opponent_share", "policy_share", "update_share")) for r in rows]
    assert all(0 < share <= 1.001 for share in shares)
    from uno_env.training.plot import main as plot_main

    csv_path = str(folder / "progress.csv")
    assert plot_main([f"{csv_path}:2", csv_path, "--out", str(tmp_path / "stages.png")]) == 0
    assert (tmp_path / "stages.png").stat().st_size > 1000
    assert plot_main([str(tmp_path / "missing.csv"), "--out", str(tmp_path / "x.png")]) == 2


def first_update_parameters(tmp_path, name, seed):
    run(tmp_path, name, seed=seed, total_timesteps=600, eval_every=0, bc_decisions=300, tensorboard=False)
    state = torch.load(tmp_path / name / "checkpoint.pt", weights_only=False)["agent"]
    return torch.cat([v.flatten().float() for v in state.values()])


@pytest.mark.slow
def test_the_same_seed_gives_the_same_first_updates(tmp_path):
    a = first_update_parameters(tmp_path, "a", seed=5)
    b = first_update_parameters(tmp_path, "b", seed=5)
    c = first_update_parameters(tmp_path, "c", seed=6)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


@pytest.mark.slow
def test_resume_continues_from_the_checkpoint(tmp_path):
    first = run(tmp_path, "r", total_timesteps=5000, stop_after_update=1, eval_every=0, tensorboard=False)
    assert first["updates"] == 1
    checkpoint = tmp_path / "r" / "checkpoint.pt"
    resumed = P.train(P.Args(resume=str(checkpoint), total_timesteps=1500, progress=False))
    assert resumed["global_step"] >= 1500 and resumed["updates"] > first["updates"]
    rows = read_rows(tmp_path / "r" / "progress.csv")
    assert [int(r["update"]) for r in rows] == list(range(1, resumed["updates"] + 1))


def test_transitions_close_at_the_next_decision_and_credit_rewards_in_between():
    buffer = R.Transitions(capacity=16, obs_size=3, num_actions=2, num_chains=2)
    obs, mask = np.zeros((1, 3), np.float32), np.ones((1, 2), bool)
    one = np.array([0])
    buffer.add(one, obs, mask, np.array([1]), np.array([-0.5]), np.array([0.2]))  # t0, game 0
    buffer.credit(np.array([0.5, 9.0]))  # game 1 has no open transition: nothing to credit
    buffer.credit(np.array([0.25, 0.0]))  # while the opponent acts
    buffer.add(one, obs, mask, np.array([0]), np.array([-0.1]), np.array([0.4]))  # t1 closes t0
    buffer.credit(np.array([1.0, 0.0]))
    buffer.end(one)  # t1 closes as terminal
    assert buffer.reward[:2].tolist() == [0.75, 1.0]
    assert buffer.next_value[0] == pytest.approx(0.4) and buffer.done.tolist()[:2] == [False, True]
    index, adv, returns = buffer.advantages(gamma=0.9, lam=0.5)
    assert index.tolist() == [0, 1]
    adv1 = 1.0 - 0.4
    adv0 = 0.75 + 0.9 * 0.4 - 0.2 + 0.9 * 0.5 * adv1
    np.testing.assert_allclose(adv, [adv0, adv1], rtol=1e-6)
    np.testing.assert_allclose(returns, [adv0 + 0.2, adv1 + 0.4], rtol=1e-6)


def test_each_chain_keeps_its_own_transitions():
    """Two learner seats of one game (a team): chains 0 and 1 interleave, each closes at its
    own next decision and is credited only its own seat's rewards."""
    buffer = R.Transitions(capacity=16, obs_size=1, num_actions=1, num_chains=2)
    obs, mask = np.zeros((1, 1), np.float32), np.ones((1, 1), bool)
    a, z = np.array([0]), np.array([0.0])
    buffer.add(np.array([0]), obs, mask, a, z, np.array([0.1]))  # t0: seat 0
    buffer.add(np.array([1]), obs, mask, a, z, np.array([0.2]))  # t1: seat 1, t0 stays open
    assert buffer.num_closed == 0
    buffer.credit(np.array([0.5, -0.25]))
    buffer.add(np.array([0]), obs, mask, a, z, np.array([0.3]))  # t2 closes t0 only
    assert buffer.num_closed == 1 and buffer.next_value[0] == pytest.approx(0.3)
    buffer.credit(np.array([1.0, 1.0]))
    buffer.end(np.array([0, 1]))
    assert buffer.reward[:3].tolist() == [0.5, 0.75, 1.0]
    assert buffer.successor[:3].tolist() == [2, -1, -1] and buffer.done[:3].tolist() == [False, True, True]


def collect_terminal_rewards(changes: dict, seed: int = 0):
    """One rollout's terminal learner transitions: (their rewards, the outcomes of the
    learner seats that made them, the rollout)."""
    args = P.Args(**{**TINY, "opponents": "random_play=0.5,tactical=0.5", **changes})
    game = P.make_game(args)
    agent = N.ActorCritic(game, 16)
    pool = O.OpponentPool(args.opponents, game, agent, 16, 2, seed=0)
    rollout = R.Rollout(args, game, agent, pool, torch.device("cpu"), seed=seed)
    rollout.collect()
    closed = np.concatenate(rollout.buffer.closed)
    return rollout.buffer.reward[closed[rollout.buffer.done[closed]]], rollout


@pytest.mark.slow
def test_learner_rewards_match_the_outcomes_of_its_seat(tmp_path):
    """With win rewards, the terminal transitions' rewards are the learner seat's results."""
    rewards, rollout = collect_terminal_rewards({"batch_size": 2000, "num_envs": 24})
    outcomes = np.array([o for _, o in rollout.finished])
    assert len(outcomes) == len(rewards) > 20
    assert sorted(rewards.tolist()) == sorted(np.sign(outcomes).astype(float).tolist())
    assert set(rollout.learner_seat.tolist()) == {0, 1}


@pytest.mark.parametrize(
    "changes, seats_per_episode",
    [
        ({"num_players": 4}, 1),
        ({"num_players": 4, "rules": ("partners=true",)}, 1),
        ({"num_players": 4, "rules": ("partners=true",), "learner_team": True}, 2),
    ],
    ids=["4p", "partners", "partners-team"],
)
def test_learner_rewards_at_four_players_and_with_partners(changes, seats_per_episode):
    """At 4 players (one seat of four, so mostly -1) and with partners, where a partner's
    win is the learner's win: every terminal transition's reward is its seat's outcome,
    which is its team's; a team learner closes one terminal transition per seat."""
    rewards, rollout = collect_terminal_rewards({"batch_size": 1200, "num_envs": 16, **changes})
    outcomes = np.array([o for _, o in rollout.finished])
    assert len(outcomes) > 10
    # every episode's learner seats decided at least once before it ended (hands are long)
    assert sorted(rewards.tolist()) == sorted(np.repeat(np.sign(outcomes), seats_per_episode).astype(float).tolist())
    assert rollout.learner.sum(axis=1).tolist() == [seats_per_episode] * 16
    if seats_per_episode == 2:  # the two learner seats of a game are partners
        seats = np.nonzero(rollout.learner)[1].reshape(16, 2)
        assert ((seats[:, 1] - seats[:, 0]) == 2).all()
    assert (outcomes < 0).any()
    if "partners=true" in changes.get("rules", ()) and seats_per_episode == 1:
        assert (outcomes > 0).any()  # hands its partner (tactical or random_play) won for it too


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"num_players": 2}, [[1, -1], [-1, 1]]),
        ({"num_players": 3}, [[1, -0.5, -0.5], [-0.5, 1, -0.5], [-0.5, -0.5, 1]]),
        (
            {"num_players": 4, "rules": ("partners=true",)},
            [[1, -0.5, 0, -0.5], [-0.5, 1, -0.5, 0], [0, -0.5, 1, -0.5], [-0.5, 0, -0.5, 1]],
        ),
    ],
    ids=["2p", "3p", "partners"],
)
def test_point_margins_weigh_the_opponents_and_not_the_partner(changes, expected):
    """A seat's margin is its points less the mean of its opponents' (per 100 points): zero-sum
    (every column sums to 0), and a partner's points, which are the seat's own, do not count."""
    weights = R.point_margins(P.make_game(P.Args(reward="margin", **changes)))
    assert weights * 100 == pytest.approx(np.array(expected))
    assert weights.sum(axis=0) == pytest.approx(0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "changes",
    [{}, {"num_players": 4, "rules": ("partners=true",)}],
    ids=["2p", "partners"],
)
def test_margin_rewards_are_the_points_less_what_the_opponents_scored(changes):
    """``--reward margin`` plays the same games as ``--reward points`` (the env scores points
    either way): a hand the learner's seat or team won gives its points / 100; a lost hand
    gives minus the winner's points shared among the learner's opponents (with partners, a
    hand the partner won is the learner's win)."""
    changes = {"batch_size": 1200, "num_envs": 16, "opponents": "random_play=1", **changes}
    torch.manual_seed(0)
    points, by_points = collect_terminal_rewards({**changes, "reward": "points"})
    torch.manual_seed(0)
    margins, by_margin = collect_terminal_rewards({**changes, "reward": "margin"})
    assert by_points.finished == by_margin.finished and len(points) > 10
    won = points > 0
    assert won.any() and (~won).any()
    assert margins[won] == pytest.approx(points[won] / 100)
    assert (margins[~won] <= 0).all() and (margins[~won] < 0).any()
    assert P.make_game(P.Args(reward="margin", **changes)).config.reward == "points"


def test_learner_team_needs_partners():
    with pytest.raises(ValueError, match="--learner-team needs partners"):
        P.check_args(P.Args(num_players=4, learner_team=True), P.make_game(P.Args(num_players=4)))
    assert P.main(["--smoke", "--num-players", "4", "--learner-team"]) == 2


@pytest.mark.parametrize(
    "changes",
    [{"num_players": 4}, {"num_players": 4, "rules": ("partners=true",), "learner_team": True}],
    ids=["4p", "partners-team"],
)
def test_smoke_runs_at_four_players_and_with_a_team(tmp_path, changes):
    result = run(tmp_path, "multi", **{**TINY, "bc_decisions": 0, "eval_every": 0, **changes})
    network = neural.load_network(tmp_path / "multi" / "policy.npz")
    assert result["global_step"] >= TINY["total_timesteps"]
    assert network.supports(P.make_game(P.Args(**{**TINY, **changes})))


@pytest.mark.slow
def test_a_run_that_reads_the_seats_in_the_order_of_play(tmp_path):
    """``--seat-order play``: the exported network (and its snapshots in the pool) read the
    per-seat slices in the order of play; a run starts from its file or its checkpoint only
    in the same order, and a run so started keeps the actor while the critic warms up."""
    settings = dict(num_players=4, seat_order="play", eval_every=0, tensorboard=False, bc_decisions=400)
    run(tmp_path, "play", **settings, stop_after_update=2)
    source = tmp_path / "play" / "policy.npz"
    assert neural.load_network(source).seat_order == "play"
    kept = run(tmp_path, "kept", **{**settings, "init_from": str(source), "critic_warmup": 100})
    assert kept["updates"] >= 2
    before, after = neural.load_network(source), neural.load_network(tmp_path / "kept" / "policy.npz")
    assert after.seat_order == "play" and np.allclose(before.w1, after.w1, atol=1e-6)
    for start in (source, tmp_path / "play" / "checkpoint.pt"):
        with pytest.raises(ValueError, match="reads the seats in play order"):
            run(tmp_path, "clockwise", **{**settings, "seat_order": "clockwise", "init_from": str(start)})


def network_file(tmp_path, players: int, hidden: int) -> pathlib.Path:
    """A network file of ``players`` with ``hidden`` units per layer (random weights)."""
    path = tmp_path / f"net_{players}p_{hidden}.npz"
    random_network(Game(num_players=players), hidden, path)
    return path


@pytest.mark.slow
def test_a_run_starts_from_a_network_file_at_another_table(tmp_path):
    """``--init-from FILE.npz``: the actor starts as the file's network carried over to this
    table (``neural.transplant``); during ``--critic-warmup`` updates only the critic learns,
    so the exported actor is still exactly that network; without a warm-up the actor moves."""
    source = network_file(tmp_path, 2, TINY["hidden"])
    game = P.make_game(P.Args(num_players=3))
    expected = neural.transplant(neural.load_network(source), game)
    settings = dict(num_players=3, init_from=str(source), eval_every=0, tensorboard=False)
    kept = run(tmp_path, "kept", **settings, critic_warmup=100)
    moved = run(tmp_path, "moved", **settings, critic_warmup=0)
    assert kept["updates"] == moved["updates"] >= 2
    torch.manual_seed(1)  # the run's seed: the critic as the run initialised it
    initial_critic = N.ActorCritic(game, TINY["hidden"]).critic[0].weight.detach().numpy()
    for name, same in (("kept", True), ("moved", False)):
        state = torch.load(tmp_path / name / "checkpoint.pt", weights_only=False)["agent"]
        actor = [state[f"actor.{i}.weight"].numpy() for i in (0, 2, 4)]
        assert all(np.allclose(a, w, atol=1e-6) for a, (w, _) in zip(actor, expected)) == same, name
        critic = state["critic.0.weight"].numpy()
        assert not np.allclose(critic, initial_critic, atol=1e-6), name
    rows = read_rows(tmp_path / "kept" / "progress.csv")
    assert all(float(r["value_loss"]) > 0 for r in rows)


def test_a_network_file_that_does_not_fit_the_run_is_refused_before_anything_is_written(tmp_path, capsys):
    source = network_file(tmp_path, 4, 16)
    common = ["--smoke", "--out-dir", str(tmp_path / "runs"), "--no-progress", "--init-from"]
    assert P.main([*common, str(source), "--num-players", "4"]) == 2
    assert "its hidden layers have 16 and 16 units, --hidden is 64" in capsys.readouterr().err
    assert P.main([*common, str(source), "--num-players", "2", "--hidden", "16"]) == 2
    assert "cannot play this table: the observation's slice 'acting' has 2 entries" in capsys.readouterr().err
    assert P.main([*common, str(tmp_path / "none.npz"), "--num-players", "4"]) == 2
    assert "no policy network at" in capsys.readouterr().err
    assert P.main(["--smoke", "--critic-warmup", "-1"]) == 2
    assert P.main(["--smoke", "--seat-order", "backwards"]) == 2
    assert "--seat-order must be one of clockwise, play, got 'backwards'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_hidden_hands_are_the_other_seats_hands_in_the_observers_order():
    """What a privileged critic reads: per other seat (seat+1 first) its hand, which holds as
    many cards as the observer's ``hand_sizes`` shows for that seat, and the whole deal
    with the observer's own hand and the piles."""
    from uno_env.vector import UnoVectorEnv

    game = Game(num_players=4)
    hands = N.HiddenHands(game)
    env = UnoVectorEnv(8, game.config, seed=3)
    step = env.reset(seed=3)
    spec = game.obs_spec
    faces = spec.by_name["hand"].size
    rng = np.random.default_rng(0)
    for _ in range(30):
        games = np.arange(8)
        seats = np.maximum(step.seat, 0)
        rows = hands(env.state, games, seats)
        assert rows.shape == (8, 3 * faces)
        for g in games:
            view = spec.to_dict(step.obs[g])
            sizes = rows[g].reshape(3, faces).sum(1)
            np.testing.assert_array_equal(sizes, view["hand_sizes"][1:])
            in_hands = rows[g].reshape(3, faces).sum(0) + view["hand"]
            assert in_hands.sum() == view["hand_sizes"].sum()
        step = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.mask]))


@pytest.mark.slow
def test_a_privileged_critic_trains_and_the_exported_policy_reads_the_observation_alone(tmp_path):
    game = P.make_game(P.Args(num_players=4))
    settings = dict(num_players=4, privileged_critic=True, tensorboard=False, bc_decisions=400)
    result = run(tmp_path, "priv", **settings, stop_after_update=2)
    state = torch.load(tmp_path / "priv" / "checkpoint.pt", weights_only=False)["agent"]
    faces = game.obs_spec.by_name["hand"].size
    assert state["critic.0.weight"].shape[1] == game.observation_size + 3 * faces
    assert state["actor.0.weight"].shape[1] == game.observation_size
    network = neural.load_network(tmp_path / "priv" / "policy.npz")
    assert network.w1.shape[0] == game.observation_size and network.supports(game)
    rows = read_rows(tmp_path / "priv" / "progress.csv")
    assert len(rows) == result["updates"] == 2 and all(float(r["value_loss"]) > 0 for r in rows)
    resumed = P.train(P.Args(resume=str(tmp_path / "priv" / "checkpoint.pt"), total_timesteps=1500, progress=False))
    assert resumed["updates"] > 2  # the snapshots of the pool are privileged critics too


def test_the_hand_guess_labels_are_which_colours_each_other_seat_holds():
    """The guess head's targets, from the true hands: per other seat (seat+1 first) and
    colour, whether it holds a card of that colour; wilds count for none."""
    game = Game(num_players=3)
    hands = [["R2", "G9"], ["Y1", "W", "Y5"], ["B3", "W+4", "R7", "R8"]]
    state = game.from_position({"hands": hands, "discard_pile": ["R5"], "current_player": 0}, seed=1)
    rows = N.HiddenHands(game)(state, np.array([0]), np.array([0]))
    model = N.ActorCritic(game, 8, guess=True)
    held = (torch.as_tensor(rows).view(1, 2, -1) @ model.hand_colours) > 0
    assert held[0].int().tolist() == [[0, 1, 0, 0], [1, 0, 0, 1]]  # seat 1: yellow; seat 2: red, blue
    loss = model.guess_loss(torch.as_tensor(game.observe(state, 0))[None], torch.as_tensor(rows))
    assert 0.5 < float(loss.detach()) < 0.9  # a new head guesses near one half everywhere: about log 2
    with pytest.raises(ValueError, match="no guess head"):
        N.ActorCritic(game, 8).guess_loss(torch.as_tensor(game.observe(state, 0))[None], torch.as_tensor(rows))


@pytest.mark.slow
def test_the_hand_guess_head_trains_beside_ppo_and_is_not_exported(tmp_path):
    game = P.make_game(P.Args(num_players=4))
    settings = dict(num_players=4, hand_guess=1.0, tensorboard=False, bc_decisions=400)
    result = run(tmp_path, "guess", **settings, stop_after_update=2)
    state = torch.load(tmp_path / "guess" / "checkpoint.pt", weights_only=False)["agent"]
    assert state["guess.weight"].shape == (3 * 4, TINY["hidden"])
    assert state["critic.0.weight"].shape[1] == game.observation_size  # the critic is not privileged
    network = neural.load_network(tmp_path / "guess" / "policy.npz")
    assert network.w3.shape == (game.num_actions, TINY["hidden"]) and network.supports(game)  # the actor alone
    rows = read_rows(tmp_path / "guess" / "progress.csv")
    losses = [float(r["hand_guess_loss"]) for r in rows]
    assert len(rows) == result["updates"] == 2 and all(0 < v < 1 for v in losses)
    assert losses[-1] < losses[0]  # it learns from the first updates (0.69 -> lower)
    resumed = P.train(P.Args(resume=str(tmp_path / "guess" / "checkpoint.pt"), total_timesteps=1500, progress=False))
    assert resumed["updates"] > 2  # the snapshots of the pool have the head too
    with pytest.raises(ValueError, match="hand-guess"):
        P.check_args(P.Args(hand_guess=-1.0))


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="kind=weight"):
        O.parse_pool("tactical")
    with pytest.raises(ValueError, match="unknown agent"):
        O.OpponentPool("nobody=1", Game(num_players=2), N.ActorCritic(Game(num_players=2), 8), 8, 2, seed=0)
    assert P.main(["--smoke", "--opponents", "tactical=-1"]) == 2
    assert P.main(["--smoke", "--rules", "nope=1"]) == 2
    config = P.make_game(P.Args(rules=("uno_call=off", "deck=fashion_trend"), reward="points")).config
    assert (config.uno_call, config.deck, config.reward, config.episode) == ("off", "fashion_trend", "points", "round")


@pytest.mark.slow
def test_uno_train_smoke_from_the_command_line(tmp_path, capsys):
    from uno_env.cli.main import main

    assert (
        main(["train", "--smoke", "--out-dir", str(tmp_path), "--run-name", "cli", "--no-progress", "--threads", "1"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["global_step"] >= P.SMOKE["total_timesteps"] and (tmp_path / "cli" / "policy.npz").is_file()
