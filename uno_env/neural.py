"""Neural policies in numpy/numba: the forward pass of a trained policy network, no torch.

A policy network is a multilayer perceptron (two ReLU hidden layers) over the
observation, one logit per action, masked to the legal actions. Its weights live
in a ``.npz`` file (:func:`save_network` / :func:`load_network`) that also holds
the input scaling and the layout of the observation it was trained on, so that
the same network plays in every rule configuration:

* **input**: every observation slice of the training configuration is copied
  from where the acting configuration keeps it (the offsets come from the
  parameter vector ``P``). Per-seat slices keep their first seats (the observer and
  the seats after it), card-face slices their first faces, and slices the training
  configuration did not have (Fashion Trend's) are not read;
* **output**: each legal action takes the logit of the training configuration's
  action of the same kind (a Fashion Trend naming a colour takes the logit of a
  Wild naming it).

The forward pass is one numba function, :func:`network_logits`, used by the
Python agent (``agents.make_agent("ppo:weights=...")``), by the compiled policy
``ppo`` (the shipped weights, :data:`SHIPPED_PATH`, compiled into the kernels:
an opponent inside the vector env, in tournaments and in search rollouts) and
checked against the torch network of the training script in the tests.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import numpy as np

from .engine.game import Game
from .engine.jit import allocating, kernel
from .engine.layout import (
    P_A_ACCEPT,
    P_A_CATCH,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_FT,
    P_A_LEN,
    P_A_PASS,
    P_A_UNO,
    P_A_W,
    P_A_W4,
    P_O_FIRST,
)
from .engine.observation import SLICE_NAMES

SHIPPED_PATH = pathlib.Path(__file__).resolve().parent / "data" / "ppo_2p.npz"
"""The shipped two-player policy (weights, input layout, training command and figures)."""

ARRAYS = ("w1", "b1", "w2", "b2", "w3", "b3", "scale", "gather", "params")
NetworkArrays = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]  # Network.arrays(): one per name of ARRAYS, in order


class Network:
    """Weights and input layout of a policy network, as contiguous numpy arrays.

    ``w1`` (inputs, hidden1), ``w2`` (hidden1, hidden2): input-major, so a non-zero input
    adds one contiguous row; ``w3`` (actions, hidden2): one contiguous row per action, so
    only the legal actions' logits are computed. ``scale`` (inputs,) multiplies the
    gathered observation; ``gather`` (slices, 3): per slice the index of its offset in
    ``P``, its offset in the network input and its size; ``params``: the training
    configuration's ``P`` (the action kinds of the output layer). ``meta``: a dict
    (training command, seed, figures)."""

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

    def __init__(self, arrays: dict, meta: dict | None = None):
        missing = [k for k in ARRAYS if k not in arrays]
        if missing:
            raise ValueError(f"network: missing arrays {', '.join(missing)}")
        for name in ARRAYS:
            dtype = np.int64 if name in ("gather", "params") else np.float32
            setattr(self, name, np.ascontiguousarray(arrays[name], dtype=dtype))
        self.meta = dict(meta or {})
        inputs, hidden1 = self.w1.shape
        if self.w2.shape[0] != hidden1 or self.w3.shape[1] != self.w2.shape[1]:
            raise ValueError(f"network: layer shapes do not chain: {self.w1.shape}, {self.w2.shape}, {self.w3.shape}")
        if self.scale.shape != (inputs,) or self.gather.ndim != 2 or self.gather.shape[1] != 3:
            raise ValueError("network: scale must have one entry per input and gather three columns")
        if int((self.gather[:, 1] + self.gather[:, 2]).max()) > inputs:
            raise ValueError("network: the gathered slices overrun the input layer")
        if self.w3.shape[0] != int(self.params[P_A_LEN]):
            raise ValueError("network: the output layer does not match the training configuration's actions")

    def arrays(self) -> NetworkArrays:
        """The arrays in the order of ARRAYS (the kernels' argument order)."""
        return (self.w1, self.b1, self.w2, self.b2, self.w3, self.b3, self.scale, self.gather, self.params)

    def supports(self, game: Game) -> bool:
        """Every slice the network reads exists in ``game``'s observation and is large enough."""
        sizes = {s.name: s.size for s in game.obs_spec.slices}
        for index, _, size in self.gather:
            name = SLICE_NAMES[int(index) - P_O_FIRST]
            if sizes.get(name, 0) < size:
                return False
        return True


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


def input_gather(game: Game) -> np.ndarray:
    """The ``gather`` table of a network trained on ``game``'s configuration: the whole
    observation, slice by slice."""
    return np.array(
        [[P_O_FIRST + SLICE_NAMES.index(s.name), s.offset, s.size] for s in game.obs_spec.slices], dtype=np.int64
    )


def save_network(path, layers: list[tuple[np.ndarray, np.ndarray]], game: Game, meta: dict | None = None) -> Network:
    """Write a network trained on ``game``'s configuration. ``layers``: three
    (weight, bias) pairs in torch's ``nn.Linear`` layout (weight: out x in)."""
    (w1, b1), (w2, b2), (w3, b3) = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
    arrays = {
        "w1": w1.T,
        "b1": b1,
        "w2": w2.T,
        "b2": b2,
        "w3": w3,
        "b3": b3,
        "scale": input_scale(game),
        "gather": input_gather(game),
        "params": game.params,
    }
    meta = {"config": game.config.to_dict(), **(meta or {})}
    return write_network(path, Network(arrays, meta))


def write_network(path, network: Network) -> Network:
    """Write a :class:`Network` (its arrays and its meta as JSON) to a ``.npz`` file."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # typed Any: numpy's stubs would match array values against savez's allow_pickle flag
    contents: dict[str, Any] = {"meta": np.array(json.dumps(network.meta)), **dict(zip(ARRAYS, network.arrays()))}
    np.savez_compressed(path, **contents)
    return network


def load_network(path) -> Network:
    """Read a network written by :func:`save_network`."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise ValueError(f"no policy network at {path}")
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files if name != "meta"}
        meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
    return Network(arrays, meta)


# ------------------------------------------------------------------ compiled forward pass
@kernel
def output_index(P, PT, a):
    """The output (an action id of the training configuration, parameters ``PT``) whose
    logit action ``a`` of the acting configuration (parameters ``P``) takes."""
    if a < P[P_A_W]:
        return a
    if a < P[P_A_W4]:
        return PT[P_A_W] + a - P[P_A_W]
    if a < P[P_A_DRAW]:
        if P[P_A_FT] >= 0 and a >= P[P_A_FT]:
            return PT[P_A_W] + a - P[P_A_FT]  # a Fashion Trend naming a colour: as a Wild naming it
        return PT[P_A_W4] + a - P[P_A_W4]
    for kind in (P_A_DRAW, P_A_PASS, P_A_UNO, P_A_CHALLENGE, P_A_ACCEPT, P_A_CATCH):
        if a == P[kind]:
            return PT[kind]
    return PT[P_A_COLOR] + a - P[P_A_COLOR]


@allocating
def network_logits(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits):
    """Masked logits of the network for one observation: ``logits[a]`` for each legal
    action ``a``, -inf for the others. Zero inputs and inactive units are skipped."""
    h1 = b1.copy()
    for s in range(gather.shape[0]):
        source = P[gather[s, 0]]
        if source < 0:
            continue
        start = gather[s, 1]
        for k in range(gather[s, 2]):
            v = obs[source + k]
            if v != 0.0:
                j = start + k
                x = v * scale[j]
                for u in range(h1.shape[0]):
                    h1[u] += x * w1[j, u]
    h2 = b2.copy()
    for j in range(h1.shape[0]):
        x = h1[j]
        if x > 0.0:
            for u in range(h2.shape[0]):
                h2[u] += x * w2[j, u]
    for j in range(h2.shape[0]):
        if h2[j] < 0.0:
            h2[j] = 0.0
    for a in range(mask.shape[0]):
        if mask[a]:
            o = output_index(P, PT, a)
            total = b3[o]
            for u in range(h2.shape[0]):
                total += w3[o, u] * h2[u]
            logits[a] = total
        else:
            logits[a] = -np.inf


@kernel
def greedy_action(logits, mask):
    """The legal action of highest logit (the lowest id on ties)."""
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    return best


@allocating
def network_act(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT):
    """The network's greedy action for one observation."""
    logits = np.empty(mask.shape[0], dtype=np.float32)
    network_logits(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits)
    return greedy_action(logits, mask)


@allocating
def network_logits_batch(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits):
    """:func:`network_logits` for every row of a batch."""
    for b in range(obs.shape[0]):
        network_logits(obs[b], mask[b], P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits[b])


SHIPPED: Network | None = load_network(SHIPPED_PATH) if SHIPPED_PATH.is_file() else None
"""The shipped network, read once at import (None where no weights file is shipped)."""


def _shipped_arrays() -> tuple:
    """The shipped network's arrays, or empty ones (the ``ppo`` policy then refuses to act)."""
    if SHIPPED is not None:
        return SHIPPED.arrays()
    empty = np.zeros((0, 0), dtype=np.float32)
    return (empty, np.zeros(0, np.float32), empty, np.zeros(0, np.float32), empty, np.zeros(0, np.float32)) + (
        np.zeros(0, np.float32),
        np.zeros((0, 3), np.int64),
        np.zeros(0, np.int64),
    )


# Compiled in as constants: numba freezes module-level arrays into the code that reads them
# (numba_cache hashes the weights file with the sources, so new weights recompile).
_S_W1, _S_B1, _S_W2, _S_B2, _S_W3, _S_B3, _S_SCALE, _S_GATHER, _S_PARAMS = _shipped_arrays()


@kernel
def shipped_policy(obs, mask, P, prng, b):
    """The compiled policy ``ppo``: the shipped network's greedy action (-1 when no
    network is shipped)."""
    if _S_W1.shape[0] == 0:
        return -1
    return network_act(obs, mask, P, _S_W1, _S_B1, _S_W2, _S_B2, _S_W3, _S_B3, _S_SCALE, _S_GATHER, _S_PARAMS)
