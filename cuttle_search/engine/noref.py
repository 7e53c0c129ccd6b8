"""Array views that hold no reference, and a hint to fetch an element early, for the hot
kernels.

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

``prefetch(a, i)`` asks the processor to start bringing ``a[i]``'s cache line in and goes
on at once: a kernel that will soon read a node of a tree too large for the cache issues it
before the work it can do meanwhile (see the tree walk in ``ismcts.py``). It never faults
and changes nothing but timing.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
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


@intrinsic
def prefetch(typingctx, arr, index):
    """Start loading ``arr[index]`` into the cache (LLVM's ``prefetch``: a read, kept in
    every cache level); returns nothing and never faults, whatever ``index`` is."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        aryty, idxty = sig.args
        ary = context.make_array(aryty)(context, builder, value=args[0])
        at = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer2(context, builder, ary.data, cgutils.unpack_tuple(builder, ary.shape),
                                        cgutils.unpack_tuple(builder, ary.strides), aryty.layout, [at],
                                        wraparound=False, boundscheck=False)
        byte_ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr.type, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte_ptr.type], fnty)  # (named for the pointer type)
        builder.call(fn, [byte_ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, index), codegen
