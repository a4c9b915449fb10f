import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.oracle import raycast_all_oracle
from strategies import GEOMETRIES, directions, grids, points
from tilecast import Grid, Hits, raycast, raycast_many, scan, scan_many
from tilecast.batch import CLEARANCE_CAP, beam_directions, clearance_map

GAPS = ["block_if_both", "block_if_either", "open"]


def assert_same_as_raycast(grid, origins, dirs, max_distance, **kwargs):
    hits = raycast_many(grid, origins, dirs, max_distance, **kwargs)
    origins = np.broadcast_to(np.asarray(origins, float).reshape(-1, 2), (len(hits), 2))
    dirs = np.broadcast_to(np.asarray(dirs, float).reshape(-1, 2), (len(hits), 2))
    limits = np.broadcast_to(np.asarray(max_distance, float), (len(hits),))
    for k in range(len(hits)):
        expected = raycast(grid, tuple(origins[k]), tuple(dirs[k]), float(limits[k]), **kwargs)
        got = hits[k]
        assert got == expected, (k, tuple(origins[k]), tuple(dirs[k]), limits[k])
        if expected is None:
            assert math.isinf(hits.distance[k]) and np.isnan(hits.point[k]).all()
            assert hits.cell[k].tolist() == [-1, -1]
    return hits


@st.composite
def batch_cases(draw):
    grid = draw(grids(max_side=40))
    n = draw(st.integers(1, 12))
    origins = [draw(points(grid)) for _ in range(n)]
    dirs = [draw(directions(grid)) for _ in range(n)]
    limits = [
        draw(st.sampled_from([math.inf, 0.0, 3.0]) | st.floats(0.0, 60.0, allow_nan=False))
        for _ in range(n)
    ]
    return grid, origins, dirs, limits, draw(st.sampled_from(GAPS)), draw(st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_cases())
def test_raycast_many_equals_raycast_on_hard_cases(case):
    grid, origins, dirs, limits, gaps, ignore_start = case
    assert_same_as_raycast(
        grid, origins, dirs, limits, diagonal_gaps=gaps, ignore_start=ignore_start
    )


@pytest.mark.parametrize("outside", ["empty", "solid"])
@pytest.mark.parametrize(("tile_size", "origin"), GEOMETRIES)
def test_raycast_many_equals_raycast_on_random_rays(outside, tile_size, origin):
    rng = np.random.default_rng(7)
    solid = rng.random((60, 80)) < 0.08
    solid[20:40, 30:50] = False  # a big empty room, so rays jump
    grid = Grid(solid, tile_size=tile_size, origin=origin, outside=outside)
    (w, h), (ox, oy) = tile_size, origin
    n = 2500
    u = rng.uniform(-5, 85, n)
    v = rng.uniform(-5, 65, n)
    # a third on tile centres, with lattice directions (exact corner passes)
    centre = rng.random(n) < 0.33
    u[centre] = np.floor(u[centre]) + 0.5
    v[centre] = np.floor(v[centre]) + 0.5
    origins = np.column_stack([ox + u * w, oy + v * h])
    angles = rng.uniform(0, 2 * np.pi, n)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    lattice = rng.integers(-3, 4, (n, 2))
    lattice[(lattice == 0).all(axis=1)] = (1, 1)
    dirs[centre] = lattice[centre] * (w, h)
    limits = np.where(rng.random(n) < 0.5, np.inf, rng.uniform(0, 40, n))
    assert_same_as_raycast(grid, origins, dirs, limits)
    assert_same_as_raycast(grid, origins, dirs, limits, diagonal_gaps="block_if_either")


def test_raycast_many_matches_the_exact_oracle():
    rng = np.random.default_rng(3)
    grid = Grid(rng.random((12, 12)) < 0.25, outside="solid")
    origins = rng.integers(0, 12, (400, 2)) + 0.5
    dirs = rng.integers(-3, 4, (400, 2)).astype(float)
    dirs[(dirs == 0).all(axis=1)] = (1.0, -1.0)
    hits = raycast_many(grid, origins, dirs)
    for k in range(len(hits)):
        expected = raycast_all_oracle(
            grid, tuple(origins[k]), tuple(dirs[k]), math.inf, "block_if_both", False
        )
        assert hits.hit[k] == bool(expected)
        if expected:
            assert tuple(hits.cell[k]) == expected[0][0]
            assert hits.distance[k] == expected[0][2]


def test_one_origin_broadcasts_and_empty_batches_work():
    grid = Grid(np.eye(5, dtype=bool))
    hits = raycast_many(grid, (0.5, 2.5), [(1.0, 0.0), (0.0, -1.0), (1.0, -1.0)])
    assert len(hits) == 3 and hits.cell.tolist() == [[2, 2], [0, 0], [1, 1]]
    one_direction = raycast_many(grid, [(0.5, 2.5), (0.5, 3.5)], (1.0, 0.0))
    assert one_direction.cell.tolist() == [[2, 2], [3, 3]]
    empty = raycast_many(grid, np.empty((0, 2)), np.empty((0, 2)))
    assert isinstance(empty, Hits) and len(empty) == 0 and empty.point.shape == (0, 2)


def test_set_solid_keeps_the_clearance_map_current():
    rng = np.random.default_rng(11)
    grid = Grid(np.zeros((70, 70), bool), outside="solid")
    origins = rng.uniform(0, 70, (300, 2))
    angles = rng.uniform(0, 2 * np.pi, 300)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    assert_same_as_raycast(grid, origins, dirs, np.inf)
    for _ in range(6):
        cells = rng.integers(0, 70, (rng.integers(1, 30), 2))
        grid.set_solid(cells, rng.random() < 0.7)
        assert_same_as_raycast(grid, origins, dirs, np.inf)
        assert np.array_equal(clearance_map(grid), brute_force_clearance(grid.solid, True))
    grid.set_solid(rng.integers(0, 70, (400, 2)), True)  # many: full rebuild
    assert np.array_equal(clearance_map(grid), brute_force_clearance(grid.solid, True))
    assert_same_as_raycast(grid, origins, dirs, np.inf)


def brute_force_clearance(solid, outside_solid):
    """Quadrant clearance by definition: grow the square until it meets a wall.

    Whether a square holds a wall is read from a table of wall counts over
    every prefix rectangle (plain Python integers); a square that holds a
    wall or leaves the map only grows into more of them, so the largest
    empty one is found by bisection on its size.
    """
    rows, cols = solid.shape
    cells = solid.tolist()
    counts = [[0] * (cols + 1) for _ in range(rows + 1)]  # walls in [0, j) x [0, i)
    for j in range(rows):
        for i in range(cols):
            counts[j + 1][i + 1] = (
                int(cells[j][i]) + counts[j][i + 1] + counts[j + 1][i] - counts[j][i]
            )

    def empty(i, j, sx, sy, r):  # the square of cells from (i, j) to (i + sx r, j + sy r)
        i1, j1 = i + sx * r, j + sy * r
        if not (0 <= i1 < cols and 0 <= j1 < rows):
            return False
        lo_i, hi_i, lo_j, hi_j = min(i, i1), max(i, i1), min(j, j1), max(j, j1)
        return not (counts[hi_j + 1][hi_i + 1] - counts[lo_j][hi_i + 1]
                    - counts[hi_j + 1][lo_i] + counts[lo_j][lo_i])  # fmt: skip

    out = np.full((4, rows + 2, cols + 2), -1 if outside_solid else -2)
    for q, (sx, sy) in enumerate([(1, 1), (-1, 1), (1, -1), (-1, -1)]):
        for j in range(rows):
            for i in range(cols):
                if cells[j][i]:
                    out[q, j + 1, i + 1] = -1
                    continue
                low, high = 0, CLEARANCE_CAP  # empty(low) holds; the answer is in [low, high]
                while low < high:
                    middle = (low + high + 1) // 2
                    if empty(i, j, sx, sy, middle):
                        low = middle
                    else:
                        high = middle - 1
                out[q, j + 1, i + 1] = low
    return out


def test_clearance_map_is_the_largest_empty_square():
    rng = np.random.default_rng(5)
    solid = rng.random((40, 90)) < 0.01
    solid[5:30, 10:80] = False
    assert np.array_equal(clearance_map(Grid(solid)), brute_force_clearance(solid, False))
    grid = Grid(solid, outside="solid")
    assert np.array_equal(clearance_map(grid), brute_force_clearance(solid, True))


def test_far_and_tiny_rays_fall_back_to_the_reference():
    grid = Grid([[0, 1], [0, 0]])
    origins = [(-1e300, 0.5), (0.5, 1e-310), (0.25, 0.5), (-(2.0**60), 0.5)]
    dirs = [(1.0, 0.0), (1.0, 0.0), (1e-320, 0.0), (1.0, 0.0)]
    hits = assert_same_as_raycast(grid, origins, dirs, np.inf)
    assert hits.cell[0].tolist() == [1, 0] and hits.distance[0] == 1e300
    assert hits.cell[2].tolist() == [1, 0]


def test_scan_and_scan_many():
    grid = Grid(np.zeros((10, 10), bool), outside="solid")
    angles = np.linspace(-np.pi, np.pi, 9)
    ranges = scan(grid, (5.0, 5.0, 0.3), angles, 100.0)
    directions = beam_directions([(5.0, 5.0, 0.3)], angles)
    for d, r in zip(directions, ranges, strict=True):
        assert r == raycast(grid, (5.0, 5.0), tuple(d)).distance
    open_grid = Grid(np.zeros((10, 10), bool))
    assert scan(open_grid, (5.0, 5.0, 0.0), [0.0], 3.0).tolist() == [3.0]
    poses = np.array([(5.0, 5.0, 0.3), (2.5, 7.5, -1.0)])
    many = scan_many(grid, poses, angles, 100.0)
    assert many.shape == (2, 9)
    assert np.array_equal(many[0], ranges)
    assert np.array_equal(many[1], scan(grid, poses[1], angles, 100.0))
    assert scan_many(grid, np.empty((0, 3)), angles, 5.0).shape == (0, 9)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g: raycast_many(g, (0, 0), [(1, 0), (0, 0)]), ValueError, "directions"),
        (lambda g: raycast_many(g, (0, np.nan), (1, 0)), ValueError, "origins"),
        (lambda g: raycast_many(g, [(0, 0)] * 3, [(1, 0)] * 2), ValueError, "rows"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), -1.0), ValueError, "max_distance"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), [1.0, 2.0]), ValueError, "max_distance"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), np.nan), ValueError, "max_distance"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), "far"), TypeError, "max_distance"),
        (lambda g: raycast_many(g, (0, 0, 0), (1, 0)), ValueError, "origins"),
        (lambda g: raycast_many(g, [["a", "b"]], (1, 0)), TypeError, "origins"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), diagonal_gaps="no"), ValueError, "gaps"),
        (lambda g: raycast_many(g, (0, 0), (1, 0), ignore_start="yes"), TypeError, "ignore"),
        (lambda g: raycast_many(np.zeros((2, 2)), (0, 0), (1, 0)), TypeError, "grid"),
        (lambda g: scan(g, (0, 0), [0.0], 1.0), ValueError, "pose"),
        (lambda g: scan(g, (0, 0, 0), [np.inf], 1.0), ValueError, "angles"),
        (lambda g: scan(g, (0, 0, 0), [0.0], 0.0), ValueError, "max_range"),
        (lambda g: scan_many(g, [(0, 0)], [0.0], 1.0), ValueError, "poses"),
        (lambda g: scan_many(g, [(0, 0, np.nan)], [0.0], 1.0), ValueError, "poses"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call(Grid([[0, 1]]))


def test_scan_many_equals_raycast_along_beam_directions_on_many_poses():
    rng = np.random.default_rng(21)
    grid = Grid(rng.random((120, 150)) < 0.05, tile_size=(0.5, 0.25), origin=(-3.0, 1.0))
    poses = np.column_stack(
        [rng.uniform(-4, 75, 5000), rng.uniform(0, 32, 5000), rng.uniform(-7, 7, 5000)]
    )  # enough poses to be cast in sorted order
    angles = np.array([0.0, 1.0])
    ranges = scan_many(grid, poses, angles, 30.0)
    directions = beam_directions(poses, angles)
    for k in rng.choice(len(directions), 600, replace=False):
        hit = raycast(grid, tuple(poses[k // 2, :2]), tuple(directions[k]), 30.0)
        assert ranges[k // 2, k % 2] == (30.0 if hit is None else hit.distance)


def test_beam_directions_are_within_two_ulps_of_libm():
    rng = np.random.default_rng(2)
    theta = np.concatenate(
        [rng.uniform(-10, 10, 20000), rng.uniform(-3e5, 3e5, 5000), np.arange(-64, 65) * np.pi / 4]
    )
    poses = np.column_stack([np.zeros_like(theta), np.zeros_like(theta), theta])
    d = beam_directions(poses, [0.0, 1e6])  # the second beam takes the libm fallback
    for got, exact in ((d[0::2, 0], np.cos(theta)), (d[0::2, 1], np.sin(theta))):
        ulps = np.abs(got - exact) / np.spacing(np.abs(exact))
        assert ulps[np.abs(exact) > 1e-3].max() <= 2
        assert np.abs(got - exact).max() <= 4.5e-16
    assert np.array_equal(d[1::2, 0], np.cos(theta + 1e6))


def test_max_distance_equal_to_the_hit_distance():
    """A hit at exactly max_distance counts, one ulp further does not.

    The batch kernel decides crossings near max_distance by handing the ray
    to the exact walk; this checks both sides of the boundary on every ray.
    """
    rng = np.random.default_rng(11)
    grid = Grid(rng.random((50, 50)) < 0.1, tile_size=(0.7, 1.3), origin=(-2.0, 5.0))
    n = 2100  # more than one block of chunks
    origins = np.column_stack([rng.uniform(-2, 33, n), rng.uniform(5, 70, n)])
    angles = rng.uniform(0, 2 * np.pi, n)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    free = raycast_many(grid, origins, dirs)
    hit = free.hit & ~free.inside
    assert hit.sum() > n // 2
    at_hit = np.where(hit, free.distance, 5.0)
    just_short = np.nextafter(at_hit, 0.0)
    assert_same_as_raycast(grid, origins, dirs, at_hit)
    assert_same_as_raycast(grid, origins, dirs, just_short)
    assert raycast_many(grid, origins, dirs, at_hit).hit[hit].all()
    assert not raycast_many(grid, origins, dirs, just_short).hit[hit].any()


def test_long_batches_with_directions_of_any_length():
    """Batches shared by the threads, directions of all magnitudes.

    The batch kernel's threads claim rays a set-up batch (256) at a time from
    a shared counter, keep a set of rays in flight and hand each free slot
    the next ray; it scales every direction by a power of two built from its
    exponent bits. This covers batches that span many claims on every
    thread, one origin broadcast over all of them,
    and directions from 1e-250 to 1e250 long (the extremes go to the
    reference walk).
    """
    from tilecast._threads import TASK

    rng = np.random.default_rng(5)
    solid = rng.random((90, 110)) < 0.04
    grid = Grid(solid, tile_size=(0.75, 1.25), origin=(3.0, -2.0), outside="empty")
    n = TASK + 1500
    angles = rng.uniform(0, 2 * np.pi, n)
    lengths = 10.0 ** rng.uniform(-250, 250, n)
    lengths[: n // 2] = 10.0 ** rng.uniform(-3, 3, n // 2)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)]) * lengths[:, None]
    origin = (3.0 + 0.75 * 55.3, -2.0 + 1.25 * 40.7)
    limits = np.where(rng.random(n) < 0.7, np.inf, rng.uniform(0, 60, n))
    hits = assert_same_as_raycast(grid, origin, dirs, limits)
    assert 0.3 * n < hits.hit.sum() < n  # both hits and misses (off the map, max_distance)
    origins = np.column_stack([rng.uniform(-2, 90, n), rng.uniform(-4, 115, n)])
    assert_same_as_raycast(grid, origins, dirs, limits, diagonal_gaps="open")


def _assert_same_hits(a: Hits, b: Hits) -> None:
    for name in ("hit", "distance", "point", "normal", "cell", "inside", "pixel"):
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        assert x.dtype == y.dtype and x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    grid=grids(),
    limit=st.sampled_from([math.inf, 0.0, 2.5, 40.0]),
    gaps=st.sampled_from(["block_if_both", "block_if_either", "open"]),
    ignore=st.booleans(),
)
def test_one_ray_fast_path_equals_the_batch_path(data, grid, limit, gaps, ignore):  # fmt: skip
    """A single (x, y) pair takes a path without arrays; its answer is the batch's, to the bit."""
    origin, direction = data.draw(points(grid)), data.draw(directions(grid))
    kwargs = {"diagonal_gaps": gaps, "ignore_start": ignore}
    one = raycast_many(grid, tuple(origin), list(direction), limit, **kwargs)
    batch = raycast_many(grid, np.array([origin]), np.array([direction]), np.array([limit]),
                         **kwargs)  # fmt: skip
    _assert_same_hits(one, batch)
    hit = raycast(grid, origin, direction, limit, **kwargs)
    assert one[0] == hit


def test_one_ray_fast_path_on_tile_maps_far_rays_and_bad_input():
    from tilecast import TileMap, TileSet

    slope = np.tril(np.ones((4, 4), dtype=bool))
    tmap = TileMap([[-1, 0, 0]], TileSet([slope]), flips=[[0, 0, 1]])
    for origin, direction in [((0.5, 2.5), (1.0, 0.0)), ((0.5, 2.5), (0.0, -1.0)),
                              ((5.0, 1.0), (1.0, 1.0))]:  # fmt: skip
        _assert_same_hits(
            raycast_many(tmap, origin, direction),
            raycast_many(tmap, np.array([origin]), np.array([direction])),
        )
    grid = Grid(np.zeros((3, 3), bool), outside="solid")
    far = ((1e17, 1.5), (-1.0, 1e-9))  # beyond the compiled range: the exact far path
    _assert_same_hits(raycast_many(grid, *far), raycast_many(grid, [far[0]], [far[1]]))
    assert raycast_many(grid, *far)[0] == raycast(grid, *far)
    with pytest.raises(ValueError, match="origins"):
        raycast_many(grid, (math.nan, 0.0), (1.0, 0.0))
    with pytest.raises(ValueError, match="directions"):
        raycast_many(grid, (0.0, 0.0), (0.0, 0.0))
    with pytest.raises(ValueError, match="max_distance"):
        raycast_many(grid, (0.0, 0.0), (1.0, 0.0), -1.0)
    with pytest.raises(TypeError, match="origins"):
        raycast_many(grid, (0.0, "a"), (1.0, 0.0))


# ------------------------------------------------ scan buffers, float32, inf
def _lidar_case(n_poses=900, n_beams=61):
    rng = np.random.default_rng(17)
    grid = Grid(rng.random((80, 90)) < 0.04, tile_size=(0.3, 0.2), origin=(-1.0, 2.0),
                outside="solid")  # fmt: skip
    poses = np.column_stack([rng.uniform(-1, 26, n_poses), rng.uniform(2, 18, n_poses),
                             rng.uniform(-4, 4, n_poses)])  # fmt: skip
    return grid, poses, np.linspace(-2.4, 2.4, n_beams)


def test_scan_many_fills_out_and_float32_is_float64_rounded_once():
    grid, poses, angles = _lidar_case()
    exact = scan_many(grid, poses, angles, 7.5)
    out64 = np.full(exact.shape, np.nan)
    assert scan_many(grid, poses, angles, 7.5, out=out64) is out64
    assert np.array_equal(out64, exact)
    out32 = np.full(exact.shape, np.nan, np.float32)
    assert scan_many(grid, poses, angles, 7.5, out=out32) is out32
    assert np.array_equal(out32, exact.astype(np.float32))
    new32 = scan_many(grid, poses, angles, 7.5, dtype=np.float32)
    assert new32.dtype == np.float32 and np.array_equal(new32, out32)
    assert scan_many(grid, poses, angles, 7.5, dtype="float64").dtype == np.float64
    # one pose with many beams: cast in several ranges of rays
    many = np.linspace(-np.pi, np.pi, 20000)
    one = scan(grid, poses[3], many, 7.5, dtype=np.float32)
    assert np.array_equal(one, scan(grid, poses[3], many, 7.5).astype(np.float32))
    buffer = np.empty(20000, np.float32)
    assert scan(grid, poses[3], many, 7.5, out=buffer) is buffer
    assert np.array_equal(buffer, one)


def test_scan_float32_rounds_to_nearest():
    grid, poses, angles = _lidar_case(200, 31)
    exact = scan_many(grid, poses, angles, 7.5)
    single = scan_many(grid, poses, angles, 7.5, dtype=np.float32).astype(np.float64)
    up, down = single > exact, single < exact
    assert up.any() and down.any()  # to nearest, not towards zero
    gap = np.spacing(single.astype(np.float32)).astype(np.float64)
    assert (np.abs(single - exact) <= gap / 2).all()


def test_scan_on_a_tile_map_into_float32():
    from tilecast import TileMap, TileSet

    slope = np.tril(np.ones((4, 4), dtype=bool))
    tmap = TileMap([[-1, 0, 0], [0, -1, -1]], TileSet([slope]), flips=[[0, 0, 1], [1, 0, 0]])
    rng = np.random.default_rng(4)
    poses = np.column_stack([rng.uniform(0, 3, 500), rng.uniform(0, 2, 500),
                             rng.uniform(-3, 3, 500)])  # fmt: skip
    exact = scan_many(tmap, poses, [0.0, 0.5, 2.0], np.inf)
    out = np.empty((500, 3), np.float32)
    scan_many(tmap, poses, [0.0, 0.5, 2.0], np.inf, out=out)
    assert np.array_equal(out, exact.astype(np.float32))
    assert np.isinf(exact).any() and np.isfinite(exact).any()


def test_max_range_inf_reports_inf_for_beams_that_hit_nothing():
    grid, poses, angles = _lidar_case(300, 17)
    open_grid = Grid(grid.solid, tile_size=grid.tile_size, origin=grid.origin)  # outside empty
    ranges = scan_many(open_grid, poses, angles, np.inf)
    directions = beam_directions(poses, angles)
    for k in np.random.default_rng(3).choice(ranges.size, 400, replace=False):
        hit = raycast(open_grid, tuple(poses[k // 17, :2]), tuple(directions[k]))
        assert ranges.flat[k] == (np.inf if hit is None else hit.distance)
    assert np.isinf(ranges).any()
    assert np.isfinite(scan_many(grid, poses, angles, np.inf)).all()  # outside solid: always a hit
    # every finite max_range clips the same ranges
    assert np.array_equal(scan_many(open_grid, poses, angles, 50.0), np.minimum(ranges, 50.0))
    assert scan(open_grid, (-5.0, 3.0, 0.0), [np.pi], math.inf, dtype=np.float32)[0] == np.inf


def test_scan_results_do_not_depend_on_the_thread_count(monkeypatch):
    grid, poses, angles = _lidar_case()
    many = scan_many(grid, poses, angles, 9.0, dtype=np.float32)
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    assert np.array_equal(scan_many(grid, poses, angles, 9.0, dtype=np.float32), many)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, out=np.empty((1, 2))),
            ValueError,
            r"out must have shape \(1, 1\)",
        ),
        (lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, out=np.empty(1)), ValueError, "shape"),
        (
            lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, out=np.empty((1, 1), np.float16)),
            TypeError,
            "out must have dtype",
        ),
        (
            lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, out=np.empty((1, 1), int)),
            TypeError,
            "out must have dtype",
        ),
        (lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, out=[[0.0]]), TypeError, "NumPy array"),
        (
            lambda g: scan_many(g, [(0, 0, 0)] * 2, [0.0] * 2, 1.0, out=np.empty((2, 2)).T),
            ValueError,
            "C-contiguous",
        ),
        (
            lambda g: scan(g, (0, 0, 0), [0.0, 1.0], 1.0, out=np.empty(3)),
            ValueError,
            r"out must have shape \(2,\)",
        ),
        (lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, dtype=np.int32), ValueError, "dtype"),
        (lambda g: scan_many(g, [(0, 0, 0)], [0.0], 1.0, dtype="nope"), TypeError, "dtype"),
        (lambda g: scan(g, (0, 0, 0), [0.0], 1.0, dtype=np.complex128), ValueError, "dtype"),
        (lambda g: scan(g, (0, 0, 0), [0.0], np.nan), ValueError, "max_range"),
        (lambda g: scan(g, (0, 0, 0), [0.0], -np.inf), ValueError, "max_range"),
        (lambda g: scan_many(g, [(0, 0, 0)], [0.0], -1.0), ValueError, "max_range"),
    ],
)
def test_bad_scan_buffers_name_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call(Grid([[0, 1]]))


def test_scan_out_must_be_writable_and_not_an_input():
    grid = Grid([[0, 1]])
    out = np.empty((1, 1))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        scan_many(grid, [(0, 0, 0)], [0.0], 1.0, out=out)
    poses = np.zeros((3, 3))
    with pytest.raises(ValueError, match="share memory"):
        scan_many(grid, poses, [0.0, 1.0, 2.0], 1.0, out=poses)
    assert scan_many(grid, np.empty((0, 3)), [0.0], 1.0, out=np.empty((0, 1))).shape == (0, 1)
