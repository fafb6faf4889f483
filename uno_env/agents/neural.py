"""Neural policies in numpy/numba: the forward pass of a trained policy network, no torch.

A policy network is a multilayer perceptron (two ReLU hidden layers) over the
observation, one logit per action, masked to the legal actions. Its weights live
in a ``.npz`` file (:func:`save_network` / :func:`load_network`) that also records,
by name, the observation and the action table it was trained on, so that the same
network plays in every rule configuration, and keeps playing after the engine's
layout changes (a new entry of ``Param``, a new observation slice, a new action kind):

* **input**: every observation slice of the training configuration is copied
  from where the acting configuration keeps it (the offsets come from the
  parameter vector ``P``). Per-seat slices keep their first seats (the observer and
  the seats after it), card-face slices their first faces, and slices the training
  configuration did not have (Fashion Trend's) are not read. A configuration
  whose observation lacks a slice the network reads, has it smaller, or labels its
  first entries differently is not supported (:meth:`Network.supports`);
* **output**: each legal action takes the logit of the training configuration's
  action of the same kind (block), at the same place in the block. A Fashion Trend
  naming a colour takes the logit of a Wild naming it when the network has no
  Fashion Trend output. **Fallback:** an action of a kind the network has no output
  for (``uno`` or ``catch`` for a network trained without them, an action kind added
  to the engine after the network was trained), or beyond the end of the network's
  block of that kind, takes the logit of the network's ``pass`` output (every
  network has one), so the policy still picks among the legal actions
  deterministically and never refuses.

The file (format version 2, :data:`FORMAT_VERSION`) holds the weights ``w1 b1 w2 b2
w3 b3`` and the input scaling ``scale`` (float32 arrays, positions in the network's
own input and output only), ``meta`` (JSON: the training configuration, command,
figures) and ``network`` (JSON)::

    {"format": "uno-policy-network", "version": 2,
     "inputs":  [{"name": "hand", "offset": 0, "size": 54, "labels": ["R0", ...]}, ...],
     "actions": [{"name": "play", "first": 0, "size": 52, "labels": ["play R0", ...]},
                 {"name": "W", "first": 52, "size": 4, "labels": [...]}, ...]}

``inputs``: per observation slice read, its name, its offset in the network input,
its size and the labels of its entries; ``actions``: per block of the action table
(``play`` for the coloured plays, then the block names of ``ActionTable.offsets``:
``W``, ``W+4``, ``FT``, ``draw``, ``pass``, ``uno``, ``challenge``, ``accept``,
``catch``, ``color``), the id of its first action, its size and its action strings.
Nothing in the file is an index into ``P``: on load, :class:`Network` rebuilds the
numeric tables the kernels read (``gather``: per slice the index in ``P`` of its
offset; ``params``: the action blocks' first ids at the ``P_A_*`` entries) from the
current layout (``Param``, ``ObsSlot``, ``SLICE_NAMES``). A slice name or a block name
the current engine does not know, or a version this code does not read, is a
ValueError naming it. Files of version 1 (the positional format: ``gather`` and
``params`` arrays of raw ``P`` indices, written until the format changed) are read by
a legacy reader that knows the layout they were written with;
:func:`upgrade_network` rewrites one in the current format.

The forward pass is one numba function, :func:`forward`, over every relabelling asked of it
(:func:`network_logits`: the identity alone), checked against the torch network of the
training script in the tests. The policy that plays it,
:func:`policy_logits`, averages it over the colours: the rules treat the four colours alike
(R-DECK-1), so the network is asked about the position under each of the 24 relabellings of
the colours (:data:`uno_env.engine.cards.COLOUR_PERMUTATIONS`; ``recolour_in`` and
``recolour_out``, rebuilt on load from the slices' and blocks' names), and each legal action
scores the mean of its log-probabilities there. The policy is then exactly the same in
every relabelling of a position, which the network alone is only approximately; it won
0.5-4 points more of its hands than the network alone (docs/training.md, "Averaging over
the colours"). It is what the Python agent (``uno_env.agents.make_agent("ppo:weights=...")``) and
the compiled policy ``ppo`` (the shipped weights, :data:`SHIPPED_KINDS`, compiled into the
kernels: an opponent inside the vector env, in tournaments and in search rollouts) play.
"""

from __future__ import annotations

import json
import pathlib
import warnings
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..engine.actions import recolour_block
from ..engine.cards import COLOUR_PERMUTATIONS
from ..engine.config import MAX_PLAYERS, RuleConfig
from ..engine.game import Game
from ..engine.jit import allocating, describe, kernel
from ..engine.layout import (
    EPISODE_ROUND,
    NUM_PARAMS,
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_FT,
    P_A_PASS,
    P_A_SWAP,
    P_A_UNO,
    P_A_W,
    P_A_W4,
    P_EPISODE,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    P_O_FIRST,
    P_PARTNERS,
    Param,
)
from ..engine.observation import SLICE_NAMES, recolour_entries

describe(__name__, "the policy network's forward pass", seconds=10)

_DATA = pathlib.Path(__file__).resolve().parent.parent / "data"
SHIPPED_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p.npz" for players in (2, 3, 4, 6)}
"""The shipped policies (weights, input layout, training command and figures), by the
number of players of the table each was trained at. The compiled policy ``ppo`` plays
at each table the network :func:`shipped_table` names."""
SHIPPED_PARTNER_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p_partners.npz" for players in (4,)}
"""The shipped policies of partner tables (R-VAR-PARTNERS; trained as one team of two seats),
by number of players. A partner table without its own plays the network of
:func:`shipped_table`, like any table of its size."""
SHIPPED_GAME_PATHS: dict[int, pathlib.Path] = {players: _DATA / f"ppo_{players}p_game.npz" for players in (2, 4)}
"""The shipped policies of whole games (``episode="game"``, no partners; trained on each hand's
points margin, so they lose hands with few points in hand), by number of players. A
whole-game table without its own plays the network of :func:`shipped_table`."""
SHIPPED_PARTNER_GAME_PATHS: dict[int, pathlib.Path] = {
    players: _DATA / f"ppo_{players}p_partners_game.npz" for players in (4,)
}
"""The shipped policies of whole games at partner tables (trained as one team of two seats, on
each hand's points margin), by number of players. A partner table's whole game without its
own plays the partner table's hands network, else that of :func:`shipped_table`."""
SHIPPED_PATH = SHIPPED_PATHS[2]
"""The shipped two-player policy."""

FORMAT = "uno-policy-network"
FORMAT_VERSION = 2
"""The version of the file format that :func:`write_network` writes (1: the positional
files, read by the legacy reader)."""

SEAT_ORDERS = ("clockwise", "play")
"""How a network reads the per-seat slices (those labelled ``self``, ``seat+1``, ...):
``clockwise``, as the observation gives them (entry k: the seat k places clockwise of the
observer); ``play``, in the order of play (entry k: the seat k turns after the observer's,
so the per-seat entries of a counter-clockwise table are read mirrored, and entry 1 is
always the next player). Recorded in the file's header (``seat_order``; absent: clockwise)."""
_O_DIRECTION = P_O_FIRST + SLICE_NAMES.index("direction")  # the entry of P with the direction's offset

WEIGHTS = ("w1", "b1", "w2", "b2", "w3", "b3", "scale")
"""The arrays a network file stores (float32)."""
ARRAYS = (*WEIGHTS, "gather", "params")
"""The arrays of :meth:`Network.arrays`, in the kernels' argument order: the weights, then
the two tables rebuilt on load from the current layout."""
NetworkArrays = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]  # Network.arrays(): one per name of ARRAYS, in order

PLAY_BLOCK = "play"
"""The block of the coloured plays: the action table starts with it (no entry in ``P``)."""
ACTION_BLOCKS: dict[str, int] = {
    "W": P_A_W,
    "W+4": P_A_W4,
    "FT": P_A_FT,
    "draw": P_A_DRAW,
    "pass": P_A_PASS,
    "uno": P_A_UNO,
    "challenge": P_A_CHALLENGE,
    "accept": P_A_ACCEPT,
    "catch": P_A_CATCH,
    "color": P_A_COLOR,
    "swap": P_A_SWAP,
}
"""Per block name of ``ActionTable.offsets``, the entry of ``P`` that holds its first id.
A network file names its blocks; a name missing here is refused on load and on save."""

ACTION_SLOTS = tuple(
    int(member) for member in Param if member.name.startswith("A_") and member is not Param.NUM_ACTIONS
)
"""Every entry of ``P`` that starts an action block (the ``A_*`` members of ``Param`` but
``A_LEN``): :func:`output_index` finds the acting action's block among them, so a kind
added to the engine and to ``Param`` is found (and falls back to ``pass``) even before a
network knows it."""


@dataclass(frozen=True)
class InputSlice:
    """An observation slice a network reads: its name (of ``SLICE_NAMES``), its offset in
    the network input, its size and the labels of its entries (None: not recorded)."""

    name: str
    offset: int
    size: int
    labels: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ActionBlock:
    """A block of the training configuration's action table: its name (``play`` or a key
    of :data:`ACTION_BLOCKS`), the id of its first action (= its first output), its size
    and its action strings (None: not recorded)."""

    name: str
    first: int
    size: int
    labels: tuple[str, ...] | None = None


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

    def policy_arrays(self) -> tuple[np.ndarray, ...]:
        """The policy kernels' arrays: those of :meth:`arrays`, then ``recolour_in`` and
        ``recolour_out`` (also rebuilt on load)."""
        return (*self.arrays(), self.recolour_in, self.recolour_out)

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
        problems = []
        for s in self.inputs:
            have = game.obs_spec.by_name.get(s.name)
            if have is None:
                problems.append(f"the observation has no slice {s.name!r}")
            elif have.size < s.size:
                problems.append(
                    f"the observation's slice {s.name!r} has {have.size} entries, the network reads {s.size}"
                )
            elif s.labels is not None and tuple(have.labels[: s.size]) != s.labels:
                problems.append(f"the observation's slice {s.name!r} labels its entries otherwise")
        blocks = action_blocks(game, check=False)
        for b in self.actions:
            acting = next((a for a in blocks if a.name == b.name), None)
            if (
                acting is not None
                and acting.labels is not None
                and b.labels is not None
                and acting.labels[: b.size] != b.labels[: acting.size]
            ):
                problems.append(f"the action block {b.name!r} names its actions otherwise")
        return problems

    def supports(self, game: Game) -> bool:
        """Every slice the network reads exists in ``game``'s observation, is large enough
        and labels its entries alike, and the action blocks they share name their actions
        alike (:meth:`mismatches` says what differs)."""
        return not self.mismatches(game)


def check_inputs(inputs: Sequence[InputSlice], n_inputs: int) -> None:
    """ValueError unless every slice is known to this engine, once, inside the input layer."""
    seen = set()
    for s in inputs:
        if s.name not in SLICE_NAMES:
            raise ValueError(
                f"network: observation slice {s.name!r} is unknown to this engine (it knows {', '.join(SLICE_NAMES)})"
            )
        if s.name in seen:
            raise ValueError(f"network: observation slice {s.name!r} recorded twice")
        seen.add(s.name)
        if s.size < 0 or s.offset < 0 or s.offset + s.size > n_inputs:
            raise ValueError(f"network: the slice {s.name!r} overruns the input layer of {n_inputs} inputs")
        if s.labels is not None and len(s.labels) != s.size:
            raise ValueError(f"network: the slice {s.name!r} has {s.size} entries but {len(s.labels)} labels")


def check_actions(actions: Sequence[ActionBlock], n_outputs: int) -> None:
    """ValueError unless the blocks are known to this engine and tile the output layer
    from 0 in order, with a ``pass`` block (the fallback output)."""
    known = (PLAY_BLOCK, *ACTION_BLOCKS)
    stop = 0
    for b in actions:
        if b.name not in known:
            raise ValueError(
                f"network: action block {b.name!r} is unknown to this engine (it knows {', '.join(known)})"
            )
        if b.first != stop or b.size < 1:
            raise ValueError(
                f"network: the action block {b.name!r} does not follow the previous one (first id {b.first})"
            )
        if b.labels is not None and len(b.labels) != b.size:
            raise ValueError(f"network: the action block {b.name!r} has {b.size} actions but {len(b.labels)} labels")
        stop += b.size
    names = [b.name for b in actions]
    if len(set(names)) != len(names):
        raise ValueError("network: an action block is recorded twice")
    if stop != n_outputs:
        raise ValueError(f"network: the output layer has {n_outputs} outputs, the action blocks {stop}")
    if "pass" not in names:
        raise ValueError("network: no 'pass' output (the fallback of actions the network has no output for)")
    if not names or names[0] != PLAY_BLOCK:
        raise ValueError("network: the action table must start with the 'play' block (the coloured plays)")


def seat_width(labels: Sequence[str] | None) -> int:
    """Entries per seat of a slice with these labels: those of ``self`` (``self`` or
    ``self:...``), 0 for a slice that is not per seat (or whose labels are not recorded)."""
    return sum(1 for label in labels or () if label == "self" or label.startswith("self:"))


def check_seat_order(seat_order: str, inputs: Sequence[InputSlice]) -> str:
    """``seat_order`` if it is one of :data:`SEAT_ORDERS` that the inputs allow (the order of
    play needs the slices' labels, to find the per-seat ones), else ValueError."""
    if seat_order not in SEAT_ORDERS:
        raise ValueError(f"network: seat order {seat_order!r} is not one of {', '.join(SEAT_ORDERS)}")
    if seat_order == "play" and any(s.labels is None for s in inputs):
        raise ValueError("network: reading the seats in the order of play needs every slice's labels")
    return seat_order


def kernel_gather(inputs: Sequence[InputSlice], seat_order: str = "clockwise") -> np.ndarray:
    """The kernels' ``gather`` table for the current layout: per slice, the index in ``P``
    of its offset (``P_O_FIRST`` + its place in ``SLICE_NAMES``), its offset in the network
    input, its size and, read in the order of play, its entries per seat (0: as given)."""
    play = seat_order == "play"
    rows = [
        [P_O_FIRST + SLICE_NAMES.index(s.name), s.offset, s.size, seat_width(s.labels) if play else 0] for s in inputs
    ]
    return np.array(rows, dtype=np.int64).reshape(len(rows), 4)


def colour_relabellings(inputs: Sequence[InputSlice], actions: Sequence[ActionBlock]) -> tuple[np.ndarray, np.ndarray]:
    """Per colour relabelling (a row per mapping of ``COLOUR_PERMUTATIONS``), where each input
    of the network and each output goes (``recolour_in``: relabellings x inputs;
    ``recolour_out``: relabellings x outputs): the input j of a position is the input ``recolour_in[g, j]``
    of the position with its colours relabelled, and so for the outputs. Within each slice or
    block (:func:`uno_env.engine.observation.recolour_entries`,
    :func:`uno_env.engine.actions.recolour_block`), by its name, so the seats read in the order
    of play keep their colours; the first row is the identity."""
    n_inputs = max((s.offset + s.size for s in inputs), default=0)
    n_outputs = sum(b.size for b in actions)
    recolour_in = np.tile(np.arange(n_inputs, dtype=np.int64), (len(COLOUR_PERMUTATIONS), 1))
    recolour_out = np.empty((len(COLOUR_PERMUTATIONS), n_outputs), dtype=np.int64)
    for g, mapping in enumerate(COLOUR_PERMUTATIONS):
        for s in inputs:
            recolour_in[g, s.offset : s.offset + s.size] = s.offset + recolour_entries(s.name, s.size, mapping)
        for b in actions:
            recolour_out[g, b.first : b.first + b.size] = b.first + recolour_block(b.name, b.size, mapping)
    return recolour_in, recolour_out


def play_order_index(game: Game) -> np.ndarray:
    """Per entry of ``game``'s observation, the entry a network reading the seats in the
    order of play (``seat_order="play"``) reads there when play runs counter-clockwise:
    seat k of a per-seat slice is read from seat n - k (mod n). The training script's torch
    network gathers with it; :func:`network_logits` computes the same."""
    index = np.arange(game.observation_size, dtype=np.int64)
    n = game.num_players
    for s in game.obs_spec.slices:
        width = seat_width(s.labels)
        for k in range(s.size if width else 0):
            seat, entry = divmod(k, width)
            index[s.offset + k] = s.offset + ((n - seat) % n) * width + entry
    return index


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


def save_network(
    path,
    layers: list[tuple[np.ndarray, np.ndarray]],
    game: Game,
    meta: dict | None = None,
    seat_order: str = "clockwise",
) -> Network:
    """Write a network trained on ``game``'s configuration. ``layers``: three
    (weight, bias) pairs in torch's ``nn.Linear`` layout (weight: out x in); ``seat_order``:
    how it reads the per-seat slices (:data:`SEAT_ORDERS`)."""
    (w1, b1), (w2, b2), (w3, b3) = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
    weights = {"w1": w1.T, "b1": b1, "w2": w2.T, "b2": b2, "w3": w3, "b3": b3, "scale": input_scale(game)}
    meta = {"config": game.config.to_dict(), **(meta or {})}
    return write_network(path, Network(weights, input_slices(game), action_blocks(game), meta, seat_order))


def write_network(path, network: Network) -> Network:
    """Write a :class:`Network` (its weights, its header and its meta as JSON) to a ``.npz`` file
    in the current format."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # typed Any: numpy's stubs would match array values against savez's allow_pickle flag
    contents: dict[str, Any] = {name: getattr(network, name) for name in WEIGHTS}
    contents["network"] = np.array(json.dumps(network.header()))
    contents["meta"] = np.array(json.dumps(network.meta))
    np.savez_compressed(path, **contents)
    return network


def load_network(path) -> Network:
    """Read a network file (:func:`save_network`; version-1 files through the legacy reader)
    and rebuild its kernel tables for the current layout. ValueError, naming the problem,
    for a file that is not a network of a version this code reads, or that names an
    observation slice or an action block the engine does not know."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise ValueError(f"no policy network at {path}")
    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as err:  # not an .npz: a pickle, text, a cut file
        # numpy takes what is not numpy data for a pickle and suggests loading it unsafely: no
        reason = "neither an .npz archive nor a numpy array" if "pickled" in str(err) else str(err)
        raise ValueError(
            f"{path} is not a policy network file (an .npz archive written by save_network): {reason}"
        ) from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is not a policy network file: a single .npy array, not an .npz archive")
    try:
        with data:
            files = set(data.files)
            meta = json.loads(str(data["meta"])) if "meta" in files else {}
            weights = {name: data[name] for name in WEIGHTS if name in files}
            seat_order = "clockwise"
            if "network" in files:
                header = json.loads(str(data["network"]))
                inputs, actions = read_header(header)
                seat_order = header.get("seat_order", "clockwise")
            elif {"gather", "params"} <= files:
                inputs, actions = read_version_1(data["gather"], data["params"])
            else:
                raise ValueError("not a policy network file (no 'network' header)")
        return Network(weights, inputs, actions, meta, seat_order)
    except ValueError as err:
        raise ValueError(f"policy network {path}: {err}") from err
    except (OSError, EOFError, KeyError, zipfile.BadZipFile) as err:  # an archive cut short or damaged
        raise ValueError(f"{path} is not a readable policy network file: {err!r}") from None


def read_header(header: Any) -> tuple[list[InputSlice], list[ActionBlock]]:
    """The inputs and action blocks of a file's ``network`` entry (version 2)."""
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"not a policy network file (its header's format is not {FORMAT!r})")
    version = header.get("version")
    if version != FORMAT_VERSION:
        raise ValueError(
            f"format version {version!r} is not understood: this code reads version {FORMAT_VERSION} "
            "(and version 1, the positional files)"
        )
    try:
        inputs = [InputSlice(str(s["name"]), int(s["offset"]), int(s["size"]), labels_of(s)) for s in header["inputs"]]
        actions = [
            ActionBlock(str(b["name"]), int(b["first"]), int(b["size"]), labels_of(b)) for b in header["actions"]
        ]
    except (KeyError, TypeError) as err:
        raise ValueError(f"malformed network header ({err!r})") from err
    return inputs, actions


def labels_of(record: dict) -> tuple[str, ...] | None:
    labels = record.get("labels")
    return None if labels is None else tuple(str(label) for label in labels)


# ------------------------------------------------------------------ version 1 (positional)
# The layout version-1 files were written with (Param and SLICE_NAMES from the first
# network, commit 75aebf5, until the name-keyed format): ``gather[:, 0]`` held
# V1_O_FIRST + the slice's place in V1_SLICE_NAMES, and ``params`` the whole P vector
# (V1_NUM_PARAMS entries), whose action blocks started at the entries V1_ACTION_BLOCKS.
# Only this reader may use these numbers.
V1_SLICE_NAMES = (
    "hand",
    "top_card",
    "colour",
    "previous_colour",
    "direction",
    "phase",
    "acting",
    "dealer",
    "hand_sizes",
    "scores",
    "alive",
    "draw_pile_size",
    "discard_pile",
    "drawn_card",
    "uno_called",
    "exposed",
    "after_window",
    "drew_on",
    "challenge_reveal",
    "challenge_reveal_seat",
    "trend_colour",
    "trend_shown",
)
V1_O_FIRST = 36
V1_NUM_PARAMS = V1_O_FIRST + len(V1_SLICE_NAMES)
V1_ACTION_BLOCKS = {
    "W": 24,
    "W+4": 25,
    "FT": 26,
    "draw": 27,
    "pass": 28,
    "uno": 29,
    "challenge": 30,
    "accept": 31,
    "catch": 32,
    "color": 33,
}
V1_A_LEN = 34


def read_version_1(gather: np.ndarray, params: np.ndarray) -> tuple[list[InputSlice], list[ActionBlock]]:
    """The inputs and action blocks of a version-1 file, its positional indices read
    against the layout it was written with (labels not recorded)."""
    gather = np.asarray(gather, dtype=np.int64)
    params = np.asarray(params, dtype=np.int64)
    if params.shape != (V1_NUM_PARAMS,) or gather.ndim != 2 or gather.shape[1] != 3:
        raise ValueError(f"a version-1 file of an unknown layout (params {params.shape}, gather {gather.shape})")
    inputs = []
    for index, offset, size in gather.tolist():
        if not V1_O_FIRST <= index < V1_NUM_PARAMS:
            raise ValueError(f"a version-1 file of an unknown layout (gather index {index})")
        inputs.append(InputSlice(V1_SLICE_NAMES[index - V1_O_FIRST], offset, size))
    starts = sorted((int(params[slot]), name) for name, slot in V1_ACTION_BLOCKS.items() if params[slot] >= 0)
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, PLAY_BLOCK))
    stops = [first for first, _ in starts[1:]] + [int(params[V1_A_LEN])]
    return inputs, [ActionBlock(name, first, stop - first) for (first, name), stop in zip(starts, stops)]


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
    for s in network.inputs:
        here = game.obs_spec.by_name[s.name].offset
        source = network.w1[s.offset : s.offset + s.size] * network.scale[s.offset : s.offset + s.size, None]
        w1[:, here : here + s.size] = (source / scale[here : here + s.size, None]).T
    rows = np.array([output_index(game.params, network.params, a) for a in range(game.num_actions)], dtype=np.int64)
    return [(w1, network.b1.copy()), (network.w2.T.copy(), network.b2.copy()), (network.w3[rows], network.b3[rows])]


def upgrade_network(source, target) -> Network:
    """Rewrite a network file (version 1) in the current format. The labels of its slices
    and action blocks are taken from the training configuration (``meta["config"]``): a
    slice's from the current engine's slice of its name and size, the action blocks' when
    the current engine lays them out as the file says; otherwise they are left out."""
    network = load_network(source)
    inputs, actions = network.inputs, network.actions
    config = network.meta.get("config")
    if config is not None:
        game = Game(RuleConfig.from_kwargs(**config))
        here = {s.name: s for s in input_slices(game)}
        inputs = tuple(
            replace(s, labels=here[s.name].labels) if s.name in here and here[s.name].size == s.size else s
            for s in inputs
        )
        blocks = action_blocks(game)
        if [(b.name, b.first, b.size) for b in blocks] == [(b.name, b.first, b.size) for b in actions]:
            actions = blocks
    weights = {name: getattr(network, name) for name in WEIGHTS}
    return write_network(target, Network(weights, inputs, actions, network.meta, network.seat_order))


# ------------------------------------------------------------------ compiled forward pass
@kernel
def block_end(PT, first):
    """The end of the training configuration's action block that starts at output ``first``."""
    end = PT[P_NUM_ACTIONS]
    for k in ACTION_SLOTS:
        start = PT[k]
        if first < start < end:
            end = start
    return end


@kernel
def output_index(P, PT, a):
    """The output (an action id of the training configuration, the network's ``params``
    ``PT``) whose logit action ``a`` of the acting configuration (parameters ``P``) takes:
    the same place in the block of the same kind; a Fashion Trend without a Fashion Trend
    output as a Wild; otherwise (a kind the network has no output for, or past the end of
    its block) the ``pass`` output."""
    slot = -1  # the acting block holding a: the one of greatest first id <= a (-1: the coloured plays)
    start = 0
    for k in ACTION_SLOTS:
        s = P[k]
        if start <= s <= a:
            slot = k
            start = s
    first = 0
    if slot >= 0:
        first = PT[slot]
        if first < 0 and slot == P_A_FT:
            first = PT[P_A_W]  # a Fashion Trend naming a colour: as a Wild naming it
    if first >= 0:
        o = first + a - start
        if o < block_end(PT, first):
            return o
    return PT[P_A_PASS]


@kernel
def read_inputs(obs, P, gather, inputs, values):
    """The network's non-zero inputs: their indices into ``inputs``, their values into
    ``values`` (unscaled); returns how many."""
    n = P[P_NUM_PLAYERS]
    mirrored = obs[P[_O_DIRECTION]] < 0  # read in the order of play: counter-clockwise seats mirrored
    count = 0
    for s in range(gather.shape[0]):
        source = P[gather[s, 0]]
        if source < 0:
            continue
        start = gather[s, 1]
        width = gather[s, 3]
        for k in range(gather[s, 2]):
            entry = k
            if mirrored and width > 0:
                seat = k // width
                entry = ((n - seat) % n) * width + k % width
            v = obs[source + entry]
            if v != 0.0:
                inputs[count] = start + k
                values[count] = v
                count += 1
    return count


@kernel
def relabelled_logits(
    inputs, values, count, mask, P, w1, b1, w2, b2, w3, b3, scale, PT, recolour_in, recolour_out, h1, h2, raw
):
    """The network's logits of the legal actions in each colour relabelling of the position
    (a row g of ``recolour_in`` and ``recolour_out``: input j read as input
    ``recolour_in[g, j]``, action a scored by the output ``recolour_out[g, o]`` of its
    output o), into ``raw[g, a]``, over the non-zero inputs of :func:`read_inputs`.
    ``h1`` and ``h2``: scratch hidden layers, a row per relabelling. The relabellings share
    each row of ``w2`` as it is read; inactive units are skipped."""
    relabellings = recolour_in.shape[0]
    for g in range(relabellings):
        for u in range(h1.shape[1]):
            h1[g, u] = b1[u]
        for t in range(count):
            j = recolour_in[g, inputs[t]]
            x = values[t] * scale[j]
            for u in range(h1.shape[1]):
                h1[g, u] += x * w1[j, u]
        for u in range(h2.shape[1]):
            h2[g, u] = b2[u]
    for j in range(h1.shape[1]):
        for g in range(relabellings):
            x = h1[g, j]
            if x > 0.0:
                for u in range(h2.shape[1]):
                    h2[g, u] += x * w2[j, u]
    for g in range(relabellings):
        for u in range(h2.shape[1]):
            if h2[g, u] < 0.0:
                h2[g, u] = 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            output = output_index(P, PT, a)
            for g in range(relabellings):
                o = recolour_out[g, output]
                total = b3[o]
                for u in range(h2.shape[1]):
                    total += w3[o, u] * h2[g, u]
                raw[g, a] = total


@allocating
def forward(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out):
    """:func:`relabelled_logits` of one observation, in a new array (relabellings x actions)."""
    inputs = np.empty(w1.shape[0], dtype=np.int64)
    values = np.empty(w1.shape[0], dtype=np.float32)
    count = read_inputs(obs, P, gather, inputs, values)
    relabellings = recolour_in.shape[0]
    h1 = np.empty((relabellings, w1.shape[1]), dtype=np.float32)
    h2 = np.empty((relabellings, w2.shape[1]), dtype=np.float32)
    raw = np.zeros((relabellings, mask.shape[0]), dtype=np.float32)
    relabelled_logits(
        inputs, values, count, mask, P, w1, b1, w2, b2, w3, b3, scale, PT, recolour_in, recolour_out, h1, h2, raw
    )
    return raw


@allocating
def network_logits(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits):
    """Masked logits of the network for one observation: ``logits[a]`` for each legal
    action ``a``, -inf for the others (:func:`forward` without relabelling the colours)."""
    identity_in = np.arange(w1.shape[0]).reshape(1, w1.shape[0])
    identity_out = np.arange(w3.shape[0]).reshape(1, w3.shape[0])
    raw = forward(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, identity_in, identity_out)
    for a in range(mask.shape[0]):
        logits[a] = raw[0, a] if mask[a] else -np.inf


@allocating
def policy_logits(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out, logits):
    """What the policy plays by (the greedy action is its largest): per legal action ``a``
    the mean, over the colour relabellings (the rows of ``recolour_in`` and
    ``recolour_out``), of the network's log-probability, among the legal actions, of the
    relabelled ``a`` in the relabelled position; -inf for the others."""
    raw = forward(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out)
    relabellings = recolour_in.shape[0]
    for a in range(mask.shape[0]):
        logits[a] = 0.0 if mask[a] else -np.inf
    for g in range(relabellings):
        top = -np.inf
        for a in range(mask.shape[0]):
            if mask[a]:
                top = max(top, raw[g, a])
        total = 0.0
        for a in range(mask.shape[0]):
            if mask[a]:
                total += np.exp(raw[g, a] - top)
        log_total = top + np.log(total)
        for a in range(mask.shape[0]):
            if mask[a]:
                logits[a] += (raw[g, a] - log_total) / relabellings


@kernel
def greedy_action(logits, mask):
    """The legal action of highest logit (the lowest id on ties)."""
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    return best


@allocating
def policy_action(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out):
    """The policy's greedy action for one observation (:func:`policy_logits`; a single legal
    action without asking the network)."""
    legal = 0
    only = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            legal += 1
            only = a
    if legal == 1:
        return only
    logits = np.empty(mask.shape[0], dtype=np.float32)
    policy_logits(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out, logits)
    return greedy_action(logits, mask)


@allocating
def network_logits_batch(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits):
    """:func:`network_logits` for every row of a batch."""
    for b in range(obs.shape[0]):
        network_logits(obs[b], mask[b], P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits[b])


@allocating
def policy_logits_batch(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out, logits):
    """:func:`policy_logits` for every row of a batch."""
    for b in range(obs.shape[0]):
        policy_logits(
            obs[b], mask[b], P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out, logits[b]
        )


def _load_shipped(paths: dict[int, pathlib.Path]) -> dict[int, Network]:
    """The networks of those files that are shipped, read once at import, by number of players."""
    return {players: load_network(path) for players, path in paths.items() if path.is_file()}


SHIPPED_NETWORKS = _load_shipped(SHIPPED_PATHS)
"""The shipped networks, by the number of players they were trained for."""
SHIPPED_PARTNER_NETWORKS = _load_shipped(SHIPPED_PARTNER_PATHS)
"""The shipped networks of partner tables, by number of players."""
SHIPPED_GAME_NETWORKS = _load_shipped(SHIPPED_GAME_PATHS)
"""The shipped networks of whole games, by number of players."""
SHIPPED_PARTNER_GAME_NETWORKS = _load_shipped(SHIPPED_PARTNER_GAME_PATHS)
"""The shipped networks of whole games at partner tables, by number of players."""
SHIPPED_KINDS: dict[str, tuple[dict[int, pathlib.Path], dict[int, Network]]] = {
    "hands": (SHIPPED_PATHS, SHIPPED_NETWORKS),
    "partners": (SHIPPED_PARTNER_PATHS, SHIPPED_PARTNER_NETWORKS),
    "games": (SHIPPED_GAME_PATHS, SHIPPED_GAME_NETWORKS),
    "partner_games": (SHIPPED_PARTNER_GAME_PATHS, SHIPPED_PARTNER_GAME_NETWORKS),
}
"""Every kind of shipped network (:func:`shipped_entry` names one): its files and its networks,
by number of players."""
SHIPPED: Network | None = SHIPPED_NETWORKS.get(2)
"""The shipped two-player network (None where its weights file is not shipped)."""


def shipped_table(num_players: int) -> int | None:
    """The table (number of players) of the shipped network that ``ppo`` plays at a table of
    ``num_players``: its own, else the largest below it (a network reads the per-seat
    slices of its own table's size, so it can play at larger tables, not at smaller
    ones); None if there is none."""
    fits = [players for players in SHIPPED_NETWORKS if players <= num_players]
    return max(fits) if fits else None


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
    changed = [
        f"{key}={here[key]!r} (trained: {value!r})"
        for key, value in trained_config.to_dict().items()
        if key not in PLAY_IRRELEVANT and here.get(key) != value
    ]
    if not changed:
        return None
    return f"trained for {trained_config.in_words()}; here {', '.join(changed)}"


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


def shipped_entry(num_players: int, partners: bool, episode: str = "round") -> tuple[str, int] | None:
    """Which shipped network ``ppo`` plays at a table, as (its kind in :data:`SHIPPED_KINDS`, its
    number of players): the table's own where one is shipped (by partners and whole game: a
    partner table's whole game, else its hands; without partners a whole game's), else the
    hands network of :func:`shipped_table`; None when there is none. The one rule of both
    :func:`shipped_network` and the compiled policy's slots."""
    own: tuple[str, ...]  # the kinds of the table's own networks, by preference
    if partners:
        own = ("partner_games", "partners") if episode == "game" else ("partners",)
    else:
        own = ("games",) if episode == "game" else ()
    for kind in own:
        if num_players in SHIPPED_KINDS[kind][1]:
            return kind, num_players
    table = shipped_table(num_players)
    return None if table is None else ("hands", table)


def _shipped_choice(game: Game) -> tuple[dict[int, pathlib.Path], Network, int]:
    """The paths of the kind ``ppo`` plays at ``game``'s table, its network there and the
    table it was trained for; ValueError when none can play it."""
    entry = shipped_entry(game.num_players, game.config.partners, game.config.episode)
    if entry is None:
        raise ValueError(
            f"ppo: no shipped network plays {game.num_players} players (shipped: {_shipped_sizes()}); pass weights=PATH"
        )
    kind, table = entry
    paths, networks = SHIPPED_KINDS[kind]
    network = networks[table]
    problems = network.mismatches(game)
    if problems:
        raise ValueError(f"ppo: the shipped network cannot play this configuration: {'; '.join(problems)}")
    return paths, network, table


def _shipped_sizes() -> str:
    return ", ".join(f"{n} players" for n in sorted(SHIPPED_NETWORKS)) or "none"


def shipped_network(game: Game) -> tuple[str, Network]:
    """The shipped network ``ppo`` plays at ``game``'s table (:func:`shipped_entry`) and its
    label; ValueError when none can play it."""
    paths, network, table = _shipped_choice(game)
    name = paths[table].name
    if table == game.num_players:
        return f"ppo ({name})", network
    return f"ppo ({name}, the shipped network nearest {game.num_players} players; shipped: {_shipped_sizes()})", network


def shipped_path(game: Game) -> pathlib.Path:
    """The file of the shipped network ``ppo`` plays at ``game``'s table (ValueError as
    :func:`shipped_network`)."""
    paths, _, table = _shipped_choice(game)
    return paths[table]


def check_shipped(game: Game, stacklevel: int = 4) -> str | None:
    """The check of every door that seats the compiled policy ``ppo`` (``make_agent``, the
    vector env's seats and ``play``, the Gym env's opponents): ValueError when no shipped
    network can play ``game``; a warning, once, when the one it plays was trained for
    other tables (naming them, and the network it plays), whose text it returns each time."""
    label, network = shipped_network(game)
    return warn_outside_training(label, network, game, stacklevel=stacklevel)


def _slots(networks: list[Network]) -> tuple:
    """Per array of :meth:`Network.policy_arrays`, the tuple of that array of each network (one slot
    per network; a single empty network when there is none, which no table uses). Numba
    freezes a global tuple of arrays of one type into the code as constants and indexes it
    at run time; a tuple rather than one stacked array because numba does not cache code
    that holds a global array over 1 MB."""
    if not networks:  # none shipped: ``ppo`` then refuses to act
        f32, i64 = np.float32, np.int64
        matrix, vector = np.zeros((0, 0), f32), np.zeros(0, f32)
        tables = (np.zeros((0, 4), i64), np.zeros(0, i64), np.zeros((0, 0), i64), np.zeros((0, 0), i64))
        return tuple((a,) for a in (matrix, vector, matrix, vector, matrix, vector, vector, *tables))
    return tuple(zip(*(tuple(np.ascontiguousarray(a) for a in network.policy_arrays()) for network in networks)))


_ENTRIES = [(kind, t) for kind, (_, networks) in SHIPPED_KINDS.items() for t in sorted(networks)]
# Compiled in as constants (numba_cache hashes the weights files with the sources, so new
# weights recompile). One slot per shipped network (_ENTRIES, as shipped_entry names them);
# _SLOT_OF[2 * partners + whole game, n] is the slot of the network of that table (-1: none).
_W1, _B1, _W2, _B2, _W3, _B3, _SCALE, _GATHER, _PARAMS, _RECOLOUR_IN, _RECOLOUR_OUT = _slots(
    [SHIPPED_KINDS[kind][1][t] for kind, t in _ENTRIES]
)
_SLOT_OF = np.array(
    [
        [
            _ENTRIES.index(e) if (e := shipped_entry(n, partners, episode)) is not None else -1
            for n in range(MAX_PLAYERS + 1)
        ]
        for partners in (False, True)
        for episode in ("round", "game")
    ],
    dtype=np.int64,
)


@kernel
def shipped_policy(obs, mask, P, prng, b):
    """The compiled policy ``ppo``: the greedy action of the policy of the shipped network
    for this table (:func:`shipped_network`, :func:`policy_logits`), -1 when none is shipped for it."""
    row = (2 if P[P_PARTNERS] != 0 else 0) + (0 if P[P_EPISODE] == EPISODE_ROUND else 1)
    slot = _SLOT_OF[row, P[P_NUM_PLAYERS]]
    if slot < 0:
        return -1
    return policy_action(
        obs,
        mask,
        P,
        _W1[slot],
        _B1[slot],
        _W2[slot],
        _B2[slot],
        _W3[slot],
        _B3[slot],
        _SCALE[slot],
        _GATHER[slot],
        _PARAMS[slot],
        _RECOLOUR_IN[slot],
        _RECOLOUR_OUT[slot],
    )
