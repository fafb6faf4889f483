"""The rules kernels interpreted by Python: ``kernels.py`` loaded a second time, its numba
decorators made no-ops.

The twin module runs the very source the compiler compiles, with every other engine
module shared (cards, layout, events: the same objects), so it plays the same games
as the compiled kernels, step for step (``tests/test_interpreted.py`` compares
states, observations, masks, rewards and events in every variant). numba's integer
arithmetic wraps; so does numpy's on the generator's ``uint64`` scalars, with a
warning that the caller silences (:mod:`entry`). Used while numba compiles the
compiled ones in the background; about 0.2 ms per step instead of about 1 us.
"""

from __future__ import annotations

import builtins
import sys
import types
from pathlib import Path
from typing import Any

NAME = "uno_env.engine._interpreted_kernels"


def _as_is(*args: Any, **options: Any) -> Any:
    """``@kernel``, ``@kernel(...)``, ``@njit(...)``: the function itself."""
    if len(args) == 1 and callable(args[0]) and not options:
        return args[0]
    return lambda function: function


def _describe(*args: Any, **options: Any) -> None:
    return None


_numba = types.ModuleType("numba (interpreted)")
_numba.njit = _as_is  # type: ignore[attr-defined]
_numba.prange = range  # type: ignore[attr-defined]
_jit = types.ModuleType("uno_env.engine.jit (interpreted)")
_jit.kernel = _as_is  # type: ignore[attr-defined]
_jit.allocating = _as_is  # type: ignore[attr-defined]
_jit.describe = _describe  # type: ignore[attr-defined]


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name == "numba":
        return _numba
    if level == 1 and name == "jit":
        return _jit
    return builtins.__import__(name, globals, locals, fromlist, level)


def kernels() -> types.ModuleType:
    """The interpreted twin of :mod:`uno_env.engine.kernels` (loaded once per process)."""
    module = sys.modules.get(NAME)
    if module is None:
        path = Path(__file__).with_name("kernels.py")
        module = types.ModuleType(NAME)
        module.__file__ = str(path)
        module.__package__ = __package__  # its other relative imports are the engine's own modules
        module.__dict__["__builtins__"] = dict(vars(builtins), __import__=_import)
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
        sys.modules[NAME] = module
    return module
