"""The legacy reader of version-1 network files (the positional format: ``gather`` and
``params`` arrays of raw indices into ``P``, written until the format changed):
:func:`read_version_1` reads them against the layout they were written with, and
:func:`~uno_env.agents.neural.upgrade_network` rewrites one in the current format.

The layout version-1 files were written with (Param and SLICE_NAMES from the first
network, commit 75aebf5, until the name-keyed format): ``gather[:, 0]`` held
V1_O_FIRST + the slice's place in V1_SLICE_NAMES, and ``params`` the whole P vector
(V1_NUM_PARAMS entries), whose action blocks started at the entries V1_ACTION_BLOCKS.
Only this reader may use these numbers.
"""

from __future__ import annotations

import numpy as np

from .fileformat import PLAY_BLOCK, ActionBlock, InputSlice

V1_SLICE_NAMES = (
    "hand",
    "top_card",
    "colour",
    "previous_colour",
    "direction",
    "phase",
    "acting",
    "dealer",
    "hand_sizes",
    "scores",
    "alive",
    "draw_pile_size",
    "discard_pile",
    "drawn_card",
    "uno_called",
    "exposed",
    "after_window",
    "drew_on",
    "challenge_reveal",
    "challenge_reveal_seat",
    "trend_colour",
    "trend_shown",
)
V1_O_FIRST = 36
V1_NUM_PARAMS = V1_O_FIRST + len(V1_SLICE_NAMES)
V1_ACTION_BLOCKS = {
    "W": 24,
    "W+4": 25,
    "FT": 26,
    "draw": 27,
    "pass": 28,
    "uno": 29,
    "challenge": 30,
    "accept": 31,
    "catch": 32,
    "color": 33,
}
V1_A_LEN = 34


def read_version_1(gather: np.ndarray, params: np.ndarray) -> tuple[list[InputSlice], list[ActionBlock]]:
    """The inputs and action blocks of a version-1 file, its positional indices read
    against the layout it was written with (labels not recorded)."""
    gather = np.asarray(gather, dtype=np.int64)
    params = np.asarray(params, dtype=np.int64)
    if params.shape != (V1_NUM_PARAMS,) or gather.ndim != 2 or gather.shape[1] != 3:
        raise ValueError(f"a version-1 file of an unknown layout (params {params.shape}, gather {gather.shape})")
    return version_1_inputs(gather), version_1_actions(params)


def version_1_inputs(gather: np.ndarray) -> list[InputSlice]:
    """The slices of a version-1 ``gather`` table: per row, the index in ``P`` of its offset,
    its offset in the network input and its size."""
    inputs = []
    for index, offset, size in gather.tolist():
        if not V1_O_FIRST <= index < V1_NUM_PARAMS:
            raise ValueError(f"a version-1 file of an unknown layout (gather index {index})")
        inputs.append(InputSlice(V1_SLICE_NAMES[index - V1_O_FIRST], offset, size))
    return inputs


def version_1_actions(params: np.ndarray) -> list[ActionBlock]:
    """The action blocks of a version-1 ``params`` vector: a block starts at each entry of
    :data:`V1_ACTION_BLOCKS` it sets, the coloured plays at 0, the last ends at ``V1_A_LEN``'s."""
    starts = sorted((int(params[slot]), name) for name, slot in V1_ACTION_BLOCKS.items() if params[slot] >= 0)
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, PLAY_BLOCK))
    stops = [first for first, _ in starts[1:]] + [int(params[V1_A_LEN])]
    return [ActionBlock(name, first, stop - first) for (first, name), stop in zip(starts, stops)]
