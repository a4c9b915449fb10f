"""Field of view: kernel vs reference vs an independent slope-interval oracle,
symmetry properties, hand-worked cases, radius and metrics, bad input."""

from __future__ import annotations

import contextlib
import itertools
import math
from fractions import Fraction
from types import SimpleNamespace
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tilecast.field_of_view as field_of_view
from reference.fov import fov_reference as _fov_reference
from tilecast import Grid, TileMap, TileSet, fov, fov_counts, fov_many
from tilecast._kernels import fov as fov_kernel

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- strategies
@st.composite
def maps(draw, max_side=14):
    rows = draw(st.integers(1, max_side))
    cols = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.8]))
    seed = draw(st.integers(0, 2**32 - 1))
    solid = np.random.default_rng(seed).random((rows, cols)) < density
    # Put the origin anywhere, corners and edges included.
    i = draw(st.one_of(st.sampled_from([0, cols - 1]), st.integers(0, cols - 1)))
    j = draw(st.one_of(st.sampled_from([0, rows - 1]), st.integers(0, rows - 1)))
    return solid, (i, j)


radii = st.one_of(
    st.none(),
    st.integers(0, 20),
    st.floats(0, 20, allow_nan=False),
    st.sampled_from([0.5, 1.5, math.sqrt(2), math.sqrt(5), 2.9999999999999996, math.inf]),
)
metrics = st.sampled_from(["euclidean", "chebyshev", "manhattan"])


def _reference(solid, origin, radius=None, metric="euclidean", light_walls=True):
    return _fov_reference(
        solid, origin, None if radius == math.inf else radius, metric, light_walls
    )


# -------------------------------------------------------------------- oracle
def _interval_oracle(solid: np.ndarray, origin: tuple[int, int]) -> np.ndarray:
    """Ford's rule restated on slope intervals, with no scan and no rounding.

    In each quadrant (depth d >= 1, column c with |c| <= d) a wall at (d, c)
    blocks the open slope interval ((2c-1)/2d, (2c+1)/2d) for everything
    deeper. At depth d the free slopes are [-1, 1] minus the walls of depths
    1..d-1; only its pieces of positive length count (a single free slope
    between two blocked intervals is no gap). A floor cell is visible when its
    centre slope c/d lies in such a piece, a wall when its open interval meets
    one.
    """
    rows, cols = solid.shape
    ox, oy = origin
    visible = np.zeros((rows, cols), dtype=bool)
    visible[oy, ox] = True
    frames = [
        lambda d, c: (ox + c, oy - d),
        lambda d, c: (ox + c, oy + d),
        lambda d, c: (ox + d, oy + c),
        lambda d, c: (ox - d, oy + c),
    ]
    for frame in frames:
        blocked: list[tuple[Fraction, Fraction]] = []
        for d in range(1, rows + cols):
            # Free pieces of positive length among the blocked intervals so far.
            pieces = []
            cursor = Fraction(-1)
            for a, b in sorted(blocked):
                if a > cursor:
                    pieces.append((cursor, min(a, Fraction(1))))
                cursor = max(cursor, b)
            if cursor < 1:
                pieces.append((cursor, Fraction(1)))
            pieces = [(a, b) for a, b in pieces if a < b]
            new_walls = []
            for c in range(-d, d + 1):
                x, y = frame(d, c)
                if not (0 <= x < cols and 0 <= y < rows):
                    continue
                lo, hi = Fraction(2 * c - 1, 2 * d), Fraction(2 * c + 1, 2 * d)
                if solid[y, x]:
                    if any(a < hi and b > lo for a, b in pieces):
                        visible[y, x] = True
                    new_walls.append((lo, hi))
                elif any(a <= Fraction(c, d) <= b for a, b in pieces):
                    visible[y, x] = True
            blocked.extend(new_walls)
    return visible


def _centre_line_clear(solid: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Exact line of sight between the centres of cells a and b (DESIGN 3 rule:
    no solid cell strictly between the end cells meets the open segment, and a
    lattice point between two solid shoulders blocks)."""
    (ax, ay), (bx, by) = a, b
    x0, y0 = Fraction(2 * ax + 1, 2), Fraction(2 * ay + 1, 2)
    dx, dy = bx - ax, by - ay
    ts = {Fraction(0), Fraction(1)}
    ts.update((k - x0) / dx for k in range(min(ax, bx) + 1, max(ax, bx) + 1))
    ts.update((k - y0) / dy for k in range(min(ay, by) + 1, max(ay, by) + 1))
    ts = sorted(ts)
    for t0, t1 in itertools.pairwise(ts):
        mid = (t0 + t1) / 2
        cell = (math.floor(x0 + mid * dx), math.floor(y0 + mid * dy))
        if cell not in (a, b) and solid[cell[1], cell[0]]:
            return False
        x, y = x0 + t1 * dx, y0 + t1 * dy
        if t1 < 1 and x.denominator == 1 and y.denominator == 1:
            sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
            if solid[cell[1], cell[0] + sx] and solid[cell[1] + sy, cell[0]]:
                return False
    return True


def _grid_from_text(*rows: str) -> Grid:
    return Grid([[ch == "#" for ch in row] for row in rows])


def _text(mask: np.ndarray) -> list[str]:
    return ["".join("*" if v else "." for v in row) for row in mask]


# ----------------------------------------------- fast path == reference == oracle
@SETTINGS
@given(maps(), radii, metrics)
def test_kernel_equals_reference(case, radius, metric):
    solid, origin = case
    got = fov(Grid(solid), origin, radius, metric=metric)
    want = _fov_reference(solid, origin, None if radius == math.inf else radius, metric)
    assert got.dtype == np.bool_ and got.shape == solid.shape
    np.testing.assert_array_equal(got, want)


def test_kernel_equals_reference_on_bigger_random_maps():
    rng = np.random.default_rng(7)
    for k in range(30):
        rows, cols = rng.integers(20, 60, 2)
        solid = rng.random((rows, cols)) < [0.02, 0.1, 0.3][k % 3]
        origin = (int(rng.integers(cols)), int(rng.integers(rows)))
        radius = [None, float(rng.uniform(0, 40)), int(rng.integers(0, 40))][k % 3]
        metric = ["euclidean", "chebyshev", "manhattan"][(k // 3) % 3]
        got = fov(Grid(solid), origin, radius, metric=metric)
        np.testing.assert_array_equal(got, _fov_reference(solid, origin, radius, metric))


@settings(max_examples=40, deadline=None)
@given(maps(max_side=10))
def test_reference_equals_interval_oracle(case):
    solid, origin = case
    np.testing.assert_array_equal(_fov_reference(solid, origin), _interval_oracle(solid, origin))


# --------------------------------------------------------------- properties
@settings(max_examples=15, deadline=None)
@given(maps(max_side=16), radii, metrics)
def test_floor_cells_see_each_other_symmetrically(case, radius, metric):
    solid, _ = case
    grid = Grid(solid)
    rows, cols = solid.shape
    floors = [(i, j) for j in range(rows) for i in range(cols) if not solid[j, i]]
    views = {cell: fov(grid, cell, radius, metric=metric) for cell in floors}
    for a in floors:
        for b in floors:
            assert views[a][b[1], b[0]] == views[b][a[1], a[0]], (a, b)


@settings(max_examples=30, deadline=None)
@given(maps(max_side=12))
def test_fov_sees_every_cell_with_a_clear_line_between_centres(case):
    # Walls block fov only through their inscribed diamonds, which are smaller
    # than the squares a centre-to-centre line must avoid: a clear line implies
    # visible. The converse fails (the pillar test below has an example).
    solid, origin = case
    mask = fov(Grid(solid), origin)
    rows, cols = solid.shape
    for j in range(rows):
        for i in range(cols):
            if (i, j) != origin and _centre_line_clear(solid, origin, (i, j)):
                assert mask[j, i], (i, j)


_SYMMETRIES = [
    # (transform the map, where the origin (i, j) goes on a (rows, cols) map, undo)
    (lambda m: m, lambda i, j, r, c: (i, j), lambda m: m),
    (np.fliplr, lambda i, j, r, c: (c - 1 - i, j), np.fliplr),
    (np.flipud, lambda i, j, r, c: (i, r - 1 - j), np.flipud),
    (lambda m: m[::-1, ::-1], lambda i, j, r, c: (c - 1 - i, r - 1 - j), lambda m: m[::-1, ::-1]),
    (np.transpose, lambda i, j, r, c: (j, i), np.transpose),
    (np.rot90, lambda i, j, r, c: (j, c - 1 - i), lambda m: np.rot90(m, -1)),
    (lambda m: np.rot90(m, -1), lambda i, j, r, c: (r - 1 - j, i), np.rot90),
    (
        lambda m: m[::-1, ::-1].T,
        lambda i, j, r, c: (r - 1 - j, c - 1 - i),
        lambda m: m.T[::-1, ::-1],
    ),
]


@settings(max_examples=40, deadline=None)
@given(maps(max_side=20), radii, metrics)
def test_invariant_under_the_8_symmetries_of_the_square(case, radius, metric):
    solid, (i, j) = case
    rows, cols = solid.shape
    base = fov(Grid(solid), (i, j), radius, metric=metric)
    for forward, move, back in _SYMMETRIES:
        moved = np.ascontiguousarray(forward(solid))
        mi, mj = move(i, j, rows, cols)
        marker = np.zeros_like(solid)
        marker[j, i] = True
        assert forward(marker)[mj, mi]  # the origin moves with the map
        np.testing.assert_array_equal(back(moved), solid)
        got = back(fov(Grid(moved), (mi, mj), radius, metric=metric))
        np.testing.assert_array_equal(got, base)


@settings(max_examples=40, deadline=None)
@given(maps(max_side=12), st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 6))
def test_what_lies_beyond_the_map_does_not_matter(case, seed, pad_x, pad_y):
    # The scan stops at the edge; the same map inside any larger map (whatever
    # its walls) sees the same cells, and the grid's outside policy is ignored.
    solid, (i, j) = case
    rows, cols = solid.shape
    rng = np.random.default_rng(seed)
    big = rng.random((rows + 2 * pad_y, cols + 2 * pad_x)) < rng.choice([0.0, 0.3, 0.9])
    big[pad_y : pad_y + rows, pad_x : pad_x + cols] = solid
    inner = fov(Grid(big), (i + pad_x, j + pad_y))[pad_y : pad_y + rows, pad_x : pad_x + cols]
    np.testing.assert_array_equal(fov(Grid(solid), (i, j)), inner)
    np.testing.assert_array_equal(fov(Grid(solid, outside="solid"), (i, j)), inner)


@SETTINGS
@given(maps(max_side=16), radii, metrics)
def test_radius_only_removes_cells(case, radius, metric):
    solid, (i, j) = case
    grid = Grid(solid)
    unlimited = fov(grid, (i, j))
    limited = fov(grid, (i, j), radius, metric=metric)
    rows, cols = solid.shape
    dy, dx = np.mgrid[0:rows, 0:cols]
    dx, dy = np.abs(dx - i), np.abs(dy - j)
    if radius is None or radius == math.inf:
        in_range = np.ones_like(solid)
    elif metric == "euclidean":
        r = Fraction(radius)
        in_range = np.vectorize(lambda a, b: a * a + b * b <= r * r)(dx, dy)
    elif metric == "chebyshev":
        in_range = np.maximum(dx, dy) <= radius
    else:
        in_range = dx + dy <= radius
    np.testing.assert_array_equal(limited, unlimited & in_range)


@settings(max_examples=30, deadline=None)
@given(maps(max_side=16), st.integers(0, 5), radii, metrics)
def test_fov_many_is_the_union(case, count, radius, metric):
    solid, origin = case
    rows, cols = solid.shape
    rng = np.random.default_rng(count)
    cells = [origin] + [(int(rng.integers(cols)), int(rng.integers(rows))) for _ in range(count)]
    grid = Grid(solid)
    want = np.zeros_like(solid)
    for cell in cells:
        want |= fov(grid, cell, radius, metric=metric)
    np.testing.assert_array_equal(fov_many(grid, cells, radius, metric=metric), want)
    np.testing.assert_array_equal(
        fov_many(grid, np.array(cells, dtype=np.int32), radius, metric=metric), want
    )


# ------------------------------------------------------------- hand-worked
def test_pillar_casts_a_widening_shadow_with_exact_tie_cells_visible():
    # A pillar two cells east blocks slopes (-1/4, 1/4). Cells (9, 4) and (9, 6)
    # have their centres exactly on the shadow's edge (slope 1/4): visible.
    solid = np.zeros((11, 11), dtype=bool)
    solid[5, 7] = True
    mask = fov(Grid(solid), (5, 5))
    hidden = sorted((int(i), int(j)) for j, i in np.argwhere(~mask))
    assert hidden == [(8, 5), (9, 5), (10, 4), (10, 5), (10, 6)]
    # fov is not line of sight between centres: the line from (5, 5) to (9, 4)
    # crosses the pillar's cell, yet (9, 4) is seen.
    assert not _centre_line_clear(solid, (5, 5), (9, 4))
    assert _centre_line_clear(solid, (5, 5), (9, 3))


def test_corridor_walls_are_all_seen():
    # Expansive walls: from one end of a straight corridor, every wall tile of
    # it is visible, as is every floor tile.
    grid = _grid_from_text("#" * 25, "." * 25, "#" * 25)
    assert fov(grid, (0, 1)).all()
    assert fov(grid, (12, 1)).all()


def test_room_and_doorway():
    grid = _grid_from_text(
        "#########",
        "#.......#",
        "#.......#",
        "####.####",
        "#.......#",
        "#.......#",
        "#########",
    )
    # Worked by hand from the scan. From a corner of the upper room: all of its
    # walls (expansive walls), and through the doorway (4, 3) one thin wedge
    # (sector [5/8, 3/4] at depth 5 east, which holds no centre until depth 6).
    assert _text(fov(grid, (1, 1))) == [
        "*********",
        "*********",
        "*********",
        "*********",
        ".....*...",
        ".......**",
        "........*",
    ]
    # Just above the doorway: the doorway's sector is [-1/2, 1/2] below it.
    assert _text(fov(grid, (4, 2))) == [
        "*********",
        "*********",
        "*********",
        "*********",
        "...***...",
        "...***...",
        "..*****..",
    ]


def test_touching_shadows_leave_no_gap():
    # Wall (1, 3) blocks slopes (-1/2, 1/2) and wall (3, 5) blocks (1/2, 5/6) as
    # seen from (0, 3): the single free slope 1/2 between them is no gap, so
    # (4, 5), whose centre lies on it, is hidden; (2, 4), nearer, is seen.
    solid = np.zeros((7, 6), dtype=bool)
    solid[3, 1] = solid[5, 3] = True
    mask = fov(Grid(solid), (0, 3))
    assert mask[4, 2] and not mask[5, 4]
    assert _text(mask) == [
        "******",
        "*****.",
        "***...",
        "**....",
        "***...",
        "****..",
        "****..",
    ]


def test_origin_is_visible_and_does_not_block_even_when_solid():
    solid = np.ones((3, 3), dtype=bool)
    mask = fov(Grid(solid), (1, 1))
    assert mask.all()  # the 8 neighbours are walls in reach
    lone = fov(Grid(np.zeros((1, 1), dtype=bool)), (0, 0))
    assert lone.tolist() == [[True]]


def test_radius_is_inclusive_at_exactly_radius():
    grid = Grid(np.zeros((41, 41), dtype=bool))
    # (3, 4) from the origin is at distance exactly 5.
    mask = fov(grid, (20, 20), radius=5)
    assert mask[24, 23] and mask[20, 25] and not mask[20, 26] and not mask[25, 24]
    assert not fov(grid, (20, 20), radius=4.999999999)[24, 23]
    assert int(mask.sum()) == 81  # lattice points in the closed disc of radius 5
    assert int(fov(grid, (20, 20), radius=20).sum()) == 1257
    # A float radius is taken exactly: the double math.sqrt(2) lies just above
    # the true root, the double before it just below.
    assert fov(grid, (20, 20), radius=math.sqrt(2))[21, 21]
    assert not fov(grid, (20, 20), radius=math.nextafter(math.sqrt(2), 0))[21, 21]


def test_metric_shapes_on_an_open_map():
    grid = Grid(np.zeros((31, 31), dtype=bool))
    r = 7
    assert int(fov(grid, (15, 15), r, metric="chebyshev").sum()) == (2 * r + 1) ** 2
    assert int(fov(grid, (15, 15), r, metric="manhattan").sum()) == 2 * r * r + 2 * r + 1
    assert int(fov(grid, (15, 15), 0).sum()) == 1
    assert fov(grid, (15, 15), 1000).all()
    assert fov(grid, (15, 15), math.inf).all()
    assert fov(grid, (15, 15), 10**400).all()
    assert fov(grid, (15, 15), np.int64(2**62), metric="euclidean").all()
    assert int(fov(grid, (15, 15), np.uint8(7), metric="chebyshev").sum()) == (2 * r + 1) ** 2


def test_long_maps():
    corridor = np.zeros((1, 20000), dtype=bool)
    assert fov(Grid(corridor), (0, 0)).all()
    assert int(fov(Grid(corridor), (10000, 0), radius=100).sum()) == 201
    column = np.zeros((5000, 3), dtype=bool)
    column[:, 0] = column[:, 2] = True
    assert fov(Grid(column), (1, 0)).all()


def test_on_a_grid_with_any_tile_size_the_answer_is_in_cells():
    solid = np.random.default_rng(3).random((9, 12)) < 0.3
    want = fov(Grid(solid), (4, 4), 3.5)
    got = fov(Grid(solid, tile_size=(0.25, 3.0), origin=(-7.0, 2.0)), (4, 4), 3.5)
    np.testing.assert_array_equal(got, want)


def test_result_is_a_fresh_writable_array():
    grid = Grid(np.zeros((4, 5), dtype=bool))
    mask = fov(grid, (0, 0))
    mask[:] = False
    assert fov(grid, (0, 0)).all()
    assert mask.flags.writeable and mask.flags.c_contiguous


def test_set_solid_is_seen_by_the_next_call():
    grid = Grid(np.zeros((5, 5), dtype=bool))
    assert fov(grid, (0, 2))[2, 4]
    grid.set_solid((2, 2))
    assert not fov(grid, (0, 2))[2, 4]


# ----------------------------------------------------------------- bad input
def test_bad_input():
    grid = Grid(np.zeros((4, 5), dtype=bool))
    with pytest.raises(TypeError, match="grid"):
        fov(np.zeros((4, 5), dtype=float), (0, 0))  # a 2D *bool* array is a map; floats are not
    with pytest.raises(TypeError, match="grid"):
        fov([[False] * 5] * 4, (0, 0))
    with pytest.raises(TypeError, match="grid"):
        fov_many([[0, 0]], [(0, 0)])
    for cell in [(5, 0), (0, 4), (-1, 0), (0, -1), (10**12, 0)]:
        with pytest.raises(ValueError, match="origin_cell"):
            fov(grid, cell)
    for cell in [(0.5, 0), "ab", (1, 2, 3), 3, (True, 0), None]:
        with pytest.raises(TypeError, match="origin_cell"):
            fov(grid, cell)
    for radius in [-1, -0.5, math.nan, -math.inf, -(10**400), np.int64(-3)]:
        with pytest.raises(ValueError, match="radius"):
            fov(grid, (0, 0), radius)
    for radius in ["3", True, (1,), 1j]:
        with pytest.raises(TypeError, match="radius"):
            fov(grid, (0, 0), radius)
    with pytest.raises(ValueError, match="metric"):
        fov(grid, (0, 0), 3, metric="octile")
    with pytest.raises(TypeError, match="metric"):
        fov(grid, (0, 0), 3, metric=2)
    with pytest.raises(ValueError, match="origin_cells"):
        fov_many(grid, [(0, 0), (5, 0)])
    with pytest.raises(ValueError, match="origin_cells"):
        fov_many(grid, [[0, 0, 0]])
    with pytest.raises(TypeError, match="origin_cells"):
        fov_many(grid, [(0.5, 0)])
    with pytest.raises(ValueError, match="metric"):
        fov_many(grid, [(0, 0)], metric="")
    with pytest.raises(ValueError, match="radius"):
        fov_many(grid, [(0, 0)], -2)
    assert not fov_many(grid, np.empty((0, 2), dtype=np.int64)).any()
    assert not fov_many(grid, []).any()


# --------------------------------------------------------------- light_walls
@SETTINGS
@given(maps(), radii, metrics)
def test_unlit_walls_kernel_equals_reference(case, radius, metric):
    solid, origin = case
    got = fov(Grid(solid), origin, radius, metric=metric, light_walls=False)
    want = _reference(solid, origin, radius, metric, light_walls=False)
    np.testing.assert_array_equal(got, want)
    # Walls still block exactly as before: only the walls leave the mask.
    lit = fov(Grid(solid), origin, radius, metric=metric)
    expected = lit & ~solid
    expected[origin[1], origin[0]] = True
    np.testing.assert_array_equal(got, expected)


def test_unlit_walls_by_hand():
    grid = _grid_from_text(
        "#####",
        "#...#",
        "#.#.#",
        "#####",
    )
    assert _text(fov(grid, (1, 1), light_walls=False)) == [
        ".....",
        ".***.",
        ".*.*.",
        ".....",
    ]
    # A solid origin is still visible to itself; the walls around are not.
    assert _text(fov(grid, (2, 2), light_walls=False)) == [
        ".....",
        ".***.",
        ".***.",
        ".....",
    ]


def test_tcod_radius_and_light_walls_map_as_the_docs_say():
    # docs/fov.md: tcod's radius r > 0 (exclusive) is our radius
    # math.nextafter(r, 0) (inclusive), its 0 our None; its light_walls=False
    # removes the walls after the scan, as ours does (but also a solid origin).
    tcod_map = pytest.importorskip("tcod.map")
    symmetric = pytest.importorskip("tcod.constants").FOV_SYMMETRIC_SHADOWCAST
    floor = np.ones((41, 41), dtype=bool)
    for r in range(25):
        for i, j in [(20, 20), (3, 7), (0, 0)]:
            theirs = tcod_map.compute_fov(floor, (j, i), r, True, symmetric)
            ours = fov(~floor, (i, j), math.nextafter(r, 0) if r else None)
            np.testing.assert_array_equal(ours, theirs)
    rng = np.random.default_rng(5)
    for _ in range(50):
        solid = rng.random((15, 20)) < 0.3
        i, j = int(rng.integers(20)), int(rng.integers(15))
        lit = tcod_map.compute_fov(~solid, (j, i), 0, True, symmetric)
        unlit = tcod_map.compute_fov(~solid, (j, i), 0, False, symmetric)
        np.testing.assert_array_equal(unlit, lit & ~solid)
        ours = fov(solid, (i, j)) & ~solid
        ours[j, i] = True
        np.testing.assert_array_equal(fov(solid, (i, j), light_walls=False), ours)
    solid = np.ones((3, 3), dtype=bool)
    assert not tcod_map.compute_fov(~solid, (1, 1), 0, False, symmetric)[1, 1]
    assert fov(solid, (1, 1), light_walls=False)[1, 1]


# ------------------------------------------------------- fov_many's combine
@st.composite
def views(draw, max_side=14):
    """A map and 0..6 origins on it (repeats and solid cells included)."""
    solid, origin = draw(maps(max_side))
    rows, cols = solid.shape
    cell = st.tuples(st.integers(0, cols - 1), st.integers(0, rows - 1))
    more = draw(st.lists(st.one_of(cell, st.just(origin)), max_size=5))
    origins = draw(st.sampled_from([[], [origin]])) + more
    return solid, origins


@contextlib.contextmanager
def _parallel(always):
    # With always=True every "count" / "none" call takes the parallel kernels
    # (however little work), on at least two chunks.
    if not always:
        yield
        return
    with (
        mock.patch.object(field_of_view, "_PARALLEL_WORK", 0),
        mock.patch.object(field_of_view, "thread_count", lambda: 3),
    ):
        yield


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(views(), radii, metrics, st.booleans(), st.booleans())
def test_combine_modes_equal_the_reference(case, radius, metric, light_walls, parallel):
    solid, origins = case
    rows, cols = solid.shape
    want = np.zeros((len(origins), rows, cols), dtype=bool)
    for k, origin in enumerate(origins):
        want[k] = _reference(solid, origin, radius, metric, light_walls)
    options = {"metric": metric, "light_walls": light_walls}
    with _parallel(parallel):
        each = fov_many(Grid(solid), origins, radius, combine="none", **options)
        counts = fov_many(Grid(solid), origins, radius, combine="count", **options)
        union = fov_many(Grid(solid), origins, radius, combine="any", **options)
        exposure = fov_counts(Grid(solid), radius, origins=origins, **options)
    assert each.dtype == np.bool_ and each.shape == (len(origins), rows, cols)
    np.testing.assert_array_equal(each, want)
    assert counts.dtype == np.int32 and counts.shape == (rows, cols)
    np.testing.assert_array_equal(counts, want.sum(axis=0))
    np.testing.assert_array_equal(exposure, counts)
    assert union.dtype == np.bool_
    np.testing.assert_array_equal(union, want.any(axis=0))


def test_combine_modes_on_bigger_maps_serial_and_parallel():
    # Bigger maps and more origins than the hypothesis test, once as dispatched
    # and once forced onto the parallel kernels; each origin's own fov
    # (checked against the reference above) is the oracle.
    rng = np.random.default_rng(11)
    for k in range(6):
        rows, cols = (int(v) for v in rng.integers(30, 70, 2))
        solid = rng.random((rows, cols)) < [0.0, 0.1, 0.35][k % 3]
        origins = np.column_stack([rng.integers(0, cols, 60), rng.integers(0, rows, 60)])
        radius = [None, 9.5][k % 2]
        light_walls = k < 3
        want = np.stack([fov(solid, o, radius, light_walls=light_walls) for o in origins])
        for parallel in (False, True):
            with _parallel(parallel):
                each = fov_many(solid, origins, radius, light_walls=light_walls, combine="none")
                counts = fov_many(solid, origins, radius, light_walls=light_walls, combine="count")
            np.testing.assert_array_equal(each, want)
            np.testing.assert_array_equal(counts, want.sum(axis=0))


@pytest.mark.parametrize("chunks", [1, 2, 3, 5, 64])
def test_parallel_kernels_do_not_depend_on_the_number_of_chunks(chunks):
    rng = np.random.default_rng(chunks)
    solid = rng.random((23, 31)) < 0.25
    origins = np.column_stack([rng.integers(0, 31, 40), rng.integers(0, 23, 40)])
    want = np.stack([fov(solid, o, light_walls=False) for o in origins])
    flat, rows, cols = solid.reshape(-1), 23, 31
    flat.flags.writeable = False  # as the product passes a map's cells (one compiled signature)
    parts = np.zeros((chunks, rows * cols), dtype=np.int32)
    stamp = np.zeros((chunks, rows * cols), dtype=np.int32)
    each = np.zeros((len(origins), rows * cols), dtype=np.bool_)
    no_counts, no_masks = np.empty(0, np.int32), np.empty((1, 0), np.bool_)
    for t in range(chunks):  # what each pool thread runs, one stride each
        fov_kernel.views_into(
            flat, no_masks, parts[t], stamp[t], rows, cols, origins, t, chunks, 0, 0, False
        )
        fov_kernel.views_into(
            flat, each, no_counts, no_counts, rows, cols, origins, t, chunks, 0, 0, False
        )
    np.testing.assert_array_equal(parts.sum(axis=0).reshape(rows, cols), want.sum(axis=0))
    np.testing.assert_array_equal(each.reshape(-1, rows, cols), want)


def test_combine_by_hand_and_with_no_origins():
    grid = _grid_from_text(
        "..#..",
        ".....",
    )
    counts = fov_many(grid, [(0, 0), (0, 0), (4, 0)], combine="count")
    # (0, 0) twice: it counts twice.
    want = 2 * fov(grid, (0, 0)).astype(np.int32) + fov(grid, (4, 0))
    np.testing.assert_array_equal(counts, want)
    assert counts[0, 2] == 3  # the wall is seen by all three
    # The four quadrants of one scan share the diagonals: still counted once.
    open_map = np.zeros((5, 5), dtype=bool)
    assert fov_many(open_map, [(2, 2)], combine="count").tolist() == [[1] * 5] * 5
    assert fov_many(open_map, [(2, 2), (0, 4)], combine="count").tolist() == [[2] * 5] * 5
    assert fov_many(grid, [], combine="none").shape == (0, 2, 5)
    assert fov_many(grid, [], combine="count").tolist() == [[0] * 5] * 2
    assert fov_many(grid, np.empty((0, 2), dtype=np.int32), combine="count").dtype == np.int32
    one = fov_many(grid, (1, 1), combine="none")
    assert one.shape == (1, 2, 5)
    np.testing.assert_array_equal(one[0], fov(grid, (1, 1)))


# ---------------------------------------------------------------- fov_counts
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(maps(max_side=16), radii, metrics, st.booleans(), st.booleans())
def test_fov_counts_at_a_floor_cell_is_how_many_floor_cells_it_sees(
    case, radius, metric, light_walls, parallel
):
    # By symmetry (floor A sees floor B exactly when B sees A), the count at a
    # floor cell over all floor origins is the number of floor cells it sees.
    solid, _ = case
    with _parallel(parallel):
        counts = fov_counts(Grid(solid), radius, metric=metric, light_walls=light_walls)
    assert counts.dtype == np.int32 and counts.shape == solid.shape
    rows, cols = solid.shape
    floors = [(i, j) for j in range(rows) for i in range(cols) if not solid[j, i]]
    total = np.zeros(solid.shape, dtype=np.int64)
    for i, j in floors:
        view = fov(Grid(solid), (i, j), radius, metric=metric, light_walls=light_walls)
        assert counts[j, i] == int((view & ~solid).sum()), (i, j)
        total += view
    # And, by definition, the sum of the floor cells' views (walls included).
    np.testing.assert_array_equal(counts, total)


def test_fov_counts_by_hand():
    grid = _grid_from_text(
        "#####",
        "#...#",
        "#####",
    )
    # Worked by hand from the scan. A convex room: each of the three floor
    # cells sees every cell of it, corners included (from (1, 1) the east
    # quadrant's sector [-1/4, 1/4] at depth 3 still spans columns -1..1).
    assert fov_counts(grid).tolist() == [[3] * 5] * 3
    assert fov_counts(grid, light_walls=False).tolist() == [[0] * 5, [0, 3, 3, 3, 0], [0] * 5]
    # Radius 1: each floor cell sees its 4 neighbours and itself.
    assert fov_counts(grid, 1).tolist() == [[0, 1, 1, 1, 0], [1, 2, 3, 2, 1], [0, 1, 1, 1, 0]]
    # From the corner wall (0, 0): its neighbours (1, 0) and (0, 1) block all
    # but the sector [1/2, 1] of the south and east quadrants.
    assert fov_counts(grid, origins=[(0, 0)]).tolist() == [
        [1, 1, 0, 0, 0],
        [1, 1, 1, 0, 0],
        [0, 1, 1, 1, 0],
    ]
    assert not fov_counts(np.ones((3, 4), dtype=bool)).any()  # no floor, no origin


def test_every_map_kind_is_accepted():
    solid = np.random.default_rng(2).random((6, 8)) < 0.3
    tiles = TileSet(np.array([[[0, 0], [0, 0]], [[0, 0], [0, 1]]], dtype=bool))
    tilemap = TileMap(solid.astype(np.int64), tiles)
    np.testing.assert_array_equal(tilemap.solid, solid)
    origins = [(0, 0), (7, 5), (3, 2)]
    want = np.stack([fov(Grid(solid), o, 3) for o in origins])
    for world in (Grid(solid), solid, tilemap):
        np.testing.assert_array_equal(fov(world, (3, 2), 3), want[2])
        np.testing.assert_array_equal(fov_many(world, origins, 3, combine="none"), want)
        np.testing.assert_array_equal(fov_many(world, origins, 3, combine="count"), want.sum(0))
        np.testing.assert_array_equal(fov_many(world, origins, 3), want.any(0))
        np.testing.assert_array_equal(fov_counts(world, 3, origins=origins), want.sum(0))
        np.testing.assert_array_equal(fov_counts(world, 3), fov_counts(Grid(solid), 3))


def test_bad_options_raise_before_any_compiled_code_runs():
    grid = Grid(np.zeros((4, 5), dtype=bool))

    def refuse(*args):
        raise AssertionError("a kernel ran")

    constants = {name: getattr(fov_kernel, name) for name in dir(fov_kernel) if "METRIC" in name}
    stub = SimpleNamespace(
        **constants,
        **{
            name: refuse
            for name in (
                "fov_into",
                "views_into",
            )
        },
    )
    calls = [
        (TypeError, "light_walls", lambda: fov(grid, (0, 0), light_walls=1)),
        (TypeError, "light_walls", lambda: fov(grid, (0, 0), light_walls=None)),
        (TypeError, "light_walls", lambda: fov(grid, (0, 0), light_walls="no")),
        (TypeError, "light_walls", lambda: fov_many(grid, [(0, 0)], light_walls=0)),
        (TypeError, "light_walls", lambda: fov_counts(grid, light_walls=[True])),
        (ValueError, "combine", lambda: fov_many(grid, [(0, 0)], combine="sum")),
        (ValueError, "combine", lambda: fov_many(grid, [(0, 0)], combine="")),
        (TypeError, "combine", lambda: fov_many(grid, [(0, 0)], combine=None)),
        (TypeError, "combine", lambda: fov_many(grid, [(0, 0)], combine=True)),
        (ValueError, "origin_cells", lambda: fov_many(grid, [(0, 0, 0)], combine="count")),
        (
            ValueError,
            r"origin_cells\[1\]",
            lambda: fov_many(grid, [(0, 0), (5, 0)], combine="none"),
        ),
        (ValueError, "origin_cells", lambda: fov_many(grid, [(0, -1)], combine="count")),
        (TypeError, "origin_cells", lambda: fov_many(grid, [(0.5, 0)], combine="none")),
        (
            TypeError,
            "origin_cells",
            lambda: fov_many(grid, np.array([[True, False]]), combine="count"),
        ),
        (ValueError, "origins", lambda: fov_counts(grid, origins=np.zeros((3, 3), dtype=int))),
        (ValueError, "origins", lambda: fov_counts(grid, origins=[[[0, 0]]])),
        (ValueError, r"origins\[0\]", lambda: fov_counts(grid, origins=[(0, 4)])),
        (TypeError, "origins", lambda: fov_counts(grid, origins=[(10**30, 0)])),
        (TypeError, "origins", lambda: fov_counts(grid, origins="ab")),
        (TypeError, "origins", lambda: fov_counts(grid, origins=[(1.0, 2.0)])),
        (ValueError, "radius", lambda: fov_counts(grid, -1)),
        (ValueError, "radius", lambda: fov_many(grid, [(0, 0)], math.nan, combine="count")),
        (TypeError, "radius", lambda: fov_counts(grid, "3")),
        (ValueError, "metric", lambda: fov_counts(grid, 3, metric="octile")),
        (ValueError, "metric", lambda: fov_many(grid, [(0, 0)], metric="l2", combine="none")),
        (TypeError, "grid", lambda: fov_counts(np.zeros((4, 5)))),
        (TypeError, "grid", lambda: fov_many([[False]], [(0, 0)], combine="count")),
        (ValueError, "grid", lambda: fov_counts(np.zeros((0, 5), dtype=bool))),
        (ValueError, "origin_cell", lambda: fov(grid, (5, 0), light_walls=False)),
    ]
    with mock.patch.object(field_of_view, "kernels", lambda family: stub):
        for error, name, call in calls:
            with pytest.raises(error, match=name):
                call()
    # The stub is a faithful stand-in: a valid call does reach it.
    with mock.patch.object(field_of_view, "kernels", lambda family: stub):
        with pytest.raises(AssertionError, match="a kernel ran"):
            fov_counts(grid)
