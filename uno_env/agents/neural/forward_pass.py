"""The compiled forward pass of a policy network: which output each action of the acting
configuration takes (:func:`output_index`), the network's inputs read from the observation
(:func:`read_inputs`) and its logits, in any colour relabellings (:func:`forward`) or as
trained (:func:`network_logits`). The averaging over the colours is :mod:`.colours`'."""

from __future__ import annotations

import numpy as np

from ...engine.jit import allocating, describe, kernel
from ...engine.layout import (
    NUM_PARAMS,
    P_A_FT,
    P_A_PASS,
    P_A_W,
    P_NUM_ACTIONS,
    P_NUM_PLAYERS,
    P_O_FIRST,
    P_O_SIZE,
    Param,
)
from ...engine.observation import SLICE_NAMES

describe(__name__, "the policy network's forward pass", seconds=10)

_O_DIRECTION = P_O_FIRST + SLICE_NAMES.index("direction")  # the entry of P with the direction's offset

ACTION_SLOTS = tuple(int(member) for member in Param if member.name.startswith("A_"))
"""Every entry of ``P`` that starts an action block (the ``A_*`` members of ``Param``):
:func:`output_index` finds the acting action's block among them, so a kind
added to the engine and to ``Param`` is found (and falls back to ``pass``) even before a
network knows it."""


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
def slice_stop(P, source):
    """Where the observation slice that starts at ``source`` ends in the acting configuration:
    at the next offset of a slice it has, or at the end of the observation."""
    stop = P[P_O_SIZE]
    for k in range(P_O_FIRST, NUM_PARAMS):
        if source < P[k] < stop:
            stop = P[k]
    return stop


@kernel
def read_inputs(obs, P, gather, inputs, values):
    """The network's non-zero inputs: their indices into ``inputs``, their values into
    ``values`` (unscaled); returns how many. A slice the network may read longer than the
    acting configuration has it (``gather[s, 3] < 0``, the phase slice of a network that knows
    the house rules) is read up to its end there; a row of the rule settings
    (``gather[s, 0] < 0``) gives 1 while its setting has its code."""
    n = P[P_NUM_PLAYERS]
    mirrored = obs[P[_O_DIRECTION]] < 0  # read in the order of play: counter-clockwise seats mirrored
    count = 0
    for s in range(gather.shape[0]):
        slot = gather[s, 0]
        if slot < 0:  # a rule setting
            if P[-1 - slot] == gather[s, 3]:
                inputs[count] = gather[s, 1]
                values[count] = 1.0
                count += 1
            continue
        source = P[slot]
        if source < 0:
            continue
        start = gather[s, 1]
        width = gather[s, 3]
        size = gather[s, 2]
        if width < 0:
            size = min(size, slice_stop(P, source) - source)
            width = 0
        for k in range(size):
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
    ``h1`` and ``h2``: scratch hidden layers, a row per relabelling."""
    relabellings = recolour_in.shape[0]
    first_layer(inputs, values, count, w1, b1, scale, recolour_in, h1)
    second_layer(relabellings, h1, w2, b2, h2)
    output_layer(relabellings, mask, P, PT, w3, b3, recolour_out, h2, raw)


@kernel(forceinline=True)
def first_layer(inputs, values, count, w1, b1, scale, recolour_in, h1):
    """``h1[g]``: the first hidden layer before its ReLU in relabelling g, from the non-zero
    inputs (``count`` of them, ``values`` at ``inputs``), each scaled and read relabelled."""
    for g in range(recolour_in.shape[0]):
        for u in range(h1.shape[1]):
            h1[g, u] = b1[u]
        for t in range(count):
            j = recolour_in[g, inputs[t]]
            x = values[t] * scale[j]
            for u in range(h1.shape[1]):
                h1[g, u] += x * w1[j, u]


@kernel(forceinline=True)
def second_layer(relabellings, h1, w2, b2, h2):
    """``h2[g]``: the second hidden layer after its ReLU, from the active units of ``h1[g]``.
    The relabellings share each row of ``w2`` as it is read; inactive units are skipped."""
    for g in range(relabellings):
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


@kernel(forceinline=True)
def output_layer(relabellings, mask, P, PT, w3, b3, recolour_out, h2, raw):
    """``raw[g, a]``: the logit of each legal action a in relabelling g, from the output
    :func:`output_index` maps it to, relabelled by ``recolour_out[g]``."""
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
def network_logits_batch(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits):
    """:func:`network_logits` for every row of a batch."""
    for b in range(obs.shape[0]):
        network_logits(obs[b], mask[b], P, w1, b1, w2, b2, w3, b3, scale, gather, PT, logits[b])


@kernel
def greedy_action(logits, mask):
    """The legal action of highest logit (the lowest id on ties)."""
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    return best
