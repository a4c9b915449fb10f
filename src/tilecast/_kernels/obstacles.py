"""Moving things in scans: circles and oriented boxes met by a scan's beams (Numba).

A scan first casts its beams at the map's walls (the lanes of
:mod:`tilecast._kernels.lanes`, with the wall's cell, normal and ``inside``
kept); :func:`clip_beams` then meets each beam with the circles and boxes of
its map and keeps whichever comes first. Every decision is exact
(:mod:`tilecast._kernels.shapes`): which shape a beam meets first, whether it
starts inside one, and whether that shape comes before the wall. The wall's
contact is the walk's own: the grid line ``X`` it crossed, at parameter
``(X - u0) / du`` of the tile-space ray (:func:`~tilecast._kernels.walk.start_ray`),
the same ray parameter ``t`` that the shapes' contacts have on the world ray
``p + t * d`` (``d`` the beam's direction, scaled as the walk scales it).
A tie goes to the wall. A beam that starts inside a shape reads 0; the
range of a shape's contact is ``t * |d|``, within ``1e-13`` (relative) of
the exact one, typically an ulp or two, and never beyond ``max_range`` (a
farther contact reads ``max_range``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tilecast._kernels import internal
from tilecast._kernels.beams import sincos
from tilecast._kernels.shapes import (
    MISS,
    ROOT,
    ZERO,
    axis_contact,
    contact_normal,
    contact_order,
    ex_add,
    ex_diff,
    ex_dot,
    ex_mul,
    ex_value,
    miss,
    quadratic,
    rational,
    ray_circle,
    ray_polygon,
    zero,
)
from tilecast._kernels.walk import start_ray
from tilecast._walkspec import Shapes

# Shapes a beam clearly misses are skipped before the exact test: per pose,
# each shape's bounding circle is seen under a sector of directions, and a
# beam whose angle lies outside it by more than _SLACK radians (far more than
# the error of the heading theta + angle, of the sector's angles and of the
# direction the scan casts, all a few 1e-16 relative) cannot meet the shape.
# Shapes around the origin, huge headings and angles are always tested; a
# shape whose bounding circle lies wholly beyond max_range (by a relative
# 1e-6, far more than the error of its distance) changes no reading: never.
# Where the angles increase (as a lidar's do), each shape's sector is turned
# into the run of beams it covers (binary searches), so that a pose costs
# one pass over its shapes and its candidate beams, not beams x shapes tests.
_SLACK = 1e-7
_HUGE_HEADING = 1e6
_ALWAYS = 10.0  # a sector half-width that never culls
_NEVER = -1.0  # a free slot (NaN row), or wholly beyond max_range: always culled
_TWO_PI = 2.0 * math.pi
_BEYOND = 1.0 + 1e-6  # relative margin of "wholly beyond max_range"


@internal(inline="always")
def _wrap(d):
    """``d`` in (-pi, pi] for ``abs(d) < 5 pi`` (two corrections, no division)."""
    d = d - _TWO_PI if d > math.pi else (d + _TWO_PI if d <= -math.pi else d)
    return d - _TWO_PI if d > math.pi else (d + _TWO_PI if d <= -math.pi else d)


@internal(inline="always")
def _sector(px, py, theta, cx, cy, r, limit):
    """(direction - theta, half width) of the bounding circle (c, r) seen from p.

    ``limit``: the farthest contact that can change a reading (``max_range``;
    ``inf`` for none).
    """
    if cx != cx:
        return 0.0, _NEVER
    fx, fy = cx - px, cy - py
    dist = math.sqrt(fx * fx + fy * fy)
    if dist - r > limit * _BEYOND:  # the whole circle beyond the range
        return 0.0, _NEVER
    if dist <= r * (1.0 + 1e-6) + 1e-300 or not abs(theta) < _HUGE_HEADING:
        return 0.0, _ALWAYS
    turns = theta - _TWO_PI * math.floor(theta / _TWO_PI)  # in [0, 2 pi), error ~1e-10 at most
    return _wrap(math.atan2(fy, fx) - turns), math.asin(r / dist)


@internal
def _sectors(px, py, theta, shapes, b, sectors, limit):
    """Fill ``sectors`` (K + L, 2) for map ``b``'s circles, then boxes; return how many
    shapes may be met at all (neither free slots nor wholly beyond ``limit``)."""
    circles, corners = shapes.circles, shapes.corners
    n_circles = circles.shape[1]
    live = 0
    for q in range(n_circles):
        direction, half = _sector(px, py, theta, circles[b, q, 0], circles[b, q, 1],
                                  circles[b, q, 2], limit)  # fmt: skip
        sectors[q, 0] = direction
        sectors[q, 1] = half
        live += half != _NEVER
    for q in range(corners.shape[1]):
        box = corners[b, q]
        cx = 0.25 * (box[0, 0] + box[1, 0] + box[2, 0] + box[3, 0])
        cy = 0.25 * (box[0, 1] + box[1, 1] + box[2, 1] + box[3, 1])
        r = 0.0
        for v in range(4):
            r = max(r, math.sqrt((box[v, 0] - cx) ** 2 + (box[v, 1] - cy) ** 2))
        direction, half = _sector(px, py, theta, cx, cy, r * (1.0 + 1e-6), limit)
        sectors[n_circles + q, 0] = direction
        sectors[n_circles + q, 1] = half
        live += half != _NEVER
    return live


@internal(inline="always")
def _outside(angle, sector):
    """True when a beam at ``angle`` (from the pose's theta) lies clearly outside ``sector``."""
    if sector[1] >= _ALWAYS or not abs(angle) < 2.0 * _TWO_PI:
        return sector[1] == _NEVER
    return abs(_wrap(angle - sector[0])) > sector[1] + _SLACK


@internal(inline="always")
def _any_shape(angle, sectors):
    """Whether a beam at ``angle`` may meet any shape (else it needs no exact test)."""
    for q in range(sectors.shape[0]):
        if not _outside(angle, sectors[q]):
            return True
    return False


@internal
def _runs_apply(angles):
    """Whether the beams' candidates can be found as runs: angles increasing, within 4 pi."""
    n = angles.shape[0]
    if n == 0 or not (abs(angles[0]) < 2.0 * _TWO_PI and abs(angles[n - 1]) < 2.0 * _TWO_PI):
        return False
    for k in range(1, n):
        if not angles[k - 1] <= angles[k]:
            return False
    return True


@internal
def _mark(angles, first, end, sectors, runs, maybe):
    """Set ``maybe[beam]`` for beams ``first .. end - 1`` that may meet a shape.

    With ``runs`` (:func:`_runs_apply`), each sector's beams are found by
    binary search: those whose angle lies in ``direction +- (half + 2 _SLACK)``
    plus a multiple of 2 pi (wider than :func:`_outside`'s test, so no beam
    it keeps is left out); else each beam is tested against every sector.
    """
    if not runs:
        for beam in range(first, end):
            maybe[beam] = _any_shape(angles[beam], sectors)
        return
    low, high = angles[first], angles[end - 1]
    for q in range(sectors.shape[0]):
        half = sectors[q, 1]
        if half == _NEVER:
            continue
        if half >= _ALWAYS:
            for beam in range(first, end):
                maybe[beam] = True
            return
        width = half + 2.0 * _SLACK
        centre = sectors[q, 0]
        turn = math.floor((low - centre - width) / _TWO_PI)
        if centre + turn * _TWO_PI + width < low:
            turn += 1  # that turn's run ends before the first angle
        while True:
            a = centre + turn * _TWO_PI
            if a - width > high:
                break
            lo = max(first, np.searchsorted(angles, a - width, side="left"))
            hi = min(end, np.searchsorted(angles, a + width, side="right"))
            for beam in range(lo, hi):
                maybe[beam] = True
            turn += 1


@internal(inline="always")
def _first_shape(ray, shapes, b, angle, sectors):
    """The first contact of ``ray`` with the circles and boxes of map ``b`` (exact), and
    which shape it is (circles first, then boxes; -1 for none). A tie goes to the lower."""
    circles, corners = shapes.circles, shapes.corners
    n_circles = circles.shape[1]
    best = miss()
    which = -1
    for q in range(n_circles):
        cx = circles[b, q, 0]
        if cx != cx or _outside(angle, sectors[q]):  # a NaN row: no circle
            continue
        c = ray_circle(ray, cx, circles[b, q, 1], circles[b, q, 2])
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
            which = q
            if c.kind == ZERO:
                return best, which
    for q in range(corners.shape[1]):
        if corners[b, q, 0, 0] != corners[b, q, 0, 0] or _outside(angle, sectors[n_circles + q]):
            continue
        c = ray_polygon(ray, corners[b, q])
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
            which = n_circles + q
            if c.kind == ZERO:
                return best, which
    return best, which


@internal
def _rounded(e):
    """An expansion's value rounded to a double (its components added smallest first)."""
    total = 0.0
    for k in range(e.shape[0]):
        total += e[k]
    return total


# A float contact parameter whose proven error bound is below this (relative)
# is reported as it is (its true error is an ulp or two; the bound is loose).
_CLOSE_ENOUGH = 1e-13


@internal
def _accurate_t(ray, c):
    """The contact's parameter within a few ulps, even where its float estimate is not.

    Near a tangent (circles) or a grazing edge (boxes) the float ``t`` of a
    contact can be off by far more than an ulp (its ``err`` says how far);
    where that bound exceeds ``1e-13`` of ``t``, ``t`` is worked out again
    from the exact expansions of its terms, each rounded once:
    ``c / (-b + sqrt(disc))`` for a circle, ``num / den`` for an edge.
    """
    if c.err <= _CLOSE_ENOUGH * abs(c.t):
        return c.t
    if c.kind == ROOT:
        _, b, disc = quadratic(ray, c)
        px, py = ray[0], ray[1]
        fx, fy = ex_diff(px, c.g0), ex_diff(py, c.g1)
        rr = ex_value(c.g2)
        cc = ex_add(ex_dot(fx, fy, fx, fy), ex_mul(rr, rr), -1)
        return _rounded(cc) / (-_rounded(b) + math.sqrt(max(_rounded(disc), 0.0)))
    num, den = rational(ray, c)
    return _rounded(num) / _rounded(den)


@internal(inline="always")
def _wall_contact(k, normal, cell, inside, ray, u0, v0, du, dv):
    """The exact contact of the wall that ray ``k`` hit (its cell and normal), or a miss.

    A miss has normal ``(0, 0)`` and is not ``inside`` (a hit has a normal,
    or is inside). A hit on a column line (normal ``(+-1, 0)``) is on the
    line that bounds its cell on the ray's side, likewise a row line. At a
    corner (a diagonal normal) both lines meet at the contact, but the cell
    may be either shoulder or the diagonal cell (``diagonal_gaps``), and only
    one of the two lines beside it need be the corner's: the other is a line
    the ray crossed earlier, so the later of the two is the contact.
    """
    if inside[k]:
        return zero()
    nx, ny = normal[k, 0], normal[k, 1]
    if nx == 0.0 and ny == 0.0:
        return miss()
    if ny == 0.0:  # a column line (du != 0: the ray crossed it)
        return axis_contact(float(cell[k, 0] + (1 if du < 0.0 else 0)), u0, du, 0)
    row = axis_contact(float(cell[k, 1] + (1 if dv < 0.0 else 0)), v0, dv, 1)
    if nx == 0.0:
        return row
    column = axis_contact(float(cell[k, 0] + (1 if du < 0.0 else 0)), u0, du, 0)
    return row if contact_order(ray, row, column) > 0 else column


@njit(cache=True, nogil=True)
def clip_beams(lo, hi, poses, angles, numbers, circles, corners, poses_per_map, distance, normal,
               cell, inside):  # fmt: skip
    """Beams ``lo .. hi - 1`` of a scan: stop each at its first shape when that comes first.

    The scan: ``poses`` (P, 3) and ``angles`` (as a
    :class:`~tilecast._walkspec.Beams`); ``numbers``: ``(max_range, origin x,
    origin y, cell width, cell height)`` of the scan and the maps' geometry;
    the shapes: ``circles``, ``corners`` and ``poses_per_map`` (a
    :class:`~tilecast._walkspec.Shapes`); the walls' first hits per beam:
    ``distance`` (already at most ``max_range``), overwritten where a shape
    comes first, and ``normal``, ``cell``, ``inside``. Plain arrays, not
    records: a call's cost is mostly Numba reading its arguments' types,
    several times more for a record than for its arrays one by one.
    """
    if hi <= lo:
        return
    max_range, ox, oy, w, h = numbers[0], numbers[1], numbers[2], numbers[3], numbers[4]
    shapes = Shapes(circles, corners, poses_per_map)
    n_beams = angles.shape[0]
    sectors = np.empty((circles.shape[1] + corners.shape[1], 2))
    maybe = np.zeros(n_beams, dtype=np.bool_)
    runs = _runs_apply(angles)
    for p in range(lo // n_beams, (hi - 1) // n_beams + 1):
        base = p * n_beams
        first, end = max(lo, base) - base, min(hi, base + n_beams) - base
        b = p // poses_per_map
        x0, y0, theta = poses[p, 0], poses[p, 1], poses[p, 2]
        if _sectors(x0, y0, theta, shapes, b, sectors, max_range) == 0:
            continue
        _mark(angles, first, end, sectors, runs, maybe)
        for beam in range(first, end):
            if not maybe[beam]:
                continue
            maybe[beam] = False
            k = base + beam
            angle = angles[beam]
            sine, cosine = sincos(theta + angle)
            _, u0, v0, du, dv, dx, dy, norm = start_ray(ox, oy, w, h, x0, y0, cosine, sine)
            ray = (x0, y0, dx, dy)
            first_shape, _ = _first_shape(ray, shapes, b, angle, sectors)
            if first_shape.kind == MISS:
                continue
            if first_shape.kind == ZERO:
                distance[k] = 0.0
                continue
            wall = _wall_contact(k, normal, cell, inside, ray, u0, v0, du, dv)
            if contact_order(ray, first_shape, wall) < 0:
                distance[k] = min(_accurate_t(ray, first_shape) * norm, max_range)


@njit(cache=True, nogil=True)
def clip_rays(lo, hi, rays, shapes, walls, m, body):
    """Rays ``lo .. hi - 1`` of a batch: their first contact when a shape comes first.

    ``rays``: the batch's :class:`~tilecast._walkspec.RayBatch` (ray k on map
    ``k // shapes.poses_per_map``); ``walls``: its
    :class:`~tilecast._walkspec.FirstHits` from the walk (every output),
    overwritten where a shape comes first (distance, point, the shape's
    normal, cell ``(-1, -1)``, inside), with ``body[k]`` the shape's row
    (circles, then boxes). A ray starting inside a shape hits it at distance
    0 (``inside``); a shape met first beyond the ray's ``max_distance``
    leaves the ray a miss. A tie with a wall goes to the wall.
    """
    origins, directions, stride = rays.origins, rays.directions, rays.origin_stride
    limits = rays.max_distances
    every = np.empty((shapes.circles.shape[1] + shapes.corners.shape[1], 2))
    every[:, 1] = _ALWAYS  # no culling by angle: each ray has its own direction
    for k in range(lo, hi):
        o = k // stride
        d = 0 if directions.shape[0] == 1 else k
        limit = limits[0 if limits.shape[0] == 1 else k]
        x0, y0 = origins[o, 0], origins[o, 1]
        _, u0, v0, du, dv, dx, dy, norm = start_ray(
            m.origin_x, m.origin_y, m.cell_width, m.cell_height, x0, y0, directions[d, 0],
            directions[d, 1],
        )  # fmt: skip
        ray = (x0, y0, dx, dy)
        first, which = _first_shape(ray, shapes, k // shapes.poses_per_map, 0.0, every)
        if first.kind == MISS:
            continue
        wall = _wall_contact(k, walls.normal, walls.cell, walls.inside, ray, u0, v0, du, dv)
        if contact_order(ray, first, wall) >= 0:
            continue  # the wall first, or a tie (starting inside both, say)
        t = _accurate_t(ray, first)
        if t * norm > limit:  # the first thing on the ray lies beyond its range
            walls.distance[k] = np.inf
            walls.point[k, 0], walls.point[k, 1] = np.nan, np.nan
            walls.normal[k, 0], walls.normal[k, 1] = 0.0, 0.0
            walls.cell[k, 0], walls.cell[k, 1] = -1, -1
            walls.inside[k] = False
            continue
        nx, ny = contact_normal(ray, first)
        walls.distance[k] = t * norm
        walls.point[k, 0] = x0 + t * dx if first.kind != ZERO else x0
        walls.point[k, 1] = y0 + t * dy if first.kind != ZERO else y0
        walls.normal[k, 0], walls.normal[k, 1] = nx, ny
        walls.cell[k, 0], walls.cell[k, 1] = -1, -1
        walls.inside[k] = first.kind == ZERO
        body[k] = which
