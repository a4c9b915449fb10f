"""The walk's kernel interfaces are named (DESIGN 19).

A map is passed as one record, a ray as another, and a walk answers with a
named record; no compiled function of the walk family (``walk.py``,
``lanes.py``) takes more than 12 parameters or runs over 200 lines; one
kernel per walk mode. Read from the source (no compile), except the last
test, which compiles the first-hit walk.
"""

import ast
from pathlib import Path

import pytest

import tilecast

KERNELS = Path(tilecast.__file__).resolve().parent / "_kernels"
DECORATORS = {"njit", "internal"}


def _compiled_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(target, ast.Name) and target.id in DECORATORS:
                yield node
                break


@pytest.mark.parametrize("module", ["walk.py", "lanes.py"])
def test_compiled_functions_are_small(module):
    found = list(_compiled_functions(KERNELS / module))
    assert found  # the check has something to look at
    too_big = [
        (f.name, len(f.args.args), f.end_lineno - f.lineno + 1)
        for f in found
        if len(f.args.args) > 12 or f.end_lineno - f.lineno + 1 > 200
    ]
    assert not too_big, f"over 12 parameters or 200 lines: {too_big}"


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
