from fractions import Fraction

import numpy as np
import pytest

import tilecast as tc
from reference.visibility import visibility_reference as _visibility_reference
from tilecast.visibility import _cone_points, _prepare


def shoelace(poly):
    x, y = poly.T
    return float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2


def room(size):
    s = size
    return [[[0, 0], [s, 0]], [[s, 0], [s, s]], [[s, s], [0, s]], [[0, s], [0, 0]]]


def _orient(a, b, c):
    det = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (det > 0) - (det < 0)


def exact_walls(walls):
    """The walls' end points as Fractions (converted once, for many oracle calls)."""
    return [(tuple(map(Fraction, a)), tuple(map(Fraction, b))) for a, b in walls]


def oracle(walls, p, q):
    """Exact line of sight: True / False, or None when degenerate (skip).

    ``walls`` from :func:`exact_walls`; ``p`` and ``q`` are floats.
    """
    p = tuple(map(Fraction, p))
    q = tuple(map(Fraction, q))
    for a, b in walls:
        o3, o4 = _orient(a, b, p), _orient(a, b, q)
        if o3 == 0:
            continue  # p on the wall's line: a wall through the observer hides nothing
        o1, o2 = _orient(p, q, a), _orient(p, q, b)
        if 0 in (o1, o2, o4):
            return None  # through a wall's end, or ending on a wall's line
        if o1 != o2 and o3 != o4:
            return False
    return True


def boundary_distance(poly, pts):
    a = poly
    b = np.roll(poly, -1, axis=0)
    e = b - a
    w = pts[:, None, :] - a[None]
    t = np.clip((w * e).sum(-1) / np.maximum((e * e).sum(-1), 1e-300), 0, 1)
    d = w - t[..., None] * e
    return np.sqrt((d * d).sum(-1)).min(1)


def check_against_oracle(walls, p, rng, n=60, **kw):
    poly = tc.visibility_polygon(walls, p, **kw)
    assert shoelace(poly) > 0
    pts = rng.integers(1, 16 * 1024 - 1, (n, 2)) / 1024  # dyadic points in the room
    inside = tc.point_in_polygon(pts, poly)
    far = boundary_distance(poly, pts) > 1e-6
    checked = 0
    exact = exact_walls(walls)
    for q, got, ok in zip(pts, inside, far, strict=True):
        want = oracle(exact, p, q)
        if want is None or not ok:
            continue
        checked += 1
        assert got == want, (p, q.tolist())
    return checked


def random_scene(rng, n_walls):
    walls = room(16)
    for _ in range(n_walls):
        a = rng.integers(0, 33, 2) / 2
        b = a + rng.integers(-8, 9, 2) / 2
        walls.append([a.tolist(), np.clip(b, 0, 16).tolist()])
    return walls


def test_random_scenes_against_line_of_sight():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(60):
        walls = random_scene(rng, int(rng.integers(1, 12)))
        p = (rng.integers(1, 63) / 4, rng.integers(1, 63) / 4)  # often in line with vertices
        checked += check_against_oracle(walls, p, rng)
    assert checked > 1000


def test_tile_map_against_line_of_sight():
    rng = np.random.default_rng(11)
    for _ in range(15):
        grid = tc.Grid(rng.random((16, 16)) < 0.25, outside="solid")
        free = np.argwhere(~grid.solid)
        row, col = free[rng.integers(len(free))]
        walls = tc.wall_segments(grid).tolist()
        # observers on grid lines may stand on a wall: they see both sides (bounded)
        box = [[[-1, -1], [17, -1]], [[17, -1], [17, 17]], [[17, 17], [-1, 17]]]
        box += [[[-1, 17], [-1, -1]]]
        for p in [(col + 0.5, row + 0.5), (col + 0.5, float(row)), (float(col), row + 0.25)]:
            check_against_oracle(walls + box, p, rng, n=40)


@pytest.mark.parametrize("p", [(8.0, 8.0), (4.0, 8.0), (8.0, 0.0 + 4.0), (2.0, 2.0), (5.0, 3.0)])
def test_collinear_vertices_and_wall_extensions(p):
    # pillars on a lattice: many vertices exactly in line with the observer,
    # observers on the extension of walls.
    walls = room(16)
    for i in range(2, 15, 4):
        for j in range(2, 15, 4):
            walls += [[[i, j], [i + 1, j]], [[i + 1, j], [i + 1, j + 1]]]
            walls += [[[i + 1, j + 1], [i, j + 1]], [[i, j + 1], [i, j]]]
    assert check_against_oracle(walls, p, np.random.default_rng(1), n=200) > 50


def test_sweep_matches_reference():
    rng = np.random.default_rng(5)
    for k in range(40):
        walls = np.array(random_scene(rng, int(rng.integers(1, 8))), dtype=float).reshape(-1, 4)
        p = (rng.integers(1, 63) / 4, rng.integers(1, 63) / 4)
        radius = None if k % 3 else float(rng.uniform(2, 10))
        cone = None if k % 2 else ((1.0, float(rng.uniform(-1, 1))), float(rng.uniform(0.3, 2.5)))
        segs = _prepare(walls, p, radius, None, None)
        got = tc.visibility_polygon(walls.reshape(-1, 2, 2), p, radius=radius, cone=cone)
        from tilecast._validate import as_cone

        cp = None if cone is None else _cone_points(p, as_cone(cone))
        want = _visibility_reference(segs, p, radius, cp)
        assert got.shape == want.shape
        assert np.allclose(got, want, rtol=0, atol=1e-9)


def test_radius_cone_bounds_circles():
    p = (5.0, 5.0)
    full = tc.visibility_polygon([], p, radius=2.0)
    assert abs(shoelace(full) - np.pi * 4) < 0.01 * np.pi * 4
    gaps = np.degrees(np.diff(np.unwrap(np.arctan2(*(full - p).T[::-1]))))
    assert (np.abs(gaps) <= 1.0 + 1e-9).all()
    cone = tc.visibility_polygon([], p, radius=2.0, cone=((0, 1), np.pi / 4))
    assert abs(shoelace(cone) - np.pi) < 0.01 and (cone[0] == p).all()
    box = tc.visibility_polygon([], p, bounds=(0, 0, 10, 8))
    assert shoelace(box) == 80.0
    shadow = tc.visibility_polygon([], p, bounds=(0, 0, 10, 10), circles=[(8, 5, 1)])
    theta, alpha = np.arcsin(1 / 3), np.arccos(1 / 3)
    hidden = 25 * np.tan(theta) - 8 * np.sin(theta) * np.cos(theta)  # shadow behind the chord
    hidden += alpha - 0.5 * np.sin(2 * alpha)  # the near cap of the disc
    assert abs((100 - shoelace(shadow)) - hidden) < 0.01 * hidden
    assert tc.point_in_polygon((9.5, 5.0), shadow) is False
    assert tc.point_in_polygon((6.5, 5.0), shadow) is True
    assert tc.visibility_polygon([], (8, 5), bounds=(0, 0, 10, 10), circles=[(8, 5, 1)]).shape == (
        0,
        2,
    )


def test_observer_on_a_wall_sees_both_sides():
    walls = [*room(10), [[0, 5], [10, 5]]]
    assert shoelace(tc.visibility_polygon(walls, (5, 5))) == 100.0
    assert shoelace(tc.visibility_polygon(walls, (5, 2))) == 50.0


def test_rays_method_is_close():
    walls = random_scene(np.random.default_rng(3), 10)
    exact = tc.visibility_polygon(walls, (8.3, 7.1))
    rays = tc.visibility_polygon(walls, (8.3, 7.1), method="rays")
    assert abs(shoelace(exact) - shoelace(rays)) < 0.01 * shoelace(exact)


def test_wall_segments():
    grid = tc.Grid([[0, 1, 1], [0, 0, 1]], tile_size=(2.0, 0.5), origin=(1.0, -1.0))
    segs = tc.wall_segments(grid)
    assert segs.shape[1:] == (2, 2)
    # merged: the solid L's boundary against free cells (the map's edge is free)
    assert sorted(map(tuple, segs.reshape(-1, 4).tolist())) == sorted(
        [
            (3.0, -1.0, 7.0, -1.0),
            (3.0, -0.5, 5.0, -0.5),
            (5.0, 0.0, 7.0, 0.0),
            (3.0, -1.0, 3.0, -0.5),
            (5.0, -0.5, 5.0, 0.0),
            (7.0, -1.0, 7.0, 0.0),
        ]
    )
    closed = tc.wall_segments(tc.Grid(np.zeros((3, 4), bool), outside="solid"))
    assert len(closed) == 4
    assert shoelace(tc.visibility_polygon(closed, (1.5, 1.5))) == 12.0
    with pytest.raises(ValueError, match="infinity"):
        tc.visibility_polygon(tc.wall_segments(tc.Grid(np.zeros((3, 4), bool))), (1.5, 1.5))


def test_against_cgal():
    pv = pytest.importorskip("pyvispoly")
    rng = np.random.default_rng(9)
    for _ in range(20):
        boxes, walls = [], room(100)
        for x in rng.permutation(10)[:5]:
            y = int(rng.integers(0, 10))
            x0, y0 = 10 * x + 2, 10 * y + 2
            box = [(x0, y0), (x0 + 5, y0), (x0 + 5, y0 + 5), (x0, y0 + 5)]
            boxes.append(box)
            walls += [[box[k], box[(k + 1) % 4]] for k in range(4)]
        p = (10 * float(rng.integers(0, 10)) + 0.5, 10 * float(rng.integers(0, 10)) + 0.5)
        outer = pv.Polygon([pv.Point(*v) for v in [(0, 0), (100, 0), (100, 100), (0, 100)]])
        holes = [pv.Polygon([pv.Point(*v) for v in box[::-1]]) for box in boxes]
        calc = pv.VisibilityPolygonCalculator(pv.PolygonWithHoles(outer, holes))
        want = float(calc.compute_visibility_polygon(pv.Point(*p)).area())
        got = shoelace(tc.visibility_polygon(walls, p))
        assert abs(got - want) <= 1e-9 * want


def test_bad_inputs():
    with pytest.raises(ValueError, match="segments"):
        tc.visibility_polygon(np.zeros((2, 3)), (0, 0), radius=1)
    with pytest.raises(ValueError, match="segments"):
        tc.visibility_polygon([[[0, 0], [np.nan, 1]]], (0, 0), radius=1)
    with pytest.raises(TypeError, match="observer"):
        tc.visibility_polygon([], "xy", radius=1)
    with pytest.raises(ValueError, match="radius"):
        tc.visibility_polygon([], (0, 0), radius=-1)
    with pytest.raises(ValueError, match="bounds"):
        tc.visibility_polygon([], (20, 0), bounds=(0, 0, 10, 10))
    with pytest.raises(ValueError, match="bounds"):
        tc.visibility_polygon([], (5, 5), bounds=(10, 0, 0, 10))
    with pytest.raises(ValueError, match="cone"):
        tc.visibility_polygon([], (0, 0), radius=1, cone=((0, 0), 1.0))
    with pytest.raises(ValueError, match="cone"):
        tc.visibility_polygon([], (0, 0), radius=1, cone=((1, 0), -1.0))
    with pytest.raises(ValueError, match="circles"):
        tc.visibility_polygon([], (0, 0), radius=1, circles=[(3, 3, 0)])
    with pytest.raises(ValueError, match="method"):
        tc.visibility_polygon([], (0, 0), radius=1, method="cgal")
    with pytest.raises(ValueError, match="infinity"):
        tc.visibility_polygon([[[1, 0], [1, 1]]], (0, 0))
    with pytest.raises(ValueError, match="infinity"):
        tc.visibility_polygon([[[1, 0], [1, 1]]], (0, 0), method="rays")
    with pytest.raises(TypeError, match="grid"):
        tc.wall_segments(np.zeros((2, 2)))


# ------------------------------------------------------- numeric range (issue 16)
ROOM = [[[0, 0], [4, 0]], [[4, 0], [4, 4]], [[4, 4], [0, 4]], [[0, 4], [0, 0]]]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"segments": [[[-1e308, -1e308], [1e308, -1e308]], *ROOM]}, "segments"),
        ({"segments": [*ROOM, [[1, 1], [5e-324, 2]]]}, "segments"),
        ({"observer": (1e-200, 2.0)}, "observer"),
        ({"radius": 1e300}, "radius"),
        ({"bounds": (-1e300, -1, 10, 10)}, "bounds"),
        ({"circles": [[3, 3, 1e-300]]}, "circles"),
        ({"segments": [[[0, 0], [1]]]}, "segments"),
        ({"circles": [[3, 3, 0.5], [1]]}, "circles"),
    ],
)
def test_out_of_range_or_ragged_input_names_the_argument(kwargs, name):
    # segments at +-1e308 once gave NaN vertices
    args = {"segments": ROOM, "observer": (2.0, 2.0), **kwargs}
    with pytest.raises(ValueError, match=f"^{name} "):
        tc.visibility_polygon(args.pop("segments"), args.pop("observer"), **args)


@pytest.mark.parametrize("scale", [2.0**-390, 1e-100, 1.0, 1e100, 2.0**390])
def test_scaled_room_is_the_scaled_polygon(scale):
    room = np.array([*ROOM, [[2, 1], [3, 1]]], dtype=float) * scale
    poly = tc.visibility_polygon(room, (2 * scale, 2 * scale))
    want = tc.visibility_polygon(np.array([*ROOM, [[2, 1], [3, 1]]], dtype=float), (2, 2))
    assert np.isfinite(poly).all()
    assert np.allclose(poly / scale, want, rtol=1e-12, atol=1e-12)
