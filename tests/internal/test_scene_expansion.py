"""The scene's triangular expansion: a valid constrained triangulation, used, and exact answers."""

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tilecast as tc
from tilecast._kernels import expansion

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import _maps  # noqa: E402


def turn(a, b, c):
    """Exact orientation of three points (Fractions): 1 left, -1 right, 0 in line."""
    ax, ay, bx, by, cx, cy = (Fraction(float(v)) for v in (*a, *b, *c))
    det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (det > 0) - (det < 0)


def triangles(mesh):
    """Each triangle's corners (3, 2), its neighbour codes and walls, from the query records.

    The walls are the pieces (-1: none); the records' codes ``2 * piece + reversed``
    are checked against the corners by :func:`check_wall_directions`.
    """
    corners = mesh[:, :6].reshape(-1, 3, 2)
    codes = mesh[:, 9:12].astype(np.int64)
    return corners, mesh[:, 6:9].astype(np.int64), np.where(codes >= 0, codes >> 1, -1)


def check_wall_directions(mesh, rows):
    """Each wall edge's ``reversed`` bit says whether its piece's row runs against the edge.

    The edge of slot k runs from corner k + 1 to corner k + 2, counter-clockwise
    around the triangle; checked with exact dot products.
    """
    corners = mesh[:, :6].reshape(-1, 3, 2)
    codes = mesh[:, 9:12].astype(np.int64)
    for t, k in np.argwhere(codes >= 0):
        x0, y0, x1, y1 = (Fraction(float(v)) for v in rows[codes[t, k] >> 1])
        (ax, ay), (bx, by) = (
            (Fraction(float(v)) for v in corners[t, (k + 1) % 3]),
            (Fraction(float(v)) for v in corners[t, (k + 2) % 3]),
        )
        dot = (bx - ax) * (x1 - x0) + (by - ay) * (y1 - y0)
        assert dot != 0
        assert (codes[t, k] & 1) == (dot < 0), (t, k)


def check_triangulation(scene):
    """Triangles turn left, neighbours agree, walls lie on their pieces, the box is covered."""
    mesh = scene._mesh
    rows = scene._lex[0]
    corners, across, walls = triangles(mesh)
    check_wall_directions(mesh, rows)
    area = Fraction(0)
    for t in range(len(mesh)):
        a, b, c = corners[t]
        assert turn(a, b, c) == 1, t
        area += (
            (Fraction(b[0]) - Fraction(a[0])) * (Fraction(c[1]) - Fraction(a[1]))
            - (Fraction(b[1]) - Fraction(a[1])) * (Fraction(c[0]) - Fraction(a[0]))
        ) / 2
        for k in range(3):
            ends = {tuple(corners[t, (k + 1) % 3]), tuple(corners[t, (k + 2) % 3])}
            if across[t, k] >= 0:
                u, j = across[t, k] >> 2, across[t, k] & 3
                assert across[u, j] == 4 * t + k  # the neighbour points back, from the same edge
                assert {tuple(corners[u, (j + 1) % 3]), tuple(corners[u, (j + 2) % 3])} == ends
                assert walls[u, j] == walls[t, k]
            if walls[t, k] >= 0:  # a wall edge lies on its piece
                x0, y0, x1, y1 = rows[walls[t, k]]
                for end in ends:
                    assert turn((x0, y0), (x1, y1), end) == 0
                    assert min(x0, x1) <= end[0] <= max(x0, x1)
                    assert min(y0, y1) <= end[1] <= max(y0, y1)
    x0, y0, h = scene._x0, scene._y0, scene._h
    box = (Fraction(x0 + scene._nx * h) - Fraction(x0)) * (
        Fraction(y0 + scene._ny * h) - Fraction(y0)
    )
    assert area == box
    # every piece with two ends is covered by its wall edges
    length = {}
    for t in range(len(mesh)):
        for k in range(3):
            r = walls[t, k]
            if r >= 0:
                p, q = corners[t, (k + 1) % 3], corners[t, (k + 2) % 3]
                length[r] = (
                    length.get(r, 0)
                    + abs(Fraction(q[0]) - Fraction(p[0]))
                    + abs(Fraction(q[1]) - Fraction(p[1]))
                )
    for r, (x0, y0, x1, y1) in enumerate(rows):
        if (x0, y0) == (x1, y1) or (r > 0 and tuple(rows[r - 1]) == tuple(rows[r])):
            continue  # a point, or a repeat (known by its first row)
        whole = abs(Fraction(x1) - Fraction(x0)) + abs(Fraction(y1) - Fraction(y0))
        assert length.get(r) == 2 * whole, r  # both sides of each wall edge


coordinate = st.one_of(
    st.integers(0, 8).map(float),
    st.integers(-16, 32).map(lambda k: k / 4),
    st.floats(-2.0, 8.0, allow_nan=False).map(lambda v: round(v, 3)),
)
point = st.tuples(coordinate, coordinate)
wall = st.tuples(point, point).filter(lambda w: w[0] != w[1])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walls=st.lists(wall, min_size=1, max_size=14))
def test_triangulation_is_valid_or_refused(walls):
    """Any walls (crossing, touching, overlapping, in line): a valid triangulation, or none."""
    scene = tc.VisibilityScene(walls)
    if len(scene._mesh):
        check_triangulation(scene)
    else:  # refused only when pieces cross or overlap (rounded split points), or out of range
        rows = [tuple(row) for row in scene._lex[0]]
        assert scene._fallback or any(
            _cross_or_overlap(a, b) for i, a in enumerate(rows) for b in rows[i + 1 :] if a != b
        )


def _cross_or_overlap(a, b):
    """Do two pieces share more than an end: cross, or lie in line and overlap?"""
    o1, o2 = turn(a[:2], a[2:], b[:2]), turn(a[:2], a[2:], b[2:])
    o3, o4 = turn(b[:2], b[2:], a[:2]), turn(b[:2], b[2:], a[2:])
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    if o1 == o2 == 0:  # in line: overlap along the line (more than a shared end)
        key = 0 if a[0] != a[2] else 1
        lo_a, hi_a = sorted((a[key], a[key + 2]))
        lo_b, hi_b = sorted((b[key], b[key + 2]))
        return min(hi_a, hi_b) > max(lo_a, lo_b)
    # an end of one on the other's interior (a T): allowed, the wall is split there
    return False


@pytest.mark.parametrize(
    "grid",
    [_maps.rooms_and_corridors(size=48, rooms=8), _maps.caves(size=40), _maps.open_field(size=64)],
    ids=["rooms", "caves", "open"],
)
def test_maps_triangulated_and_expanded(grid):
    """Game maps: a valid triangulation; plain queries expand (no flood), same answers."""
    walls = tc.wall_segments(tc.Grid(grid, outside="solid"))
    scene = tc.VisibilityScene(walls)
    check_triangulation(scene)
    free = _maps.free_cells(grid)
    rng = np.random.default_rng(7)
    observers = free[rng.integers(len(free), size=60)] + rng.random((60, 2))
    expanded = 0
    for p in observers:
        status, seen = expansion.seen_pieces(scene._mesh, 0, p[0], p[1], len(scene._lex[0]))
        expanded += status == 0
        assert status in (0, expansion.UNSURE)
        got = scene.polygon(p)
        assert np.array_equal(got, tc.visibility_polygon(walls, p))
        if status == 0:  # each piece seen holds a polygon vertex or lies under a polygon edge
            assert len(seen) > 0
    assert expanded == len(observers)  # random observers lie strictly inside a triangle


def test_observers_on_triangle_edges_and_vertices_flood_to_the_same_answer():
    """An observer on an edge or a corner of the triangulation: the flood answers, exactly."""
    grid = _maps.rooms_and_corridors(size=40, rooms=6)
    walls = tc.wall_segments(tc.Grid(grid, outside="solid"))
    scene = tc.VisibilityScene(walls)
    corners, across, cons = triangles(scene._mesh)
    tried = 0
    for t in range(0, len(corners), max(1, len(corners) // 40)):
        for k in range(3):
            a, b = corners[t, (k + 1) % 3], corners[t, (k + 2) % 3]
            for p in ((a + b) / 2, a):
                if cons[t, k] >= 0 or across[t, k] < 0:
                    continue  # on a wall or on the box: not a free observer
                status, _ = expansion.seen_pieces(scene._mesh, 0, p[0], p[1], len(scene._lex[0]))
                if (p == (a + b) / 2).all():
                    assert turn(a, b, p) != 0 or status == expansion.UNSURE
                want = tc.visibility_polygon(walls, p) if _free(walls, p) else None
                if want is not None:
                    assert np.array_equal(scene.polygon(p), want)
                    tried += 1
    assert tried > 20


def _free(walls, p):
    try:
        tc.visibility_polygon(walls, p)
    except ValueError:
        return False
    return True


def test_sees_to_infinity_with_and_without_a_cone():
    """An open scene: ValueError as visibility_polygon; a cone looking at the walls is answered."""
    walls = [[[0, 0], [4, 0]], [[4, 0], [4, 4]], [[4, 4], [0, 4]]]  # a room open to the left
    scene = tc.VisibilityScene(walls)
    assert len(scene._mesh)
    status, _ = expansion.seen_pieces(scene._mesh, 0, 2.3, 1.9, len(scene._lex[0]))
    assert status == expansion.ENDLESS
    with pytest.raises(ValueError, match="infinity"):
        scene.polygon((2.3, 1.9))
    with pytest.raises(ValueError, match="infinity"):
        tc.visibility_polygon(walls, (2.3, 1.9))
    cone = ((1, 0.2), 1.0)
    p = (2.3, 1.9)
    assert np.array_equal(scene.polygon(p, cone=cone), tc.visibility_polygon(walls, p, cone=cone))


def test_crossing_walls_are_answered_exactly():
    """Walls crossing at rounded points: whether triangulated or not, the same answers."""
    rng = np.random.default_rng(3)
    walls = rng.random((40, 2, 2)) * 10
    room = [[[-1, -1], [11, -1]], [[11, -1], [11, 11]], [[11, 11], [-1, 11]], [[-1, 11], [-1, -1]]]
    walls = np.concatenate([walls, np.array(room, dtype=float)])
    scene = tc.VisibilityScene(walls)
    for p in rng.random((40, 2)) * 10:
        want = tc.visibility_polygon(walls, p)
        assert np.array_equal(scene.polygon(p), want)
