"""Circles and oriented boxes in scans (DESIGN 22): the first of wall, circle or box, exactly."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.shapes import beam_oracle, first_shape
from strategies import directions, grids, points
from tilecast import (
    BeamModel,
    Grid,
    GridStack,
    LikelihoodField,
    SpatialHash,
    TileMap,
    TileSet,
    raycast_many,
    scan,
    scan_likelihood,
    scan_many,
)
from tilecast.batch import beam_directions
from tilecast.sensor import beam_evaluator

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def corners(box):
    """A box's corners as the product computes them (c + R(angle) (+-hw, +-hh), in float64)."""
    cx, cy, hw, hh, angle = box
    c, s = np.cos(angle), np.sin(angle)
    return [(cx + (c * sx * hw - s * sy * hh), cy + (s * sx * hw + c * sy * hh))
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]  # fmt: skip


@st.composite
def shapes_near(draw, grid):
    """Circles and boxes placed on lattice points, cell centres and grid lines (ties with walls)."""
    w, h = grid.tile_size
    circles, boxes = [], []
    for _ in range(draw(st.integers(0, 4))):
        x, y = draw(points(grid))
        r = draw(st.sampled_from([0.0, 0.5 * w, 0.5 * h, 1.0, 0.25 * min(w, h), 2.0 * w]))
        circles.append((x, y, r))
    for _ in range(draw(st.integers(0, 3))):
        x, y = draw(points(grid))
        hw = draw(st.sampled_from([0.5 * w, 0.25 * w, 1.0 * w]))
        hh = draw(st.sampled_from([0.5 * h, 0.75 * h]))
        angle = draw(st.sampled_from([0.0, math.pi / 2, math.pi / 4, 0.3, -1.1]))
        boxes.append((x, y, hw, hh, angle))
    if circles and draw(st.booleans()):
        circles.append((math.nan, math.nan, math.nan))  # a free slot
    return circles, boxes


def check_beams(grid, poses, angles, max_range, circles, boxes):
    ranges = scan_many(grid, poses, angles, max_range,
                       circles=circles or None, boxes=boxes or None)  # fmt: skip
    walls = scan_many(grid, poses, angles, max_range)
    directions = beam_directions(poses, angles).reshape(len(poses), len(angles), 2)
    live_circles = [c for c in circles if not math.isnan(c[0])]
    box_corners = [corners(b) for b in boxes]
    for p, pose in enumerate(poses):
        for k in range(len(angles)):
            kind, distance = beam_oracle(grid, (pose[0], pose[1]), tuple(directions[p, k]),
                                         max_range, live_circles, box_corners)  # fmt: skip
            got = ranges[p, k]
            if kind == "wall":
                assert got == walls[p, k], (p, k)
            elif kind == "zero":
                assert got == 0.0, (p, k)
            else:
                assert got <= walls[p, k], (p, k)
                assert math.isclose(got, min(distance, max_range), rel_tol=1e-13, abs_tol=1e-300)


@SETTINGS
@given(st.data())
def test_scan_with_shapes_matches_the_exact_oracle(data):
    grid = data.draw(grids(max_side=6))
    circles, boxes = data.draw(shapes_near(grid))
    poses = [(*data.draw(points(grid)), data.draw(st.sampled_from([0.0, math.pi / 4, 1.0, -2.0])))
             for _ in range(data.draw(st.integers(1, 3)))]  # fmt: skip
    angles = np.linspace(-math.pi, math.pi, data.draw(st.sampled_from([4, 8, 24])), endpoint=False)
    max_range = data.draw(st.sampled_from([3.0, 50.0, math.inf]))
    check_beams(grid, np.array(poses), angles, max_range, circles, boxes)


def test_ties_with_walls_go_to_the_wall_and_touching_counts():
    grid = Grid(np.pad(np.zeros((6, 6), bool), 1, constant_values=True))
    pose = (1.5, 3.5, 0.0)
    # a circle in the wall touching its face x = 7 where the beam meets it: the same t
    assert scan(grid, pose, [0.0], 20.0, circles=[(7.5, 3.5, 0.5)]).tolist() == [5.5]
    assert scan(grid, pose, [0.0], 20.0, circles=[(6.5, 3.5, 0.5)]).tolist() == [4.5]
    # a box whose face lies on the grid line x = 4: the box is met at t = 2.5 (no wall there)
    assert scan(grid, pose, [0.0], 20.0, boxes=[(4.5, 3.5, 0.5, 0.5, 0.0)]).tolist() == [2.5]
    # a circle just in front of the wall wins
    (got,) = scan(grid, pose, [0.0], 20.0, circles=[(6.4, 3.5, 0.5)])
    assert got == pytest.approx(4.4, rel=1e-15)
    (got,) = scan(grid, pose, [0.0], 20.0, circles=[(7.4, 3.5, 0.5)])
    assert got == pytest.approx(5.4, rel=1e-15)
    # starting inside a circle or a box reads 0; shapes off the map count
    assert scan(grid, pose, [0.0, 1.0], 20.0, circles=[(1.5, 3.5, 0.1)]).tolist() == [0.0, 0.0]
    off = Grid(np.zeros((2, 2), bool))
    assert scan(off, (1.0, 1.0, 0.0), [0.0], 50.0, boxes=[(10.0, 1.0, 1.0, 1.0, 0.0)]).tolist() == [
        8.0
    ]
    assert scan(off, (1.0, 1.0, 0.0), [0.0], 5.0, circles=[(10.0, 1.0, 1.0)]).tolist() == [5.0]


def test_shapes_on_a_stack_are_each_maps_own():
    rng = np.random.default_rng(3)
    stack = GridStack(rng.random((4, 15, 15)) < 0.1, outside="solid")
    poses = np.column_stack([rng.random(8) * 15, rng.random(8) * 15, rng.random(8)]).reshape(
        4, 2, 3
    )
    circles = np.column_stack([rng.random(12) * 15, rng.random(12) * 15, rng.random(12)])
    circles = circles.reshape(4, 3, 3)
    circles[2, 1] = np.nan
    boxes = np.column_stack([rng.random(8) * 15, rng.random(8) * 15, rng.random(8),
                             rng.random(8), rng.random(8) * 6]).reshape(4, 2, 5)  # fmt: skip
    angles = np.linspace(0, 2 * np.pi, 360, endpoint=False)
    ranges = scan_many(stack, poses, angles, 12.0, circles=circles, boxes=boxes)
    for b in range(4):
        single = scan_many(stack[b], poses[b], angles, 12.0, circles=circles[b], boxes=boxes[b])
        np.testing.assert_array_equal(ranges[b], single)
    assert (ranges < scan_many(stack, poses, angles, 12.0)).any()  # the shapes are seen


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"circles": [(1.0, 1.0, -0.5)]}, ValueError, "circles must have a non-negative radius"),
        ({"circles": [(1.0, math.nan, 0.5)]}, ValueError, r"circles\[0\] has NaN in some"),
        ({"circles": [(1.0, math.inf, 0.5)]}, ValueError, "circles must be finite"),
        ({"circles": [(1.0, 1.0)]}, ValueError, r"circles must have shape \(K, 3\)"),
        ({"boxes": [(1.0, 1.0, 0.5, 0.5, math.nan)]}, ValueError, r"boxes\[0\] has NaN in some"),
        ({"boxes": [(1.0, 1.0, -0.5, 0.5, 0.0)]}, ValueError, "boxes must have a non-negative"),
        ({"boxes": [[(1.0, 1.0, 0.5, 0.5, 0.0)]]}, ValueError, r"boxes must have shape \(K, 5\)"),
    ],
)
def test_bad_shapes_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        scan(Grid(np.zeros((3, 3), bool)), (0.5, 0.5, 0.0), [0.0], 5.0, **kwargs)


def test_bad_shapes_on_a_stack():
    stack = GridStack(np.zeros((2, 3, 3), bool))
    poses = np.zeros((2, 1, 3))
    with pytest.raises(ValueError, match=r"circles must have shape \(B, K, 3\) with B = 2"):
        scan_many(stack, poses, [0.0], 5.0, circles=np.zeros((3, 1, 3)))
    with pytest.raises(ValueError, match=r"boxes\[1, 0\] has NaN in some entries only"):
        scan_many(stack, poses, [0.0], 5.0, boxes=[[(1, 1, 1, 1, 0)], [(1, np.nan, 1, 1, 0)]])


# ------------------------------------------------------------- raycast_many
def check_rays(grid, origins, directions, limit, circles, boxes, gaps, ignore_start):
    hits = raycast_many(grid, origins, directions, limit, circles=circles or None,
                        boxes=boxes or None, diagonal_gaps=gaps,
                        ignore_start=ignore_start)  # fmt: skip
    walls = raycast_many(grid, origins, directions, limit, diagonal_gaps=gaps,
                         ignore_start=ignore_start)  # fmt: skip
    box_corners = [corners(b) for b in boxes]
    for k, (origin, direction) in enumerate(zip(origins, directions, strict=True)):
        kind, distance, row = first_shape(grid, origin, direction, circles, box_corners, gaps,
                                          ignore_start)  # fmt: skip
        got = hits[k]
        if kind == "wall":
            assert got == walls[k], k
            assert hits.body[k] == -1
        elif kind == "zero":
            assert (got.distance, got.inside, got.cell, got.point) == (0.0, True, (-1, -1), origin)
            assert got.body == row, k
        elif distance > limit * (1 + 1e-12):
            assert got is None, k  # the first thing on the ray is beyond its range
        elif distance < limit * (1 - 1e-12):
            assert got is not None and got.body == row and got.cell == (-1, -1), k
            assert not got.inside
            assert math.isclose(got.distance, distance, rel_tol=1e-13, abs_tol=1e-300)
            # the direction scaled by a power of two (exact) to about 1 first: a subnormal
            # direction's norm would overflow the quotient
            exponent = math.frexp(max(abs(direction[0]), abs(direction[1])))[1]
            unit = [math.ldexp(c, -exponent) for c in direction]
            scale = got.distance / math.hypot(*unit)
            for axis in (0, 1):
                assert math.isclose(got.point[axis], origin[axis] + scale * unit[axis],
                                    rel_tol=1e-12, abs_tol=1e-9)  # fmt: skip
            assert math.isclose(math.hypot(*got.normal), 1.0, rel_tol=1e-12)
            # the normal faces the ray (a box's edge, a circle's radius)
            assert got.normal[0] * direction[0] + got.normal[1] * direction[1] <= 1e-12


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_raycast_many_with_shapes_matches_the_exact_oracle(data):
    grid = data.draw(grids(max_side=6))
    circles, boxes = data.draw(shapes_near(grid))
    n = data.draw(st.integers(1, 6))
    origins = [data.draw(points(grid)) for _ in range(n)]
    rays = [data.draw(directions(grid)) for _ in range(n)]
    # rays aimed at a circle's centre or a box's corner (through it, or along an edge)
    targets = [c[:2] for c in circles if not math.isnan(c[0])]
    targets += [q for b in boxes for q in corners(b)]
    for k in range(n):
        if targets and data.draw(st.booleans()):
            x, y = data.draw(st.sampled_from(targets))
            if (x, y) != origins[k]:
                rays[k] = (x - origins[k][0], y - origins[k][1])
    limit = data.draw(st.sampled_from([2.0, 50.0, math.inf]))
    gaps = data.draw(st.sampled_from(["block_if_both", "block_if_either", "open"]))
    check_rays(grid, origins, rays, limit, circles, boxes, gaps, data.draw(st.booleans()))


def test_raycast_many_with_shapes_along_a_subnormal_direction():
    """A case hypothesis found: a direction of about 3e-310 (its norm's quotient overflowed
    in the check of the hit point, not in tilecast)."""
    grid = Grid(np.zeros((1, 1), bool))
    circles, boxes = [(0.5, 0.5, 0.0), (0.5, 0.5, 0.0)], [(0.5, 0.5, 0.5, 0.5, 0.0)]
    check_rays(grid, [(-0.5, 0.5)], [(3e-310, -2e-310)], 2.0, circles, boxes, "block_if_both",
               False)  # fmt: skip


def test_raycast_many_shapes_on_a_stack_are_each_maps_own():
    rng = np.random.default_rng(5)
    stack = GridStack(rng.random((3, 12, 12)) < 0.15, outside="solid")
    origins = rng.random((3, 40, 2)) * 12
    angles = rng.uniform(-math.pi, math.pi, (3, 40))
    rays = np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    circles = np.column_stack([rng.random(9) * 12, rng.random(9) * 12, rng.random(9)])
    circles = circles.reshape(3, 3, 3)
    circles[1, 0] = np.nan
    boxes = np.column_stack([rng.random(6) * 12, rng.random(6) * 12, rng.random(6),
                             rng.random(6), rng.random(6) * 6]).reshape(3, 2, 5)  # fmt: skip
    hits = raycast_many(stack, origins, rays, 9.0, circles=circles, boxes=boxes)
    for b in range(3):
        single = raycast_many(stack[b], origins[b], rays[b], 9.0, circles=circles[b],
                              boxes=boxes[b])  # fmt: skip
        for name in ("hit", "distance", "point", "normal", "cell", "inside", "body"):
            np.testing.assert_array_equal(getattr(hits, name)[b], getattr(single, name))
    assert (hits.body >= 3).any() and (hits.body.max(axis=1) >= 0).all()  # boxes and circles


# ----------------------------------------------------------- scan_likelihood
def test_scan_likelihood_sees_the_shapes_as_scan_many_does():
    rng = np.random.default_rng(11)
    grid = Grid(np.pad(rng.random((10, 10)) < 0.1, 1, constant_values=True))
    poses = np.column_stack([rng.random(6) * 10 + 1, rng.random(6) * 10 + 1, rng.random(6) * 6])
    angles = np.linspace(-math.pi, math.pi, 45, endpoint=False)
    circles = [(4.0, 5.0, 1.0), (8.0, 3.0, 0.5)]
    boxes = [(6.0, 8.0, 1.0, 0.4, 0.6)]
    observed = scan_many(grid, poses[:1], angles, 15.0, circles=circles, boxes=boxes)[0]
    model = BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.2, lambda_short=0.5)
    expected = scan_many(grid, poses, angles, 15.0, circles=circles, boxes=boxes)
    want = np.empty(len(poses))
    beam_evaluator(model, observed, 15.0, len(angles))(expected.reshape(-1), want)
    got = scan_likelihood(grid, poses, angles, observed, max_range=15.0, model=model,
                          circles=circles, boxes=boxes)  # fmt: skip
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, scan_likelihood(grid, poses, angles, observed,
                                                   max_range=15.0, model=model))  # fmt: skip
    stack = GridStack(np.stack([grid.solid, grid.solid[::-1]]))
    two = np.stack([circles, [(np.nan,) * 3, (5.0, 5.0, 2.0)]])
    table = np.full((40, 40), 0.01) + np.eye(40)
    both = scan_likelihood(stack, np.stack([poses, poses]), angles, np.stack([observed] * 2),
                           max_range=15.0, table=table, table_resolution=0.5,
                           circles=two)  # fmt: skip
    for b in range(2):
        single = scan_likelihood(stack[b], poses, angles, observed, max_range=15.0, table=table,
                                 table_resolution=0.5, circles=two[b])  # fmt: skip
        np.testing.assert_array_equal(both[b], single)


# ---------------------------------------------------- which beams are tested
@settings(max_examples=25, deadline=None)
@given(st.data())
def test_beams_in_any_order_and_turn_read_the_same(data):
    """Increasing angles find each shape's beams by binary search; other angles test every
    shape per beam: both give the same readings, whatever the angles' turn and order."""
    grid = Grid(np.pad(np.zeros((8, 8), bool), 1, constant_values=True))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    start = data.draw(st.sampled_from([-math.pi, 0.0, -3 * math.pi, 2.5, -13.0]))
    span = data.draw(st.sampled_from([math.pi / 3, 2 * math.pi, 5 * math.pi]))
    angles = np.sort(start + rng.random(60) * span)
    theta = data.draw(st.sampled_from([0.0, 3.0, -40.0, 1e7]))
    poses = np.array([(4.5, 4.5, theta), (1.5, 7.25, theta + 1.0)])
    circles = np.column_stack([rng.random(6) * 10, rng.random(6) * 10, rng.random(6)])
    boxes = np.column_stack([rng.random(3) * 10, rng.random(3) * 10, rng.random(3), rng.random(3),
                             rng.random(3) * 6])  # fmt: skip
    max_range = data.draw(st.sampled_from([2.0, 30.0, math.inf]))
    ordered = scan_many(grid, poses, angles, max_range, circles=circles, boxes=boxes)
    order = rng.permutation(len(angles))
    shuffled = scan_many(grid, poses, angles[order], max_range, circles=circles, boxes=boxes)
    np.testing.assert_array_equal(shuffled, ordered[:, order])
    one_by_one = [scan_many(grid, poses, angles[k : k + 1], max_range, circles=circles,
                            boxes=boxes)[:, 0] for k in range(0, len(angles), 7)]  # fmt: skip
    np.testing.assert_array_equal(np.column_stack(one_by_one), ordered[:, ::7])


# ----------------------------------------------------------------- errors
def test_bad_shapes_in_raycast_many_and_scan_likelihood():
    grid = Grid(np.zeros((3, 3), bool))
    model = BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.2, lambda_short=0.5)
    with pytest.raises(ValueError, match="circles must have a non-negative radius"):
        raycast_many(grid, (0.5, 0.5), (1.0, 0.0), circles=[(1.0, 1.0, -0.5)])
    with pytest.raises(ValueError, match=r"boxes\[0\] has NaN in some"):
        scan_likelihood(grid, [(0.5, 0.5, 0.0)], [0.0], [1.0], max_range=5.0, model=model,
                        boxes=[(1.0, 1.0, 0.5, 0.5, math.nan)])  # fmt: skip
    with pytest.raises(ValueError, match=r"circles must have shape \(B, K, 3\) with B = 2"):
        raycast_many(GridStack(np.zeros((2, 3, 3), bool)), np.zeros((2, 1, 2)),
                     np.ones((2, 1, 2)), circles=np.zeros((1, 1, 3)))  # fmt: skip
    tiles = TileMap([[0]], TileSet([np.zeros((2, 2), bool)]))
    with pytest.raises(TypeError, match="circles and boxes need a Grid or a GridStack"):
        raycast_many(tiles, (0.5, 0.5), (1.0, 0.0), circles=[(1.0, 1.0, 0.5)])
    with pytest.raises(ValueError, match="not both in one call"):
        raycast_many(grid, (0.5, 0.5), (1.0, 0.0), bodies=SpatialHash(1.0),
                     circles=[(1.0, 1.0, 0.5)])  # fmt: skip
    with pytest.raises(ValueError, match="a LikelihoodField casts no beams"):
        scan_likelihood(
            grid,
            [(0.5, 0.5, 0.0)],
            [0.0],
            [1.0],
            max_range=5.0,
            model=LikelihoodField(grid, 0.2, 0.9, 0.1, 2.0),
            circles=[(1.0, 1.0, 0.5)],
        )


def test_beams_split_between_threads_mid_scan_read_the_same(monkeypatch):
    rng = np.random.default_rng(2)
    grid = Grid(np.pad(rng.random((20, 20)) < 0.1, 1, constant_values=True))
    poses = np.column_stack([rng.random(3) * 20 + 1, rng.random(3) * 20 + 1, rng.random(3) * 6])
    angles = np.linspace(-math.pi, math.pi, 1001, endpoint=False)  # 3003 beams: 2 tasks
    circles = np.column_stack([rng.random(12) * 22, rng.random(12) * 22, rng.random(12)])
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    one = scan_many(grid, poses, angles, 30.0, circles=circles)
    monkeypatch.setenv("NUMBA_NUM_THREADS", "2")
    two = scan_many(grid, poses, angles, 30.0, circles=circles)
    np.testing.assert_array_equal(one, two)
    assert (one < scan_many(grid, poses, angles, 30.0)).sum() > 100
