"""One table as a network of another layout sees it (:class:`TableView`): the table's
observations mapped into the network's inputs, its legal actions into the network's outputs,
and the network's choice back into the table's action. A network that knows the house rules
(:func:`uno_env.agents.neural.grow`) is trained through one view per setting
(:mod:`uno_env.training.house`)."""

from __future__ import annotations

import numpy as np

from uno_env.agents import neural
from uno_env.engine import Game
from uno_env.training.network import InputLayout


class TableView:
    """One table as a network of :class:`InputLayout` sees it: ``inputs`` maps its observations
    into the network's inputs, ``outputs`` its masks into the network's outputs, ``actions`` the
    network's outputs back into its action ids."""

    def __init__(self, game: Game, layout: InputLayout):
        problems = neural.input_mismatches(layout.inputs, game) + neural.action_mismatches(layout.actions, game)
        if problems:
            raise ValueError(f"the network cannot play {game.config.in_words()}: {'; '.join(problems)}")
        self.size = layout.size
        self.source = np.full(layout.size, -1, dtype=np.int64)
        self.rules = np.zeros(layout.size, dtype=np.float32)
        for s in layout.inputs:
            if s.name == neural.RULES_SLICE:
                self.rules[s.offset : s.offset + s.size] = neural.rule_input_values(s.labels or (), game.config)
                continue
            have = game.obs_spec.by_name.get(s.name)
            if have is not None:
                k = min(s.size, have.size)
                self.source[s.offset : s.offset + k] = have.offset + np.arange(k)
        self.read = np.flatnonzero(self.source >= 0)
        blocks = {b.name: b for b in layout.actions}
        self.output = np.empty(game.num_actions, dtype=np.int64)
        for b in neural.action_blocks(game):
            if b.name not in blocks or b.size > blocks[b.name].size:
                raise ValueError(f"the network has no output for the action block {b.name!r}")
            self.output[b.first : b.first + b.size] = blocks[b.name].first + np.arange(b.size)
        self.num_outputs = layout.num_actions
        self.action_of = np.full(layout.num_actions, -1, dtype=np.int64)
        self.action_of[self.output] = np.arange(game.num_actions)

    def inputs(self, obs: np.ndarray) -> np.ndarray:
        """Observations (rows) as the network's inputs, the rule inputs included."""
        out = np.zeros((len(obs), self.size), dtype=np.float32)
        out[:, self.read] = obs[:, self.source[self.read]]
        return out + self.rules

    def outputs(self, mask: np.ndarray) -> np.ndarray:
        """Legal-action masks (rows) over the network's outputs."""
        out = np.zeros((len(mask), self.num_outputs), dtype=bool)
        out[:, self.output] = mask.astype(bool)
        return out

    def actions(self, outputs: np.ndarray) -> np.ndarray:
        """The table's action of each chosen output (a legal one, so always an action of the table)."""
        return self.action_of[outputs]
