"""``kernel`` and ``allocating``: numba's ``njit`` as the project's compiled functions use it.

Cached, and compiled without numba's reference counting (``_nrt=False``). With it,
numba increfs every array argument on entry to each compiled call and decrefs it on
exit, through ``NRT_incref``/``NRT_decref``, which numba marks ``noinline``: even for
the borrowed views of :mod:`borrow` (a null count, so nothing to count) each is a call
that LLVM must treat as touching memory, so every helper of the engine spills and
reloads around them. Without them the same games played 1.5-2.0x faster in
``play()`` and a vector env step took 1/1.5 of the time (docs/VECTOR.md, fifth round).

What that asks of the code: a kernel never allocates an array (numba refuses to
compile ``np.empty`` and friends there), never takes a new array back from an
allocating function (nothing would free it: ``tests/test_jit.py`` balances numba's
allocation counters over play) and never keeps a view of its arguments past the
call; the caller owns every array. The few functions that allocate (``play_batch_serial``'s
scratch rows, the determinization's pools, the network's layers) are
:func:`allocating`, which keeps the counting and says so: numba compiles a callee
that does not set the flag with its caller's, so a plain ``njit`` called from a
kernel would lose it.

``forceinline=True`` marks the hot path (``step_game`` with ``apply_action``,
``play_card``, ``finish_turn``, ``draw_one``; ``legal_mask`` with ``uno_available``;
``observe``; the random sampler): LLVM inlines it where it is called, so a call no
longer passes every array field by field through the stack. Unlike numba's own
``inline="always"``, which inlines numba IR and compiled slower here, it left the
first compilation where it was (docs/VECTOR.md, fifth round). Every other function
sets it False: numba would otherwise inherit it from the caller too.

``accessor``: the named places of the state arrays (:mod:`~uno_env.engine.state`) and
R-TURN-1's match (``cards.matches_on``) are inlined by numba into each compiled caller,
as ``kernel(inline="always")`` inlines ``rel_seat``: the compiled code is what the index
expression written out in place compiles to (no call, no signature of its own, so no
compilation per argument type), and an accessor that returns a view of its argument
needs no reference counting. Called from Python, an accessor is the plain function
(:class:`Accessor`): no compilation, and a view of a numpy array is a numpy view, so
that the interpreted kernels and the engine's Python code read the state through the
same functions. (numba's typed inlining, ``register_jitable(inline="always")``, gives
Python the plain function too, but took 40% longer to compile the engine.)

``describe(__name__, what, seconds)``: each module of compiled functions says what it
compiles, printed once on stderr when numba really compiles (:mod:`compile_notice`).
"""

from __future__ import annotations

from typing import Any

from numba import njit
from numba.core.registry import CPUDispatcher

from .compile_notice import describe

__all__ = ["Accessor", "accessor", "allocating", "describe", "kernel"]


def kernel(*args: Any, **options: Any) -> Any:
    """``njit(cache=True, _nrt=False, ...)``: ``@kernel``, ``@kernel(inline="always")``,
    ``@kernel("int64(int64)")``; other options pass through to ``njit``."""
    options.setdefault("_nrt", False)
    return _njit(args, options)


def allocating(*args: Any, **options: Any) -> Any:
    """``njit(cache=True, _nrt=True, ...)``: for the functions that allocate arrays, with
    numba's reference counting whatever their caller compiles with."""
    options.setdefault("_nrt", True)
    return _njit(args, options)


class Accessor(CPUDispatcher):
    """A function that numba inlines where compiled code calls it (``inline="always"``) and
    that Python calls as the plain function (never compiled on its own).

    ``__call__`` is a property that hands Python the plain function itself, so that a call
    from Python is the plain function's call, with no wrapper around it: the engine's
    Python code and the envs read the state through accessors at every step."""

    @property
    def __call__(self) -> Any:
        return self.py_func


def accessor(function: Any) -> Accessor:
    """``@accessor``: see :class:`Accessor` and the module's text."""
    return Accessor(function, targetoptions={"nopython": True, "inline": "always"})


def _njit(args: tuple, options: dict) -> Any:
    options.setdefault("cache", True)
    options.setdefault("forceinline", False)  # set, so that it is not inherited from a caller
    if len(args) == 1 and callable(args[0]):
        return njit(**options)(args[0])  # used bare: @kernel
    return njit(*args, **options)
