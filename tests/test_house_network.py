"""The networks that know the house rules: grown from the shipped ones with exactly their logits,
the rule inputs read from the settings, the torch network and the compiled forward pass agreeing
at every table, the mix training (``uno train --house-mix``) and which network ``ppo`` plays."""

import warnings

import numpy as np
import pytest

from uno_env.agents import make_agent, neural
from uno_env.agents.neural import shipped as neural_shipped
from uno_env.engine import Game, RuleConfig
from uno_env.engine.config import HOUSE_RULE_SETTINGS
from uno_env.vector import UnoVectorEnv

torch = pytest.importorskip("torch")

from uno_env.training import house as H  # noqa: E402
from uno_env.training import ppo as P  # noqa: E402
from uno_env.training.network import ActorCritic, InputLayout  # noqa: E402

from .test_training import TINY, read_rows  # noqa: E402

TABLES = {name: settings for name, settings in H.HOUSE_SETTINGS.items()}
"""Every setting a mix names: none, each house rule alone, all five."""


def random_decisions(game: Game, steps: int = 40, games: int = 16, seed: int = 3):
    """Observations and masks of seeded random play at ``game``'s table (every seat's decisions)."""
    env = UnoVectorEnv(games, game.config, seed=seed)
    step = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for _ in range(steps):
        live = step.seat >= 0
        obs.append(step.obs[live])
        masks.append(step.mask[live])
        step = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in step.mask]))
    return np.concatenate(obs), np.concatenate(masks)


def logits_of(network: neural.Network, game: Game, obs, masks) -> np.ndarray:
    out = np.empty(masks.shape, dtype=np.float32)
    neural.network_logits_batch(obs, masks, game.params, *network.arrays(), out)
    return out


def table(n: int, name: str) -> Game:
    return Game(RuleConfig(num_players=n, episode="round", **TABLES[name]))


@pytest.mark.parametrize("n", [2, 4])
def test_a_grown_network_computes_the_shipped_logits_bit_for_bit(n):
    """With every house rule off the grown network's logits are the shipped network's, bit for
    bit (its new inputs read 0 and their weights are 0); with house rules on too, where its new
    swap outputs give what the shipped network's ``pass`` output gave them."""
    shipped = neural.SHIPPED_NETWORKS[n]
    grown = neural.grow(shipped, n)
    assert neural.is_rule_aware(grown) and grown.one_pass and grown.seat_order == shipped.seat_order
    for name in ("off", "seven_o", "stacking", "all"):
        game = table(n, name)
        obs, masks = random_decisions(game)
        assert np.array_equal(logits_of(grown, game, obs, masks), logits_of(shipped, game, obs, masks)), name
    with pytest.raises(ValueError, match="already reads the rule settings"):
        neural.grow(grown, n)


def test_the_rule_inputs_say_which_house_rules_are_on():
    """The compiled forward pass reads the rule inputs from the settings (1 where the table has
    the entry's value), as :func:`neural.rule_input_values` gives them to the torch network."""
    grown = neural.grow(neural.SHIPPED_NETWORKS[2], 2)
    rules = next(s for s in grown.inputs if s.name == neural.RULES_SLICE)
    assert rules.labels == tuple(neural.RULE_INPUTS)
    assert "stacking=same" in rules.labels and "stacking=mixed" in rules.labels and "seven_o=true" in rules.labels
    for name in TABLES:
        game = table(2, name)
        obs, masks = random_decisions(game, steps=2, games=2)
        inputs = np.empty(grown.w1.shape[0], np.int64)
        values = np.empty(grown.w1.shape[0], np.float32)
        count = neural.read_inputs(obs[0], game.params, grown.gather, inputs, values)
        read = inputs[:count][(inputs[:count] >= rules.offset)] - rules.offset
        expected = np.flatnonzero(neural.rule_input_values(rules.labels, game.config))
        assert read.tolist() == expected.tolist(), name
        assert len(expected) == sum(1 for v in TABLES[name].values()), name


def test_a_shorter_phase_slice_and_missing_house_slices_read_as_zero():
    """At a table with stacking alone the phase slice is shorter and Seven-O's slices are
    absent: the network reads the entries there are, nothing past them."""
    grown = neural.grow(neural.SHIPPED_NETWORKS[4], 4)
    game = table(4, "stacking")
    phase = next(s for s in grown.inputs if s.name == "phase")
    assert game.obs_spec.by_name["phase"].size < phase.size
    assert not grown.mismatches(game)
    obs, masks = random_decisions(game, steps=30)
    for row in obs:
        inputs = np.empty(grown.w1.shape[0], np.int64)
        values = np.empty(grown.w1.shape[0], np.float32)
        count = neural.read_inputs(row, game.params, grown.gather, inputs, values)
        at_phase = inputs[:count][(inputs[:count] >= phase.offset) & (inputs[:count] < phase.offset + phase.size)]
        assert len(at_phase) == 1 and at_phase[0] < phase.offset + game.obs_spec.by_name["phase"].size
    classic = neural.SHIPPED_NETWORKS[4]
    assert classic.mismatches(Game(RuleConfig(num_players=2)))  # a smaller per-seat slice still refuses


@pytest.mark.parametrize("n, seat_order", [(2, "clockwise"), (4, "play")])
def test_the_torch_network_and_the_compiled_forward_pass_agree_at_every_table(n, seat_order, tmp_path):
    """The network a --house-mix run trains, through each table's view, and the file it exports,
    played by the compiled forward pass at that table: the same logits for every legal action."""
    layout = InputLayout.rule_aware(n)
    torch.manual_seed(0)
    agent = ActorCritic(Game(RuleConfig(num_players=n)), 32, seat_order=seat_order, layout=layout)
    for parameter in agent.actor.parameters():
        parameter.data.normal_(0, 0.3)
    path = tmp_path / "net.npz"
    network = agent.export(path, Game(RuleConfig(num_players=n)), {"colours": neural.ONE_PASS})
    assert neural.load_network(path).gather.tolist() == network.gather.tolist()
    for name in TABLES:
        game = table(n, name)
        view = H.TableView(game, layout)
        obs, masks = random_decisions(game, steps=12, games=8)
        compiled = logits_of(network, game, obs, masks)
        with torch.no_grad():
            logits = agent.masked_logits(torch.as_tensor(view.inputs(obs)), torch.as_tensor(view.outputs(masks)))
        mapped = logits.numpy()[:, view.output]
        legal = masks.astype(bool)
        np.testing.assert_allclose(compiled[legal], mapped[legal], rtol=1e-4, atol=1e-4, err_msg=name)
        chosen = view.actions(logits.argmax(1).numpy())
        assert legal[np.arange(len(chosen)), chosen].all()


def test_the_swap_warm_start_changes_only_the_swap_outputs():
    """The warm start imitates tactical's swap targets; every weight read outside a swap decision
    stays as it was, so the grown network's other choices are untouched."""
    args = P.Args(**{**TINY, "num_players": 4, "seat_order": "play", "hidden": 256, "house_bc_decisions": 300})
    args.house_mix, args.opponents = "seven_o=1", "tactical=1"
    layout = InputLayout.rule_aware(4)
    agent = ActorCritic(Game(RuleConfig(num_players=4)), 256, seat_order="play", layout=layout)
    H.init_rule_aware(agent, str(neural.SHIPPED_PATHS[4]), 4)
    before = {k: v.clone() for k, v in agent.state_dict().items()}
    mix = H.HouseMix(args, Game(RuleConfig(num_players=4, episode="round")), agent, torch.device("cpu"), 0)
    stats = H.swap_warm_start(args, agent, mix, torch.device("cpu"))
    assert stats["swap_decisions"] >= 300 and 0 < stats["swap_accuracy"] <= 1
    swap = next(b for b in layout.actions if b.name == "swap")
    after = agent.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed == {"actor.0.weight", "actor.4.weight", "actor.4.bias"}
    w_before, w_after = before["actor.4.weight"], after["actor.4.weight"]
    outside = [r for r in range(layout.num_actions) if not swap.first <= r < swap.first + swap.size]
    assert torch.equal(w_before[outside], w_after[outside])
    columns = (before["actor.0.weight"] != after["actor.0.weight"]).any(dim=0).nonzero().flatten().tolist()
    phase = next(s for s in layout.inputs if s.name == "phase")
    assert columns == [phase.offset + list(phase.labels).index("swap")]


def tiny_house_args(tmp_path, network_path, **changes):
    fields = {**TINY, "out_dir": str(tmp_path), "run_name": "house", "init_from": str(network_path)}
    fields.update(house_mix="off=0.2,seven_o=0.4,all=0.4", opponents="tactical=0.7,random_play=0.3")
    fields.update(eval_house="seven_o", eval_opponents="tactical", bc_decisions=0, critic_warmup=1)
    return P.Args(**{**fields, **changes})


@pytest.mark.slow
def test_a_house_mix_run_trains_exports_and_resumes(tmp_path):
    """A tiny --house-mix run from a (tiny) classic network: each update names its setting, the
    exported network reads the rules, lists the settings it was trained on (so ``ppo:weights=``
    plays them without a training-mismatch warning, and warns elsewhere), and a resumed run
    continues the update count and draws the settings as an unbroken run would."""
    from .test_neural import random_network

    network_path = tmp_path / "tiny.npz"
    random_network(Game(RuleConfig(num_players=2, episode="round")), 32, network_path)
    result = P.train(tiny_house_args(tmp_path, network_path))
    folder = tmp_path / "house"
    rows = read_rows(folder / "progress.csv")
    assert {r["house_setting"] for r in rows} <= {"off", "seven_o", "all"} and len(rows) == result["updates"]
    assert rows[-1]["eval_seven_o_tactical_win_rate"] != ""
    exported = neural.load_network(folder / "policy.npz")
    assert neural.is_rule_aware(exported) and exported.one_pass
    assert exported.meta["house_rules"] == [
        neural.house_rules_of(table(2, s).config) for s in ("off", "seven_o", "all")
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error", neural.TrainingMismatchWarning)
        make_agent(f"ppo:weights={folder / 'policy.npz'}", table(2, "seven_o"))
    with pytest.warns(neural.TrainingMismatchWarning, match="jump_in"):
        make_agent(f"ppo:weights={folder / 'policy.npz'}", table(2, "jump_in"))
    resumed = P.train(P.Args(**{**TINY, "resume": str(folder / "checkpoint.pt"), "total_timesteps": 2500}))
    assert resumed["updates"] > result["updates"]
    more = read_rows(folder / "progress.csv")
    assert [r["update"] for r in more[: len(rows)]] == [r["update"] for r in rows]
    names, weights = H.parse_mix("off=0.2,seven_o=0.4,all=0.4")
    drawn = [H.setting_of_update(1, names, weights, int(r["update"]) - 1) for r in more]
    assert [r["house_setting"] for r in more] == drawn  # by the seed and the update, resumed or not
    checkpoint = str(folder / "checkpoint.pt")
    again = P.train(P.Args(**{**TINY, "resume": checkpoint, "stop_after_update": 1}))  # already past it
    assert again["updates"] == resumed["updates"] and len(read_rows(folder / "progress.csv")) == len(more)
    stage = P.train(tiny_house_args(tmp_path, checkpoint, run_name="stage2", learning_rate=1e-3, total_timesteps=600))
    assert stage["updates"] >= 1 and neural.is_rule_aware(neural.load_network(tmp_path / "stage2" / "policy.npz"))
    with pytest.raises(ValueError, match="its --num-players is 2, not 4"):
        P.train(tiny_house_args(tmp_path, checkpoint, run_name="bad", num_players=4))
    from experiments import house_distill as D

    summary = D.distil(D.Args(**{**D.SMOKE, "checkpoint": checkpoint, "out_dir": str(tmp_path), "epochs": 2}))
    assert summary["decisions"] >= 2 * D.SMOKE["decisions"] and summary["changed"] > 0
    assert set(summary["after"]) == {"changed", "own"} and summary["before"]["own"] == 1.0
    distilled = tmp_path / D.SMOKE["run_name"]
    assert neural.is_rule_aware(neural.load_network(distilled / "policy.npz"))
    third = P.train(tiny_house_args(tmp_path, str(distilled / "checkpoint.pt"), run_name="stage3", total_timesteps=600))
    assert third["updates"] >= 1


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"house_mix": "seven_o=1,unknown=1"}, "unknown setting 'unknown'"),
        ({"eval_house": "nowhere"}, "--eval-house: unknown setting 'nowhere'"),
        ({"init_from": None}, "starts from a network"),
        ({"opponents": "tactical=0.5,latest=0.5"}, "agents only: drop latest"),
        ({"privileged_critic": True}, "no --privileged-critic"),
        ({"house_bc_decisions": -1}, "--house-bc-decisions must be >= 0"),
    ],
)
def test_a_house_mix_run_refuses_bad_settings_before_writing(tmp_path, changes, message):
    args = tiny_house_args(tmp_path, neural.SHIPPED_PATHS[2], **changes)
    with pytest.raises(ValueError, match=message):
        P.train(args)
    assert not (tmp_path / "house" / "progress.csv").exists()


def test_the_training_mismatch_names_house_rules_outside_the_mix():
    grown = neural.grow(neural.SHIPPED_NETWORKS[2], 2)
    assert "seven_o" in (neural.training_mismatch(grown, table(2, "seven_o")) or "")
    grown.meta["house_rules"] = [neural.house_rules_of(table(2, s).config) for s in ("off", "seven_o", "all")]
    assert neural.training_mismatch(grown, table(2, "seven_o")) is None
    assert neural.training_mismatch(grown, table(2, "all")) is None
    assert "jump_in=True (trained: False)" in (neural.training_mismatch(grown, table(2, "jump_in")) or "")
    assert "num_players" in (neural.training_mismatch(grown, table(4, "seven_o")) or "")


def test_the_house_rules_a_network_plays_under_are_those_its_file_names():
    grown = neural.grow(neural.SHIPPED_NETWORKS[2], 2)
    assert neural_shipped._house_rules_played(grown) == HOUSE_RULE_SETTINGS  # none named: every one
    grown.meta["plays_under"] = ["force_play", "seven_o"]
    assert neural_shipped._house_rules_played(grown) == ("seven_o", "force_play")  # declaration order


@pytest.mark.parametrize("n", [2, 4])
def test_each_table_size_plays_its_house_network_under_the_rules_its_own_file_names(n):
    """A house rule one file plays under and the other does not: each table size decides by its
    own file, in Python and in the compiled ``ppo`` alike."""
    played = neural.HOUSE_RULES_PLAYED
    assert played == {
        size: neural_shipped._house_rules_played(neural_shipped.SHIPPED_HOUSE_NETWORKS[size]) for size in (2, 4)
    }
    for name in ("stacking", "seven_o", "jump_in", "draw_until_playable", "force_play", "all"):
        game = table(n, name)
        expected = name == "all" or name in played[n]
        house = neural_shipped.SHIPPED_HOUSE_NETWORKS[n]
        assert (neural.shipped_network(game)[1] is house) == expected, name
        weights = neural.SHIPPED_HOUSE_PATHS[n] if expected else neural.SHIPPED_PATHS[n]
        obs, masks = random_decisions(game, steps=20, seed=3)
        with warnings.catch_warnings():  # the network trained without the house rules says so
            warnings.simplefilter("ignore", neural.TrainingMismatchWarning)
            compiled, plain = make_agent("ppo", game), make_agent(f"ppo:weights={weights}", game)
        assert [compiled(o, m) for o, m in zip(obs, masks)] == plain.act_batch(obs, masks).tolist(), name


def test_ppo_plays_the_house_network_wherever_a_house_rule_is_on(monkeypatch):
    """The rule: a table with a house rule on and no partners plays the network of its size that
    knows them, hands or whole games; partners keep theirs; a table of another size falls back
    as before; with every house rule off nothing changes."""
    monkeypatch.setitem(neural_shipped.SHIPPED_HOUSE_NETWORKS, 4, neural.grow(neural.SHIPPED_NETWORKS[4], 4))
    assert neural.shipped_entry(4, False, "round", True) == ("house", 4)
    assert neural.shipped_entry(4, False, "game", True) == ("house", 4)
    assert neural.shipped_entry(4, True, "round", True) == ("partners", 4)
    assert neural.shipped_entry(3, False, "round", True) == ("hands", 3)
    assert neural.shipped_entry(4, False, "round", False) == ("hands", 4)
    label, network = neural.shipped_network(table(4, "seven_o"))
    assert network is neural_shipped.SHIPPED_HOUSE_NETWORKS[4] and "ppo_4p_house.npz" in label


@pytest.mark.parametrize("n", [2, 4])
def test_ppo_plays_its_house_network_under_seven_o_with_no_training_mismatch_warning(n, tmp_path, capsys):
    """`uno tournament --agents ppo,tactical --players N --schedule field --set seven_o=true`:
    the network that knows the house rules, trained under Seven-O alone, plays without a warning;
    with every house rule off `ppo` chooses as the table's classic network at every decision."""
    from uno_env.cli.main import main as uno

    neural.network._WARNED.clear()
    seven_o = table(n, "seven_o")
    assert neural.shipped_network(seven_o)[1] is neural_shipped.SHIPPED_HOUSE_NETWORKS[n]
    command = ["tournament", "--agents", "ppo,tactical", "--players", str(n), "--schedule", "field"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", neural.TrainingMismatchWarning)
        assert uno([*command, "--set", "seven_o=true", "--games", str(2 * n), "--out", str(tmp_path / "a")]) == 0
    assert "outside the tables" not in capsys.readouterr().err
    assert "seven_o" in neural.HOUSE_RULES_PLAYED[n]  # where the files were measured to beat the old networks
    assert neural.shipped_network(table(n, "all"))[1] is neural_shipped.SHIPPED_HOUSE_NETWORKS[n]
    with pytest.warns(neural.TrainingMismatchWarning, match="partners"):  # a partner table keeps its network
        make_agent("ppo", Game(RuleConfig(num_players=4, partners=True, episode="round", seven_o=True)))
    classic = Game(RuleConfig(num_players=n, episode="round"))
    obs, masks = random_decisions(classic, steps=30)
    compiled = make_agent("ppo", classic)
    plain = make_agent(f"ppo:weights={neural.SHIPPED_PATHS[n]}", classic)
    assert [compiled(o, m) for o, m in zip(obs, masks)] == plain.act_batch(obs, masks).tolist()
