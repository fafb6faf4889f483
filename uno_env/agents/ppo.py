"""``ppo``: a trained policy network, played by its numpy/numba forward pass (no torch).

``make_agent("ppo", config)`` is the shipped policy of the table (:data:`uno_env.agents.neural.SHIPPED_PATHS`:
one network of hands per number of players trained for, :data:`uno_env.agents.neural.SHIPPED_PARTNER_PATHS`
for partner tables trained as a team, :data:`uno_env.agents.neural.SHIPPED_GAME_PATHS` and
:data:`uno_env.agents.neural.SHIPPED_PARTNER_GAME_PATHS` for whole games, trained on each hand's
points margin; a table without its own plays the hands network of the largest table below
it, :func:`uno_env.agents.neural.shipped_network`, and warns), a compiled policy like the
heuristics (tournaments play it inside one compiled call).
``make_agent("ppo:weights=runs/NAME/policy.npz")`` plays any network written by the
training scripts (:func:`uno_env.agents.neural.save_network`), one numba call per decision.
Both play the network averaged over the colours (:func:`uno_env.agents.neural.policy_logits`:
the mean of its log-probabilities under the 24 relabellings of the colours), pick the legal
action of highest mean (``ppo:colours=as_seen``: the network alone, one forward pass a
decision, through the Python agent), and refuse a configuration whose observation
lacks what the network reads (:meth:`uno_env.agents.neural.Network.mismatches` says what). At
tables other than those the network was trained for (its file's ``meta["config"]``: the
shipped ones, single hands) it still plays, and warns once per process
(:class:`TrainingMismatchWarning`) naming what it was trained on.
"""

from __future__ import annotations

import numpy as np

from uno_env.engine import Game, RuleConfig

from . import neural
from .base import Agent, CompiledAgent, as_game

TrainingMismatchWarning = (
    neural.TrainingMismatchWarning
)  # its home is uno_env.agents.neural, beside the shipped networks
warn_outside_training = neural.warn_outside_training


class NetworkAgent(Agent):
    """A policy network from a weights file, averaged over the colours and played greedily
    over the legal actions."""

    name = "ppo"

    def __init__(
        self, rules: RuleConfig | Game | None = None, seed: int = 0, weights: str | None = None, colours: str = "all"
    ):
        if not weights:
            raise ValueError("NetworkAgent needs weights=PATH (a .npz written by uno_env.agents.neural.save_network)")
        check_colours(colours)
        self.network = neural.load_network(weights)
        self.weights = str(weights)
        self.colours = colours
        relabellings = len(self.network.recolour_in) if colours == "all" else 1  # the first: the identity
        self.arrays = (
            *self.network.arrays(),
            self.network.recolour_in[:relabellings],
            self.network.recolour_out[:relabellings],
        )
        super().__init__(rules, seed)
        problems = self.network.mismatches(self.game)
        if problems:
            raise ValueError(f"ppo: the network {weights} cannot play this configuration: {'; '.join(problems)}")
        self.notice = warn_outside_training(f"ppo:weights={weights}", self.network, self.game, stacklevel=4)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        return self.answer(neural.policy_action(obs, legal, self.params, *self.arrays), legal)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, legal = self.check_batch(observations, masks)
        logits = np.empty(legal.shape, dtype=np.float32)
        neural.policy_logits_batch(obs, legal, self.params, *self.arrays, logits)
        return np.argmax(logits, axis=1).astype(np.int64)  # illegal actions' logits are -inf


def action_probabilities(game: Game, observation, mask, network: neural.Network | None = None, top: int = 5) -> dict:
    """The policy's probabilities of the legal actions (the softmax of :func:`uno_env.agents.neural.policy_logits`), the
    ``top`` largest by action text: an annotation for game records (``Recorder.add``).
    ``network``: a loaded network (default the one ``ppo`` plays at this table). The agents play the
    most probable action."""
    network = network if network is not None else neural.shipped_network(game)[1]
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    legal = np.ascontiguousarray(mask, dtype=np.int8)
    if obs.shape != (game.observation_size,) or legal.shape != (game.num_actions,) or not legal.any():
        raise ValueError(
            f"expected an observation of shape ({game.observation_size},) and a mask of shape "
            f"({game.num_actions},) with a legal action, got {obs.shape} and {legal.shape}"
        )
    logits = np.empty(game.num_actions, dtype=np.float32)
    neural.policy_logits(obs, legal, game.params, *network.policy_arrays(), logits)
    legal_ids = np.flatnonzero(legal)
    z = logits[legal_ids].astype(np.float64)
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")[:top]
    return {"probabilities": {game.actions.strings[int(legal_ids[k])]: round(float(p[k]), 4) for k in order}}


COLOURS = ("all", "as_seen")
"""The ``colours`` option of ``ppo``: ``all``, the network averaged over the 24 namings of the
colours (the default); ``as_seen``, the network alone (one forward pass a decision)."""


def check_colours(colours) -> None:
    if colours not in COLOURS:
        raise ValueError(f"ppo: colours={colours!r}: expected one of {', '.join(COLOURS)}")


def make_ppo(
    rules: RuleConfig | Game | None = None, seed: int = 0, weights: str | None = None, colours: str = "all"
) -> Agent:
    """The shipped policy of the table (compiled) without ``weights``; a :class:`NetworkAgent` with
    them, or with ``colours="as_seen"`` (the table's shipped network alone)."""
    check_colours(colours)
    if colours == "as_seen" and not weights:
        rules = as_game(rules)
        weights = str(neural.shipped_path(rules))
    if weights:
        return NetworkAgent(rules, seed, weights=weights, colours=colours)
    agent = CompiledAgent("ppo", rules, seed)
    agent.notice = neural.check_shipped(agent.game)
    return agent
