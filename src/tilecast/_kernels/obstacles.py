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
range of a shape's contact is ``t * |d|``, within a few ulps of the exact
one, and never beyond ``max_range`` (a farther contact reads ``max_range``).
"""

from __future__ import annotations

from numba import njit

from tilecast._kernels.beams import sincos
from tilecast._kernels.shapes import (
    MISS,
    ZERO,
    axis_contact,
    contact_order,
    miss,
    ray_circle,
    ray_polygon,
    zero,
)
from tilecast._kernels.walk import start_ray

# A float test that says "surely missed" only with this relative margin (the
# rounding errors of its few products are below 1e-15 of their sizes).
_MARGIN = 1e-9
_TINY = 1e-290


@njit(cache=True, inline="always")
def _surely_missed(ray, cx, cy, r):
    """True when the ray clearly misses the disc (float test with a wide margin; no
    exact decision is skipped: an unclear case says False and the exact test runs)."""
    px, py, dx, dy = ray
    fx, fy = px - cx, py - cy
    ff, rr = fx * fx + fy * fy, r * r
    outside = ff > rr * (1.0 + _MARGIN) + _TINY
    b1, b2 = fx * dx, fy * dy
    away = b1 + b2 > _MARGIN * (abs(b1) + abs(b2)) + _TINY  # moving away from the centre
    c1, c2 = fx * dy, fy * dx
    cross = c1 - c2
    aside = (
        cross * cross
        > (dx * dx + dy * dy) * rr * (1.0 + _MARGIN) + _MARGIN * (c1 * c1 + c2 * c2) + _TINY
    )  # the ray's line passes clear of the disc
    return outside and (away or aside)


@njit(cache=True, inline="always")
def _first_shape(ray, shapes, b):
    """The first contact of ``ray`` with the circles and boxes of map ``b`` (exact)."""
    circles, corners = shapes.circles, shapes.corners
    best = miss()
    for q in range(circles.shape[1]):
        cx = circles[b, q, 0]
        if cx != cx:  # a NaN row: no circle
            continue
        if _surely_missed(ray, cx, circles[b, q, 1], circles[b, q, 2]):
            continue
        c = ray_circle(ray, cx, circles[b, q, 1], circles[b, q, 2])
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
            if c.kind == ZERO:
                return best
    for q in range(corners.shape[1]):
        if corners[b, q, 0, 0] != corners[b, q, 0, 0]:
            continue
        c = ray_polygon(ray, corners[b, q])
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
            if c.kind == ZERO:
                return best
    return best


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
    for k in range(lo, hi):
        p = k // n_beams
        b = p // shapes.poses_per_map
        sine, cosine = sincos(poses[p, 2] + angles[k - p * n_beams])
        x0, y0 = poses[p, 0], poses[p, 1]
        _, u0, v0, du, dv, dx, dy, norm = start_ray(
            m.origin_x, m.origin_y, m.cell_width, m.cell_height, x0, y0, cosine, sine
        )
        ray = (x0, y0, dx, dy)
        first = _first_shape(ray, shapes, b)
        if first.kind == MISS:
            continue
        if first.kind == ZERO:
            walls.distance[k] = 0.0
            continue
        wall = _wall_contact(k, walls, u0, v0, du, dv)
        if contact_order(ray, first, wall) < 0:
            walls.distance[k] = min(first.t * norm, max_range)
