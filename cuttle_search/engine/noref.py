"""Array views that hold no reference, for the hot kernels.

Numba counts references to every array a compiled function holds: a call increfs each
array argument on entry and decrefs it on the way out, with atomic instructions inside a
function LLVM may not inline, unless Numba's pruning pass proves the pair useless (it
often cannot: a ``break`` out of a loop, several returns). Measured on the search
(``perf``), those calls took a fifth of the kernel time, for arrays that the caller keeps
alive throughout anyway.

``borrow(a)`` is ``a`` with a null memory-info pointer: the same data, shape and strides,
but every reference count operation on it is a test of a null pointer, which LLVM removes
where it inlines. A kernel borrows its array arguments once on entry and passes the views
on, so nothing below it touches a reference count. The rule that makes it safe: a borrowed
view never outlives the call that made it (it is never returned or stored), which holds in
the engine since its kernels allocate nothing and return numbers.
"""

from numba import types
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, arr):
    """``arr`` as a view that holds no reference (see the module docstring)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        out = context.make_array(sig.return_type)(context, builder)
        for name in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(src, name))
        out.meminfo = context.get_constant_null(types.MemInfoPointer(types.voidptr))
        return out._getvalue()

    return arr(arr), codegen
