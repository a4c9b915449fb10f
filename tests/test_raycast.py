import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.oracle import line_of_sight_oracle, raycast_all_oracle
from strategies import directions, grids, points
from tilecast import (
    Grid,
    Hit,
    line_of_sight,
    raycast,
    raycast_all,
    raycast_many,
    scan,
    scan_many,
    traverse,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAPS = ["block_if_both", "block_if_either", "open"]
H = 1 / math.sqrt(2)


@st.composite
def ray_cases(draw):
    grid = draw(grids())
    origin = draw(points(grid))
    direction = draw(directions(grid))
    max_distance = draw(
        st.sampled_from([math.inf, 0.0, 1.0, 2.5]) | st.floats(0.0, 50.0, allow_nan=False)
    )
    gaps = draw(st.sampled_from(GAPS))
    ignore_start = draw(st.booleans())
    return grid, origin, direction, max_distance, gaps, ignore_start


def _close(a, b):
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(a, b, strict=True))


@SETTINGS
@given(ray_cases())
def test_raycast_all_matches_exact_oracle(case):
    grid, origin, direction, max_distance, gaps, ignore_start = case
    hits = raycast_all(
        grid, origin, direction, max_distance, diagonal_gaps=gaps, ignore_start=ignore_start
    )
    expected = raycast_all_oracle(grid, origin, direction, max_distance, gaps, ignore_start)
    assert [h.cell for h in hits] == [e[0] for e in expected]
    for hit, (_cell, kind, distance, point) in zip(hits, expected, strict=True):
        assert hit.inside == (kind == "inside")
        assert hit.distance == distance  # same float64 formula
        assert _close(hit.point, point)
        assert hit.distance <= max_distance
        if kind == "inside":
            assert hit.normal == (0.0, 0.0) and hit.point == origin
        elif kind == "corner":
            assert abs(hit.normal[0]) == pytest.approx(H) and abs(hit.normal[1]) == pytest.approx(H)
        else:
            assert sum(abs(c) for c in hit.normal) == 1.0
        # the normal points back against the ray
        assert hit.normal[0] * direction[0] + hit.normal[1] * direction[1] <= 0.0


@SETTINGS
@given(ray_cases())
def test_raycast_is_first_of_raycast_all(case):
    grid, origin, direction, max_distance, gaps, ignore_start = case
    kwargs = {"diagonal_gaps": gaps, "ignore_start": ignore_start}
    first = raycast(grid, origin, direction, max_distance, **kwargs)
    every = raycast_all(grid, origin, direction, max_distance, **kwargs)
    assert first == (every[0] if every else None)
    assert raycast_all(grid, origin, direction, max_distance, max_results=2, **kwargs) == every[:2]


@st.composite
def segment_cases(draw):
    grid = draw(grids())
    return grid, draw(points(grid)), draw(points(grid)), draw(st.sampled_from(GAPS))


@SETTINGS
@given(segment_cases())
def test_line_of_sight_matches_oracle_and_is_symmetric(case):
    grid, a, b, gaps = case
    seen = line_of_sight(grid, a, b, diagonal_gaps=gaps)
    assert seen == line_of_sight_oracle(grid, a, b, gaps)
    assert seen == line_of_sight(grid, b, a, diagonal_gaps=gaps)


# ------------------------------------------------------------- worked cases
def test_hit_fields_on_a_face():
    grid = Grid([[0, 0, 1]], tile_size=(2.0, 1.0), origin=(10.0, 0.0))
    hit = raycast(grid, (11.0, 0.5), (3.0, 0.0))
    assert hit == Hit((14.0, 0.5), (-1.0, 0.0), 3.0, (2, 0), False)


def test_start_inside_and_ignore_start():
    grid = Grid([[1, 0, 1]])
    assert raycast(grid, (0.5, 0.5), (1.0, 0.0)) == Hit((0.5, 0.5), (0.0, 0.0), 0.0, (0, 0), True)
    hit = raycast(grid, (0.5, 0.5), (1.0, 0.0), ignore_start=True)
    assert hit.cell == (2, 0) and hit.distance == 1.5 and not hit.inside
    # leaving a wall cell backwards leaves the map
    assert raycast(grid, (0.5, 0.5), (-1.0, 0.0), ignore_start=True) is None


def test_max_distance_is_inclusive():
    grid = Grid([[0, 1]])
    assert raycast(grid, (0.5, 0.5), (1.0, 0.0), 0.5).distance == 0.5
    assert raycast(grid, (0.5, 0.5), (1.0, 0.0), 0.4999999) is None
    assert raycast(grid, (0.5, 0.5), (2.0, 0.0), max_distance=0.5) is not None


@pytest.mark.parametrize(
    ("gaps", "both", "one"),
    [
        ("block_if_both", (2, 1), None),
        ("block_if_either", (2, 1), (1, 2)),
        ("open", None, None),
    ],
)
def test_diagonal_gap_policies(gaps, both, one):
    # two walls touching at the lattice point (2, 2); a ray along the diagonal
    grid = Grid([[0, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
    hit = raycast(grid, (0.5, 0.5), (1.0, 1.0), diagonal_gaps=gaps)
    assert (hit.cell if hit else None) == both
    if hit:
        assert hit.point == (2.0, 2.0) and hit.normal == pytest.approx((-H, -H))
    # a single pillar corner: only block_if_either stops the ray
    pillar = Grid([[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
    hit = raycast(pillar, (0.5, 0.5), (1.0, 1.0), diagonal_gaps=gaps)
    assert (hit.cell if hit else None) == one


def test_ray_never_leaks_between_walls_touching_at_a_corner():
    grid = Grid([[0, 1], [1, 0]])
    assert raycast(grid, (0.25, 0.25), (1.0, 1.0)).point == (1.0, 1.0)
    assert not line_of_sight(grid, (0.5, 0.5), (1.5, 1.5))
    assert line_of_sight(grid, (0.5, 0.5), (1.5, 1.5), diagonal_gaps="open")


def test_grazing_along_a_face_does_not_hit():
    grid = Grid([[0, 0, 0], [1, 1, 1], [0, 0, 0]])
    # along y = 1, the top face of the wall row: occupies row 1 (half-open side)
    assert raycast(grid, (0.5, 1.0), (1.0, 0.0)).cell == (0, 1)
    # along y = 1 from the left, coming from outside, enters row 1 cells
    grid2 = Grid([[0, 0, 0], [0, 0, 0], [1, 1, 1]])
    # along the line y = 2 going left, starting at x = 3: occupies row 2 -> hits (2, 2)
    assert raycast(grid2, (3.0, 2.0), (-1.0, 0.0)).cell == (2, 2)
    # along y = 2 but approaching from above: the ray y=2-eps never hits row 2
    assert raycast(grid2, (0.5, 1.5), (1.0, 0.0)) is None


def test_outside_solid_stops_at_the_border():
    grid = Grid([[0, 0], [0, 0]], outside="solid")
    hit = raycast(grid, (0.5, 0.5), (-1.0, 0.0))
    assert hit.cell == (-1, 0) and hit.point == (0.0, 0.5) and hit.normal == (1.0, 0.0)
    hit = raycast(grid, (5.0, 5.0), (-1.0, -1.0))
    assert hit.inside and hit.cell == (4, 4)  # occupied just after the start
    assert [h.cell for h in raycast_all(grid, (5.0, 0.5), (-1.0, 0.0))] == [(4, 0)]
    all_hits = raycast_all(grid, (0.5, 0.5), (1.0, 0.0))
    assert [h.cell for h in all_hits] == [(2, 0)]


def test_ray_from_far_away_reaches_the_map_without_walking():
    grid = Grid([[0, 1], [0, 0]])
    hit = raycast(grid, (-1e15, 0.5), (1.0, 0.0))
    assert hit.cell == (1, 0) and hit.distance == 1e15 + 1
    hit = raycast(grid, (-1e12, -1e12 + 0.5), (1.0, 1.0))
    assert hit is None or hit.cell[0] >= 0
    assert raycast(grid, (-1e15, 5.0), (1.0, 0.0)) is None  # passes below the map
    assert raycast(grid, (-5.0, 0.5), (-1.0, 0.0)) is None  # moving away
    assert line_of_sight(grid, (-1e15, 0.5), (0.5, 0.5))
    assert not line_of_sight(grid, (-1e15, 0.5), (1e15, 0.5))


def test_tiny_direction_gives_finite_distances():
    grid = Grid([[0, 0, 1]])
    hit = raycast(grid, (0.5, 0.5), (1e-300, 0.0))
    # t = 1.5 / d and distance = t * |d| round once each: within 2 ulps of 1.5
    assert hit.distance == pytest.approx(1.5, rel=5e-16) and hit.point == (2.0, 0.5)
    hit = raycast(grid, (0.5, 0.5), (5e-324, 0.0))
    assert hit.distance == 1.5


def test_raycast_all_reports_both_shoulders_and_goes_on():
    grid = Grid([[0, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    hits = raycast_all(grid, (0.5, 0.5), (1.0, 1.0))
    assert [h.cell for h in hits] == [(2, 1), (1, 2), (3, 3)]
    assert hits[0].distance == hits[1].distance


def test_line_of_sight_end_cells_do_not_block():
    grid = Grid([[1, 0, 1]], outside="solid")
    assert line_of_sight(grid, (0.5, 0.5), (2.5, 0.5))
    assert line_of_sight(grid, (0.5, 0.5), (0.7, 0.5))
    assert not line_of_sight(grid, (-0.5, 0.5), (1.5, 0.5))  # (0, 0) is between


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda g: raycast(g, (0.0, 0.0), (0.0, 0.0)), ValueError, "direction"),
        (lambda g: raycast(g, (math.nan, 0.0), (1.0, 0.0)), ValueError, "origin"),
        (lambda g: raycast(g, (0.0, 0.0), (math.inf, 0.0)), ValueError, "direction"),
        (lambda g: raycast(g, (0.0, 0.0), (1.0, 0.0), -1.0), ValueError, "max_distance"),
        (lambda g: raycast(g, (0.0, 0.0), (1.0, 0.0), math.nan), ValueError, "max_distance"),
        (lambda g: raycast(g, (0.0, 0.0), (1.0, 0.0), "far"), TypeError, "max_distance"),
        (
            lambda g: raycast(g, (0.0, 0.0), (1.0, 0.0), diagonal_gaps="closed"),
            ValueError,
            "diagonal_gaps",
        ),
        (lambda g: raycast(g, (0.0, 0.0), (1.0, 0.0), ignore_start=1), TypeError, "ignore_start"),
        (lambda g: raycast(np.zeros((2, 2)), (0.0, 0.0), (1.0, 0.0)), TypeError, "grid"),
        (lambda g: raycast(g, (0.0, 0.0, 0.0), (1.0, 0.0)), ValueError, "origin"),
        (
            lambda g: raycast_all(g, (0.0, 0.0), (1.0, 0.0), max_results=-1),
            ValueError,
            "max_results",
        ),
        (
            lambda g: raycast_all(g, (0.0, 0.0), (1.0, 0.0), max_results=1.5),
            TypeError,
            "max_results",
        ),
        (lambda g: line_of_sight(g, (0.0, 0.0), (1.0, math.nan)), ValueError, "b"),
        (lambda g: line_of_sight(g, (0.0, 0.0), (1.0, 0.0), diagonal_gaps="x"), ValueError, "gaps"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call(Grid([[0, 1]]))


# ------------------------------------------------- numbers at the edge of float64
def test_tile_coordinates_that_overflow_are_refused_naming_the_argument():
    tiny = Grid(np.zeros((4, 4), dtype=bool), tile_size=1e-300)
    far_origin = Grid(np.zeros((4, 4), dtype=bool), origin=(1e300, 1e300), tile_size=1e-10)
    cases = [
        (lambda: tiny.cell_at((1e308, 0.0)), "point"),
        (lambda: raycast(tiny, (1e308, 0.0), (1.0, 0.0)), "origin"),
        (lambda: raycast_all(tiny, (0.0, 1e308), (1.0, 0.0)), "origin"),
        (lambda: list(traverse(tiny, (1e308, 0.0), (0.0, 0.0))), "start"),
        (lambda: list(traverse(tiny, (0.0, 0.0), (0.0, -1e308))), "end"),
        (lambda: line_of_sight(tiny, (0.0, 0.0), (1e308, 0.0)), "b"),
        (lambda: raycast(far_origin, (0.0, 0.0), (1.0, 1.0)), "origin"),
        (lambda: raycast_many(far_origin, [(0.0, 0.0)], [(1.0, 1.0)]), "origins"),
        (
            lambda: raycast_many(far_origin, [(1e300, 1e300), (0.0, 0.0)], (1.0, 1.0)),
            r"origins\[1\]",
        ),
        (lambda: scan(tiny, (1e308, 0.0, 0.0), [0.0, 1.0], 5.0), "pose"),
        (lambda: scan_many(tiny, [(0.0, 0.0, 0.0), (1e308, 0.0, 0.0)], [0.0], 5.0), r"poses\[1\]"),
    ]
    for call, name in cases:
        with pytest.raises(ValueError, match=name):
            call()


def test_raycast_and_raycast_many_agree_far_beyond_a_solid_outside():
    """A ray starting 1e20 tiles out in a solid outside: its cell does not fit a hit's int64."""
    grid = Grid(np.zeros((4, 4), dtype=bool), outside="solid")
    for origin, direction in [((1e20, 1e20), (-1.0, -1.0)), ((1e20, 2.5), (1.0, 0.0))]:
        with pytest.raises(ValueError, match="origin"):
            raycast(grid, origin, direction)
        with pytest.raises(ValueError, match=r"origins\[1\]"):
            raycast_many(grid, [(0.5, 0.5), origin], [direction, direction])
        with pytest.raises(ValueError, match="origins"):
            raycast_many(grid, origin, direction)
    # Within int64 both answer, alike.
    origin = (-(2.0**62), 2.5)
    hit = raycast(grid, origin, (1.0, 0.0))
    assert hit is not None and hit.inside and hit.cell == (-(2**62), 2)
    assert raycast_many(grid, [origin], [(1.0, 0.0)])[0] == hit
    # And with an empty outside the far ray flies in and hits the map as before.
    open_grid = Grid(np.eye(4, dtype=bool))
    hit = raycast(open_grid, (-1e20, 0.5), (1.0, 0.0))
    assert hit is not None and hit.cell == (0, 0)
    assert raycast_many(open_grid, [(-1e20, 0.5)], [(1.0, 0.0)])[0] == hit


def test_far_segments_whose_float_estimates_cancel_do_not_hang():
    """The exact far walk settles a cell from a float estimate; at 1e150 that estimate is
    off by about 1e134 cells, which it must search out in logarithmic, not linear, time."""
    grid = Grid(np.zeros((5, 9), dtype=bool))
    assert line_of_sight(grid, (2.0**62, 1e150), (1e-300, 1e-300))
    steps = traverse(grid, (2.0**62, 1e150), (1e-300, 1e-300))
    # both coordinates are integers (grid lines) and the segment moves towards -x
    # and -y: it starts in the cell on the negative side of both lines
    assert next(steps).cell == (2**62 - 1, int(1e150) - 1)
    walled = Grid(np.ones((5, 9), dtype=bool))
    assert not line_of_sight(walled, (2.0**62, 1e150), (0.5, 0.5))
    hit = raycast(walled, (0.5, 1e150), (1e-150, -1.0))
    assert hit is not None and hit.cell[1] == 4


def test_segments_longer_than_a_float_name_their_end():
    grid = Grid(np.zeros((4, 4), dtype=bool), outside="solid")
    with pytest.raises(ValueError, match=r"^end:"):
        list(traverse(grid, np.array([8.0, -1e308]), (5.365, 1.7976931348623157e308)))
    with pytest.raises(ValueError, match=r"^b:"):
        line_of_sight(grid, (-1e308, 7), (1e308, -1e308), diagonal_gaps="open")
