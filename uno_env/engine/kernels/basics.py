"""The primitives every rule uses: each game's random generator and its event buffer."""

from __future__ import annotations

import numpy as np

from ..jit import describe, kernel

_U12 = np.uint64(12)
_U25 = np.uint64(25)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U33 = np.uint64(33)
_MUL = np.uint64(0x2545F4914F6CDD1D)


@kernel(inline="always")
def rng_below(rng, b, n):
    """Uniform integer in 0..n-1 from game b's xorshift64* generator."""
    x = rng[b]
    x ^= x >> _U12
    x ^= x << _U25
    x ^= x >> _U27
    rng[b] = x
    r = (x * _MUL) >> _U33
    return np.int64((r * np.uint64(n)) >> _U31)


@kernel
def shuffle_segment(pile, rng, b, start, count):
    """Shuffle ``pile[start:start + count]`` with game b's generator."""
    for i in range(count - 1, 0, -1):
        j = rng_below(rng, b, i + 1)
        tmp = pile[start + i]
        pile[start + i] = pile[start + j]
        pile[start + j] = tmp


# An explicit signature instead of numba-level inlining: one compiled emit for every call
# site (calls with literal arguments would each compile their own), which LLVM inlines
@kernel("void(int32[:, :, ::1], int32[::1], int64, int64, int64, int64, int64)")
def emit(ev, evn, b, kind, x, y, z):
    k = evn[b]
    if k < ev.shape[1]:
        ev[b, k, 0] = kind
        ev[b, k, 1] = x
        ev[b, k, 2] = y
        ev[b, k, 3] = z
    evn[b] = k + 1


describe(__name__, "the rules engine's kernels", seconds=45)
