"""A shape cast against the bodies of a SpatialHash, exactly (Numba).

The shape (a circle of radius ``r``, or a box of half extents ``(hx, hy)``)
moves from ``c`` along ``d`` (a cast query ``q``, in the sweep's local
frame); a body is an obstacle box, a circle, a segment or a convex polygon.
Each contact is the entry of the centre into the open Minkowski sum of the
obstacle and the shape, kept as an exact time definition
(:mod:`tilecast._kernels.surds`):

- circle against circle: the disc of radius ``r + rb`` (summed exactly);
- box against circle: the rounded box, its two crosses (faces, rational)
  and the four discs of radius ``rb`` around the box corners moved to the
  body (centres ``k +- h``, exact sums);
- circle against segment: the capsule, two end discs and the band of the
  side (``|cross(s, p - a)| < r |s|``); against a convex polygon, the
  capsules of its edges (and the polygon itself, for a start inside);
- box against segment or convex polygon: the intersection of the open
  half-planes of the x and y slabs and of each edge moved out by the box
  corner (a segment: both sides), separating axes.

Every decision (inside or not, which piece, the order of two contacts, the
overlap test the answer is rounded down with) is an exact sign of wide
numbers (:mod:`tilecast._kernels.wide`), over the whole double range.
"""

from __future__ import annotations

import math

import numpy as np

from tilecast._kernels import internal
from tilecast._kernels.surds import (
    TD_BAND,
    TD_DISC,
    TD_LINE,
    TD_RAT,
    TD_SIZE,
    exact_along,
    exact_order,
    exact_versus,
)
from tilecast._kernels.wide import w_add, w_mul, w_of, w_sign, w_value

# the kinds of body
BOX = 0
SEGMENT = 1
CIRCLE = 2
POLYGON = 3

# the kinds of contact
FACE_X = 0  # a face across the local x axis
FACE_Y = 1
CORNER = 2
INSIDE = 3

# fields of a contact candidate (a float64 array of CAND_SIZE): the float time,
# a rational time's three numerator terms and denominator (cells), _RAT 1 when
# rational, the kind, a corner or contact point, and the exact time definition
_T, _A0, _A1, _A2, _DEN, _RAT, _KIND, _KX, _KY, _NF = range(10)
_TD = 10
CAND_SIZE = _TD + TD_SIZE
EMPTY = -1.0  # _KIND of an empty candidate slot


@internal
def _sign(x):
    return (x > 0.0) - (x < 0.0)


@internal
def set_td(out, kind, p0, p1, p2, p3, p4, p5):
    """Write a time definition ``(kind, p0..p5, 0)`` into a candidate."""
    out[_TD], out[_TD + 1], out[_TD + 2], out[_TD + 3] = kind, p0, p1, p2
    out[_TD + 4], out[_TD + 5], out[_TD + 6], out[_TD + 7] = p3, p4, p5, 0.0


@internal
def set_td_rat(out, n0, n1, n2, n3, den):
    set_td(out, TD_RAT, n0, n1, n2, n3, 0.0, den)


@internal
def earlier_time(a, b, q):
    """Exact sign of ``T_a - T_b`` for two candidates (a float filter first)."""
    ta, tb = a[_T], b[_T]
    if abs(ta - tb) > 1e-9 * (abs(ta) + abs(tb)):
        return _sign(ta - tb)
    return exact_order(a[_TD:], b[_TD:], q)


# ------------------------------------------------------------- wide helpers
@internal(inline="always")
def _sum2(x, y):
    return w_add(w_of(x), w_of(y), 1)


@internal(inline="always")
def _sum3(x, y, z):
    return w_add(_sum2(x, y), w_of(z), 1)


@internal(inline="always")
def _sq(a):
    return w_mul(a, a)


@internal(inline="always")
def _cross(ax, ay, bx, by):
    return w_add(w_mul(ax, by), w_mul(ay, bx), -1)


@internal(inline="always")
def _dot(ax, ay, bx, by):
    return w_add(w_mul(ax, bx), w_mul(ay, by), 1)


@internal(inline="always")
def _gap(p, lo, hi):
    """The gap from ``p`` to ``[lo, hi]`` (wide), 0 inside."""
    below = w_add(lo, p, -1)
    if w_sign(below) > 0:
        return below
    above = w_add(p, hi, -1)
    if w_sign(above) > 0:
        return above
    return w_of(0.0)


@internal(inline="always")
def _path(q, t):
    """The centre ``c + t d`` exactly (wide x, y)."""
    tt = w_of(t)
    return w_add(w_of(q.x), w_mul(tt, w_of(q.dx)), 1), w_add(w_of(q.y), w_mul(tt, w_of(q.dy)), 1)


# ------------------------------------------------------------- pieces
@internal
def disc_entry(q, kx0, kx1, ky0, ky1, r0, r1, out):
    """Entry into the open disc of centre ``(kx0 + kx1, ky0 + ky1)``, radius ``r0 + r1``.

    0: never; 1: an entry (``out``: its time definition and float time);
    2: the centre starts in the disc.
    """
    kx, ky, rr = kx0 + kx1, ky0 + ky1, r0 + r1
    fx, fy = q.x - kx, q.y - ky
    sx, sy = abs(q.x) + abs(kx), abs(q.y) + abs(ky)
    cc = fx * fx + fy * fy - rr * rr
    b = q.dx * fx + q.dy * fy
    if cc > 1e-12 * (sx * sx + sy * sy + rr * rr) and b > 1e-12 * (abs(q.dx) * sx + abs(q.dy) * sy):
        return 0  # outside and moving away, clearly
    wx = w_add(w_of(q.x), _sum2(kx0, kx1), -1)
    wy = w_add(w_of(q.y), _sum2(ky0, ky1), -1)
    w_r = _sum2(r0, r1)
    w_c = w_add(w_add(_sq(wx), _sq(wy), 1), _sq(w_r), -1)
    if w_sign(w_c) < 0:
        return 2
    dx, dy = w_of(q.dx), w_of(q.dy)
    w_b = _dot(dx, dy, wx, wy)
    if w_sign(w_b) >= 0:
        return 0
    w_a = _dot(dx, dy, dx, dy)
    w_d = w_add(_sq(w_b), w_mul(w_a, w_c), -1)
    if w_sign(w_d) <= 0:
        return 0  # grazing or passing by
    den = -w_value(w_b) + math.sqrt(w_value(w_d))
    t = w_value(w_c) / den if den > 0.0 else 0.0
    set_td(out, TD_DISC, kx0, kx1, ky0, ky1, r0, r1)
    out[_T], out[_KIND], out[_RAT] = max(t, 0.0), CORNER, 0.0
    return 1


@internal
def _slab_bounds(c, d, lo, hi, entry, leave):
    """One open slab ``(lo, hi)`` (bounds of three terms) crossed along ``c + t d``.

    Writes the entry and exit time definitions; 1 (written), 2 (``d == 0``
    and inside: always), 0 (never).
    """
    if d == 0.0:
        inside = w_sign(w_add(w_of(c), _sum3(lo[0], lo[1], lo[2]), -1)) > 0
        if inside and w_sign(w_add(_sum3(hi[0], hi[1], hi[2]), w_of(c), -1)) > 0:
            return 2
        return 0
    a, b = (lo, hi) if d > 0.0 else (hi, lo)
    for td, g in ((entry, a), (leave, b)):
        td[0], td[1], td[2], td[3], td[4] = TD_RAT, g[0], g[1], g[2], -c
        td[5], td[6], td[7] = 0.0, d, 0.0
    return 1


@internal(inline="always")
def _cross_entry(q, xlo, xhi, ylo, yhi, out):
    """Entry into the open box ``(xlo, xhi) x (ylo, yhi)``, the centre outside.

    The bounds are three terms each. Returns the axis of the entry (0: x,
    1: y) or -1 (never, or never past 0).
    """
    tds = np.zeros((4, TD_SIZE))
    sx = _slab_bounds(q.x, q.dx, xlo, xhi, tds[0], tds[1])
    if sx == 0:
        return -1
    sy = _slab_bounds(q.y, q.dy, ylo, yhi, tds[2], tds[3])
    if sy == 0 or (sx == 2 and sy == 2):
        return -1
    if sx == 2:
        axis, ein, eout = 1, 2, 3
    elif sy == 2:
        axis, ein, eout = 0, 0, 1
    else:
        axis, ein = (0, 0) if exact_order(tds[0], tds[2], q) >= 0 else (1, 2)
        eout = 1 if exact_order(tds[1], tds[3], q) <= 0 else 3
    if exact_order(tds[ein], tds[eout], q) >= 0 or exact_versus(tds[eout], 0.0, q) <= 0:
        return -1
    out[_TD : _TD + TD_SIZE] = tds[ein]
    n = tds[ein]
    out[_T] = max(w_value(w_add(_sum3(n[1], n[2], n[3]), w_of(n[4]), 1)) / n[6], 0.0)
    out[_KIND], out[_RAT] = (FACE_X if axis == 0 else FACE_Y), 0.0
    return axis


@internal
def _keep(best, cand, q, face):
    """Keep ``cand`` in ``best`` when it is earlier (a tie: a face over a corner)."""
    if best[_KIND] == EMPTY:
        best[:] = cand
        return
    c = earlier_time(cand, best, q)
    if c < 0 or (c == 0 and face and best[_KIND] == CORNER):
        best[:] = cand


# ------------------------------------------------------------- the bodies
@internal(inline="always")
def circle_circle(q, kx, ky, rb, out):
    """A circle shape against a circle body: the disc of radius ``r + rb``. Kind or -1."""
    s = disc_entry(q, kx, 0.0, ky, 0.0, q.radius, rb, out)
    if s == 2:
        out[_KIND], out[_T] = INSIDE, 0.0
        return INSIDE
    if s == 0:
        return -1
    t = out[_T]
    nx, ny = q.x + t * q.dx - kx, q.y + t * q.dy - ky
    norm = math.hypot(nx, ny)
    if norm > 0.0:
        nx, ny = nx / norm, ny / norm
    out[_A0], out[_A1], out[_KX], out[_KY] = nx, ny, kx + nx * rb, ky + ny * rb
    return CORNER


@internal(inline="always")
def box_circle(q, kx, ky, rb, out):
    """A box shape against a circle body: the rounded box around ``k``. Kind or -1."""
    hx, hy = q.hx, q.hy
    # inside: the body's centre within rb of the box around c, i.e. c within rb of k +- h
    gx = _gap(w_of(q.x), _sum2(kx, -hx), _sum2(kx, hx))
    gy = _gap(w_of(q.y), _sum2(ky, -hy), _sum2(ky, hy))
    if w_sign(w_add(w_add(_sq(gx), _sq(gy), 1), _sq(w_of(rb)), -1)) < 0:
        out[_KIND], out[_T] = INSIDE, 0.0
        return INSIDE
    cand = np.empty(CAND_SIZE)
    out[_KIND] = EMPTY
    lo, hi = np.empty(3), np.empty(3)
    ylo, yhi = np.empty(3), np.empty(3)
    for axis in range(2):
        e = rb if axis == 0 else 0.0
        f = 0.0 if axis == 0 else rb
        lo[0], lo[1], lo[2], hi[0], hi[1], hi[2] = kx, -hx, -e, kx, hx, e
        ylo[0], ylo[1], ylo[2], yhi[0], yhi[1], yhi[2] = ky, -hy, -f, ky, hy, f
        cand[_KIND] = EMPTY
        if _cross_entry(q, lo, hi, ylo, yhi, cand) >= 0:
            _keep(out, cand, q, True)
    for corner in range(4):
        ox = hx if corner & 1 else -hx
        oy = hy if corner & 2 else -hy
        if disc_entry(q, kx, ox, ky, oy, rb, 0.0, cand) == 1:
            _keep(out, cand, q, False)
    if out[_KIND] == EMPTY:
        return -1
    t = out[_T]
    cx, cy = q.x + t * q.dx, q.y + t * q.dy
    # from the body's centre towards the nearest point of the box
    nx = min(max(kx, cx - hx), cx + hx) - kx
    ny = min(max(ky, cy - hy), cy + hy) - ky
    if out[_KIND] == FACE_X:
        nx, ny = -float(_sign(q.dx)), 0.0
    elif out[_KIND] == FACE_Y:
        nx, ny = 0.0, -float(_sign(q.dy))
    norm = math.hypot(nx, ny)
    if norm > 0.0:
        nx, ny = nx / norm, ny / norm
    out[_A0], out[_A1], out[_KX], out[_KY] = nx, ny, kx + nx * rb, ky + ny * rb
    return int(out[_KIND])


@internal
def _near_segment(px, py, ax, ay, bx, by, r):
    """Exactly: is the point (wide) closer than ``r`` to the segment ``a b``?"""
    sx, sy = w_add(w_of(bx), w_of(ax), -1), w_add(w_of(by), w_of(ay), -1)
    wx, wy = w_add(px, w_of(ax), -1), w_add(py, w_of(ay), -1)
    rr = _sq(w_of(r))
    along = _dot(wx, wy, sx, sy)
    ss = _dot(sx, sy, sx, sy)
    if w_sign(along) <= 0:
        return w_sign(w_add(_dot(wx, wy, wx, wy), rr, -1)) < 0
    if w_sign(w_add(along, ss, -1)) >= 0:
        vx, vy = w_add(px, w_of(bx), -1), w_add(py, w_of(by), -1)
        return w_sign(w_add(_dot(vx, vy, vx, vy), rr, -1)) < 0
    return w_sign(w_add(_sq(_cross(sx, sy, wx, wy)), w_mul(rr, ss), -1)) < 0


@internal(inline="always")
def _band_entry(q, ax, ay, bx, by, r, out):
    """Entry of the centre into the side band of the capsule of ``a b`` (within its span)."""
    sx, sy = w_add(w_of(bx), w_of(ax), -1), w_add(w_of(by), w_of(ay), -1)
    ss = _dot(sx, sy, sx, sy)
    if w_sign(ss) == 0:
        return False
    wx, wy = w_add(w_of(q.x), w_of(ax), -1), w_add(w_of(q.y), w_of(ay), -1)
    dx, dy = w_of(q.dx), w_of(q.dy)
    c0 = _cross(sx, sy, wx, wy)
    cd = _cross(sx, sy, dx, dy)
    side = w_sign(c0)
    # outside the strip and closing in
    if side == 0 or w_sign(cd) != -side:
        return False
    if w_sign(w_add(_sq(c0), w_mul(_sq(w_of(r)), ss), -1)) <= 0:
        return False
    set_td(out, TD_BAND, ax, ay, bx, by, r, float(side))
    # the contact point within the span: (p - a) . s > 0 and (p - b) . s < 0
    td = out[_TD:]
    if exact_along(td, q, 0) <= 0 or exact_along(td, q, 1) >= 0:
        return False
    length = math.hypot(bx - ax, by - ay)
    t = (abs(w_value(c0)) - r * length) / abs(w_value(cd))
    out[_T], out[_KIND], out[_RAT] = max(t, 0.0), FACE_X, 0.0
    # the normal: the side's unit normal of the segment
    out[_A0], out[_A1] = -side * (by - ay) / length, side * (bx - ax) / length
    return True


@internal(inline="always")
def capsule(q, ax, ay, bx, by, r, out):
    """A circle (radius ``r``) against the segment ``a b``: its capsule. Kind or -1."""
    if _near_segment(w_of(q.x), w_of(q.y), ax, ay, bx, by, r):
        out[_KIND], out[_T] = INSIDE, 0.0
        return INSIDE
    cand = np.empty(CAND_SIZE)
    out[_KIND] = EMPTY
    for k in range(2):
        ex, ey = (ax, ay) if k == 0 else (bx, by)
        cand[_KIND] = EMPTY
        if disc_entry(q, ex, 0.0, ey, 0.0, r, 0.0, cand) == 1:
            t = cand[_T]
            nx, ny = q.x + t * q.dx - ex, q.y + t * q.dy - ey
            norm = math.hypot(nx, ny)
            cand[_A0], cand[_A1] = (nx / norm, ny / norm) if norm > 0.0 else (0.0, 0.0)
            cand[_KX], cand[_KY] = ex, ey
            _keep(out, cand, q, False)
    cand[_KIND] = EMPTY
    if _band_entry(q, ax, ay, bx, by, r, cand):
        t = cand[_T]
        sx, sy = bx - ax, by - ay
        v = ((q.x + t * q.dx - ax) * sx + (q.y + t * q.dy - ay) * sy) / (sx * sx + sy * sy)
        v = min(max(v, 0.0), 1.0)
        cand[_KX], cand[_KY] = ax + v * sx, ay + v * sy
        _keep(out, cand, q, True)
    return -1 if out[_KIND] == EMPTY else int(out[_KIND])


@internal
def _strictly_inside(px, py, verts, start, count):
    """Exactly: is the point (wide) inside the convex counter-clockwise polygon?"""
    for k in range(count):
        ax, ay = verts[start + k, 0], verts[start + k, 1]
        j = start + (k + 1) % count
        sx, sy = w_add(w_of(verts[j, 0]), w_of(ax), -1), w_add(w_of(verts[j, 1]), w_of(ay), -1)
        if w_sign(_cross(sx, sy, w_add(px, w_of(ax), -1), w_add(py, w_of(ay), -1))) <= 0:
            return False
    return True


@internal(inline="always")
def circle_polygon(q, verts, start, count, out):
    """A circle against a convex polygon (counter-clockwise) or a segment (``count == 2``:
    its capsule). Kind or -1."""
    if count > 2 and _strictly_inside(w_of(q.x), w_of(q.y), verts, start, count):
        out[_KIND], out[_T] = INSIDE, 0.0
        return INSIDE
    cand = np.empty(CAND_SIZE)
    out[_KIND] = EMPTY
    for k in range(count if count > 2 else 1):
        j = start + (k + 1) % count
        cand[_KIND] = EMPTY
        kind = capsule(q, verts[start + k, 0], verts[start + k, 1], verts[j, 0], verts[j, 1],
                       q.radius, cand)  # fmt: skip
        if kind == INSIDE:
            out[:] = cand
            return INSIDE
        if kind >= 0:
            _keep(out, cand, q, kind != CORNER)
    return -1 if out[_KIND] == EMPTY else int(out[_KIND])


@internal
def _edge_offset(q, sx, sy):
    """The box corner ``o`` farthest out along the right normal ``(sy, -sx)`` of an edge."""
    return float(_sign(sy)) * q.hx, -float(_sign(sx)) * q.hy


@internal
def _moved_edge(q, verts, start, count, k):
    """Edge ``k`` of a polygon: its ends ``a`` and ``b``, the box corner ``o`` that moves
    it out (:func:`_edge_offset`) and its direction ``b - a`` exactly (wide)."""
    ax, ay = verts[start + k, 0], verts[start + k, 1]
    j = start + (k + 1) % count
    bx, by = verts[j, 0], verts[j, 1]
    ox, oy = _edge_offset(q, bx - ax, by - ay)
    sx, sy = w_add(w_of(bx), w_of(ax), -1), w_add(w_of(by), w_of(ay), -1)
    return ax, ay, bx, by, ox, oy, sx, sy


@internal(inline="always")
def box_polygon(q, verts, start, count, out):
    """A box against a convex polygon (counter-clockwise) or a segment (``count == 2``).

    Separating axes: the centre's open region is the x and y slabs and, per
    edge, the open side of the edge moved out by a box corner. Kind or -1.
    """
    x0, x1 = verts[start, 0], verts[start, 0]
    y0, y1 = verts[start, 1], verts[start, 1]
    for k in range(1, count):
        x0, x1 = min(x0, verts[start + k, 0]), max(x1, verts[start + k, 0])
        y0, y1 = min(y0, verts[start + k, 1]), max(y1, verts[start + k, 1])
    tds = np.zeros((4, TD_SIZE))
    cur = np.zeros(TD_SIZE)
    has_in, has_out, axis_in = False, False, -1
    entry, leave = tds[2], tds[3]
    lo, hi = np.empty(3), np.empty(3)
    for axis in range(2):
        c, d, a, b, h = (q.x, q.dx, x0, x1, q.hx) if axis == 0 else (q.y, q.dy, y0, y1, q.hy)
        lo[0], lo[1], lo[2], hi[0], hi[1], hi[2] = a, -h, 0.0, b, h, 0.0
        s = _slab_bounds(c, d, lo, hi, tds[0], tds[1])
        if s == 0:
            return -1
        if s == 2:
            continue
        if not has_in or exact_order(tds[0], entry, q) > 0:
            entry[:], has_in, axis_in = tds[0], True, axis
        if not has_out or exact_order(tds[1], leave, q) < 0:
            leave[:], has_out = tds[1], True
    for k in range(count):
        ax, ay, bx, by, ox, oy, sx, sy = _moved_edge(q, verts, start, count, k)
        cd = w_sign(_cross(sx, sy, w_of(q.dx), w_of(q.dy)))
        if cd == 0:
            # parallel: the open side cross(s, c - a - o) > 0 holds always or never
            wx = w_add(w_of(q.x), _sum2(ax, ox), -1)
            wy = w_add(w_of(q.y), _sum2(ay, oy), -1)
            if w_sign(_cross(sx, sy, wx, wy)) <= 0:
                return -1
            continue
        cur[0], cur[1], cur[2], cur[3], cur[4], cur[5], cur[6] = TD_LINE, ax, ay, bx, by, ox, oy
        if cd > 0:
            if not has_in or exact_order(cur, entry, q) > 0:
                entry[:], has_in, axis_in = cur, True, 2 + k
        elif not has_out or exact_order(cur, leave, q) < 0:
            leave[:], has_out = cur, True
    if has_out and exact_versus(leave, 0.0, q) <= 0:
        return -1
    if not has_in or exact_versus(entry, 0.0, q) < 0:
        out[_KIND], out[_T] = INSIDE, 0.0
        return INSIDE
    if has_out and exact_order(entry, leave, q) >= 0:
        return -1
    out[_TD : _TD + TD_SIZE] = entry
    return _box_polygon_contact(q, verts, start, count, axis_in, (x0, x1, y0, y1), out)


@internal(inline="always")
def _box_polygon_contact(q, verts, start, count, axis, bounds, out):
    """The float time, point and normal of a box's contact with a polygon's piece ``axis``."""
    x0, x1, y0, y1 = bounds
    td = out[_TD:]
    if axis < 2:
        num = w_add(_sum3(td[1], td[2], td[3]), w_of(td[4]), 1)
        t = w_value(num) / td[6]
    else:
        ax, ay, bx, by, ox, oy = td[1], td[2], td[3], td[4], td[5], td[6]
        sx, sy = bx - ax, by - ay
        t = w_value(_cross(w_add(w_of(bx), w_of(ax), -1), w_add(w_of(by), w_of(ay), -1),
                           w_add(_sum2(ax, ox), w_of(q.x), -1),
                           w_add(_sum2(ay, oy), w_of(q.y), -1))) / w_value(
            _cross(w_add(w_of(bx), w_of(ax), -1), w_add(w_of(by), w_of(ay), -1),
                   w_of(q.dx), w_of(q.dy)))  # fmt: skip
    t = max(t, 0.0)
    out[_T], out[_RAT] = t, 0.0
    cx, cy = q.x + t * q.dx, q.y + t * q.dy
    if axis == 0:
        px = x0 if q.dx > 0.0 else x1
        lo, hi = np.inf, -np.inf
        for k in range(count):
            if verts[start + k, 0] == px:
                lo, hi = min(lo, verts[start + k, 1]), max(hi, verts[start + k, 1])
        out[_KIND], out[_A0], out[_A1] = FACE_X, -float(_sign(q.dx)), 0.0
        out[_KX], out[_KY] = px, min(max(cy, lo), hi)
    elif axis == 1:
        py = y0 if q.dy > 0.0 else y1
        lo, hi = np.inf, -np.inf
        for k in range(count):
            if verts[start + k, 1] == py:
                lo, hi = min(lo, verts[start + k, 0]), max(hi, verts[start + k, 0])
        out[_KIND], out[_A0], out[_A1] = FACE_Y, 0.0, -float(_sign(q.dy))
        out[_KX], out[_KY] = min(max(cx, lo), hi), py
    else:
        sx, sy = td[3] - td[1], td[4] - td[2]
        norm = math.hypot(sx, sy)
        nx, ny = sy / norm, -sx / norm  # the edge's outward normal: towards the box
        out[_KIND], out[_A0], out[_A1] = FACE_X, nx, ny
        out[_KX], out[_KY] = cx - _sign(nx) * q.hx, cy - _sign(ny) * q.hy
    return int(out[_KIND])


# ------------------------------------------------------------- overlap, exactly
@internal(inline="always")
def _box_sides(q, px, py, verts, start, count):
    """Exactly: is the box at ``(px, py)`` (wide) in every open half-plane of the polygon's sum?"""
    for k in range(count):
        ax, ay, _, _, ox, oy, sx, sy = _moved_edge(q, verts, start, count, k)
        wx, wy = w_add(px, _sum2(ax, ox), -1), w_add(py, _sum2(ay, oy), -1)
        if w_sign(_cross(sx, sy, wx, wy)) <= 0:
            return False
    return True


@internal
def _box_meets(px, py, hx, hy, x0, x1, y0, y1):
    """Exactly: does the open box ``p +- h`` meet the open box ``[x0, x1] x [y0, y1]``?"""
    if w_sign(w_add(_sum2(x0, -hx), px, -1)) >= 0 or w_sign(w_add(px, _sum2(x1, hx), -1)) >= 0:
        return False
    return not (w_sign(w_add(_sum2(y0, -hy), py, -1)) >= 0
                or w_sign(w_add(py, _sum2(y1, hy), -1)) >= 0)  # fmt: skip


@internal(inline="always")
def overlaps_body(q, kind, g, verts, px, py):
    """Exactly: does the shape of ``q`` centred at ``(px, py)`` (wide) overlap the body?"""
    circle = q.radius > 0.0
    if kind == BOX or kind == CIRCLE:
        if kind == BOX:
            x0, x1, y0, y1, rb = g[0], g[2], g[1], g[3], 0.0
        else:
            x0, x1, y0, y1, rb = g[0], g[0], g[1], g[1], g[2]
        if not circle and kind == BOX:
            return _box_meets(px, py, q.hx, q.hy, x0, x1, y0, y1)
        if circle:  # the gap from the centre to the box (a point for a circle body)
            gx = _gap(px, w_of(x0), w_of(x1))
            gy = _gap(py, w_of(y0), w_of(y1))
            reach = _sum2(q.radius, rb)
        else:  # the gap from the body's centre to the box around p
            gx = _gap(w_of(x0), w_add(px, w_of(q.hx), -1), w_add(px, w_of(q.hx), 1))
            gy = _gap(w_of(y0), w_add(py, w_of(q.hy), -1), w_add(py, w_of(q.hy), 1))
            reach = w_of(rb)
        return w_sign(w_add(w_add(_sq(gx), _sq(gy), 1), _sq(reach), -1)) < 0
    start, count = (0, 2) if kind == SEGMENT else (int(g[0]), int(g[1]))
    if kind == SEGMENT:
        pts = np.empty((2, 2))
        pts[0, 0], pts[0, 1], pts[1, 0], pts[1, 1] = g[0], g[1], g[2], g[3]
    else:
        pts = verts
    if circle:
        if count > 2 and _strictly_inside(px, py, pts, start, count):
            return True
        for k in range(count if count > 2 else 1):
            j = start + (k + 1) % count
            if _near_segment(px, py, pts[start + k, 0], pts[start + k, 1], pts[j, 0],
                             pts[j, 1], q.radius):  # fmt: skip
                return True
        return False
    x0, x1 = pts[start, 0], pts[start, 0]
    y0, y1 = pts[start, 1], pts[start, 1]
    for k in range(1, count):
        x0, x1 = min(x0, pts[start + k, 0]), max(x1, pts[start + k, 0])
        y0, y1 = min(y0, pts[start + k, 1]), max(y1, pts[start + k, 1])
    return _box_meets(px, py, q.hx, q.hy, x0, x1, y0, y1) and _box_sides(
        q, px, py, pts, start, count
    )


@internal
def body_bounds(kind, g, verts):
    """The body's bounding box ``(x0, x1, y0, y1)`` in floats."""
    if kind == BOX:
        return g[0], g[2], g[1], g[3]
    if kind == CIRCLE:
        return g[0] - g[2], g[0] + g[2], g[1] - g[2], g[1] + g[2]
    if kind == SEGMENT:
        return min(g[0], g[2]), max(g[0], g[2]), min(g[1], g[3]), max(g[1], g[3])
    start, count = int(g[0]), int(g[1])
    x0, x1 = verts[start, 0], verts[start, 0]
    y0, y1 = verts[start, 1], verts[start, 1]
    for k in range(1, count):
        x0, x1 = min(x0, verts[start + k, 0]), max(x1, verts[start + k, 0])
        y0, y1 = min(y0, verts[start + k, 1]), max(y1, verts[start + k, 1])
    return x0, x1, y0, y1


@internal(inline="always")
def bodies_overlap(q, bodies, t, exact):
    """Does the shape at ``c + t d`` (exactly, or as it rounds to doubles) overlap a body?"""
    fx, fy = q.x + t * q.dx, q.y + t * q.dy
    ex = q.radius if q.radius > 0.0 else q.hx
    ey = q.radius if q.radius > 0.0 else q.hy
    for k in range(bodies.kinds.shape[0]):
        kind = bodies.kinds[k]
        g = bodies.geoms[k]
        x0, x1, y0, y1 = body_bounds(kind, g, bodies.verts)
        margin = 1e-9 * (abs(fx) + abs(fy) + abs(x0) + abs(x1) + abs(y0) + abs(y1) + ex + ey)
        if fx + ex < x0 - margin or fx - ex > x1 + margin:
            continue
        if fy + ey < y0 - margin or fy - ey > y1 + margin:
            continue
        if exact:
            px, py = _path(q, t)
        else:
            px, py = w_of(fx), w_of(fy)
        if overlaps_body(q, kind, g, bodies.verts, px, py):
            return True
    return False


# ------------------------------------------------------------- the kernels
# Called by address from tilecast._kernels.casts (compiled once each): a circle,
# segment or polygon body against a circle or box shape, one signature for the
# four (``g`` the body's geometry, its points ``pts[start:start + count]``); the
# overlaps. Each compiles the pieces above it uses into itself (inline="always").
@internal(by_address=True)
def contact_circle_circle(q, g, pts, start, count, out):
    """A circle shape against the circle body ``g``: :func:`circle_circle`."""
    return circle_circle(q, g[0], g[1], g[2], out)


@internal(by_address=True)
def contact_box_circle(q, g, pts, start, count, out):
    """A box shape against the circle body ``g``: :func:`box_circle`."""
    return box_circle(q, g[0], g[1], g[2], out)


@internal(by_address=True)
def contact_circle_polygon(q, g, pts, start, count, out):
    """A circle shape against a segment or convex polygon: :func:`circle_polygon`."""
    return circle_polygon(q, pts, start, count, out)


@internal(by_address=True)
def contact_box_polygon(q, g, pts, start, count, out):
    """A box shape against a segment or convex polygon: :func:`box_polygon`."""
    return box_polygon(q, pts, start, count, out)


@internal(by_address=True)
def overlap_kernel(q, bodies, t, exact):
    """:func:`bodies_overlap`."""
    return bodies_overlap(q, bodies, t, exact)
