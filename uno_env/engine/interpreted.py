"""The rules kernels interpreted by Python: the package :mod:`uno_env.engine.kernels` loaded a
second time, its numba decorators made no-ops.

The twin package runs the very source the compiler compiles: each module of the kernels
is executed again as a twin module, its imports of the other kernel modules answered by
their twins, every other engine module shared (cards, layout, events, the state's
accessors, which are plain Python anyway: the same objects), so it plays the same games
as the compiled kernels, step for step (``tests/test_interpreted.py`` compares states,
observations, masks, rewards and events in every variant). numba's integer arithmetic
wraps; so does numpy's on the generator's ``uint64`` scalars, with a warning that the
caller silences (:mod:`entry`). Used while numba compiles the compiled ones in the
background; about 0.2 ms per step instead of about 1 us.
"""

from __future__ import annotations

import builtins
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

PACKAGE = "uno_env.engine.kernels"
"""The package of compiled kernels that gets a twin."""
NAME = "uno_env.engine._interpreted_kernels"
"""The twin package's name (its modules are ``NAME.<module>``)."""
FOLDER = Path(__file__).with_name("kernels")


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
    """The twin modules' ``__import__``: numba and the decorators made no-ops, the kernel
    modules answered by their twins, anything else imported as usual."""
    if level == 0 and name == "numba":
        return _numba
    target = importlib.util.resolve_name("." * level + name, (globals or {}).get("__package__")) if level else name
    if target == "uno_env.engine.jit":
        return _jit
    if target == PACKAGE or target.startswith(PACKAGE + "."):
        module = _twin(target)
        for item in fromlist or ():  # ``from . import basics``
            if (FOLDER / f"{item}.py").exists() and target == PACKAGE:
                setattr(module, item, _twin(f"{PACKAGE}.{item}"))
        return module
    return builtins.__import__(name, globals, locals, fromlist, level)


def _twin(real: str) -> types.ModuleType:
    """The twin of kernel module ``real`` (the package or one of its modules), loaded once."""
    name = NAME + real[len(PACKAGE) :]
    module = sys.modules.get(name)
    if module is None:
        is_package = real == PACKAGE
        path = FOLDER / ("__init__.py" if is_package else f"{real.rpartition('.')[2]}.py")
        module = types.ModuleType(name)
        module.__file__ = str(path)
        # relative imports resolve against the real package: its other engine modules are shared
        module.__package__ = PACKAGE
        module.__dict__["__builtins__"] = dict(vars(builtins), __import__=_import)
        sys.modules[name] = module  # before it runs: a module that imports it back finds it
        try:
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)
        except BaseException:
            del sys.modules[name]
            raise
    return module


def kernels() -> types.ModuleType:
    """The interpreted twin of :mod:`uno_env.engine.kernels` (loaded once per process)."""
    return _twin(PACKAGE)
