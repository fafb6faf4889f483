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
training script in the tests. The policy that plays it, :func:`policy_logits`, averages it
over the 24 relabellings of the colours (:mod:`.colours`), or asks it once, as it is, for a
network distilled from its own average (``meta["colours"]`` :data:`DISTILLED`:
:meth:`Network.policy_arrays` gives the relabellings each plays by). It is what the Python agent
(``uno_env.agents.make_agent("ppo:weights=...")``) and the compiled policy ``ppo`` (the
shipped weights, :data:`SHIPPED_KINDS`, compiled into the kernels: an opponent inside the
vector env, in tournaments and in search rollouts) play.

Where each part lives (every name is importable from here, as it was when this was one module):

* :mod:`.fileformat`: what a file says of its network by name (slices, action blocks, seat
  order) and the checks of each; :mod:`.version1`: the legacy reader;
* :mod:`.files`: saving, loading and upgrading network files;
* :mod:`.network`: :class:`Network` and its kernel tables, what a configuration offers a
  network, whether it can play there and was trained for it, :func:`transplant`;
* :mod:`.forward_pass`: the compiled forward pass; :mod:`.colours`: the averaging over the colours;
* :mod:`.shipped`: the shipped networks and the compiled policy ``ppo`` (:func:`shipped_policy`).
"""

from __future__ import annotations

from .colours import colour_relabellings, policy_action, policy_logits, policy_logits_batch
from .fileformat import (
    ACTION_BLOCKS,
    ARRAYS,
    FORMAT,
    FORMAT_VERSION,
    PLAY_BLOCK,
    PREFIX_SLICES,
    RULE_INPUTS,
    RULES_SLICE,
    SEAT_ORDERS,
    WEIGHTS,
    ActionBlock,
    InputSlice,
    NetworkArrays,
    check_actions,
    check_block,
    check_inputs,
    check_seat_order,
    labels_of,
    read_header,
    rule_input_slot,
    seat_width,
)
from .files import load_network, open_archive, read_archive, save_layers, save_network, upgrade_network, write_network
from .forward_pass import (
    ACTION_SLOTS,
    block_end,
    forward,
    greedy_action,
    network_logits,
    network_logits_batch,
    output_index,
    read_inputs,
    relabelled_logits,
    slice_stop,
)
from .grow import (
    grow,
    house_table,
    is_rule_aware,
    rule_aware_actions,
    rule_aware_inputs,
    rule_aware_scale,
)
from .network import (
    DISTILLED,
    ONE_PASS,
    ONE_PASS_COLOURS,
    PLAY_IRRELEVANT,
    Network,
    TrainingMismatchWarning,
    action_blocks,
    action_mismatches,
    distilled_meta,
    house_rules_of,
    input_mismatches,
    input_scale,
    input_slices,
    kernel_gather,
    kernel_outputs,
    play_order_index,
    play_order_inputs,
    rule_input_values,
    rule_slices,
    trained_house_rules,
    training_mismatch,
    transplant,
    warn_outside_training,
)
from .shipped import (
    HOUSE_RULES_PLAYED,
    SHIPPED,
    SHIPPED_GAME_NETWORKS,
    SHIPPED_GAME_PATHS,
    SHIPPED_HOUSE_NETWORKS,
    SHIPPED_HOUSE_PATHS,
    SHIPPED_KINDS,
    SHIPPED_NETWORKS,
    SHIPPED_PARTNER_GAME_NETWORKS,
    SHIPPED_PARTNER_GAME_PATHS,
    SHIPPED_PARTNER_NETWORKS,
    SHIPPED_PARTNER_PATHS,
    SHIPPED_PATH,
    SHIPPED_PATHS,
    check_shipped,
    plays_house_network,
    shipped_entry,
    shipped_network,
    shipped_path,
    shipped_policy,
    shipped_table,
)
from .version1 import read_version_1

__all__ = [
    "HOUSE_RULES_PLAYED",
    "ACTION_BLOCKS",
    "ACTION_SLOTS",
    "ARRAYS",
    "DISTILLED",
    "FORMAT",
    "FORMAT_VERSION",
    "ONE_PASS",
    "ONE_PASS_COLOURS",
    "PLAY_BLOCK",
    "PLAY_IRRELEVANT",
    "PREFIX_SLICES",
    "RULES_SLICE",
    "RULE_INPUTS",
    "SEAT_ORDERS",
    "SHIPPED",
    "SHIPPED_GAME_NETWORKS",
    "SHIPPED_GAME_PATHS",
    "SHIPPED_HOUSE_NETWORKS",
    "SHIPPED_HOUSE_PATHS",
    "SHIPPED_KINDS",
    "SHIPPED_NETWORKS",
    "SHIPPED_PARTNER_GAME_NETWORKS",
    "SHIPPED_PARTNER_GAME_PATHS",
    "SHIPPED_PARTNER_NETWORKS",
    "SHIPPED_PARTNER_PATHS",
    "SHIPPED_PATH",
    "SHIPPED_PATHS",
    "WEIGHTS",
    "ActionBlock",
    "InputSlice",
    "Network",
    "NetworkArrays",
    "TrainingMismatchWarning",
    "action_blocks",
    "action_mismatches",
    "block_end",
    "check_actions",
    "check_block",
    "check_inputs",
    "check_seat_order",
    "check_shipped",
    "colour_relabellings",
    "distilled_meta",
    "forward",
    "greedy_action",
    "grow",
    "house_rules_of",
    "house_table",
    "input_mismatches",
    "input_scale",
    "input_slices",
    "is_rule_aware",
    "kernel_gather",
    "kernel_outputs",
    "labels_of",
    "load_network",
    "network_logits",
    "network_logits_batch",
    "open_archive",
    "output_index",
    "play_order_index",
    "plays_house_network",
    "play_order_inputs",
    "rule_input_values",
    "rule_slices",
    "policy_action",
    "policy_logits",
    "policy_logits_batch",
    "read_archive",
    "read_header",
    "read_inputs",
    "read_version_1",
    "relabelled_logits",
    "rule_aware_actions",
    "rule_aware_inputs",
    "rule_aware_scale",
    "rule_input_slot",
    "save_layers",
    "save_network",
    "seat_width",
    "shipped_entry",
    "shipped_network",
    "shipped_path",
    "shipped_policy",
    "shipped_table",
    "slice_stop",
    "trained_house_rules",
    "training_mismatch",
    "transplant",
    "upgrade_network",
    "warn_outside_training",
    "write_network",
]
