"""One line on stderr when numba really compiles (a cold cache), so that a first use is never silent.

A module of compiled functions says once what it is and roughly how long its first
compilation takes (:func:`describe`). A listener on numba's ``numba:compile`` event,
which numba fires only on a cache miss (never when it loads a function from the
cache), prints that module's line the first time one of its functions compiles in
the process, e.g.::

    uno_env: compiling the agents' compiled policies (once, cached for later runs; about 30 s;
    `uno warm` compiles everything at once)...

A compilation nested in another (a kernel compiling the engine functions it calls)
prints nothing: the outer line covers it. While a tqdm progress bar is on screen the
line is written above it (``tqdm.write``), so a bar that stops while numba compiles
says why. ``UNO_COMPILE_NOTICE=0`` silences the lines. :data:`COMPILED` records, per
module that announced, the seconds its top-level compilations took in this process.
"""

from __future__ import annotations

import os
import sys
import time

from numba.core import event

NOTICES: dict[str, tuple[str, float]] = {}
"""Per module name, what it compiles (in words) and roughly how many seconds its first
compilation takes on two idle cores (a busy machine takes longer)."""
ANNOUNCED: set[str] = set()
"""The lines this process printed (modules that describe themselves alike print one)."""
COMPILED: dict[str, float] = {}
"""Per announcing module, seconds spent compiling its functions (top level) in this process."""


def describe(module: str, what: str, seconds: float) -> None:
    """Announce ``module``'s compilations as ``what`` (e.g. "the compiled policies"),
    taking about ``seconds`` when the cache is empty."""
    NOTICES[module] = (what, seconds)


def notice_line(module: str) -> str:
    what, seconds = NOTICES[module]
    return (
        f"uno_env: compiling {what} (once, cached for later runs; about {seconds:.0f} s; "
        "`uno warm` compiles everything at once)..."
    )


def say(line: str) -> None:
    """Print ``line`` on stderr, above a tqdm bar if one is showing (tqdm is not imported here)."""
    tqdm = sys.modules.get("tqdm")
    bar = getattr(tqdm, "tqdm", None)
    if bar is not None and getattr(bar, "_instances", None):
        bar.write(line, file=sys.stderr)
    else:
        print(line, file=sys.stderr, flush=True)


class CompileListener(event.Listener):
    """Prints a module's notice at its first top-level compilation; times the compilations."""

    def __init__(self) -> None:
        self.depth = 0
        self.started: list[tuple[str | None, float]] = []

    def on_start(self, ev: event.Event) -> None:
        module = self.module_of(ev)
        if self.depth == 0 and module in NOTICES and notice_line(module) not in ANNOUNCED:
            ANNOUNCED.add(notice_line(module))
            if os.environ.get("UNO_COMPILE_NOTICE", "1") != "0":
                say(notice_line(module))
        self.started.append((module if self.depth == 0 else None, time.perf_counter()))
        self.depth += 1

    def on_end(self, ev: event.Event) -> None:
        self.depth = max(self.depth - 1, 0)
        if self.started:
            module, start = self.started.pop()
            if module in NOTICES:
                COMPILED[module] = COMPILED.get(module, 0.0) + time.perf_counter() - start

    @staticmethod
    def module_of(ev: event.Event) -> str | None:
        data = ev.data if isinstance(ev.data, dict) else {}
        function = getattr(data.get("dispatcher"), "py_func", None)
        return getattr(function, "__module__", None)


LISTENER = CompileListener()
event.register("numba:compile", LISTENER)
