"""Network files: :func:`save_network` writes a trained network (format version 2, the
name-keyed header of :mod:`.fileformat`), :func:`load_network` reads one (version 1 through
:mod:`.version1`) and :func:`upgrade_network` rewrites a version-1 file."""

from __future__ import annotations

import json
import pathlib
import zipfile
from dataclasses import replace
from typing import Any

import numpy as np

from ...engine.config import RuleConfig
from ...engine.game import Game
from .fileformat import WEIGHTS, ActionBlock, InputSlice, read_header
from .network import Network, action_blocks, input_scale, input_slices
from .version1 import read_version_1


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
    meta = {"config": game.config.to_dict(), **(meta or {})}
    return save_layers(path, layers, input_slices(game), action_blocks(game), input_scale(game), meta, seat_order)


def save_layers(
    path,
    layers: list[tuple[np.ndarray, np.ndarray]],
    inputs: tuple[InputSlice, ...],
    actions: tuple[ActionBlock, ...],
    scale: np.ndarray,
    meta: dict,
    seat_order: str = "clockwise",
) -> Network:
    """Write a network of three (weight, bias) pairs in torch's ``nn.Linear`` layout over any
    input layout (``inputs``, their ``scale``) and action blocks: :func:`save_network`'s, or
    that of a network that knows the house rules (:func:`uno_env.agents.neural.grow.rule_aware_inputs`)."""
    (w1, b1), (w2, b2), (w3, b3) = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
    weights = {"w1": w1.T, "b1": b1, "w2": w2.T, "b2": b2, "w3": w3, "b3": b3, "scale": scale}
    return write_network(path, Network(weights, inputs, actions, meta, seat_order))


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
    data = open_archive(path)
    try:
        with data:
            contents = read_archive(data)
        return Network(*contents)
    except ValueError as err:
        raise ValueError(f"policy network {path}: {err}") from err
    except (OSError, EOFError, KeyError, zipfile.BadZipFile) as err:  # an archive cut short or damaged
        raise ValueError(f"{path} is not a readable policy network file: {err!r}") from None


def open_archive(path: pathlib.Path) -> np.lib.npyio.NpzFile:
    """The ``.npz`` archive at ``path``, opened without unpickling; ValueError for anything else."""
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
    return data


def read_archive(data: np.lib.npyio.NpzFile) -> tuple:
    """The arguments of :class:`Network` held by an opened network file: its weights, inputs,
    action blocks, meta and seat order (from the version-2 header, or the version-1 tables)."""
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
    return weights, inputs, actions, meta, seat_order


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
