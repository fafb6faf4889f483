"""``borrow``: array views without reference counting, for the compiled functions that allocate."""

from __future__ import annotations

from numba.core import cgutils, ir_utils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic


def _view(context, builder, array_type, value):
    source = context.make_array(array_type)(context, builder, value=value)
    view = context.make_array(array_type)(context, builder)
    view.meminfo = cgutils.get_null_value(view.meminfo.type)
    view.parent = cgutils.get_null_value(view.parent.type)
    view.nitems = source.nitems
    view.itemsize = source.itemsize
    view.data = source.data
    view.shape = source.shape
    view.strides = source.strides
    return view._getvalue()


@intrinsic
def borrow(typingctx, array):
    """A view of ``array`` without its reference count (a null meminfo); of a tuple of
    arrays, the tuple of their views.

    For the compiled functions that keep numba's reference counting because they
    allocate (``policies.play_batch_serial``; the engine's functions are
    :func:`~uno_env.engine.jit.kernel`-s, which count nothing): numba increfs and
    decrefs every array they hold or slice with atomic operations on one shared
    counter per array, which cost more than the rules themselves and which every
    thread fights over in a parallel loop. They pass borrowed views instead, valid
    while the call lasts (the caller holds the arrays); nothing borrowed is stored or
    returned. Borrow arguments only: numba frees an array allocated inside a function
    after its last use, and a borrowed view of it would then point at freed memory."""

    if isinstance(array, types.BaseTuple):
        if not all(isinstance(t, types.Array) for t in array.types):
            raise TypingError(f"borrow: a tuple of arrays only, got {array}")

        def codegen(context, builder, signature, args):
            result = cgutils.get_null_value(context.get_value_type(array))
            for i, member in enumerate(array.types):
                view = _view(context, builder, member, builder.extract_value(args[0], i))
                result = builder.insert_value(result, view, i)
            return result

        return array(array), codegen

    if not isinstance(array, types.Array):
        raise TypingError(f"borrow: an array or a tuple of arrays, got {array}")

    def codegen_one(context, builder, signature, args):
        return _view(context, builder, array, args[0])

    return array(array), codegen_one


def _borrow_aliases(lhs, args, alias_map, arg_aliases):
    """Tell numba's alias analysis that ``borrow(a)`` is ``a``: without it, a ``prange`` loop
    that only writes into borrowed views looks dead to the parfor pass and is removed."""
    ir_utils._add_alias(lhs, args[0].name, alias_map, arg_aliases)


ir_utils.alias_func_extensions[("borrow", __name__)] = _borrow_aliases
