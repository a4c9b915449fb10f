"""The sweep's event order: float keys first, exact comparisons last (``_sort_events``).

The kernel's order must be exactly that of a stable sort by the exact
comparison (``_event_before``), whatever the float keys say: on lattice
points (many events in line with the observer, the same point twice),
random points, points around the start direction and huge or tiny scales
(inside the magnitudes where the predicates are exact, as the sweep's
input always is).
"""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from tilecast._kernels.visibility import _event_before, _rel_half, _sort_events


@njit(cache=True)
def _sorted(px, py, ux, uy, ex, ey):
    half = np.empty(ex.shape[0], dtype=np.int64)
    for k in range(ex.shape[0]):
        half[k] = _rel_half(px, py, ux, uy, ex[k], ey[k])
    return _sort_events(px, py, ux, uy, ex, ey, half), half


@njit(cache=True)
def _before(px, py, ux, uy, ex, ey, half, b, a):
    return _event_before(px, py, ux, uy, ex, ey, half, b, a)


def _stable_exact_order(px, py, ux, uy, ex, ey, half):
    def compare(a: int, b: int) -> int:
        if _before(px, py, ux, uy, ex, ey, half, a, b):
            return -1
        return 1 if _before(px, py, ux, uy, ex, ey, half, b, a) else 0

    return sorted(range(len(ex)), key=functools.cmp_to_key(compare))  # stable


def _check(px, py, points, start):
    ex = np.array([x for x, _ in points], dtype=np.float64)
    ey = np.array([y for _, y in points], dtype=np.float64)
    keep = (ex != px) | (ey != py)
    ex, ey = ex[keep].copy(), ey[keep].copy()
    if len(ex) == 0:
        return
    ux, uy = ex[start % len(ex)], ey[start % len(ex)]
    order, half = _sorted(px, py, ux, uy, ex, ey)
    assert list(order) == _stable_exact_order(px, py, ux, uy, ex, ey, half)


lattice = st.integers(-12, 12)


@settings(max_examples=150, deadline=None)
@given(
    st.tuples(st.integers(-3, 3), st.integers(-3, 3)),
    st.lists(st.tuples(lattice, lattice), min_size=1, max_size=120),
    st.integers(0, 200),
    st.sampled_from([1.0, 0.1, 2.0**-300, 2.0**300]),
)
def test_lattice_events_in_line_and_repeated(p, points, start, scale):
    _check(p[0] * scale, p[1] * scale, [(x * scale, y * scale) for x, y in points], start)


# within the range where the predicates are exact (visibility_polygon refuses
# non-zero magnitudes below 2**-400, and subnormals are far below)
coordinate = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).map(
    lambda v: v if abs(v) >= 2.0**-400 else 0.0
)


@settings(max_examples=150, deadline=None)
@given(
    st.tuples(coordinate, coordinate),
    st.lists(st.tuples(coordinate, coordinate), min_size=1, max_size=80),
    st.integers(0, 100),
)
def test_arbitrary_events(p, points, start):
    _check(p[0], p[1], points, start)


def test_many_events_in_one_direction_and_near_the_start():
    rng = np.random.default_rng(7)
    ray = [(float(k), float(k)) for k in range(1, 400)]  # 399 events on one ray from p
    near = [(1.0, 1e-12 * float(k)) for k in range(-50, 50)]  # about the start direction u
    spread = [tuple(v) for v in rng.normal(size=(300, 2))]
    _check(0.0, 0.0, ray + near + spread, 0)
    _check(0.0, 0.0, near + ray + spread, 0)
