"""SpatialHash against brute force over all objects (exact oracles for rect/circle queries)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cmp_to_key

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.bodies import ray_shape
from tilecast import RayContact, SpatialHash

F = Fraction


# ------------------------------------------------------------------ oracles
def seg_meets_rect(seg, rect) -> bool:
    (ax, ay), (bx, by) = seg
    lo, hi = (F(rect[0]), F(rect[1])), (F(rect[2]), F(rect[3]))
    a, d = (F(ax), F(ay)), (F(bx) - F(ax), F(by) - F(ay))
    t0, t1 = F(0), F(1)
    for k in range(2):
        if d[k] == 0:
            if not lo[k] <= a[k] <= hi[k]:
                return False
            continue
        ta, tb = (lo[k] - a[k]) / d[k], (hi[k] - a[k]) / d[k]
        t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
    return t0 <= t1


def circle_meets_rect(center, r, rect) -> bool:
    fx, fy = F(center[0]), F(center[1])
    gx = max(F(rect[0]) - fx, fx - F(rect[2]), F(0))
    gy = max(F(rect[1]) - fy, fy - F(rect[3]), F(0))
    return gx * gx + gy * gy <= F(r) ** 2


def seg_meets_circle(seg, center, r) -> bool:
    (ax, ay), (bx, by) = seg
    ex, ey = F(bx) - F(ax), F(by) - F(ay)
    fx, fy = F(center[0]) - F(ax), F(center[1]) - F(ay)
    ee = ex * ex + ey * ey
    t = F(0) if ee == 0 else min(max((fx * ex + fy * ey) / ee, F(0)), F(1))
    qx, qy = fx - t * ex, fy - t * ey
    return qx * qx + qy * qy <= F(r) ** 2


def meets_rect(shape, rect) -> bool:
    kind, g = shape
    if kind == "box":
        return g[0] <= rect[2] and g[2] >= rect[0] and g[1] <= rect[3] and g[3] >= rect[1]
    if kind == "segment":
        return seg_meets_rect(g, rect)
    return circle_meets_rect(g[0], g[1], rect)


def meets_circle(shape, center, r) -> bool:
    kind, g = shape
    if kind == "box":
        return circle_meets_rect(center, r, g)
    if kind == "segment":
        return seg_meets_circle(g, center, r)
    dx, dy = F(g[0][0]) - F(center[0]), F(g[0][1]) - F(center[1])
    return dx * dx + dy * dy <= (F(g[1]) + F(r)) ** 2


def brute_ray(objects, origin, direction, max_distance):
    """Every object the ray meets within max_distance, by the exact oracle
    (reference.bodies, Fraction arithmetic): ids in exact contact order (exact
    ties by id) with their distances as floats."""
    norm = math.hypot(*direction)
    found = []
    for obj_id in sorted(objects):
        t = ray_shape(origin, direction, *objects[obj_id])
        if t is not None and t.times(norm) <= max_distance:
            found.append((obj_id, t))
    found.sort(key=cmp_to_key(lambda x, y: x[1].compare(y[1]) or (x[0] - y[0])))
    return [(obj_id, t.times(norm)) for obj_id, t in found]


def same_contacts(got, expected):
    """Same ids in the same order; distances within a few ulps (relative 1e-12)."""
    return [k for k, _ in got] == [k for k, _ in expected] and all(
        math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
        for (_, a), (_, b) in zip(got, expected, strict=True)
    )


# --------------------------------------------------------------- strategies
coord = st.one_of(
    st.integers(-12, 12).map(float),
    st.floats(-12, 12),
    st.sampled_from([0.1, 0.3, -0.7, 2.5, 1e-300]),
)


@st.composite
def shapes(draw):
    kind = draw(st.sampled_from(["box", "segment", "circle"]))
    if kind == "box":
        xs = sorted([draw(coord), draw(coord)])
        ys = sorted([draw(coord), draw(coord)])
        return ("box", (xs[0], ys[0], xs[1], ys[1]))
    if kind == "segment":
        return ("segment", ((draw(coord), draw(coord)), (draw(coord), draw(coord))))
    r = draw(st.one_of(st.sampled_from([0.0, 1.0, 2.5]), st.floats(0, 5)))
    return ("circle", ((draw(coord), draw(coord)), r))


@st.composite
def worlds(draw):
    """A hash after a random history of inserts, moves and removes, plus its brute-force copy."""
    size = draw(st.sampled_from([1.0, 0.5, 3.0, 0.7, (2.0, 0.5)]))
    origin = draw(st.sampled_from([(0.0, 0.0), (-0.3, 1.7)]))
    world = SpatialHash(size, origin=origin)
    objects = {}
    for _ in range(draw(st.integers(0, 25))):
        action = draw(st.sampled_from(["insert", "insert", "move", "remove"]))
        if action == "insert" or not objects:
            obj_id = draw(st.integers(0, 40).filter(lambda k: k not in objects))
            shape = draw(shapes())
            world.insert(obj_id, **{shape[0]: shape[1]})
            objects[obj_id] = shape
        elif action == "move":
            obj_id = draw(st.sampled_from(sorted(objects)))
            shape = draw(shapes())
            world.move(obj_id, **{shape[0]: shape[1]})
            objects[obj_id] = shape
        else:
            obj_id = draw(st.sampled_from(sorted(objects)))
            world.remove(obj_id)
            del objects[obj_id]
    return world, objects


# -------------------------------------------------------------------- tests
@settings(max_examples=80, deadline=None)
@given(worlds(), st.lists(st.tuples(coord, coord, coord, coord), min_size=1, max_size=4))
def test_query_rect_matches_brute_force(world_objects, rects):
    world, objects = world_objects
    assert len(world) == len(objects)
    for x0, y0, x1, y1 in rects:
        rect = (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
        expected = sorted(k for k, s in objects.items() if meets_rect(s, rect))
        got = world.query_rect(rect)
        assert got.dtype == np.int64
        assert got.tolist() == expected


@settings(max_examples=80, deadline=None)
@given(
    worlds(),
    st.lists(st.tuples(coord, coord, st.floats(0, 6) | st.just(0.0)), min_size=1, max_size=4),
)
def test_query_circle_matches_brute_force(world_objects, circles):
    world, objects = world_objects
    for cx, cy, r in circles:
        expected = sorted(k for k, s in objects.items() if meets_circle(s, (cx, cy), r))
        assert world.query_circle((cx, cy), r).tolist() == expected


@settings(max_examples=80, deadline=None)
@given(
    worlds(),
    st.tuples(coord, coord),
    st.tuples(coord, coord).filter(lambda d: d != (0.0, 0.0)),
    st.sampled_from([math.inf, 5.0, 0.0, 13.0]),
)
def test_query_ray_matches_brute_force(world_objects, origin, direction, max_distance):
    """Hypothesis found the brute force wrong, not the hash: circle r=1 at the origin, ray
    from (2, 0) along (-2.3445384918333926e-159, 0) meets it at exactly 1.0. (The brute
    force is now the exact oracle: a float one also took a point 6.9e-255 outside a
    circle for inside.)"""
    world, objects = world_objects
    got = list(world.query_ray(origin, direction, max_distance))
    expected = brute_ray(objects, origin, direction, max_distance)
    assert all(isinstance(c, RayContact) for c in got)
    assert same_contacts([(c.id, c.distance) for c in got], expected)
    assert all(c.distance <= max_distance for c in got)
    assert len({c.id for c in got}) == len(got)  # each object once


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from([1.0, 0.75, 2.0**-3]),
    st.sampled_from([0.0, 2.0**20, 3.0e7, -(2.0**33)]),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1e-17, -1e-17, 3e-12, -3e-12, 2.0**-40]),
    st.sampled_from([1.0, -1.0]),
    st.lists(st.tuples(st.integers(-4, 40), st.integers(-3, 3), st.sampled_from([0, 1, 2])),
             min_size=1, max_size=12),
)  # fmt: skip
def test_query_ray_along_hash_lines_far_from_the_origin(size, base, row, slope, sense, placed):
    """Rays nearly along a line of hash cells, where the walked segment (the ray's
    ends rounded) and the ray may pass on either side of the line: objects just
    either side of it, or on it, are all found, in order (the brute force)."""
    world, objects = SpatialHash(size), {}
    line_y = row * size
    for k, (col, side, kind) in enumerate(placed):
        x = base + col * size
        y = line_y + side * 2.0**-30 * size  # just above, on, or just below the line
        if kind == 0:
            objects[k] = ("box", (x, min(y, line_y), x + size / 3, max(y, line_y)))
            world.insert(k, box=objects[k][1])
        elif kind == 1:
            objects[k] = ("circle", ((x, y), size / 5))
            world.insert(k, circle=objects[k][1])
        else:
            objects[k] = ("segment", ((x, y), (x + size, y)))
            world.insert(k, segment=objects[k][1])
    origin = (base - 2 * size if sense > 0 else base + 42 * size, line_y)
    direction = (sense, slope)
    got = [(c.id, c.distance) for c in world.query_ray(origin, direction)]
    assert same_contacts(got, brute_ray(objects, origin, direction, math.inf))


def test_ray_is_lazy_and_ordered():
    world = SpatialHash(1.0)
    for k in range(1000):
        world.insert(k, box=(k + 0.5, -0.5, k + 0.75, 0.5))
    rays = world.query_ray((-10.0, 0.0), (1.0, 0.0))
    first = next(rays)
    assert first == RayContact(0, 10.5, (0.5, 0.0))
    assert [c.id for c in itertools.islice(rays, 3)] == [1, 2, 3]
    # backwards: the nearest first again
    back = next(world.query_ray((2000.0, 0.0), (-3.0, 0.0)))
    assert back.id == 999 and back.distance == 2000.0 - 999.75


def test_touching_and_known_contacts():
    world = SpatialHash(2.0, origin=(-1.0, -1.0))
    world.insert(1, box=(3.0, 4.0, 6.0, 6.0))
    world.insert(2, segment=((5.0, 0.0), (5.0, -3.0)))
    world.insert(3, circle=((-8.0, 0.0), 3.0))
    # box corner (3, 4), segment end (5, 0) and circle 3 (8 = 5 + 3) all just touch
    assert world.query_circle((0.0, 0.0), 5.0).tolist() == [1, 2, 3]
    assert world.query_circle((0.0, 0.0), 4.999999).tolist() == []
    assert world.query_rect((-5.0, -10.0, 5.0, 0.0)).tolist() == [2, 3]  # both just touch
    contact = next(world.query_ray((0.0, -1.0), (1.0, 0.0)))
    assert contact == RayContact(2, 5.0, (5.0, -1.0))
    # collinear segment: first contact at its nearer end
    world.insert(4, segment=((1.0, -1.0), (2.0, -1.0)))
    assert next(world.query_ray((0.0, -1.0), (1.0, 0.0))).distance == 1.0
    # origin inside an object: distance 0
    assert next(world.query_ray((-8.0, 1.0), (0.0, 1.0))) == RayContact(3, 0.0, (-8.0, 1.0))


def test_move_touches_only_changed_buckets():
    world = SpatialHash(1.0)
    world.insert(0, box=(0.0, 0.0, 0.5, 0.5))
    world.insert(1, box=(0.1, 0.1, 0.2, 0.2))
    before = {k: set(v) for k, v in world._buckets.items()}
    world.move(0, box=(0.1, 0.1, 0.6, 0.6))  # same cell: buckets unchanged
    assert {k: set(v) for k, v in world._buckets.items()} == before
    world.move(0, box=(0.5, 0.0, 1.5, 0.5))  # now also in cell (1, 0)
    assert set(world._buckets) == {(0, 0), (1, 0)}
    world.move(0, box=(5.5, 5.5, 5.6, 5.6))
    assert world._buckets[(0, 0)] == {world._slot_of[1]}
    world.remove(1)
    assert set(world._buckets) == {(5, 5)}


def test_large_far_coordinates():
    world = SpatialHash(1.0)
    world.insert(1, segment=((1e15, 0.0), (1e15 + 8.0, 3.0)))
    world.insert(2, box=(-1e300, -1.0, -1e299, 1.0))
    assert world.query_rect((1e15 + 4.0, 0.0, 1e15 + 4.0, 3.0)).tolist() == [1]
    assert world.query_circle((-5e299, 0.0), 1.0).tolist() == [2]


def test_bad_input():
    world = SpatialHash(1.0)
    world.insert(1, box=(0, 0, 1, 1))
    with pytest.raises(ValueError, match="cell_size"):
        SpatialHash(0.0)
    with pytest.raises(ValueError, match="cell_size"):
        SpatialHash(math.nan)
    with pytest.raises(ValueError, match="already"):
        world.insert(1, box=(0, 0, 1, 1))
    with pytest.raises(ValueError, match="exactly one"):
        world.insert(2, box=(0, 0, 1, 1), circle=((0, 0), 1))
    with pytest.raises(ValueError, match="exactly one"):
        world.insert(2)
    with pytest.raises(ValueError, match="box"):
        world.insert(2, box=(1, 0, 0, 1))  # inverted
    with pytest.raises(ValueError, match="radius"):
        world.insert(2, circle=((0, 0), -1.0))
    with pytest.raises(ValueError, match="segment"):
        world.insert(2, segment=((0, 0), (math.nan, 1)))
    with pytest.raises(TypeError, match="obj_id"):
        world.insert("a", box=(0, 0, 1, 1))
    with pytest.raises(ValueError, match="obj_id"):
        world.insert(-1, box=(0, 0, 1, 1))
    with pytest.raises(KeyError, match="obj_id"):
        world.remove(99)
    with pytest.raises(KeyError, match="obj_id"):
        world.move(99, box=(0, 0, 1, 1))
    with pytest.raises(ValueError, match="rect"):
        world.query_rect((0, 1, 1, 0))
    with pytest.raises(ValueError, match="radius"):
        world.query_circle((0, 0), -1.0)
    with pytest.raises(ValueError, match="center"):
        world.query_circle((math.inf, 0), 1.0)
    with pytest.raises(ValueError, match="direction"):
        world.query_ray((0, 0), (0.0, 0.0))
    with pytest.raises(ValueError, match="max_distance"):
        world.query_ray((0, 0), (1.0, 0.0), -1.0)
    assert len(world) == 1 and 1 in world and 2 not in world


# ------------------------------------------------------- numeric range (issue 16)
@pytest.mark.parametrize("scale", [5e-324, 1e-300, 2.0**-600, 1.0, 1e300, 1e308])
def test_query_ray_any_nonzero_direction(scale):
    world = SpatialHash(1.0)
    world.insert(1, box=(3.0, -1.0, 4.0, 1.0))
    world.insert(2, circle=((10.0, 0.0), 1.0))
    world.insert(3, segment=((6.0, 6.0), (6.0, -6.0)))
    got = [(c.id, c.distance, c.point) for c in world.query_ray((0.0, 0.0), (scale, 0.0))]
    assert [c[0] for c in got] == [1, 3, 2]
    for (_, distance, point), want in zip(got, (3.0, 6.0, 9.0), strict=True):
        assert math.isclose(distance, want, rel_tol=1e-15)
        assert math.isclose(point[0], want, rel_tol=1e-15) and point[1] == 0.0
    down = [c.id for c in world.query_ray((6.0, 20.0), (0.0, -scale))]
    assert down == [3]


def test_rays_among_huge_and_tiny_coordinates():
    world = SpatialHash(1.0)
    world.insert(1, box=(-1e300, -1.0, -1e299, 1.0))
    world.insert(2, circle=((1e300, 0.0), 1e299))
    world.insert(3, segment=((1e308, -1e308), (1e308, 1e308)))
    got = [(c.id, c.distance) for c in world.query_ray((0.0, 0.0), (1.0, 0.0))]
    assert [k for k, _ in got] == [2, 3]
    assert math.isclose(got[0][1], 9e299) and math.isclose(got[1][1], 1e308)
    got = [(c.id, c.distance) for c in world.query_ray((1e308, 0.0), (-5e-324, 0.0))]
    assert [k for k, _ in got] == [3, 2, 1]
    assert got[0][1] == 0.0 and math.isclose(got[1][1], 1e308 - 1.1e300, rel_tol=1e-15)
    assert math.isclose(got[2][1], 1e308 + 1e299)
    # a contact farther than the largest double cannot be expressed: not reported
    world.insert(4, box=(-1.7e308, -1.0, -1.6e308, 1.0))
    assert 4 not in [c.id for c in world.query_ray((1e308, 0.0), (-1.0, 0.0))]
    far = SpatialHash(1.0)
    far.insert(1, circle=((1e3, 0.0), 1e2))
    assert [c.distance for c in far.query_ray((1e11, 0.0), (-1.0, 0.0))] == [1e11 - 1.1e3]
    tiny = SpatialHash(1e-300, origin=(1e300, 0.0))
    tiny.insert(1, box=(0.0, 0.0, 1.0, 1.0))
    assert [c.id for c in tiny.query_ray((-5.0, 0.5), (1.0, 0.0))] == [1]


def test_tiny_directions_meet_a_circle_exactly():
    world = SpatialHash(1.0)
    world.insert(3, circle=((0.0, 0.0), 1.0))
    objects = {3: ("circle", ((0.0, 0.0), 1.0))}
    for direction in [(-2.3445384918333926e-159, 0.0), (-1.0, 0.0), (-5e-324, 0.0)]:
        got = [(c.id, c.distance) for c in world.query_ray((2.0, 0.0), direction)]
        assert got == [(3, 1.0)] == brute_ray(objects, (2.0, 0.0), direction, math.inf)


def test_a_ray_from_near_the_float_limit_is_answered_not_refused():
    """Fuzz spatial_hash 36268 (seed 1374247083, issue 36): a ray from y = 1.8e308
    whose parameter in hash cells overflows on its way to the stored objects made
    the cell walk floor a NaN (an unnamed ValueError). Each object is now tested
    directly; the box below the origin is found, the one off the ray is not."""
    world = SpatialHash(12)
    world.insert(1, box=(0, 0, 1, 1))
    world.insert(2, box=(7, 0, 9, 1))
    contacts = list(world.query_ray((8, 1.7976931348623157e308), (0, -5e-324)))
    assert [c.id for c in contacts] == [2]
    assert math.isfinite(contacts[0].distance) and contacts[0].distance > 1.7e308
