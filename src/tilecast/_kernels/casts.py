"""Shape casts on a tile map: a circle or an axis-aligned box swept along a ray (Numba).

The obstacles are the blocking *walk cells* of a map's
:class:`~tilecast._walkspec.WalkMap` (a grid's cells; a tile map's pixels),
each the closed world box ``[ox + I*cw, ox + (I+1)*cw] x [oy + J*ch, oy +
(J+1)*ch]`` with its corners computed in float64 exactly so (the doubles
:meth:`~tilecast.World.cell_bounds` gives). The shape is closed too.

Contact rule: the shape meets an obstacle at the first ``t >= 0`` from which
its interior would overlap the obstacle's (it *penetrates*); touching alone
is no contact, so a shape that touches a face and moves along it or away from
it goes on, and a shape grazing a corner passes. A shape whose interior
already overlaps an obstacle at ``t = 0`` is *inside* it.

The sweep works in a local frame whose x axis is the *major* axis (the one
along which the direction moves more cells): it visits the columns of cells
in the order the shape reaches them, in each the rows the swept shape may
cover there, and stops once a column cannot be reached before the best
contact found (every cell is tested with exact predicates, so the walk only
needs to be conservative). Every decision about one obstacle is exact: the
signs of sums of products of doubles (:func:`~tilecast._kernels.exact.expansion_sign`
after a float filter). Contacts whose time is rational (box faces and
corners, circle faces) are ordered by cross-multiplying; every contact also
keeps its exact time definition (:mod:`tilecast._kernels.surds`), and a
time with a square root (a circle's contact with a cell corner) is ordered
exactly against any other when the float times are close. Only equal times
tie; ties are decided by the documented rule (inside first, then faces
before corners, then the smaller ``(row, col)``). Bodies: see
:mod:`tilecast._kernels.cast_bodies` (a tie between a cell and a body goes
to the cell).
The winner's time is then rounded *down* until the shape placed there
overlaps no obstacle, exactly: so the answer never goes beyond the true
contact.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types

from tilecast._kernels import internal
from tilecast._kernels.cast_bodies import (
    _A0,
    _A1,
    _A2,
    _DEN,
    _KIND,
    _KX,
    _KY,
    _RAT,
    _T,
    _TD,
    BOX,
    CAND_SIZE,
    CIRCLE,
    CORNER,
    EMPTY,
    FACE_X,
    FACE_Y,
    INSIDE,
    SEGMENT,
    TD_DISC,
    contact_box_circle,
    contact_box_polygon,
    contact_circle_circle,
    contact_circle_polygon,
    earlier_time,
    overlap_kernel,
    set_td,
    set_td_rat,
)
from tilecast._kernels.exact import expansion_sign, two_prod, two_sum
from tilecast._kernels.intrinsics import caller_of, compiled_address, load_int64
from tilecast._kernels.surds import EXACT_SIGNATURE, exact_round_down, exact_time
from tilecast._walkspec import MIXED_TILE, SOLID

# ------------------------------------------------------------- the records


class CastQuery(NamedTuple):
    """One shape cast: the centre ``(x, y)`` moves along ``(dx, dy)`` for ``t`` in ``[0, t_max]``.

    ``radius > 0``: a circle; ``radius == 0``: a box of half extents
    ``(hx, hy)``. ``place``: also find the end position (the float64 centre
    at the answer, or at ``t_max`` on a miss, that overlaps nothing), which
    ``move_and_slide`` needs and a cast does not. ``at``: the address of
    the table of the addresses of the kernels the cast calls
    (:func:`table_address`).
    """

    x: float
    y: float
    dx: float
    dy: float
    radius: float
    hx: float
    hy: float
    t_max: float
    place: bool
    at: int


class Frame(NamedTuple):
    """The local frame of a sweep: the major axis first (``swap``: it is the world's y)."""

    o_major: float
    s_major: float
    n_major: int
    o_minor: float
    s_minor: float
    n_minor: int
    swap: bool


class CastHit(NamedTuple):
    """A cast's answer: ``status`` 1 a contact, 0 none.

    ``t`` the centre's parameter at the contact (rounded down, the shape
    there overlaps nothing), ``distance`` ``t * |d|`` rounded down, the
    contact point, the unit normal (from the obstacle towards the shape),
    the walk cell ``(col, row)``, ``inside``, the contact ``kind``, and the
    end position: the float64 centre ``(end_x, end_y)`` at ``t_end`` (the
    contact's ``t``, or ``t_max`` on a miss with a finite ``t_max``; NaN
    otherwise), checked exactly to overlap nothing.
    """

    status: int
    t: float
    distance: float
    x: float
    y: float
    normal_x: float
    normal_y: float
    col: int
    row: int
    inside: bool
    kind: int
    end_x: float
    end_y: float
    t_end: float
    body: int


class Bodies(NamedTuple):
    """Candidate bodies of a cast, in the local frame: ``kinds`` (N,) int64 (``BOX``,
    ``SEGMENT``, ``CIRCLE``, ``POLYGON`` of :mod:`~tilecast._kernels.cast_bodies`) and
    ``geoms`` (N, 4): a box ``(x0, y0, x1, y1)``, a segment ``(ax, ay, bx, by)``, a circle
    ``(cx, cy, r, 0)``, a convex polygon ``(start, count, 0, 0)``: its vertices are
    ``verts[start:start + count]`` ((M, 2), counter-clockwise in the local frame).
    """

    kinds: object
    geoms: object
    verts: object


# the kinds of body and of contact, and a candidate's fields: see cast_bodies
_EMPTY = EMPTY
_U = 2.0**-53
# the scratch buffer of a cast: work 0..159, the candidate, the best, the slab
# numerators (16), a cell box (4), a position (6) and 2 more, the best body
_CAND = 160
_BEST = _CAND + CAND_SIZE
_NUM = _BEST + CAND_SIZE
_BOX = _NUM + 16
_POS = _BOX + 4
_FOUND = _POS + 8
_END = _FOUND + CAND_SIZE
_SUM3 = 5.0 * _U  # relative error bound of a float sum of three doubles


# ------------------------------------------------------------- exact signs
@internal
def _sign(x):
    return (x > 0.0) - (x < 0.0)


@internal
def _sign3(a, b, c, work):
    """Exact sign of ``a + b + c``."""
    s = (a + b) + c
    if abs(s) > _SUM3 * (abs(a) + abs(b) + abs(c)):
        return _sign(s)
    work[0], work[1], work[2] = a, b, c
    return expansion_sign(work[:3])


@internal
def _sum3(a, b, c):
    """``a + b + c`` to about one rounding (double-double)."""
    s1, e1 = two_sum(a, b)
    s2, e2 = two_sum(s1, c)
    return s2 + (e1 + e2)


@internal
def _ratio_cmp(num, i, den_i, k, den_k, work):
    """Exact sign of ``N_i / den_i - N_k / den_k`` (``N``: three terms of ``num`` from index)."""
    ti = _sum3(num[i], num[i + 1], num[i + 2]) / den_i
    tk = _sum3(num[k], num[k + 1], num[k + 2]) / den_k
    if abs(ti - tk) > 1e-13 * (abs(ti) + abs(tk)):
        return _sign(ti - tk)
    m = 0
    for a in range(3):
        work[m], work[m + 1] = two_prod(num[i + a], den_k)
        work[m + 2], work[m + 3] = two_prod(-num[k + a], den_i)
        m += 4
    return expansion_sign(work[:m]) * _sign(den_i) * _sign(den_k)


@internal
def _square_into(terms, n, work, m):
    """Append the exact products making ``(sum of terms[:n])**2`` to ``work[m:]``; new ``m``."""
    for a in range(n):
        work[m], work[m + 1] = two_prod(terms[a], terms[a])
        m += 2
        for b in range(a + 1, n):
            work[m], work[m + 1] = two_prod(2.0 * terms[a], terms[b])
            m += 2
    return m


@internal
def _position(c, t, d, out, at):
    """Write ``c + t*d`` exactly as three terms into ``out[at:at + 3]``."""
    p, e = two_prod(t, d)
    out[at], out[at + 1], out[at + 2] = c, p, e


@internal
def _pos_sign(pos, at, lo, work):
    """Exact sign of ``pos - lo`` (``pos``: three terms)."""
    s = (pos[at] + pos[at + 1] + pos[at + 2]) - lo
    if abs(s) > 8.0 * _U * (abs(pos[at]) + abs(pos[at + 1]) + abs(pos[at + 2]) + abs(lo)):
        return _sign(s)
    work[0], work[1], work[2], work[3] = pos[at], pos[at + 1], pos[at + 2], -lo
    return expansion_sign(work[:4])


@internal
def _gap_terms(pos, at, lo, hi, work, gap):
    """Terms of the signed gap from ``pos`` to ``[lo, hi]`` (0 inside) into ``gap[:4]``; count."""
    if _pos_sign(pos, at, lo, work) < 0:
        bound = lo
    elif _pos_sign(pos, at, hi, work) > 0:
        bound = hi
    else:
        return 0
    gap[0], gap[1], gap[2], gap[3] = pos[at], pos[at + 1], pos[at + 2], -bound
    return 4


@internal
def _circle_overlaps(pos, r, x0, x1, y0, y1, work):
    """Exactly: does the open disc of radius ``r`` at ``pos`` (x: 0..2, y: 3..5) meet the box?"""
    px = pos[0] + pos[1] + pos[2]
    py = pos[3] + pos[4] + pos[5]
    gx = max(x0 - px, 0.0, px - x1)
    gy = max(y0 - py, 0.0, py - y1)
    g2 = gx * gx + gy * gy
    scale = (abs(px) + abs(x0) + abs(x1) + abs(py) + abs(y0) + abs(y1) + r) ** 2
    if g2 - r * r > 1e-14 * scale + 1e-300:
        return False
    if g2 - r * r < -1e-14 * scale - 1e-300:
        return True
    gap = work[60:64]
    n = _gap_terms(pos, 0, x0, x1, work, gap)
    m = _square_into(gap, n, work, 8)
    n = _gap_terms(pos, 3, y0, y1, work, gap)
    m = _square_into(gap, n, work, m)
    work[m], work[m + 1] = two_prod(-r, r)
    return expansion_sign(work[8 : m + 2]) < 0


@internal
def _sign5(a, b, c, e, g, work):
    """Exact sign of ``a + b + c + e + g`` (a float filter first)."""
    s = (a + b + c) + (e + g)
    if abs(s) > 8.0 * _U * (abs(a) + abs(b) + abs(c) + abs(e) + abs(g)):
        return _sign(s)
    work[0], work[1], work[2], work[3], work[4] = a, b, c, e, g
    return expansion_sign(work[:5])


@internal
def _box_overlaps(pos, hx, hy, x0, x1, y0, y1, work):
    """Exactly: does the open box of half extents ``(hx, hy)`` at ``pos`` meet the box?"""
    # x + hx > x0, x - hx < x1, and the same in y (x0 - hx may round: never formed)
    if _sign5(pos[0], pos[1], pos[2], hx, -x0, work) <= 0:
        return False
    if _sign5(x1, hx, -pos[0], -pos[1], -pos[2], work) <= 0:
        return False
    if _sign5(pos[3], pos[4], pos[5], hy, -y0, work) <= 0:
        return False
    return _sign5(y1, hy, -pos[3], -pos[4], -pos[5], work) > 0


# ------------------------------------------------------------- the map
@internal
def blocks_at(view, col, row):
    """Does walk cell ``(col, row)`` (world axes) block? Off the map: the outside."""
    info = view.info
    th = view.pixels.shape[2]
    tw = view.pixels.shape[3]
    i = col // tw
    j = row // th
    if i < 0 or j < 0 or i >= info.shape[2] - 2 or j >= info.shape[1] - 2:
        return view.outside_solid
    v = info[0, j + 1, i + 1]
    if v == SOLID:
        return True
    if v == MIXED_TILE:
        k = view.variants[j, i]
        return view.pixels[0, k, row - j * th, col - i * tw] < 0
    return False


# ------------------------------------------------------------- one obstacle
@internal
def _slab(lo, hi, c, d, e, num, at, work):
    """The shape's extent ``c +- e`` moving at ``d`` against the slab ``[lo, hi]``.

    Writes the numerators of the entry and exit times (``t = N / d``, three
    terms each) to ``num[at:at + 6]``. Returns 1 (times written), 2 (``d ==
    0`` and the extents overlap with positive length: always) or 0 (never).
    """
    if d == 0.0:
        if _sign3(c, e, -lo, work) > 0 and _sign3(hi, e, -c, work) > 0:
            return 2
        return 0
    if d > 0.0:
        num[at], num[at + 1], num[at + 2] = lo, -e, -c
        num[at + 3], num[at + 4], num[at + 5] = hi, e, -c
    else:
        num[at], num[at + 1], num[at + 2] = hi, e, -c
        num[at + 3], num[at + 4], num[at + 5] = lo, -e, -c
    return 1


@internal
def _expanded_entry(q, box, ex, ey, num, work):
    """Entry into the open box ``box`` grown by ``(ex, ey)``; the kind (or -1: never).

    Writes the entry numerator to ``num[12:15]`` and its denominator is
    returned with the kind: ``(kind, den)``; kind CORNER when both axes enter
    at the same time, INSIDE when the centre starts in the grown box.
    """
    sx = _slab(box[0], box[1], q.x, q.dx, ex, num, 0, work)
    if sx == 0:
        return -1, 0.0
    sy = _slab(box[2], box[3], q.y, q.dy, ey, num, 6, work)
    if sy == 0:
        return -1, 0.0
    if sx == 2 and sy == 2:
        return INSIDE, 1.0
    # entry: the later entry; exit: the earlier exit
    if sx == 2:
        kind, ein, eout, din, dout = FACE_Y, 6, 9, q.dy, q.dy
    elif sy == 2:
        kind, ein, eout, din, dout = FACE_X, 0, 3, q.dx, q.dx
    else:
        c = _ratio_cmp(num, 0, q.dx, 6, q.dy, work)
        kind, ein, din = (FACE_X, 0, q.dx) if c > 0 else (FACE_Y, 6, q.dy)
        if c == 0:
            kind = CORNER
        c = _ratio_cmp(num, 3, q.dx, 9, q.dy, work)
        eout, dout = (3, q.dx) if c < 0 else (9, q.dy)
    # penetration needs entry < exit and exit > 0
    if _ratio_cmp(num, ein, din, eout, dout, work) >= 0:
        return -1, 0.0
    if _sign3(num[eout], num[eout + 1], num[eout + 2], work) * _sign(dout) <= 0:
        return -1, 0.0
    num[12], num[13], num[14] = num[ein], num[ein + 1], num[ein + 2]
    if _sign3(num[12], num[13], num[14], work) * _sign(din) < 0:
        return INSIDE, din
    return kind, din


@internal
def _dist2_sign(x, y, kx, ky, r, work):
    """Exact sign of ``(x - kx)**2 + (y - ky)**2 - r**2``."""
    qx = x - kx
    qy = y - ky
    f = qx * qx + qy * qy - r * r
    if abs(f) > 1e-14 * (qx * qx + qy * qy + r * r) + 1e-300:
        return _sign(f)
    gap = work[60:62]
    gap[0], gap[1] = x, -kx
    m = _square_into(gap, 2, work, 8)
    gap[0], gap[1] = y, -ky
    m = _square_into(gap, 2, work, m)
    work[m], work[m + 1] = two_prod(-r, r)
    return expansion_sign(work[8 : m + 2])


@internal
def _corner_time(q, kx, ky, work):
    """First ``t >= 0`` at which the circle penetrates the disc ``|p - k| < r``; -1: never."""
    r = q.radius
    s = _dist2_sign(q.x, q.y, kx, ky, r, work)
    if s < 0:
        return 0.0
    # moving towards k?  d . (c - k) < 0, exactly
    b = q.dx * (q.x - kx) + q.dy * (q.y - ky)
    scale = abs(q.dx) * (abs(q.x) + abs(kx)) + abs(q.dy) * (abs(q.y) + abs(ky))
    if abs(b) <= 8.0 * _U * scale + 1e-300:
        work[0], work[1] = two_prod(q.dx, q.x)
        work[2], work[3] = two_prod(-q.dx, kx)
        work[4], work[5] = two_prod(q.dy, q.y)
        work[6], work[7] = two_prod(-q.dy, ky)
        bs = expansion_sign(work[:8])
    else:
        bs = _sign(b)
    if bs >= 0:
        return -1.0
    if s == 0:
        return 0.0
    # penetrates iff r**2 |d|**2 > cross**2, cross = d x (c - k)
    qx = q.x - kx
    qy = q.y - ky
    a = q.dx * q.dx + q.dy * q.dy
    cross = q.dx * qy - q.dy * qx
    disc = a * r * r - cross * cross
    size = abs(q.dx * qy) + abs(q.dy * qx)
    c = qx * qx + qy * qy - r * r
    if abs(disc) <= 1e-3 * (a * r * r + size * size) + 1e-300:
        # near grazing: the discriminant from its exact terms (its sign exactly)
        big = np.empty(120)
        m = _cross_terms(q, kx, ky, big)
        m = _square_into(big[:m].copy(), m, big, 0)
        for k in range(m):
            big[k] = -big[k]
        rd = np.empty(2)
        rd[0], rd[1] = two_prod(r, q.dx)
        m = _square_into(rd, 2, big, m)
        rd[0], rd[1] = two_prod(r, q.dy)
        m = _square_into(rd, 2, big, m)
        if expansion_sign(big[:m]) <= 0:
            return -1.0
        disc = _accurate_sum(big, m)
        # and the start's squared gap to the corner, c = |q|**2 - r**2
        gap = np.empty(2)
        gap[0], gap[1] = q.x, -kx
        m = _square_into(gap, 2, big, 0)
        gap[0], gap[1] = q.y, -ky
        m = _square_into(gap, 2, big, m)
        big[m], big[m + 1] = two_prod(-r, r)
        c = _accurate_sum(big, m + 2)
    elif disc <= 0.0:
        return -1.0
    t = c / (-b + math.sqrt(disc))
    return max(t, 0.0)


@internal
def _cross_terms(q, kx, ky, out):
    """The exact terms of ``d x (c - k)`` into ``out[:8]``; their count."""
    out[0], out[1] = two_prod(q.dx, q.y)
    out[2], out[3] = two_prod(-q.dx, ky)
    out[4], out[5] = two_prod(-q.dy, q.x)
    out[6], out[7] = two_prod(q.dy, kx)
    return 8


@internal
def _accurate_sum(terms, n):
    """The sum of ``terms[:n]`` to about one rounding (Neumaier's compensated sum)."""
    s = 0.0
    comp = 0.0
    for k in range(n):
        s, e = two_sum(s, terms[k])
        comp += e
    return s + comp


@internal
def _span_sign(co, do, bound, d, num, work):
    """Exact sign of ``co + (N / d) * do - bound`` (``N``: ``num[12:15]``)."""
    t = _sum3(num[12], num[13], num[14]) / d
    f = co + t * do - bound
    if abs(f) > 1e-13 * (abs(co) + abs(t * do) + abs(bound)) + 1e-300:
        return _sign(f)
    work[20], work[21] = two_prod(co, d)
    work[22], work[23] = two_prod(-bound, d)
    for a in range(3):
        work[24 + 2 * a], work[25 + 2 * a] = two_prod(num[12 + a], do)
    return expansion_sign(work[20:30]) * _sign(d)


@internal
def _box_contact(q, box, num, work, out):
    """A box shape against one cell box; fills ``out`` (a candidate). False: no contact."""
    kind, den = _expanded_entry(q, box, q.hx, q.hy, num, work)
    if kind < 0:
        return False
    out[_KIND] = kind
    out[_RAT] = 1.0
    if kind == INSIDE:
        out[_T] = 0.0
        return True
    out[_A0], out[_A1], out[_A2], out[_DEN] = num[12], num[13], num[14], den
    set_td_rat(out, num[12], num[13], num[14], 0.0, den)
    out[_T] = max(_sum3(num[12], num[13], num[14]) / den, 0.0)
    return out[_T] <= q.t_max


@internal
def _circle_contact(q, box, num, work, out):
    """A circle against one cell box; fills ``out``. False: no contact."""
    x0, x1, y0, y1 = box[0], box[1], box[2], box[3]
    r = q.radius
    out[_RAT] = 1.0
    # inside: the nearest point of the box is closer than r
    nx = min(max(q.x, x0), x1)
    ny = min(max(q.y, y0), y1)
    if _dist2_sign(q.x, q.y, nx, ny, r, work) < 0:
        out[_KIND], out[_T] = INSIDE, 0.0
        return True
    kind, den = _expanded_entry(q, box, r, r, num, work)
    if kind < 0:
        return False
    t_in = _sum3(num[12], num[13], num[14]) / den if kind != INSIDE else 0.0
    if t_in > q.t_max:
        return False
    entered = kind != INSIDE
    kx = (x0 if q.x < x0 else x1) if not entered else (x0 if q.dx > 0.0 else x1)
    ky = (y0 if q.y < y0 else y1) if not entered else (y0 if q.dy > 0.0 else y1)
    if kind == FACE_X or kind == FACE_Y:
        # is the centre's entry point within the face's span?  c_o + (N/d) d_o in [lo, hi]
        co, do, lo, hi, d = (
            (q.y, q.dy, y0, y1, q.dx) if kind == FACE_X else (q.x, q.dx, x0, x1, q.dy)
        )
        side = 0
        if _span_sign(co, do, lo, d, num, work) < 0:
            side = -1
        elif _span_sign(co, do, hi, d, num, work) > 0:
            side = 1
        if side == 0:
            out[_KIND], out[_T] = kind, max(t_in, 0.0)
            out[_A0], out[_A1], out[_A2], out[_DEN] = num[12], num[13], num[14], den
            set_td_rat(out, num[12], num[13], num[14], 0.0, den)
            return True
        if kind == FACE_X:
            ky = y0 if side < 0 else y1
        else:
            kx = x0 if side < 0 else x1
    elif not entered and (x0 <= q.x <= x1 or y0 <= q.y <= y1):
        return False  # touching a face from the grown box's inside: handled by the slabs
    t = _corner_time(q, kx, ky, work)
    if t < 0.0 or t > q.t_max:
        return False
    out[_KIND], out[_T], out[_RAT], out[_KX], out[_KY] = CORNER, t, 0.0, kx, ky
    set_td(out, TD_DISC, kx, 0.0, ky, 0.0, r, 0.0)
    return True


# ------------------------------------------------------------- the sweep
@internal
def _earlier(cand, best, cell, best_cell, q, f, work):
    """Does ``cand`` (at ``cell``) come before ``best`` (at ``best_cell``)? (The tie rule.)"""
    swap = f.swap
    if best[_KIND] == _EMPTY:
        return True
    ci = cand[_KIND] == INSIDE
    bi = best[_KIND] == INSIDE
    if ci != bi:
        return ci
    c = 0
    if not ci:
        if cand[_RAT] != 0.0 and best[_RAT] != 0.0:
            num = work[40:46]
            num[0], num[1], num[2] = cand[_A0], cand[_A1], cand[_A2]
            num[3], num[4], num[5] = best[_A0], best[_A1], best[_A2]
            c = _ratio_cmp(num, 0, cand[_DEN], 3, best[_DEN], work)
        else:
            c = earlier_time(cand, best, q)
    if c != 0:
        return c < 0
    # a tie: faces before corners, then the smaller (row, col)
    cf = cand[_KIND] != CORNER
    bf = best[_KIND] != CORNER
    if cf != bf:
        return cf
    ca, cb = (cell[1], cell[0]) if swap else (cell[0], cell[1])
    ba, bb = (best_cell[1], best_cell[0]) if swap else (best_cell[0], best_cell[1])
    return (cb, ca) < (bb, ba)


@internal
def _column_rows(q, f, col, ex, ey, t_lim, outside_solid):
    """Rows of column ``col`` the swept shape may cover by ``t_lim``: (first, last, reachable)."""
    x0 = f.o_major + col * f.s_major
    x1 = f.o_major + (col + 1) * f.s_major
    if q.dx > 0.0:
        ta = (x0 - ex - q.x) / q.dx
        tb = (x1 + ex - q.x) / q.dx
    else:
        ta = (x1 + ex - q.x) / q.dx
        tb = (x0 - ex - q.x) / q.dx
    slack = 1e-14 * (abs(x0) + abs(x1) + ex + abs(q.x)) / abs(q.dx) + 1e-300
    if ta - slack > t_lim:
        return 0, -1, False
    t0 = max(ta - slack, 0.0)
    t1 = min(tb + slack, t_lim)
    ya = q.y + t0 * q.dy
    yb = q.y + t1 * q.dy
    lo = (min(ya, yb) - ey - f.o_minor) / f.s_minor
    hi = (max(ya, yb) + ey - f.o_minor) / f.s_minor
    first_row = -1 if outside_solid else 0
    last_row = f.n_minor if outside_solid else f.n_minor - 1
    lo = min(max(lo, -4.0), f.n_minor + 4.0)
    hi = min(max(hi, -4.0), f.n_minor + 4.0)
    return max(math.floor(lo) - 1, first_row), min(math.floor(hi) + 1, last_row), True


@internal
def _may_reach(q, box, ex, ey, t_lim):
    """Float filter: can the shape's box, grown by a margin, reach ``box`` by ``t_lim``?

    Conservative (the margin covers the float rounding many times over):
    False only when no contact with the box can come at or before ``t_lim``.
    """
    margin = 1e-11 * (abs(q.x) + abs(q.y) + abs(box[0]) + abs(box[2]) + ex + ey) + 1e-300
    t0, t1 = 0.0, t_lim * (1.0 + 1e-10) + 1e-300
    for k in range(2):
        c, d, lo, hi, e = (
            (q.x, q.dx, box[0], box[1], ex) if k == 0 else (q.y, q.dy, box[2], box[3], ey)
        )
        lo = lo - e - margin
        hi = hi + e + margin
        if d == 0.0:
            if c <= lo or c >= hi:
                return False
            continue
        a = (lo - c) / d
        b = (hi - c) / d
        if a > b:
            a, b = b, a
        t0 = max(t0, a)
        t1 = min(t1, b)
    return t0 <= t1


@internal
def _sweep(view, q, f, buf, cells):
    """Visit the cells the swept shape may touch, keeping the first contact in ``best``.

    ``buf``: the scratch floats (see :func:`shape_cast`), ``cells``: the
    candidate's and the best's cells.
    """
    work, cand, best, num, box = (
        buf[:160],
        buf[_CAND:_BEST],
        buf[_BEST:_NUM],
        buf[_NUM:_BOX],
        buf[_BOX:_POS],
    )
    cell, best_cell = cells[:2], cells[2:]
    outside_solid = view.outside_solid
    circle = q.radius > 0.0
    ex = q.radius if circle else q.hx
    ey = q.radius if circle else q.hy
    step = 1 if q.dx > 0.0 else -1
    lo_col = -1 if outside_solid else 0
    hi_col = f.n_major if outside_solid else f.n_major - 1
    edge = q.x - ex if step > 0 else q.x + ex
    u = min(max((edge - f.o_major) / f.s_major, -4.0), f.n_major + 4.0)
    col = math.floor(u) - step
    col = max(col, lo_col) if step > 0 else min(col, hi_col)
    while lo_col <= col <= hi_col:
        t_lim = min(q.t_max, best[_T]) if best[_KIND] != _EMPTY else q.t_max
        first, last, reachable = _column_rows(q, f, col, ex, ey, t_lim, outside_solid)
        if not reachable:
            break
        box[0] = f.o_major + col * f.s_major
        box[1] = f.o_major + (col + 1) * f.s_major
        for row in range(first, last + 1):
            solid = blocks_at(view, row, col) if f.swap else blocks_at(view, col, row)
            if not solid:
                continue
            box[2] = f.o_minor + row * f.s_minor
            box[3] = f.o_minor + (row + 1) * f.s_minor
            t_lim = min(q.t_max, best[_T]) if best[_KIND] != _EMPTY else q.t_max
            if not _may_reach(q, box, ex, ey, t_lim):
                continue
            cand[_KIND] = _EMPTY
            hit = (
                _circle_contact(q, box, num, work, cand)
                if circle
                else _box_contact(q, box, num, work, cand)
            )
            cell[0], cell[1] = col, row
            if hit and _earlier(cand, best, cell, best_cell, q, f, work):
                best[:] = cand
                best_cell[0], best_cell[1] = col, row
        col += step


# ------------------------------------------------------------- bodies
# A box body is an obstacle box like a cell's; the others are decided in
# tilecast._kernels.cast_bodies. Every contact keeps its exact time definition.
@internal
def _point_normal(q, kind, box, t):
    """Contact point and normal of a face or corner contact with ``box`` at ``t``."""
    x0, x1, y0, y1 = box[0], box[1], box[2], box[3]
    cx = q.x + t * q.dx
    cy = q.y + t * q.dy
    fx = x0 if q.dx > 0.0 else x1
    fy = y0 if q.dy > 0.0 else y1
    s = math.sqrt(0.5)
    if kind == FACE_X:
        return fx, min(max(cy, y0), y1), -float(_sign(q.dx)), 0.0
    if kind == FACE_Y:
        return min(max(cx, x0), x1), fy, 0.0, -float(_sign(q.dy))
    if q.radius > 0.0:
        kx = x0 if cx < x0 else (x1 if cx > x1 else cx)
        ky = y0 if cy < y0 else (y1 if cy > y1 else cy)
        nx, ny = cx - kx, cy - ky
        norm = math.hypot(nx, ny)
        if norm > 0.0:
            return kx, ky, nx / norm, ny / norm
        return kx, ky, -float(_sign(q.dx)) * s, -float(_sign(q.dy)) * s
    return fx, fy, -float(_sign(q.dx)) * s, -float(_sign(q.dy)) * s


@internal
def first_body(q, bodies, t_lim, buf):
    """The first body the shape meets by about ``t_lim``: its index (-1: none); in ``found``."""
    work, cand, num, box, found = (
        buf[:160],
        buf[_CAND:_BEST],
        buf[_NUM:_BOX],
        buf[_BOX:_POS],
        buf[_FOUND:_END],
    )
    found[_KIND] = _EMPTY
    first = -1
    for k in range(bodies.kinds.shape[0]):
        kind = bodies.kinds[k]
        g = bodies.geoms[k]
        cand[_KIND] = _EMPTY
        if kind == BOX:
            box[0], box[1], box[2], box[3] = g[0], g[2], g[1], g[3]
            hit = (
                _circle_contact(q, box, num, work, cand)
                if q.radius > 0.0
                else _box_contact(q, box, num, work, cand)
            )
            if hit and cand[_KIND] != INSIDE:
                t = _time_as_a_box(cand, q)
                px, py, nx, ny = _point_normal(q, int(cand[_KIND]), box, t)
                cand[_KX], cand[_KY], cand[_A0], cand[_A1], cand[_T] = px, py, nx, ny, t
        else:
            hit = _body_contact(q, bodies, k, cand) >= 0
        # (t_lim, a float, only prunes: the order with the cells is decided exactly)
        if not hit or cand[_T] > q.t_max or cand[_T] > t_lim * (1.0 + 1e-6):
            continue
        if cand[_KIND] == INSIDE:
            if found[_KIND] != INSIDE:
                found[:] = cand
                first = k
            continue
        if first < 0 or (found[_KIND] != INSIDE and earlier_time(cand, found, q) < 0):
            found[:] = cand
            first = k
    return first


# ------------------------------------------------------------- placing the shape
@internal
def overlaps_at(view, q, f, pos, work):
    """Exactly: does the shape at ``pos`` (local frame; x terms 0..2, y 3..5) overlap a cell?"""
    circle = q.radius > 0.0
    ex = q.radius if circle else q.hx
    ey = q.radius if circle else q.hy
    px = pos[0] + pos[1] + pos[2]
    py = pos[3] + pos[4] + pos[5]
    c0 = math.floor(min(max((px - ex - f.o_major) / f.s_major, -4.0), f.n_major + 4.0)) - 1
    c1 = math.floor(min(max((px + ex - f.o_major) / f.s_major, -4.0), f.n_major + 4.0)) + 1
    r0 = math.floor(min(max((py - ey - f.o_minor) / f.s_minor, -4.0), f.n_minor + 4.0)) - 1
    r1 = math.floor(min(max((py + ey - f.o_minor) / f.s_minor, -4.0), f.n_minor + 4.0)) + 1
    for col in range(max(c0, -1), min(c1, f.n_major) + 1):
        x0 = f.o_major + col * f.s_major
        x1 = f.o_major + (col + 1) * f.s_major
        for row in range(max(r0, -1), min(r1, f.n_minor) + 1):
            solid = blocks_at(view, row, col) if f.swap else blocks_at(view, col, row)
            if not solid:
                continue
            y0 = f.o_minor + row * f.s_minor
            y1 = f.o_minor + (row + 1) * f.s_minor
            if circle:
                if _circle_overlaps(pos, q.radius, x0, x1, y0, y1, work):
                    return True
            elif _box_overlaps(pos, q.hx, q.hy, x0, x1, y0, y1, work):
                return True
    return False


@internal
def _settle(view, q, f, t, exact, work, pos, bodies):
    """Round ``t`` down until the shape at ``c + t d`` overlaps nothing; ``exact``: that point
    taken exactly, else its float64 rounding. Returns ``(t, x, y)`` (x, y the float64 centre).
    """
    for k in range(200):
        x = q.x + t * q.dx
        y = q.y + t * q.dy
        if exact:
            _position(q.x, t, q.dx, pos, 0)
            _position(q.y, t, q.dy, pos, 3)
        else:
            pos[0], pos[1], pos[2], pos[3], pos[4], pos[5] = x, 0.0, 0.0, y, 0.0, 0.0
        if t <= 0.0 or not (
            overlaps_at(view, q, f, pos, work) or _bodies_overlap(q, bodies, t, exact)
        ):
            return t, x, y
        # one ulp at first, then steps that double (a few ulps suffice in practice)
        t = max(min(np.nextafter(t, -np.inf), t * (1.0 - _U * 2.0 ** min(k, 60))), 0.0)
    return 0.0, q.x, q.y


@internal
def _bodies_overlap(q, bodies, t, exact):
    """:func:`~tilecast._kernels.cast_bodies.bodies_overlap`, through its kernel's address."""
    if bodies.kinds.shape[0] == 0:
        return False
    return call_overlap(load_int64(q.at, 5), q, bodies, t, exact)


@internal
def _round_down(best, q, work):
    """The winner's ``t``: the largest double at most its exact value (rational ones)."""
    t = best[_T]
    if best[_RAT] != 0.0 and best[_KIND] != INSIDE:
        # t * den <= N when den > 0 (>= when den < 0), exactly
        den = best[_DEN]
        for _ in range(8):
            work[0], work[1], work[2] = best[_A0], best[_A1], best[_A2]
            work[3], work[4] = two_prod(-t, den)
            if t <= 0.0 or expansion_sign(work[:5]) * _sign(den) >= 0:
                break
            t = max(np.nextafter(t, -np.inf), 0.0)
        # and the largest such double (the float quotient may be an ulp low), where
        # the product t * den cannot underflow (two_prod exact)
        for _ in range(4):
            up = np.nextafter(t, np.inf)
            if abs(up * den) < 2.0**-960:
                break
            work[0], work[1], work[2] = best[_A0], best[_A1], best[_A2]
            work[3], work[4] = two_prod(-up, den)
            if expansion_sign(work[:5]) * _sign(den) < 0:
                break
            t = up
    return t


@internal
def _distance(t, dx, dy, work, p):
    """``t * |(dx, dy)|`` rounded down: ``dist**2 <= t**2 (dx**2 + dy**2)`` exactly.

    The comparison runs on ``t``, ``(dx, dy)`` and ``dist`` scaled by powers of
    two (exact) to about 1: the squares of a distance near 1e-308 underflow,
    and the unscaled test would pass any ``dist``.
    """
    dist = t * math.hypot(dx, dy)
    if not dist > 0.0:
        return dist
    e_d = math.frexp(max(abs(dx), abs(dy)))[1]
    e_t = math.frexp(t)[1]
    sx, sy, st = math.ldexp(dx, -e_d), math.ldexp(dy, -e_d), math.ldexp(t, -e_t)
    for _ in range(8):
        sd = math.ldexp(dist, -e_d - e_t)
        work[0], work[1] = two_prod(-sd, sd)
        p[0], p[1] = two_prod(st, sx)
        m = _square_into(p, 2, work, 2)
        p[0], p[1] = two_prod(st, sy)
        m = _square_into(p, 2, work, m)
        if expansion_sign(work[:m]) >= 0:
            break
        dist = np.nextafter(dist, 0.0)
        if dist <= 0.0:
            break
    return dist


@internal
def _sticks_out(view, q, f, work):
    """Outside solid: does the shape start partly beyond the map? ``(yes, col, row)`` there."""
    if not view.outside_solid:
        return False, -1, -1
    circle = q.radius > 0.0
    ex = q.radius if circle else q.hx
    ey = q.radius if circle else q.hy
    col = math.floor(min(max((q.x - f.o_major) / f.s_major, -1.0), f.n_major))
    row = math.floor(min(max((q.y - f.o_minor) / f.s_minor, -1.0), f.n_minor))
    out = False
    if _sign3(q.x, -ex, -f.o_major, work) < 0:
        out, col = True, -1
    elif _sign3(q.x, ex, -(f.o_major + f.n_major * f.s_major), work) > 0:
        out, col = True, f.n_major
    if _sign3(q.y, -ey, -f.o_minor, work) < 0:
        out, row = True, -1
    elif _sign3(q.y, ey, -(f.o_minor + f.n_minor * f.s_minor), work) > 0:
        out, row = True, f.n_minor
    return out, col, row


@njit(cache=True)
def shape_cast(view, q, f, bodies):
    """Cast the shape of ``q`` (local frame ``f``: the caller swapped x and y when ``f.swap``).

    ``bodies``: the candidate bodies (local frame). Returns the fields of a
    :class:`CastHit`, in order, as a plain tuple (boxing a named tuple costs
    a class lookup per call), in the *local* frame (the caller swaps back);
    ``body`` the index of the body met, -1 for a cell.
    """
    h = _cast(view, q, f, bodies)
    return (h.status, h.t, h.distance, h.x, h.y, h.normal_x, h.normal_y, h.col, h.row,
            h.inside, h.kind, h.end_x, h.end_y, h.t_end, h.body)  # fmt: skip


@internal
def _cast(view, q, f, bodies):
    """The cast of :func:`shape_cast`, as a :class:`CastHit`."""
    buf = np.empty(_END)
    buf[_CAND + _KIND] = _EMPTY
    buf[_BEST + _KIND] = _EMPTY
    cells = np.zeros(4, dtype=np.int64)
    work, best, pos = buf[:160], buf[_BEST:_NUM], buf[_POS : _POS + 6]
    nan = math.nan
    stuck, col, row = _sticks_out(view, q, f, work)
    if stuck:
        return CastHit(1, 0.0, 0.0, q.x, q.y, 0.0, 0.0, col, row, True, INSIDE, q.x, q.y, 0.0, -1)
    _sweep(view, q, f, buf, cells)
    t_lim = q.t_max if best[_KIND] == _EMPTY else best[_T]
    body = first_body(q, bodies, t_lim, buf)
    if body >= 0 and (best[_KIND] == _EMPTY or _body_first(buf[_FOUND:_END], best, q)):
        return _body_answer(view, q, f, buf, body, bodies)
    if best[_KIND] == _EMPTY:
        if math.isinf(q.t_max) or not q.place:
            return CastHit(0, nan, nan, nan, nan, 0.0, 0.0, -1, -1, False, -1, nan, nan, nan, -1)
        t_end, ex, ey = _settle(view, q, f, q.t_max, False, work, pos, bodies)
        return CastHit(0, nan, nan, nan, nan, 0.0, 0.0, -1, -1, False, -1, ex, ey, t_end, -1)
    return _answer(view, q, f, best, cells[2:], buf, bodies)


@internal
def _body_first(body, cell, q):
    """Does the body contact come strictly before the cell's? (A tie goes to the cell.)"""
    if cell[_KIND] == INSIDE:
        return False
    if body[_KIND] == INSIDE:
        return True
    return earlier_time(body, cell, q) < 0


@internal
def _time_as_a_cell(c, q, work):
    """The time a cell's contact ``c`` is answered at, before settling.

    A rational time rounded down exactly; a corner's float time, which the
    exact overlap test of :func:`_settle` then rounds down (the exact round
    down of a root costs more than the rest of a short cast).
    """
    return _round_down(c, q, work) if c[_RAT] != 0.0 else c[_T]


@internal
def _time_as_a_box(c, q):
    """:func:`_time_as_a_cell` for a box body's contact ``c`` (its exact time definition),
    so that a box body answers exactly as the cell it covers."""
    return exact_round_down(c[_TD:], c[_T], q) if c[_RAT] != 0.0 else c[_T]


@internal
def _body_answer(view, q, f, buf, body, bodies):
    """The CastHit of a body contact (its candidate in ``found``, point and normal set)."""
    work, pos, b = buf[:160], buf[_POS : _POS + 6], buf[_FOUND:_END]
    if b[_KIND] == INSIDE:
        return CastHit(1, 0.0, 0.0, q.x, q.y, 0.0, 0.0, -1, -1, True, INSIDE, q.x, q.y, 0.0, body)
    if bodies.kinds[body] == BOX:  # exactly a cell's answer (the same rule)
        t = _time_as_a_box(b, q)
    else:
        t = exact_round_down(b[_TD:], b[_T], q)
    t, ex, ey = _settle(view, q, f, t, True, work, pos, bodies)
    t_end = t
    if q.place:
        t_end, ex, ey = _settle(view, q, f, t, False, work, pos, bodies)
    dist = _distance(t, q.dx, q.dy, work, buf[_POS + 6 : _POS + 8])
    kind = int(b[_KIND])
    return CastHit(1, t, dist, b[_KX], b[_KY], b[_A0], b[_A1], -1, -1, False, kind, ex, ey,
                   t_end, body)  # fmt: skip


@internal
def _answer(view, q, f, best, best_cell, buf, bodies):
    """Build the CastHit of the winning contact ``best``."""
    work, pos = buf[:160], buf[_POS : _POS + 6]
    kind = int(best[_KIND])
    col, row = best_cell[0], best_cell[1]
    x0 = f.o_major + col * f.s_major
    x1 = f.o_major + (col + 1) * f.s_major
    y0 = f.o_minor + row * f.s_minor
    y1 = f.o_minor + (row + 1) * f.s_minor
    if kind == INSIDE:
        return CastHit(1, 0.0, 0.0, q.x, q.y, 0.0, 0.0, col, row, True, INSIDE, q.x, q.y, 0.0, -1)
    t = _time_as_a_cell(best, q, work)
    t, ex, ey = _settle(view, q, f, t, True, work, pos, bodies)
    t_end = t
    if q.place:
        t_end, ex, ey = _settle(view, q, f, t, False, work, pos, bodies)
    cx = q.x + t * q.dx
    cy = q.y + t * q.dy
    fx = x0 if q.dx > 0.0 else x1
    fy = y0 if q.dy > 0.0 else y1
    if kind == FACE_X:
        px, py, nx, ny = fx, min(max(cy, y0), y1), -float(_sign(q.dx)), 0.0
    elif kind == FACE_Y:
        px, py, nx, ny = min(max(cx, x0), x1), fy, 0.0, -float(_sign(q.dy))
    elif q.radius > 0.0:
        px, py = best[_KX], best[_KY]
        nx, ny = cx - px, cy - py
        norm = math.hypot(nx, ny)
        if norm > 0.0:
            nx, ny = nx / norm, ny / norm
        else:
            nx, ny = -float(_sign(q.dx)) * math.sqrt(0.5), -float(_sign(q.dy)) * math.sqrt(0.5)
    else:
        px, py = fx, fy
        nx, ny = -float(_sign(q.dx)) * math.sqrt(0.5), -float(_sign(q.dy)) * math.sqrt(0.5)
    dist = _distance(t, q.dx, q.dy, work, buf[_POS + 6 : _POS + 8])
    return CastHit(1, t, dist, px, py, nx, ny, col, row, False, kind, ex, ey, t_end, -1)


def shape_cast_signature() -> tuple[object, ...]:
    """The one signature :func:`shape_cast` is compiled for: a WalkMap, a CastQuery, a Frame.

    The engine calls the compiled entry point directly (no type dispatch), so
    it passes exactly these types: float64 fields as floats, ints as ints,
    C-contiguous arrays.
    """
    from numba import typeof

    from tilecast._walkspec import WalkMap

    view = WalkMap(
        np.zeros((4, 3, 3), np.int8), np.zeros((1, 1), np.int32),
        np.zeros((4, 1, 1, 1), np.int8), False, 0, 0.0, 0.0, 1.0, 1.0,
    )  # fmt: skip
    query = CastQuery(0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, True, 0)
    frame = Frame(0.0, 1.0, 1, 0.0, 1.0, 1, False)
    bodies = Bodies(np.zeros(0, np.int64), np.zeros((0, 4)), np.zeros((0, 2)))
    return (typeof(view), typeof(query), typeof(frame), typeof(bodies))


# ------------------------------------------------------------- kernels called by address
# The exact times (tilecast._kernels.surds.exact_time) and the bodies' exact
# contacts and overlaps (tilecast._kernels.cast_bodies: one kernel per body
# kind and shape, one for the overlaps) are compiled once each; shape_cast
# calls them through their addresses (a table at the query's ``at``).
# Linked into every kernel that called them, they were optimised and compiled
# to machine code again in each (a first compile four times longer).

QUERY_TYPE = types.NamedTuple((types.float64,) * 8 + (types.boolean, types.int64), CastQuery)
BODIES_TYPE = types.NamedTuple(
    (types.int64[::1], types.float64[:, ::1], types.float64[:, ::1]), Bodies
)
#: The four contact kernels' one signature: (q, the body's geometry, its points
#: pts[start:start + count], the candidate out) -> the kind or -1.
_POINTS = types.float64[:, ::1]
CONTACT_SIGNATURE = types.int64(
    QUERY_TYPE, types.float64[::1], _POINTS, types.int64, types.int64, types.float64[::1]
)
OVERLAP_SIGNATURE = types.boolean(QUERY_TYPE, BODIES_TYPE, types.float64, types.boolean)
#: The body kernels, in the order of the table (after exact_time): a circle body
#: (circle shape, box shape), a segment or polygon (circle, box), the overlaps.
_BODY_KERNELS = (
    (contact_circle_circle, CONTACT_SIGNATURE),
    (contact_box_circle, CONTACT_SIGNATURE),
    (contact_circle_polygon, CONTACT_SIGNATURE),
    (contact_box_polygon, CONTACT_SIGNATURE),
    (overlap_kernel, OVERLAP_SIGNATURE),
)

call_contact = caller_of(contact_circle_circle, CONTACT_SIGNATURE)  # any of the four
call_overlap = caller_of(overlap_kernel, OVERLAP_SIGNATURE)


@internal
def _body_contact(q, bodies, k, out):
    """The contact with body ``k`` (a circle, segment or polygon) into ``out``: the kind or -1.

    Through the contact kernel of its kind and the shape's.
    """
    kind = bodies.kinds[k]
    g = bodies.geoms[k]
    circle = q.radius > 0.0
    if kind == CIRCLE:
        return call_contact(load_int64(q.at, 1 if circle else 2), q, g, bodies.verts, 0, 0, out)
    if kind == SEGMENT:
        pts = np.empty((2, 2))
        pts[0, 0], pts[0, 1], pts[1, 0], pts[1, 1] = g[0], g[1], g[2], g[3]
        start, count = 0, 2
    else:
        pts, start, count = bodies.verts, int(g[0]), int(g[1])
    return call_contact(load_int64(q.at, 3 if circle else 4), q, g, pts, start, count, out)


def compile_kernels() -> None:
    """Compile (or load) :func:`shape_cast` and the kernels it calls, side by side where there
    are cores (:mod:`tilecast._kernels.jobs`)."""
    from tilecast._kernels.jobs import compile_together

    units = [(shape_cast, shape_cast_signature(), 30.0), (exact_time, EXACT_SIGNATURE.args, 10.0)]
    units += [(kernel, signature.args, 6.0) for kernel, signature in _BODY_KERNELS]
    compile_together(units)


#: The addresses of the kernels a cast calls: exact_time, then the body kernels.
_TABLE = np.zeros(1 + len(_BODY_KERNELS), dtype=np.int64)


def table_address() -> int:
    """The address of the table of the kernels' addresses: a query's ``at``.

    Fills the table (the kernels compiled or loaded if they are not yet);
    it lives as long as this module. One integer per call where the
    addresses themselves would cost a conversion each.
    """
    _TABLE[0] = compiled_address(exact_time, EXACT_SIGNATURE)
    for k, (kernel, signature) in enumerate(_BODY_KERNELS):
        _TABLE[1 + k] = compiled_address(kernel, signature)
    address: int = _TABLE.ctypes.data
    return address


def entry_point() -> Any:
    """The compiled :func:`shape_cast`'s entry point (no type dispatch), after
    :func:`compile_kernels`."""
    return shape_cast.overloads[shape_cast_signature()].entry_point
