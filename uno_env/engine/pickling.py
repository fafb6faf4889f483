"""Pickling of the engine's objects: the lowest protocol, and a mixin that refuses lower ones by name."""

from __future__ import annotations

import pickle

LOWEST_PICKLE_PROTOCOL = 2
"""The lowest pickle protocol the engine's objects and the envs pickle with (0 and 1 cannot
pickle a class with ``__slots__``, such as a State)."""


class NeedsPickleProtocol2:
    """Mixin: pickling with protocol 0 or 1 is refused with a message naming the lowest that
    works (instead of an obscure error from somewhere inside)."""

    __slots__ = ()

    def __reduce_ex__(self, protocol):
        if protocol < LOWEST_PICKLE_PROTOCOL:
            raise pickle.PicklingError(
                f"a {type(self).__name__} pickles with protocol {LOWEST_PICKLE_PROTOCOL} or higher "
                f"(the lowest that works), not protocol {protocol}"
            )
        return super().__reduce_ex__(protocol)
