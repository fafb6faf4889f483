"""UNO: the PettingZoo AEC environment (``uno_v1``).

UNO with the full official rules (``docs/RULES.md``) for 2 to 10 players, over
whole games of several rounds. Every decision of the rules is an agent's
action: which card to play and the colour a wild names, whether to draw, to
play or keep the drawn card, to call UNO, to challenge a Wild Draw Four, to
catch a player who forgot to call UNO, and the colour of a starting Wild.
To learn, play single hands: ``uno_env.env(episode="round", max_steps=2_000)`` (under
random play a whole game takes thousands of decisions, and at two players half the
games reach the default ``max_steps``; why, and the lines each RL library needs:
``docs/RL_LIBRARIES.md``).

>>> import uno_env
>>> env = uno_env.env(num_players=4, render_mode="ansi")
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     if termination or truncation:
...         action = None
...     else:
...         action = env.action_space(agent).sample(observation["action_mask"])
...     env.step(action)

| | |
|---|---|
| Import | ``import uno_env; uno_env.env(...)``, or ``pettingzoo.make("aec", "uno/uno_v1", ...)`` (PettingZoo 1.27+) |
| Agents | ``player_0`` ... ``player_{n-1}`` (seats 0..n-1, clockwise) |
| Actions | ``Discrete(num_actions)``: the table below (70 by default) |
| Observations | ``{"observation": Box(float32), "action_mask": Box(0, 1, int8)}`` |
| Rewards | ``reward="win"``: +1 / -1 at the end of the game; ``"points"``: round points |

Settings (keywords of ``env()`` / ``raw_env()``; they are the fields of
``uno_env.RuleConfig``, see docs/envs.md for the table), plus ``render_mode`` and
``render_seat``:

<!-- settings-list -->
`num_players`, `deck`, `partners`, `scoring`, `target_score`, `uno_call`,
`illegal_action`, `episode`, `reward` and `max_steps`, and the house rules `stacking`,
`seven_o`, `jump_in`, `draw_until_playable` and `force_play`.
<!-- /settings-list -->

Actions
-------
Action ids come from one table; ``env.unwrapped.decode_action(id)`` and
``env.unwrapped.encode_action("play W G")`` convert both ways. Ids for the
default configuration:

<!-- action-table -->
| ids | action | when |
|---|---|---|
| 0-51 | `play R0` ... `play B+2` | a coloured card: colour R Y G B, rank 0-9, S (skip), R (reverse), +2 |
| 52-55 | `play W R` ... `play W B` | a Wild naming a colour |
| 56-59 | `play W+4 R` ... `play W+4 B` | a Wild Draw Four naming a colour (a bluff is allowed) |
| 60 | `draw` | draw a card instead of playing (always allowed) |
| 61 | `pass` | keep the drawn card / let an exposed player go |
| 62 | `uno` | call UNO with two cards before playing the next-to-last |
| 63 | `challenge` | challenge the Wild Draw Four just played on you |
| 64 | `accept` | accept it and draw 4 (with stacking: draw the whole pending penalty) |
| 65 | `catch` | catch the player exposed with one card and no UNO call |
| 66-69 | `color R` ... `color B` | name the colour of a starting Wild |
<!-- /action-table -->

With ``deck="fashion_trend"`` the four ``play FT <c>`` actions follow the Wild
Draw Fours and later ids shift by 4; ``uno_call="auto"`` drops ``catch`` and
``uno_call="off"`` drops ``uno`` and ``catch``. Sizes always come from the
configuration (``env.action_space(agent).n``).

Observations
------------
A flat float32 vector from a list of named slices (``uno_env.ObservationSpec``;
``env.unwrapped.observation_dict(agent)`` gives the dict view). Seats are
relative to the observer: index 0 is the observer, 1 the next seat clockwise.
Only what a player at the table knows is there: a test permutes every hidden
card and checks that other players' observations do not change. Offsets for
``num_players=2``:

<!-- observation-table -->
| slice | offset | size | range | meaning |
|---|---|---|---|---|
| `hand` | 0 | 54 | 0..4 | own hand: copies held of each card face |
| `top_card` | 54 | 54 | 0..1 | one-hot face of the top discard |
| `colour` | 108 | 4 | 0..1 | current colour, one-hot (none while a starting Wild waits) |
| `previous_colour` | 112 | 4 | 0..1 | colour in force before the top card was played (judges a Wild Draw Four) |
| `direction` | 116 | 1 | -1..1 | +1 clockwise (seat+1 plays next), -1 counter-clockwise |
| `phase` | 117 | 6 | 0..1 | decision phase, one-hot |
| `acting` | 123 | 2 | 0..1 | seat whose decision it is, one-hot |
| `dealer` | 125 | 2 | 0..1 | dealer of this round, one-hot |
| `hand_sizes` | 127 | 2 | 0..108 | cards held by each seat |
| `scores` | 129 | 2 | 0..1739 | game score of each seat (a team's score on both partners) |
| `alive` | 131 | 2 | 0..1 | 1 while the seat is in the game (Challenge UNO eliminates) |
| `draw_pile_size` | 133 | 1 | 0..108 | cards in the draw pile |
| `discard_pile` | 134 | 54 | 0..4 | copies of each face in the discard pile (played since the last reshuffle) |
| `drawn_card` | 188 | 54 | 0..1 | the card just drawn, when deciding whether to play it |
| `uno_called` | 242 | 1 | 0..1 | the acting player has called UNO this turn |
| `exposed` | 243 | 2 | 0..1 | seat with one card and no UNO call (catch window, or its Wild Draw Four pending) |
| `after_window` | 245 | 2 | 0..1 | seat that plays when the catch window closes |
| `drew_on` | 247 | 8 | 0..1 | colours in force when each seat drew instead of playing, since its last play |
| `named_colour` | 255 | 8 | 0..1 | colour each seat's last Wild (or Fashion Trend) named this round, one-hot per seat |
| `challenge_reveal` | 263 | 54 | 0..4 | hand of a Wild Draw Four player shown to this observer by its challenge |
| `challenge_reveal_seat` | 317 | 2 | 0..1 | whose hand challenge_reveal shows, one-hot |
<!-- /observation-table -->

With ``deck="fashion_trend"`` faces are 55 (``FT`` last) and two slices follow:
``trend_colour`` and ``trend_shown`` (the rank each seat showed to this player
for their last Fashion Trend). ``action_mask`` marks the legal actions of the
agent to act and is all zeros for the others.

Rewards
-------
Rewards are credited to the agent they belong to in the step where they
arise (PettingZoo's cumulative rewards hand them over at that agent's next
``last()``):

* ``reward="win"`` (default): when the game ends, +1 to every winner (the player
  or team that reached the target; with alternative scoring every player tied
  for the lowest total) and -1 to every loser. With Challenge UNO an eliminated
  player gets -1 in the step that eliminates it and leaves ``env.agents``.
  With ``episode="round"`` the player who goes out wins.
* ``reward="points"``: at every round end, the points scored (standard scoring:
  the winner, or both partners, get the value of the cards left in the
  opponents' hands) or minus the points taken (alternative and Challenge
  scoring: every player gets minus the value of its own hand).
* Truncation at ``max_steps`` decisions gives 0 to everyone.

Illegal actions
---------------
Masked-out actions depend on ``illegal_action``: ``"penalty"`` (default, R-WRONG-1):
a held card that does not match is taken back, the player draws 2 and the turn
passes; any other masked-out action (a card not held, a decision not available
now) raises ``uno_env.IllegalActionError`` and changes nothing. ``"raise"``: every
masked-out action raises and changes nothing. ``"lose"`` (PettingZoo's classic
behaviour): any masked-out action ends the game, -1 to the offender and 0 to the
others. What is not an action id of the space (an id out of range, a bool, a
float, a string, None for an agent still in play, an array) always raises
``IllegalActionError`` naming what was given, and changes nothing (the wrapped
env and the raw env alike; numpy integers are accepted).

After the end, as in PettingZoo: once every agent is done (each stepped with ``None``
after the game ended, ``env.agents`` empty), ``step(None)`` changes nothing and logs
PettingZoo's warning ("step() called after all agents are terminated or truncated.
Should reset() first.", as its OrderEnforcingWrapper does), while ``step`` with any
other action raises ``ValueError`` naming it, as PettingZoo's ``AECEnv`` does for a done
agent (its only action is ``None``); nothing changes either way. Before the first
``reset``, ``step``, ``observe``, ``last`` and ``render`` raise PettingZoo's errors.

Starting positions
------------------
``reset(seed=..., options={"position": dict})`` starts from a position (the keys
are in ``uno_env.engine.position``); ``options={"deck": [...], "dealer": k}``
deals an explicit deck order (card texts, top first). ``env.unwrapped.position()``
dumps the current position; ``env.unwrapped.record(agents=None)`` is the game record
of the game since the last reset (``uno_env.engine.record``: ``replay`` rebuilds it,
``uno replay`` shows it as an HTML page).

Rendering
---------
``"ansi"`` returns a compact text table, ``"human"`` prints it, ``"rgb_array"``
returns an image, ``"svg"`` an SVG document (a string; in a notebook
``IPython.display.SVG(env.render())`` shows it, cards drawn as the HTML replay draws them).
``render_seat`` chooses whose hand is shown (an int seat; by
default the agent to act; ``"all"`` shows every hand).

House rules
-----------
The house rules of ``docs/HOUSE_RULES.md`` are settings, all off by default (and then
nothing here changes):

<!-- house-rules-list -->
`stacking`, `seven_o`, `jump_in`, `draw_until_playable` and `force_play`.
<!-- /house-rules-list -->

They add their decisions as phases: ``penalty`` (answer a pending draw penalty with a
stackable card, ``accept`` it or ``challenge`` a Wild Draw Four), ``swap`` (the
``swap k`` actions after a 7) and ``jump`` (play the identical card out of turn,
or ``pass``). Their public facts are observation slices present only when the rule
is on (``pending_penalty``, ``last_swap``, ``top_card_player``, ``next_turn``). In a
jump-in window the asked agent is selected; every other agent's observation shows
the next player's turn, so who is asked stays private (docs/DECISIONS.md).

Version history
---------------
* v0: first release. Later in v0: the house rules as settings (defaults unchanged);
  refused calls change nothing; ``record()``.
* v1: the observation gains ``named_colour`` (per seat, the colour its last Wild or
  Fashion Trend named this round: a public hint at the hand it holds), 4 entries per
  seat after ``drew_on``; the slices after it move. A model trained on v0's flat
  observation needs training again; network files read their slices by name and load
  unchanged. The Gymnasium id is ``uno_env/Uno-v1``. Later in v1: ``step`` with an action
  other than ``None`` once every agent is done raises ``ValueError`` (it logged PettingZoo's
  warning and did nothing; ``step(None)`` still does that); ``render_seat=True`` is refused
  (a bool is not a seat); with ``force_play``, calling ``uno`` on a coloured drawn card
  plays it in the same step (R-HOUSE-FORCE-1: it was asked for as a one-action decision).
  Then the reshape (games, observations and actions unchanged): one package, in layers
  (``docs/ARCHITECTURE.md``). What moved: the top-level ``agents`` package is
  ``uno_env.agents`` (``agents.neural`` is ``uno_env.agents.ppo``, ``agents.play`` is
  ``uno_env.cli.play``); ``uno_env.policies`` and ``uno_env.neural`` are
  ``uno_env.agents.policies`` and ``uno_env.agents.neural``; ``experiments`` is split into
  ``uno_env.cli`` (the ``uno`` command: ``cli.main``, ``serve``, ``tournament``, ``warm``;
  ``cli_checks`` is ``cli.args``), ``uno_env.arena`` (with ``distributed``; ``analysis`` is
  ``arena.notebook``), ``uno_env.training`` (``ppo_masked`` is ``training.ppo``,
  ``train_sb3`` ``training.sb3``, ``train_rllib`` ``training.rllib``, ``plot_training``
  ``training.plot``) and ``uno_env.bench`` (``bench_speed`` is ``bench.speed``,
  ``bench_scale`` ``bench.scale``); the experiment scripts (``distill_search``,
  ``distill_colours``, ``average_policies`` as ``soup``, ``open_hands``,
  ``hand_inference``) are in ``experiments/``, outside the package. The ``uno`` command is
  unchanged. Names the scripts shared now live in the library modules: ``ppo_masked``'s
  ``HiddenHands`` in ``training.network``, ``point_margins`` in ``training.rollout``,
  ``behaviour_cloning`` in ``training.imitation``; ``train_sb3``'s ``PolicyAgent`` and
  ``load_policy`` in ``training.sb3_pool``; ``arena.tables.run_jobs`` in
  ``arena.runners``; ``bench_speed``'s ``TARGETS`` and checks in ``bench.targets``. The
  Gymnasium env's ``reset`` takes the same options as this one (``deck``, ``dealer``
  besides ``position``): both read them in ``uno_env.session``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from . import session
from .aec_wrappers import AssertOutOfBounds, OrderEnforcing
from .engine import Game, RuleConfig
from .engine import kernels as K
from .engine.entry import ENGINE
from .engine.game import action_id
from .engine.layout import PH_OVER, S_CURRENT, S_N_ALIVE, S_PHASE, S_TRUNCATED
from .engine.observation import PHASE_NAMES
from .engine.record import Recorder
from .render import RECENT_EVENTS, render_image, render_svg, render_text
from .session import ALIVE_SHIFT as _ALIVE_SHIFT
from .session import PHASE_BITS as _PHASE_BITS
from .session import PHASE_OVER as _PHASE_OVER
from .session import REFUSED_BELOW as _REFUSED_BELOW
from .session import REWARDED as _REWARDED
from .session import SEAT_MASK as _SEAT_MASK
from .session import SEAT_SHIFT as _SEAT_SHIFT
from .session import STATUS_BITS as _STATUS_BITS
from .session import ResetRequest, read_reset, start_game

ENV_ID = "uno/uno_v1"

_empty = np.empty
_FLOAT32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)


def env(**kwargs):
    """The UNO AEC environment with PettingZoo's standard wrappers."""
    environment = raw_env(**kwargs)
    environment = AssertOutOfBounds(environment)
    environment = OrderEnforcing(environment)
    return environment


def checked_render_seat(render_seat, n: int) -> int | str | None:
    """The seat ``render`` shows (an int), ``"all"`` or None; ValueError for anything else."""
    if isinstance(render_seat, (int, np.integer)) and not isinstance(render_seat, (bool, np.bool_)):
        if not 0 <= render_seat < n:
            raise ValueError(f"render_seat must be a seat 0..{n - 1}, 'all' or None, got {render_seat!r}")
        return int(render_seat)
    if render_seat is not None and not (isinstance(render_seat, str) and render_seat == "all"):
        raise ValueError(f"render_seat must be a seat 0..{n - 1}, 'all' or None, got {render_seat!r}")
    return render_seat


def observation_space_of(game: Game) -> spaces.Dict:
    """Every agent's observation space: the observation vector and the legal-action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(game.obs_spec.low, game.obs_spec.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(game.num_actions,), dtype=np.int8),
        }
    )


class raw_env(K.NeedsPickleProtocol2, AECEnv):
    """The UNO AEC environment without wrappers (see the module docstring)."""

    np_random: np.random.Generator
    np_random_seed: int | None
    metadata: dict[str, Any] = {
        "name": "uno_v1",
        "render_modes": ["human", "ansi", "rgb_array", "svg"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, render_seat: int | str | None = None, **settings):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = RuleConfig.from_kwargs(**settings)
        self.game = Game(self.config)
        n = self.config.num_players
        self.render_mode = render_mode
        self.render_seat = checked_render_seat(render_seat, n)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation_space = observation_space_of(self.game)
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            agent: spaces.Discrete(self.game.num_actions) for agent in self.possible_agents
        }
        self._state = self.game.new_state()
        self._params = self.game.params
        self._observation_size = self.game.observation_size
        self._num_actions = self.game.num_actions
        self._rewards_buffer = np.zeros((1, n), dtype=np.float32)
        ENGINE.prepare()
        self._recent_events: deque = deque(maxlen=RECENT_EVENTS)
        self._seeded = False
        self._updates = 0  # steps that raised nothing: OrderEnforcing's _has_updated reads it
        self._alive = n
        self.agents: list[str] = []
        self._observed: tuple | None = None
        """(agent, observation, mask) written by the last step for the agent to act, handed over by last()."""

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # everything is checked, and the new game made, before anything of the env changes
        # (its generator included): a refused reset leaves the env as it was
        request = read_reset(
            seed, options, unknown="warn", game=self.game
        )  # PettingZoo's api_test passes options of its own
        generator, saved, engine_seed = self._generator_for(request)
        try:
            state = start_game(self.game, self._state, request._replace(seed=engine_seed))
        except BaseException:
            if saved is not None:
                generator[0].bit_generator.state = saved
            raise
        self._begin(state, generator)
        if self.render_mode == "human":
            self.render()

    def _begin(self, state, generator: tuple) -> None:
        """The env's side of a new game: its generator, the agents in play and their dicts."""
        self._state = state
        self._observed = None
        self._record_start = state.copy()  # for record(): the start, and the actions since
        self._record_actions: list[tuple[str, int]] = []
        self.np_random, self.np_random_seed = generator
        self._seeded = True
        self._recent_events.clear()
        self._remember_events()
        alive = self.game.alive(self._state)
        self._alive = sum(alive)
        # one list for the env's life, filled anew (OrderEnforcing hands it out without a forward)
        self.agents[:] = [agent for agent, in_play in zip(self.possible_agents, alive) if in_play]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rewards_pending = False
        if self._state.ints[0, S_PHASE] == PH_OVER:
            self._mark_game_over()
        else:
            self.agent_selection = self.possible_agents[self._state.ints[0, S_CURRENT]]

    def _generator_for(self, request: ResetRequest) -> tuple[tuple, Any, int | None]:
        """The env's generator after this reset, the state to put back if the reset is refused
        (None: nothing drawn from the env's own generator), and the engine's seed: the given
        seed; for an env never seeded, a draw from a fresh generator; for a position or a
        deck, a draw from the env's generator (deterministic once seeded); for a plain
        reset, None (the game's own generator goes on)."""
        if request.seed is not None:
            return seeding.np_random(request.seed), None, request.seed
        if not self._seeded:
            generator = seeding.np_random()
            return generator, None, int(generator[0].integers(2**63))
        current = (self.np_random, self.np_random_seed)
        if not request.starts_elsewhere:
            return current, None, None
        saved = current[0].bit_generator.state
        return current, saved, int(current[0].integers(2**63))

    # ------------------------------------------------------------------ step
    def step(self, action) -> None:
        try:
            agent = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            if self._seeded and not self.agents:
                self._step_after_the_end(action)  # changes nothing (agent_iter has ended)
                return
            self._not_in_play("step")
            raise
        if done:
            if action is not None:  # bounds first, as under AssertOutOfBounds: IllegalActionError
                action = action_id(action, self._num_actions)
            self._was_dead_step(action)
            self._updates += 1
            return
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = action_id(action, self._num_actions)
        # the next seat's observation comes with the step (one engine call), for the next last()
        observation = _empty(self._observation_size, _FLOAT32)
        mask = _empty(self._num_actions, _INT8)
        state = self._state  # session.step_and_observe, inline: the hot path of every decision
        packed = ENGINE.step_and_observe(
            state.cards,
            state.ints,
            state.rng,
            self._params,
            0,
            action,
            self._rewards_buffer,
            state.ev,
            state.evn,
            observation,
            mask,
        )
        if packed & _STATUS_BITS < _REFUSED_BELOW:
            raise session.refusal(self.game, state, action, packed)  # and nothing changed
        self._updates += 1
        self._record_actions.append((agent, action))  # cheap on the hot path: record() maps them
        self._cumulative_rewards[agent] = 0.0
        if (
            self._rewards_pending
            or packed & _REWARDED
            or packed & _PHASE_BITS == _PHASE_OVER
            or packed >> _ALIVE_SHIFT != self._alive
            or self.render_mode is not None
        ):
            self._after_eventful_step(session.summary_of(packed), observation, mask)
        else:  # most steps: no reward to hand out or clear, the game goes on, no rendering
            agent = self.possible_agents[((packed >> _SEAT_SHIFT) & _SEAT_MASK) - 1]
            self.agent_selection = agent
            self._observed = (agent, observation, mask)
            if self._alive != len(self.agents):
                self._deads_step_first()

    def record(self, agents=None) -> dict:
        """The game record (:mod:`uno_env.engine.record`) of the game since the last reset:
        its start, every action taken, and ``uno_env.agents`` (names per seat) if given.
        ``uno_env.engine.record.replay`` rebuilds it; ``uno replay`` shows it."""
        if not hasattr(self, "_record_start"):
            raise AttributeError("record() needs a game: call reset() first")
        start = {"position": self.game.position(self._record_start)}
        recorder = Recorder(self.game, self._state, agents=agents, start=start)
        for agent, action in self._record_actions:
            recorder.add(self.agent_name_mapping[agent], int(action))
        return recorder.record()

    def _after_eventful_step(self, summary: session.StepSummary, observation: np.ndarray, mask: np.ndarray) -> None:
        if self.render_mode is not None:
            self._remember_events()
        if self._rewards_pending:
            for name in self.rewards:
                self.rewards[name] = 0.0
            self._rewards_pending = False
        if summary.rewarded:
            rewards = self._rewards_buffer[0]
            for name in self.agents:
                self.rewards[name] = float(rewards[self.agent_name_mapping[name]])
            self._rewards_pending = True
            self._accumulate_rewards()
        if summary.phase == PH_OVER:
            self._mark_game_over()
        else:
            if summary.alive != self._alive:
                self._mark_eliminated()
            self.agent_selection = self.possible_agents[summary.seat]
            self._observed = (self.agent_selection, observation, mask)
            if self._alive != len(self.agents):
                self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _mark_game_over(self) -> None:
        truncated = bool(self._state.ints[0, S_TRUNCATED])
        for name in self.agents:
            if truncated:
                self.truncations[name] = True
            else:
                self.terminations[name] = True
        if self.agents:
            self.agent_selection = self.agents[0]
            self._deads_step_first()

    def _mark_eliminated(self) -> None:
        in_play = self.game.alive(self._state)
        for name in self.agents:
            if not in_play[self.agent_name_mapping[name]]:
                self.terminations[name] = True
        self._alive = int(self._state.ints[0, S_N_ALIVE])

    def _step_after_the_end(self, action) -> None:
        """``step`` once every agent is done: PettingZoo's warning for ``step(None)`` (its
        OrderEnforcingWrapper), and for any other action the ValueError of a done agent's
        step (``AECEnv._was_dead_step``: only None), naming it. Nothing changes."""
        if action is not None:
            raise ValueError(
                f"step({action!r}): every agent is done (the game is over), so the only step is step(None); "
                "call reset() to start a new game"
            )
        EnvLogger.warn_step_after_terminated_truncated()

    def _require_reset(self, what: str) -> None:
        if not self._seeded:
            raise AssertionError(f"reset() needs to be called before {what}.")

    def _not_in_play(self, what: str) -> None:
        """Raise for ``what`` called before the first reset (PettingZoo's error) or once every
        agent is done (``step`` then has :meth:`_step_after_the_end`). Nothing changes."""
        if not self._seeded:
            if what == "step":
                EnvLogger.error_step_before_reset()
            raise AssertionError(f"reset() needs to be called before {what}.")
        if not self.agents:
            raise RuntimeError(f"{what}: every agent is done (the game is over); call reset() first")
        raise RuntimeError(f"{what}: agent_selection {getattr(self, 'agent_selection', None)!r} is not in play")

    def last(self, observe: bool = True):
        try:
            agent = self.agent_selection
            cumulative = self._cumulative_rewards[agent]
        except (AttributeError, KeyError):
            self._not_in_play("last")
            raise
        if not observe:
            observation = None
        elif self._observed is not None and self._observed[0] is agent:  # the last step observed it
            _, shown, mask = self._observed
            self._observed = None  # handed over once: the caller may keep or change the arrays
            observation = {"observation": shown, "action_mask": mask}
        else:
            observation = self.observe(agent)
        return observation, cumulative, self.terminations[agent], self.truncations[agent], self.infos[agent]

    # ------------------------------------------------------------------ observations
    def observe(self, agent):
        # fresh arrays at every call (the caller may keep them); np.empty with dtype
        # objects passed by position costs about half of np.empty(n, dtype=np.float32)
        try:
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise ValueError(f"observe: unknown agent {agent!r}; agents are {self.possible_agents}") from None
        if not self._seeded:
            EnvLogger.error_observe_before_reset()
        observation = _empty(self._observation_size, _FLOAT32)
        mask = _empty(self._num_actions, _INT8)
        state = self._state
        ENGINE.observe_and_mask(state.cards, state.ints, self._params, 0, seat, observation, mask)
        return {"observation": observation, "action_mask": mask}

    def observation_dict(self, agent) -> dict:
        """The observation of ``agent`` as a dict of named slices (for humans and notebooks)."""
        return self.game.obs_spec.to_dict(self.observe(agent)["observation"])

    def encode_action(self, text: str) -> int:
        """Action id of a text such as ``play R7``, ``play W G``, ``draw``, ``challenge``."""
        return self.game.actions.to_id(text)

    def decode_action(self, action: int) -> str:
        """Text of an action id."""
        return self.game.actions.to_string(action)

    def legal_actions(self, agent=None) -> list[str]:
        """Legal actions of ``agent`` (default: the agent to act) as texts."""
        if agent is None:
            self._require_reset("legal_actions")
            agent = self.agent_selection
        mask = self.observe(agent)["action_mask"]
        return [self.game.actions.strings[a] for a in np.flatnonzero(mask)]

    def position(self) -> dict:
        """The god's-eye position of the game as a JSON-able dict."""
        self._require_reset("position")
        return self.game.position(self._state)

    @property
    def phase(self) -> str:
        self._require_reset("phase")
        return PHASE_NAMES[self._state.ints[0, S_PHASE]]

    def events(self) -> list[dict]:
        """Events of the last step (or reset), god's-eye."""
        self._require_reset("events")
        return self.game.events(self._state)

    # ------------------------------------------------------------------ rendering
    def _remember_events(self) -> None:
        self._recent_events.extend(self.game.events(self._state))

    def _viewer(self):
        if self.render_seat == "all":
            return None
        if self.render_seat is not None:
            return self.render_seat
        current = int(self._state.ints[0, S_CURRENT])
        return current if current >= 0 else None

    def render(self):
        if not self._seeded:
            EnvLogger.error_render_before_reset()
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'rgb_array'")
            return None
        events = list(self._recent_events)
        if self.render_mode == "rgb_array":
            return render_image(self.game, self._state, self._viewer(), events)
        if self.render_mode == "svg":
            return render_svg(self.game, self._state, self._viewer(), events)
        text = render_text(self.game, self._state, self._viewer(), events)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass
