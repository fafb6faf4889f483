"""The rules, compiled: reset, legal-action mask, step and observation kernels.

Every rule of RULES.md and HOUSE_RULES.md lives here, once, in the module of its area.
Each kernel works on game ``b`` of a batch and reads and writes the state arrays
through the named places of :mod:`~uno_env.engine.state` (see :mod:`~uno_env.engine.layout`
for the arrays). The single-game API, the PettingZoo env and the vector env all call
them, by their names in this package (``from uno_env.engine import kernels as K``;
``K.step_game``). The modules, each importing only those before it (:data:`MODULES`):

* ``codes``: action kinds and step statuses;
* ``basics``: each game's generator and its event buffer;
* ``legality``: whether a card may be played now (``may_play``, the one home of card legality);
* ``draw``: the piles, drawing and the reshuffle;
* ``turn_order``: the next seat in play, partners, whose decision comes next;
* ``uno``: the UNO call and the catch window;
* ``deal``: a new game, the dealer's draw, each round's deal and starting card;
* ``scoring``: round end, scoring, the game's end and a forfeit;
* ``challenge``: the Wild Draw Four's challenge and a stack's penalty decision;
* ``play``: a card played and all its effects (Fashion Trend, Seven-O's swaps included);
* ``turn``: the turn's decisions (play, draw, pass, UNO), a wrong card, a starting Wild's colour;
* ``house``: the house rules' decisions (a stack's penalty, the Seven-O choice, a jump-in), each
  with its legal actions (``house_mask``);
* ``step``: an action decoded and dispatched by phase, refusals, truncation, the summary;
* ``mask``: the legal-action mask;
* ``observe``: the observation;
* ``batch``: the drivers over a batch, serial or with ``prange``.

The hot path (``step_game``, ``apply_action``, ``play_card``, ``legal_mask``, ``observe``,
...) is force-inlined by LLVM (``kernel(forceinline=True)``, see :mod:`~uno_env.engine.jit`).
The pieces a long function is split into for reading, each with one caller (``play_card``'s
effects, the decisions ``apply_action`` hands an action to, ``observe``'s parts), are
inlined by numba (``kernel(inline="always")``), as are small helpers: the compiled function
is the one before the split, and compiles in the same time.

:mod:`~uno_env.engine.interpreted` loads the same modules a second time as plain Python.

Every function a module defines is exported here by its name, with no list to keep: a new
kernel is ``K.<name>`` as soon as its module defines it (:func:`defined_in`).
"""

from typing import Any

from ..layout import PH_OVER, S_CURRENT, S_PHASE  # read as K.S_CURRENT above the engine, as before the split
from ..pickling import LOWEST_PICKLE_PROTOCOL, NeedsPickleProtocol2
from . import basics as _basics
from . import batch as _batch
from . import challenge as _challenge
from . import codes as _codes
from . import deal as _deal
from . import draw as _draw
from . import house as _house
from . import legality as _legality
from . import mask as _mask
from . import observe as _observe
from . import play as _play
from . import scoring as _scoring
from . import step as _step
from . import turn as _turn
from . import turn_order as _turn_order
from . import uno as _uno
from .codes import (
    KIND_ACCEPT,
    KIND_CATCH,
    KIND_CHALLENGE,
    KIND_COLOUR,
    KIND_DRAW,
    KIND_PASS,
    KIND_PLAY,
    KIND_SWAP,
    KIND_UNO,
    ST_GAME_OVER,
    ST_NOT_AVAILABLE,
    ST_NOT_HELD,
    ST_OK,
    ST_OUT_OF_RANGE,
    ST_WRONG_LOST,
    ST_WRONG_PENALIZED,
    ST_WRONG_REFUSED,
)
from .deal import HAND_START
from .observe import observe  # the kernel, not its module, for type checkers (the loop below sets it too)
from .step import (
    SUMMARY_ALIVE,
    SUMMARY_PHASE,
    SUMMARY_REWARDED,
    SUMMARY_SEAT,
    SUMMARY_STATUS,
    SUMMARY_STATUS_BIAS,
)

MODULES = (
    "codes",
    "basics",
    "legality",
    "draw",
    "turn_order",
    "uno",
    "deal",
    "scoring",
    "challenge",
    "play",
    "turn",
    "house",
    "step",
    "mask",
    "observe",
    "batch",
)
"""The modules of this package in the order they import each other (each only those before it)."""


def defined_in(module) -> dict[str, Any]:
    """The public functions (kernels, compiled or not) that ``module`` defines itself."""
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_") and callable(value) and getattr(value, "__module__", None) == module.__name__
    }


_KERNELS: dict[str, Any] = {}
for _module in (_codes, _basics, _legality, _draw, _turn_order, _uno, _deal, _scoring, _challenge, _play, _turn):
    _KERNELS.update(defined_in(_module))
for _module in (_house, _step, _mask, _observe, _batch):
    _KERNELS.update(defined_in(_module))
globals().update(_KERNELS)

__all__ = [
    "HAND_START",
    "observe",
    "KIND_ACCEPT",
    "KIND_CATCH",
    "KIND_CHALLENGE",
    "KIND_COLOUR",
    "KIND_DRAW",
    "KIND_PASS",
    "KIND_PLAY",
    "KIND_SWAP",
    "KIND_UNO",
    "LOWEST_PICKLE_PROTOCOL",
    "NeedsPickleProtocol2",
    "PH_OVER",
    "ST_GAME_OVER",
    "ST_NOT_AVAILABLE",
    "ST_NOT_HELD",
    "ST_OK",
    "ST_OUT_OF_RANGE",
    "ST_WRONG_LOST",
    "ST_WRONG_PENALIZED",
    "ST_WRONG_REFUSED",
    "SUMMARY_ALIVE",
    "SUMMARY_PHASE",
    "SUMMARY_REWARDED",
    "SUMMARY_SEAT",
    "SUMMARY_STATUS",
    "SUMMARY_STATUS_BIAS",
    "S_CURRENT",
    "S_PHASE",
]
__all__ += sorted(set(_KERNELS) - {"observe"})


def __getattr__(name: str) -> Any:
    """Type checkers: the kernels are set above by name (a missing one is an AttributeError)."""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
