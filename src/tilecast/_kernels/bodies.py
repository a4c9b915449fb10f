"""The compiled spatial hash of bodies: bucket building, range queries and ray queries (Numba).

The hash's state is one :data:`HashState` record of NumPy arrays (see
:class:`tilecast.spatial_hash.SpatialHash`): per slot the ``kind``, the
geometry ``geom`` (box ``x0 y0 x1 y1``, segment ``ax ay bx by``, circle
``cx cy r 0``, polygon: its bounding box) and for a polygon its vertices
``verts[vstart : vstart + vcount]`` (counter-clockwise, convex), the
``layers`` bits and the caller's ``ids``; the buckets are a hash table in
CSR form (``starts`` ``(T + 1,)``, ``entries``: slots) over the hash cells
``(i, j)``, built by :func:`build_buckets` after edits; objects spanning more
than :data:`LARGE` cells are listed in ``large`` and tested by every query.

Candidates come from the buckets; every decision is then made on the
object's exact shape (:mod:`tilecast._kernels.shapes` for rays, exact
predicates for rectangles and discs). A ray's candidates come from the hash
cells it passes, visited in its order by the grid walk of
:mod:`tilecast._kernels.walk` over the hash's cells (its exact crossing
order, its landing; no float walk with a margin): the cell of the ray's
origin, each cell the walk enters and the cell of each lattice point it
passes (a body touching the ray only there is filed in it); a first-contact
query stops once the walk's next crossing comes strictly after its best
contact (exactly compared).

Filing: an object is filed in every hash cell ``[i, i+1) x [j, j+1)`` its
bounding box meets in hash tile space ``((x - ox) / w, (y - oy) / h)``.
Where that map is exact (origin 0, power-of-two cell sizes: the default)
boxes and polygons are filed exactly and a circle's rounded ``cx - r`` is
corrected exactly; otherwise every box is widened by :data:`_FILE_SLACK`
cells plus a few ulps of its coordinates, more than rounding can move a ray
(or a box) there, so the cells the walk visits on the rounded ray still
hold every object the exact ray meets. Segments are filed column by column
with a slack of their own.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from tilecast._kernels import internal
from tilecast._kernels.exact import two_sum
from tilecast._kernels.geometry import orient2d
from tilecast._kernels.shapes import (
    MISS,
    ZERO,
    Contact,
    axis_contact,
    contact_normal,
    contact_order,
    ex_add,
    ex_diff,
    ex_dot,
    ex_mul,
    ex_sign,
    ex_value,
    miss,
    ray_box,
    ray_circle,
    ray_polygon,
    ray_segment,
)
from tilecast._kernels.walk import NO_LIMIT, Line, first_cell, land, left_for_good, order_at
from tilecast._walkspec import OFF_EMPTY, SAFE_DIRECTION, SAFE_LARGE, SAFE_SMALL

FREE, BOX, SEGMENT, CIRCLE, POLYGON = 0, 1, 2, 3, 4
#: Objects spanning more hash cells than this are listed apart, not in buckets.
LARGE = 4096
#: How far (in hash cells) an object's filed cells reach beyond its box where the
#: map to hash tile space rounds (see the module docstring); a ray whose
#: rounded origin may be off by more (about 2**20 cells out) tests every object.
_FILE_SLACK = 2.0**-30
_EPS = 2.0**-53
_CLAMP = 2.0**62
# Shapes beyond this magnitude are scaled by a power of two for the float contact.
_SAFE_MAGNITUDE = 2.0**500

HashState = namedtuple(
    "HashState",
    ["kind", "geom", "layers", "ids", "vstart", "vcount", "verts", "starts", "entries",
     "large", "frame", "extent"],
)  # fmt: skip
"""``frame``: ``(ox, oy, w, h)`` float64; ``extent``: ``(i0, j0, i1, j1)`` int64 of the buckets."""


# ------------------------------------------------------------ hash cells
@internal
def ifloor(u):
    return np.int64(math.floor(min(max(u, -_CLAMP), _CLAMP)))


@internal
def cell_range(frame, x0, y0, x1, y1):
    ox, oy, w, h = frame[0], frame[1], frame[2], frame[3]
    return (ifloor((x0 - ox) / w), ifloor((y0 - oy) / h), ifloor((x1 - ox) / w),
            ifloor((y1 - oy) / h))  # fmt: skip


@internal
def frame_exact(frame):
    """Is the map to hash tile space exact for every double (origin 0, power-of-two sizes)?"""
    return (frame[0] == 0.0 and frame[1] == 0.0 and math.frexp(frame[2])[0] == 0.5
            and math.frexp(frame[3])[0] == 0.5)  # fmt: skip


@internal
def _low_end(a, b, size, i):
    """Column ``i`` of ``a - b`` rounded, moved back one where the exact difference lies
    just below the grid line the rounding reached (``size`` a power of two)."""
    lo, err = two_sum(a, -b)
    u = lo / size
    return i - 1 if err < 0.0 and math.floor(u) == u else i


@internal
def filed_range(kind, g, frame):
    """The hash cells ``(i0, j0, i1, j1)`` a box, circle or polygon (its box) is filed in.

    Every cell its bounding box meets in tile space; see the module
    docstring for the rounding (exact, or widened by :data:`_FILE_SLACK`).
    """
    if kind == CIRCLE:
        x0, y0, x1, y1 = g[0] - g[2], g[1] - g[2], g[0] + g[2], g[1] + g[2]
    else:
        x0, y0, x1, y1 = g[0], g[1], g[2], g[3]
    if frame_exact(frame):
        i0, j0, i1, j1 = cell_range(frame, x0, y0, x1, y1)
        if kind == CIRCLE:  # cx - r may round up onto a line: the exact end is in the cell before
            i0 = _low_end(g[0], g[2], frame[2], i0)
            j0 = _low_end(g[1], g[2], frame[3], j0)
        return i0, j0, i1, j1
    ox, oy, w, h = frame[0], frame[1], frame[2], frame[3]
    u0, v0, u1, v1 = (x0 - ox) / w, (y0 - oy) / h, (x1 - ox) / w, (y1 - oy) / h
    su = _FILE_SLACK + 8.0 * _EPS * max(abs(u0), abs(u1))
    sv = _FILE_SLACK + 8.0 * _EPS * max(abs(v0), abs(v1))
    su = su if math.isfinite(su) else 0.0  # an infinite end is clamped as it is
    sv = sv if math.isfinite(sv) else 0.0
    return ifloor(u0 - su), ifloor(v0 - sv), ifloor(u1 + su), ifloor(v1 + sv)


@internal
def bucket(i, j, mask):
    key = (i * np.int64(-7046029254386353131)) ^ (j * np.int64(-4658895280553007687))
    key ^= key >> np.int64(29)
    return key & mask


@internal
def _segment_column(frame, g, i, slack, ua, va, ub, vb):
    """Rows ``(lo, hi)`` of a segment's (widened) piece in column ``i``."""
    lo_u, hi_u = max(ua, i - slack), min(ub, i + 1.0 + slack)
    if ub > ua:
        v_lo = va + (vb - va) * ((lo_u - ua) / (ub - ua))
        v_hi = va + (vb - va) * ((hi_u - ua) / (ub - ua))
    else:
        v_lo, v_hi = va, vb
    lo, hi = min(v_lo, v_hi), max(v_lo, v_hi)
    return ifloor(lo - slack), ifloor(hi + slack)


@internal
def _segment_frame(frame, g):
    ox, oy, w, h = frame[0], frame[1], frame[2], frame[3]
    ua, va, ub, vb = (g[0] - ox) / w, (g[1] - oy) / h, (g[2] - ox) / w, (g[3] - oy) / h
    if ua > ub:
        ua, va, ub, vb = ub, vb, ua, va
    slack = 1.5e-14 * (1.0 + abs(ua) + abs(ub) + abs(va) + abs(vb))
    if not frame_exact(frame):
        slack += _FILE_SLACK
    return ua, va, ub, vb, slack


@internal
def slot_cells(kind, g, frame, out):
    """Write the hash cells of one object into ``out`` ``(K, 2)`` (if it fits); return K.

    More than ``out`` holds (or than :data:`LARGE`): returns ``LARGE + 1``.
    """
    if kind == SEGMENT:
        ua, va, ub, vb, slack = _segment_frame(frame, g)
        if not (ub - ua) + abs(vb - va) + 4.0 * slack + 4.0 <= LARGE / 2:
            return LARGE + 1
        n = 0
        for i in range(ifloor(ua - slack), ifloor(ub + slack) + 1):
            lo, hi = _segment_column(frame, g, i, slack, ua, va, ub, vb)
            for j in range(lo, hi + 1):
                if n < out.shape[0]:
                    out[n, 0], out[n, 1] = i, j
                n += 1
        return n if n <= out.shape[0] else LARGE + 1
    i0, j0, i1, j1 = filed_range(kind, g, frame)
    if (float(i1) - float(i0) + 1.0) * (float(j1) - float(j0) + 1.0) > LARGE:
        return LARGE + 1
    n = 0
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            if n < out.shape[0]:
                out[n, 0], out[n, 1] = i, j
            n += 1
    return n if n <= out.shape[0] else LARGE + 1


@njit(cache=True, nogil=True)
def build_buckets(kind, geom, frame):
    """The buckets of every live slot: ``(starts, entries, large, extent)``."""
    n_slots = kind.shape[0]
    cells = np.empty((LARGE + 1, 2), dtype=np.int64)
    counts = np.zeros(n_slots, dtype=np.int64)
    total = 0
    n_large = 0
    extent = np.array([1, 1, 0, 0], dtype=np.int64)  # empty
    for s in range(n_slots):
        if kind[s] == FREE:
            continue
        n = slot_cells(kind[s], geom[s], frame, cells)
        if n > LARGE:
            n_large += 1
            counts[s] = -1
            continue
        counts[s] = n
        total += n
        for k in range(n):
            i, j = cells[k, 0], cells[k, 1]
            if extent[0] > extent[2]:
                extent[0], extent[1], extent[2], extent[3] = i, j, i, j
            else:
                extent[0], extent[1] = min(extent[0], i), min(extent[1], j)
                extent[2], extent[3] = max(extent[2], i), max(extent[3], j)
    size = 64
    while size < 2 * total:
        size *= 2
    mask = np.int64(size - 1)
    starts = np.zeros(size + 1, dtype=np.int64)
    large = np.empty(n_large, dtype=np.int64)
    n_large = 0
    for s in range(n_slots):
        if counts[s] == -1:
            large[n_large] = s
            n_large += 1
        elif counts[s] > 0:
            n = slot_cells(kind[s], geom[s], frame, cells)
            for k in range(n):
                starts[bucket(cells[k, 0], cells[k, 1], mask) + 1] += 1
    for b in range(size):
        starts[b + 1] += starts[b]
    fill = starts[:-1].copy()
    entries = np.empty(total, dtype=np.int64)
    for s in range(n_slots):
        if counts[s] > 0:
            n = slot_cells(kind[s], geom[s], frame, cells)
            for k in range(n):
                b = bucket(cells[k, 0], cells[k, 1], mask)
                entries[fill[b]] = s
                fill[b] += 1
    return starts, entries, large, extent


# ---------------------------------------------------------- candidates
@internal
def _push(found, n, slot):
    if n >= found.shape[0]:
        bigger = np.empty(2 * found.shape[0], dtype=np.int64)
        bigger[:n] = found[:n]
        found = bigger
    found[n] = slot
    return found, n + 1


@internal
def candidates_in(state, i0, j0, i1, j1):
    """Slots filed in the hash cells ``[i0, i1] x [j0, j1]`` and the large ones (unique, sorted)."""
    found = np.empty(16, dtype=np.int64)
    n = 0
    for k in range(state.large.shape[0]):
        found, n = _push(found, n, state.large[k])
    e = state.extent
    i0, j0, i1, j1 = max(i0, e[0]), max(j0, e[1]), min(i1, e[2]), min(j1, e[3])
    n_cells = (float(i1) - float(i0) + 1.0) * (float(j1) - float(j0) + 1.0)
    if i0 <= i1 and j0 <= j1:
        if n_cells > state.entries.shape[0]:
            for s in range(state.kind.shape[0]):  # fewer objects than cells: every object
                if state.kind[s] != FREE:
                    found, n = _push(found, n, s)
        else:
            mask = np.int64(state.starts.shape[0] - 2)
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    b = bucket(i, j, mask)
                    for k in range(state.starts[b], state.starts[b + 1]):
                        found, n = _push(found, n, state.entries[k])
    out = np.unique(found[:n])
    return out


# ---------------------------------------------------- exact range tests
#: A range test that cannot decide in float64 expansions (answers -1, 0, 1 otherwise).
UNDECIDED = 2
# Expansion components of the scaled inputs must stay above these for the
# products (degree 2, degree 4) to be exact, no underflow.
_FLOOR_2 = 2.0**-480
_FLOOR_4 = 2.0**-240


@internal
def _scale_of(a, b, c, d, e, f, g):
    big = max(abs(a), abs(b), abs(c), abs(d), abs(e), abs(f), abs(g))
    return 0 if big == 0.0 else -math.frexp(big)[1]


@internal
def _sc(x, k):
    """``x * 2**k`` and whether that is exact."""
    y = math.ldexp(x, k)
    return y, math.ldexp(y, -k) == x


@internal
def _small(e, floor):
    for v in e:
        if v != 0.0 and abs(v) < floor:
            return True
    return False


@internal
def _dist2_sign(x, y, qx, qy, r):
    """Exact sign of ``|(x, y) - (qx, qy)|**2 - r**2``, or UNDECIDED."""
    k = _scale_of(x, y, qx, qy, r, 0.0, 0.0)
    x, ok1 = _sc(x, k)
    y, ok2 = _sc(y, k)
    qx, ok3 = _sc(qx, k)
    qy, ok4 = _sc(qy, k)
    r, ok5 = _sc(r, k)
    fx, fy, rr = ex_diff(x, qx), ex_diff(y, qy), ex_value(r)
    if not (ok1 and ok2 and ok3 and ok4 and ok5):
        return UNDECIDED
    if _small(fx, _FLOOR_2) or _small(fy, _FLOOR_2) or _small(rr, _FLOOR_2):
        return UNDECIDED
    return ex_sign(ex_add(ex_dot(fx, fy, fx, fy), ex_mul(rr, rr), -1))


@internal
def _le(sign):
    """A predicate's answer from a sign ``<= 0`` test: 1 true, 0 false, UNDECIDED."""
    if sign == UNDECIDED:
        return UNDECIDED
    return 1 if sign <= 0 else 0


@internal
def _circle_meets_rect(cx, cy, r, x0, y0, x1, y1):
    qx = min(max(cx, x0), x1)
    qy = min(max(cy, y0), y1)
    dx, dy = cx - qx, cy - qy
    d2 = dx * dx + dy * dy
    rr = r * r
    if d2 > 1.0000001 * rr and d2 > 1e-290:
        return 0
    if d2 < 0.9999999 * rr and rr > 1e-290 and d2 > 1e-290:
        return 1
    return _le(_dist2_sign(cx, cy, qx, qy, r))


@internal
def _segment_meets_rect(ax, ay, bx, by, x0, y0, x1, y1):
    if min(ax, bx) > x1 or max(ax, bx) < x0 or min(ay, by) > y1 or max(ay, by) < y0:
        return 0
    pos, neg = 0, 0
    for k in range(4):
        cx = x0 if k == 0 or k == 3 else x1
        cy = y0 if k < 2 else y1
        s = orient2d(ax, ay, bx, by, cx, cy)
        if s == UNDECIDED:
            return UNDECIDED
        if s == 1:
            pos += 1
        elif s == -1:
            neg += 1
    return 0 if (pos == 4 or neg == 4) else 1


@internal
def _apart(x0, y0, x1, y1, cx, cy, r):
    """True when the box ``[x0, x1] x [y0, y1]`` certainly misses the disc's bounding box."""
    reach = r + 2.0**-50 * (abs(cx) + abs(cy) + r)
    return x0 - cx > reach or cx - x1 > reach or y0 - cy > reach or cy - y1 > reach


@internal
def _segment_meets_circle(ax, ay, bx, by, cx, cy, r):
    if _apart(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), cx, cy, r):
        return 0
    k = _scale_of(ax, ay, bx, by, cx, cy, r)
    sax, ok1 = _sc(ax, k)
    say, ok2 = _sc(ay, k)
    sbx, ok3 = _sc(bx, k)
    sby, ok4 = _sc(by, k)
    scx, ok5 = _sc(cx, k)
    scy, ok6 = _sc(cy, k)
    if not (ok1 and ok2 and ok3 and ok4 and ok5 and ok6):
        return UNDECIDED
    ex, ey = ex_diff(sbx, sax), ex_diff(sby, say)
    wax, way = ex_diff(scx, sax), ex_diff(scy, say)
    wbx, wby = ex_diff(scx, sbx), ex_diff(scy, sby)
    for e in (ex, ey, wax, way, wbx, wby):
        if _small(e, _FLOOR_4):
            return UNDECIDED
    if ex_sign(ex_dot(wax, way, ex, ey)) <= 0:
        return _le(_dist2_sign(cx, cy, ax, ay, r))
    if ex_sign(ex_dot(wbx, wby, ex, ey)) >= 0:
        return _le(_dist2_sign(cx, cy, bx, by, r))
    # the foot of the perpendicular lies inside: cross**2 <= r**2 |e|**2
    sr, ok7 = _sc(r, k)
    rr = ex_value(sr)
    if not ok7 or _small(rr, _FLOOR_4):
        return UNDECIDED
    cross = ex_add(ex_mul(wax, ey), ex_mul(way, ex), -1)
    rhs = ex_mul(ex_mul(rr, rr), ex_dot(ex, ey, ex, ey))
    return _le(ex_sign(ex_add(ex_mul(cross, cross), rhs, -1)))


@internal
def _circle_meets_circle(x, y, r, cx, cy, cr):
    if _apart(x - r, y - r, x + r, y + r, cx, cy, cr):
        return 0
    k = _scale_of(x, y, r, cx, cy, cr, 0.0)
    x, ok1 = _sc(x, k)
    y, ok2 = _sc(y, k)
    r, ok3 = _sc(r, k)
    cx, ok4 = _sc(cx, k)
    cy, ok5 = _sc(cy, k)
    cr, ok6 = _sc(cr, k)
    fx, fy = ex_diff(x, cx), ex_diff(y, cy)
    rs = ex_add(ex_value(r), ex_value(cr), 1)
    if not (ok1 and ok2 and ok3 and ok4 and ok5 and ok6):
        return UNDECIDED
    if _small(fx, _FLOOR_2) or _small(fy, _FLOOR_2) or _small(rs, _FLOOR_2):
        return UNDECIDED
    return _le(ex_sign(ex_add(ex_dot(fx, fy, fx, fy), ex_mul(rs, rs), -1)))


@internal
def _vertices(state, s):
    start, count = state.vstart[s], state.vcount[s]
    count = max(0, min(count, state.verts.shape[0] - start)) if start >= 0 else 0
    return state.verts[start : start + count]


@internal
def _inside_polygon(v, px, py):
    """1 when the point is in or on the convex polygon, 0 when not, or UNDECIDED."""
    n = v.shape[0]
    for k in range(n):
        s = orient2d(v[k, 0], v[k, 1], v[(k + 1) % n, 0], v[(k + 1) % n, 1], px, py)
        if s == UNDECIDED:
            return UNDECIDED
        if s == -1:
            return 0
    return 1 if n > 0 else 0


@internal
def _polygon_meets_rect(v, x0, y0, x1, y1):
    n = v.shape[0]
    unsure = False
    for k in range(n):
        m = _segment_meets_rect(v[k, 0], v[k, 1], v[(k + 1) % n, 0], v[(k + 1) % n, 1],
                                x0, y0, x1, y1)  # fmt: skip
        if m == 1:
            return 1
        unsure = unsure or m == UNDECIDED
    if unsure:
        return UNDECIDED
    # no edge meets the rectangle: one holds the other, or they are apart
    if x0 <= v[0, 0] <= x1 and y0 <= v[0, 1] <= y1:
        return 1
    return _inside_polygon(v, x0, y0)


@internal
def _polygon_meets_circle(v, cx, cy, r):
    n = v.shape[0]
    if _apart(v[:, 0].min(), v[:, 1].min(), v[:, 0].max(), v[:, 1].max(), cx, cy, r):
        return 0
    inside = _inside_polygon(v, cx, cy)
    if inside == 1:
        return 1
    unsure = inside == UNDECIDED
    for k in range(n):
        m = _segment_meets_circle(v[k, 0], v[k, 1], v[(k + 1) % n, 0], v[(k + 1) % n, 1],
                                  cx, cy, r)  # fmt: skip
        if m == 1:
            return 1
        unsure = unsure or m == UNDECIDED
    return UNDECIDED if unsure else 0


@internal
def _sorted_answer(state, out, n, unsure, m):
    ids = np.sort(out[:n])
    return ids, unsure[:m].copy()


@njit(cache=True, nogil=True)
def query_rect(state, rect):
    """Ids of the objects meeting the closed rectangle, ascending, and the undecided slots.

    A slot whose test cannot be decided in float64 expansions (coordinates
    of wildly different magnitudes) is answered apart, for the caller to
    decide in rational arithmetic.
    """
    x0, y0, x1, y1 = rect[0], rect[1], rect[2], rect[3]
    i0, j0, i1, j1 = cell_range(state.frame, x0, y0, x1, y1)
    slots = candidates_in(state, i0, j0, i1, j1)
    out = np.empty(slots.shape[0], dtype=np.int64)
    unsure = np.empty(slots.shape[0], dtype=np.int64)
    n, m = 0, 0
    for s in slots:
        g = state.geom[s]
        kind = state.kind[s]
        if kind == BOX:
            ok = 1 if (g[0] <= x1 and g[2] >= x0 and g[1] <= y1 and g[3] >= y0) else 0
        elif kind == SEGMENT:
            ok = _segment_meets_rect(g[0], g[1], g[2], g[3], x0, y0, x1, y1)
        elif kind == CIRCLE:
            ok = _circle_meets_rect(g[0], g[1], g[2], x0, y0, x1, y1)
        elif kind == POLYGON:
            ok = _polygon_meets_rect(_vertices(state, s), x0, y0, x1, y1)
        else:
            ok = 0
        if ok == 1:
            out[n] = state.ids[s]
            n += 1
        elif ok == UNDECIDED:
            unsure[m] = s
            m += 1
    return _sorted_answer(state, out, n, unsure, m)


@njit(cache=True, nogil=True)
def query_circle(state, cx, cy, r):
    """Ids of the objects meeting the closed disc, ascending, and the undecided slots."""
    i0, j0, i1, j1 = cell_range(state.frame, cx - r, cy - r, cx + r, cy + r)
    slots = candidates_in(state, i0, j0, i1, j1)
    out = np.empty(slots.shape[0], dtype=np.int64)
    unsure = np.empty(slots.shape[0], dtype=np.int64)
    n, m = 0, 0
    for s in slots:
        g = state.geom[s]
        kind = state.kind[s]
        if kind == BOX:
            ok = _circle_meets_rect(cx, cy, r, g[0], g[1], g[2], g[3])
        elif kind == SEGMENT:
            ok = _segment_meets_circle(g[0], g[1], g[2], g[3], cx, cy, r)
        elif kind == CIRCLE:
            ok = _circle_meets_circle(g[0], g[1], g[2], cx, cy, r)
        elif kind == POLYGON:
            ok = _polygon_meets_circle(_vertices(state, s), cx, cy, r)
        else:
            ok = 0
        if ok == 1:
            out[n] = state.ids[s]
            n += 1
        elif ok == UNDECIDED:
            unsure[m] = s
            m += 1
    return _sorted_answer(state, out, n, unsure, m)


# ---------------------------------------------------------------- rays
@internal
def body_contact(state, s, ray):
    """The exact first contact of the ray with slot ``s`` (geometry scaled when huge)."""
    kind = state.kind[s]
    g = state.geom[s]
    if kind == BOX:
        return ray_box(ray, g[0], g[1], g[2], g[3])
    if kind == SEGMENT:
        return ray_segment(ray, g[0], g[1], g[2], g[3])
    if kind == CIRCLE:
        return ray_circle(ray, g[0], g[1], g[2])
    if kind == POLYGON:
        v = _vertices(state, s)
        if v.shape[0] < 3:
            return miss()
        return ray_polygon(ray, v)
    return miss()


@internal
def scaled_contact(state, s, ray):
    """:func:`body_contact` with huge shapes scaled down by a power of two (t scaled back).

    Returns the contact (its ``t`` in the ray's own units) and whether it was
    scaled (then its exact ingredients are not the ray's: compared by ``t``).
    """
    g = state.geom[s]
    big = max(abs(ray[0]), abs(ray[1]), abs(g[0]), abs(g[1]), abs(g[2]), abs(g[3]))
    if big <= _SAFE_MAGNITUDE or state.kind[s] == POLYGON:
        return body_contact(state, s, ray), False
    shift = -math.frexp(big)[1]
    sg = np.empty(4)
    for k in range(4):
        sg[k] = math.ldexp(g[k], shift)
    sray = (math.ldexp(ray[0], shift), math.ldexp(ray[1], shift), ray[2], ray[3])
    kind = state.kind[s]
    if kind == BOX:
        c = ray_box(sray, sg[0], sg[1], sg[2], sg[3])
    elif kind == SEGMENT:
        c = ray_segment(sray, sg[0], sg[1], sg[2], sg[3])
    else:
        c = ray_circle(sray, sg[0], sg[1], sg[2])
    t = math.ldexp(c.t, -shift) if c.kind != MISS else math.inf
    err = math.ldexp(c.err, -shift) if c.kind != MISS else 0.0
    if not math.isfinite(t):
        return miss(), True
    return Contact(c.kind, t, err, c.g0, c.g1, c.g2, c.g3), True


# ------------------------------------------------------ the walk over hash cells
@internal
def hash_line(state, ray):
    """The ray ``(px, py, dx, dy)`` in hash tile space, as the grid walk's :class:`Line`.

    Returns ``(ok, line)``. Tile space is the hash's: cell ``(i, j)`` is
    ``[i, i+1) x [j, j+1)`` of ``((x - ox) / w, (y - oy) / h)``. ``ok`` False:
    the walk cannot be used (every object is a candidate instead): the tile
    numbers leave the walk's proven range, rounding lost a direction or
    origin component, or (frame not exact) the origin is so far out that
    rounding it may move the ray by more than the filing slack.
    """
    f = state.frame
    px, py, dx, dy = ray
    u0, v0 = (px - f[0]) / f[2], (py - f[1]) / f[3]
    du, dv = dx / f[2], dy / f[3]
    ok = (_safe(u0, SAFE_LARGE) and _safe(v0, SAFE_LARGE) and _safe(du, SAFE_DIRECTION)
          and _safe(dv, SAFE_DIRECTION) and (du == 0.0) == (dx == 0.0)
          and (dv == 0.0) == (dy == 0.0) and (u0 == 0.0) == (px == f[0])
          and (v0 == 0.0) == (py == f[1]))  # fmt: skip
    if not frame_exact(f):
        ok = ok and 8.0 * _EPS * (abs(u0) + abs(v0)) <= _FILE_SLACK
    sx = np.int64(1) if du > 0.0 else (np.int64(-1) if du < 0.0 else np.int64(0))
    sy = np.int64(1) if dv > 0.0 else (np.int64(-1) if dv < 0.0 else np.int64(0))
    i0 = np.int64(first_cell(u0, du)) if ok else np.int64(0)
    j0 = np.int64(first_cell(v0, dv)) if ok else np.int64(0)
    quadrant = np.int64((1 if sx < 0 else 0) + (2 if sy < 0 else 0))
    line = Line(u0, v0, du, dv, abs(du), abs(dv), 0.0, 0.0, sx, sy, 1.0, dx, dy, i0, j0, i0, j0,
                NO_LIMIT, NO_LIMIT, quadrant, np.int64(1), np.int64(1), np.int64(0),
                np.int64(0), np.int64(OFF_EMPTY))  # fmt: skip
    return ok, line


@internal
def _safe(x, large):
    return x == 0.0 or SAFE_SMALL <= abs(x) <= large


@internal
def _in_extent(e, i, j):
    return e[0] <= i <= e[2] and e[1] <= j <= e[3]


@internal
def _enter_extent(line, e):
    """Bring the walk from its first cell to the buckets' extent (cells ``e``).

    Returns ``(outcome, i, j, nx, ny)``: outcome 0 with the walk's state in
    the extent or just before it enters (the cells skipped are outside it:
    no object is filed there), 1 when the ray never enters it. The landing
    is the grid walk's own (exact); a float misjudgement only lands short.
    """
    i, j, sx, sy = line.i0, line.j0, line.sx, line.sy
    nx = i + 1 if sx > 0 else i
    ny = j + 1 if sy > 0 else j
    if ((i < e[0] and sx <= 0) or (i > e[2] and sx >= 0) or (j < e[1] and sy <= 0)
            or (j > e[3] and sy >= 0)):  # fmt: skip
        return 1, i, j, nx, ny
    has_x, has_y = i < e[0] or i > e[2], j < e[1] or j > e[3]
    if not (has_x or has_y):
        return 0, i, j, nx, ny
    x_line = e[0] if i < e[0] else e[2] + 1
    y_line = e[1] if j < e[1] else e[3] + 1
    x_exit = e[2] + 1 if sx > 0 else e[0]
    y_exit = e[3] + 1 if sy > 0 else e[1]
    if has_y and sx != 0 and order_at(line, x_exit, y_line) < 0:
        return 1, i, j, nx, ny  # it leaves the columns before it reaches the rows
    if has_x and sy != 0 and order_at(line, x_line, y_exit) > 0:
        return 1, i, j, nx, ny
    seek_x = has_x
    if has_x and has_y:
        seek_x = (x_line - line.u0) / line.du >= (y_line - line.v0) / line.dv
    i, j, nx, ny = land(line, seek_x, x_line, y_line, i, j, nx, ny, i, j)
    return 0, i, j, nx, ny


@internal
def _next_crossing(line, nx, ny):
    """The walk's next event (-1 the column line ``nx``, 1 the row line ``ny``, 0 both: a
    lattice point), exactly, and its crossing as an AXIS contact (tile space)."""
    if line.sx == 0:
        event = np.int64(1)
    elif line.sy == 0:
        event = np.int64(-1)
    else:
        event = np.int64(order_at(line, nx, ny))
    if event <= 0:
        return event, axis_contact(float(nx), line.u0, line.du, 0.0)
    return event, axis_contact(float(ny), line.v0, line.dv, 1.0)


@internal
def _passed(ray, crossing, best, limit_t):
    """Has the walk passed ``best`` (with none: ``limit_t``): its crossing strictly after?"""
    if best.kind == MISS:
        return crossing.t - crossing.err > limit_t
    if best.err == 0.0 and best.kind != ZERO:  # a huge shape's contact: its float t alone
        return crossing.t - crossing.err > best.t
    if crossing.t + crossing.err < best.t - best.err:
        return False  # surely before it (contact_order's own filter, without the call)
    return contact_order(ray, crossing, best) > 0


@internal
def walk_plan(state, ray, t_end):
    """How a ray's candidates are found: ``(how, line)``.

    ``how`` 0: walk the hash cells (:func:`hash_line`'s line); 1: the ray
    misses the buckets' extent (only the large objects); 2: test every
    object (the walk cannot be used, or would visit more cells than the
    buckets hold entries).
    """
    ok, line = hash_line(state, ray)
    e = state.extent
    if e[0] > e[2]:
        return 1, line
    if not ok:
        return 2, line
    # the ray's parameters over the extent (one cell of margin), for the walk's cost
    t_lo, t_hi = 0.0, t_end
    for axis in range(2):
        p, d = (line.u0, line.du) if axis == 0 else (line.v0, line.dv)
        lo = (e[0] if axis == 0 else e[1]) - 1.0
        hi = (e[2] if axis == 0 else e[3]) + 2.0
        if d == 0.0:
            if not lo <= p <= hi:
                return 1, line
            continue
        ta, tb = (lo - p) / d, (hi - p) / d
        t_lo, t_hi = max(t_lo, min(ta, tb)), min(t_hi, max(ta, tb))
    if not t_lo <= t_hi:
        return 1, line
    cells = (t_hi - t_lo) * (abs(line.du) + abs(line.dv)) + 4.0
    if not cells <= 4.0 * state.entries.shape[0] + 64.0:
        return 2, line
    return 0, line


@internal
def walk_step(line, i, j, nx, ny, event):
    """Move the walk across its next crossing (``event`` from :func:`_next_crossing`).

    Returns ``(i, j, nx, ny, ci, cj)``: the cell entered and the lines ahead
    of it, and the cell ``(ci, cj)`` of the crossing point at a lattice point
    (a body touching the ray only there is filed in it; ``ci`` is ``i`` of
    the cell entered elsewhere).
    """
    ci, cj = i, j
    if event == 0:
        ci, cj = nx, ny
        i += line.sx
        j += line.sy
        nx += line.sx
        ny += line.sy
    elif event < 0:
        i += line.sx
        nx += line.sx
    else:
        j += line.sy
        ny += line.sy
    if ci == i - line.sx and cj == j - line.sy:
        ci, cj = i, j  # not a lattice point, or its cell is the one entered: nothing more
    return i, j, nx, ny, ci, cj


@internal
def left_extent(line, e, i, j):
    """The walk is beyond the extent and moving away from it on some axis."""
    return left_for_good(i - e[0], j - e[1], e[2] - e[0] + 1, e[3] - e[1] + 1, line.sx, line.sy)


@internal
def _wanted(state, s, mask, ignore):
    if state.kind[s] == FREE or (np.uint32(state.layers[s]) & np.uint32(mask)) == 0:
        return False
    if ignore.shape[0] > 0:
        k = np.searchsorted(ignore, s)
        if k < ignore.shape[0] and ignore[k] == s:
            return False
    return True


@internal
def _better(state, ray, s, c, best, best_slot):
    """Does slot ``s``'s contact ``c`` come before ``best`` (a cell's when ``best_slot < 0``)?

    Strictly before a cell's contact (the cell wins a tie); between bodies,
    the earlier contact, and on an exact tie the smaller id.
    """
    if c.kind == MISS:
        return False
    order = contact_order(ray, c, best)
    if order < 0:
        return True
    return order == 0 and best_slot >= 0 and state.ids[s] < state.ids[best_slot]


@internal
def _consider(state, ray, s, limit_t, best, best_slot):
    c, scaled = scaled_contact(state, s, ray)
    if scaled:  # huge shapes: compared by their float parameters alone
        c = Contact(c.kind, c.t, 0.0, c.g0, c.g1, c.g2, c.g3)
        if c.kind != MISS and best.kind != MISS and best.err == 0.0:
            if c.t < best.t or (c.t == best.t and best_slot >= 0
                                and state.ids[s] < state.ids[best_slot]):  # fmt: skip
                return c, s
            return best, best_slot
    if c.kind != MISS and c.t - c.err <= limit_t and _better(state, ray, s, c, best, best_slot):
        return c, s
    return best, best_slot


@internal
def _visit(state, ray, i, j, limit_t, mask, ignore, best, best_slot):
    """Consider the wanted objects filed in hash cell ``(i, j)`` (if it is in the extent)."""
    if not _in_extent(state.extent, i, j):
        return best, best_slot
    b = bucket(i, j, np.int64(state.starts.shape[0] - 2))
    for k in range(state.starts[b], state.starts[b + 1]):
        s = state.entries[k]
        if s != best_slot and _wanted(state, s, mask, ignore):
            best, best_slot = _consider(state, ray, s, limit_t, best, best_slot)
    return best, best_slot


@internal
def first_body(state, ray, wall, limit_t, mask, ignore):
    """The first contact among the bodies that beats ``wall`` (a cell's contact, or a MISS).

    Returns ``(contact, slot)``; slot -1 when no body comes strictly before
    the wall (or within ``limit_t`` when there is none). The hash cells are
    visited in the ray's order by the grid walk (exact), from the cell of
    the ray's origin, each lattice point's own cell too (a body touching the
    ray only there is filed in it); the walk stops once its next crossing
    comes strictly after the best contact so far.
    """
    best, best_slot = wall, np.int64(-1)
    for k in range(state.large.shape[0]):
        s = state.large[k]
        if _wanted(state, s, mask, ignore):
            best, best_slot = _consider(state, ray, s, limit_t, best, best_slot)
    t_end = min(limit_t, wall.t + wall.err) if wall.kind != MISS else limit_t
    how, line = walk_plan(state, ray, t_end)
    if how == 2:
        for s in range(state.kind.shape[0]):
            if _wanted(state, s, mask, ignore):
                best, best_slot = _consider(state, ray, s, limit_t, best, best_slot)
        return best, best_slot
    if how == 1:
        return best, best_slot
    e = state.extent
    fi, fj = ifloor(line.u0), ifloor(line.v0)  # the origin's own cell
    if fi != line.i0 or fj != line.j0:
        best, best_slot = _visit(state, ray, fi, fj, limit_t, mask, ignore, best, best_slot)
    outcome, i, j, nx, ny = _enter_extent(line, e)
    if outcome != 0:
        return best, best_slot
    while True:
        best, best_slot = _visit(state, ray, i, j, limit_t, mask, ignore, best, best_slot)
        if left_extent(line, e, i, j):
            return best, best_slot
        event, crossing = _next_crossing(line, nx, ny)
        if _passed(ray, crossing, best, limit_t):
            return best, best_slot
        i, j, nx, ny, ci, cj = walk_step(line, i, j, nx, ny, event)
        if ci != i or cj != j:
            best, best_slot = _visit(state, ray, ci, cj, limit_t, mask, ignore, best, best_slot)


@internal
def _collect(state, i, j, found, n):
    """Push the slots filed in hash cell ``(i, j)`` (if it is in the extent)."""
    if _in_extent(state.extent, i, j):
        b = bucket(i, j, np.int64(state.starts.shape[0] - 2))
        for k in range(state.starts[b], state.starts[b + 1]):
            found, n = _push(found, n, state.entries[k])
    return found, n


@internal
def ray_candidates(state, ray, limit_t):
    """Every slot filed in a hash cell the ray passes up to ``limit_t`` (unique), by the walk."""
    found = np.empty(16, dtype=np.int64)
    n = 0
    for k in range(state.large.shape[0]):
        found, n = _push(found, n, state.large[k])
    how, line = walk_plan(state, ray, limit_t)
    if how == 2:
        for s in range(state.kind.shape[0]):
            if state.kind[s] != FREE:
                found, n = _push(found, n, s)
        return np.unique(found[:n])
    if how == 1:
        return np.unique(found[:n])
    e = state.extent
    fi, fj = ifloor(line.u0), ifloor(line.v0)
    if fi != line.i0 or fj != line.j0:
        found, n = _collect(state, fi, fj, found, n)
    outcome, i, j, nx, ny = _enter_extent(line, e)
    while outcome == 0:
        found, n = _collect(state, i, j, found, n)
        if left_extent(line, e, i, j):
            break
        event, crossing = _next_crossing(line, nx, ny)
        if _passed(ray, crossing, miss(), limit_t):
            break
        i, j, nx, ny, ci, cj = walk_step(line, i, j, nx, ny, event)
        if ci != i or cj != j:
            found, n = _collect(state, ci, cj, found, n)
    return np.unique(found[:n])


@njit(cache=True, nogil=True)
def ray_contacts(state, ray, limit_t, mask, ignore):
    """Every body the ray meets within ``limit_t``: ``(slots, t, normals)`` in exact order.

    ``t`` is the float contact parameter; exact ties keep the smaller id
    first; ``normals`` the surface's unit normals against the ray.
    """
    slots = ray_candidates(state, ray, limit_t)
    found = np.empty(slots.shape[0], dtype=np.int64)
    ts = np.empty(slots.shape[0])
    normals = np.empty((slots.shape[0], 2))
    contacts = []
    n = 0
    for s in slots:
        if not _wanted(state, s, mask, ignore):
            continue
        c, scaled = scaled_contact(state, s, ray)
        if c.kind == MISS or c.t > limit_t:
            continue
        if scaled:
            c = Contact(c.kind, c.t, 0.0, c.g0, c.g1, c.g2, c.g3)
        t = c.t
        # insertion into the exact order (few contacts per ray)
        contacts.append(c)
        k = n
        found[k], ts[k] = s, t
        while k > 0:
            order = contact_order(ray, contacts[k - 1], contacts[k])
            if order < 0 or (order == 0 and state.ids[found[k - 1]] < state.ids[found[k]]):
                break
            contacts[k - 1], contacts[k] = contacts[k], contacts[k - 1]
            found[k - 1], found[k] = found[k], found[k - 1]
            ts[k - 1], ts[k] = ts[k], ts[k - 1]
            k -= 1
        n += 1
    for k in range(n):
        normals[k, 0], normals[k, 1] = contact_normal(ray, contacts[k])
    return found[:n], ts[:n], normals[:n]


@internal
def wall_contact(kind, lo, p, d):
    """A cell's contact: MISS (kind 0), ZERO (1) or the grid line ``lo`` of tile space (2)."""
    if kind == 0:
        return miss()
    if kind == 1:
        return Contact(ZERO, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return axis_contact(lo, p, d, 0.0)


@njit(cache=True, nogil=True)
def first_contact(state, ray, wall, limit_t, mask, ignore):
    """One ray's first body before the wall: ``(slot, t, normal_x, normal_y)``; slot -1: none.

    ``wall`` is ``(kind, lo, p, d)`` for :func:`wall_contact`; ``t`` is the
    body's float contact parameter.
    """
    best, slot = first_body(state, ray, wall_contact(wall[0], wall[1], wall[2], wall[3]),
                            limit_t, mask, ignore)  # fmt: skip
    if slot < 0:
        return np.int64(-1), 0.0, 0.0, 0.0
    nx, ny = contact_normal(ray, best)
    return slot, best.t, nx, ny


@njit(cache=True, nogil=True)
def contact_until(state, ray, end, limit_t, mask, ignore):
    """The slot of the first body the ray meets at or before ``end`` (exactly), or -1.

    ``end`` is ``(kind, lo, p, d)`` for :func:`wall_contact` (the end of a
    segment, as an AXIS contact); ``limit_t`` a float at or beyond it. A
    contact exactly at ``end`` counts (the segment is closed).
    """
    end_c = wall_contact(end[0], end[1], end[2], end[3])
    best, slot = first_body(state, ray, miss(), limit_t, mask, ignore)
    if slot < 0:
        return np.int64(-1)
    if best.err == 0.0 and best.kind != ZERO:  # a huge shape's contact: its float t alone
        return slot if best.t <= end_c.t else np.int64(-1)
    return slot if contact_order(ray, best, end_c) <= 0 else np.int64(-1)


# ---------------------------------------------------------------- edits
@njit(cache=True, nogil=True)
def move_and_build(kind, geom, vstart, vcount, verts, slots, offsets, frame):
    """Translate ``slots`` by ``offsets`` (checked: finite results), then rebuild the buckets."""
    for k in range(slots.shape[0]):
        s = slots[k]
        ox, oy = offsets[k, 0], offsets[k, 1]
        geom[s, 0] += ox
        geom[s, 1] += oy
        if kind[s] != CIRCLE:
            geom[s, 2] += ox
            geom[s, 3] += oy
        if kind[s] == POLYGON:
            start = vstart[s]
            stop = min(start + vcount[s], verts.shape[0])
            for v in range(max(start, 0), stop):
                verts[v, 0] += ox
                verts[v, 1] += oy
    return build_buckets(kind, geom, frame)


@njit(cache=True)
def cells_of(kind, g, frame):
    """The hash cells ``(K, 2)`` one object is filed in (empty for a large object)."""
    out = np.empty((LARGE + 1, 2), dtype=np.int64)
    n = slot_cells(kind, g, frame, out)
    if n > LARGE:
        n = 0
    return out[:n].copy()


BodyRays = namedtuple("BodyRays", ["rays", "walls", "limits", "mask", "ignore"])
"""A batch for :func:`first_contacts_many`: ``rays`` ``(N, 4)`` (origin, direction
scaled to ``[1, 2)``), ``walls`` ``(N, 4)`` (:func:`wall_contact`'s arguments),
``limits`` ``(N,)`` (the largest ``t``), the layer ``mask`` and the ``ignore``d
slots (sorted)."""


@njit(cache=True, nogil=True)
def first_contacts_many(state, lo, hi, batch, slot_out, t_out, normal_out):
    """:func:`first_contact` for rays ``lo .. hi - 1`` of ``batch`` (a :data:`BodyRays`)."""
    for k in range(lo, hi):
        r = batch.rays[k]
        w = batch.walls[k]
        ray = (r[0], r[1], r[2], r[3])
        best, slot = first_body(state, ray, wall_contact(w[0], w[1], w[2], w[3]),
                                batch.limits[k], batch.mask, batch.ignore)  # fmt: skip
        slot_out[k] = slot
        if slot >= 0:
            t_out[k] = best.t
            normal_out[k, 0], normal_out[k, 1] = contact_normal(ray, best)
