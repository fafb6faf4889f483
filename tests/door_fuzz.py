"""Door fuzz: malformed and adversarial calls through the public doors, sorted in classes.

Every case makes one bad call at a door (``Game``, the AEC env, ``UnoGymEnv``, the vector
env, the agents) and is sorted into one class:

* ``crash``: the process died (a segfault, an abort) or hung;
* ``changed``: the call was refused but something observable changed: a full snapshot
  (every array, generator state and plain value reachable from the object, and the result
  of the next seeded step, played on a copy) differs before and after;
* ``taken``: an impossible input was accepted (no error), or an agent answered what its
  mask forbids;
* ``unclear``: refused, nothing changed, but the error does not name the bad input (the
  argument and its value) or is an IndexError / KeyError / AttributeError / numba error;
* ``clear``: refused, nothing changed, and the message names the bad input (or, for the
  one-legal-action masks, the agent answered that action).

``python tests/door_fuzz.py`` prints the counts per class (and per door with
``--details``); it runs the cases in child processes under ``NUMBA_BOUNDSCHECK=1`` (numba's
cache under ``.numba-boundscheck``) and restarts a child that crashed after the case it
died on. ``--budget N`` runs N rounds of the cases (rounds after the first on other
seeds, configurations and moments of the game); ``UNO_FUZZ_BUDGET`` sets it for the test
(``tests/test_door_fuzz.py``). Only public doors and attributes that the project has had
from the start are used, so the same script measures an older commit too.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import logging
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # this checkout's packages, not another one installed in the venv
    sys.path.insert(0, str(ROOT))
CLASSES = ("crash", "changed", "taken", "unclear", "clear")
UNCLEAR_TYPES = ("IndexError", "TypingError", "MemoryError", "OverflowError", "SystemError")
"""Errors that are unclear whatever they say (a KeyError or AttributeError is clear only
when it names the bad input, as PettingZoo's "agents cannot be accessed before reset")."""
CASE_TIMEOUT_S = 600  # a case may wait for numba to compile what it reaches first
SCRATCH = frozenset({"_rewards", "_rewards_buffer", "_step_rw", "checked_step", "checked_reset"})
"""Left out of snapshots: scratch buffers, overwritten before every read, and the flags of
Gymnasium's PassiveEnvChecker (it checks the first call, refused or not)."""


# ---------------------------------------------------------------- snapshots
def fingerprint(value, seen=None, depth=0):
    """Everything observable reachable from ``value``: arrays (dtype, shape, bytes), numpy
    generators (their state), plain values, containers and objects' attributes."""
    import numpy as np

    if seen is None:
        seen = set()
    if value is None or isinstance(value, (bool, int, float, str, bytes, np.generic)):
        return repr(value)
    if isinstance(value, np.ndarray):
        return ("array", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, np.random.Generator):
        return ("generator", repr(value.bit_generator.state))
    if isinstance(value, logging.Logger) or callable(value) and not hasattr(value, "__dict__"):
        return type(value).__name__
    if id(value) in seen or depth > 8:
        return "<seen>"
    seen.add(id(value))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), fingerprint(v, seen, depth + 1)) for k, v in value.items()))
    if isinstance(value, (list, tuple, collections.deque)):
        return (type(value).__name__, tuple(fingerprint(v, seen, depth + 1) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(repr(v) for v in value)))
    module = type(value).__module__ or ""
    if not module.startswith(("uno_env", "agents", "gymnasium", "pettingzoo", "tests", "door_fuzz", "__main__")):
        return type(value).__name__
    fields = {}
    for name in getattr(type(value), "__slots__", ()):
        if hasattr(value, name):
            fields[name] = getattr(value, name)
    fields.update(getattr(value, "__dict__", {}))
    return (
        type(value).__name__,
        tuple(
            (k, fingerprint(v, seen, depth + 1))
            for k, v in sorted(fields.items())
            if k not in SCRATCH and type(v).__name__ != "builtin_function_or_method"  # compiled entry points
        ),
    )


def snapshot(target, next_step):
    """The fingerprint of ``target`` and what the next valid step gives, on a copy."""
    outcome = None
    if next_step is not None:
        try:
            twin = copy.deepcopy(target)
            outcome = fingerprint(next_step(twin))
        except Exception as err:  # the next step itself fails: that is observable too
            outcome = f"{type(err).__name__}: {err}"
    return fingerprint(target), outcome


# ---------------------------------------------------------------- cases
class Case:
    """One bad call: ``build(rng)`` returns (target, call, tokens, next_step[, answer])."""

    def __init__(self, door, label, build):
        self.door, self.label, self.build = door, label, build


def _play(game, state, rng, steps):
    """``steps`` random legal steps (fewer if the game ends)."""
    for _ in range(steps):
        if game.is_over(state):
            break
        game.step(state, int(rng.choice(game.legal_actions(state))))
    return state


def _game_state(round_seed, rng, **settings):
    from uno_env.engine import Game

    game = Game(**settings)
    state = game.init(seed=round_seed)
    _play(game, state, rng, int(rng.integers(0, 25)))
    if game.is_over(state):
        game.reset(state, seed=round_seed + 1)
    return game, state


def _engine_next(game):
    def next_step(state):
        if game.is_over(state):
            return game.position(state)
        game.step(state, game.legal_actions(state)[0])
        return state.cards, state.ints, state.rng, game.events(state)

    return next_step


BAD_INDICES = [1, -1, 2, 0.0, 0.5, True, "0", None, 10**20]
BAD_SEATS = ["the number of players", -1, 0.5, True, "0", None, 10**20]
BAD_SEEDS = [True, -1, 2**64, 2**70, 1.5, "3", [1]]
BAD_ACTIONS = [0.0, 60.7, True, None, "nonsense", 10**9, -1]


def engine_cases(round_seed, settings):
    import numpy as np

    from uno_env.engine import Game, State

    cases = []

    def index_case(method, index):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            args = {
                "legal_mask": (),
                "legal_actions": (),
                "observe": (0,),
                "step": (game.legal_actions(state)[0] if not game.is_over(state) else 0,),
                "events": (),
                "scores": (),
                "current_player": (),
                "phase": (),
                "hand_sizes": (),
                "position": (),
                "reset": (),
            }[method]
            call = lambda: getattr(game, method)(state, *args, index=index)  # noqa: E731
            return state, call, ["index", repr(index)], _engine_next(game)

        return build

    for method in ("legal_mask", "legal_actions", "observe", "step", "events", "scores", "position", "reset"):
        for index in BAD_INDICES:
            cases.append(Case("Game", f"{method}(index={index!r})", index_case(method, index)))
    for method in ("current_player", "phase", "hand_sizes"):
        for index in (1, -1, 0.5):
            cases.append(Case("Game", f"{method}(index={index!r})", index_case(method, index)))

    def seat_case(seat):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            return state, lambda: game.observe(state, seat), ["seat", repr(seat)], _engine_next(game)

        return build

    players = settings.get("num_players", 2)
    for seat in BAD_SEATS:
        seat = players if seat == "the number of players" else seat
        cases.append(Case("Game", f"observe(seat={seat!r})", seat_case(seat)))

    def out_case(label, make_out):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            out = make_out(game.observation_size)
            return (state, out), lambda: game.observe(state, 0, out=out), ["out"], None

        return build

    for label, make_out in (
        ("float64", lambda n: np.zeros(n, np.float64)),
        ("short", lambda n: np.zeros(n - 1, np.float32)),
        ("2-d", lambda n: np.zeros((1, n), np.float32)),
        ("strided", lambda n: np.zeros(2 * n, np.float32)[::2]),
        ("read-only", lambda n: _readonly(n, np.float32)),
        ("list", lambda n: [0.0] * n),
    ):
        cases.append(Case("Game", f"observe(out={label})", out_case(label, make_out)))

    def foreign_state_case(label, other):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            foreign_game = Game(**other)
            foreign = foreign_game.init(seed=round_seed)
            method = ["legal_mask", "step", "observe", "reset"][int(rng.integers(4))]
            args = {"legal_mask": (), "step": (game.num_actions - 1,), "observe": (0,), "reset": ()}[method]
            call = lambda: getattr(game, method)(foreign, *args)  # noqa: E731
            return foreign, call, ["state"], _engine_next(foreign_game)

        return build

    n = settings.get("num_players", 2)
    for label, other in (
        ("10 players", {"num_players": 10}),
        ("fashion trend", {"num_players": n, "deck": "fashion_trend"}),
        ("3 players", {"num_players": 3 if n != 3 else 4}),
    ):
        if other != settings:
            cases.append(Case("Game", f"a state made for {label}", foreign_state_case(label, other)))

    def not_a_state_case(value):
        def build(rng):
            game = Game(**settings)
            return None, lambda: game.legal_mask(value), ["state"], None

        return build

    for value in (None, {"cards": 1}, "state"):
        cases.append(Case("Game", f"legal_mask({value!r})", not_a_state_case(value)))

    def handmade_state_case(label, shrink):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            cards = np.ascontiguousarray(state.cards[:, : state.cards.shape[1] - shrink])
            made = State(cards, state.ints.copy(), state.rng.copy(), state.ev.copy(), state.evn.copy())
            return made, lambda: game.step(made, game.num_actions - 1), ["state"], None

        return build

    cases.append(Case("Game", "hand-made state with short card arrays", handmade_state_case("short", 7)))

    def over_case(action_kind):
        def build(rng):
            game = Game(**{**settings, "max_steps": 3})
            state = game.init(seed=round_seed)
            _play(game, state, rng, 3)
            action = game.num_actions - 1 if action_kind == "last" else 0
            return state, lambda: game.step(state, action), ["over"], _engine_next(game)

        return build

    cases.append(Case("Game", "step after game over (events kept)", over_case("last")))
    cases.append(Case("Game", "step after game over (first id)", over_case("first")))

    def wrong_phase_case(rng):
        game, state = _game_state(round_seed, rng, **settings)
        mask = game.legal_mask(state)
        illegal = [a for a in range(game.num_actions) if not mask[a]]
        action = int(rng.choice(illegal))
        text = game.action_to_string(action)
        return state, lambda: game.step(state, action), [text], _engine_next(game)

    cases.append(Case("Game", "step with an action not available now", wrong_phase_case))

    def bad_action_case(action):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            return state, lambda: game.step(state, action), [repr(action)], _engine_next(game)

        return build

    for action in BAD_ACTIONS + [np.timedelta64(60)]:
        cases.append(Case("Game", f"step({type(action).__name__} {action!r})", bad_action_case(action)))

    def masked_case(rng):
        game, state = _game_state(round_seed, rng, **settings)
        action = np.ma.masked_array(60, mask=False)
        return state, lambda: game.step(state, action), ["masked"], _engine_next(game)

    cases.append(Case("Game", "step(a masked array)", masked_case))

    def seed_case(seed):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            return state, lambda: game.reset(state, seed=seed), ["seed", repr(seed)], _engine_next(game)

        return build

    for seed in BAD_SEEDS:
        cases.append(Case("Game", f"reset(seed={seed!r})", seed_case(seed)))

    def dealer_case(dealer):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            return state, lambda: game.reset(state, seed=1, dealer=dealer), ["dealer", repr(dealer)], None

        return build

    for dealer in (n, -1, True, 0.5):
        cases.append(Case("Game", f"reset(dealer={dealer!r})", dealer_case(dealer)))

    def until_case(until):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            policies = [lambda o, m: int(np.flatnonzero(m)[0])] * game.num_players
            return state, lambda: game.play(state, policies, until=until), ["until", repr(until)], None

        return build

    for until in (n, -1, 0.5):
        cases.append(Case("Game", f"play(until={until!r})", until_case(until)))

    def policies_case(make_policies, tokens):
        def build(rng):
            game, state = _game_state(round_seed, rng, **settings)
            policies = make_policies(game)
            return state, lambda: game.play(state, policies), tokens, _engine_next(game)

        return build

    first = lambda o, m: int(np.flatnonzero(m)[0])  # noqa: E731
    for label, make_policies, tokens in (
        ("None", lambda g: None, ["policies", "None"]),
        ("'random'", lambda g: "random", ["policies", "'random'"]),
        ("a dict missing the last seat", lambda g: {s: first for s in range(g.num_players - 1)}, ["policies"]),
        ("one policy too few", lambda g: [first] * (g.num_players - 1), ["policies"]),
        ("a seat's policy 5", lambda g: [first] * (g.num_players - 1) + [5], ["policies", "5"]),
    ):
        cases.append(Case("Game", f"play(policies={label})", policies_case(make_policies, tokens)))
    return cases


def _legal_of(mask):
    import numpy as np

    return int(np.flatnonzero(mask)[0])


def _aec_next(env):
    raw = env.unwrapped
    observation, _, terminated, truncated, _ = env.last()
    env.step(None if terminated or truncated else _legal_of(observation["action_mask"]))
    return raw.agent_selection, raw.rewards, raw.game.position(raw._state)


def aec_cases(round_seed, settings):
    import uno_env

    cases = []

    def make(rng, wrapped=True, reset=True, **extra):
        env = uno_env.env(**{**settings, **extra}) if wrapped else uno_env.raw_env(**{**settings, **extra})
        if reset:
            env.reset(seed=round_seed)
            for _ in range(int(rng.integers(0, 10))):
                observation, _, terminated, truncated, _ = env.last()
                env.step(None if terminated or truncated else _legal_of(observation["action_mask"]))
                if not env.unwrapped.agents:
                    env.reset(seed=round_seed + 1)
        return env

    def before_reset(method, wrapped):
        def build(rng):
            env = make(rng, wrapped=wrapped, reset=False)
            calls = {
                "step": lambda: env.step(0),
                "last": lambda: env.last(),
                "observe": lambda: env.observe("player_0"),
                "position": lambda: env.unwrapped.position(),
                "events": lambda: env.unwrapped.events(),
            }
            return env, calls[method], ["reset"], None

        return build

    for wrapped in (True, False):
        for method in ("step", "last", "observe", "position", "events"):
            kind = "env" if wrapped else "raw_env"
            cases.append(Case("AEC", f"{kind}.{method} before reset", before_reset(method, wrapped)))

    def bad_seed(seed, wrapped):
        def build(rng):
            env = make(rng, wrapped=wrapped)
            return env, lambda: env.reset(seed=seed), ["seed", repr(seed)], _aec_next

        return build

    for seed in BAD_SEEDS:
        cases.append(Case("AEC", f"reset(seed={seed!r})", bad_seed(seed, True)))

    def bad_options(label, options, tokens, seed):
        def build(rng):
            env = make(rng)
            return env, lambda: env.reset(seed=seed, options=options), tokens, _aec_next

        return build

    position = {"hands": [["R1"], ["G2"]], "discard_pile": ["R5"], "current_player": 0}
    for seed in (9, None):
        for label, options, tokens in (
            ("a string", "position", ["options"]),
            ("a list", [("deck", 1)], ["options"]),
            ("position and deck", {"position": position, "deck": ["R1"]}, ["position", "deck"]),
            ("position and dealer", {"position": position, "dealer": 1}, ["dealer"]),
            ("a bad position", {"position": {"hands": "oops"}}, ["hands"]),
            ("a bad deck", {"deck": ["XX"]}, ["XX"]),
            ("a bad dealer", {"dealer": 7}, ["dealer", "7"]),
        ):
            cases.append(Case("AEC", f"reset(seed={seed}, options={label})", bad_options(label, options, tokens, seed)))

    def bad_step(action, wrapped):
        def build(rng):
            env = make(rng, wrapped=wrapped)
            raw = env.unwrapped
            if raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]:
                env.step(None)
            return env, lambda: env.step(action), [repr(action)], _aec_next

        return build

    for wrapped in (True, False):
        for action in BAD_ACTIONS:
            kind = "env" if wrapped else "raw_env"
            cases.append(Case("AEC", f"{kind}.step({action!r})", bad_step(action, wrapped)))

    def unavailable_step(rng):
        env = make(rng)
        observation, _, terminated, truncated, _ = env.last()
        mask = observation["action_mask"]
        action = int(rng.choice([a for a in range(len(mask)) if not mask[a]]))
        text = env.unwrapped.decode_action(action)
        return env, lambda: env.step(action), [text], _aec_next

    cases.append(Case("AEC", "step with an action not available now", unavailable_step))

    def after_end(method, wrapped):
        def build(rng):
            env = make(rng, wrapped=wrapped, max_steps=3)
            for _ in range(50):
                if not env.unwrapped.agents:
                    break
                observation, _, terminated, truncated, _ = env.last()
                env.step(None if terminated or truncated else _legal_of(observation["action_mask"]))
            calls = {
                "step": lambda: env.step(None),
                "last": lambda: env.last(),
                "step 0": lambda: env.step(0),
                "step 0.5": lambda: env.step(0.5),
            }
            tokens = ["reset"] + ([f"step({method[5:]})"] if method.startswith("step ") else [])
            return env, calls[method], tokens, None

        return build

    for wrapped in (True, False):
        for method in ("step", "last", "step 0", "step 0.5"):
            kind = "env" if wrapped else "raw_env"
            cases.append(Case("AEC", f"{kind}.{method} after every agent is done", after_end(method, wrapped)))

    def bad_setting(name, value):
        def build(rng):
            return None, lambda: uno_env.env(**{**settings, name: value}), [name, repr(value)], None

        return build

    n = settings.get("num_players", 2)
    for name, value in (("render_seat", True), ("render_seat", n), ("render_seat", "none")):
        cases.append(Case("AEC", f"env({name}={value!r})", bad_setting(name, value)))
    return cases


def _gym_next(env):
    import numpy as np

    mask = env.action_masks()
    if not mask.any():
        return env.reset(seed=5)
    return env.step(int(np.flatnonzero(mask)[0]))


class Scripted:
    """An opponent that plays its first legal action until told to answer ``bad``."""

    def __init__(self):
        self.bad = None
        self.armed = False

    def __call__(self, observation, mask):
        import numpy as np

        if self.armed:
            if isinstance(self.bad, Exception):
                raise self.bad
            if self.bad == "illegal":
                return int(np.flatnonzero(mask == 0)[0])
            return self.bad
        return int(np.flatnonzero(mask)[0])

    def __repr__(self):
        return "Scripted()"


def gym_cases(round_seed, settings):
    import numpy as np

    from uno_env import UnoGymEnv

    cases = []

    def make(rng, reset=True, **extra):
        env = UnoGymEnv(**{**settings, **extra})
        if reset:
            env.reset(seed=round_seed)
            for _ in range(int(rng.integers(0, 6))):
                mask = env.action_masks()
                if not mask.any():
                    env.reset(seed=round_seed + 1)
                    continue
                _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
                if terminated or truncated:
                    env.reset(seed=round_seed + 2)
        return env

    def before_reset(method, render_mode=None):
        def build(rng):
            env = make(rng, reset=False, render_mode=render_mode)
            return env, lambda: getattr(env, method)(*([0] if method == "step" else [])), ["reset"], None

        return build

    for method, render_mode in (
        ("step", None),
        ("render", None),
        ("render", "ansi"),
        ("render", "rgb_array"),
        ("action_masks", None),
        ("position", None),
    ):
        label = f"{method} before reset" + (f" (render_mode={render_mode!r})" if render_mode else "")
        cases.append(Case("Gym", label, before_reset(method, render_mode)))

    def bad_seed(seed):
        def build(rng):
            env = make(rng, opponents="tactical")
            return env, lambda: env.reset(seed=seed), ["seed", repr(seed)], _gym_next

        return build

    for seed in BAD_SEEDS:
        cases.append(Case("Gym", f"reset(seed={seed!r})", bad_seed(seed)))

    def bad_options(options, tokens, seed):
        def build(rng):
            env = make(rng, opponents="tactical")
            return env, lambda: env.reset(seed=seed, options=options), tokens, _gym_next

        return build

    for seed in (9, None):
        for options, tokens in (
            ("x", ["options"]),
            ({"position": {"hands": "oops"}}, ["hands"]),
            ({"colour": 1}, ["colour"]),
        ):
            cases.append(Case("Gym", f"reset(seed={seed}, options={options!r})", bad_options(options, tokens, seed)))

    def bad_step(action):
        def build(rng):
            env = make(rng)
            return env, lambda: env.step(action), [repr(action)], _gym_next

        return build

    for action in BAD_ACTIONS:
        cases.append(Case("Gym", f"step({action!r})", bad_step(action)))

    def bad_opponent(bad, tokens):
        def build(rng):
            opponent = Scripted()
            env = make(rng, opponents=opponent, illegal_action="penalty")
            for _ in range(20):  # until the learner acts and the opponent answers next
                mask = env.action_masks()
                if mask.any():
                    break
                env.reset(seed=int(rng.integers(1000)))
            opponent.bad = bad
            action = None
            for _ in range(30):  # a learner's action after which the opponent acts
                for candidate in np.flatnonzero(env.action_masks()):
                    twin = copy.deepcopy(env)
                    twin.opponents[0].armed = True
                    try:
                        twin.step(int(candidate))
                    except Exception:
                        action = int(candidate)
                        break
                if action is not None:
                    break
                _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
                if terminated or truncated:
                    env.reset(seed=int(rng.integers(1000)))

            def call():
                opponent.armed = True
                try:
                    return env.step(action)
                finally:
                    opponent.armed = False

            return env, call, tokens, _gym_next

        return build

    for bad, tokens in (
        (60.7, ["opponent", "60.7"]),
        (None, ["opponent", "None"]),
        ("illegal", ["opponent"]),
        (ZeroDivisionError("boom"), ["opponent", "boom"]),
        (10**6, ["opponent", str(10**6)]),
    ):
        cases.append(Case("Gym", f"an opponent answering {bad!r}", bad_opponent(bad, tokens)))

    def after_end(rng):
        env = make(rng, max_steps=4)
        for _ in range(10):
            mask = env.action_masks()
            if not mask.any():
                break
            _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
            if terminated or truncated:
                break
        return env, lambda: env.step(0), ["reset"], None

    cases.append(Case("Gym", "step after the episode ended", after_end))

    def made(call_of, tokens, reset=True):
        def build(rng):
            import gymnasium

            import uno_env  # noqa: F401  (registers uno_env/Uno-v1)

            env = gymnasium.make("uno_env/Uno-v1", **settings)
            if reset:
                env.reset(seed=round_seed)
            return env, call_of(env), tokens, (lambda e: _gym_next(e.unwrapped)) if reset else None

        return build

    cases.append(Case("Gym", "gymnasium.make: step before reset", made(lambda e: lambda: e.step(0), ["reset"], False)))
    for seed in (True, -1, 2**64):
        cases.append(
            Case(
                "Gym",
                f"gymnasium.make: reset(seed={seed!r})",
                made(lambda e, s=seed: lambda: e.reset(seed=s), ["seed"]),
            )
        )
    cases.append(
        Case(
            "Gym",
            "gymnasium.make: reset(options='x')",
            made(lambda e: lambda: e.reset(seed=3, options="x"), ["options"]),
        )
    )
    cases.append(Case("Gym", "gymnasium.make: step(0.5)", made(lambda e: lambda: e.step(0.5), ["0.5"])))
    return cases


POSITION = {"position": {"hands": [["R1"], ["G2"]], "discard_pile": ["R5"], "current_player": 0}}


def _vector_next(env):
    env.step(env.sample_actions())
    return env.cards, env.ints, env.rng, env.seat, env.rewards


def vector_cases(round_seed, settings):
    import numpy as np

    from uno_env.engine import Game
    from uno_env.vector import UnoVectorEnv

    cases = []
    N = 4

    def make(rng, reset=True):
        env = UnoVectorEnv(N, **settings)
        if reset:
            env.reset(seed=round_seed)
            for _ in range(int(rng.integers(0, 8))):
                env.step(env.sample_actions())
        return env

    def out_case(label, make_out):
        def build(rng):
            env = make(rng)
            out = make_out()
            return (env, out), lambda: env.sample_actions(out=out), ["out"], None

        return build

    for label, make_out in (
        ("short", lambda: np.zeros(1, np.int64)),
        ("long", lambda: np.zeros(N + 3, np.int64)),
        ("int32", lambda: np.zeros(N, np.int32)),
        ("float64", lambda: np.zeros(N, np.float64)),
        ("2-d", lambda: np.zeros((N, 1), np.int64)),
        ("strided", lambda: np.zeros(2 * N, np.int64)[::2]),
        ("read-only", lambda: _readonly(N)),
        ("list", lambda: [0] * N),
    ):
        cases.append(Case("Vector", f"sample_actions(out={label})", out_case(label, make_out)))

    def seed_case(seed, tokens):
        def build(rng):
            env = make(rng)
            return env, lambda: env.reset(seed=seed), tokens, _vector_next

        return build

    for seed, tokens in (
        ([1, 2, "x", 4], ["seed", "'x'"]),
        ([1, 2, 3], ["seed", "3"]),
        ([1, 2, 3, -4], ["seed", "-4"]),
        ([1, 2, 3, 2**64], ["seed", str(2**64)]),
        ([1, 2, 3, True], ["seed", "True"]),
        (np.array([1.5, 2, 3, 4]), ["seed", "1.5"]),
        (-1, ["seed", "-1"]),
        (2**64 - 2, ["seed", str(2**64 - 2)]),
        (True, ["seed", "True"]),
        (1.5, ["seed", "1.5"]),
    ):
        cases.append(Case("Vector", f"reset(seed={seed!r})", seed_case(seed, tokens)))

    def load_case(label, args, tokens):
        def build(rng):
            env = make(rng)
            game = Game(**settings)
            state = game.init(seed=round_seed + 7)
            other = Game(num_players=3 if game.num_players != 3 else 4).init(seed=1)
            values = {"state": state, "other": other, "never reset": game.new_state()}
            resolved = [values.get(a, a) if isinstance(a, str) else a for a in args]
            return env, lambda: env.load_state(*resolved), tokens, _vector_next

        return build

    for label, args, tokens in (
        ("index True", (True, "state"), ["index", "True"]),
        ("index 0.0", (0.0, "state"), ["index", "0.0"]),
        ("index N", (N, "state"), ["index", str(N)]),
        ("index -1", (-1, "state"), ["index", "-1"]),
        ("another configuration", (0, "other"), ["state"]),
        ("not a state", (0, "nonsense"), ["state"]),
        ("source_index 1", (0, "state", 1), ["source_index", "1"]),
        ("source_index True", (0, "state", True), ["source_index", "True"]),
        ("a state never reset", (0, "never reset"), ["state", "never reset"]),
    ):
        cases.append(Case("Vector", f"load_state({label})", load_case(label, args, tokens)))

    def never_reset_target(rng):
        env = make(rng, reset=False)
        state = Game(**settings).new_state()
        return env, lambda: env.load_state(0, state), ["state", "never reset"], None

    cases.append(Case("Vector", "load_state(a state never reset) into an env never reset", never_reset_target))

    def constructor_case(make_env, tokens):
        def build(rng):
            return None, make_env, tokens, None

        return build

    from uno_env.vector import UnoGymVectorEnv

    for label, make_env, tokens in (
        ("UnoVectorEnv(final_observation='no')", lambda: UnoVectorEnv(N, final_observation="no", **settings), None),
        ("UnoVectorEnv(final_observation=None)", lambda: UnoVectorEnv(N, final_observation=None, **settings), None),
        ("UnoVectorEnv(final_observation=1)", lambda: UnoVectorEnv(N, final_observation=1, **settings), None),
        ("UnoVectorEnv(parallel=1)", lambda: UnoVectorEnv(N, parallel=1, **settings), ["parallel", "1"]),
        ("UnoGymVectorEnv(copy='no')", lambda: UnoGymVectorEnv(N, copy="no", **settings), ["copy", "'no'"]),
        ("UnoGymVectorEnv(copy=None)", lambda: UnoGymVectorEnv(N, copy=None, **settings), ["copy", "None"]),
    ):
        if tokens is None:
            tokens = ["final_observation", label.split("=", 1)[1].rstrip(")")]
        cases.append(Case("Vector", label, constructor_case(make_env, tokens)))

    def size_case(rng):
        return None, lambda: UnoVectorEnv(10**9, **settings), ["num_envs", str(10**9)], None

    cases.append(Case("Vector", "UnoVectorEnv(10**9)", size_case))

    def adapter_case(label, call_of, tokens):
        def build(rng):
            from uno_env.vector import UnoGymVectorEnv

            env = UnoGymVectorEnv(N, **settings)
            env.reset(seed=round_seed)
            return env, call_of(env), tokens, lambda e: e.step(e.env.sample_actions().copy())

        return build

    for label, call_of, tokens in (
        ("reset(seed=[1, 2, 'x', 4])", lambda e: lambda: e.reset(seed=[1, 2, "x", 4]), ["seed", "'x'"]),
        ("reset(seed=-1)", lambda e: lambda: e.reset(seed=-1), ["seed", "-1"]),
        ("reset(options='x')", lambda e: lambda: e.reset(options="x"), ["options"]),
        ("reset(reset_mask=[1, 0])", lambda e: lambda: e.reset(options={"reset_mask": [1, 0]}), ["which"]),
        ("reset(options={'foo': 1})", lambda e: lambda: e.reset(options={"foo": 1}), ["option", "foo"]),
        ("reset(options={'position': ...})", lambda e: lambda: e.reset(seed=3, options=POSITION), ["position"]),
        ("step(floats)", lambda e: lambda: e.step(np.zeros(N)), ["float64"]),
    ):
        cases.append(Case("Vector", f"UnoGymVectorEnv.{label}", adapter_case(label, call_of, tokens)))

    def sb3_seed_case(seed):
        def build(rng):
            from uno_env.vector import UnoSB3VecEnv

            env = UnoSB3VecEnv(N, **settings)
            env.seed(round_seed)
            return env, lambda: env.seed(seed), ["seed", repr(seed)], lambda e: e.reset()

        return build

    for seed in (-1, 2**64 - 2, True):
        cases.append(Case("Vector", f"UnoSB3VecEnv.seed({seed!r})", sb3_seed_case(seed)))

    def misc_case(label, call_of, tokens):
        def build(rng):
            env = make(rng)
            return env, call_of(env), tokens, None

        return build

    for label, call_of, tokens in (
        ("step before reset", None, ["reset"]),
        ("game_state(True)", lambda env: lambda: env.game_state(True), ["index", "True"]),
        ("render_games(viewer=100)", lambda env: lambda: env.render_games("ansi", viewer=100), ["viewer", "100"]),
        ("play(max_decisions=-5)", lambda env: lambda: env.play(-5), ["max_decisions", "-5"]),
        ("play(max_decisions=0.5)", lambda env: lambda: env.play(0.5), ["max_decisions", "0.5"]),
    ):
        if call_of is None:

            def build(rng):
                env = make(rng, reset=False)
                return env, lambda: env.step(np.zeros(N, np.int64)), ["reset"], None

            cases.append(Case("Vector", label, build))
        else:
            cases.append(Case("Vector", label, misc_case(label, call_of, tokens)))
    return cases


def _readonly(n, dtype=None):
    import numpy as np

    array = np.zeros(n, dtype or np.int64)
    array.setflags(write=False)
    return array


AGENTS = ("random", "naive", "keeper", "tactical", "random_play", "ismcts:determinizations=8", "ppo")


def agent_cases(round_seed, settings):
    import numpy as np

    from uno_env.agents import make_agent
    from uno_env.engine import Game

    cases = []
    game = Game(**settings)

    def valid_input(rng):
        _, state = _game_state(round_seed, rng, **settings)
        seat = game.current_player(state)
        return game.observe(state, seat), game.legal_mask(state)

    def agent_next(obs, mask):
        return lambda agent: agent(obs, mask)

    names = [a for a in AGENTS if not (a == "ppo" and settings.get("num_players", 2) != 2)]
    size = game.observation_size
    for name in names:

        def spoiled(name, spoil_obs, spoil_mask, tokens):
            """An agent called with a valid observation and mask, one of them spoiled."""

            def build(rng):
                agent = make_agent(name, game, seed=round_seed)
                obs, mask = valid_input(rng)
                bad_obs, bad_mask = spoil_obs(obs), spoil_mask(mask)
                return agent, lambda: agent(bad_obs, bad_mask), tokens, agent_next(obs, mask)

            return build

        def kept(x):
            return x

        for label, make_obs, tokens in (
            ("all inf", lambda o: np.full(size, np.inf, np.float32), ["observation"]),
            ("all nan", lambda o: np.full(size, np.nan, np.float32), ["observation"]),
            ("all -inf", lambda o: np.full(size, -np.inf, np.float32), ["observation"]),
            ("huge counts", lambda o: np.full(size, 1e9, np.float32), ["observation"]),
            ("negative counts", lambda o: -np.abs(o) - 1, ["observation"]),
            ("short", lambda o: o[:-1], ["observation"]),
            ("None", lambda o: None, ["observation"]),
            ("strings", lambda o: np.array(["x"] * size), ["observation"]),
            ("masked", lambda o: np.ma.masked_array(o), ["observation"]),
        ):
            cases.append(Case("Agents", f"{name}: observation {label}", spoiled(name, make_obs, kept, tokens)))

        for label, make_mask, tokens in (
            ("all zeros", lambda m: np.zeros_like(m), ["mask"]),
            ("values 2", lambda m: m * 2, ["mask"]),
            ("values -1", lambda m: -m.astype(np.int8), ["mask"]),
            ("256 as int16", lambda m: m.astype(np.int16) * 256, ["mask"]),
            ("timedelta", lambda m: np.array([np.timedelta64(60)] * len(m)), ["mask"]),
            ("short", lambda m: m[:-1], ["mask"]),
            ("None", lambda m: None, ["mask"]),
        ):
            cases.append(Case("Agents", f"{name}: mask {label}", spoiled(name, kept, make_mask, tokens)))

        def only_one(name, action_name):
            def build(rng):
                agent = make_agent(name, game, seed=round_seed)
                obs, mask = valid_input(rng)
                action = game.string_to_action(action_name)
                only = np.zeros_like(mask)
                only[action] = 1
                return agent, lambda: agent(obs, only), None, None, action

            return build

        for action_name in ("catch", "pass", "challenge", "accept"):
            cases.append(Case("Agents", f"{name}: a mask that allows only {action_name}", only_one(name, action_name)))

        def bad_seed(name, seed):
            def build(rng):
                agent = make_agent(name, game, seed=round_seed)
                obs, mask = valid_input(rng)
                return agent, lambda: agent.reset(seed), ["seed", repr(seed)], agent_next(obs, mask)

            return build

        for seed in (True, -1, 2**64, 1.5):
            cases.append(Case("Agents", f"{name}: reset({seed!r})", bad_seed(name, seed)))

        def bad_make_seed(name, seed):
            def build(rng):
                return None, lambda: make_agent(name, game, seed=seed), ["seed", repr(seed)], None

            return build

        for seed in (True, -1, 2**64):
            cases.append(Case("Agents", f"make_agent({name!r}, seed={seed!r})", bad_make_seed(name, seed)))

    def compiled_policy(policy, label, make_inputs, tokens):
        def build(rng):
            from uno_env.learner import CompiledPolicy

            player = CompiledPolicy(policy, game, seed=round_seed)
            obs, mask = valid_input(rng)
            bad_obs, bad_mask = make_inputs(obs, mask)
            return player, lambda: player(bad_obs, bad_mask), tokens, agent_next(obs, mask)

        return build

    def only_catch(obs, mask):
        only = np.zeros_like(mask)
        only[game.string_to_action("catch")] = 1
        return obs, only

    for policy in ("naive", "tactical"):
        for label, make_inputs, tokens in (
            ("observation all inf", lambda o, m: (np.full(size, np.inf, np.float32), m), ["observation"]),
            ("observation short", lambda o, m: (o[:-1], m), ["observation"]),
            ("mask values 2", lambda o, m: (o, m * 2), ["mask"]),
            ("mask all zeros", lambda o, m: (o, np.zeros_like(m)), ["mask"]),
        ):
            cases.append(
                Case(
                    "Agents",
                    f"CompiledPolicy({policy!r}): {label}",
                    compiled_policy(policy, label, make_inputs, tokens),
                )
            )

        def catch_case(policy):
            def build(rng):
                from uno_env.learner import CompiledPolicy

                player = CompiledPolicy(policy, game, seed=round_seed)
                obs, mask = only_catch(*valid_input(rng))
                return player, lambda: player(obs, mask), None, None, game.string_to_action("catch")

            return build

        cases.append(Case("Agents", f"CompiledPolicy({policy!r}): a mask that allows only catch", catch_case(policy)))

    def spec_case(spec, tokens):
        def build(rng):
            return None, lambda: make_agent(spec, game, seed=round_seed), tokens, None

        return build

    n = game.num_players
    for spec, tokens in (
        (f"human:seat={n}", ["seat", str(n)]),
        ("human:seat=-1", ["seat", "-1"]),
        ("human:seat=true", ["seat", "True"]),
        ("human:stdin=1", ["stdin", "1"]),
        ("human:stdout=x", ["stdout", "'x'"]),
    ):
        cases.append(Case("Agents", f"make_agent({spec!r})", spec_case(spec, tokens)))

    def registry_case(call, tokens):
        def build(rng):
            from uno_env import agents

            return None, call, tokens, lambda _: (agents.agent_names(), agents.agent_descriptions())

        return build

    from uno_env.agents import register_agent

    cases.append(
        Case(
            "Agents", "register_agent('x', factory=5)", registry_case(lambda: register_agent("x", 5), ["factory", "5"])
        )
    )
    cases.append(
        Case(
            "Agents",
            "register_agent('x', factory=None)",
            registry_case(lambda: register_agent("x", None), ["factory", "None"]),
        )
    )
    register_agent("fuzz_raising", _raising_factory)
    cases.append(
        Case(
            "Agents",
            "make_agent of a factory raising ZeroDivisionError",
            registry_case(lambda: make_agent("fuzz_raising", game), ["fuzz_raising", "ZeroDivisionError"]),
        )
    )
    return cases


def _raising_factory(rules=None, seed=0, **options):
    """An agent factory that fails (door fuzz)."""
    return 1 // 0


def all_cases(budget: int, only: str | None = None) -> list[tuple[int, Case]]:
    """(round seed, case) for every round; round 0 is the default two-player game."""
    configurations = [
        {"num_players": 2},
        {"num_players": 3, "deck": "fashion_trend"},
        {"num_players": 4, "stacking": "mixed", "seven_o": True},
        {"num_players": 2, "jump_in": True, "uno_call": "window"},
    ]
    out = []
    for r in range(max(1, budget)):
        settings = configurations[r % len(configurations)]
        seed = 1000 + r
        for group in (engine_cases, aec_cases, gym_cases, vector_cases, agent_cases):
            out += [(seed, case) for case in group(seed, settings) if only is None or case.door == only]
    return out


# ---------------------------------------------------------------- running one case
class _Warnings(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def classify(round_seed: int, case: Case) -> tuple[str, str]:
    """Run one case in this process: its class and a short detail."""
    import numpy as np

    rng = np.random.default_rng(round_seed * 7919 + hash_text(case.door + case.label))
    built = case.build(rng)
    target, call, tokens, next_step = built[:4]
    answer = built[4] if len(built) > 4 else None
    before = snapshot(target, next_step)
    caught = _Warnings()
    logger = logging.getLogger("pettingzoo.utils.env_logger")
    logger.addHandler(caught)
    error = None
    with warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        try:
            result = call()
        except BaseException as err:  # noqa: BLE001  (sorted below)
            if isinstance(err, (KeyboardInterrupt, SystemExit)):
                raise
            error = err
    logger.removeHandler(caught)
    after = snapshot(target, next_step)
    if answer is not None:  # a mask allowing one action: that action is the answer (acting may draw)
        if error is not None:
            return ("clear", f"refused: {type(error).__name__}: {error}") if before == after else ("changed", "")
        if int(result) != answer:
            return "taken", f"answered {result!r}, the mask allows only {answer}"
        return "clear", "answered the one legal action"
    if error is None:
        said = [str(w.message) for w in issued] + caught.messages
        if said and before == after and any("reset" in m for m in said):
            return "clear", f"warned: {said[0]}"
        return "taken", f"accepted, returned {short(result)}"
    if before != after:
        return "changed", f"{type(error).__name__}: {short(str(error))}"
    message = str(error)
    kind = type(error).__name__
    if kind in UNCLEAR_TYPES or "numba" in type(error).__module__:
        return "unclear", f"{kind}: {short(message)}"
    missing = [t for t in tokens if t.lower() not in message.lower()]
    if missing:
        return "unclear", f"{kind} without {missing}: {short(message)}"
    return "clear", f"{kind}: {short(message)}"


def hash_text(text: str) -> int:
    value = 0
    for ch in text:
        value = (value * 131 + ord(ch)) % (2**31)
    return value


def short(value, limit=160) -> str:
    text = repr(value) if not isinstance(value, str) else value
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def child(budget: int, start: int, only: str | None = None) -> None:
    """Run the cases from ``start`` on, one JSON line each (a BEGIN line first)."""
    cases = all_cases(budget, only)
    print(json.dumps({"total": len(cases)}), flush=True)
    for i in range(start, len(cases)):
        seed, case = cases[i]
        print(json.dumps({"begin": i}), flush=True)
        try:
            kind, detail = classify(seed, case)
        except Exception as err:  # the case's own set-up failed: a harness problem, shown as such
            kind, detail = "setup", f"{type(err).__name__}: {short(str(err))}"
        print(
            json.dumps({"case": i, "door": case.door, "label": case.label, "class": kind, "detail": detail}), flush=True
        )


# ---------------------------------------------------------------- the parent
def run(budget: int = 1, boundscheck: bool = True, log=None, only: str | None = None) -> dict:
    """All cases in child processes (restarted after a crash); returns the per-case rows
    and the counts per class and door."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if boundscheck:
        env["NUMBA_BOUNDSCHECK"] = "1"
        env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba-boundscheck"))
    rows: list[dict] = []
    start, total = 0, None
    while total is None or start < total:
        errors = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  (closed below, once the child ended)
        process = subprocess.Popen(
            [sys.executable, str(pathlib.Path(__file__).resolve()), "--child", "--budget", str(budget)]
            + ["--start", str(start)]
            + (["--only", only] if only else []),
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
            cwd=str(ROOT),
            start_new_session=True,
        )
        current = None
        deadline = [time.monotonic() + 900]  # the first case waits for numba's compilation
        assert process.stdout is not None
        threading.Thread(target=_watchdog, args=(process, deadline), daemon=True).start()
        for line in process.stdout:
            record = json.loads(line)
            if "total" in record:
                total = record["total"]
            elif "begin" in record:
                current = record["begin"]
                if current > start:
                    deadline[0] = time.monotonic() + CASE_TIMEOUT_S
            else:
                rows.append(record)
                current = None
                if log is not None:
                    log(record)
        process.wait()
        errors.seek(0)
        stderr = errors.read()
        errors.close()
        if current is None:
            if total is None:
                raise RuntimeError(f"the fuzz child failed before its first case:\n{stderr[-3000:]}")
            done = max((r["case"] for r in rows), default=-1) + 1
            if done >= total:
                break
            if done <= start:
                raise RuntimeError(f"the fuzz child ended without running case {start}:\n{stderr[-3000:]}")
            start = done  # it died between two cases: go on from the next one
            continue
        cases = all_cases(budget, only)
        _, case = cases[current]
        reason = f"signal {-process.returncode}" if process.returncode < 0 else f"exit {process.returncode}"
        reason += f" ({short(stderr.strip().splitlines()[-1]) if stderr.strip() else 'no message'})"
        row = {"case": current, "door": case.door, "label": case.label, "class": "crash", "detail": reason}
        rows.append(row)
        if log is not None:
            log(row)
        start = current + 1
    counts = collections.Counter(r["class"] for r in rows)
    by_door: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in rows:
        by_door[r["door"]][r["class"]] += 1
    return {"rows": rows, "counts": dict(counts), "by_door": {d: dict(c) for d, c in by_door.items()}}


def _watchdog(process, deadline) -> None:
    """Kill the child (a hang) once ``deadline[0]`` (monotonic seconds) has passed."""
    while process.poll() is None:
        if time.monotonic() > deadline[0]:
            os.killpg(process.pid, signal.SIGKILL)
            return
        time.sleep(0.5)


def table(result: dict) -> str:
    doors = sorted(result["by_door"])
    classes = [c for c in CLASSES] + sorted(set(result["counts"]) - set(CLASSES))
    lines = ["| door | " + " | ".join(classes) + " | cases |", "|---" * (len(classes) + 2) + "|"]
    for door in doors:
        counts = result["by_door"][door]
        lines.append(
            f"| {door} | " + " | ".join(str(counts.get(c, 0)) for c in classes) + f" | {sum(counts.values())} |"
        )
    total = result["counts"]
    lines.append("| all | " + " | ".join(str(total.get(c, 0)) for c in classes) + f" | {sum(total.values())} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=int(os.environ.get("UNO_FUZZ_BUDGET", "1")))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--details", action="store_true", help="print every case that is not clear")
    parser.add_argument("--no-boundscheck", action="store_true")
    parser.add_argument("--only", choices=("Game", "AEC", "Gym", "Vector", "Agents"), help="one door only")
    args = parser.parse_args(argv)
    if args.child:
        child(args.budget, args.start, args.only)
        return 0
    result = run(args.budget, boundscheck=not args.no_boundscheck, only=args.only)
    if args.details:
        for row in result["rows"]:
            if row["class"] != "clear":
                print(f"{row['class']:8} {row['door']:7} {row['label']}: {row['detail']}")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
