"""A policy network in memory (:class:`Network`): its weights, what it reads and answers by
name, and the numeric tables the kernels read, rebuilt for the current layout; what a
game's configuration offers a network (:func:`input_slices`, :func:`action_blocks`,
:func:`input_scale`), whether a network can play it (:meth:`Network.mismatches`) and was
trained for it (:func:`training_mismatch`), and the network moved to another table
(:func:`transplant`)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from ...engine.config import HOUSE_RULE_SETTINGS, RuleConfig, house_rules_on
from ...engine.game import Game
from ...engine.layout import NUM_PARAMS, P_NUM_ACTIONS, P_O_FIRST
from ...engine.observation import SLICE_NAMES, ObservationSpec
from .colours import colour_relabellings
from .fileformat import (
    ACTION_BLOCKS,
    FORMAT,
    FORMAT_VERSION,
    PLAY_BLOCK,
    PREFIX_SLICES,
    RULE_INPUTS,
    RULES_SLICE,
    WEIGHTS,
    ActionBlock,
    InputSlice,
    NetworkArrays,
    check_actions,
    check_inputs,
    check_seat_order,
    rule_input_slot,
    seat_width,
)
from .forward_pass import output_index

DISTILLED = "distilled"
"""``meta["colours"]`` of a network distilled from its own average over the colours
(``experiments/distill_colours.py``): it plays in one pass (:attr:`Network.one_pass`); the
meta's ``distilled`` says from what (the teacher's file name) and how closely (the fit's
held-out agreement and KL divergence)."""
ONE_PASS = "one_pass"
"""``meta["colours"]`` of a network trained to play in one pass: fine-tuned, as it plays, from a
network distilled from its own average (the networks that know the house rules, :mod:`.grow`).
It plays in one pass too (:attr:`Network.one_pass`)."""
ONE_PASS_COLOURS = (DISTILLED, ONE_PASS)


class Network:
    """Weights and input layout of a policy network, as contiguous numpy arrays.

    ``w1`` (inputs, hidden1), ``w2`` (hidden1, hidden2): input-major, so a non-zero input
    adds one contiguous row; ``w3`` (actions, hidden2): one contiguous row per action, so
    only the legal actions' logits are computed. ``scale`` (inputs,) multiplies the
    gathered observation. ``inputs`` (:class:`InputSlice`) and ``actions``
    (:class:`ActionBlock`): the training configuration's observation slices and action
    blocks, by name; ``seat_order`` (of :data:`SEAT_ORDERS`): how it reads the per-seat slices.
    Rebuilt from them for the current layout: ``gather`` (slices, 4): per slice the index of its
    offset in ``P``, its offset in the network input, its size and its entries per seat when
    read in the order of play (0: read as given);
    ``params`` (a vector like ``P``, -1 but at the ``P_A_*`` entries): the first output of
    each action block, and ``P_NUM_ACTIONS`` the number of outputs. ``meta``: a dict (training
    configuration, command, seed, figures)."""

    # the arrays of ARRAYS, set in __init__
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray
    scale: np.ndarray
    gather: np.ndarray
    params: np.ndarray
    recolour_in: np.ndarray
    recolour_out: np.ndarray

    def __init__(
        self,
        weights: dict,
        inputs: Sequence[InputSlice],
        actions: Sequence[ActionBlock],
        meta: dict | None = None,
        seat_order: str = "clockwise",
    ):
        missing = [k for k in WEIGHTS if k not in weights]
        if missing:
            raise ValueError(f"network: missing arrays {', '.join(missing)}")
        for name in WEIGHTS:
            setattr(self, name, np.ascontiguousarray(weights[name], dtype=np.float32))
        self.meta = dict(meta or {})
        n_inputs, hidden1 = self.w1.shape
        if self.w2.shape[0] != hidden1 or self.w3.shape[1] != self.w2.shape[1]:
            raise ValueError(f"network: layer shapes do not chain: {self.w1.shape}, {self.w2.shape}, {self.w3.shape}")
        if self.scale.shape != (n_inputs,):
            raise ValueError("network: scale must have one entry per input")
        self.inputs = tuple(inputs)
        self.actions = tuple(actions)
        check_inputs(self.inputs, n_inputs)
        check_actions(self.actions, self.w3.shape[0])
        self.seat_order = check_seat_order(seat_order, self.inputs)
        self.gather = kernel_gather(self.inputs, self.seat_order)
        self.params = kernel_outputs(self.actions)
        self.recolour_in, self.recolour_out = colour_relabellings(self.inputs, self.actions)

    def arrays(self) -> NetworkArrays:
        """The arrays in the order of ARRAYS (the kernels' argument order)."""
        return (self.w1, self.b1, self.w2, self.b2, self.w3, self.b3, self.scale, self.gather, self.params)

    @property
    def one_pass(self) -> bool:
        """Whether the file says the network plays in one pass: distilled from its own average
        over the colours (``meta["colours"] == "distilled"``, :data:`DISTILLED`) or trained in
        one pass from such a network (:data:`ONE_PASS`). Else it is played averaged over the 24
        namings of the colours."""
        return self.meta.get("colours") in ONE_PASS_COLOURS

    def policy_arrays(self, one_pass: bool | None = None) -> tuple[np.ndarray, ...]:
        """The policy kernels' arrays: those of :meth:`arrays`, then ``recolour_in`` and
        ``recolour_out`` (also rebuilt on load): every relabelling of the colours (the
        average), or only the first, the identity, with ``one_pass`` (the network alone, one
        forward pass a decision). ``one_pass`` None: the file's own way (:attr:`one_pass`)."""
        relabellings = 1 if (self.one_pass if one_pass is None else one_pass) else len(self.recolour_in)
        return (*self.arrays(), self.recolour_in[:relabellings], self.recolour_out[:relabellings])

    def header(self) -> dict:
        """The ``network`` entry of the file: format, version, inputs and actions by name."""

        def record(item: InputSlice | ActionBlock) -> dict:
            fields = {k: v for k, v in vars(item).items() if k != "labels"}
            return fields if item.labels is None else {**fields, "labels": list(item.labels)}

        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "seat_order": self.seat_order,
            "inputs": [record(s) for s in self.inputs],
            "actions": [record(b) for b in self.actions],
        }

    def mismatches(self, game: Game) -> list[str]:
        """Why the network cannot play ``game``'s configuration (empty: it can): a slice it
        reads that the observation lacks, has smaller, or labels otherwise; an action
        block whose actions the configuration names otherwise."""
        return input_mismatches(self.inputs, game) + action_mismatches(self.actions, game)

    def supports(self, game: Game) -> bool:
        """Every slice the network reads exists in ``game``'s observation, is large enough
        and labels its entries alike, and the action blocks they share name their actions
        alike (:meth:`mismatches` says what differs)."""
        return not self.mismatches(game)


def input_mismatches(inputs: Sequence[InputSlice], game: Game) -> list[str]:
    """The slices a network reads that ``game``'s observation lacks, has smaller, or labels otherwise."""
    problems = []
    house_slices = rule_slices(game) if any(s.name == RULES_SLICE for s in inputs) else ()
    for s in inputs:
        if s.name == RULES_SLICE:  # read from the settings, which every configuration has
            continue
        have = game.obs_spec.by_name.get(s.name)
        if have is None and s.name in house_slices:  # a network that reads the rules knows it is off
            continue
        if have is None:
            problems.append(f"the observation has no slice {s.name!r}")
        elif have.size < s.size and s.name in PREFIX_SLICES:
            if s.labels is not None and tuple(have.labels) != s.labels[: have.size]:
                problems.append(f"the observation's slice {s.name!r} labels its entries otherwise")
        elif have.size < s.size:
            problems.append(f"the observation's slice {s.name!r} has {have.size} entries, the network reads {s.size}")
        elif s.labels is not None and tuple(have.labels[: s.size]) != s.labels:
            problems.append(f"the observation's slice {s.name!r} labels its entries otherwise")
    return problems


def rule_slices(game: Game) -> tuple[str, ...]:
    """The slices a house rule brings to ``game``'s observation: those the observation has with
    every house rule on and lacks with its own settings (a network that reads the rules,
    :data:`RULES_SLICE`, reads them as 0 while their rule is off)."""
    every = ObservationSpec(game.config.replace(**house_rules_on())).by_name
    return tuple(name for name in every if name not in game.obs_spec.by_name)


def action_mismatches(actions: Sequence[ActionBlock], game: Game) -> list[str]:
    """The action blocks a network answers whose actions ``game``'s configuration names otherwise
    (where both record their names)."""
    blocks = action_blocks(game, check=False)
    problems = []
    for b in actions:
        here = next((a for a in blocks if a.name == b.name), None)
        if here is None or here.labels is None or b.labels is None:
            continue
        if here.labels[: b.size] != b.labels[: here.size]:
            problems.append(f"the action block {b.name!r} names its actions otherwise")
    return problems


def kernel_gather(inputs: Sequence[InputSlice], seat_order: str = "clockwise") -> np.ndarray:
    """The kernels' ``gather`` table for the current layout: per slice, the index in ``P``
    of its offset (``P_O_FIRST`` + its place in ``SLICE_NAMES``), its offset in the network
    input, its size and, read in the order of play, its entries per seat (0: as given; -1: a
    slice of :data:`PREFIX_SLICES` of a network that reads the rules, read up to its end in the
    acting configuration; the others' slices are never shorter there, and are read unchecked).
    The :data:`RULES_SLICE` gives a row per entry: ``-1 -`` the index in ``P`` of its
    setting, its offset in the network input, 1, and the code that makes it 1."""
    play = seat_order == "play"
    prefix = PREFIX_SLICES if any(s.name == RULES_SLICE for s in inputs) else ()  # only a rule-aware network's
    rows = []
    for s in inputs:
        if s.name == RULES_SLICE:
            for k, label in enumerate(s.labels or ()):
                slot, code = rule_input_slot(label)
                rows.append([-1 - slot, s.offset + k, 1, code])
        else:
            width = -1 if s.name in prefix else seat_width(s.labels) if play else 0
            rows.append([P_O_FIRST + SLICE_NAMES.index(s.name), s.offset, s.size, width])
    return np.array(rows, dtype=np.int64).reshape(len(rows), 4)


def kernel_outputs(actions: Sequence[ActionBlock]) -> np.ndarray:
    """The kernels' ``params`` for the current layout: a vector like ``P``, -1 but the first
    output of each action block at its ``P_A_*`` entry and the number of outputs at
    ``P_NUM_ACTIONS`` (the coloured plays start at output 0)."""
    params = np.full(NUM_PARAMS, -1, dtype=np.int64)
    for b in actions:
        if b.name != PLAY_BLOCK:
            params[ACTION_BLOCKS[b.name]] = b.first
    params[P_NUM_ACTIONS] = sum(b.size for b in actions)
    return params


def play_order_index(game: Game) -> np.ndarray:
    """Per entry of ``game``'s observation, the entry a network reading the seats in the
    order of play (``seat_order="play"``) reads there when play runs counter-clockwise:
    seat k of a per-seat slice is read from seat n - k (mod n). The training script's torch
    network gathers with it; :func:`network_logits` computes the same."""
    return play_order_inputs(input_slices(game), game.observation_size, game.num_players)


def play_order_inputs(inputs: Sequence[InputSlice], size: int, num_players: int) -> np.ndarray:
    """:func:`play_order_index` over any inputs (``size`` of them, at ``num_players``)."""
    index = np.arange(size, dtype=np.int64)
    n = num_players
    for s in inputs:
        width = seat_width(s.labels)
        for k in range(s.size if width else 0):
            seat, entry = divmod(k, width)
            index[s.offset + k] = s.offset + ((n - seat) % n) * width + entry
    return index


def input_scale(game: Game) -> np.ndarray:
    """Per observation entry, the factor that brings it to about 0..1 for the network:
    counts of cards and seats' hand sizes by 1/10, scores by 1/target score, the rest by
    the inverse of its upper bound (one-hot slices stay 0/1)."""
    spec = game.obs_spec
    scale = np.empty(spec.size, dtype=np.float32)
    for s in spec.slices:
        if s.name in ("hand_sizes", "draw_pile_size"):
            factor = np.full(s.size, 0.1, dtype=np.float32)
        elif s.name == "scores":
            factor = np.full(s.size, 1.0 / game.config.target_score, dtype=np.float32)
        else:
            factor = 1.0 / np.maximum(s.high, 1.0)
        scale[s.offset : s.stop] = factor
    return scale


def input_slices(game: Game) -> tuple[InputSlice, ...]:
    """The inputs of a network trained on ``game``'s configuration: the whole observation,
    slice by slice."""
    return tuple(InputSlice(s.name, s.offset, s.size, tuple(s.labels)) for s in game.obs_spec.slices)


def action_blocks(game: Game, check: bool = True) -> tuple[ActionBlock, ...]:
    """The action blocks of ``game``'s configuration, in id order: ``play`` (the coloured
    plays), then the blocks of ``ActionTable.offsets``. ``check``: a block name missing
    from :data:`ACTION_BLOCKS` is a ValueError (a network file could not name it)."""
    table = game.actions
    blocks = table.blocks()
    if check:
        for name, _, _ in blocks:
            if name != PLAY_BLOCK and name not in ACTION_BLOCKS:
                raise ValueError(f"the action block {name!r} has no entry in uno_env.agents.neural.ACTION_BLOCKS")
    return tuple(
        ActionBlock(name, first, stop - first, tuple(table.strings[first:stop])) for name, first, stop in blocks
    )


def transplant(network: Network, game: Game) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network as three (weight, bias) pairs in torch's ``nn.Linear`` layout (weight:
    out x in) over ``game``'s whole observation (scaled by :func:`input_scale`) and action
    table: the same logits for every legal action as the compiled forward pass gives at
    ``game``'s table (inputs the network does not read get zero weights; each action's
    output row is the one :func:`output_index` maps it to). A network trained at another
    table (or rule variant) thus starts a training run there exactly as it plays there.
    ValueError when the network cannot play ``game`` (:meth:`Network.mismatches`)."""
    problems = network.mismatches(game)
    if problems:
        raise ValueError(f"the network cannot play this configuration: {'; '.join(problems)}")
    scale = input_scale(game)
    w1 = np.zeros((network.w1.shape[1], game.observation_size), dtype=np.float32)
    b1 = network.b1.copy()
    for s in network.inputs:
        source = network.w1[s.offset : s.offset + s.size] * network.scale[s.offset : s.offset + s.size, None]
        if s.name == RULES_SLICE:  # constant at a table: into the bias
            b1 += rule_input_values(s.labels or (), game.config) @ source
            continue
        have = game.obs_spec.by_name.get(s.name)
        if have is None:  # a house rule's slice, its rule off here
            continue
        k = min(s.size, have.size)  # a shorter phase slice: the phases it has
        w1[:, have.offset : have.offset + k] = (source[:k] / scale[have.offset : have.offset + k, None]).T
    rows = np.array([output_index(game.params, network.params, a) for a in range(game.num_actions)], dtype=np.int64)
    return [(w1, b1), (network.w2.T.copy(), network.b2.copy()), (network.w3[rows], network.b3[rows])]


def rule_input_values(labels: Sequence[str], config: RuleConfig) -> np.ndarray:
    """The values of the rule inputs of these labels (:data:`RULES_SLICE`) at a configuration:
    1 where it has the entry's setting at its value (float32)."""
    codes = config.codes()
    return np.array([codes[RULE_INPUTS[label][0]] == RULE_INPUTS[label][1] for label in labels], dtype=np.float32)


def distilled_meta(teacher: Network, teacher_name: str, fit: dict) -> dict:
    """The meta of a network distilled from ``teacher``'s average over the colours: the
    teacher's training configuration (``config``: :func:`warn_outside_training` names the
    tables it was trained for), ``colours`` :data:`DISTILLED` (it plays in one pass) and
    ``distilled``: the teacher's file name, the fit's figures (``fit``: held-out agreement,
    KL divergence...) and the rest of the teacher's meta (how it was trained)."""
    rest = {k: v for k, v in teacher.meta.items() if k not in ("config", "colours", "distilled")}
    meta: dict = {"colours": DISTILLED, "distilled": {"teacher": teacher_name, **fit, "teacher_meta": rest}}
    if "config" in teacher.meta:
        meta = {"config": teacher.meta["config"], **meta}
    return meta


class TrainingMismatchWarning(UserWarning):
    """A trained agent plays tables other than those it was trained for (it still plays)."""


PLAY_IRRELEVANT = ("max_steps", "reward", "illegal_action")
"""Settings that do not change what a legal-action policy faces."""

_WARNED: set[tuple] = set()


def training_mismatch(network: Network, game: Game) -> str | None:
    """How ``game``'s settings differ from those ``network`` was trained on (None: they do
    not, or the file does not record them)."""
    trained = network.meta.get("config") if isinstance(network.meta, dict) else None
    if not isinstance(trained, dict):
        return None
    try:  # settings the file predates (the house rules) were at their defaults
        trained_config = RuleConfig.from_kwargs(**{**RuleConfig().to_dict(), **trained})
    except (TypeError, ValueError):
        return None
    here = game.config.to_dict()
    ignored = PLAY_IRRELEVANT + (HOUSE_RULE_SETTINGS if trained_house_rules(network, game.config) else ())
    changed = [
        f"{key}={here[key]!r} (trained: {value!r})"
        for key, value in trained_config.to_dict().items()
        if key not in ignored and here.get(key) != value
    ]
    if not changed:
        return None
    return f"trained for {trained_config.in_words()}; here {', '.join(changed)}"


def house_rules_of(config: RuleConfig) -> dict:
    """The house-rule settings of a configuration, by name (a row of ``meta["house_rules"]``)."""
    return {name: getattr(config, name) for name in HOUSE_RULE_SETTINGS}


def trained_house_rules(network: Network, config: RuleConfig) -> bool:
    """Whether ``network`` was trained under ``config``'s house rules: its file lists the
    house-rule settings it was trained on (``meta["house_rules"]``, a network that reads them,
    :mod:`.grow`) and ``config``'s combination is one of them."""
    mix = network.meta.get("house_rules")
    if not isinstance(mix, list):
        return False
    here = house_rules_of(config)
    return any(isinstance(row, dict) and {**house_rules_of(RuleConfig()), **row} == here for row in mix)


def warn_outside_training(label: str, network: Network, game: Game, stacklevel: int = 3) -> str | None:
    """Warn once per process per agent and difference that ``label`` plays untrained tables.
    Returns the warning's text every time (None: the tables match), for a caller that shows
    it elsewhere (``uno serve``'s page: ``Agent.notice``)."""
    mismatch = training_mismatch(network, game)
    if mismatch is None:
        return None
    text = f"{label}: {mismatch}; it plays, but outside the tables it learned on"
    if (label, mismatch) not in _WARNED:
        _WARNED.add((label, mismatch))
        warnings.warn(text, TrainingMismatchWarning, stacklevel=stacklevel)
    return text
