"""Action kinds and step statuses: what ``decode_action`` makes of an action id, and what a
step answers."""

from __future__ import annotations

# action kinds (as in actions.py)
KIND_PLAY = 0
KIND_DRAW = 1
KIND_PASS = 2
KIND_UNO = 3
KIND_CHALLENGE = 4
KIND_ACCEPT = 5
KIND_CATCH = 6
KIND_COLOUR = 7
KIND_SWAP = 8

# step status: >= 0 the action was applied, < 0 it was refused and nothing changed
ST_OK = 0
ST_WRONG_PENALIZED = 1
ST_WRONG_LOST = 2
ST_GAME_OVER = -1
ST_OUT_OF_RANGE = -2
ST_NOT_HELD = -3
ST_NOT_AVAILABLE = -4
ST_WRONG_REFUSED = -5
