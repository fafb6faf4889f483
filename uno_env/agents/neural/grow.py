"""Networks that know the house rules, grown from the shipped ones.

A rule-aware network reads the observation of a table with every house rule on (so every
slice a house rule adds: ``pending_penalty``, ``last_swap``, ``top_card_player``,
``next_turn`` and the house phases) and one more input slice, :data:`RULES_SLICE`, that
says which house rules are on (:data:`RULE_INPUTS`: ``stacking=same``, ``stacking=mixed``,
``seven_o=true``, ...). It answers every action block of that table (``swap`` included). At
a table with fewer house rules on, the slices it lacks read 0 and its shorter phase slice
reads its own phases, so one network plays every combination (:meth:`Network.mismatches`).

:func:`grow` makes one from a shipped network: the weights of what the shipped network read
and answered are copied unchanged (its input scale too), the new inputs start with zero
weights and each new output as a copy of the ``pass`` output, which is what the shipped
network gave those actions. So with every house rule off the grown network computes exactly
the shipped network's logits, and with house rules on it plays exactly as the shipped one
did; training (``uno train --house-mix``) takes it from there."""

from __future__ import annotations

import numpy as np

from ...engine.config import RuleConfig, house_rules_on
from ...engine.game import Game
from .fileformat import RULE_INPUTS, RULES_SLICE, ActionBlock, InputSlice
from .forward_pass import output_index
from .network import ONE_PASS, Network, action_blocks, input_scale, input_slices


def house_table(num_players: int) -> Game:
    """Single hands at ``num_players`` with every house rule on: the observation and action
    table a rule-aware network is laid out on."""
    return Game(RuleConfig.from_kwargs(num_players=num_players, episode="round", **house_rules_on()))


def rule_aware_inputs(table: Game) -> tuple[InputSlice, ...]:
    """The inputs of a rule-aware network at ``table`` (:func:`house_table`): its whole
    observation, then :data:`RULES_SLICE`."""
    slices = input_slices(table)
    return (*slices, InputSlice(RULES_SLICE, table.observation_size, len(RULE_INPUTS), tuple(RULE_INPUTS)))


def rule_aware_scale(table: Game) -> np.ndarray:
    """The input scale of :func:`rule_aware_inputs`: the observation's, then 1 per rule input."""
    return np.concatenate([input_scale(table), np.ones(len(RULE_INPUTS), dtype=np.float32)])


def rule_aware_actions(table: Game) -> tuple[ActionBlock, ...]:
    """The action blocks a rule-aware network answers: those of :func:`house_table`."""
    return action_blocks(table)


def is_rule_aware(network: Network) -> bool:
    """Whether the network reads the rule settings (:data:`RULES_SLICE`)."""
    return any(s.name == RULES_SLICE for s in network.inputs)


def grow(network: Network, num_players: int, meta: dict | None = None) -> Network:
    """A rule-aware network at ``num_players`` that computes exactly ``network``'s logits with
    every house rule off, and plays as it does with them on (see the module's docstring).
    ``network``: a shipped network of that table (ValueError if it cannot play it, or already
    reads the rules)."""
    if is_rule_aware(network):
        raise ValueError("grow: the network already reads the rule settings")
    table = house_table(num_players)
    problems = network.mismatches(Game(RuleConfig(num_players=num_players, episode="round")))
    if problems:
        raise ValueError(f"grow: the network cannot play {num_players} players: {'; '.join(problems)}")
    inputs = rule_aware_inputs(table)
    scale = rule_aware_scale(table)
    w1 = np.zeros((len(scale), network.w1.shape[1]), dtype=np.float32)
    old = {s.name: s for s in network.inputs}
    for s in inputs:
        was = old.get(s.name)
        if was is None:
            continue
        k = min(was.size, s.size)
        if was.labels is not None and s.labels is not None and was.labels[:k] != s.labels[:k]:
            raise ValueError(f"grow: the network's slice {s.name!r} labels its entries otherwise")
        w1[s.offset : s.offset + k] = network.w1[was.offset : was.offset + k]
        scale[s.offset : s.offset + k] = network.scale[was.offset : was.offset + k]
    rows = np.array([output_index(table.params, network.params, a) for a in range(table.num_actions)], np.int64)
    weights = {"w1": w1, "b1": network.b1, "w2": network.w2, "b2": network.b2, "scale": scale}
    weights.update(w3=network.w3[rows], b3=network.b3[rows])
    trained = {k: v for k, v in network.meta.items() if k not in ("colours", "house_rules")}
    grown_meta = {**trained, "colours": ONE_PASS if network.one_pass else network.meta.get("colours"), **(meta or {})}
    grown_meta["grown_from"] = network.meta.get("run") or network.meta.get("distilled", {}).get("teacher", "shipped")
    return Network(weights, inputs, rule_aware_actions(table), grown_meta, network.seat_order)
