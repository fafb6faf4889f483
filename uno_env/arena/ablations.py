"""The ablations of ``notebooks/strategy_ladder.ipynb``: ``tactical`` with one decision rule
changed (:class:`TacticalVariant`, the agent ``tactical_variant``, registered on import), and
the variants the notebook plays (:data:`ABLATIONS`)."""

from __future__ import annotations

import numpy as np

from uno_env.agents import Agent, agent_names, register_agent
from uno_env.agents import policies as policy_kernels
from uno_env.engine import readers as R
from uno_env.engine.game import seed_to_rng
from uno_env.engine.layout import (
    O_COLOUR,
    P_A_ACCEPT,
    P_A_CHALLENGE,
    P_A_COLOR,
    P_A_DRAW,
    P_A_PASS,
    P_A_UNO,
    P_A_W,
    P_A_W4,
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
)


class TacticalVariant(Agent):
    """``tactical`` with one decision rule changed (the ablations of
    ``notebooks/strategy_ladder.ipynb``). Options (``tactical_variant:key=value``):

    * ``threshold`` (default 1/3, tactical's) and ``prior`` (default 0.4): challenge a
      Wild Draw Four when :func:`uno_env.agents.policies.bluff_probability` with this prior
      exceeds the threshold; ``threshold=1`` never challenges, ``threshold=-1`` always.
    * ``uno=false``: never call UNO (the card tactical plays is the same).
    * ``catch=false``: never catch an exposed player.
    * ``colour=random``: a wild (and a starting Wild) names a colour at random;
      ``colour=first``: always red.
    * ``bluff=false``: never play a Wild Draw Four while holding the current colour.

    Every other decision is tactical's own (``uno_env.agents.policies.tactical_policy``)."""

    name = "tactical_variant"

    def __init__(
        self,
        rules=None,
        seed: int = 0,
        threshold: float | None = None,
        prior: float | None = None,
        uno: bool = True,
        catch: bool = True,
        colour: str = "tactical",
        bluff: bool = True,
    ):
        if colour not in ("tactical", "random", "first"):
            raise ValueError(f"tactical_variant: colour must be tactical, random or first, got {colour!r}")
        for key, value in (("uno", uno), ("catch", catch), ("bluff", bluff)):
            if not isinstance(value, bool):
                raise ValueError(f"tactical_variant: {key} must be true or false, got {value!r}")
        self.threshold = float(
            policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_BREAK_EVEN] if threshold is None else threshold
        )
        self.prior = float(policy_kernels.TACTICAL_WEIGHTS[policy_kernels.WEIGHT_PRIOR] if prior is None else prior)
        self.uno, self.catch, self.colour, self.bluff = uno, catch, colour, bluff
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.rng = np.random.default_rng(self.seed)
        self.prng = np.array([seed_to_rng(self.seed)], dtype=np.uint64)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        own = self.own_decision(obs)
        if own is not None:
            return own
        action = int(
            policy_kernels.policy_act(policy_kernels.TACTICAL, obs, self.allowed(obs, legal), self.params, self.prng, 0)
        )
        return self.recoloured(action)

    def own_decision(self, obs: np.ndarray) -> int | None:
        """The decisions the variant takes itself (None: tactical decides): a challenge by its
        threshold, no catching (``catch=false``), a colour decision (``colour=random`` or ``first``)."""
        P = self.params
        phase = R.obs_phase(obs, P)
        if phase == PH_CHALLENGE:
            challenge = policy_kernels.bluff_probability(obs, P, self.prior) > self.threshold
            return int(P[P_A_CHALLENGE] if challenge else P[P_A_ACCEPT])
        if phase == PH_CATCH and not self.catch:
            return int(P[P_A_PASS])
        if phase == PH_COLOR and self.colour != "tactical":
            return int(P[P_A_COLOR] + (self.rng.integers(4) if self.colour == "random" else 0))
        return None

    def allowed(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The legal actions tactical chooses from: without the UNO call (``uno=false``) and
        without a Wild Draw Four while holding the current colour (``bluff=false``)."""
        P = self.params
        if not self.uno and P[P_A_UNO] >= 0 and legal[P[P_A_UNO]]:
            legal = legal.copy()
            legal[P[P_A_UNO]] = 0
        bluffing = legal[P[P_A_W4] : P[P_A_W4] + 4].any() and R.holds_colour(obs, P, R.obs_colour(obs, P, O_COLOUR))
        if not self.bluff and bluffing:
            legal = legal.copy()
            legal[P[P_A_W4] : P[P_A_W4] + 4] = 0
        return legal

    def recoloured(self, action: int) -> int:
        """A wild of tactical's naming the variant's colour instead (``colour=random`` or ``first``)."""
        P = self.params
        if self.colour != "tactical" and P[P_A_W] <= action < P[P_A_DRAW]:
            face = policy_kernels.action_face(P, action)
            colour = self.rng.integers(4) if self.colour == "random" else 0
            action = int(policy_kernels.wild_action(P, face, colour))
        return action


if "tactical_variant" not in agent_names():
    register_agent("tactical_variant", TacticalVariant)

ABLATIONS = {
    "never challenges": "tactical_variant:threshold=1",
    "always challenges": "tactical_variant:threshold=-1",
    "never calls UNO": "tactical_variant:uno=false",
    "never catches": "tactical_variant:catch=false",
    "random wild colour": "tactical_variant:colour=random",
    "wilds name red": "tactical_variant:colour=first",
    "never bluffs": "tactical_variant:bluff=false",
}
"""One decision rule of ``tactical`` changed at a time: label -> agent spec."""
