"""Kernels compiled with ``tilecast._kernels.internal`` are never called from Python.

Such a kernel has no Python entry wrapper (it shortens the first compile),
so a call from Python would crash the process instead of raising. This test
reads every module outside ``tilecast._kernels`` and fails if one imports an
internal kernel or calls one through the kernel-module loader
(``kernels("family")`` of ``tilecast._engine``, or a name bound to a kernel
module).
"""

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import tilecast
import tilecast._kernels

SRC = Path(tilecast.__file__).resolve().parent
ACCESSORS = {"kernels", "_kernels"}  # tilecast._engine.kernels(family)
ALIASES = {"kg", "kv", "kernel", "kernels"}


def _internal_kernels() -> dict[str, set[str]]:
    """Internal kernel names per kernel module (``walk`` -> {"order", ...})."""
    found: dict[str, set[str]] = {}
    for info in pkgutil.iter_modules(tilecast._kernels.__path__):
        module = importlib.import_module(f"tilecast._kernels.{info.name}")
        names = {
            name
            for name, value in vars(module).items()
            if getattr(value, "targetoptions", {}).get("no_cpython_wrapper")
            and getattr(value, "py_func", None) is not None
            and value.py_func.__module__ == module.__name__
        }
        found[info.name] = names
    return found


def _python_modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "_kernels" not in p.relative_to(SRC).parts)


def _uses(tree: ast.AST, internal: dict[str, set[str]]) -> list[str]:
    every = set().union(*internal.values())
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "tilecast._kernels."
        ):
            module = node.module.rsplit(".", 1)[-1]
            uses += [
                f"import {alias.name}"
                for alias in node.names
                if alias.name in internal.get(module, set())
            ]
        elif isinstance(node, ast.Attribute) and node.attr in every:
            value = node.value
            through_accessor = (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id in ACCESSORS
            )
            if through_accessor or (isinstance(value, ast.Name) and value.id in ALIASES):
                uses.append(f".{node.attr}")
    return uses


def test_internal_kernels_exist():
    internal = _internal_kernels()
    assert "order" in internal["walk"]  # the check below has something to look for
    assert "walk" not in internal["walk"]  # the walk itself is called from Python


@pytest.mark.parametrize("path", _python_modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_python_call_of_an_internal_kernel(path):
    uses = _uses(ast.parse(path.read_text(encoding="utf-8")), _internal_kernels())
    assert not uses, f"{path.name} calls internal kernels from Python: {uses}"


def test_the_check_catches_an_import_and_an_accessor_call():
    internal = {"walk": {"order"}, "geometry": {"orient2d"}}
    source = (
        "from tilecast._kernels.walk import order\n"
        "def f():\n    return kernels('geometry').orient2d(1, 2)\n"
        "def g(kg):\n    return kg.orient2d(1, 2)\n"
        "def h(self):\n    return self.order(1)\n"  # not a kernel module: fine
    )
    assert _uses(ast.parse(source), internal) == ["import order", ".orient2d", ".orient2d"]


def test_caller_of_calls_through_the_address_and_propagates_errors():
    """``caller_of``: a kernel calls another through its run-time address, with the
    arguments converted as a direct call would, and the callee's exceptions arrive."""
    import numpy as np
    from numba import njit, types

    from tilecast._kernels.intrinsics import caller_of, compiled_address

    signature = types.float64(types.float64[::1], types.int64)

    @njit
    def scaled(values, k):
        if k < 0:
            raise ValueError("negative index")
        return values[k] * 2.0

    call_scaled = caller_of(scaled, signature)  # callers compile before the callee

    @njit
    def total(address, values):
        s = 0.0
        for k in range(values.shape[0]):
            s += call_scaled(address, values, k)
        return s

    @njit
    def at(address, values, k):
        return call_scaled(address, values, k)

    values = np.array([1.0, 2.0, 3.5])
    at.compile((types.int64, types.float64[::1], types.int64))
    assert not scaled.overloads  # typed against the declared signature alone
    address = compiled_address(scaled, signature)
    assert total(address, values) == 13.0
    assert at(address, values, np.int32(2)) == 7.0  # int32 converted as a direct call would
    with pytest.raises(ValueError, match="negative index"):
        at(address, values, -1)


def test_compiled_address_refuses_a_wrong_declared_return_type():
    """A caller compiled against a declared return type must get a callee that returns it."""
    from numba import njit, types

    from tilecast._kernels.intrinsics import compiled_address

    @njit
    def halve(x):
        return x / 2.0

    with pytest.raises(TypeError, match="returns float64, declared int64"):
        compiled_address(halve, types.int64(types.float64))


def test_declared_signatures_are_what_the_kernels_compile_to():
    """The signatures callers are typed against match the compiled kernels' (return types too)."""
    from tilecast._kernels import casts, surds, visibility, walk
    from tilecast._kernels.intrinsics import compiled_address

    for dispatcher, signature in (
        (walk.walk, walk.WALK_SIGNATURE),
        (visibility.split_segments, visibility.SPLIT_SIGNATURE),
        (visibility.finish_walls, visibility.FINISH_SIGNATURE),
        (visibility.sweep, visibility.SWEEP_SIGNATURE),
        (surds.exact_time, surds.EXACT_SIGNATURE),
        *casts._BODY_KERNELS,
    ):
        assert compiled_address(dispatcher, signature) != 0
        assert dispatcher.overloads[signature.args].signature == signature


def test_an_internal_helper_is_compiled_only_into_its_callers():
    """``internal`` helpers have no machine code of their own (``_kernels.link_only``): their
    callers compute with them and get their exceptions; asking one's address is refused;
    ``by_address=True`` gives one its own code, which ``caller_of`` calls."""
    import numpy as np
    from numba import njit, types

    from tilecast._kernels import internal
    from tilecast._kernels.intrinsics import caller_of, compiled_address
    from tilecast._kernels.link_only import link_only_options

    assert link_only_options() is not None  # this Numba's internals are the expected ones

    @internal
    def twice(values, k):
        if k < 0:
            raise ValueError("negative index")
        return values[k] * 2.0

    @internal
    def plus_one(values, k):
        return twice(values, k) + 1.0  # a helper calling a helper: linked twice over

    @njit
    def total(values):
        s = 0.0
        for k in range(values.shape[0]):
            s += plus_one(values, k)
        return s

    @njit
    def at(values, k):
        return twice(values, k)

    values = np.array([1.0, 2.0, 3.5])
    assert total(values) == 16.0
    with pytest.raises(ValueError, match="negative index"):
        at(values, -1)
    signature = types.float64(types.float64[::1], types.int64)
    assert twice._compiler.pipeline_class is link_only_options()["pipeline_class"]
    with pytest.raises(TypeError, match="no machine code of its own"):
        compiled_address(twice, signature)

    @internal(by_address=True)
    def thrice(values, k):
        return values[k] * 3.0

    call_thrice = caller_of(thrice, signature)

    @njit
    def through(address, values, k):
        return call_thrice(address, values, k)

    assert thrice._compiler.pipeline_class is not link_only_options()["pipeline_class"]
    assert through(compiled_address(thrice, signature), values, 2) == 10.5


def test_an_always_inlined_helper_is_marked_for_llvm_and_inlined():
    """``@internal(inline="always")``: the helper's code is marked ``alwaysinline`` for LLVM
    (not inlined by Numba's IR inliner); its callers hold no call to it, and compute and
    raise as with a call."""
    import numpy as np
    from numba import njit

    from tilecast._kernels import internal
    from tilecast._kernels.link_only import inlined_options

    assert inlined_options() is not None

    @internal(inline="always")
    def scaled_tilecast_probe(values, k):
        if k < 0:
            raise ValueError("negative index")
        return values[k] * 3.0

    @internal
    def plain_tilecast_probe(values, k):
        return values[k] * 3.0

    @njit
    def total(values):
        s = 0.0
        for k in range(values.shape[0]):
            s += scaled_tilecast_probe(values, k) + plain_tilecast_probe(values, k)
        return s

    values = np.array([1.0, 2.0, 3.5])
    assert total(values) == 39.0
    assert scaled_tilecast_probe._compiler.pipeline_class is inlined_options()["pipeline_class"]

    def linked_ir(helper):
        (compiled,) = helper.overloads.values()
        return str(compiled.library._get_module_for_linking())

    assert "alwaysinline" in linked_ir(scaled_tilecast_probe)
    assert "alwaysinline" not in linked_ir(plain_tilecast_probe)
    caller = total.inspect_llvm(total.signatures[0]).splitlines()
    assert not [line for line in caller if "scaled_tilecast_probe" in line
                and line.lstrip().startswith(("define", "declare", "call", "%"))]  # fmt: skip

    @njit
    def at(values, k):
        return scaled_tilecast_probe(values, k)

    with pytest.raises(ValueError, match="negative index"):
        at(values, -1)


def test_link_only_can_be_switched_off(monkeypatch):
    """``TILECAST_LINK_ONLY=0``: helpers compile as ordinary cached functions (the fallback
    where Numba's internals differ), with code of their own."""
    from numba import types

    from tilecast._kernels import internal
    from tilecast._kernels.intrinsics import compiled_address
    from tilecast._kernels.link_only import link_only_options

    monkeypatch.setenv("TILECAST_LINK_ONLY", "0")
    assert link_only_options() is None

    @internal
    def halve(x):
        return x / 2.0

    assert type(halve._cache).__name__ != "NullCache"  # cached, as kernels are
    assert compiled_address(halve, types.float64(types.float64)) != 0


def test_lowest_bit_is_the_position_of_the_lowest_set_bit():
    """The lane kernel finds its stopped lanes by ``lowest_bit`` (count trailing zeros)."""
    import numpy as np
    from numba import njit

    from tilecast._kernels.intrinsics import lowest_bit

    @njit
    def positions(values):
        out = np.empty(values.shape[0], dtype=np.int64)
        for k in range(values.shape[0]):
            out[k] = lowest_bit(values[k])
        return out

    rng = np.random.default_rng(5)
    values = [1, 2, 3, 2**63, 2**64 - 1, 0b1011000, *rng.integers(1, 2**63, 50).tolist()]
    expected = [(v & -v).bit_length() - 1 for v in values]
    assert positions(np.array(values, dtype=np.uint64)).tolist() == expected
    assert positions(np.zeros(1, dtype=np.uint64)).tolist() == [64]
