"""Range queries: tiles_in_rect, tiles_in_circle, circle_intersects_rect vs exact oracles."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilecast import Grid, circle_intersects_rect, tiles_in_circle, tiles_in_rect

F = Fraction


# ----------------------------------------------------------------- oracles
def oracle_rect(grid: Grid, rect) -> list[tuple[int, int]]:
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    u0, u1 = (rect[0] - ox) / w, (rect[2] - ox) / w
    v0, v1 = (rect[1] - oy) / h, (rect[3] - oy) / h
    # Python compares int and float exactly
    return [
        (i, j)
        for j in range(grid.rows)
        for i in range(grid.cols)
        if i <= u1 and i + 1 >= u0 and j <= v1 and j + 1 >= v0
    ]


def exact_circle_box(cx, cy, r, box) -> bool:
    x0, y0, x1, y1 = (F(v) for v in box)
    fx, fy = F(cx), F(cy)
    gx = max(x0 - fx, fx - x1, F(0))
    gy = max(y0 - fy, fy - y1, F(0))
    return gx * gx + gy * gy <= F(r) * F(r)


def exact_cell_box(grid: Grid, i: int, j: int) -> tuple[F, F, F, F]:
    """The cell's box with its corners ox + i*w taken exactly (not rounded to float64)."""
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    return (F(ox) + i * F(w), F(oy) + j * F(h), F(ox) + (i + 1) * F(w), F(oy) + (j + 1) * F(h))


def oracle_circle(grid: Grid, center, r) -> list[tuple[int, int]]:
    return [
        (i, j)
        for j in range(grid.rows)
        for i in range(grid.cols)
        if exact_circle_box(center[0], center[1], r, exact_cell_box(grid, i, j))
    ]


def double_sqrt_below(q: F) -> float:
    """The largest double whose exact square is <= q (q >= 0)."""
    # an estimate good to ~60 bits even where float(q) underflows (q may be ~2**-2148)
    k = 1200
    x = float(F(math.isqrt(q.numerator * 4**k // q.denominator), 2**k))
    while F(x) * F(x) > q:
        x = math.nextafter(x, 0.0)
    while F(math.nextafter(x, math.inf)) ** 2 <= q:
        x = math.nextafter(x, math.inf)
    return x


def as_list(cells: np.ndarray) -> list[tuple[int, int]]:
    assert cells.dtype == np.int64 and cells.ndim == 2 and cells.shape[1] == 2
    return [(int(i), int(j)) for i, j in cells.tolist()]


# --------------------------------------------------------------- strategies
tile_sizes = st.sampled_from([1.0, 0.1, 0.5, 3.0, 0.7, 2.5, 1e-3])
origins = st.sampled_from([0.0, -3.0, 0.25, -1.7, 10.0, 1e3])


@st.composite
def grids(draw):
    rows, cols = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    w, h = draw(tile_sizes), draw(tile_sizes)
    origin = (draw(origins), draw(origins))
    return Grid(np.zeros((rows, cols), dtype=bool), tile_size=(w, h), origin=origin)


@st.composite
def world_coord(draw, grid: Grid, axis: int):
    """A world coordinate: on a grid line (exactly ox + i*w), or anywhere near the map."""
    o, s = grid.origin[axis], grid.tile_size[axis]
    n = (grid.cols, grid.rows)[axis]
    if draw(st.booleans()):
        return o + draw(st.integers(-3, n + 3)) * s
    return o + draw(st.floats(-3.0, n + 3.0)) * s


@st.composite
def circle_cases(draw):
    grid = draw(grids())
    cx, cy = draw(world_coord(grid, 0)), draw(world_coord(grid, 1))
    kind = draw(st.sampled_from(["free", "corner", "pythagorean", "zero", "huge"]))
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    if kind == "free":
        r = draw(st.floats(0.0, 8.0)) * max(w, h)
    elif kind == "corner":
        # through (or within rounding of) a cell corner of the map
        i, j = draw(st.integers(0, grid.cols)), draw(st.integers(0, grid.rows))
        r = math.hypot(ox + i * w - cx, oy + j * h - cy)
    elif kind == "pythagorean":
        # centre on a lattice point, edge exactly through lattice points (3-4-5)
        i, j = draw(st.integers(-2, grid.cols + 2)), draw(st.integers(-2, grid.rows + 2))
        grid = Grid(np.zeros(grid.shape, dtype=bool), origin=(draw(origins), draw(origins)))
        (ox, oy) = grid.origin
        cx, cy = ox + i, oy + j
        r = float(draw(st.sampled_from([0, 1, 5, 10, 13])))
    elif kind == "zero":
        r = 0.0
    else:
        r = 1e6
    return grid, (cx, cy), r


@st.composite
def rect_cases(draw):
    grid = draw(grids())
    xs = sorted([draw(world_coord(grid, 0)), draw(world_coord(grid, 0))])
    ys = sorted([draw(world_coord(grid, 1)), draw(world_coord(grid, 1))])
    return grid, (xs[0], ys[0], xs[1], ys[1])


# -------------------------------------------------------------------- tests
@settings(max_examples=200, deadline=None)
@given(rect_cases())
def test_tiles_in_rect_matches_oracle(case):
    grid, rect = case
    assert as_list(tiles_in_rect(grid, rect)) == oracle_rect(grid, rect)


@settings(max_examples=300, deadline=None)
@given(circle_cases())
def test_tiles_in_circle_matches_oracle(case):
    grid, center, r = case
    assert as_list(tiles_in_circle(grid, center, r)) == oracle_circle(grid, center, r)


# Exact corners: grids whose corners ox + i*w are mostly not doubles.
exact_tile_sizes = st.sampled_from([0.1, 0.3, 1 / 3, 7.0, 1.0, 0.7, 2.5, 1e-3, 0.375])
exact_origins = st.sampled_from([0.0, -0.7, 1e-3, 0.1, -0.3, -3.0, 1e3, 0.25])


@st.composite
def exact_grids(draw):
    rows, cols = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    w, h = draw(exact_tile_sizes), draw(exact_tile_sizes)
    origin = (draw(exact_origins), draw(exact_origins))
    return Grid(np.zeros((rows, cols), dtype=bool), tile_size=(w, h), origin=origin)


@st.composite
def near_line(draw, grid: Grid, axis: int) -> float:
    """A coordinate on, or one or two ulps off, a grid line (float or exact), or anywhere."""
    o, s = grid.origin[axis], grid.tile_size[axis]
    n = (grid.cols, grid.rows)[axis]
    k = draw(st.integers(-2, n + 2))
    kind = draw(st.sampled_from(["float", "exact", "free"]))
    if kind == "free":
        return o + draw(st.floats(-2.0, n + 2.0)) * s
    x = o + k * s if kind == "float" else float(F(o) + k * F(s))
    for _ in range(draw(st.integers(-2, 2)) % 5 if draw(st.booleans()) else 0):
        x = math.nextafter(x, draw(st.sampled_from([-math.inf, math.inf])))
    return x


@st.composite
def exact_circle_cases(draw):
    grid = draw(exact_grids())
    cx, cy = draw(near_line(grid, 0)), draw(near_line(grid, 1))
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    kind = draw(st.sampled_from(["corner", "side", "zero", "free"]))
    if kind == "corner":
        # the exact distance to an exact corner, rounded down, then nudged by -1, 0, +1 ulps
        i, j = draw(st.integers(-1, grid.cols + 1)), draw(st.integers(-1, grid.rows + 1))
        dx, dy = F(ox) + i * F(w) - F(cx), F(oy) + j * F(h) - F(cy)
        r = double_sqrt_below(dx * dx + dy * dy)
    elif kind == "side":
        # the exact distance to a grid line (x or y), rounded down, then nudged
        axis = draw(st.sampled_from([0, 1]))
        o, s, c = (ox, w, cx) if axis == 0 else (oy, h, cy)
        k = draw(st.integers(-1, (grid.cols, grid.rows)[axis] + 1))
        r = double_sqrt_below((F(o) + k * F(s) - F(c)) ** 2)
    elif kind == "zero":
        r = 0.0
    else:
        r = draw(st.floats(0.0, 6.0)) * max(w, h)
    if kind in ("corner", "side") and r > 0.0:
        r = math.nextafter(r, draw(st.sampled_from([0.0, math.inf, r])))
    return grid, (cx, cy), r


@settings(max_examples=500, deadline=None)
@given(exact_circle_cases())
def test_tiles_in_circle_exact_corners_match_oracle(case):
    grid, center, r = case
    assert as_list(tiles_in_circle(grid, center, r)) == oracle_circle(grid, center, r)


def test_worked_example_corner_is_exact_x_and_y():
    # 3 * Fraction(0.1) = 0.3000000000000000166..., below the double 0.1 * 3 = 0.30000000000000004
    r = 0.05000000000000002
    assert F(0.25) + F(r) == 3 * F(0.1)  # the disc reaches the exact corner, no further
    smaller = math.nextafter(r, 0.0)
    strip = Grid(np.zeros((1, 10), dtype=bool), tile_size=0.1)
    assert as_list(tiles_in_circle(strip, (0.25, 0.05), r)) == [(1, 0), (2, 0), (3, 0)]
    assert as_list(tiles_in_circle(strip, (0.25, 0.05), smaller)) == [(1, 0), (2, 0)]
    column = Grid(np.zeros((10, 1), dtype=bool), tile_size=0.1)
    assert as_list(tiles_in_circle(column, (0.05, 0.25), r)) == [(0, 1), (0, 2), (0, 3)]
    assert as_list(tiles_in_circle(column, (0.05, 0.25), smaller)) == [(0, 1), (0, 2)]


@pytest.mark.parametrize("axis", [0, 1])
def test_reaching_an_exact_side_non_square_negative(axis):
    # non-square tiles, negative non-zero origin: the disc reaches the exact line
    # ox + i*w (or oy + j*h) from below; the largest radius short of it leaves the cell out
    grid = Grid(np.zeros((8, 9), dtype=bool), tile_size=(0.1, 0.3), origin=(-0.7, -1.3))
    o, s = grid.origin[axis], grid.tile_size[axis]
    k = 5  # the line at world -0.2 (x) or 0.2 (y), not a double
    line = F(o) + k * F(s)
    assert F(o + k * s) != line
    c = float(line) - 0.17  # a centre left of (below) the line
    short = double_sqrt_below((line - F(c)) ** 2)
    if F(c) + F(short) == line:  # make `short` fall short of the line
        short = math.nextafter(short, 0.0)
    reach = math.nextafter(short, math.inf)
    assert F(c) + F(short) < line <= F(c) + F(reach)
    other = grid.origin[1 - axis] + 1.5 * grid.tile_size[1 - axis]  # a row's (column's) middle
    center = (c, other) if axis == 0 else (other, c)
    cell = (k, 1) if axis == 0 else (1, k)
    got_short = as_list(tiles_in_circle(grid, center, short))
    got_reach = as_list(tiles_in_circle(grid, center, reach))
    assert cell not in got_short and cell in got_reach
    assert got_short == oracle_circle(grid, center, short)
    assert got_reach == oracle_circle(grid, center, reach)


def test_tangent_exactly_at_a_non_double_corner():
    # The disc's edge passes exactly through the exact corner (3*Fraction(0.1), 4*Fraction(0.1))
    # (a 3-4-5 triangle); the float corner (0.30000000000000004, 0.4) is outside the disc.
    grid = Grid(np.zeros((10, 10), dtype=bool), tile_size=0.1)
    center = (3 * 2.0**-55, 4 * 2.0**-55)
    r = 0.4999999999999999
    dx, dy = 3 * F(0.1) - F(center[0]), 4 * F(0.1) - F(center[1])
    assert dx * dx + dy * dy == F(r) ** 2
    assert (3, 4) in as_list(tiles_in_circle(grid, center, r))
    assert (3, 4) not in as_list(tiles_in_circle(grid, center, math.nextafter(r, 0.0)))
    for radius in (r, math.nextafter(r, 0.0), math.nextafter(r, 1.0)):
        assert as_list(tiles_in_circle(grid, center, radius)) == oracle_circle(grid, center, radius)


def test_tangent_exactly_at_a_corner_non_square_offset():
    # dyadic tiles (0.5, 0.25), origin (-1.5, 0.75): corner (3, 8) is (0.0, 2.75); from the
    # corner (0, 0) = (-1.5, 0.75) that is (1.5, 2.0), at distance 2.5 exactly
    grid = Grid(np.zeros((10, 6), dtype=bool), tile_size=(0.5, 0.25), origin=(-1.5, 0.75))
    center = (-1.5, 0.75)
    assert (3, 8) in as_list(tiles_in_circle(grid, center, 2.5))
    assert (3, 8) not in as_list(tiles_in_circle(grid, center, math.nextafter(2.5, 0.0)))
    assert as_list(tiles_in_circle(grid, center, 2.5)) == oracle_circle(grid, center, 2.5)


def test_radius_zero_on_lines_and_lattice_points():
    # exact lines that are doubles: 2 * Fraction(0.1) == Fraction(0.2)
    grid = Grid(np.zeros((10, 10), dtype=bool), tile_size=0.1)
    assert as_list(tiles_in_circle(grid, (0.2, 0.05), 0.0)) == [(1, 0), (2, 0)]
    assert as_list(tiles_in_circle(grid, (0.05, 0.2), 0.0)) == [(0, 1), (0, 2)]
    assert as_list(tiles_in_circle(grid, (0.2, 0.4), 0.0)) == [(1, 3), (2, 3), (1, 4), (2, 4)]
    # the double 0.30000000000000004 is strictly inside column 3: no line there
    assert as_list(tiles_in_circle(grid, (0.30000000000000004, 0.2), 0.0)) == [(3, 1), (3, 2)]
    # non-square tiles, negative origin, corners that are doubles: a lattice point
    grid = Grid(np.zeros((6, 6), dtype=bool), tile_size=(0.375, 1.25), origin=(-0.5, -2.25))
    point = (-0.5 + 2 * 0.375, -2.25 + 3 * 1.25)
    assert as_list(tiles_in_circle(grid, point, 0.0)) == [(1, 2), (2, 2), (1, 3), (2, 3)]
    # map corner and map edge: clipped
    assert as_list(tiles_in_circle(grid, (-0.5, -2.25), 0.0)) == [(0, 0)]
    assert as_list(tiles_in_circle(grid, (0.25, -2.25), 0.0)) == [(1, 0), (2, 0)]


def test_circle_edge_through_corners_unit_grid():
    # centre (0, 0), radius 5: the lattice points (3, 4), (4, 3), (5, 0) lie on the circle;
    # the boxes that only touch the circle at those corners are included.
    grid = Grid(np.zeros((12, 12), dtype=bool), origin=(-6.0, -6.0))
    got = set(as_list(tiles_in_circle(grid, (0.0, 0.0), 5.0)))
    assert got == set(oracle_circle(grid, (0.0, 0.0), 5.0))
    # tile space (9, 10) is world box [3, 4] x [4, 5]: touched only at (3, 4)
    assert (9, 10) in got
    # world box [4, 5] x [4, 5]: nearest corner (4, 4) at distance sqrt(32) > 5
    assert (10, 10) not in got


def test_circle_rows_ordered_and_clipped():
    grid = Grid(np.zeros((4, 6), dtype=bool), tile_size=(0.5, 2.0), origin=(-1.0, -3.0))
    cells = tiles_in_circle(grid, (-1.0, -3.0), 100.0)  # covers the whole map
    assert as_list(cells) == [(i, j) for j in range(4) for i in range(6)]
    assert len(tiles_in_circle(grid, (-50.0, 0.0), 10.0)) == 0  # off the map


def test_far_away_and_tiny_tiles():
    # huge tile-space coordinates must not overflow int conversions
    grid = Grid(np.zeros((3, 3), dtype=bool), tile_size=1e-300)
    assert len(tiles_in_rect(grid, (1e300, 1e300, 1e301, 1e301))) == 0
    assert len(tiles_in_rect(grid, (-1e300, -1e300, 1e300, 1e300))) == 9
    assert len(tiles_in_circle(grid, (1e300, 0.0), 1.0)) == 0
    assert len(tiles_in_circle(grid, (0.0, 0.0), 1e300)) == 9


# ------------------------------------------------------- circle vs rectangle
coords = st.one_of(
    st.integers(-6, 6).map(float),
    st.floats(-6, 6),
    st.sampled_from([0.1, 0.2, 0.3, -0.7, 1e-300, 5e-324]),
)


@st.composite
def circle_rect(draw):
    xs = sorted([draw(coords), draw(coords)])
    ys = sorted([draw(coords), draw(coords)])
    cx, cy = draw(coords), draw(coords)
    r = draw(
        st.one_of(
            st.sampled_from([0.0, 1.0, 5.0, 0.5]),
            st.floats(0, 10),
            st.just(math.hypot(xs[0] - cx, ys[0] - cy)),
        )
    )
    return (cx, cy), r, (xs[0], ys[0], xs[1], ys[1])


@settings(max_examples=300, deadline=None)
@given(circle_rect())
def test_circle_intersects_rect_exact(case):
    center, r, rect = case
    got = circle_intersects_rect(center, r, rect)
    assert isinstance(got, bool)
    assert got == exact_circle_box(center[0], center[1], r, rect)


@settings(max_examples=30, deadline=None)
@given(st.lists(circle_rect(), min_size=1, max_size=20))
def test_circle_intersects_rect_vectorised(cases):
    centers = np.array([c[0] for c in cases])
    radii = np.array([c[1] for c in cases])
    rects = np.array([c[2] for c in cases])
    got = circle_intersects_rect(centers, radii, rects)
    assert got.dtype == np.bool_ and got.shape == (len(cases),)
    assert got.tolist() == [exact_circle_box(c[0], c[1], r, b) for c, r, b in cases]
    # broadcasting: one rectangle against all circles, as a (1, N) grid of answers
    grid_answer = circle_intersects_rect(centers[None], radii[None], rects[:1, None, :])
    assert grid_answer.shape == (1, len(cases))
    assert grid_answer[0].tolist() == [
        exact_circle_box(c[0], c[1], r, cases[0][2]) for c, r, _ in cases
    ]


def test_circle_intersects_rect_known():
    # 3-4-5: the rectangle's corner (3, 4) is exactly on the circle
    assert circle_intersects_rect((0, 0), 5, (3, 4, 10, 10)) is True
    assert circle_intersects_rect((0, 0), 4.999999999999999, (3, 4, 10, 10)) is False
    # 0.1 + 0.2 style rounding: decided on the doubles given
    assert circle_intersects_rect((0.1, 0.0), 0.2, (0.3, -1, 1, 1)) == (F(0.3) - F(0.1) <= F(0.2))
    assert circle_intersects_rect((0.5, 0.5), 0, (0, 0, 1, 1)) is True  # inside
    assert circle_intersects_rect((1.0, 0.5), 0, (0, 0, 1, 1)) is True  # on the edge


# ---------------------------------------------------------------- bad input
def test_bad_input():
    grid = Grid([[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="radius"):
        tiles_in_circle(grid, (0, 0), -1.0)
    with pytest.raises(ValueError, match="radius"):
        tiles_in_circle(grid, (0, 0), math.nan)
    with pytest.raises(ValueError, match="center"):
        tiles_in_circle(grid, (math.nan, 0), 1.0)
    with pytest.raises(TypeError, match="center"):
        tiles_in_circle(grid, "ab", 1.0)
    with pytest.raises(TypeError, match="grid"):
        tiles_in_circle([[0]], (0, 0), 1.0)
    with pytest.raises(ValueError, match="rect"):
        tiles_in_rect(grid, (1, 0, 0, 1))  # inverted x
    with pytest.raises(ValueError, match="rect"):
        tiles_in_rect(grid, (0, 1, 1, 0))  # inverted y
    with pytest.raises(ValueError, match="rect"):
        tiles_in_rect(grid, (0, 0, math.inf, 1))
    with pytest.raises(ValueError, match="rect"):
        tiles_in_rect(grid, (0, 0, 1))
    with pytest.raises(TypeError, match="grid"):
        tiles_in_rect(None, (0, 0, 1, 1))
    with pytest.raises(ValueError, match="radius"):
        circle_intersects_rect((0, 0), -0.5, (0, 0, 1, 1))
    with pytest.raises(ValueError, match="rect"):
        circle_intersects_rect((0, 0), 0.5, (1, 0, 0, 1))
    with pytest.raises(ValueError, match="center"):
        circle_intersects_rect((0, np.nan), 0.5, (0, 0, 1, 1))
    with pytest.raises(ValueError, match="center"):
        circle_intersects_rect((0, 0, 0), 0.5, (0, 0, 1, 1))
    with pytest.raises(TypeError, match="radius"):
        circle_intersects_rect((0, 0), "r", (0, 0, 1, 1))
    with pytest.raises(ValueError, match="broadcast"):
        circle_intersects_rect(np.zeros((3, 2)), np.ones(2), (0, 0, 1, 1))
