"""The engine's entry points for Python: compiled, or interpreted while numba compiles them.

``Game``, the PettingZoo env and the Gym env call the rules through :data:`ENGINE`
(``ENGINE.step_game(...)``, one attribute per name of :data:`SIGNATURES`). The first
call of a process prepares them:

* numba's cache holds them (every run after the first, or after ``uno warm``): they
  are loaded from it, about a second, and called directly (a compiled entry point for
  the one signature Python calls with, without numba's per-call dispatch);
* the cache does not (a newcomer's first run): a background process compiles them
  into the cache (about 45 s on two idle cores) while the same functions run
  interpreted by Python (:mod:`interpreted`: the same source, so the same games, at a
  fraction of the speed). One line on stderr says so. The first call after that
  process finishes loads the compiled ones, and the game goes on where it was. A
  background compile that fails is redone in this process, with numba's line.

A process started from this one while it compiles (a tournament's workers) runs
interpreted too and follows the same background process (:data:`COMPILING`).
``UNO_BACKGROUND_COMPILE=0`` compiles in this process instead (the first call waits).
Under ``NUMBA_DISABLE_JIT=1`` the kernels are plain functions and are called as such.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import types

from . import interpreted, numba_cache
from . import kernels as K
from .compile_notice import say

CARDS = types.Array(types.int8, 2, "C")
INTS = types.Array(types.int32, 2, "C")
RNG = types.Array(types.uint64, 1, "C")
PARAMS = types.Array(types.int64, 1, "C")
EVENTS = types.Array(types.int32, 3, "C")
COUNTS = types.Array(types.int32, 1, "C")
REWARDS = types.Array(types.float32, 2, "C")
OBSERVATION = types.Array(types.float32, 1, "C")
MASK = types.Array(types.int8, 1, "C")
"""The numba types of the arrays Python hands the kernels (a State's, the Game's parameters,
the step's buffers): the signatures below, and those of the kernels above the engine."""
_int = types.int64

SIGNATURES: dict[str, tuple] = {
    "reset_game": (CARDS, INTS, RNG, PARAMS, _int, _int, types.boolean, EVENTS, COUNTS),
    "reset_from_deck": (CARDS, INTS, RNG, PARAMS, _int, _int, EVENTS, COUNTS),
    "step_game": (CARDS, INTS, RNG, PARAMS, _int, _int, REWARDS, EVENTS, COUNTS),
    "step_summary": (CARDS, INTS, RNG, PARAMS, _int, _int, REWARDS, EVENTS, COUNTS),
    "step_and_observe": (CARDS, INTS, RNG, PARAMS, _int, _int, REWARDS, EVENTS, COUNTS, OBSERVATION, MASK),
    "legal_mask": (CARDS, INTS, PARAMS, _int, MASK),
    "observe": (CARDS, INTS, PARAMS, _int, _int, OBSERVATION),
    "observe_and_mask": (CARDS, INTS, PARAMS, _int, _int, OBSERVATION, MASK),
}
"""Each kernel Python calls, with the one signature it calls it with (a State's arrays,
the Game's parameters, Python integers)."""

BACKGROUND_SECONDS = 45
"""About how long the background compilation takes on two idle cores."""
COMPILING = "UNO_ENGINE_COMPILING"
"""The environment variable that tells worker processes which process compiles the engine
(its pid): they run interpreted until it is done instead of starting their own."""
FOLLOW_EVERY = 2.0
"""Seconds between a worker's looks at the cache while another process compiles."""


class Engine:
    """The entry points of :data:`SIGNATURES` as attributes, prepared at first use."""

    reset_game: Callable[..., Any]
    reset_from_deck: Callable[..., Any]
    step_game: Callable[..., Any]
    step_summary: Callable[..., Any]
    step_and_observe: Callable[..., Any]
    legal_mask: Callable[..., Any]
    observe: Callable[..., Any]
    observe_and_mask: Callable[..., Any]

    def __init__(self) -> None:
        self.mode = "unprepared"
        """"compiled", "interpreted" (while the background process compiles), "plain"
        (``NUMBA_DISABLE_JIT=1``) or "unprepared"."""
        self.process: subprocess.Popen | None = None
        self.compiling = 0
        """The pid of the process compiling in the background (0: none)."""
        self.owner: int | None = None
        """The pid of the process that started it (None: started by another process)."""
        self.next_look = 0.0
        for name in SIGNATURES:
            setattr(self, name, self._preparing(name))

    def _preparing(self, name: str):
        def first_call(*args):
            self.prepare()
            return getattr(self, name)(*args)

        return first_call

    def prepare(self) -> None:
        """Make the entry points callable (see the module's text); idempotent."""
        if self.mode != "unprepared":
            return
        if not hasattr(K.step_game, "compile"):  # NUMBA_DISABLE_JIT=1
            self._install({name: getattr(K, name) for name in SIGNATURES}, "plain")
        elif os.environ.get("UNO_BACKGROUND_COMPILE", "1") == "0":
            self.compile_here()
        elif alive(_compiling_pid()):  # a parent's background compilation (a worker process)
            self._go_interpreted(_compiling_pid(), owner=None)
        elif all_cached():
            self.compile_here()
        else:
            self.start_background()

    def compile_here(self) -> None:
        self._install(compiled_entry_points(), "compiled")

    def start_background(self, command: list[str] | None = None) -> None:
        """Interpreted entry points while ``command`` (default: compile :data:`SIGNATURES`
        into the cache) runs in a background process."""
        environ = dict(os.environ, UNO_COMPILE_NOTICE="0", UNO_BACKGROUND_COMPILE="0")
        self.process = subprocess.Popen(
            command or [sys.executable, "-c", "from uno_env.engine.entry import compiled_entry_points as c; c()"],
            env=environ,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C here does not stop it: the cache gets written
        )
        os.environ[COMPILING] = str(self.process.pid)  # worker processes started from here follow it
        if os.environ.get("UNO_COMPILE_NOTICE", "1") != "0":
            say(
                f"uno_env: compiling the rules engine in a background process (once, cached for later runs; "
                f"about {BACKGROUND_SECONDS} s); meanwhile Game and the envs run the same rules interpreted by "
                "Python (the same games, slower). `uno warm` compiles everything at once."
            )
        self._go_interpreted(self.process.pid, owner=os.getpid())

    def _go_interpreted(self, compiling: int, owner: int | None) -> None:
        twin = interpreted.kernels()
        self.compiling, self.owner, self.next_look = compiling, owner, time.monotonic() + FOLLOW_EVERY
        self._install({name: self._interpreted(getattr(twin, name)) for name in SIGNATURES}, "interpreted")

    def _interpreted(self, function):
        def call(*args):
            self.look()
            with np.errstate(over="ignore"):  # the generator's uint64 products wrap, as compiled
                return function(*args)

        call.__name__ = function.__name__
        return call

    def look(self) -> None:
        """Switch to the compiled entry points once the background compilation is over: the
        process that started it polls it; another (a worker started or forked from it)
        looks every :data:`FOLLOW_EVERY` seconds whether the cache holds them or the
        compiling process is gone."""
        if self.owner == os.getpid():
            if self.process is not None and self.process.poll() is not None:
                self.background_done()
            return
        now = time.monotonic()
        if now < self.next_look:
            return
        self.next_look = now + FOLLOW_EVERY
        if not alive(self.compiling) or all_cached():
            self.process = None
            self.compile_here()

    def background_done(self) -> None:
        """The background process ended: load what it cached (or, if it failed, compile here)."""
        process, self.process = self.process, None
        if os.environ.get(COMPILING) == str(getattr(process, "pid", None)):
            del os.environ[COMPILING]
        if process is not None and process.returncode != 0:
            say(f"uno_env: the background compilation failed (exit status {process.returncode}); compiling here")
        self.compile_here()

    def wait(self) -> None:
        """Wait for a background compilation and switch to the compiled entry points."""
        self.prepare()
        if self.mode != "interpreted":
            return
        if self.owner == os.getpid() and self.process is not None:
            self.process.wait()
            self.background_done()
            return
        while self.mode == "interpreted":
            time.sleep(FOLLOW_EVERY)
            self.look()

    def _install(self, functions: dict[str, Any], mode: str) -> None:
        for name, function in functions.items():
            setattr(self, name, function)
        self.mode = mode


def compiled_entry_points() -> dict[str, Any]:
    """The compiled entry point of each kernel of :data:`SIGNATURES` (compiled or loaded from
    the cache). Sources edited while they compiled disown what went into the cache
    (``numba_cache.disown_if_edited``): a background compile started before an edit must not
    leave the old rules there."""
    compiled = {name: getattr(K, name).compile(signature) for name, signature in SIGNATURES.items()}
    numba_cache.disown_if_edited()
    return compiled


def _compiling_pid() -> int:
    value = os.environ.get(COMPILING, "")
    return int(value) if value.isdigit() else 0


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (0: no process)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: it exists
        return True
    return True


def all_cached() -> bool:
    """Whether numba's cache holds every entry point of :data:`SIGNATURES` (or this process
    compiled them already)."""
    for name, signature in SIGNATURES.items():
        dispatcher = getattr(K, name)
        if tuple(signature) in dispatcher.overloads:
            continue
        if dispatcher._cache.load_overload(signature, dispatcher.targetctx) is None:
            return False
    return True


ENGINE = Engine()
"""The process's entry points (see the module's text)."""
