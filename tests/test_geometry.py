import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tilecast as tc
from reference.geometry import (
    orientation_reference,
    point_in_polygon_reference,
    segments_meet_reference,
)

coord = st.one_of(
    st.integers(-8, 8).map(float),
    st.integers(-64, 64).map(lambda k: k / 8),
    # orientation is exact while products neither overflow nor underflow (documented)
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False).filter(
        lambda v: v == 0 or abs(v) > 1e-100
    ),
)
point = st.tuples(coord, coord)


def exact_orient(a, b, c):
    a, b, c = ([Fraction(v) for v in q] for q in (a, b, c))
    det = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (det > 0) - (det < 0)


@settings(max_examples=300, deadline=None)
@given(point, point, point)
def test_orientation_is_exact(a, b, c):
    assert tc.orientation(a, b, c) == exact_orient(a, b, c)


def test_orientation_near_degenerate():
    # Shewchuk's classic: points a hair off the line y = x through (12, 12), (24, 24).
    rng = np.random.default_rng(1)
    a = 0.5 + rng.integers(-64, 64, (500, 2)) * 2.0**-53
    b = np.full((500, 2), 12.0)
    c = np.full((500, 2), 24.0)
    got = tc.orientation(a, b, c)
    want = [exact_orient(p, q, r) for p, q, r in zip(a, b, c, strict=True)]
    assert got.tolist() == want
    assert set(want) == {-1, 0, 1}


def test_ray_segment_cases():
    assert tc.ray_segment((0, 0), (2, 0), (4, -1), (4, 1)) == (2.0, 0.5)
    assert tc.ray_segment((0, 0), (1, 0), (4, 1), (5, 1)) is None  # parallel
    assert tc.ray_segment((0, 0), (1, 0), (5, 0), (3, 0)) == (3.0, 1.0)  # collinear, near end
    assert tc.ray_segment((4, 0), (1, 0), (5, 0), (3, 0)) == (0.0, 0.5)  # starts inside
    assert tc.ray_segment((6, 0), (1, 0), (5, 0), (3, 0)) is None  # behind
    assert tc.ray_segment((0, 0), (1, 1), (2, 2), (2, 5)) == (2.0, 0.0)  # touching an end
    t, u = tc.ray_segment(np.zeros((3, 2)), [(1, 0), (0, 1), (-1, 0)], (2, -2), (2, 2))
    assert t[0] == 2.0 and u[0] == 0.5 and np.isnan(t[1:]).all() and np.isnan(u[1:]).all()


@settings(max_examples=200, deadline=None)
@given(point, point, point, point)
def test_segment_segment_against_exact(a, b, c, d):
    hit = tc.segment_segment(a, b, c, d)
    o1, o2 = exact_orient(a, b, c), exact_orient(a, b, d)
    o3, o4 = exact_orient(c, d, a), exact_orient(c, d, b)
    if o1 * o2 < 0 and o3 * o4 < 0:  # proper crossing: must be found
        assert hit is not None
        s, u = hit
        x = a[0] + s * (b[0] - a[0])
        y = a[1] + s * (b[1] - a[1])
        x2 = c[0] + u * (d[0] - c[0])
        y2 = c[1] + u * (d[1] - c[1])
        assert math.isclose(x, x2, rel_tol=1e-6, abs_tol=1e-6)
        assert math.isclose(y, y2, rel_tol=1e-6, abs_tol=1e-6)
    elif (o1 * o2 > 0) or (o3 * o4 > 0):  # strictly apart
        assert hit is None


def test_ray_circle_roots_and_tangent():
    assert tc.ray_circle((0, 0), (1, 0), (5, 0), 1) == (4.0, 6.0)
    assert tc.ray_circle((5, 0), (1, 0), (5, 0), 1) == (-1.0, 1.0)  # from inside
    assert tc.ray_circle((0, 0), (1, 0), (5, 1), 1) == (5.0, 5.0)
    assert tc.ray_circle((0, 0), (1, 0), (5, 1.5), 1) is None
    t0, t1 = tc.ray_circle((0, 0), [(1, 0), (0, 1)], (5, 0), [1.0, 2.0])
    assert t0[0] == 4.0 and t1[0] == 6.0 and np.isnan(t0[1])
    t0, t1 = tc.ray_circle((1e8, 0), (-1, 0), (0, 0), 1)  # far away: no cancellation
    assert t0 == 1e8 - 1 and t1 == 1e8 + 1


@settings(max_examples=200, deadline=None)
@given(point, point, st.floats(0.01, 100))
def test_circle_tangents_are_tangent(p, c, r):
    tangents = tc.circle_tangents(p, c, r)
    d2 = (p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2
    assert len(tangents) == (2 if d2 > r * r else 1 if d2 == r * r else 0)
    scale = max(1.0, math.sqrt(d2))
    for t in tangents:
        assert math.isclose(math.dist(t, c), r, rel_tol=1e-9, abs_tol=1e-9 * scale)
        # radius perpendicular to the line of sight
        dot = (t[0] - c[0]) * (t[0] - p[0]) + (t[1] - c[1]) * (t[1] - p[1])
        assert abs(dot) <= 1e-8 * scale * scale
    if len(tangents) == 2:  # counter-clockwise from p: first, circle, second
        assert exact_orient(p, tangents[0], c) > 0 or d2 > 1e10
        assert exact_orient(p, c, tangents[1]) > 0 or d2 > 1e10


@pytest.mark.parametrize("p", [(3, 0), (-3, 0), (0, 3), (0, -3)])
def test_circle_tangents_on_axes(p):
    t = tc.circle_tangents(p, (0, 0), 1)
    assert t.shape == (2, 2) and np.isfinite(t).all()
    assert np.allclose(np.hypot(*t.T), 1)


def test_point_in_polygon_boundary_rule():
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    pts = [(0, 0), (1, 0), (0, 1), (1, 1), (0.5, 0), (0.5, 1), (0, 0.5), (1, 0.5)]
    assert tc.point_in_polygon(pts, square).tolist() == [
        True, False, False, False, True, False, True, False,
    ]  # fmt: skip
    # the same rule for the clockwise ring and a closed ring
    assert tc.point_in_polygon(pts, [*square[::-1], square[-1]]).tolist() == (
        tc.point_in_polygon(pts, square).tolist()
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 40), st.integers(0, 2**32 - 1))
def test_point_in_polygon_matches_reference(n, seed):
    rng = np.random.default_rng(seed)
    poly = rng.integers(-8, 9, (n, 2)).astype(float) / 2  # self-intersecting, degenerate
    if (poly[0] == poly[-1]).all():
        poly[-1] += 0.5  # a repeated first vertex would mean a closed ring of n - 1
    pts = np.vstack([rng.integers(-9, 10, (80, 2)) / 2, rng.uniform(-5, 5, (40, 2)), poly])
    got = tc.point_in_polygon(pts, poly)
    want = [point_in_polygon_reference(tuple(q), poly) for q in pts]
    assert got.tolist() == want


def test_point_in_polygon_large_star():
    rng = np.random.default_rng(3)
    ang = np.sort(rng.uniform(0, 2 * np.pi, 1000))
    r = rng.uniform(200, 500, 1000)
    poly = np.c_[r * np.cos(ang), r * np.sin(ang)]
    pts = rng.uniform(-500, 500, (3000, 2))
    got = tc.point_in_polygon(pts, poly)
    want = [point_in_polygon_reference(tuple(q), poly) for q in pts[:300]]
    assert got[:300].tolist() == want
    assert got.any() and not got.all()


def test_bad_inputs():
    with pytest.raises(ValueError, match="direction"):
        tc.ray_segment((0, 0), (0, 0), (1, 0), (1, 1))
    with pytest.raises(ValueError, match="direction"):
        tc.ray_circle((0, 0), (0, 0), (1, 0), 1)
    with pytest.raises(ValueError, match="origin"):
        tc.ray_segment((np.nan, 0), (1, 0), (1, 0), (1, 1))
    with pytest.raises(ValueError, match="radius"):
        tc.ray_circle((0, 0), (1, 0), (1, 0), -1)
    with pytest.raises(ValueError, match="radius"):
        tc.circle_tangents((0, 0), (1, 0), 0)
    with pytest.raises(TypeError, match="a"):
        tc.segment_segment("ab", (1, 0), (1, 0), (1, 1))
    with pytest.raises(ValueError, match="polygon"):
        tc.point_in_polygon((0, 0), [(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="points"):
        tc.point_in_polygon([(0, 0, 0)], [(0, 0), (1, 0), (0, 1)])
    with pytest.raises(ValueError, match="a has 2 points"):
        tc.orientation(np.zeros((2, 2)), np.zeros((3, 2)), (0, 0))


# ------------------------------------------------ the whole double range (issue 16)
EXTREME = [
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1e-300,
    -1e-200,
    1e-150,
    0.5,
    1.0,
    -3.0,
    1e150,
    -1e200,
    1e300,
    1e308,
    -1e308,
    1.7976931348623157e308,
]
extreme = st.one_of(
    st.sampled_from(EXTREME), coord, st.floats(allow_nan=False, allow_infinity=False)
)
extreme_point = st.tuples(extreme, extreme)


@settings(max_examples=2000, deadline=None)
@given(extreme_point, extreme_point, extreme_point)
def test_orientation_exact_over_the_whole_double_range(a, b, c):
    assert tc.orientation(a, b, c) == orientation_reference(a, b, c)


@settings(max_examples=500, deadline=None)
@given(extreme_point, extreme_point, extreme_point, extreme_point)
def test_segment_segment_meets_exactly_over_the_whole_double_range(a, b, c, d):
    got = tc.segment_segment(a, b, c, d)
    assert (got is not None) == segments_meet_reference(a, b, c, d)
    if got is not None:
        assert all(0.0 <= v <= 1.0 for v in got)


@settings(max_examples=300, deadline=None)
@given(st.lists(extreme_point, min_size=3, max_size=7), st.lists(extreme_point, max_size=6))
def test_point_in_polygon_exact_over_the_whole_double_range(polygon, extra):
    assume(polygon[0] != polygon[-1])  # else a closed ring of one vertex fewer
    queries = polygon + extra + [(x * 0.5, y) for x, y in polygon]
    got = tc.point_in_polygon(queries, polygon)
    assert got.tolist() == [point_in_polygon_reference(q, polygon) for q in queries]


def test_point_in_polygon_huge_and_tiny_coordinates_do_not_crash():
    # a NaN from an overflowing column computation once became an index (segfault)
    big = [(-1e308, -1e308), (1e308, -1e308), (1e308, 1e308), (-1e308, 1e308)]
    assert tc.point_in_polygon([(0, 0), (5e-324, 0), (1e308, 0)], big).tolist() == [
        True,
        True,
        False,
    ]
    tiny = [(0, 0), (5e-324, 0), (5e-324, 5e-324), (0, 5e-324)]
    assert tc.point_in_polygon((0, 0), tiny) is True
    assert tc.point_in_polygon((5e-324, 0), tiny) is False
    mixed = [(-1e308, 0), (5e-324, -1e-300), (1e308, 1.0), (1.0, 1e308)]
    pts = [(0.0, 0.0), (1e-310, 1e-310), (1.0, 0.5), (-1e300, 1e-300), (1e308, 1e308)]
    assert tc.point_in_polygon(pts, mixed).tolist() == [
        point_in_polygon_reference(p, mixed) for p in pts
    ]


def test_float_primitives_far_beyond_products_range():
    # t = 2 / 5e-324 has no float64 value: refused (it answered t = inf, u = 0.5)
    with pytest.raises(ValueError, match=r"^direction"):
        tc.ray_segment((0, 0), (5e-324, 0), (2, -1), (2, 1))
    assert tc.ray_segment((0, 0), (5e-324, 0), (2e-300, -1), (2e-300, 1))[1] == 0.5
    t, u = tc.ray_segment((0, 0), (1e-300, 0), (1e-290, -1), (1e-290, 1))
    assert math.isclose(t, 1e10) and u == 0.5
    t, u = tc.ray_segment((-1e308, 0), (1e308, 1e-300), (1e308, -1e308), (1e308, 1e308))
    assert math.isclose(t, 2.0) and math.isclose(u, 0.5)
    t0, t1 = tc.ray_circle((-1e308, 0), (1, 0), (0, 0), 1e307)
    assert math.isclose(t0, 0.9e308) and math.isclose(t1, 1.1e308)
    t0, t1 = tc.ray_circle((0, 0), (5e-324, 0), (4e-323, 0), 5e-324)
    assert (t0, t1) == (7.0, 9.0)
    for scale in (5e-324 * 2**20, 1e-300, 1e300):
        got = tc.circle_tangents((2 * scale, 0), (0, 0), scale)
        want = np.array([[0.5, 0.8660254037844386], [0.5, -0.8660254037844386]]) * scale
        assert np.allclose(got, want, rtol=1e-12, atol=0)
    s, u = tc.segment_segment((-1e308, 0), (1e308, 0), (0, -1e308), (0, 1e308))
    assert (s, u) == (0.5, 0.5)


def _ray_parameter_exact(origin, direction, point):
    """The exact ray parameter of a point on the ray's line (along its larger axis)."""
    axis = 0 if abs(direction[0]) >= abs(direction[1]) else 1
    return (Fraction(point[axis]) - Fraction(origin[axis])) / Fraction(direction[axis])


def test_ray_parameters_beyond_the_float_range_name_the_direction():
    """Fuzz geometry 36915 and 34918 (issue 36): these answered t = inf and (-inf, inf).

    The true parameters exceed the largest double, so there is no float64
    answer; the call says so, naming the direction, instead of lying with inf.
    """
    largest = Fraction(np.finfo(np.float64).max)
    # 36915: the ray along +x meets the segment at its end (12, 0), 14 cells on
    origin, direction = (-2.0, 0.0), (5e-324, 0.0)
    assert _ray_parameter_exact(origin, direction, (12.0, 0.0)) > largest
    with pytest.raises(ValueError, match=r"^direction \(5e-324, 0.0\) is too short"):
        tc.ray_segment(origin, direction, (12, 0), (1, -(2**63)))
    # 34918: a vertical ray from inside a circle of radius 2**63
    origin, direction, center, radius = (3.4, 7.770737065792229), (-0.0, 1e-310), (8, 2.7), 2**63
    half_chord_low = Fraction(radius) - Fraction(8) + Fraction(3.4)  # below the true half chord
    assert (half_chord_low - abs(Fraction(7.770737065792229) - Fraction(2.7))) / Fraction(
        1e-310
    ) > largest
    with pytest.raises(ValueError, match=r"^direction \(-0.0, 1e-310\) is too short"):
        tc.ray_circle(origin, direction, center, radius)
    # in an array call, the row is named; rows that fit are not what fails
    with pytest.raises(ValueError, match=r"^direction\[1\] "):
        tc.ray_segment([[0, 0], [-2, 0]], [[1, 0], [5e-324, 0]], (12, 0), (1, -(2**63)))
    # the largest parameters that do fit are still answered, finite
    t, _ = tc.ray_segment((0, 0), (1e-300, 0), (1e8, -1), (1e8, 1))
    assert math.isfinite(t) and math.isclose(t, 1e308)
    t0, t1 = tc.ray_circle((0, 0), (1e-300, 0), (5e7, 0), 1e7)
    assert math.isclose(t0, 4e307) and math.isclose(t1, 6e307)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tc.point_in_polygon([[0, 0], [1]], [(0, 0), (1, 0), (0, 1)]),
        lambda: tc.point_in_polygon((0, 0), [[0, 0], [1, 0], [1]]),
        lambda: tc.orientation([[0, 0], [1]], (0, 0), (1, 1)),
        lambda: tc.segment_segment((0, 0), (1, 1), [[0, 0], [1]], (1, 1)),
    ],
)
def test_ragged_input_names_the_argument(call):
    with pytest.raises(ValueError, match=r"^(points|polygon|a|c) "):
        call()


def test_collinear_overlap_decided_on_the_points_given():
    # scaling the points first once lost 5e-324 next to 1.0
    assert tc.segment_segment((0, 0), (0, 0), (5e-324, 0), (1, 0)) is None
    assert tc.segment_segment((0, 0), (0, 5e-324), (0, 0), (0, 1)) == (0.0, 0.0)
    assert tc.segment_segment((0, 1), (0, 5e-324), (0, 0), (0, 1e-323)) == (1.0, 1.0)
    assert tc.segment_segment((-1e308, 0), (1e308, 0), (0, 0), (1e308, 0)) == (0.5, 0.0)
    assert tc.segment_segment((0, -7709741012372704.0), (0, -1), (0, 0), (0, 0)) is None
