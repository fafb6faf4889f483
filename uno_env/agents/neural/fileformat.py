"""What a network file says of its network, by name: the observation slices it reads
(:class:`InputSlice`), the blocks of the action table it answers (:class:`ActionBlock`), how it
reads the seats (:data:`SEAT_ORDERS`), and the checks of each (ValueError naming the problem).
The header of format version 2 (:func:`read_header`); version 1 is :mod:`.version1`'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...engine.config import CHOICES, HOUSE_RULE_SETTINGS, SETTINGS
from ...engine.layout import ACTION_OFFSETS, Param
from ...engine.observation import SLICE_NAMES

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
ACTION_BLOCKS: dict[str, int] = dict(ACTION_OFFSETS)
"""Per block name of ``ActionTable.offsets``, the entry of ``P`` that holds its first id (one
per block that ``engine/actions.BLOCKS`` declares). A network file names its blocks; a name
missing here is refused on load and on save."""


RULES_SLICE = "rules"
"""The input slice that is not read from the observation but from the rule settings (a network
that knows the house rules, :mod:`.grow`): one entry per value of a house rule other than its
default, 1 while the acting configuration has it. Its labels name them (:data:`RULE_INPUTS`)."""


def _rule_inputs() -> dict[str, tuple[str, int]]:
    inputs = {}
    for field in SETTINGS:
        if field.name not in HOUSE_RULE_SETTINGS:
            continue
        if field.name in CHOICES:  # a named value: one entry per value but the default (code: its index)
            choices = CHOICES[field.name]
            for code, value in enumerate(choices):
                if value != field.default:
                    inputs[f"{field.name}={value}"] = (field.name, code)
        else:  # a switch, off by default
            inputs[f"{field.name}=true"] = (field.name, 1)
    return inputs


RULE_INPUTS: dict[str, tuple[str, int]] = _rule_inputs()
"""The entries the :data:`RULES_SLICE` may hold, by label (``stacking=mixed``, ``seven_o=true``...,
as ``--set`` writes them): the setting each reads and the code (``RuleConfig.codes()``) that
makes it 1. Derived from the declarations of the house rules, so a new one gains its entries."""

PREFIX_SLICES = ("phase",)
"""Slices a configuration may have shorter than a network reads them, the missing entries being
ones it can never set (the phase slice stops at the last house phase that is on): the network
reads the entries there are, and the others as 0."""


def rule_input_slot(label: str) -> tuple[int, int]:
    """The entry of ``P`` and the code of a :data:`RULES_SLICE` entry (ValueError for a label
    this engine does not know)."""
    if label not in RULE_INPUTS:
        raise ValueError(f"network: rule input {label!r} is unknown to this engine (it knows {', '.join(RULE_INPUTS)})")
    name, code = RULE_INPUTS[label]
    return int(Param[name.upper()]), code


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


def check_inputs(inputs: Sequence[InputSlice], n_inputs: int) -> None:
    """ValueError unless every slice is known to this engine, once, inside the input layer."""
    seen = set()
    for s in inputs:
        if s.name == RULES_SLICE:
            if s.labels is None:
                raise ValueError(f"network: the slice {RULES_SLICE!r} must name its entries")
            for label in s.labels:
                rule_input_slot(label)
        elif s.name not in SLICE_NAMES:
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
    stop = 0
    for b in actions:
        check_block(b, stop)
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


def check_block(block: ActionBlock, first: int) -> None:
    """ValueError unless the block is known to this engine, starts at output ``first`` (where
    the previous one ends) and has a label per action (when it records labels)."""
    known = (PLAY_BLOCK, *ACTION_BLOCKS)
    if block.name not in known:
        raise ValueError(
            f"network: action block {block.name!r} is unknown to this engine (it knows {', '.join(known)})"
        )
    if block.first != first or block.size < 1:
        raise ValueError(
            f"network: the action block {block.name!r} does not follow the previous one (first id {block.first})"
        )
    if block.labels is not None and len(block.labels) != block.size:
        raise ValueError(
            f"network: the action block {block.name!r} has {block.size} actions but {len(block.labels)} labels"
        )


def check_seat_order(seat_order: str, inputs: Sequence[InputSlice]) -> str:
    """``seat_order`` if it is one of :data:`SEAT_ORDERS` that the inputs allow (the order of
    play needs the slices' labels, to find the per-seat ones), else ValueError."""
    if seat_order not in SEAT_ORDERS:
        raise ValueError(f"network: seat order {seat_order!r} is not one of {', '.join(SEAT_ORDERS)}")
    if seat_order == "play" and any(s.labels is None for s in inputs):
        raise ValueError("network: reading the seats in the order of play needs every slice's labels")
    return seat_order


def seat_width(labels: Sequence[str] | None) -> int:
    """Entries per seat of a slice with these labels: those of ``self`` (``self`` or
    ``self:...``), 0 for a slice that is not per seat (or whose labels are not recorded)."""
    return sum(1 for label in labels or () if label == "self" or label.startswith("self:"))


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
