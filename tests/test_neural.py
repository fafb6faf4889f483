"""The trained policy network: numpy/numba forward pass against torch, the shipped policy
(loaded without torch) against random, legality in every variant, compiled use."""

import json
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from uno_env.agents import make_agent, neural
from uno_env.agents.neural import fileformat as neural_fileformat
from uno_env.agents.neural import forward_pass as neural_forward
from uno_env.agents.neural import network as neural_network
from uno_env.agents.neural import shipped as neural_shipped
from uno_env.engine import Game
from uno_env.engine.cards import COLOUR_PERMUTATIONS
from uno_env.engine.layout import NUM_PARAMS, P_A_UNO, P_NUM_ACTIONS, P_O_FIRST, P_O_SIZE, ObsSlot
from uno_env.engine.observation import SLICE_NAMES
from uno_env.vector import UnoVectorEnv

from . import variants
from .test_agents import play_steps

PHASES = ("play", "drawn", "color", "challenge", "catch")


def observations_by_phase(game: Game, per_phase: int = 40, seed: int = 0, phases=PHASES) -> dict:
    """Real observations and masks of every decision phase of ``phases``, from seeded random play."""
    rng = np.random.default_rng(seed)
    found: dict[str, list] = {p: [] for p in phases}
    state = game.init(seed=seed)
    episode = 0
    while any(len(v) < per_phase for v in found.values()) and episode < 4000:
        if game.is_over(state) or game.step_count(state) > 80:
            episode += 1
            state = game.init(seed=seed + episode)
        seat = game.current_player(state)
        mask = game.legal_mask(state)
        phase = game.phase(state)
        if phase in found and len(found[phase]) < per_phase:
            found[phase].append((game.observe(state, seat), mask.copy()))
        legal = np.flatnonzero(mask)
        wild_draw_four = [a for a in legal if game.action_to_string(int(a)).startswith("play W+4")]
        action = int(rng.choice(wild_draw_four)) if wild_draw_four and rng.random() < 0.5 else int(rng.choice(legal))
        game.step(state, action)
    return found


def stacked(found: dict) -> tuple[np.ndarray, np.ndarray]:
    """The observations and masks of :func:`observations_by_phase`, phase after phase, as two arrays."""
    rows = [row for phase_rows in found.values() for row in phase_rows]
    return np.array([o for o, _ in rows]), np.array([m for _, m in rows])


def random_model(game: Game, hidden: int, seat_order: str = "clockwise"):
    """A torch actor-critic of ``game`` with ``hidden`` units per layer: seeded random weights,
    larger than the initialisation's, so that differences show."""
    torch = pytest.importorskip("torch")
    from uno_env.training.ppo import ActorCritic

    torch.manual_seed(0)
    model = ActorCritic(game, hidden, seat_order=seat_order)
    for p in model.actor.parameters():
        p.data.normal_(0, 0.3)
    return model


def random_network(game: Game, hidden: int, path) -> neural.Network:
    """The network of :func:`random_model`, written to ``path``."""
    return random_model(game, hidden).export(path, game)


def torch_actor_from(network: neural.Network, game: Game):
    torch = pytest.importorskip("torch")
    from uno_env.training.ppo import ActorCritic

    model = ActorCritic(game, network.w1.shape[1], seat_order=network.seat_order)
    linears = [m for m in model.actor if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():  # over the game's whole observation: a network of an older one reads part of it
        for linear, (w, b) in zip(linears, neural.transplant(network, game)):
            linear.weight.copy_(torch.as_tensor(np.ascontiguousarray(w)))
            linear.bias.copy_(torch.as_tensor(b))
        model.scale.copy_(torch.as_tensor(neural.input_scale(game)))
    return model


SHIPPED_TABLES = sorted(neural.SHIPPED_NETWORKS)
UNSHIPPED = next(n for n in range(min(SHIPPED_TABLES), 11) if n not in SHIPPED_TABLES)
"""The smallest table without a network of its own (it plays the one below)."""
KIND_SETTINGS = {
    "hands": {"episode": "round"},
    "partners": {"partners": True, "episode": "round"},
    "games": {"episode": "game"},
    "partner_games": {"partners": True, "episode": "game"},
    "house": {"episode": "round", "seven_o": True},
}
"""The settings of the tables each kind of shipped network (:data:`neural.SHIPPED_KINDS`) is for."""


def case_name(settings: dict) -> str:
    """``4p``, ``4p-partners``, ``2p-game``, ``4p-partners-game``, ... of a table's settings."""
    partners = "-partners" if settings.get("partners") else ""
    game = "-game" if settings["episode"] == "game" else ""
    house = "-seven_o" if settings.get("seven_o") else ""
    return f"{settings['num_players']}p{partners}{game}{house}"


SHIPPED_TABLES_BY_KIND = [
    (kind, {"num_players": n, **settings})
    for kind, settings in KIND_SETTINGS.items()
    for n in sorted(neural.SHIPPED_KINDS[kind][1])
]
"""Every shipped network: its kind and the settings of its table."""
SHIPPED_CASES = {
    case_name(table): (table, neural.SHIPPED_KINDS[kind][0][table["num_players"]])
    for kind, table in SHIPPED_TABLES_BY_KIND
}
"""Every shipped network: the settings of its table and its file, by name."""


@pytest.mark.parametrize("source", [*SHIPPED_CASES, "fresh"])
def test_numba_forward_equals_torch_forward_in_every_phase(source, tmp_path):
    torch = pytest.importorskip("torch")

    settings, path = SHIPPED_CASES.get(source, ({"num_players": 2}, None))
    game = Game(**{"episode": "round", **settings})
    if path is not None:
        network = neural.load_network(path)
    else:
        network = random_network(game, 32, tmp_path / "fresh.npz")
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


def relabelled(game: Game, mapping, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The observations and masks of the same positions with the colours relabelled by
    ``mapping``, by the engine's relabellings (not the network's), and where each action goes."""
    to_obs, to_action = game.obs_spec.recolouring(mapping), game.actions.recolouring(mapping)
    new_obs, new_mask = np.zeros_like(obs), np.zeros_like(mask)
    new_obs[:, to_obs], new_mask[:, to_action] = obs, mask
    return new_obs, new_mask, to_action


@pytest.mark.parametrize("source", [*SHIPPED_CASES, "fresh"])
def test_the_policy_is_the_network_averaged_over_the_colours(source, tmp_path):
    """``policy_logits`` (what ``ppo`` plays, for a network not distilled): per legal action the mean, over the 24
    relabellings of the colours, of the network's log-probability of the relabelled action in
    the relabelled position; so the policy of a relabelled position is the relabelled policy."""
    settings, path = SHIPPED_CASES.get(source, ({"num_players": 3, "deck": "fashion_trend"}, None))
    game = Game(**{"episode": "round", **settings})
    network = neural.load_network(path) if path is not None else random_network(game, 32, tmp_path / "fresh.npz")
    obs, mask = stacked(observations_by_phase(game, per_phase=8, seed=6))
    legal = mask > 0
    expected = np.zeros(mask.shape)
    for mapping in COLOUR_PERMUTATIONS:
        rows, masks, to_action = relabelled(game, mapping, obs, mask)
        raw = np.empty(mask.shape, dtype=np.float32)
        neural.network_logits_batch(rows, masks, game.params, *network.arrays(), raw)
        z = np.where(legal, raw[:, to_action].astype(np.float64), -np.inf)
        top = z.max(axis=1, keepdims=True)
        expected += np.where(legal, z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True)), 0) / 24
    got = np.empty(mask.shape, dtype=np.float32)
    neural.policy_logits_batch(obs, mask, game.params, *network.policy_arrays(one_pass=False), got)
    np.testing.assert_allclose(got[legal], expected[legal], rtol=1e-4, atol=1e-4)
    assert np.isneginf(got[~legal]).all()
    raw = np.empty(mask.shape, dtype=np.float32)
    neural.network_logits_batch(obs, mask, game.params, *network.arrays(), raw)
    assert not np.allclose(got[legal], raw[legal] - np.log(np.exp(raw).sum(axis=1))[np.nonzero(legal)[0]], atol=1e-3)
    weights = tmp_path / "fresh.npz" if path is None else path
    alone = make_agent(f"ppo:weights={weights}:colours=as_seen", game)
    assert alone.act_batch(obs, mask).tolist() == raw.argmax(axis=1).tolist()
    agent = make_agent(f"ppo:weights={weights}:colours=average", game)  # a distilled file plays in one pass
    chosen = agent.act_batch(obs, mask)
    assert chosen.tolist() == np.argmax(got, axis=1).tolist()
    if network.meta.get("colours") == neural.DISTILLED:  # fitted to this very average: it mostly chooses alike
        assert (chosen == alone.act_batch(obs, mask)).mean() >= 0.8
    else:  # trained alone (a house network: fine-tuned in one pass), or never fitted to it
        assert chosen.tolist() != alone.act_batch(obs, mask).tolist()
    gap = np.sort(np.where(legal, got, -np.inf), axis=1)
    clear = (gap[:, -1] - gap[:, -2] > 1e-3) | (legal.sum(axis=1) == 1)
    for mapping in COLOUR_PERMUTATIONS[1::5]:
        rows, masks, to_action = relabelled(game, mapping, obs, mask)
        again = np.empty(mask.shape, dtype=np.float32)
        neural.policy_logits_batch(rows, masks, game.params, *network.policy_arrays(one_pass=False), again)
        np.testing.assert_allclose(again[:, to_action][legal], got[legal], rtol=1e-4, atol=1e-4)
        assert (agent.act_batch(rows, masks)[clear] == to_action[chosen][clear]).all()


def mirrored(game: Game, obs: np.ndarray) -> np.ndarray:
    """The observations of the same positions with the seats in the other order: every
    per-seat slice's seat k moved to seat n - k and the direction's sign flipped."""
    out = obs.copy()
    n = game.num_players
    for s in game.obs_spec.slices:
        width = neural.seat_width(s.labels)
        if width:
            seats = obs[:, s.offset : s.stop].reshape(len(obs), n, width)
            out[:, s.offset : s.stop] = seats[:, (n - np.arange(n)) % n].reshape(len(obs), -1)
    direction = game.obs_spec.by_name["direction"].offset
    out[:, direction] = -obs[:, direction]
    return out


@pytest.mark.parametrize("num_players", [3, 4])
def test_a_network_reading_the_seats_in_the_order_of_play(num_players, tmp_path):
    """``seat_order="play"``: the compiled forward pass equals the training script's torch
    network in every phase, in both directions of play; entry 1 of a per-seat slice is the
    next player's, so a position and its mirror image (the seats clockwise of the observer
    seen counter-clockwise, play running the other way) read the same but for the sign of the
    direction; the file records the order, and a clockwise network does not read so."""
    torch = pytest.importorskip("torch")
    game = Game(num_players=num_players)
    n = num_players
    sizes = game.obs_spec.by_name["hand_sizes"].offset
    assert neural.play_order_index(game)[sizes : sizes + n].tolist() == [sizes + (n - k) % n for k in range(n)]
    model = random_model(game, 32, seat_order="play")
    network = model.export(tmp_path / "play.npz", game)
    assert neural.load_network(tmp_path / "play.npz").seat_order == "play"
    assert json.loads(str(np.load(tmp_path / "play.npz")["network"]))["seat_order"] == "play"
    obs, mask = stacked(observations_by_phase(game, seed=3))
    direction = obs[:, game.obs_spec.by_name["direction"].offset]
    assert (direction < 0).sum() >= 10 and (direction > 0).sum() >= 10
    for rows in (obs, mirrored(game, obs)):
        expected = model.masked_logits(torch.as_tensor(rows), torch.as_tensor(mask).bool()).detach().numpy()
        got = np.empty(mask.shape, dtype=np.float32)
        neural.network_logits_batch(rows, mask, game.params, *network.arrays(), got)
        legal = mask > 0
        np.testing.assert_allclose(got[legal], expected[legal], rtol=1e-4, atol=1e-4)
    with torch.no_grad():  # without the direction's weights, a position and its mirror image read alike
        model.actor[0].weight[:, game.obs_spec.by_name["direction"].offset] = 0
    network = model.export(tmp_path / "play.npz", game)
    same, other = (np.empty(mask.shape, dtype=np.float32) for _ in range(2))
    neural.network_logits_batch(obs, mask, game.params, *network.arrays(), same)
    neural.network_logits_batch(mirrored(game, obs), mask, game.params, *network.arrays(), other)
    np.testing.assert_allclose(same[mask > 0], other[mask > 0], rtol=1e-4, atol=1e-4)
    clockwise = neural.Network(
        {name: getattr(network, name) for name in neural.WEIGHTS}, network.inputs, network.actions
    )
    neural.network_logits_batch(mirrored(game, obs), mask, game.params, *clockwise.arrays(), other)
    assert not np.allclose(same[mask > 0], other[mask > 0], atol=1e-3)


def test_a_seat_order_the_code_does_not_know_is_refused(tmp_path):
    game = Game(num_players=2)
    network = random_network(game, 8, tmp_path / "n.npz")
    weights = {name: getattr(network, name) for name in neural.WEIGHTS}
    with pytest.raises(ValueError, match="seat order 'backwards'"):
        neural.Network(weights, network.inputs, network.actions, seat_order="backwards")
    unlabelled = [neural.InputSlice(s.name, s.offset, s.size) for s in network.inputs]
    with pytest.raises(ValueError, match="needs every slice's labels"):
        neural.Network(weights, unlabelled, network.actions, seat_order="play")
    assert neural.Network(weights, unlabelled, network.actions).seat_order == "clockwise"


def transplanted_logits(layers, game: Game, obs: np.ndarray, mask: np.ndarray, seat_order: str) -> np.ndarray:
    """The masked logits of :func:`neural.transplant`'s layers (numpy, torch's layout), the
    seats read in ``seat_order`` as the training script's network reads them."""
    (w1, b1), (w2, b2), (w3, b3) = layers
    if seat_order == "play":
        counter_clockwise = obs[:, game.obs_spec.by_name["direction"].offset, None] < 0
        obs = np.where(counter_clockwise, obs[:, neural.play_order_index(game)], obs)
    hidden = np.maximum((obs * neural.input_scale(game)) @ w1.T + b1, 0)
    logits = np.maximum(hidden @ w2.T + b2, 0) @ w3.T + b3
    return np.where(mask > 0, logits, -np.inf)


@pytest.mark.parametrize(
    "trained, settings",
    [(4, {"num_players": 4}), (4, {"num_players": 6}), (4, {"num_players": 4, "partners": True}),
     (3, {"num_players": 3, "seven_o": True}), (2, {"num_players": 5, "deck": "fashion_trend"})],
    ids=["4p-at-4p", "4p-at-6p", "4p-at-partners", "3p-at-seven-o", "2p-at-5p-fashion-trend"],
)  # fmt: skip
def test_a_transplanted_network_gives_the_compiled_logits_at_another_table(trained, settings):
    """``transplant`` lays a network out over another table's whole observation and action
    table (what ``uno train --init-from FILE.npz`` starts from): the same logits for every
    legal action as the compiled forward pass of the network there, in every phase."""
    network = neural.SHIPPED_NETWORKS[trained]
    game = Game(episode="round", **settings)
    layers = neural.transplant(network, game)
    assert layers[0][0].shape == (network.w1.shape[1], game.observation_size)
    assert layers[2][0].shape == (game.num_actions, network.w2.shape[1])
    phases = (*PHASES, "swap") if game.config.seven_o else PHASES
    found = observations_by_phase(game, per_phase=20, phases=phases)
    for phase in phases:
        assert found[phase], f"no observation of phase {phase}"
        obs = np.array([o for o, _ in found[phase]])
        mask = np.array([m for _, m in found[phase]])
        compiled = np.empty(mask.shape, dtype=np.float32)
        neural.network_logits_batch(obs, mask, game.params, *network.arrays(), compiled)
        got = transplanted_logits(layers, game, obs, mask, network.seat_order)
        legal = mask > 0
        np.testing.assert_allclose(got[legal], compiled[legal], rtol=1e-4, atol=1e-4, err_msg=phase)
        assert (got.argmax(1) == compiled.argmax(1)).all()


def test_a_network_is_not_transplanted_to_a_table_it_cannot_play():
    with pytest.raises(ValueError, match="cannot play this configuration: the observation's slice 'acting' has 2"):
        neural.transplant(neural.SHIPPED_NETWORKS[4], Game(num_players=2))


# Logits of the shipped two-player network recorded by the positional-file code (commit fcf2235,
# before the file was keyed by names), for observations of seeded random play: per case the
# settings and the seed of observations_by_phase(game, per_phase=20, seed); per observation
# its legal action ids, their logits and the compiled ppo's action (then the network alone).
# The network they were recorded with was shipped until its colour-distilled successor replaced it.
SHIPPED_LOGITS = pathlib.Path(__file__).parent / "data" / "shipped_ppo_logits.npz"
RECORDED_NETWORK = pathlib.Path(__file__).parent / "data" / "ppo_2p_before_distillation.npz"
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
    obs, mask = stacked(found)
    with np.load(SHIPPED_LOGITS) as recorded:
        counts, legal = recorded[f"counts{case}"], recorded[f"legal{case}"]
        expected, actions = recorded[f"logits{case}"], recorded[f"actions{case}"]
    assert (mask > 0).sum(1).tolist() == counts.tolist() and np.nonzero(mask)[1].tolist() == legal.tolist()
    logits = np.empty(mask.shape, dtype=np.float32)
    neural.network_logits_batch(obs, mask, game.params, *neural.load_network(RECORDED_NETWORK).arrays(), logits)
    np.testing.assert_array_equal(logits[mask > 0], expected)  # bit for bit
    assert logits.argmax(1).tolist() == actions.tolist()
    network = neural.shipped_network(game)[1]
    ppo = make_agent("ppo", game)
    played = [ppo(o, m) for o, m in zip(obs, mask)]
    neural.policy_logits_batch(obs, mask, game.params, *network.policy_arrays(), logits)
    assert played == logits.argmax(1).tolist()  # the table's network, as its file says
    neural.network_logits_batch(obs, mask, game.params, *network.arrays(), logits)
    assert (played == logits.argmax(1).tolist()) == network.one_pass  # distilled: the network alone


def test_saved_network_round_trips_and_bad_files_are_refused(tmp_path):
    game = Game(num_players=2)
    shipped = neural.load_network(neural.SHIPPED_PATH)
    layers = neural.transplant(shipped, game)
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


@pytest.mark.parametrize(
    "settings",
    [*(table for table, _ in SHIPPED_CASES.values()), {"num_players": UNSHIPPED, "episode": "round"}],
    ids=[*SHIPPED_CASES, f"{UNSHIPPED}p"],
)
def test_shipped_policy_without_torch_beats_random_in_a_seeded_match(settings):
    """One ``ppo`` seat (one team with partners) against ``random`` in every other (the field
    schedule), at every table with a network of its own and one without: 200 hands or 40
    whole games, at least twice its fair share, or 90% (it wins over 95% at two players)."""
    players, partners = settings["num_players"], settings.get("partners", False)
    script = textwrap.dedent(
        f"""
        import sys, warnings
        sys.modules["torch"] = None  # importing torch now fails
        warnings.simplefilter("ignore")  # ppo off its own table warns
        from uno_env.arena import run_tournament
        from uno_env.engine import RuleConfig
        config = RuleConfig(**{settings!r})
        games = 200 if config.episode == "round" else 40
        summary, *_ = run_tournament(["ppo", "random"], config, games, seed=0, schedule="field", bootstrap=0)
        print(summary["field"]["random"]["win_rate"])
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert float(done.stdout.strip().splitlines()[-1]) > min((4 if partners else 2) / players, 0.9)


def play_ppo_everywhere(settings: dict, decisions: int) -> None:
    """``decisions`` decisions of ``ppo`` at every seat inside the compiled play loop (64
    games): a refused action raises."""
    env = UnoVectorEnv(
        64,
        num_players=settings.get("num_players", 2),
        seed=3,
        **{k: v for k, v in settings.items() if k != "num_players"},
    )
    result = env.play(max_decisions=decisions // 64 + 1, policies=["ppo"] * env.num_players)
    assert result["decisions"].sum() >= decisions


@pytest.mark.parametrize("settings", variants.params("agents"))
def test_shipped_policy_never_picks_a_masked_action(settings):
    """100k decisions per variant. Not among the invariants run under NUMBA_BOUNDSCHECK: averaged
    over the colours the policy costs 24 forward passes a decision, minutes a variant there;
    the next test checks its indices there."""
    play_ppo_everywhere(settings, 100_000)


@pytest.mark.invariants
@pytest.mark.parametrize(
    "settings",
    [*(table for table, _ in SHIPPED_CASES.values()), {"num_players": 8, **variants.HOUSE_ALL}],
    ids=[*SHIPPED_CASES, "8p-house-all"],
)
def test_shipped_policy_reads_and_writes_in_bounds(settings):
    """Every shipped network's policy (its tables of colour relabellings included), and one off
    its tables, 3,000 decisions under NUMBA_BOUNDSCHECK=1 (make test)."""
    play_ppo_everywhere(settings, 3_000)


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


def test_ppo_plays_a_network_as_its_file_says_or_as_asked():
    """A distilled file in one pass, any other averaged over the colours; ``colours`` forces
    either way (``all`` is ``average``); the compiled agent where the forced way is the shipped
    file's own."""
    game = Game(num_players=3, episode="round")
    shipped = neural.SHIPPED_NETWORKS[3]
    assert shipped.one_pass and [len(a) for a in shipped.policy_arrays()[-2:]] == [1, 1]
    assert [len(a) for a in shipped.policy_arrays(one_pass=False)[-2:]] == [24, 24]
    assert make_agent("ppo:colours=as_seen", game).policy_id is not None  # the shipped file's own way: compiled
    for spec in ("ppo:colours=average", "ppo:colours=all"):
        averaged = make_agent(spec, game)
        assert averaged.weights == str(neural.SHIPPED_PATHS[3]) and averaged.colours == "average"
        assert not averaged.one_pass
    assert make_agent(f"ppo:weights={neural.SHIPPED_PATHS[3]}", game).one_pass
    trained = RECORDED_NETWORK  # a network as training writes it: averaged unless told
    assert not neural.load_network(trained).one_pass
    assert not make_agent(f"ppo:weights={trained}", Game(num_players=2)).one_pass
    assert make_agent(f"ppo:weights={trained}:colours=as_seen", Game(num_players=2)).one_pass
    for bad in ("some", True):
        with pytest.raises(ValueError, match=f"colours='{bad}': expected average or as_seen"):
            make_agent(f"ppo:colours={bad}", game)


def test_a_distilled_network_keeps_the_tables_of_its_teacher(recwarn):
    """The distilled files keep their teacher's training configuration: ``ppo`` at a table they were
    not trained for still names the tables they were."""
    from uno_env.agents.ppo import TrainingMismatchWarning

    for path, teacher_name in ((neural.SHIPPED_PATHS[4], "ppo_4p.npz"), (neural.SHIPPED_PARTNER_PATHS[4], None)):
        network = neural.load_network(path)
        assert network.meta["colours"] == neural.DISTILLED and network.meta["distilled"]["agreement"] > 0.9
        assert network.meta["distilled"]["teacher"] == (teacher_name or path.name)
    agent = make_agent("ppo", Game(num_players=5, episode="round"))
    assert "ppo_4p.npz" in agent.notice and "trained for 4 players" in agent.notice, agent.notice
    assert any(issubclass(w.category, TrainingMismatchWarning) for w in recwarn)


@pytest.mark.parametrize("table", SHIPPED_CASES)
def test_network_agent_from_a_file_matches_the_compiled_shipped_policy(table):
    settings, path = SHIPPED_CASES[table]
    game = Game(**settings)
    compiled = make_agent("ppo", game)
    from_file = make_agent(f"ppo:weights={path}", game)
    assert compiled.policy_id is not None and from_file.policy_id is None
    found = observations_by_phase(game, per_phase=10, seed=4)
    obs, mask = stacked(found)
    assert from_file.act_batch(obs, mask).tolist() == [compiled(o, m) for o, m in zip(obs, mask)]


def test_averaging_networks_of_one_run(tmp_path):
    from experiments.soup import main as average_main

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


# ------------------------------------------------------------------ the file format: names, not positions
def rewrite_header(source, target, change):
    """Copy a network file with its ``network`` header changed in place by ``change``."""
    with np.load(source) as data:
        contents = {name: data[name] for name in data.files}
    header = json.loads(str(contents["network"]))
    change(header)
    contents["network"] = np.array(json.dumps(header))
    np.savez(target, **contents)
    return target


def random_layers(game: Game, hidden: int = 16, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = [game.observation_size, hidden, hidden, game.num_actions]
    return [(rng.normal(0, 0.5, (o, i)), rng.normal(0, 0.1, o)) for i, o in zip(sizes[:-1], sizes[1:])]


def test_the_shipped_file_records_names_and_no_index_into_P():
    for path in [path for paths, _ in neural.SHIPPED_KINDS.values() for path in paths.values()]:
        with np.load(path) as data:
            assert sorted(data.files) == sorted([*neural.WEIGHTS, "network", "meta"]), path
            header = json.loads(str(data["network"]))
        assert header["format"] == "uno-policy-network" and header["version"] == neural.FORMAT_VERSION == 2
        assert set(header) <= {"format", "version", "seat_order", "inputs", "actions"}
        assert {tuple(s) for s in header["inputs"]} == {("name", "offset", "size", "labels")}  # no P index
    # the two-player network shipped until its distilled successor: converted from version 1
    with np.load(RECORDED_NETWORK) as data:
        header = json.loads(str(data["network"]))
    assert set(header) == {"format", "version", "inputs", "actions"}
    game = Game(num_players=2, episode="round")
    spec = game.obs_spec
    # every slice of its table but named_colour (it was trained on env v0's observation), in
    # the observation's order, one after the other
    read = [s.name for s in spec.slices if s.name != "named_colour"]
    offsets = np.cumsum([0] + [spec.by_name[name].size for name in read])[:-1].tolist()
    assert [(s["name"], s["offset"], s["size"], tuple(s["labels"])) for s in header["inputs"]] == [
        (name, offset, spec.by_name[name].size, spec.by_name[name].labels) for name, offset in zip(read, offsets)
    ]
    assert {tuple(s) for s in header["inputs"]} == {("name", "offset", "size", "labels")}  # no P index
    assert [(b["name"], b["first"], b["size"]) for b in header["actions"]] == [
        ("play", 0, 52),
        ("W", 52, 4),
        ("W+4", 56, 4),
        ("draw", 60, 1),
        ("pass", 61, 1),
        ("uno", 62, 1),
        ("challenge", 63, 1),
        ("accept", 64, 1),
        ("catch", 65, 1),
        ("color", 66, 4),
    ]
    for b in header["actions"]:
        assert b["labels"] == [game.action_to_string(a) for a in range(b["first"], b["first"] + b["size"])]
    # the kernels' tables are rebuilt from the current layout
    network = neural.load_network(RECORDED_NETWORK)
    assert network.gather.tolist() == [
        [int(ObsSlot[name.upper()]), offset, spec.by_name[name].size, 0] for name, offset in zip(read, offsets)
    ]
    assert network.params.shape == (NUM_PARAMS,)  # P's entries before its action table
    for slot in neural.ACTION_SLOTS + (P_NUM_ACTIONS,):
        assert network.params[slot] == game.params[slot]


def test_every_action_kind_of_the_engine_has_a_block_name():
    """A kind added to Param (A_*) or to the action table must be named in neural.ACTION_BLOCKS
    (else a network trained with it cannot be saved)."""
    assert sorted(neural.ACTION_BLOCKS.values()) == sorted(neural.ACTION_SLOTS)
    for variant in variants.variants("agents"):
        game = Game(**variant.settings)
        blocks = neural.action_blocks(game)
        assert [b.name for b in blocks][0] == "play" and sum(b.size for b in blocks) == game.num_actions


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda h: h["inputs"][3].update(name="mystery_slice"), "observation slice 'mystery_slice' is unknown"),
        (lambda h: h["actions"][5].update(name="shuffle_hands"), "action block 'shuffle_hands' is unknown"),
        (lambda h: h.update(version=3), "format version 3 is not understood"),
        (lambda h: h.update(version="2"), "format version '2' is not understood"),
        (lambda h: h.pop("version"), "format version None is not understood"),
        (lambda h: h.update(format="something-else"), "not a policy network file"),
        (lambda h: h["inputs"][0].pop("size"), "malformed network header"),
        (lambda h: h["inputs"][1].update(offset=300), "'top_card' overruns the input layer"),
        (lambda h: h["inputs"][0].update(labels=["R0"]), "'hand' has 54 entries but 1 labels"),
        (lambda h: h["actions"][4].update(name="FT"), "no 'pass' output"),
        (lambda h: h["actions"][2].update(first=57), "'W\\+4' does not follow"),
    ],
)
def test_a_file_the_engine_cannot_read_is_refused_naming_the_problem(tmp_path, change, message):
    path = rewrite_header(neural.SHIPPED_PATH, tmp_path / "bad.npz", change)
    with pytest.raises(ValueError, match=message) as err:
        neural.load_network(path)
    assert str(path) in str(err.value)


def test_save_and_load_round_trip_a_fresh_network(tmp_path):
    game = Game(num_players=3, deck="fashion_trend", uno_call="off")
    saved = neural.save_network(tmp_path / "fresh.npz", random_layers(game), game, {"note": "fresh"})
    loaded = neural.load_network(tmp_path / "fresh.npz")
    for name, a, b in zip(neural.ARRAYS, saved.arrays(), loaded.arrays()):
        assert a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert loaded.inputs == saved.inputs == neural.input_slices(game)
    assert loaded.actions == saved.actions == neural.action_blocks(game)
    assert [b.name for b in loaded.actions] == [
        "play",
        "W",
        "W+4",
        "FT",
        "draw",
        "pass",
        "challenge",
        "accept",
        "color",
    ]
    assert loaded.meta == saved.meta and loaded.meta["config"]["deck"] == "fashion_trend"
    assert loaded.gather.tolist() == [[int(ObsSlot[s.name.upper()]), s.offset, s.size, 0] for s in game.obs_spec.slices]
    assert loaded.supports(game) and not loaded.supports(Game(num_players=3))  # no Fashion Trend slices there
    assert "the observation has no slice 'trend_colour'" in loaded.mismatches(Game(num_players=3))


# The version-1 file of the shipped network (its gather and params, as written before the
# format was keyed by names): raw indices into P as laid out then.
V1_GATHER = [36, 0, 54, 37, 54, 54, 38, 108, 4, 39, 112, 4, 40, 116, 1, 41, 117, 6, 42, 123, 2, 43, 125, 2, 44, 127, 2]
V1_GATHER += [45, 129, 2, 46, 131, 2, 47, 133, 1, 48, 134, 54, 49, 188, 54, 50, 242, 1, 51, 243, 2, 52, 245, 2]
V1_GATHER += [53, 247, 8, 54, 255, 54, 55, 309, 2]
V1_PARAMS = [2, 54, 108, 0, 0, 500, 0, 0, 1, 0, 20000, 0, 108, 216, 324, 378, 432, 28, 30, 32, 34, 36, 38, 40, 52]
V1_PARAMS += [56, -1, 60, 61, 62, 63, 64, 65, 66, 70, 311, 0, 54, 108, 112, 116, 117, 123, 125, 127, 129, 131, 133]
V1_PARAMS += [134, 188, 242, 243, 245, 247, 255, 309, -1, -1]


def test_version_1_files_are_read_by_the_legacy_reader_and_upgraded(tmp_path):
    shipped = neural.load_network(RECORDED_NETWORK)  # a version-1 file once, converted
    old = {name: getattr(shipped, name) for name in neural.WEIGHTS}
    old["gather"] = np.array(V1_GATHER, dtype=np.int64).reshape(-1, 3)
    old["params"] = np.array(V1_PARAMS, dtype=np.int64)
    old["meta"] = np.array(json.dumps(shipped.meta))
    np.savez_compressed(tmp_path / "v1.npz", **old)
    legacy = neural.load_network(tmp_path / "v1.npz")
    for name, a, b in zip(neural.ARRAYS, legacy.arrays(), shipped.arrays()):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert all(s.labels is None for s in legacy.inputs) and all(b.labels is None for b in legacy.actions)
    upgraded = neural.upgrade_network(tmp_path / "v1.npz", tmp_path / "v2.npz")
    assert upgraded.header() == shipped.header() and upgraded.meta == shipped.meta
    for a, b in zip(neural.load_network(tmp_path / "v2.npz").arrays(), shipped.arrays()):
        np.testing.assert_array_equal(a, b)
    old["params"] = old["params"][:-1]
    np.savez_compressed(tmp_path / "v1_other.npz", **old)
    with pytest.raises(ValueError, match="a version-1 file of an unknown layout"):
        neural.load_network(tmp_path / "v1_other.npz")


def test_a_slice_labelled_otherwise_is_not_supported(tmp_path):
    def swap_phases(header):
        phase = next(s for s in header["inputs"] if s["name"] == "phase")
        phase["labels"][0], phase["labels"][1] = phase["labels"][1], phase["labels"][0]

    path = rewrite_header(neural.SHIPPED_PATH, tmp_path / "phases.npz", swap_phases)
    network = neural.load_network(path)
    game = Game(num_players=2)
    assert not network.supports(game)
    assert network.mismatches(game) == ["the observation's slice 'phase' labels its entries otherwise"]
    with pytest.raises(ValueError, match="'phase' labels its entries otherwise"):
        make_agent(f"ppo:weights={path}", game)
    assert neural.load_network(neural.SHIPPED_PATH).supports(game)


def patch_everywhere(monkeypatch, name: str, value) -> None:
    """Set ``name`` to ``value`` in the neural package and in each of its modules that holds it
    (each module reads the names it imported itself)."""
    modules = (neural, neural_fileformat, neural_forward, neural_network, neural_shipped)
    holders = [m for m in modules if hasattr(m, name)]
    assert holders, name
    for module in holders:
        monkeypatch.setattr(module, name, value)


def test_the_kernel_tables_follow_a_changed_layout(monkeypatch):
    """Simulate an engine whose P is laid out otherwise: three new entries before the action
    kinds, the action kinds in reverse order, two more entries, the observation slices in
    reverse order. Loaded under that layout, the shipped file finds every slice and action
    block where the new P keeps it and gives the same logits (the pure-Python forward pass,
    since the compiled kernels hold the real layout's constants)."""
    old_slots = (*neural.ACTION_SLOTS, P_NUM_ACTIONS)
    # old index in P -> new index: sizes and settings stay, the action kinds move past them
    moved = {i: i for i in range(P_O_FIRST) if i not in old_slots and i != P_O_SIZE}
    for k, i in enumerate(sorted(old_slots)):
        moved[i] = P_O_FIRST + 3 + len(old_slots) - 1 - k
    moved[P_O_SIZE] = max(moved.values()) + 1
    first = moved[P_O_SIZE] + 3
    names = tuple(reversed(SLICE_NAMES))
    for j, name in enumerate(SLICE_NAMES):
        moved[P_O_FIRST + j] = first + names.index(name)
    assert len(moved) == NUM_PARAMS and len(set(moved.values())) == NUM_PARAMS
    size = first + len(names)

    def relayout(P):
        new = np.full(size, -1, dtype=np.int64)
        for i, j in moved.items():
            new[j] = P[i]
        return new

    before = neural.load_network(neural.SHIPPED_PATH)
    games = [Game(num_players=2), Game(num_players=3, deck="fashion_trend"), Game(num_players=4, uno_call="off")]
    found = observations_by_phase(games[0], per_phase=2, seed=9)
    samples = [(o, m) for rows in found.values() for o, m in rows]
    expected = np.empty((len(samples), games[0].num_actions), dtype=np.float32)
    for row, (o, m) in zip(expected, samples):
        neural.network_logits(o, m, games[0].params, *before.arrays(), row)

    compiled_output_index = neural.output_index
    patch_everywhere(monkeypatch, "SLICE_NAMES", names)
    patch_everywhere(monkeypatch, "P_O_FIRST", first)
    patch_everywhere(monkeypatch, "NUM_PARAMS", size)
    patch_everywhere(monkeypatch, "ACTION_BLOCKS", {k: moved[v] for k, v in neural.ACTION_BLOCKS.items()})
    patch_everywhere(monkeypatch, "ACTION_SLOTS", tuple(moved[s] for s in neural.ACTION_SLOTS))
    for name in ("P_A_W", "P_A_FT", "P_A_PASS", "P_NUM_ACTIONS"):
        patch_everywhere(monkeypatch, name, moved[getattr(neural_forward, name)])
    # the Python functions, which read the patched globals
    patch_everywhere(monkeypatch, "P_O_SIZE", moved[P_O_SIZE])
    for name in (
        "block_end",
        "output_index",
        "slice_stop",
        "read_inputs",
        "relabelled_logits",
        "output_layer",
        "forward",
    ):
        patch_everywhere(monkeypatch, name, getattr(neural_forward, name).py_func)

    after = neural.load_network(neural.SHIPPED_PATH)
    assert after.gather[:, 0].tolist() == [moved[i] for i in before.gather[:, 0]] != before.gather[:, 0].tolist()
    np.testing.assert_array_equal(after.gather[:, 1:], before.gather[:, 1:])
    assert after.params.shape == (size,)
    for game in games:
        P = relayout(game.params)
        got = [neural.output_index(P, after.params, a) for a in range(game.num_actions)]
        assert got == [compiled_output_index(game.params, before.params, a) for a in range(game.num_actions)]
    P = relayout(games[0].params)
    for row, (o, m) in zip(expected, samples):
        logits = np.empty_like(row)
        neural.network_logits.py_func(o, m, P, *after.arrays(), logits)
        legal = m > 0
        np.testing.assert_allclose(logits[legal], row[legal], rtol=1e-5, atol=1e-5)
        assert np.isneginf(logits[~legal]).all() and logits.argmax() == row.argmax()


def test_actions_the_network_has_no_output_for_take_the_pass_logit(tmp_path):
    """A network trained without UNO calls (uno_call="off") playing with them: ``uno`` and
    ``catch`` take its ``pass`` logit; the agent plays on without refusing."""
    train = Game(num_players=2, uno_call="off")
    network = neural.save_network(tmp_path / "no_uno.npz", random_layers(train, seed=1), train)
    assert "uno" not in [b.name for b in network.actions] and network.params[P_A_UNO] == -1
    game = Game(num_players=2)
    for text in ("uno", "catch"):
        assert neural.output_index(game.params, network.params, game.string_to_action(text)) == train.string_to_action(
            "pass"
        )
    for text in ("draw", "pass", "challenge", "accept", "color Y", "play W+4 B", "play G5"):
        assert neural.output_index(game.params, network.params, game.string_to_action(text)) == train.string_to_action(
            text
        )
    found = observations_by_phase(game, per_phase=10, seed=5)
    rows = found["play"][:5] + found["catch"][:5]
    for o, m in rows:
        m = m.copy()
        m[[game.string_to_action(t) for t in ("uno", "catch", "pass")]] = 1
        logits = np.empty(m.shape, dtype=np.float32)
        neural.network_logits(o, m, game.params, *network.arrays(), logits)
        assert logits[game.string_to_action("uno")] == logits[game.string_to_action("pass")]
        assert logits[game.string_to_action("catch")] == logits[game.string_to_action("pass")]
    agent = make_agent(f"ppo:weights={tmp_path / 'no_uno.npz'}", game)
    assert agent.network.supports(game)
    play_steps(game, [agent, agent], 400, seed=3)


def test_an_action_kind_unknown_to_the_network_takes_the_pass_logit(monkeypatch):
    """A kind the engine gains later (a new A_* entry of P, a block at the end of the action
    table, e.g. "swap k"): simulated by one more slot in ACTION_SLOTS and a longer P; the
    shipped network has no output for it, so each of its actions takes the pass output."""
    shipped = neural.load_network(neural.SHIPPED_PATH)
    game = Game(num_players=4)
    new_slot = NUM_PARAMS
    P = np.append(game.params[:NUM_PARAMS], game.num_actions)  # the new block's first id (output_index reads no table)
    P[P_NUM_ACTIONS] += 3  # three actions of the new kind
    compiled_output_index = neural.output_index
    patch_everywhere(monkeypatch, "NUM_PARAMS", NUM_PARAMS + 1)
    patch_everywhere(monkeypatch, "ACTION_SLOTS", (*neural.ACTION_SLOTS, new_slot))
    for name in ("block_end", "output_index"):
        patch_everywhere(monkeypatch, name, getattr(neural_forward, name).py_func)
    network = neural.load_network(neural.SHIPPED_PATH)
    assert network.params[new_slot] == -1
    pass_output = Game(num_players=2).string_to_action("pass")
    for a in range(game.num_actions, game.num_actions + 3):
        assert neural.output_index(P, network.params, a) == pass_output
    for a in range(game.num_actions):
        assert neural.output_index(P, network.params, a) == compiled_output_index(game.params, shipped.params, a)


def test_a_network_trained_with_fashion_trend_uses_its_own_fashion_trend_outputs(tmp_path):
    train = Game(num_players=2, deck="fashion_trend")
    network = neural.save_network(tmp_path / "ft.npz", random_layers(train), train)
    for colour in "RYGB":
        ft = train.string_to_action(f"play FT {colour}")
        assert neural.output_index(train.params, network.params, ft) == ft
    classic = Game(num_players=2)
    assert not network.supports(classic)


def files_that_are_no_network() -> dict[str, bytes]:
    """Contents that a weights path may hold but that are no network archive: a pickle,
    text, nothing, the shipped file cut in half, zeros."""
    import pickle

    shipped = neural.SHIPPED_PATH.read_bytes()
    return {
        "weights.pkl": pickle.dumps({"w1": [1.0]}),
        "notes.txt": b"hello",
        "empty.npz": b"",
        "cut.npz": shipped[: len(shipped) // 2],
        "zeros.npz": bytes(64),
    }


def write_files_that_are_no_network(folder: pathlib.Path) -> list[pathlib.Path]:
    """:func:`files_that_are_no_network` written into ``folder``, and a plain ``.npy`` array."""
    paths = []
    for name, content in files_that_are_no_network().items():
        (folder / name).write_bytes(content)
        paths.append(folder / name)
    np.save(folder / "array.npy", np.zeros(3))
    return [*paths, folder / "array.npy"]


def test_a_file_that_is_no_network_archive_says_so_naming_the_path(tmp_path):
    for path in write_files_that_are_no_network(tmp_path):
        with pytest.raises(ValueError, match="is not a policy network file") as err:
            neural.load_network(path)
        assert str(path) in str(err.value) and "allow_pickle" not in str(err.value), err.value


def test_action_probabilities_rank_the_action_ppo_plays_first():
    """The annotation a record can carry for ppo: its most probable action is the one the
    shipped agent plays, the probabilities are of legal actions and add up over all of them."""
    from uno_env.agents.ppo import action_probabilities

    game = Game(num_players=2)
    agent = make_agent("ppo", game)
    state = game.init(seed=9)
    for _ in range(40):
        if game.is_over(state):
            break
        seat = game.current_player(state)
        obs, mask = game.observe(state, seat), game.legal_mask(state)
        shown = action_probabilities(game, obs, mask, top=100)["probabilities"]
        assert set(shown) == {game.actions.strings[a] for a in np.flatnonzero(mask)}
        assert abs(sum(shown.values()) - 1) < 1e-3
        action = agent.act(obs, mask)
        assert max(shown, key=shown.get) == game.actions.strings[action]
        game.step(state, action)
    with pytest.raises(ValueError, match="expected an observation"):
        action_probabilities(game, np.zeros(3), np.zeros(game.num_actions))


def test_ppo_plays_the_network_of_its_table_or_the_nearest_below_and_says_so(recwarn):
    """Each table plays its own network (no warning at its own tables); a table without
    one plays the largest below it and the warning names it; fewer players than any
    shipped network is refused naming what is shipped."""
    from uno_env.agents import ppo as agent_neural

    for players in range(2, 11):
        assert neural.shipped_table(players) == max(t for t in SHIPPED_TABLES if t <= players)
    for players in SHIPPED_TABLES:
        label, network = neural.shipped_network(Game(num_players=players, episode="round"))
        assert network is neural.SHIPPED_NETWORKS[players] and label == f"ppo ({neural.SHIPPED_PATHS[players].name})"
        assert network.meta["config"]["num_players"] == players
    neural_network._WARNED.clear()
    make_agent("ppo", Game(num_players=UNSHIPPED, episode="round"))
    (warning,) = [w for w in recwarn.list if issubclass(w.category, agent_neural.TrainingMismatchWarning)]
    text = str(warning.message)
    below = neural.shipped_table(UNSHIPPED)
    assert f"ppo_{below}p.npz, the shipped network nearest {UNSHIPPED} players" in text
    assert f"num_players={UNSHIPPED} (trained: {below})" in text
    again = make_agent("ppo", Game(num_players=UNSHIPPED, episode="round"))  # warned once; the notice each time
    assert again.notice == text
    assert len([w for w in recwarn.list if issubclass(w.category, agent_neural.TrainingMismatchWarning)]) == 1
    assert make_agent("ppo", Game(num_players=below, episode="round")).notice is None
    monkeypatch = pytest.MonkeyPatch()
    patch_everywhere(monkeypatch, "SHIPPED_NETWORKS", {4: neural.SHIPPED_NETWORKS[max(SHIPPED_TABLES)]})
    with pytest.raises(ValueError, match=r"no shipped network plays 3 players \(shipped: 4 players\)"):
        neural.shipped_network(Game(num_players=3))
    monkeypatch.undo()


OWN_NETWORK_CASES = {
    case_name(table): (kind, table, table["num_players"] + (2 if table.get("partners") else 1))
    for kind, table in SHIPPED_TABLES_BY_KIND
    if kind != "hands"
}
"""The tables with a network of their own beside the hands network of their size: its kind,
the table's settings, and a larger table of those settings without one of its own."""


@pytest.mark.parametrize("case", OWN_NETWORK_CASES)
def test_ppo_plays_a_tables_own_network_where_one_is_shipped(case, recwarn):
    """At a partner table, or a whole game, with a network of its own ``ppo`` plays it
    (compiled, without a warning), and every other shipped network of that size chooses
    differently somewhere, so that the compiled policy's choice of network shows; a table
    of hands of that size keeps the hands network. A larger table without one of its own
    plays the hands network."""
    from uno_env.agents import ppo as agent_neural

    kind, settings, larger_size = OWN_NETWORK_CASES[case]
    game = Game(**settings)
    players = game.num_players
    paths, networks = neural.SHIPPED_KINDS[kind]
    label, network = neural.shipped_network(game)
    assert network is networks[players]
    assert label == f"ppo ({paths[players].name})"
    trained = dict(network.meta["config"])
    if neural.trained_house_rules(network, game.config):  # a network trained on a mix of house rules
        trained.update(neural.house_rules_of(game.config))
    assert all(trained[key] == value for key, value in settings.items())
    neural_network._WARNED.clear()
    compiled = make_agent("ppo", game)
    assert not [w for w in recwarn.list if issubclass(w.category, agent_neural.TrainingMismatchWarning)]
    found = observations_by_phase(game, per_phase=40, seed=5)
    obs, mask = stacked(found)
    chosen = [compiled(o, m) for o, m in zip(obs, mask)]
    for other, (other_paths, other_networks) in neural.SHIPPED_KINDS.items():  # every other network of the size
        if other != kind and players in other_networks:
            plain = make_agent(f"ppo:weights={other_paths[players]}", game)
            assert plain.act_batch(obs, mask).tolist() != chosen, other
    hands = Game(num_players=players, episode="round")
    assert neural.shipped_network(hands)[1] is neural.SHIPPED_NETWORKS[players]
    larger = Game(**{**settings, "num_players": larger_size})
    assert neural.shipped_network(larger)[1] is neural.SHIPPED_NETWORKS[neural.shipped_table(larger_size)]
    found = observations_by_phase(larger, per_phase=10, seed=6)
    obs, mask = stacked(found)
    compiled = make_agent("ppo", larger)
    plain = make_agent(f"ppo:weights={neural.SHIPPED_PATHS[neural.shipped_table(larger_size)]}", larger)
    assert [compiled(o, m) for o, m in zip(obs, mask)] == plain.act_batch(obs, mask).tolist()


def test_every_door_that_seats_ppo_warns_off_its_tables():
    """The vector env's seats and ``play``, the Gym env's opponents and ``make_agent``:
    each warns once that ``ppo`` plays the network nearest the table."""
    from uno_env import UnoGymEnv

    n = UNSHIPPED
    others = ["random"] * (n - 2)

    def vector_play():
        env = UnoVectorEnv(4, num_players=n, seed=0)
        env.reset(seed=0)
        env.play(4, policies=["ppo", "random", *others])

    doors = {
        "vector seats": lambda: UnoVectorEnv(4, num_players=n, seats=[None, "ppo", *others], seed=0),
        "vector play": vector_play,
        "gym opponents": lambda: UnoGymEnv(num_players=n, opponents="ppo"),
        "make_agent": lambda: make_agent("ppo", Game(num_players=n)),
    }
    for door, build in doors.items():
        neural_network._WARNED.clear()
        with pytest.warns(neural.TrainingMismatchWarning, match=f"the shipped network nearest {n} players") as caught:
            build()
        assert len(caught) == 1, door
