"""The networks of ``uno train``: the actor and critic (:class:`ActorCritic`), what a
privileged critic reads beside the observation (:class:`HiddenHands`), and a start from
another run's checkpoint or a policy network file (:func:`init_from`).

The actor's layers are exactly those of a :mod:`uno_env.agents.neural` network file:
:meth:`ActorCritic.export` writes one, which ``make_agent("ppo:weights=...")`` plays
without torch."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from uno_env.agents import neural
from uno_env.engine import Game


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.zeros_(linear.bias)
    return linear


class ActorCritic(nn.Module):
    """Actor and critic, two ReLU hidden layers each, over the scaled observation; with
    ``privileged`` the critic also reads :class:`HiddenHands`; with ``guess`` a head on the
    actor's last hidden layer guesses the colours of the other hands (:meth:`guess_loss`);
    ``seat_order`` (:data:`uno_env.agents.neural.SEAT_ORDERS`): how both read the observation's per-seat
    slices (the :class:`HiddenHands` rows and the guess labels stay clockwise).
    The actor's layers are exactly what :func:`uno_env.agents.neural.save_network` exports."""

    scale: torch.Tensor  # buffers (register_buffer), not parameters
    hidden_scale: torch.Tensor
    hand_colours: torch.Tensor
    play_index: torch.Tensor

    def __init__(
        self,
        game: Game,
        hidden: int,
        privileged: bool = False,
        guess: bool = False,
        seat_order: str = "clockwise",
        layout: InputLayout | None = None,
    ):
        super().__init__()
        self.hidden = hidden
        self.layout = layout or InputLayout.of_game(game)
        if layout is not None and (privileged or guess):
            raise ValueError("a network that reads the rules has no privileged critic and no guess head")
        self.seat_order = neural.check_seat_order(seat_order, self.layout.inputs)
        self.register_buffer("scale", torch.as_tensor(self.layout.scale))
        play = self.layout.play_order_index(game.num_players) if seat_order == "play" else np.zeros(0, np.int64)
        self.register_buffer("play_index", torch.as_tensor(play), persistent=False)
        self.direction_at = next(s.offset for s in self.layout.inputs if s.name == "direction")
        hands = HiddenHands(game) if privileged else None
        self.register_buffer("hidden_scale", torch.as_tensor(hands.scale if hands else np.zeros(0, np.float32)))
        size, actions = self.layout.size, self.layout.num_actions
        self.actor = nn.Sequential(
            layer(size, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU(), layer(hidden, actions, 0.01)
        )
        critic_size = size + len(self.hidden_scale)
        self.critic = nn.Sequential(
            layer(critic_size, hidden), nn.ReLU(), layer(hidden, hidden), nn.ReLU(), layer(hidden, 1, 1)
        )
        self.others = game.num_players - 1
        self.guess = layer(hidden, self.others * 4, 0.01) if guess else None
        # not in the state dict: checkpoints of networks without the head load as before
        self.register_buffer("hand_colours", torch.as_tensor(HiddenHands(game).colours), persistent=False)

    def guess_loss(self, obs: torch.Tensor, hands: torch.Tensor) -> torch.Tensor:
        """Binary cross-entropy of the guess head, per other seat and colour, against whether
        that seat holds a card of that colour (``hands``: :class:`HiddenHands` rows)."""
        if self.guess is None:
            raise ValueError("this network has no guess head (hand_guess=0)")
        features = self.actor[:4](self.inputs(obs))
        logits = self.guess(features).view(len(obs), self.others, 4)
        held = hands.view(len(obs), self.others, -1) @ self.hand_colours
        return nn.functional.binary_cross_entropy_with_logits(logits, (held > 0).float())

    def inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """The observation as the networks read it: in the seat order, scaled."""
        if len(self.play_index):
            mirrored = obs[:, self.direction_at : self.direction_at + 1] < 0
            obs = torch.where(mirrored, obs[:, self.play_index], obs)
        return obs * self.scale

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(self.inputs(obs)).masked_fill(~mask, -1e8)

    def value(self, obs: torch.Tensor, hidden: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's value; ``hidden``: the :class:`HiddenHands` rows of a privileged critic."""
        inputs = self.inputs(obs)
        if len(self.hidden_scale):
            if hidden is None:
                raise ValueError("a privileged critic reads the other seats' hands: pass hidden")
            inputs = torch.cat([inputs, hidden * self.hidden_scale], dim=1)
        return self.critic(inputs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, hidden: torch.Tensor | None = None):
        """Sampled actions, their log-probabilities and the values."""
        dist = torch.distributions.Categorical(logits=self.masked_logits(obs, mask), validate_args=False)
        action = dist.sample()
        return action, dist.log_prob(action), self.value(obs, hidden)

    def sample(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Sampled actions only (Gumbel-max over the masked logits; no critic): opponents."""
        logits = self.masked_logits(obs, mask)
        noise = torch.rand_like(logits).clamp_(min=1e-20)
        return (logits - torch.log(-torch.log(noise))).argmax(dim=1)

    def evaluate(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor, hidden=None):
        """Log-probabilities of ``action``, entropies and values (for the update)."""
        dist = torch.distributions.Categorical(logits=self.masked_logits(obs, mask), validate_args=False)
        return dist.log_prob(action), dist.entropy(), self.value(obs, hidden)

    def linears(self) -> list[nn.Linear]:
        """The actor's three layers."""
        return [m for m in self.actor if isinstance(m, nn.Linear)]

    def export(self, path, game: Game, meta: dict | None = None) -> neural.Network:
        """Write the actor as a numpy network file (:func:`uno_env.agents.neural.save_network`;
        over its :class:`InputLayout`, :func:`uno_env.agents.neural.save_layers`)."""
        linears = [m for m in self.actor if isinstance(m, nn.Linear)]
        layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
        if self.layout.game_layout:
            return neural.save_network(path, layers, game, meta, self.seat_order)
        meta = {"config": game.config.to_dict(), **(meta or {})}
        layout = self.layout
        return neural.save_layers(path, layers, layout.inputs, layout.actions, layout.scale, meta, self.seat_order)


@dataclass(frozen=True)
class InputLayout:
    """What the networks read and answer: input slices (by name, :class:`uno_env.agents.neural.InputSlice`)
    with their scale, and action blocks. ``game_layout``: a game's whole observation and action
    table (:meth:`of_game`); otherwise the layout of a network that knows the house rules
    (:meth:`rule_aware`), whose inputs each table's observation is mapped into
    (:class:`uno_env.training.table_view.TableView`)."""

    inputs: tuple[neural.InputSlice, ...]
    actions: tuple[neural.ActionBlock, ...]
    scale: np.ndarray
    game_layout: bool = True

    @property
    def size(self) -> int:
        return len(self.scale)

    @property
    def num_actions(self) -> int:
        return sum(b.size for b in self.actions)

    @classmethod
    def of_game(cls, game: Game) -> InputLayout:
        return cls(neural.input_slices(game), neural.action_blocks(game), neural.input_scale(game))

    @classmethod
    def rule_aware(cls, num_players: int) -> InputLayout:
        """The layout of :func:`uno_env.agents.neural.grow` at ``num_players``."""
        table = neural.house_table(num_players)
        inputs, actions = neural.rule_aware_inputs(table), neural.rule_aware_actions(table)
        return cls(inputs, actions, neural.rule_aware_scale(table), game_layout=False)

    def play_order_index(self, num_players: int) -> np.ndarray:
        """Per input, the input read there in the order of play when play runs counter-clockwise."""
        return neural.play_order_inputs(self.inputs, self.size, num_players)


class HiddenHands:
    """What a privileged critic reads beside the observation: the hand of every other seat
    (copies of each card face, the ``hand`` slice of that seat's own observation), seats in
    the observer's order (seat+1 first). Read from the true state while training; the
    actor never sees it."""

    def __init__(self, game: Game):
        self.game = game
        self.hand = game.obs_spec.by_name["hand"]
        self.size = (game.num_players - 1) * self.hand.size
        colours = game.obs_spec.by_name["colour"].labels  # R, Y, G, B
        self.colours = np.zeros((self.hand.size, len(colours)), dtype=np.float32)  # face -> colour (wilds: none)
        for face, label in enumerate(self.hand.labels):
            if label[0] in colours:
                self.colours[face, colours.index(label[0])] = 1.0
        self.scale = np.tile(1.0 / np.maximum(self.hand.high, 1.0), game.num_players - 1).astype(np.float32)
        self._obs = np.zeros(game.observation_size, dtype=np.float32)

    def __call__(self, state, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Rows for the observer ``seats[i]`` of game ``games[i]`` of the batch ``state``."""
        n, size = self.game.num_players, self.hand.size
        out = np.zeros((len(games), self.size), dtype=np.float32)
        for i, (g, seat) in enumerate(zip(games.tolist(), seats.tolist())):
            for k in range(1, n):
                self.game.observe(state, (seat + k) % n, g, out=self._obs)
                out[i, (k - 1) * size : k * size] = self._obs[self.hand.offset : self.hand.stop]
        return out


# ---------------------------------------------------------------------------- a start from another run
def init_from(agent: ActorCritic, path: str, game: Game, device) -> None:
    """Start ``agent`` from a checkpoint (both networks) or a network file (the actor,
    :func:`uno_env.agents.neural.transplant` to this game; the critic keeps its initialisation)."""
    if not path.endswith(".npz"):
        state = torch.load(path, map_location=device, weights_only=False)["agent"]
        missing, unexpected = agent.load_state_dict(state, strict=False)
        if unexpected or any(not key.startswith("guess.") for key in missing):  # a new guess head may start
            raise RuntimeError(f"--init-from {path}: missing {missing}, unexpected {unexpected}")
        return
    layers = neural.transplant(neural.load_network(path), game)
    linears = [m for m in agent.actor if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for linear, (weight, bias) in zip(linears, layers):
            linear.weight.copy_(torch.as_tensor(weight))
            linear.bias.copy_(torch.as_tensor(bias))


def check_init_from(path: str, game: Game, hidden: int, seat_order: str) -> None:
    """Refuse a start (``--init-from``) that cannot become this run's networks: a network file
    of other hidden sizes or that cannot play this table, a missing checkpoint, or either
    reading the seats in another order (ValueError naming the file)."""
    if path.endswith(".npz"):
        network = neural.load_network(path)  # ValueError naming the file's problem
        if network.w1.shape[1] != hidden or network.w2.shape[1] != hidden:
            raise ValueError(
                f"--init-from {path}: its hidden layers have {network.w1.shape[1]} and "
                f"{network.w2.shape[1]} units, --hidden is {hidden}"
            )
        problems = network.mismatches(game)
        if problems:
            raise ValueError(f"--init-from {path} cannot play this table: {'; '.join(problems)}")
        order = network.seat_order
    else:
        if not pathlib.Path(path).is_file():
            raise ValueError(f"--init-from {path}: no such checkpoint")
        saved = torch.load(path, map_location="cpu", weights_only=False)
        order = saved.get("args", {}).get("seat_order", "clockwise")
    if order != seat_order:
        raise ValueError(f"--init-from {path} reads the seats in {order} order, --seat-order is {seat_order}")
