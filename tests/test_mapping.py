"""OccupancyGrid and LikelihoodField: exact carving, determinism, ROS export, the field."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tilecast
import tilecast.mapping
from reference.mapping import (
    beam_cells,
    brute_distance,
    integrate_reference,
    likelihood_field_reference,
)
from tilecast import (
    BeamModel,
    Grid,
    LikelihoodField,
    OccupancyGrid,
    raycast_all,
    scan_likelihood,
    scan_many,
    traverse,
)
from tilecast.batch import beam_directions
from tilecast.mapping import distance_transform

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


def _one_beam(shape, resolution, origin, pose, angle, r, max_range):
    """(misses, hit) of one beam through the public API: a fresh grid, one integrate."""
    grid = OccupancyGrid(shape, resolution, origin)
    grid.integrate([pose], [[r]], [angle], max_range)
    rows, cols = np.nonzero(grid.log_odds < 0)
    misses = set(zip(cols.tolist(), rows.tolist(), strict=True))
    rows, cols = np.nonzero(grid.log_odds > 0)
    hits = list(zip(cols.tolist(), rows.tolist(), strict=True))
    assert len(hits) <= 1
    return misses, (hits[0] if hits else None)


def _walk_carving(shape, resolution, origin, pose, angle, r, max_range):
    """(misses, hit) from the walk itself: raycast_all on an all-solid map, corners open.

    Under ``outside="solid"`` the walk records every map cell it enters and,
    if the beam leaves the map within range, the first cell beyond it last.
    """
    rows, cols = shape
    solid = Grid(np.ones(shape, bool), tile_size=resolution, origin=origin, outside="solid")
    direction = beam_directions([pose], [angle])[0]
    limit = min(r, max_range)
    hits = raycast_all(solid, pose[:2], direction, limit, diagonal_gaps="open")
    cells = [h.cell for h in hits]
    end_on_map = 0 <= cells[-1][0] < cols and 0 <= cells[-1][1] < rows
    misses = set(cells[:-1])
    hit = cells[-1] if end_on_map and r < max_range else None
    return misses, hit


def _oracle_carving(shape, resolution, origin, pose, angle, r, max_range):
    rows, cols = shape
    direction = tuple(beam_directions([pose], [angle])[0])
    limit = r if r < max_range else max_range
    cells = beam_cells(pose[:2], direction, limit, resolution, origin, shape)
    misses = {c for c in cells[:-1] if 0 <= c[0] < cols and 0 <= c[1] < rows}
    end = cells[-1]
    hit = end if r < max_range and 0 <= end[0] < cols and 0 <= end[1] < rows else None
    return misses, hit


# ------------------------------------------------------------------ carving
SPECIAL_ANGLES = [k * math.pi / 4 for k in range(-4, 5)]
coordinates = st.one_of(
    st.integers(-3, 12).map(float),  # grid lines and lattice points
    st.integers(-6, 24).map(lambda k: k / 2),  # cell centres and lines
    st.floats(-3.0, 12.0, allow_nan=False),
)
angles_st = st.one_of(st.sampled_from(SPECIAL_ANGLES), st.floats(-4.0, 4.0, allow_nan=False))
ranges_st = st.one_of(
    st.just(math.inf),
    st.integers(0, 16).map(float),
    st.integers(0, 32).map(lambda k: k * math.sqrt(2.0) / 2),  # 45-degree lattice points
    st.floats(0.0, 16.0, allow_nan=False),
)


@SETTINGS
@given(
    x=coordinates,
    y=coordinates,
    theta=angles_st,
    r=ranges_st,
    max_range=st.sampled_from([3.0, 7.5, 12.0]),
    geometry=st.sampled_from(
        [(1.0, (0.0, 0.0)), (1.0, (-2.0, -3.0)), (0.5, (-1.0, 0.5)), (0.1, (-0.3, -0.7))]
    ),
)
def test_carving_is_the_walk_and_the_oracle(x, y, theta, r, max_range, geometry):
    resolution, origin = geometry
    shape = (9, 11)
    # x, y in cells: integers are grid lines (exactly, where the product is exact)
    pose = (origin[0] + x * resolution, origin[1] + y * resolution, theta)
    args = (shape, resolution, origin, pose, 0.0, r, max_range)
    rows, cols = shape
    u = (pose[0] - origin[0]) / resolution
    v = (pose[1] - origin[1]) / resolution
    on_map = 0 <= u < cols and 0 <= v < rows
    tiny = any(0 < abs(c) < 2.0**-300 for c in (theta, u, v)) or max(abs(u), abs(v)) > 2.0**50
    if not on_map and tiny:  # beyond the walk's safe range, from off the map
        with pytest.raises(ValueError, match="poses"):
            _one_beam(*args)
        return
    carved = _one_beam(*args)  # on the map, tiny angles take the exact plain-Python walk
    assert carved == _oracle_carving(*args)
    if on_map:  # the walk's own cells (an origin off the map is a wall)
        assert carved == _walk_carving(*args)


@SETTINGS
@given(seed=st.integers(0, 10**6), outside=st.sampled_from(["empty", "solid"]))
def test_exact_scan_ranges_mark_the_wall_cells(seed, outside):
    """Ranges from scan_many end in the wall cell raycast hits (end cell = raycast's cell)."""
    rng = np.random.default_rng(seed)
    walls = rng.random((12, 14)) < 0.15
    world = Grid(walls, tile_size=0.5, origin=(-1.0, 2.0), outside=outside)
    free = np.argwhere(~walls)
    row, col = free[rng.integers(len(free))]
    pose = (-1.0 + 0.5 * (col + rng.random()), 2.0 + 0.5 * (row + rng.random()), rng.uniform(-4, 4))
    angles = np.linspace(-np.pi, np.pi, 24, endpoint=False)
    ranges = scan_many(world, [pose], angles, 20.0)[0]
    hits = tilecast.raycast_many(world, np.array([pose[:2]]), beam_directions([pose], angles), 20.0)
    for b, angle in enumerate(angles):
        misses, hit = _one_beam((12, 14), 0.5, (-1.0, 2.0), pose, angle, ranges[b], 20.0)
        if hits.hit[b] and 0 <= hits.cell[b][0] < 14 and 0 <= hits.cell[b][1] < 12:
            assert hit == tuple(hits.cell[b].tolist())
            assert walls[hit[1], hit[0]]
        assert not any(walls[j, i] for i, j in misses)  # beams cross only free cells


def test_axis_beams_cross_the_cells_traverse_lists():
    """A beam along +x from a cell's inside: the cells traverse lists up to its end cell."""
    grid = Grid(np.zeros((6, 12), bool), tile_size=0.25, origin=(-0.5, 0.0))
    for x, y, r in [(-0.4, 0.3, 2.0), (0.01, 1.1, 0.7), (0.6, 0.2, 10.0)]:
        misses, _ = _one_beam((6, 12), 0.25, (-0.5, 0.0), (x, y, 0.0), 0.0, r, 50.0)
        steps = [s.cell for s in traverse(grid, (x, y), (x + r, y), corners="none")]
        expected = {c for c in steps[:-1] if 0 <= c[0] < 12}
        assert misses == expected


def test_oracle_by_hand():
    """The oracle on beams whose cells are known: axis-aligned, 45 degrees, corners, negatives."""
    unit = (1.0, (0.0, 0.0))
    # along +x from (0.5, 0.5), 2 long: enters cell 2 at exactly 2 - 0.5 = 1.5 < 2
    assert beam_cells((0.5, 0.5), (1.0, 0.0), 2.0, *unit, (3, 5)) == [(0, 0), (1, 0), (2, 0)]
    # range exactly to a grid line: that line's cell is entered (inclusive)
    assert beam_cells((0.5, 0.5), (1.0, 0.0), 1.5, *unit, (3, 5)) == [(0, 0), (1, 0), (2, 0)]
    # 45 degrees through lattice points: diagonal steps, no shoulders
    d = (1.0, 1.0)
    assert beam_cells((0.0, 0.0), d, 2.0 * math.sqrt(2.0), *unit, (5, 5)) == [
        (0, 0), (1, 1), (2, 2)]  # fmt: skip
    # a start on a grid line moving left leaves the cell it is on the edge of
    assert beam_cells((2.0, 0.5), (-1.0, 0.0), 1.25, *unit, (3, 5)) == [(1, 0), (0, 0)]
    # negative coordinates and a shifted origin
    assert beam_cells((-0.5, -0.5), (0.0, 1.0), 1.0, 1.0, (-2.0, -2.0), (4, 4)) == [(1, 1), (1, 2)]
    # the crossings are exact: a beam from (0.1, 0.2) at slope 2 meets the lattice point (0.6, 1.2)
    # only in floats; Fraction says which comes first
    cells = beam_cells((0.1, 0.2), (0.5, 1.0), 1.2, *unit, (5, 5))
    t_x, t_y = (Fraction(1) - Fraction(0.1)) / Fraction(1.0), (Fraction(1) - Fraction(0.2)) / 2
    assert (t_x < t_y) == (cells[1] == (1, 0))


# -------------------------------------------------------------- integration
def _scenario(seed, n_scans=6, n_beams=45):
    rng = np.random.default_rng(seed)
    walls = rng.random((20, 24)) < 0.1
    world = Grid(walls, tile_size=0.5, origin=(-2.0, -1.0), outside="solid")
    free = np.argwhere(~walls)
    picks = free[rng.integers(len(free), size=n_scans)]
    poses = np.column_stack([-2.0 + 0.5 * (picks[:, 1] + rng.random(n_scans)),
                             -1.0 + 0.5 * (picks[:, 0] + rng.random(n_scans)),
                             rng.uniform(-np.pi, np.pi, n_scans)])  # fmt: skip
    angles = np.linspace(-np.pi, np.pi, n_beams, endpoint=False)
    ranges = scan_many(world, poses, angles, 6.0)
    ranges[ranges >= 6.0] = np.inf  # no return
    ranges[rng.random(ranges.shape) < 0.1] *= 0.5  # some short readings
    return poses, ranges, angles


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_integrate_equals_the_reference(seed):
    poses, ranges, angles = _scenario(seed)
    options = dict(p_hit=0.75, p_miss=0.35, clamp=(0.2, 0.9))
    grid = OccupancyGrid((20, 24), 0.5, (-2.0, -1.0), **options)
    grid.integrate(poses, ranges, angles, max_range=6.0)
    grid.integrate(poses[::-1], ranges[::-1], angles, max_range=6.0)  # clamping bites
    expected = [[0.0] * 24 for _ in range(20)]
    for p, r in ((poses, ranges), (poses[::-1], ranges[::-1])):
        integrate_reference(expected, p.tolist(), r.tolist(), angles.tolist(), 6.0,
                            resolution=0.5, origin=(-2.0, -1.0), **options)  # fmt: skip
    assert np.array_equal(grid.log_odds, np.array(expected))


@pytest.mark.parametrize("threads", ["1", "2", "3", "7"])
def test_same_map_for_any_threads_and_chunks(monkeypatch, threads):
    poses, ranges, angles = _scenario(5, n_scans=12, n_beams=90)
    whole = OccupancyGrid((20, 24), 0.5, (-2.0, -1.0))
    whole.integrate(poses, ranges, angles, 6.0)
    monkeypatch.setenv("NUMBA_NUM_THREADS", threads)
    monkeypatch.setattr(tilecast.mapping, "CHUNK_CELLS", 500)  # a scan or two per chunk
    split = OccupancyGrid((20, 24), 0.5, (-2.0, -1.0))
    for part in np.array_split(np.arange(12), 5):
        split.integrate(poses[part], ranges[part], angles, 6.0)
    assert np.array_equal(whole.log_odds, split.log_odds)


def test_clamping_and_probability():
    grid = OccupancyGrid((1, 4), 1.0, clamp=(0.2, 0.9))
    for _ in range(20):
        grid.integrate([(0.5, 0.5, 0.0)], [[2.0]], [0.0], 10.0)
    p = grid.probability[0]
    assert p[0] == pytest.approx(0.2) and p[1] == pytest.approx(0.2)
    assert p[2] == pytest.approx(0.9) and p[3] == 0.5


def test_no_return_leaves_the_end_cell_alone():
    for r in (math.inf, 3.0, 4.0):  # at and beyond max_range: no return
        grid = OccupancyGrid((1, 6), 1.0)
        grid.integrate([(0.5, 0.5, 0.0)], [[r]], [0.0], 3.0)
        assert np.sign(grid.log_odds[0]).tolist() == [-1, -1, -1, 0, 0, 0]
    grid = OccupancyGrid((1, 6), 1.0)
    grid.integrate([(0.5, 0.5, 0.0)], [[0.0]], [0.0], 3.0)  # a zero range hits its own cell
    assert np.sign(grid.log_odds[0]).tolist() == [1, 0, 0, 0, 0, 0]


def test_beams_from_off_the_map():
    grid = OccupancyGrid((3, 3), 1.0)
    grid.integrate([(-5.5, 1.5, 0.0), (1.5, 9.5, -math.pi / 2)], [[7.0, 2.0], [8.0, 3.0]],
                   [0.0, math.pi / 2], 20.0)  # fmt: skip
    assert np.sign(grid.log_odds).astype(int).tolist() == [[0, 0, 0], [-1, 1, 0], [0, -1, 0]]


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.integrate([(0, 0, 0)], [[1.0, 2.0]], [0.0], 5.0), "ranges must have shape"),
        (lambda g: g.integrate([(0, 0)], [[1.0]], [0.0], 5.0), "poses must have shape"),
        (lambda g: g.integrate([(0, 0, 0)], [[1.0]], [0.0, 1.0], 5.0), "ranges must have shape"),
        (lambda g: g.integrate([(0, 0, 0)], [[-1.0]], [0.0], 5.0), "ranges must be non-negative"),
        (lambda g: g.integrate([(0, 0, 0)], [[np.nan]], [0.0], 5.0), "ranges must not be NaN"),
        (lambda g: g.integrate([(0, 0, 0)], [[1.0]], [0.0], np.inf), "max_range must be finite"),
        (lambda g: g.integrate([(0, 0, 0)], [[1.0]], [0.0], 0.0), "max_range must be positive"),
        (lambda g: g.integrate([(np.nan, 0, 0)], [[1.0]], [0.0], 5.0), "poses must be finite"),
        (lambda g: g.integrate([(1e300, 0, 0)], [[1.0]], [0.0], 5.0), "poses[0]"),
        (lambda g: g.integrate([(-1e-310, 0, 0)], [[1.0]], [0.0], 5.0), "poses[0]"),
        (lambda g: g.save_ros("/no/such/folder/map.yaml"), "path"),
        (lambda g: g.save_ros("map.png"), "path must name a .yaml"),
        (lambda g: g.to_grid(occupied=0.1, free=0.5), "free <= occupied"),
    ],
)
def test_bad_input_names_the_argument_and_changes_nothing(call, message):
    grid = OccupancyGrid((4, 4), 1.0)
    grid.integrate([(0.5, 0.5, 0.0)], [[2.0]], [0.0], 5.0)
    before = grid.log_odds.copy()
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call(grid)
    assert np.array_equal(grid.log_odds, before)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"p_hit": 0.5}, "p_hit must be above 0.5"),
        ({"p_hit": 1.0}, "p_hit must lie strictly between 0 and 1"),
        ({"p_miss": 0.0}, "p_miss must lie strictly"),
        ({"p_miss": 0.6}, "p_miss must be below 0.5"),
        ({"clamp": (0.6, 0.9)}, "clamp must have low < 0.5 < high"),
        ({"clamp": (0.0, 0.9)}, "clamp"),
        ({"clamp": 0.5}, "clamp must be"),
        ({"shape": (0, 3)}, "shape"),
        ({"resolution": -1.0}, "resolution must be positive"),
        ({"resolution": 1e-100}, "resolution must lie in"),
    ],
)
def test_bad_construction(kwargs, message):
    args = {"shape": (3, 3), "resolution": 1.0, **kwargs}
    with pytest.raises(ValueError, match=message):
        OccupancyGrid(args.pop("shape"), args.pop("resolution"), **args)


def test_wrong_types():
    with pytest.raises(TypeError, match="shape"):
        OccupancyGrid((3.0, 3), 1.0)
    with pytest.raises(TypeError, match="path"):
        OccupancyGrid((3, 3), 1.0).save_ros(3)
    with pytest.raises(TypeError, match="p_hit"):
        OccupancyGrid((3, 3), 1.0, p_hit="0.7")


# ------------------------------------------------------------ to_grid, ROS
def _mapped():
    grid = OccupancyGrid((5, 7), 0.05, (-1.2345678901234567, 1e-5))
    poses, ranges = [], []
    for k in range(6):
        poses.append((-1.2345678901234567 + 0.025, 1e-5 + 0.025 + 0.05 * (k % 5), 0.0))
        ranges.append([0.05 * (2 + k % 4), math.inf])
    grid.integrate(poses, ranges, [0.0, math.pi / 2], 0.2)
    return grid


def test_to_grid_classes():
    grid = _mapped()
    p = grid.probability
    world = grid.to_grid()
    assert world.tile_size == (0.05, 0.05) and world.origin == grid.origin
    assert world.outside == "solid"
    # DESIGN 24: occupied on layer 1, unknown on layer 2
    expected = np.where(p > 0.65, 1, np.where(p < 0.196, 0, 2))
    assert np.array_equal(world.layers, expected)
    assert (expected == 2).any() and (expected == 1).any() and (expected == 0).any()
    assert np.array_equal(world.masked(1).solid, p > 0.65)
    assert np.array_equal(world.solid, p >= 0.196)
    assert np.array_equal(grid.to_grid(occupied=0.5).masked(1).solid, p > 0.5)
    assert grid.to_grid(outside="empty").outside == "empty"


def test_save_ros_round_trip(tmp_path):
    from tilecast.io import load_ros_map

    grid = _mapped()
    p = grid.probability
    path = grid.save_ros(tmp_path / "built.yaml")
    assert path == tmp_path / "built.yaml" and (tmp_path / "built.pgm").exists()
    loaded = load_ros_map(path, unknown="free")
    assert np.array_equal(loaded.solid, grid.to_grid().masked(1).solid)
    assert np.array_equal(load_ros_map(path).layers, grid.to_grid().layers)
    assert loaded.tile_size == (grid.resolution, grid.resolution)
    assert loaded.origin == grid.origin
    unknown_solid = load_ros_map(path, unknown="solid")
    assert np.array_equal(unknown_solid.solid, p >= 0.196)
    assert (p < 0.196).any() and (p > 0.65).any() and ((p >= 0.196) & (p <= 0.65)).any()
    # nav2's trinary rule on the pixels, row 0 of the image the top (the last map row)
    from tilecast.io.ros import ros_occupancy

    data = (tmp_path / "built.pgm").read_bytes()
    pixels = np.frombuffer(data[-35:], np.uint8).reshape(5, 7)
    occupancy = ros_occupancy(pixels, occupied_thresh=0.65, free_thresh=0.196)[::-1]
    assert np.array_equal(occupancy == 100, p > 0.65)
    assert np.array_equal(occupancy == 0, p < 0.196)


# ---------------------------------------------------------- distance transform
@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    shape=st.tuples(st.integers(1, 30), st.integers(1, 30)),
    density=st.sampled_from([0.0, 0.01, 0.1, 0.5, 1.0]),
    tile=st.sampled_from([(1.0, 1.0), (0.05, 0.05), (0.5, 2.0), (3.0, 0.7)]),
)
def test_distance_transform_matches_scipy(seed, shape, density, tile):
    from scipy.ndimage import distance_transform_edt

    solid = np.random.default_rng(seed).random(shape) < density
    ours = distance_transform(solid, tile)
    if not solid.any():
        assert np.isinf(ours).all()
        return
    theirs = distance_transform_edt(~solid, sampling=(tile[1], tile[0]))
    if tile == (1.0, 1.0):
        assert np.array_equal(ours, theirs)  # sqrt of the same exact integer
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=0)


def test_distance_transform_large_map_against_scipy():
    from scipy.ndimage import distance_transform_edt

    solid = np.random.default_rng(3).random((300, 420)) < 0.002
    assert np.array_equal(distance_transform(solid), distance_transform_edt(~solid))


# ---------------------------------------------------------- likelihood field
@pytest.mark.parametrize("weighting", ["product", "amcl"])
@pytest.mark.parametrize("tile", [(1.0, 1.0), (0.5, 0.5), (0.5, 0.25)])
def test_likelihood_field_equals_the_reference(weighting, tile):
    rng = np.random.default_rng(11)
    walls = rng.random((14, 17)) < 0.12
    world = Grid(walls, tile_size=tile, origin=(-1.5, 0.25), outside="solid")
    params = dict(sigma_hit=0.3, z_hit=0.85, z_rand=0.15, max_distance=1.2)
    field = LikelihoodField(world, weighting=weighting, **params)
    expected_distance = np.array(brute_distance(walls.tolist(), tile))
    np.testing.assert_allclose(field.distance, expected_distance, rtol=1e-14)
    poses = np.column_stack([rng.uniform(-2, 8, 50), rng.uniform(-1, 7, 50),
                             rng.uniform(-4, 4, 50)])  # fmt: skip
    angles = np.linspace(-2.0, 2.0, 31)
    observed = rng.uniform(0.0, 6.0, 31)
    observed[::7] = 5.0  # at max_range: skipped
    observed[3] = 9.0  # beyond: skipped
    got = scan_likelihood(world, poses, angles, observed, max_range=5.0, model=field)
    want = likelihood_field_reference(field.distance.tolist(), tile, (-1.5, 0.25), poses.tolist(),
                                      angles.tolist(), observed.tolist(), 5.0,
                                      weighting=weighting, **params)  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_likelihood_field_follows_edits_and_checks_its_grid():
    world = Grid(np.zeros((5, 5), bool))
    field = LikelihoodField(world, 0.5, 0.9, 0.1, 3.0)
    assert np.isinf(field.distance).all()
    world.set_solid((2, 2))
    assert field.distance[2, 4] == 2.0
    ll = scan_likelihood(world, [(0.5, 2.5, 0.0)], [0.0], [2.0], max_range=4.0, model=field)
    assert ll[0] == pytest.approx(math.log(0.9 + 0.1 / 4.0))
    with pytest.raises(ValueError, match="grid must be the map"):
        scan_likelihood(Grid(np.zeros((5, 5), bool)), [(0.5, 2.5, 0.0)], [0.0], [2.0],
                        max_range=4.0, model=field)  # fmt: skip


def test_likelihood_field_bad_input():
    world = Grid(np.zeros((3, 3), bool))
    for args, message in [
        ((world, 0.0, 0.9, 0.1, 1.0), "sigma_hit must be positive"),
        ((world, 0.5, -0.1, 0.1, 1.0), "z_hit must be non-negative"),
        ((world, 0.5, 0.0, 0.0, 1.0), "z_hit \\+ z_rand must be positive"),
        ((world, 0.5, 0.9, 0.1, 0.0), "max_distance must be positive"),
    ]:
        with pytest.raises(ValueError, match=message):
            LikelihoodField(*args)
    with pytest.raises(ValueError, match="weighting"):
        LikelihoodField(world, 0.5, 0.9, 0.1, 1.0, weighting="cubed")
    with pytest.raises(TypeError, match="grid"):
        LikelihoodField("map", 0.5, 0.9, 0.1, 1.0)
    field = LikelihoodField(world, 0.5, 0.9, 0.1, 1.0)
    with pytest.raises(ValueError, match="table_resolution"):
        scan_likelihood(world, [(0, 0, 0)], [0.0], [1.0], max_range=2.0, model=field,
                        table_resolution=1.0)  # fmt: skip


def test_likelihood_field_prefers_the_true_pose():
    rng = np.random.default_rng(4)
    walls = np.pad(rng.random((30, 30)) < 0.05, 1, constant_values=True)
    world = Grid(walls, outside="solid")
    truth = (10.5, 12.5, 0.3)
    angles = np.linspace(-np.pi, np.pi, 60, endpoint=False)
    observed = tilecast.scan(world, truth, angles, 40.0)
    poses = np.array([truth, (10.9, 12.5, 0.3), (10.5, 12.5, 0.5), (20.5, 5.5, 0.3)])
    field = LikelihoodField(world, 0.4, 0.9, 0.1, 2.0)
    ll = scan_likelihood(world, poses, angles, observed, max_range=40.0, model=field)
    assert int(np.argmax(ll)) == 0
    beam = scan_likelihood(world, poses, angles, observed, max_range=40.0,
                           model=BeamModel(0.8, 0.05, 0.05, 0.1, 0.4, 0.1))  # fmt: skip
    assert int(np.argmax(beam)) == 0


def test_weights_too_large_for_the_model_are_refused_naming_them():
    """Fuzz mapping 85 (seed 1616, issue 36): z_hit = 1e150 with weighting="amcl"
    raised a raw OverflowError (pz**3); pz beyond a float is refused too."""
    grid = Grid(np.zeros((3, 4), bool))
    poses, angles = [[1.5, 1.5, 0.0]], [0.0]
    huge = LikelihoodField(grid, 0.5, 1e150, 0.0, 2.0, weighting="amcl")
    with pytest.raises(ValueError, match="z_hit and z_rand are too large"):
        scan_likelihood(grid, poses, angles, [1.0], max_range=3.0, model=huge)
    beyond = LikelihoodField(grid, 0.5, 1.0, 1e308, 2.0)
    with pytest.raises(ValueError, match="z_hit and z_rand are too large"):
        scan_likelihood(grid, poses, angles, [1.0], max_range=0.5, model=beyond)
    # 2 sigma**2 overflowed (fuzz mapping 1885) or would be 0: a sigma_hit out of range
    for sigma in (1e200, 1e-200):
        with pytest.raises(ValueError, match=r"^sigma_hit must lie in"):
            LikelihoodField(grid, sigma, 0.9, 0.1, 2.0)
    # the product weighting takes any finite pz: only logs are summed
    fine = LikelihoodField(grid, 0.5, 1e150, 0.0, 2.0)
    assert np.isfinite(scan_likelihood(grid, poses, angles, [1.0], max_range=3.0, model=fine))
