"""The trained policy network: numpy/numba forward pass against torch, the shipped policy
(loaded without torch) against random, legality in every variant, compiled use."""

import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from agents import make_agent
from uno_env import neural
from uno_env.engine import Game
from uno_env.vector import UnoVectorEnv

from .test_agents import VARIANTS

PHASES = ("play", "drawn", "color", "challenge", "catch")


def observations_by_phase(game: Game, per_phase: int = 40, seed: int = 0) -> dict:
    """Real observations and masks of every decision phase, from seeded random play."""
    rng = np.random.default_rng(seed)
    found = {p: [] for p in PHASES}
    state = game.init(seed=seed)
    episode = 0
    while any(len(v) < per_phase for v in found.values()) and episode < 4000:
        if game.is_over(state) or game.step_count(state) > 80:
            episode += 1
            state = game.init(seed=seed + episode)
        seat = game.current_player(state)
        mask = game.legal_mask(state)
        phase = game.phase(state)
        if len(found[phase]) < per_phase:
            found[phase].append((game.observe(state, seat), mask.copy()))
        legal = np.flatnonzero(mask)
        wild_draw_four = [a for a in legal if game.action_to_string(int(a)).startswith("play W+4")]
        action = int(rng.choice(wild_draw_four)) if wild_draw_four and rng.random() < 0.5 else int(rng.choice(legal))
        game.step(state, action)
    return found


def torch_actor_from(network: neural.Network, game: Game):
    torch = pytest.importorskip("torch")
    from experiments.ppo_masked import ActorCritic

    model = ActorCritic(game, network.w1.shape[1])
    linears = [m for m in model.actor if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for linear, (w, b) in zip(
            linears, ((network.w1.T, network.b1), (network.w2.T, network.b2), (network.w3, network.b3))
        ):
            linear.weight.copy_(torch.as_tensor(np.ascontiguousarray(w)))
            linear.bias.copy_(torch.as_tensor(b))
        model.scale.copy_(torch.as_tensor(network.scale))
    return model


@pytest.mark.parametrize("source", ["shipped", "fresh"])
def test_numba_forward_equals_torch_forward_in_every_phase(source, tmp_path):
    torch = pytest.importorskip("torch")
    from experiments.ppo_masked import ActorCritic

    game = Game(num_players=2, episode="round")
    if source == "shipped":
        network = neural.load_network(neural.SHIPPED_PATH)
    else:
        torch.manual_seed(0)
        model = ActorCritic(game, 32)
        for p in model.actor.parameters():  # larger weights than the init, so that differences show
            p.data.normal_(0, 0.3)
        network = model.export(tmp_path / "fresh.npz", game)
    model = torch_actor_from(network, game)
    found = observations_by_phase(game)
    for phase in PHASES:
        assert found[phase], f"no observation of phase {phase}"
        obs = np.array([o for o, _ in found[phase]])
        mask = np.array([m for _, m in found[phase]])
        expected = model.masked_logits(torch.as_tensor(obs), torch.as_tensor(mask).bool()).detach().numpy()
        got = np.empty(mask.shape, dtype=np.float32)
        neural.network_logits_batch(obs, mask, game.params, *network.arrays(), got)
        legal = mask > 0
        np.testing.assert_allclose(got[legal], expected[legal], rtol=1e-4, atol=1e-4, err_msg=phase)
        assert np.isneginf(got[~legal]).all()
        assert (got.argmax(1) == expected.argmax(1)).all()


# Logits of the shipped network recorded by the positional-file code (commit fcf2235, before
# the file was keyed by names), for observations of seeded random play: per case the
# settings and the seed of observations_by_phase(game, per_phase=20, seed); per observation
# its legal action ids, their logits and the compiled ppo's action.
SHIPPED_LOGITS = pathlib.Path(__file__).parent / "data" / "shipped_ppo_logits.npz"
SHIPPED_LOGIT_CASES = [
    ({"num_players": 2, "episode": "round"}, 0),
    ({"num_players": 3, "deck": "fashion_trend"}, 1),
    ({"num_players": 4, "partners": True}, 2),
]


@pytest.mark.parametrize("case", range(len(SHIPPED_LOGIT_CASES)))
def test_shipped_network_plays_exactly_as_recorded(case):
    settings, seed = SHIPPED_LOGIT_CASES[case]
    game = Game(**settings)
    found = observations_by_phase(game, per_phase=20, seed=seed)
    obs = np.array([o for rows in found.values() for o, _ in rows])
    mask = np.array([m for rows in found.values() for _, m in rows])
    with np.load(SHIPPED_LOGITS) as recorded:
        counts, legal = recorded[f"counts{case}"], recorded[f"legal{case}"]
        expected, actions = recorded[f"logits{case}"], recorded[f"actions{case}"]
    assert (mask > 0).sum(1).tolist() == counts.tolist() and np.nonzero(mask)[1].tolist() == legal.tolist()
    logits = np.empty(mask.shape, dtype=np.float32)
    neural.network_logits_batch(obs, mask, game.params, *neural.load_network(neural.SHIPPED_PATH).arrays(), logits)
    np.testing.assert_array_equal(logits[mask > 0], expected)  # bit for bit
    ppo = make_agent("ppo", game)
    assert [ppo(o, m) for o, m in zip(obs, mask)] == actions.tolist()


def test_saved_network_round_trips_and_bad_files_are_refused(tmp_path):
    game = Game(num_players=2)
    shipped = neural.load_network(neural.SHIPPED_PATH)
    layers = [(shipped.w1.T, shipped.b1), (shipped.w2.T, shipped.b2), (shipped.w3, shipped.b3)]
    again = neural.save_network(tmp_path / "copy.npz", layers, game, {"note": "copy"})
    loaded = neural.load_network(tmp_path / "copy.npz")
    for a, b in zip(again.arrays(), loaded.arrays()):
        np.testing.assert_array_equal(a, b)
    assert loaded.meta["note"] == "copy" and loaded.meta["config"]["num_players"] == 2
    with pytest.raises(ValueError, match="no policy network"):
        neural.load_network(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="do not chain"):
        neural.save_network(tmp_path / "bad.npz", [layers[0], layers[0], layers[2]], game)
    with pytest.raises(ValueError, match="no policy network"):
        make_agent(f"ppo:weights={tmp_path / 'missing.npz'}", game)


def test_shipped_policy_without_torch_beats_random_in_a_seeded_match():
    script = textwrap.dedent(
        """
        import sys
        sys.modules["torch"] = None  # importing torch now fails
        from experiments.arena import run_tournament
        from uno_env.engine import RuleConfig
        summary, *_ = run_tournament(["ppo", "random"], RuleConfig(num_players=2, episode="round"), 200, seed=0)
        print(summary["head_to_head"]["ppo"]["random"]["win_rate"])
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert float(done.stdout.strip().splitlines()[-1]) > 0.8


@pytest.mark.invariants
@pytest.mark.parametrize("settings", VARIANTS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
def test_shipped_policy_never_picks_a_masked_action(settings):
    """100k decisions per variant inside the compiled play loop: a refused action raises."""
    env = UnoVectorEnv(
        64,
        num_players=settings.get("num_players", 2),
        seed=3,
        **{k: v for k, v in settings.items() if k != "num_players"},
    )
    result = env.play(max_decisions=100_000 // 64 + 1, policies=["ppo"] * env.num_players)
    assert result["decisions"].sum() >= 100_000


def test_fashion_trend_plays_take_the_logit_of_a_wild_naming_the_same_colour():
    game = Game(num_players=2, deck="fashion_trend")
    network = neural.load_network(neural.SHIPPED_PATH)
    train = Game(num_players=2)
    for colour in "RYGB":
        ft = game.string_to_action(f"play FT {colour}")
        wild = train.string_to_action(f"play W {colour}")
        assert neural.output_index(game.params, network.params, ft) == wild
    for text in ("draw", "pass", "uno", "challenge", "accept", "catch", "color G", "play W+4 Y", "play B7"):
        assert neural.output_index(game.params, network.params, game.string_to_action(text)) == train.string_to_action(
            text
        )


def test_shipped_policy_is_a_compiled_opponent_and_a_rollout_policy():
    env = UnoVectorEnv(32, num_players=2, seats=[None, "ppo"], seed=0)
    step = env.reset(seed=0)
    for _ in range(50):
        assert (step.seat == 0).all()
        step = env.step(env.sample_actions())
    game = Game(num_players=2)
    search = make_agent("ismcts:determinizations=4:rollout=ppo", game, seed=0)
    state = game.init(seed=2)
    action = search(game.observe(state, game.current_player(state)), game.legal_mask(state))
    assert game.legal_mask(state)[action]


def test_network_agent_from_a_file_matches_the_compiled_shipped_policy():
    game = Game(num_players=2)
    compiled = make_agent("ppo", game)
    from_file = make_agent(f"ppo:weights={neural.SHIPPED_PATH}", game)
    assert compiled.policy_id is not None and from_file.policy_id is None
    found = observations_by_phase(game, per_phase=10, seed=4)
    obs = np.array([o for rows in found.values() for o, _ in rows])
    mask = np.array([m for rows in found.values() for _, m in rows])
    assert from_file.act_batch(obs, mask).tolist() == [compiled(o, m) for o, m in zip(obs, mask)]


def test_averaging_networks_of_one_run(tmp_path):
    from experiments.average_policies import main as average_main

    shipped = str(neural.SHIPPED_PATH)
    assert average_main([str(tmp_path / "same.npz"), shipped, shipped]) == 0
    for a, b in zip(neural.load_network(tmp_path / "same.npz").arrays(), neural.load_network(shipped).arrays()):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    game = Game(num_players=2)
    small = [(np.ones((8, game.observation_size)), np.zeros(8)), (np.ones((8, 8)), np.zeros(8))]
    small.append((np.ones((game.num_actions, 8)), np.zeros(game.num_actions)))
    neural.save_network(tmp_path / "small.npz", small, game)
    assert average_main([str(tmp_path / "bad.npz"), shipped, str(tmp_path / "small.npz")]) == 2
    assert not (tmp_path / "bad.npz").exists()
