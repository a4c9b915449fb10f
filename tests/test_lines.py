"""Lattice lines: reference vs exact properties, kernel vs reference, bad input."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilecast as tc
from reference.lines import line_reference
from tilecast import line, lines

small = st.integers(-40, 40)
cell = st.tuples(small, small)
huge = st.integers(-(2**60), 2**60)


def _box_meets_segment(c, a, b) -> bool:
    """Exact: does the closed unit box centred on cell c meet the segment a-b?"""
    lo = [Fraction(c[0]) - Fraction(1, 2), Fraction(c[1]) - Fraction(1, 2)]
    hi = [lo[0] + 1, lo[1] + 1]
    t0, t1 = Fraction(0), Fraction(1)
    for axis in range(2):
        p, d = Fraction(a[axis]), Fraction(b[axis] - a[axis])
        if d == 0:
            if not lo[axis] <= p <= hi[axis]:
                return False
            continue
        ta, tb = (lo[axis] - p) / d, (hi[axis] - p) / d
        t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
    return t0 <= t1


def _check_line8(a, b, cells):
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    n = max(abs(dx), abs(dy))
    assert len(cells) == n + 1
    assert cells[0] == a and cells[-1] == b
    for p, q in itertools.pairwise(cells):
        assert max(abs(q[0] - p[0]), abs(q[1] - p[1])) == 1
    for x, y in cells:
        # within 1/2 of the true line along the minor axis, exactly:
        # |minor - minor_true(major)| <= 1/2, scaled by 2n
        if abs(dx) >= abs(dy):
            if n:
                assert abs(2 * (y - y0) * abs(dx) - 2 * dy * abs(x - x0)) <= n
        else:
            assert abs(2 * (x - x0) * abs(dy) - 2 * dx * abs(y - y0)) <= n
    if n:  # one cell per major-axis position
        major = 0 if abs(dx) >= abs(dy) else 1
        assert len({c[major] for c in cells}) == n + 1


def _check_line4(a, b, cells):
    dx, dy = b[0] - a[0], b[1] - a[1]
    assert len(cells) == abs(dx) + abs(dy) + 1
    assert cells[0] == a and cells[-1] == b
    for p, q in itertools.pairwise(cells):
        assert abs(q[0] - p[0]) + abs(q[1] - p[1]) == 1
    for c in cells:
        assert _box_meets_segment(c, a, b)


@settings(max_examples=300, deadline=None)
@given(cell, cell)
def test_reference_properties(a, b):
    line8 = line_reference(a, b, 8)
    line4 = line_reference(a, b, 4)
    _check_line8(a, b, line8)
    _check_line4(a, b, line4)
    # symmetry: reversed order for the swapped call
    assert line_reference(b, a, 8) == line8[::-1]
    assert line_reference(b, a, 4) == line4[::-1]
    # the 4-connected path contains the thin line
    assert set(line8) <= set(line4)


@settings(max_examples=200, deadline=None)
@given(cell, cell, st.sampled_from([4, 8]))
def test_line_matches_reference(a, b, conn):
    got = line(a, b, connectivity=conn)
    assert got.dtype == np.int64 and got.shape[1] == 2
    assert [tuple(c) for c in got.tolist()] == line_reference(a, b, conn)


@settings(max_examples=50, deadline=None)
@given(huge, huge, st.integers(-3, 3), st.integers(-3, 3), st.sampled_from([4, 8]))
def test_huge_coordinates(x, y, ddx, ddy, conn):
    # far from the origin the kernel's error terms stay small; compare exactly
    a, b = (x, y), (x + ddx * 7, y + ddy * 5)
    if max(abs(c) for c in (*a, *b)) > 2**60:
        return
    got = [tuple(c) for c in line(a, b, connectivity=conn).tolist()]
    assert got == line_reference(a, b, conn)


def test_long_line_exact():
    a, b = (-3, 7), (999_997, 333_340)
    got = line(a, b)
    ref = line_reference(a, b, 8)
    assert len(got) == 1_000_001
    assert got[0].tolist() == list(a) and got[-1].tolist() == list(b)
    assert np.array_equal(got, np.array(ref))


@pytest.mark.parametrize(
    ("a", "b", "expected8"),
    [
        ((0, 0), (0, 0), [(0, 0)]),
        ((0, 0), (3, 3), [(0, 0), (1, 1), (2, 2), (3, 3)]),
        ((0, 0), (-3, 3), [(0, 0), (-1, 1), (-2, 2), (-3, 3)]),
        ((0, 0), (2, 1), [(0, 0), (1, 1), (2, 1)]),  # tie at x=1 rounds y up
        ((2, 1), (0, 0), [(2, 1), (1, 1), (0, 0)]),
        ((0, 0), (1, -2), [(0, 0), (1, -1), (1, -2)]),  # tie at y=-1 rounds x up
        ((5, 0), (-5, 0), [(x, 0) for x in range(5, -6, -1)]),
    ],
)
def test_known_lines(a, b, expected8):
    assert [tuple(c) for c in line(a, b).tolist()] == expected8


def test_four_connected_corner_rule():
    # exactly through a box corner: the shoulder with the larger row
    assert line((0, 0), (1, 1), connectivity=4).tolist() == [[0, 0], [0, 1], [1, 1]]
    assert line((0, 0), (1, -1), connectivity=4).tolist() == [[0, 0], [1, 0], [1, -1]]
    assert line((1, 1), (0, 0), connectivity=4).tolist() == [[1, 1], [0, 1], [0, 0]]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(cell, cell), min_size=0, max_size=30),
    st.sampled_from([4, 8]),
)
def test_lines_batched_matches_line(pairs, conn):
    starts = np.array([p[0] for p in pairs], dtype=np.int64).reshape(-1, 2)
    ends = np.array([p[1] for p in pairs], dtype=np.int64).reshape(-1, 2)
    cells, offsets = lines(starts, ends, connectivity=conn)
    assert offsets.shape == (len(pairs) + 1,) and offsets[0] == 0
    assert offsets[-1] == len(cells)
    for k, (a, b) in enumerate(pairs):
        assert cells[offsets[k] : offsets[k + 1]].tolist() == [
            list(c) for c in line_reference(a, b, conn)
        ]


def test_lines_broadcast_one_start():
    cells, offsets = lines((0, 0), [[3, 0], [0, -2]])
    assert offsets.tolist() == [0, 4, 7]
    assert cells.tolist() == [[0, 0], [1, 0], [2, 0], [3, 0], [0, 0], [0, -1], [0, -2]]
    cells, offsets = lines([[3, 0], [0, -2]], (0, 0))
    assert cells[offsets[1] : offsets[2]].tolist() == [[0, -2], [0, -1], [0, 0]]


def test_bad_input():
    with pytest.raises(TypeError, match="a"):
        line((0.5, 0), (1, 1))
    with pytest.raises(TypeError, match="b"):
        line((0, 0), "ab")
    with pytest.raises(ValueError, match="connectivity"):
        line((0, 0), (1, 1), connectivity=6)
    with pytest.raises(TypeError, match="connectivity"):
        line((0, 0), (1, 1), connectivity="8")
    with pytest.raises(ValueError, match="a"):
        line((2**61, 0), (0, 0))
    with pytest.raises(TypeError, match="starts"):
        lines([[0.0, 1.0]], [[1, 1]])
    with pytest.raises(TypeError, match="starts"):
        lines([[np.nan, 1.0]], [[1, 1]])
    with pytest.raises(ValueError, match="same length"):
        lines([[0, 0], [1, 1]], [[1, 1], [2, 2], [3, 3]])
    with pytest.raises(ValueError, match="ends"):
        lines([[0, 0]], [[0, 0, 0]])
    with pytest.raises(ValueError, match="ends"):
        lines([[0, 0]], [[2**62, 0]])
    cells, offsets = lines(np.zeros((0, 2), dtype=int), np.zeros((0, 2), dtype=int))
    assert cells.shape == (0, 2) and offsets.tolist() == [0]


# ------------------------------------------------------------ limits (issue 16)
def test_output_size_is_capped_before_allocating():
    with pytest.raises(ValueError, match="max_cells"):
        tc.line((0, 0), (300_000_000, 7))
    with pytest.raises(ValueError, match="max_cells"):
        tc.lines([[0, 0]] * 3, [[5_000_000, 0]] * 3)
    assert len(tc.line((0, 0), (30, 7), max_cells=31)) == 31
    with pytest.raises(ValueError, match="max_cells"):
        tc.line((0, 0), (30, 7), max_cells=30)
    _, offsets = tc.lines([[0, 0]], [[0, 9]], max_cells=10, connectivity=4)
    assert offsets.tolist() == [0, 10]
    with pytest.raises(TypeError, match="max_cells"):
        tc.line((0, 0), (1, 1), max_cells=1.5)
    with pytest.raises(ValueError, match="max_cells"):
        tc.line((0, 0), (1, 1), max_cells=0)


@pytest.mark.parametrize("big", [-(2**63), 2**63 - 1, 2**61, -(2**61)])
def test_endpoints_beyond_the_safe_range_are_refused(big):
    # -2**63 once passed the check (its int64 absolute value is negative): segfault
    with pytest.raises(ValueError, match="starts"):
        tc.lines(np.array([[big, 0]]), np.array([[0, 0]]))
    with pytest.raises(ValueError, match="ends"):
        tc.lines(np.array([[0, 0]]), np.array([[0, big]]))
    with pytest.raises(ValueError, match=r"^a "):
        tc.line((big, 0), (0, 0))
    far = 2**60 - 3
    assert tc.line((far, -far), (far + 3, -far)).tolist()[-1] == [far + 3, -far]


def test_ragged_cells_name_the_argument():
    with pytest.raises(ValueError, match=r"^starts "):
        tc.lines([[0, 0], [1]], [[1, 1], [2, 2]])
    with pytest.raises(ValueError, match=r"^ends "):
        tc.lines([[0, 0]], [[0, 0], [1]])
