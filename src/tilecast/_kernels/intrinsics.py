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


@intrinsic
def float_bits(typingctx, value):
    """The bits of a float64 as an int64 (a bit cast, no conversion)."""
    sig = types.int64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return sig, codegen


@intrinsic
def bits_float(typingctx, bits):
    """The float64 whose bits are the given int64 (a bit cast, no conversion)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return sig, codegen
