"""The walk's kernel interfaces are named (DESIGN 19).

A map is passed as one record, a ray as another, and a walk answers with a
named record; no compiled function of any kernel module (every module of
``tilecast/_kernels``: a function decorated with ``njit``, ``numba.njit``,
``internal`` or ``cuda.jit``, called or not) takes more than 12 parameters or runs over 200
lines; one kernel per walk mode. Read from the source (no compile), except
the last test, which compiles the first-hit walk.
"""

import ast
from pathlib import Path

import pytest

import tilecast

KERNELS = Path(tilecast.__file__).resolve().parent / "_kernels"
DECORATORS = {"njit", "internal", "jit"}  # jit: cuda.jit (tilecast._kernels.gpu)


MODULES = sorted(path.name for path in KERNELS.glob("*.py"))


def _decorator_name(decorator):
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):  # numba.njit
        return target.attr
    return None


def _compiled_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # nested kernels too
        if not isinstance(node, ast.FunctionDef):
            continue
        if any(_decorator_name(d) in DECORATORS for d in node.decorator_list):
            yield node


def _parameters(function):
    args = function.args
    return (
        len(args.posonlyargs + args.args + args.kwonlyargs) + bool(args.vararg) + bool(args.kwarg)
    )


def test_every_kernel_module_is_checked():
    assert {"walk.py", "lanes.py", "scene.py", "fov.py", "geometry.py"} <= set(MODULES)
    # each module with compiled functions is found to have some
    with_kernels = [m for m in MODULES if "jit" in (KERNELS / m).read_text(encoding="utf-8")]
    assert all(list(_compiled_functions(KERNELS / m)) for m in with_kernels if m != "__init__.py")


@pytest.mark.parametrize("module", MODULES)
def test_compiled_functions_are_small(module):
    found = list(_compiled_functions(KERNELS / module))
    too_big = [
        (f.name, _parameters(f), f.end_lineno - f.lineno + 1)
        for f in found
        if _parameters(f) > 12 or f.end_lineno - f.lineno + 1 > 200
    ]
    assert not too_big, f"over 12 parameters or 200 lines: {too_big}"


def test_the_size_check_finds_what_breaks_it(tmp_path):
    """The check is honest: a big function under each decorator is found."""
    params = ", ".join(f"a{k}" for k in range(13))
    source = "\n".join(
        f"@{decorator}\ndef f{k}({params}):\n    pass\n"
        for k, decorator in enumerate(
            ["njit", "njit(cache=True)", "numba.njit", "internal", "cuda.jit(device=True)"]
        )
    )
    path = tmp_path / "kernel.py"
    path.write_text(source + "\n@internal\ndef long():\n" + "    x = 1\n" * 200)
    found = {f.name: (_parameters(f), f.end_lineno - f.lineno + 1) for f in
             _compiled_functions(path)}  # fmt: skip
    assert found == {"f0": (13, 2), "f1": (13, 2), "f2": (13, 2), "f3": (13, 2), "f4": (13, 2),
                     "long": (0, 201)}  # fmt: skip


def test_one_kernel_per_mode_taking_records():
    from tilecast import _walkspec as spec
    from tilecast._kernels import walk

    kernels = {f.name: f for f in _compiled_functions(KERNELS / "walk.py")}
    for name in ("walk_first", "walk_all", "walk_sight", "walk_cells"):
        assert [a.arg for a in kernels[name].args.args][:2] == ["m", "ray"]
    assert walk.MAP_TYPE.instance_class is spec.WalkMap
    assert walk.RAY_TYPE.instance_class is spec.Ray
    assert walk.FIRST_SIGNATURE.return_type.instance_class is spec.WalkHit
    assert walk.EVENTS_SIGNATURE.return_type.instance_class is spec.WalkChunk
    assert walk.EVENTS_SIGNATURE.args[2].instance_class is spec.WalkState


def test_the_first_hit_walk_answers_a_named_record():
    """Called from a kernel, the walk's answer is read by field name."""
    import math

    import numpy as np
    from numba import njit

    from tilecast import Grid
    from tilecast._engine import walk_caller
    from tilecast._kernels import walk
    from tilecast._walkmap import walk_map
    from tilecast._walkspec import ALL_LAYERS, FOUND, Ray

    walk_caller("cast_single", "CAST_SINGLE_SIGNATURE")  # compiles the walk
    address = walk.walk_address()

    @njit
    def distance_of(address, m, ray):
        answer = walk.call_walk(address, m, ray)
        return answer.status, answer.distance, answer.col, answer.row

    view, _ = walk_map(Grid(np.array([[0, 0, 1]], dtype=bool)))
    ray = Ray(0.5, 0.5, 1.0, 0.0, math.inf, 0, 0, False, np.uint32(ALL_LAYERS))
    assert distance_of(address, view, ray) == (FOUND, 1.5, 2, 0)
