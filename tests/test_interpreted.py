"""The interpreted twin of the kernels (while numba compiles them in the background) plays
the same games as the compiled kernels, and the engine's entry points switch from one
to the other mid-game without a difference."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import numpy as np
import pytest

from tests.conftest import deck_for_deal
from tests.variants import params
from uno_env.engine import Game, RuleConfig
from uno_env.engine import game as game_module
from uno_env.engine import kernels as K
from uno_env.engine.entry import COMPILING, SIGNATURES, Engine, compiled_entry_points
from uno_env.engine.interpreted import kernels as interpreted_kernels
from uno_env.engine.layout import S_CURRENT, S_PHASE

PH_OVER = K.PH_OVER
STEPS = 300


def arrays(state) -> list[np.ndarray]:
    return [state.cards, state.ints, state.rng, state.ev, state.evn]


def same(a, b, where: str) -> None:
    for x, y, name in zip(arrays(a), arrays(b), ("cards", "ints", "rng", "ev", "evn")):
        assert np.array_equal(x, y), f"{where}: {name} differ"


@pytest.mark.parametrize("settings", params())
def test_the_interpreted_kernels_play_the_compiled_games(settings):
    """Every variant, two seeds, 300 steps (new games dealt as games end): after every
    call the states, observations, masks, rewards, statuses and summaries are equal."""
    twin = interpreted_kernels()
    compiled = types.SimpleNamespace(**compiled_entry_points())
    game = Game(RuleConfig(**settings))
    P = game.params
    for seed in (1, 2):
        ours, theirs = game.init(seed=seed), game.init(seed=seed)
        picker = np.random.default_rng(seed)
        for step in range(STEPS):
            if ours.ints[0, S_PHASE] == PH_OVER:
                with np.errstate(over="ignore"):
                    for functions, state in ((compiled, ours), (twin, theirs)):
                        state.evn[0] = 0
                        reset = functions.reset_game
                        reset(state.cards, state.ints, state.rng, P, 0, -1, False, state.ev, state.evn)
                same(ours, theirs, f"seed {seed} reset at step {step}")
                continue
            seat = int(ours.ints[0, S_CURRENT])
            outputs = []
            for functions, state in ((compiled, ours), (twin, theirs)):
                observation = np.zeros(game.observation_size, np.float32)
                mask = np.zeros(game.num_actions, np.int8)
                both_observation = np.zeros(game.observation_size, np.float32)
                both_mask = np.zeros(game.num_actions, np.int8)
                with np.errstate(over="ignore"):
                    functions.legal_mask(state.cards, state.ints, P, 0, mask)
                    functions.observe(state.cards, state.ints, P, 0, seat, observation)
                    functions.observe_and_mask(state.cards, state.ints, P, 0, seat, both_observation, both_mask)
                outputs.append((observation, mask, both_observation, both_mask))
            for x, y in zip(*outputs):
                assert np.array_equal(x, y), f"seed {seed} step {step}: observation or mask differ"
            action = int(picker.choice(np.flatnonzero(outputs[0][1])))
            if picker.random() < 0.1:
                action = int(picker.integers(game.num_actions))  # refused ones too: nothing changes
            name = "step_summary" if step % 2 else "step_game"
            results = []
            for functions, state in ((compiled, ours), (twin, theirs)):
                rewards = np.zeros((1, game.num_players), np.float32)
                with np.errstate(over="ignore"):
                    status = getattr(functions, name)(
                        state.cards, state.ints, state.rng, P, 0, action, rewards, state.ev, state.evn
                    )
                results.append((int(status), rewards))
            assert results[0][0] == results[1][0], f"seed {seed} step {step}: {name} returned differently"
            assert np.array_equal(results[0][1], results[1][1]), f"seed {seed} step {step}: rewards differ"
            same(ours, theirs, f"seed {seed} step {step} ({name})")


def test_a_game_dealt_from_a_deck_order_plays_the_same_through_game_interpreted(monkeypatch):
    """``Game``'s own methods (deal from a deck order, step, play) on an interpreted engine."""
    hands = [["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"], ["R+2", "G1", "G2", "G3", "G4", "G5", "G6"]]
    hands.append(["B1", "B2", "B3", "B4", "B5", "B6", "B7"])
    game = Game(num_players=3, stacking="same", seven_o=True)
    played = []
    for engine in (compiled_engine(), interpreted_engine()):
        monkeypatch.setattr(game_module, "ENGINE", engine)
        state = game.init_from_deck(deck_for_deal(hands, 0, "G+2"), dealer=0, seed=3)
        first = game.step(state, "accept")
        policy = lambda observation, mask: int(np.flatnonzero(mask)[-1])  # noqa: E731
        totals = game.play(state, [policy] * 3)
        played.append((arrays(state), repr(first.events), totals.tolist()))
    assert all(np.array_equal(x, y) for x, y in zip(played[0][0], played[1][0]))
    assert played[0][1:] == played[1][1:]


def compiled_engine() -> Engine:
    engine = Engine()
    engine.compile_here()
    return engine


def interpreted_engine() -> Engine:
    """An Engine that stays interpreted: its background command never ends during the test."""
    engine = Engine()
    engine.start_background([sys.executable, "-c", "import time; time.sleep(600)"])
    assert engine.process is not None
    engine.process.kill()
    engine.process.wait()
    engine.process = None  # killed and forgotten: no switch
    os.environ.pop(COMPILING, None)
    return engine


def test_the_engine_switches_to_the_compiled_kernels_mid_game_when_the_background_ends(capsys, engine_in_the_cache):
    """An Engine runs interpreted while its background command runs (here one that ends
    at once: the session's cache holds the compiled kernels, by the fixture), then compiled, and the
    game it steps is the one a compiled engine steps."""
    engine = Engine()
    engine.start_background([sys.executable, "-c", "import time; time.sleep(0.5)"])
    assert engine.mode == "interpreted"
    assert "background process" in capsys.readouterr().err
    reference = Engine()
    reference.compile_here()
    game = Game(num_players=4)
    ours, theirs = game.init(seed=7), game.init(seed=7)
    rewards = np.zeros((1, 4), np.float32)
    modes = []
    for step in range(400):
        for eng, state in ((engine, ours), (reference, theirs)):
            if state.ints[0, S_PHASE] == PH_OVER:
                break
            mask = np.zeros(game.num_actions, np.int8)
            eng.legal_mask(state.cards, state.ints, game.params, 0, mask)
            action = int(np.flatnonzero(mask)[step % int(mask.sum())])
            eng.step_game(state.cards, state.ints, state.rng, game.params, 0, action, rewards, state.ev, state.evn)
        modes.append(engine.mode)
        same(ours, theirs, f"step {step}")
        if step == 5:
            engine.process.wait()
    assert modes[0] == "interpreted" and modes[-1] == "compiled" and engine.process is None
    assert set(SIGNATURES) <= set(vars(engine))


def test_a_failed_background_compilation_is_redone_here(capsys):
    engine = Engine()
    engine.start_background([sys.executable, "-c", "raise SystemExit(3)"])
    engine.wait()
    assert engine.mode == "compiled"
    assert "the background compilation failed (exit status 3); compiling here" in capsys.readouterr().err


def test_a_worker_process_follows_its_parents_background_compilation_instead_of_starting_one(
    tmp_path, engine_in_the_cache
):
    """A process that inherits :data:`COMPILING` (a tournament's worker) runs interpreted
    while that process lives, starts no compilation of its own, and switches to the
    compiled entry points once the cache holds them (here the test session's cache,
    warmed by the fixture: at its first look, after FOLLOW_EVERY seconds)."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"])
    code = (
        "import time\n"
        "from uno_env.engine import Game\n"
        "from uno_env.engine.entry import ENGINE\n"
        "game = Game(num_players=2)\n"
        "print(ENGINE.mode, ENGINE.process)\n"
        "state = game.init(seed=1)\n"
        "while ENGINE.mode == 'interpreted':\n"
        "    game.legal_mask(state)\n"
        "    time.sleep(0.1)\n"
        "print(ENGINE.mode)\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "UNO_BACKGROUND_COMPILE"}
    environ[COMPILING] = str(sleeper.pid)
    done = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120)
    sleeper.wait()
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["interpreted None", "compiled"]
    assert "background process" not in done.stderr  # it started none
