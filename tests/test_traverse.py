import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.oracle import traverse_oracle
from strategies import grids, points
from tilecast import Grid, Step, traverse

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
POLICIES = ["both", "x_first", "y_first", "none"]


def cells(grid, a, b, corners="both"):
    return [s.cell for s in traverse(grid, a, b, corners=corners)]


@st.composite
def segment_cases(draw):
    grid = draw(grids())
    a = draw(points(grid))
    b = draw(points(grid))
    return grid, a, b, draw(st.sampled_from(POLICIES))


@SETTINGS
@given(segment_cases())
def test_traverse_matches_sorted_crossings_oracle(case):
    grid, a, b, policy = case
    steps = list(traverse(grid, a, b, corners=policy))
    expected, _events = traverse_oracle(grid, a, b, policy)
    assert [(s.cell, s.corner) for s in steps] == [(c, k) for c, k, _ in expected]
    # flat lists: pytest >= 9.2 refuses nested sequences in approx
    got = [c for s in steps for c in s.normal]
    assert got == pytest.approx([c for _, _, n in expected for c in n])
    assert len(got) == 2 * len(expected)
    # t is reported in float64: non-decreasing, in [0, 1], close to the exact value
    ts = [s.t for s in steps]
    assert ts[0] == 0.0
    assert all(0.0 <= t0 <= t1 <= 1.0 for t0, t1 in itertools.pairwise(ts))


@SETTINGS
@given(segment_cases())
def test_traverse_t_is_the_exact_crossing_rounded(case):
    grid, a, b, _ = case
    steps = [s for s in traverse(grid, a, b, corners="none")]
    _, events = traverse_oracle(grid, a, b, "none")
    assert len(steps) == len(events) + 1
    for step, exact in zip(steps[1:], events, strict=True):
        assert step.t == pytest.approx(float(exact), rel=1e-12, abs=1e-12)


@SETTINGS
@given(segment_cases())
def test_both_policy_is_symmetric_and_others_are_four_connected(case):
    grid, a, b, policy = case
    assert set(cells(grid, a, b)) == set(cells(grid, b, a))
    path = cells(grid, a, b, policy)
    if policy in ("x_first", "y_first"):
        di = abs(path[-1][0] - path[0][0])
        dj = abs(path[-1][1] - path[0][1])
        assert len(path) == di + dj + 1
        for (i0, j0), (i1, j1) in itertools.pairwise(path):
            assert abs(i1 - i0) + abs(j1 - j0) == 1


@SETTINGS
@given(segment_cases())
def test_first_and_last_cells_follow_the_occupancy_rule(case):
    grid, a, b, _ = case
    path = cells(grid, a, b)
    u0, v0 = grid.to_tile_space(a)
    u1, v1 = grid.to_tile_space(b)
    if (u0, v0) == (u1, v1):
        assert path == [grid.cell_at(a)]
        return

    def occupied(u, d, at_start):
        if d == 0:
            return math.floor(u)
        going_up = (d > 0) == at_start
        return math.floor(u) if going_up else math.ceil(u) - 1

    assert path[0] == (occupied(u0, u1 - u0, True), occupied(v0, v1 - v0, True))
    assert path[-1] == (occupied(u1, u1 - u0, False), occupied(v1, v1 - v0, False))


def test_corner_step_order_and_fields():
    grid = Grid(np.zeros((4, 4), bool))
    steps = list(traverse(grid, (0.5, 0.5), (1.5, 1.5)))
    assert [s.cell for s in steps] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    h = 1 / math.sqrt(2)
    for s in steps[1:]:
        assert s.corner and s.t == 0.5 and s.normal == pytest.approx((-h, -h))
    assert steps[0] == Step((0, 0), 0.0, (0.0, 0.0), False)
    up_left = list(traverse(grid, (1.5, 1.5), (0.5, 0.5), corners="y_first"))
    assert [s.cell for s in up_left] == [(1, 1), (1, 0), (0, 0)]
    assert up_left[1].normal == pytest.approx((h, h))


def test_segment_on_grid_line_uses_half_open_side_without_corners():
    grid = Grid(np.zeros((4, 4), bool))
    steps = list(traverse(grid, (1.0, 0.5), (1.0, 3.5)))
    assert [s.cell for s in steps] == [(1, 0), (1, 1), (1, 2), (1, 3)]
    assert not any(s.corner for s in steps)
    # along a horizontal grid line, going left
    assert cells(grid, (3.5, 2.0), (0.5, 2.0)) == [(3, 2), (2, 2), (1, 2), (0, 2)]


def test_start_on_a_line_moving_away_skips_the_cell_left_behind():
    grid = Grid(np.zeros((3, 3), bool))
    assert cells(grid, (1.0, 0.5), (2.5, 0.5)) == [(1, 0), (2, 0)]
    assert cells(grid, (1.0, 0.5), (0.5, 0.5)) == [(0, 0)]
    assert cells(grid, (0.5, 0.5), (2.0, 0.5)) == [(0, 0), (1, 0)]  # ends on a line
    assert cells(grid, (1.0, 1.0), (0.0, 0.0)) == [(0, 0)]  # lattice point to lattice point


def test_zero_length_segment_is_its_cell():
    grid = Grid([[0]], tile_size=0.1)
    assert list(traverse(grid, (0.3, -0.05), (0.3, -0.05))) == [
        Step((2, -1), 0.0, (0.0, 0.0), False)
    ]


def test_negative_coordinates_and_offset_origin():
    grid = Grid([[0]], tile_size=(2.0, 0.5), origin=(-1.0, 1.0))
    # x: (-3 - -1)/2 = -1 -> col -1 ; y: (0.75 - 1)/0.5 = -0.5 -> row -1
    path = cells(grid, (-3.0, 0.75), (1.5, 1.75))
    assert path[0] == (-1, -1) and path[-1] == (1, 1)


def test_million_cell_segment_ends_exactly():
    grid = Grid([[0]])
    a = (0.5, 0.25)
    b = (1_000_000.5, 333_333.75)
    count = 0
    last = None
    for step in traverse(grid, a, b, corners="x_first"):
        count += 1
        last = step
    assert last.cell == (1_000_000, 333_333)
    assert 0.0 < last.t <= 1.0
    assert count == 1_000_000 + 333_333 + 1


def test_long_ray_far_from_origin_ends_in_the_right_cell():
    grid = Grid([[0]], tile_size=0.25, origin=(-1e6, 3e5))
    a, b = (1e6 + 0.125, 3e5 - 1e3), (1.1e6 + 0.1, 3e5 + 7e3 + 0.1)
    path = cells(grid, a, b, "x_first")
    assert path[0] == grid.cell_at(a)
    assert path[-1] == grid.cell_at(b)
    di = path[-1][0] - path[0][0]
    dj = path[-1][1] - path[0][1]
    assert len(path) == di + dj + 1


def test_traverse_is_lazy():
    grid = Grid([[0]])
    walk = traverse(grid, (0.5, 0.5), (1e12, 0.5))
    assert next(walk).cell == (0, 0)
    assert next(walk).cell == (1, 0)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"start": (math.nan, 0.0)}, ValueError, "start"),
        ({"end": (0.0, math.inf)}, ValueError, "end"),
        ({"start": (1.0,)}, ValueError, "start"),
        ({"start": "ab"}, TypeError, "start"),
        ({"corners": "diagonal"}, ValueError, "corners"),
        ({"corners": None}, TypeError, "corners"),
        ({"grid": [[0]]}, TypeError, "grid"),
    ],
)
def test_bad_input_names_the_argument(kwargs, error, match):
    args = {"grid": Grid([[0]]), "start": (0.5, 0.5), "end": (1.5, 0.5), "corners": "both"}
    args.update(kwargs)
    corners = args.pop("corners")
    with pytest.raises(error, match=match):
        traverse(args["grid"], args["start"], args["end"], corners=corners)
