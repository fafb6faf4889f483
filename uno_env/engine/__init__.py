"""The UNO rules engine: numpy and numba only.

``Game`` is the single-game API; the vector env drives the same kernels in batch.
"""

from .actions import ActionTable
from .cards import card_to_str, parse_card
from .config import RuleConfig
from .events import describe
from .game import Game, IllegalActionError, State, StepResult
from .observation import ObservationSpec
from .position import PositionError

__all__ = [
    "ActionTable",
    "Game",
    "IllegalActionError",
    "ObservationSpec",
    "PositionError",
    "RuleConfig",
    "State",
    "StepResult",
    "card_to_str",
    "describe",
    "parse_card",
]
