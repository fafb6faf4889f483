"""The policy averaged over the colours. The rules treat the four colours alike (R-DECK-1),
so the policy asks the network about the position under each of the 24 relabellings of the
colours (:data:`uno_env.engine.cards.COLOUR_PERMUTATIONS`; the tables of
:func:`colour_relabellings`, rebuilt on load from the slices' and blocks' names) and scores
each legal action by the mean of its log-probabilities there (:func:`policy_logits`). The
policy is then exactly the same in every relabelling of a position, which the network alone
is only approximately; it won 0.5-4 points more of its hands than the network alone
(experiments/history/training.md, "Averaging over the colours")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...engine.actions import recolour_block
from ...engine.cards import COLOUR_PERMUTATIONS
from ...engine.jit import allocating, describe
from ...engine.observation import recolour_entries
from .fileformat import ActionBlock, InputSlice
from .forward_pass import forward, greedy_action

describe(__name__, "the policy network's forward pass", seconds=10)


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
def policy_logits_batch(obs, mask, P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out, logits):
    """:func:`policy_logits` for every row of a batch."""
    for b in range(obs.shape[0]):
        policy_logits(
            obs[b], mask[b], P, w1, b1, w2, b2, w3, b3, scale, gather, PT, recolour_in, recolour_out, logits[b]
        )
