"""Circles and oriented boxes in scans (DESIGN 22): the first of wall, circle or box, exactly."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.shapes import beam_oracle
from strategies import grids, points
from tilecast import Grid, GridStack, scan, scan_many
from tilecast.batch import beam_directions

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
