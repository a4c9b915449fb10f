"""Small LLVM intrinsics that Numba does not expose."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring ``array[index]`` into the cache, without waiting for it.

    A hint only: it never faults and never reads the element, so an index
    outside the array is harmless (nothing is checked).
    """
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        function = builder.module.declare_intrinsic("llvm.prefetch", fnty=function_type)
        # read access, highest locality, data cache
        builder.call(function, [address, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
