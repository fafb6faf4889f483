"""The UNO rules engine: numpy and numba only.

``Game`` is the single-game API; the vector env drives the same kernels in batch.
"""

from . import numba_cache

numba_cache.refresh()  # before any kernel is loaded from the cache

from .actions import ActionTable  # noqa: E402
from .cards import card_to_str, parse_card  # noqa: E402
from .config import RuleConfig  # noqa: E402
from .events import describe  # noqa: E402
from .game import Game, IllegalActionError, State, StepResult, action_id, action_ids  # noqa: E402
from .observation import ObservationSpec  # noqa: E402
from .position import PositionError  # noqa: E402

__all__ = [
    "ActionTable",
    "Game",
    "IllegalActionError",
    "ObservationSpec",
    "PositionError",
    "RuleConfig",
    "State",
    "StepResult",
    "action_id",
    "action_ids",
    "card_to_str",
    "describe",
    "parse_card",
]
