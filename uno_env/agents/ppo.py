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
Both play each network as its file says (:attr:`uno_env.agents.neural.Network.one_pass`): a
network distilled from its own average over the colours (the shipped ones, where
``experiments/distill_colours.py`` made one) in one forward pass a decision, any other averaged
over the colours (:func:`uno_env.agents.neural.policy_logits`: the mean of its
log-probabilities under the 24 relabellings of the colours, 24 forward passes), and pick the
legal action of highest score. ``ppo:colours=average`` (or ``all``) averages any network,
``ppo:colours=as_seen`` plays any network alone (:data:`COLOURS`; through the Python agent where
that is not the shipped file's own way). Both refuse a configuration whose observation lacks
what the network reads (:meth:`uno_env.agents.neural.Network.mismatches` says what). At
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
    """A policy network from a weights file, played greedily over the legal actions: in one
    pass or averaged over the colours, as its file says or ``colours`` forces (:data:`COLOURS`)."""

    name = "ppo"

    def __init__(
        self,
        rules: RuleConfig | Game | None = None,
        seed: int = 0,
        weights: str | None = None,
        colours: str | None = None,
    ):
        if not weights:
            raise ValueError("NetworkAgent needs weights=PATH (a .npz written by uno_env.agents.neural.save_network)")
        self.colours = check_colours(colours)
        self.network = neural.load_network(weights)
        self.weights = str(weights)
        self.arrays = self.network.policy_arrays(one_pass_of(self.colours))
        super().__init__(rules, seed)
        problems = self.network.mismatches(self.game)
        if problems:
            raise ValueError(f"ppo: the network {weights} cannot play this configuration: {'; '.join(problems)}")
        self.notice = warn_outside_training(f"ppo:weights={weights}", self.network, self.game, stacklevel=4)

    @property
    def one_pass(self) -> bool:
        """Whether it plays the network alone (one forward pass a decision)."""
        return len(self.arrays[-1]) == 1

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        return self.answer(neural.policy_action(obs, legal, self.params, *self.arrays), legal)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, legal = self.check_batch(observations, masks)
        logits = np.empty(legal.shape, dtype=np.float32)
        neural.policy_logits_batch(obs, legal, self.params, *self.arrays, logits)
        return np.argmax(logits, axis=1).astype(np.int64)  # illegal actions' logits are -inf


def action_probabilities(
    game: Game, observation, mask, network: neural.Network | None = None, top: int = 5, colours: str | None = None
) -> dict:
    """The probabilities of the legal actions in the policy ``ppo`` plays (the softmax of
    :func:`uno_env.agents.neural.policy_logits`: the network in one pass or averaged over the
    colours, as its file says or ``colours`` forces), the ``top`` largest by action text: an
    annotation for game records (``Recorder.add``). ``network``: a loaded network (default the
    one ``ppo`` plays at this table). The agents play the most probable action."""
    one_pass = one_pass_of(check_colours(colours))
    network = network if network is not None else neural.shipped_network(game)[1]
    obs = np.ascontiguousarray(observation, dtype=np.float32)
    legal = np.ascontiguousarray(mask, dtype=np.int8)
    if obs.shape != (game.observation_size,) or legal.shape != (game.num_actions,) or not legal.any():
        raise ValueError(
            f"expected an observation of shape ({game.observation_size},) and a mask of shape "
            f"({game.num_actions},) with a legal action, got {obs.shape} and {legal.shape}"
        )
    logits = np.empty(game.num_actions, dtype=np.float32)
    neural.policy_logits(obs, legal, game.params, *network.policy_arrays(one_pass), logits)
    legal_ids = np.flatnonzero(legal)
    z = logits[legal_ids].astype(np.float64)
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")[:top]
    return {"probabilities": {game.actions.strings[int(legal_ids[k])]: round(float(p[k]), 4) for k in order}}


COLOURS = ("average", "as_seen")
"""The ``colours`` option of ``ppo`` (left out: the network file's own way, one pass for a network
distilled from its own average over the colours, the average for any other): ``average``, the
network averaged over the 24 namings of the colours (24 forward passes a decision; ``all`` is
the same); ``as_seen``, the network alone (one forward pass)."""
COLOUR_ALIASES = {"all": "average"}
"""Older names of the :data:`COLOURS` options."""


def check_colours(colours) -> str | None:
    """``colours`` by its name in :data:`COLOURS` (None: the file's own way); ValueError naming a bad value."""
    if colours is None:
        return None
    named = COLOUR_ALIASES.get(colours, colours) if isinstance(colours, str) else colours
    if named not in COLOURS:
        raise ValueError(
            f"ppo: colours={colours!r}: expected one of {', '.join(COLOURS)} ('all' is 'average'), "
            "or leave it out to play the network as its file says"
        )
    return named


def one_pass_of(colours: str | None) -> bool | None:
    """:meth:`uno_env.agents.neural.Network.policy_arrays`'s ``one_pass`` for a checked ``colours``."""
    return None if colours is None else colours == "as_seen"


def make_ppo(
    rules: RuleConfig | Game | None = None, seed: int = 0, weights: str | None = None, colours: str | None = None
) -> Agent:
    """The shipped policy of the table (compiled) without ``weights``, also with a ``colours``
    that is its file's own way; a :class:`NetworkAgent` with them, or with the other ``colours``
    (the table's shipped network played the other way)."""
    colours = check_colours(colours)
    if not weights and colours is not None:
        rules = as_game(rules)
        if neural.shipped_network(rules)[1].one_pass != (colours == "as_seen"):
            weights = str(neural.shipped_path(rules))
    if weights:
        return NetworkAgent(rules, seed, weights=weights, colours=colours)
    agent = CompiledAgent("ppo", rules, seed)
    agent.notice = neural.check_shipped(agent.game)
    return agent
