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

from tilecast._kernels.beams import sincos
from tilecast._kernels.shapes import (
    MISS,
    ROOT,
    ZERO,
    axis_contact,
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

# Shapes a beam clearly misses are skipped before the exact test: per pose,
# each shape's bounding circle is seen under a sector of directions, and a
# beam whose angle lies outside it by more than _SLACK radians (far more than
# the error of the heading theta + angle, of the sector's angles and of the
# direction the scan casts, all a few 1e-16 relative) cannot meet the shape.
# Shapes around the origin, huge headings and angles are always tested.
_SLACK = 1e-7
_HUGE_HEADING = 1e6
_ALWAYS = 10.0  # a sector half-width that never culls
_NEVER = -1.0  # a free slot (NaN row): always culled
_TWO_PI = 2.0 * math.pi


@njit(cache=True, inline="always")
def _wrap(d):
    """``d`` in (-pi, pi] for ``abs(d) < 5 pi`` (two corrections, no division)."""
    d = d - _TWO_PI if d > math.pi else (d + _TWO_PI if d <= -math.pi else d)
    return d - _TWO_PI if d > math.pi else (d + _TWO_PI if d <= -math.pi else d)


@njit(cache=True, inline="always")
def _sector(px, py, theta, cx, cy, r):
    """(direction - theta, half width) of the bounding circle (c, r) seen from p."""
    if cx != cx:
        return 0.0, _NEVER
    fx, fy = cx - px, cy - py
    dist = math.sqrt(fx * fx + fy * fy)
    if dist <= r * (1.0 + 1e-6) + 1e-300 or not abs(theta) < _HUGE_HEADING:
        return 0.0, _ALWAYS
    turns = theta - _TWO_PI * math.floor(theta / _TWO_PI)  # in [0, 2 pi), error ~1e-10 at most
    return _wrap(math.atan2(fy, fx) - turns), math.asin(r / dist)


@njit(cache=True)
def _sectors(px, py, theta, shapes, b, sectors):
    """Fill ``sectors`` (K + L, 2) for map ``b``'s circles, then boxes; return how many
    shapes may be met at all (not free slots)."""
    circles, corners = shapes.circles, shapes.corners
    n_circles = circles.shape[1]
    for q in range(n_circles):
        direction, half = _sector(px, py, theta, circles[b, q, 0], circles[b, q, 1],
                                  circles[b, q, 2])  # fmt: skip
        sectors[q, 0] = direction
        sectors[q, 1] = half
    for q in range(corners.shape[1]):
        box = corners[b, q]
        cx = 0.25 * (box[0, 0] + box[1, 0] + box[2, 0] + box[3, 0])
        cy = 0.25 * (box[0, 1] + box[1, 1] + box[2, 1] + box[3, 1])
        r = 0.0
        for v in range(4):
            r = max(r, math.sqrt((box[v, 0] - cx) ** 2 + (box[v, 1] - cy) ** 2))
        direction, half = _sector(px, py, theta, cx, cy, r * (1.0 + 1e-6))
        sectors[n_circles + q, 0] = direction
        sectors[n_circles + q, 1] = half


@njit(cache=True, inline="always")
def _outside(angle, sector):
    """True when a beam at ``angle`` (from the pose's theta) lies clearly outside ``sector``."""
    if sector[1] >= _ALWAYS or not abs(angle) < 2.0 * _TWO_PI:
        return sector[1] == _NEVER
    return abs(_wrap(angle - sector[0])) > sector[1] + _SLACK


@njit(cache=True, inline="always")
def _any_shape(angle, sectors):
    """Whether a beam at ``angle`` may meet any shape (else it needs no exact test)."""
    for q in range(sectors.shape[0]):
        if not _outside(angle, sectors[q]):
            return True
    return False


@njit(cache=True, inline="always")
def _first_shape(ray, shapes, b, angle, sectors):
    """The first contact of ``ray`` with the circles and boxes of map ``b`` (exact)."""
    circles, corners = shapes.circles, shapes.corners
    n_circles = circles.shape[1]
    best = miss()
    for q in range(n_circles):
        cx = circles[b, q, 0]
        if cx != cx or _outside(angle, sectors[q]):  # a NaN row: no circle
            continue
        c = ray_circle(ray, cx, circles[b, q, 1], circles[b, q, 2])
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
            if c.kind == ZERO:
                return best
    for q in range(corners.shape[1]):
        if corners[b, q, 0, 0] != corners[b, q, 0, 0] or _outside(angle, sectors[n_circles + q]):
            continue
        c = ray_polygon(ray, corners[b, q])
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
            if c.kind == ZERO:
                return best
    return best


@njit(cache=True)
def _rounded(e):
    """An expansion's value rounded to a double (its components added smallest first)."""
    total = 0.0
    for k in range(e.shape[0]):
        total += e[k]
    return total


# A float contact parameter whose proven error bound is below this (relative)
# is reported as it is (its true error is an ulp or two; the bound is loose).
_CLOSE_ENOUGH = 1e-13


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _wall_contact(k, walls, u0, v0, du, dv):
    """The exact contact of the wall that beam ``k`` hit (its cell and normal), or a miss."""
    if walls.point[k, 0] != walls.point[k, 0]:  # NaN: no wall (cell -1 may be a wall outside)
        return miss()
    i = walls.cell[k, 0]
    if walls.inside[k]:
        return zero()
    if walls.normal[k, 0] != 0.0:  # a column line (also at a corner, where both lines meet)
        line = float(i + (1 if du < 0.0 else 0))
        return axis_contact(line, u0, du, 0)
    line = float(walls.cell[k, 1] + (1 if dv < 0.0 else 0))
    return axis_contact(line, v0, dv, 1)


@njit(cache=True, nogil=True)
def clip_beams(lo, hi, beams, shapes, walls, m):
    """Beams ``lo .. hi - 1`` of a scan: stop each at its first shape when that comes first.

    ``beams``: the scan's :class:`~tilecast._walkspec.Beams`; ``shapes``: a
    :class:`~tilecast._walkspec.Shapes`; ``walls``: the walls'
    :class:`~tilecast._walkspec.FirstHits` (distance, normal, cell, inside
    per beam), whose ``distance`` (already at most ``max_range``) is
    overwritten where a shape comes first; ``m``: a
    :class:`~tilecast._walkspec.WalkMap` of the maps' geometry.
    """
    poses, angles, max_range = beams.poses, beams.angles, beams.max_range
    n_beams = angles.shape[0]
    sectors = np.empty((shapes.circles.shape[1] + shapes.corners.shape[1], 2))
    p = lo // n_beams
    beam = lo - p * n_beams
    for k in range(lo, hi):
        if k == lo or beam == n_beams:  # a new pose: the sectors its shapes are seen under
            if k != lo:
                beam = 0
                p += 1
            b = p // shapes.poses_per_map
            _sectors(poses[p, 0], poses[p, 1], poses[p, 2], shapes, b, sectors)
        angle = angles[beam]
        beam += 1
        if not _any_shape(angle, sectors):
            continue
        x0, y0 = poses[p, 0], poses[p, 1]
        sine, cosine = sincos(poses[p, 2] + angle)
        _, u0, v0, du, dv, dx, dy, norm = start_ray(
            m.origin_x, m.origin_y, m.cell_width, m.cell_height, x0, y0, cosine, sine
        )
        ray = (x0, y0, dx, dy)
        first = _first_shape(ray, shapes, b, angle, sectors)
        if first.kind == MISS:
            continue
        if first.kind == ZERO:
            walls.distance[k] = 0.0
            continue
        wall = _wall_contact(k, walls, u0, v0, du, dv)
        if contact_order(ray, first, wall) < 0:
            walls.distance[k] = min(_accurate_t(ray, first) * norm, max_range)
