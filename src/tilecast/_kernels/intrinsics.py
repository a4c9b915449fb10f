"""Small LLVM intrinsics that Numba does not expose."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
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


@intrinsic
def lowest_bit(typingctx, bits):
    """The position of the lowest set bit of a nonzero uint64 (count trailing zeros).

    For ``bits == 0`` the answer is 64.
    """
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.IntType(1)(0))

    return sig, codegen


@intrinsic
def claim(typingctx, counter, amount):
    """Add ``amount`` to ``counter[0]`` atomically and return its value before.

    ``counter`` is a one-element int64 array shared by the threads of a batch:
    each takes the next ``amount`` items with one call, and no two threads
    get the same ones (a relaxed atomic add: only the counter itself is
    ordered, which is all the claim needs). The index is not checked.
    """
    sig = types.int64(counter, types.int64)

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.atomic_rmw("add", data, args[1], "monotonic")

    return sig, codegen


def compiled_address(dispatcher: Any, signature: Any) -> int:
    """The address of ``dispatcher``'s machine code for ``signature`` (Numba's calling convention).

    For :func:`caller_of`. ``signature`` is a full Numba signature
    (``return_type(*argument_types)``); the kernel is compiled (or loaded from
    the cache) if it is not yet, and its return type must be the declared
    one, which :func:`caller_of` compiled its callers against. The code
    lives as long as the dispatcher (a module global).
    """
    dispatcher.compile(signature.args)
    overload = dispatcher.overloads[signature.args]
    if overload.signature.return_type != signature.return_type:
        raise TypeError(
            f"{dispatcher.py_func.__name__} returns {overload.signature.return_type}, "
            f"declared {signature.return_type}"
        )
    address: int = overload.library.get_pointer_to_function(overload.fndesc.llvm_func_name)
    if not address:  # compiled only into its callers (tilecast._kernels.link_only)
        raise TypeError(
            f"{dispatcher.py_func.__name__} has no machine code of its own: "
            "compile it with @internal(by_address=True)"
        )
    return address


def caller_of(dispatcher: Any, signature: Any) -> Any:
    """An intrinsic ``call(address, *args)`` that calls ``dispatcher``'s code at a run-time address.

    A kernel that calls another kernel directly links the callee's code into
    its own and has LLVM optimise and compile all of it again (Numba
    finalises every function with its callees linked in). For a large callee
    used from several entry points (the one walk) that multiplies the first
    compile. Called through its address (:func:`compiled_address`, passed in
    from Python as an int64), the callee is compiled once; the call costs an
    indirect call and no inlining, which a large function does not get anyway.

    ``signature`` is the callee's full signature, return type included, so
    a caller compiles without the callee being compiled first (the two can
    compile side by side, :mod:`tilecast._kernels.jobs`);
    :func:`compiled_address` checks the return type when it hands out the
    address. The arguments are converted to ``signature`` as a direct call
    would.
    """
    target = signature

    @intrinsic
    def call(typingctx: Any, address: Any, *args: Any) -> Any:
        if not isinstance(address, types.Integer) or len(args) != len(target.args):
            return None
        for given, wanted in zip(args, target.args, strict=True):
            if typingctx.can_convert(given, wanted) is None:
                return None

        def codegen(context: Any, builder: Any, call_signature: Any, llargs: Any) -> Any:
            given_types = call_signature.args[1].types
            values = [
                context.cast(builder, value, given, wanted)
                for value, given, wanted in zip(
                    cgutils.unpack_tuple(builder, llargs[1]),
                    given_types,
                    target.args,
                    strict=True,
                )
            ]
            function_type = context.call_conv.get_function_type(target.return_type, target.args)
            function = builder.inttoptr(llargs[0], function_type.as_pointer())
            status, result = context.call_conv.call_function(
                builder, function, target.return_type, target.args, values
            )
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return result

        return target.return_type(types.int64, types.StarArgTuple(tuple(args))), codegen

    return call


@intrinsic
def load_int64(typingctx, address, index):
    """The int64 at ``address + 8 * index``: a raw load, nothing is checked.

    For a table of kernel addresses that a kernel gets as one integer (the
    casts' query ``at``, :func:`tilecast._kernels.casts.table_address`):
    one argument where a tuple of addresses would cost a conversion each
    on every call from Python.
    """
    if not isinstance(address, types.Integer) or not isinstance(index, types.Integer):
        return None
    sig = types.int64(address, index)

    def codegen(context, builder, signature, args):
        base = context.cast(builder, args[0], signature.args[0], types.int64)
        k = context.cast(builder, args[1], signature.args[1], types.int64)
        i64 = ir.IntType(64)
        return builder.load(builder.gep(builder.inttoptr(base, i64.as_pointer()), [k]))

    return sig, codegen
