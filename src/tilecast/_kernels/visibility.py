"""Visibility-polygon kernels (Numba): segment splitting, exact angular sweep, ray fan.

Segments are rows ``(ax, ay, bx, by)`` of a float64 ``(M, 4)`` array. Every
decision (which side, which angle first, which wall is nearer) is an exact
orientation predicate from :mod:`tilecast._kernels.geometry`; only the output
coordinates (a ray meeting a wall, points on an arc) are rounded.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types

from tilecast._kernels import internal
from tilecast._kernels.geometry import column_range, csr_slots, orient2d
from tilecast._kernels.intrinsics import caller_of, compiled_address
from tilecast._kernels.jobs import compile_together

# Kernels other kernels call through their addresses (see caller_of): the
# preparation's two steps, and the sweep (the scene's queries). Compiled on
# first use (compiled_address), side by side where there are cores
# (compile_family).
_WALLS = types.float64[:, ::1]
SPLIT_SIGNATURE = types.Tuple((_WALLS, types.int64[::1]))(_WALLS)
FINISH_SIGNATURE = _WALLS(_WALLS, types.float64, types.float64, types.float64)
SWEEP_SIGNATURE = types.Tuple((_WALLS, types.int64))(
    _WALLS, types.float64, types.float64, types.float64, types.boolean,
    types.float64, types.float64, types.float64, types.float64,
)  # fmt: skip

# ------------------------------------------------------------------ splitting


# Sizes as typed int64, not literals: np.empty and friends compile once per
# argument type, and each literal is a type of its own.
_NONE = np.int64(0)
_START = np.int64(64)


@internal
def _indices(n):
    """``np.arange(n)`` (int64), written out: one small loop, not NumPy's arange to compile."""
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        out[k] = k
    return out


@internal
def _filled(n, value):
    """An int64 array of ``n`` copies of ``value`` (``np.full``, written out)."""
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        out[k] = value
    return out


@internal
def on_open_segment(ax, ay, bx, by, qx, qy):
    # q is known to be collinear with a-b; is it strictly between a and b?
    if ax != bx:
        return min(ax, bx) < qx < max(ax, bx)
    return min(ay, by) < qy < max(ay, by)


@internal
def _grown(points, n, size):
    """A copy of the first n rows of an (N, 2) array, with room for size rows.

    An explicit loop, not a slice assignment: slice assignments compile a
    shape check with its error message formatting (seconds of compile time).
    """
    grown = np.empty((size, 2))
    for k in range(n):
        grown[k, 0] = points[k, 0]
        grown[k, 1] = points[k, 1]
    return grown


@internal
def _push(buf_seg, buf_xy, n, seg, x, y):
    if n == buf_seg.shape[0]:
        grown_seg = np.empty(2 * n + 16, dtype=np.int64)
        for k in range(n):
            grown_seg[k] = buf_seg[k]
        buf_seg = grown_seg
        buf_xy = _grown(buf_xy, n, 2 * n + 16)
    buf_seg[n] = seg
    buf_xy[n, 0] = x
    buf_xy[n, 1] = y
    return buf_seg, buf_xy, n + 1


@internal
def cell_span(lo, hi, x0, h, n):
    """Cells ``a .. b`` (inclusive, clamped to 0 .. n-1) a closed interval meets.

    Cells of size ``h`` from ``x0``; with ``h`` not positive (a grid of no
    extent) every point is in cell 0.
    """
    if not h > 0.0:
        return 0, 0
    a = max(int(math.floor((lo - x0) / h)), 0)  # noqa: RUF046 (numba)
    b = min(int(math.floor((hi - x0) / h)), n - 1)  # noqa: RUF046 (numba)
    return a, b


@njit(cache=True)
def bucket_walls(segs, x0, y0, hx, hy, nx, ny, slack_x, slack_y):
    """CSR lists of the segments meeting each cell (row-major) of an nx x ny grid.

    Cells of ``hx`` by ``hy`` from ``(x0, y0)``; each segment is widened by
    the slack, far above rounding error, so two segments that share a point
    are both listed in a cell containing it, whatever the rounding of cell
    indices. Returns ``(starts, members)``: cell ``c`` lists
    ``members[starts[c]:starts[c + 1]]``.
    """
    m = segs.shape[0]
    counts = np.zeros(nx * ny + 1, dtype=np.int64)
    starts = counts
    fill = counts
    members = np.empty(_NONE, dtype=np.int64)
    for rep in range(2):
        if rep == 1:
            starts, fill, members = csr_slots(counts)
        for i in range(m):
            ax, ay, bx, by = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
            ymin, ymax = min(ay, by), max(ay, by)
            r0, r1 = cell_span(ymin - slack_y, ymax + slack_y, y0, hy, ny)
            for r in range(r0, r1 + 1):
                if ay == by:
                    xa, xb = ax, bx
                else:  # x range of the segment inside the row (widened by the slack)
                    lo = max(y0 + r * hy - slack_y, ymin)
                    hi = min(y0 + (r + 1) * hy + slack_y, ymax)
                    slope = (bx - ax) / (by - ay)
                    xa = ax + (lo - ay) * slope
                    xb = ax + (hi - ay) * slope
                c0, c1 = cell_span(min(xa, xb) - slack_x, max(xa, xb) + slack_x, x0, hx, nx)
                for c in range(c0, c1 + 1):
                    cell = r * nx + c
                    if rep == 0:
                        counts[cell + 1] += 1
                    else:
                        members[fill[cell]] = i
                        fill[cell] += 1
    return starts, members


@internal
def _bucket_segments(segs, side):
    """:func:`bucket_walls` on a side x side grid over the segments' bounding box."""
    x0, x1 = column_range(segs, np.int64(0), np.int64(2))
    y0, y1 = column_range(segs, np.int64(1), np.int64(3))
    hx = (x1 - x0) / side
    hy = (y1 - y0) / side
    scale = max(abs(x0), abs(x1), abs(y0), abs(y1))
    return bucket_walls(segs, x0, y0, hx, hy, side, side, 1e-6 * hx + 1e-12 * scale,
                        1e-6 * hy + 1e-12 * scale)  # fmt: skip


@internal
def _row_before(rows, b, a):
    for c in range(rows.shape[1]):
        if rows[b, c] != rows[a, c]:
            return rows[b, c] < rows[a, c]
    return False


@internal
def row_order(rows):
    """Indices of the rows in lexicographic order, equal rows in input order (merge sort).

    Written out rather than NumPy's argsort: one small sort compiles in a
    fraction of the time two of NumPy's sort implementations take.
    """
    n = rows.shape[0]
    order = _indices(n)
    tmp = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _row_before(rows, order[j], order[i]):
                    tmp[k] = order[j]
                    j += 1
                else:
                    tmp[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                tmp[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                tmp[k] = order[j]
                j += 1
                k += 1
        order, tmp = tmp, order
        width *= 2
    return order


@internal
def pair_orientations(segs, i, j):
    """``(apart, o1, o2, o3, o4)`` for segments i (a-b) and j (c-d), exactly.

    ``apart``: their bounding boxes do not meet (then the orientations are
    not computed: zeros). Else ``o1``, ``o2``: the sides of c and d of the
    line a-b; ``o3``, ``o4``: the sides of a and b of the line c-d.
    """
    ax, ay, bx, by = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
    cx, cy, dx, dy = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
    if (
        max(ax, bx) < min(cx, dx)
        or max(cx, dx) < min(ax, bx)
        or max(ay, by) < min(cy, dy)
        or max(cy, dy) < min(ay, by)
    ):
        return True, 0, 0, 0, 0
    return (
        False,
        orient2d(ax, ay, bx, by, cx, cy),
        orient2d(ax, ay, bx, by, dx, dy),
        orient2d(cx, cy, dx, dy, ax, ay),
        orient2d(cx, cy, dx, dy, bx, by),
    )


@internal
def _split_pair(segs, i, j, buf_seg, buf_xy, n):
    """Record where segments i < j cross or touch (points on each, for the cut)."""
    apart, o1, o2, o3, o4 = pair_orientations(segs, i, j)
    if apart:
        return buf_seg, buf_xy, n
    ax, ay, bx, by = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
    cx, cy, dx, dy = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
    if o1 * o2 < 0 and o3 * o4 < 0:
        ex, ey = bx - ax, by - ay
        fx, fy = dx - cx, dy - cy
        cross = ex * fy - ey * fx
        if cross != 0.0:
            t = ((cx - ax) * fy - (cy - ay) * fx) / cross
        else:
            # nearly parallel: the cross product rounded to zero, though a and b
            # lie on opposite sides of cd (exact signs). Split ab in the ratio
            # of their distances to cd's line (rounded; both may round to 0).
            side_a = abs(fx * (ay - cy) - fy * (ax - cx))
            side_b = abs(fx * (by - cy) - fy * (bx - cx))
            total = side_a + side_b
            t = side_a / total if total > 0.0 else 0.5
        t = min(max(t, 0.0), 1.0)
        x, y = ax + t * ex, ay + t * ey
        buf_seg, buf_xy, n = _push(buf_seg, buf_xy, n, i, x, y)
        return _push(buf_seg, buf_xy, n, j, x, y)
    # Touching (including collinear overlap): split at existing ends.
    if o1 == 0 and on_open_segment(ax, ay, bx, by, cx, cy):
        buf_seg, buf_xy, n = _push(buf_seg, buf_xy, n, i, cx, cy)
    if o2 == 0 and on_open_segment(ax, ay, bx, by, dx, dy):
        buf_seg, buf_xy, n = _push(buf_seg, buf_xy, n, i, dx, dy)
    if o3 == 0 and on_open_segment(cx, cy, dx, dy, ax, ay):
        buf_seg, buf_xy, n = _push(buf_seg, buf_xy, n, j, ax, ay)
    if o4 == 0 and on_open_segment(cx, cy, dx, dy, bx, by):
        buf_seg, buf_xy, n = _push(buf_seg, buf_xy, n, j, bx, by)
    return buf_seg, buf_xy, n


@internal
def _cut(segs, buf_seg, buf_xy, n):
    """Cut each segment at its recorded points: the pieces ``(P, 4)`` and their segments."""
    m = segs.shape[0]
    if n == 0:
        return segs.copy(), _indices(m)
    key = np.empty(n)
    for k in range(n):
        i = buf_seg[k]
        if segs[i, 0] != segs[i, 2]:
            key[k] = (buf_xy[k, 0] - segs[i, 0]) / (segs[i, 2] - segs[i, 0])
        else:
            key[k] = (buf_xy[k, 1] - segs[i, 1]) / (segs[i, 3] - segs[i, 1])
    # by segment, then position along it; ties in position (the same point
    # found twice, or two whose rounded positions agree) by coordinates, so
    # the pieces do not depend on the order the pairs were visited in
    columns = np.empty((n, 4))
    for k in range(n):
        columns[k, 0] = buf_seg[k]  # exact: segment numbers are far below 2**53
        columns[k, 1] = key[k]
        columns[k, 2] = buf_xy[k, 0]
        columns[k, 3] = buf_xy[k, 1]
    order = row_order(columns)
    out = np.empty((m + n, 4))
    source = np.empty(m + n, dtype=np.int64)
    count = 0
    k = 0
    for i in range(m):
        px, py = segs[i, 0], segs[i, 1]
        while k < n and buf_seg[order[k]] == i:
            qx, qy = buf_xy[order[k], 0], buf_xy[order[k], 1]
            if qx != px or qy != py:
                out[count, 0], out[count, 1], out[count, 2], out[count, 3] = px, py, qx, qy
                source[count] = i
                count += 1
                px, py = qx, qy
            k += 1
        if segs[i, 2] != px or segs[i, 3] != py:
            out[count, 0], out[count, 1], out[count, 2], out[count, 3] = (
                px,
                py,
                segs[i, 2],
                segs[i, 3],
            )
            source[count] = i
            count += 1
    return out[:count].copy(), source[:count].copy()


@internal(by_address=True)
def split_segments(segs):
    """Split segments where they cross or touch, so that they meet only at ends.

    Candidate pairs come from a uniform grid (each segment listed in the cells
    it passes near), so the cost is about linear for scenes of evenly spread
    walls. Crossing points are rounded to doubles (computed on the segment
    that comes first); touching points (an end on another segment, collinear
    overlaps) are existing coordinates, exact. Returns the pieces as an
    ``(P, 4)`` array (duplicates possible) and the segment each comes from.
    """
    m = segs.shape[0]
    if m == 0:
        return segs.copy(), _indices(_NONE)
    side = max(1, min(1024, int(math.sqrt(m))))
    starts, members = _bucket_segments(segs, side)
    buf_seg = np.empty(_START, dtype=np.int64)
    buf_xy = np.empty((_START, 2))
    n = np.int64(0)  # not the literal 0: one compiled signature for _push
    for cell in range(side * side):
        for p in range(starts[cell], starts[cell + 1]):
            for q in range(p + 1, starts[cell + 1]):
                buf_seg, buf_xy, n = _split_pair(segs, members[p], members[q], buf_seg, buf_xy, n)
    return _cut(segs, buf_seg, buf_xy, n)


@internal
def split_pairs(segs, first, second):
    """Like :func:`split_segments`, with the candidate pairs given (``first[k] < second[k]``).

    The pieces are the same as :func:`split_segments` gives whenever every
    pair of segments that cross or touch is among the candidates.
    """
    buf_seg = np.empty(_START, dtype=np.int64)
    buf_xy = np.empty((_START, 2))
    n = np.int64(0)
    for k in range(first.shape[0]):
        buf_seg, buf_xy, n = _split_pair(segs, first[k], second[k], buf_seg, buf_xy, n)
    return _cut(segs, buf_seg, buf_xy, n)


# ---------------------------------------------------------------- preparation


@internal
def near_walls(segs, px, py, radius):
    """Which walls reach the square around p that holds the disc (widened far beyond rounding).

    Walls wholly outside it are neither seen nor cut a wall where the light
    reaches: they are dropped before the split, whose cost grows with the map.
    """
    reach = radius * (1.0 + 1e-9) + 1e-300
    keep = np.empty(segs.shape[0], dtype=np.bool_)
    for i in range(segs.shape[0]):
        keep[i] = (
            min(segs[i, 0], segs[i, 2]) <= px + reach
            and max(segs[i, 0], segs[i, 2]) >= px - reach
            and min(segs[i, 1], segs[i, 3]) <= py + reach
            and max(segs[i, 1], segs[i, 3]) >= py - reach
        )
    return keep


@internal
def _sorted_rows(rows):
    """The rows in lexicographic order without repeats (``np.unique(rows, axis=0)``)."""
    order = row_order(rows)
    out = np.empty((rows.shape[0], 4))
    count = 0
    for k in range(rows.shape[0]):
        r = order[k]
        if (
            count == 0
            or rows[r, 0] != out[count - 1, 0]
            or rows[r, 1] != out[count - 1, 1]
            or rows[r, 2] != out[count - 1, 2]
            or rows[r, 3] != out[count - 1, 3]
        ):
            for c in range(4):
                out[count, c] = rows[r, c]
            count += 1
    return out[:count].copy()


@internal(by_address=True)
def finish_walls(pieces, px, py, radius):
    """Clip the pieces to the disc (``radius > 0``), drop those in line with p, sort.

    The sweep's input: each wall's ends in canonical order (lexicographically
    smaller first), walls through the observer or pointing at it dropped (they
    have no angular width and hide nothing), repeats (collinear overlaps) once.
    """
    m = pieces.shape[0]
    rows = np.empty((m, 4))
    count = 0
    r2 = radius * radius
    for i in range(m):
        x0, y0, x1, y1 = pieces[i, 0], pieces[i, 1], pieces[i, 2], pieces[i, 3]
        if radius > 0.0:
            # keep the part inside the closed disc; ends outside move onto the circle
            ax, ay = x0 - px, y0 - py
            ex, ey = x1 - x0, y1 - y0
            qa = ex * ex + ey * ey
            qb = ax * ex + ay * ey
            qc = ax * ax + ay * ay - r2
            disc = qb * qb - qa * qc
            if not (qa > 0.0 and disc > 0.0):
                continue
            root = math.sqrt(disc)
            t0 = (-qb - root) / qa
            t1 = (-qb + root) / qa
            if not (t1 > 0.0 and t0 < 1.0):
                continue
            if t0 > 0.0:
                x0, y0 = pieces[i, 0] + t0 * ex, pieces[i, 1] + t0 * ey
            if t1 < 1.0:
                x1, y1 = pieces[i, 0] + t1 * ex, pieces[i, 1] + t1 * ey
        if orient2d(px, py, x0, y0, x1, y1) == 0:
            continue
        if x0 > x1 or (x0 == x1 and y0 > y1):
            x0, y0, x1, y1 = x1, y1, x0, y0
        rows[count, 0], rows[count, 1], rows[count, 2], rows[count, 3] = x0, y0, x1, y1
        count += 1
    return _sorted_rows(rows[:count])


call_split_segments = caller_of(split_segments, SPLIT_SIGNATURE)
call_finish_walls = caller_of(finish_walls, FINISH_SIGNATURE)


def preparation_addresses() -> tuple[int, int]:
    """The addresses of :func:`split_segments` and :func:`finish_walls` (:func:`prepare_walls`)."""
    compile_family()
    split = compiled_address(split_segments, SPLIT_SIGNATURE)
    return split, compiled_address(finish_walls, FINISH_SIGNATURE)


@njit(cache=True)
def prepare_walls(segs, extras, px, py, radius, split, split_at, finish_at):
    """The sweep's walls for observer p: visibility.visibility_polygon's preparation.

    ``segs`` are the scene's walls, ``extras`` the walls a query adds (circle
    arcs, the bounds); ``radius <= 0`` means no radius. ``split_at`` and
    ``finish_at`` are :func:`preparation_addresses` (called through them,
    the two steps are not compiled a second time inside this kernel).
    """
    if radius > 0.0:
        keep = near_walls(segs, px, py, radius)
    else:
        keep = np.empty(segs.shape[0], dtype=np.bool_)
        for i in range(segs.shape[0]):
            keep[i] = True
    count = 0
    for i in range(segs.shape[0]):
        count += keep[i]
    walls = np.empty((count + extras.shape[0], 4))
    k = 0
    for i in range(segs.shape[0]):
        if keep[i]:
            for c in range(4):
                walls[k, c] = segs[i, c]
            k += 1
    for i in range(extras.shape[0]):
        for c in range(4):
            walls[k, c] = extras[i, c]
        k += 1
    if split:
        walls = call_split_segments(split_at, walls)[0]
    return call_finish_walls(finish_at, walls, px, py, radius)


# ---------------------------------------------------------------------- sweep


@internal
def _same_direction(px, py, ux, uy, qx, qy):
    # q - p and u - p are known collinear (orientation 0); same side of p?
    if ux != px:
        return (qx > px) == (ux > px) and qx != px
    return (qy > py) == (uy > py) and qy != py


@internal
def _rel_half(px, py, ux, uy, qx, qy):
    # 0 for directions in [u, u + pi), 1 for [u + pi, u + 2 pi), relative to u.
    o = orient2d(px, py, ux, uy, qx, qy)
    if o > 0:
        return 0
    if o < 0:
        return 1
    return 0 if _same_direction(px, py, ux, uy, qx, qy) else 1


@internal
def _angle_cmp(px, py, ux, uy, h1, x1, y1, h2, x2, y2):
    """-1 / 0 / 1: direction of (x1, y1) before / equal to / after (x2, y2), from u."""
    if h1 != h2:
        return -1 if h1 < h2 else 1
    o = orient2d(px, py, x1, y1, x2, y2)
    return -o


@internal
def _event_before(px, py, ux, uy, ex, ey, half, b, a):
    """Does event b come before event a: by angle from u, then nearer first?

    Events in one direction are ordered by distance so that the first of a
    group (the point the sweep measures that direction by) is the nearest:
    a point that matters to the answer, never a hidden wall's end beyond it.
    """
    c = _angle_cmp(px, py, ux, uy, half[b], ex[b], ey[b], half[a], ex[a], ey[a])
    if c != 0:
        return c < 0
    # same direction from p (exactly): compare along an axis it moves in
    if ex[b] != px:
        return ex[b] < ex[a] if ex[b] > px else ex[b] > ex[a]
    return ey[b] < ey[a] if ey[b] > py else ey[b] > ey[a]


@internal
def pseudo_angle(dx, dy):
    """A pseudo-angle of (dx, dy) in [0, 4): monotone in the angle, one division (a float key)."""
    if dy >= 0.0:
        if dx >= 0.0:
            return dy / (dx + dy) if dx + dy > 0.0 else 0.0
        return 1.0 - dx / (dy - dx)
    if dx < 0.0:
        return 2.0 - dy / (-dx - dy)
    return 3.0 + dx / (dx - dy)


@internal
def _sort_events(px, py, ux, uy, ex, ey, half):
    """Indices of events in counter-clockwise order from direction u, nearer first.

    Float keys first, exact comparisons last. Each event gets a key: its
    pseudo-angle from u, kept in its exact half turn, and its squared
    distance. A counting sort puts the events in ``n`` buckets of angle
    (in index order within a bucket), an insertion pass orders them by the
    keys, and a last insertion pass with the exact comparison
    (:func:`_event_before`) moves each event past the few that rounding put
    on the wrong side of it. The result is exactly the order of a stable
    sort by the exact comparison: events that compare equal (the same
    point) have the same keys, so every pass keeps them in index order;
    the keys only decide how much work the exact pass has.
    """
    n = ex.shape[0]
    angle = np.empty(n)
    distance = np.empty(n)
    start = pseudo_angle(ux - px, uy - py)
    for k in range(n):
        dx, dy = ex[k] - px, ey[k] - py
        turn = pseudo_angle(dx, dy) - start
        if turn < 0.0:
            turn += 4.0
        # the half turn is exact: [0, 2] for the first, [2, 4] for the second
        # (a key rounded across u itself goes to its end of the turn)
        if half[k] == 0:
            turn = 0.0 if turn > 3.0 else min(turn, 2.0)
        else:
            turn = 4.0 if turn < 1.0 else max(turn, 2.0)
        angle[k] = turn
        distance[k] = dx * dx + dy * dy
    # buckets of angle (counting sort; stable)
    fill = np.zeros(n + 1, dtype=np.int64)
    bucket = np.empty(n, dtype=np.int64)
    per_unit = n / 4.0
    for k in range(n):
        bucket[k] = min(np.int64(angle[k] * per_unit), n - 1)
        fill[bucket[k] + 1] += 1
    for b in range(n):
        fill[b + 1] += fill[b]
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        order[fill[bucket[k]]] = k
        fill[bucket[k]] += 1
    for i in range(1, n):  # by the float keys (moves only within a bucket)
        e = order[i]
        j = i - 1
        while j >= 0 and (
            angle[e] < angle[order[j]]
            or (angle[e] == angle[order[j]] and distance[e] < distance[order[j]])
        ):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = e
    for i in range(1, n):  # exactly
        e = order[i]
        j = i - 1
        while j >= 0 and _event_before(px, py, ux, uy, ex, ey, half, e, order[j]):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = e
    return order


@internal
def _closer(segs, px, py, i, j):
    """Is segment i in front of segment j (both cut by a common ray from p)?

    The segments do not cross and are not collinear with p, so one lies wholly
    on one side of the other's line, and the observer's side decides.
    """
    ax, ay, bx, by = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
    cx, cy, dx, dy = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
    o1 = orient2d(ax, ay, bx, by, cx, cy)
    o2 = orient2d(ax, ay, bx, by, dx, dy)
    if o1 * o2 >= 0 and (o1 != 0 or o2 != 0):
        side = o1 if o1 != 0 else o2
        return orient2d(ax, ay, bx, by, px, py) != side
    o3 = orient2d(cx, cy, dx, dy, ax, ay)
    o4 = orient2d(cx, cy, dx, dy, bx, by)
    if o3 * o4 >= 0 and (o3 != 0 or o4 != 0):
        side = o3 if o3 != 0 else o4
        return orient2d(cx, cy, dx, dy, px, py) == side
    return i < j  # only for crossing input (rounded split points); any order


@internal
def _heap_swap(heap, pos, a, b):
    heap[a], heap[b] = heap[b], heap[a]
    pos[heap[a]] = a
    pos[heap[b]] = b


@internal
def _heap_fix(segs, px, py, heap, pos, size, k):
    while k > 0:
        parent = (k - 1) // 2
        if _closer(segs, px, py, heap[k], heap[parent]):
            _heap_swap(heap, pos, k, parent)
            k = parent
        else:
            break
    while True:
        left = 2 * k + 1
        best = k
        if left < size and _closer(segs, px, py, heap[left], heap[best]):
            best = left
        if left + 1 < size and _closer(segs, px, py, heap[left + 1], heap[best]):
            best = left + 1
        if best == k:
            break
        _heap_swap(heap, pos, k, best)
        k = best


@internal
def _heap_push(segs, px, py, heap, pos, size, i):
    heap[size] = i
    pos[i] = size
    _heap_fix(segs, px, py, heap, pos, size + 1, size)
    return size + 1


@internal
def _heap_remove(segs, px, py, heap, pos, size, i):
    k = pos[i]
    if k < 0:
        return size
    size -= 1
    pos[i] = -1
    if k != size:
        heap[k] = heap[size]
        pos[heap[k]] = k
        _heap_fix(segs, px, py, heap, pos, size, k)
    return size


@internal
def point_on(segs, i, px, py, qx, qy):
    """Where the ray from p towards q meets segment i (q itself if it is an end)."""
    return point_between(segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3], px, py, qx, qy)


@internal(inline="always")
def point_between(ax, ay, bx, by, px, py, qx, qy):
    """Where the ray from p towards q meets the segment from a to b (q itself if it is an end)."""
    if (qx == ax and qy == ay) or (qx == bx and qy == by):
        return qx, qy
    dx, dy = qx - px, qy - py
    ex, ey = bx - ax, by - ay
    t = ((ax - px) * dy - (ay - py) * dx) / (dx * ey - dy * ex)
    t = min(max(t, 0.0), 1.0)
    return ax + t * ex, ay + t * ey


@internal
def emit_point(out, n, x, y):
    if n > 0 and out[n - 1, 0] == x and out[n - 1, 1] == y:
        return n
    out[n, 0] = x
    out[n, 1] = y
    return n + 1


@internal
def _emit_boundary(out, n, segs, nearest, px, py, qx, qy, radius):
    if nearest >= 0:
        x, y = point_on(segs, nearest, px, py, qx, qy)
    else:
        dx, dy = qx - px, qy - py
        scale = radius / math.hypot(dx, dy)
        x, y = px + dx * scale, py + dy * scale
    return emit_point(out, n, x, y)


@internal
def _emit_arc(out, n, px, py, radius, x1, y1, x2, y2, full):
    # Interior points of the arc from direction 1 counter-clockwise to direction
    # 2, at most one degree apart (the ends are emitted by the caller).
    a1 = math.atan2(y1 - py, x1 - px)
    sweep = math.atan2(y2 - py, x2 - px) - a1
    while sweep <= 0.0:
        sweep += 2.0 * math.pi
    if full:
        sweep = 2.0 * math.pi
    steps = int(math.ceil(sweep / math.radians(1.0) - 1e-9))  # noqa: RUF046 (numba)
    for k in range(1, steps):
        angle = a1 + sweep * k / steps
        n = emit_point(out, n, px + radius * math.cos(angle), py + radius * math.sin(angle))
    return n


@njit(cache=True)
def sweep(segs, px, py, radius, cone, ux, uy, wx, wy):
    """The visibility polygon by an angular sweep; see visibility.visibility_polygon.

    ``segs`` must not cross (split first), and none may contain p or be
    collinear with it. ``radius <= 0`` means unlimited. Without a cone the sweep
    covers the full turn (u, w ignored); with one it runs from direction u
    counter-clockwise to direction w (points p + u, p + w) and includes p.
    Returns ``(polygon, status)``; status 1: the observer sees to infinity.
    """
    m = segs.shape[0]
    segs = segs.copy()
    # typed variables, not literals: each helper is compiled for one signature
    first = np.int64(0)
    no_full = np.bool_(False)
    for i in range(m):  # orient every segment counter-clockwise around p
        if orient2d(px, py, segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]) < 0:
            segs[i, 0], segs[i, 2] = segs[i, 2], segs[i, 0]
            segs[i, 1], segs[i, 3] = segs[i, 3], segs[i, 1]
    ex = np.empty(2 * m)
    ey = np.empty(2 * m)
    for i in range(m):
        ex[2 * i], ey[2 * i] = segs[i, 0], segs[i, 1]  # even: segment starts
        ex[2 * i + 1], ey[2 * i + 1] = segs[i, 2], segs[i, 3]  # odd: segment ends
    if not cone:
        if m == 0:
            if radius <= 0.0:
                return np.empty((0, 2)), 1
            ux, uy = px + 1.0, py
            out = np.empty((400, 2))
            n = emit_point(out, np.int64(0), px + radius, py)
            n = _emit_arc(out, n, px, py, radius, ux, uy, ux, uy, np.bool_(True))
            return out[:n].copy(), 0
        ux, uy = ex[0], ey[0]
    half = np.empty(2 * m, dtype=np.int64)
    for k in range(2 * m):
        half[k] = _rel_half(px, py, ux, uy, ex[k], ey[k])
    order = _sort_events(px, py, ux, uy, ex, ey, half)
    if cone:
        hw = _rel_half(px, py, ux, uy, wx, wy)
    heap = np.empty(m, dtype=np.int64)
    pos = _filled(m, -1)
    size = np.int64(0)
    for i in range(m):  # segments cut by the ray towards u
        if (
            orient2d(px, py, segs[i, 0], segs[i, 1], ux, uy) > 0
            and orient2d(px, py, ux, uy, segs[i, 2], segs[i, 3]) > 0
        ) or (
            # without a cone the sweep starts just before u: walls ending on it count
            not cone
            and orient2d(px, py, ux, uy, segs[i, 2], segs[i, 3]) == 0
            and _same_direction(px, py, ux, uy, segs[i, 2], segs[i, 3])
        ):
            size = _heap_push(segs, px, py, heap, pos, size, i)
    out = np.empty((4 * m + 800, 2))  # grown below when arcs need room
    n = np.int64(0)
    k = 0
    if cone:
        # Segments starting exactly on the ray towards u are visible just after it.
        while (
            k < 2 * m
            and half[order[k]] == 0
            and _angle_cmp(px, py, ux, uy, first, ex[order[k]], ey[order[k]], first, ux, uy) == 0
        ):
            e = order[k]
            if e % 2 == 0:
                size = _heap_push(segs, px, py, heap, pos, size, e // 2)
            k += 1
        n = emit_point(out, n, px, py)
        nearest = heap[0] if size > 0 else -1
        if nearest < 0 and radius <= 0.0:
            return out[:0].copy(), 1
        n = _emit_boundary(out, n, segs, nearest, px, py, ux, uy, radius)
    if size == 0 and radius <= 0.0:
        return out[:0].copy(), 1
    last_x, last_y = ux, uy  # direction of the previous event group
    while k < 2 * m:
        e0 = order[k]
        gx, gy = ex[e0], ey[e0]
        if cone and _angle_cmp(px, py, ux, uy, half[e0], gx, gy, hw, wx, wy) >= 0:
            break  # at or beyond the far edge of the cone
        if out.shape[0] - n < 400:  # room for one arc and a transition
            out = _grown(out, n, 2 * out.shape[0] + 400)
        before = heap[0] if size > 0 else -1
        if before < 0 and (k > 0 or cone):
            n = _emit_arc(out, n, px, py, radius, last_x, last_y, gx, gy, no_full)
        group_end = k
        while group_end < 2 * m and (
            _angle_cmp(
                px,
                py,
                ux,
                uy,
                half[order[group_end]],
                ex[order[group_end]],
                ey[order[group_end]],
                half[e0],
                gx,
                gy,
            )
            == 0
        ):
            group_end += 1
        for g in range(k, group_end):  # ends first, then starts
            e = order[g]
            if e % 2 == 1:
                size = _heap_remove(segs, px, py, heap, pos, size, e // 2)
        for g in range(k, group_end):
            e = order[g]
            if e % 2 == 0 and pos[e // 2] < 0:
                size = _heap_push(segs, px, py, heap, pos, size, e // 2)
        after = heap[0] if size > 0 else -1
        if after < 0 and radius <= 0.0:
            return out[:0].copy(), 1
        if before != after:
            n = _emit_boundary(out, n, segs, before, px, py, gx, gy, radius)
            n = _emit_boundary(out, n, segs, after, px, py, gx, gy, radius)
        last_x, last_y = gx, gy
        k = group_end
    if out.shape[0] - n < 400:
        out = _grown(out, n, 2 * out.shape[0] + 400)
    nearest = heap[0] if size > 0 else -1
    if cone:
        if nearest < 0:
            n = _emit_arc(out, n, px, py, radius, last_x, last_y, wx, wy, no_full)
        n = _emit_boundary(out, n, segs, nearest, px, py, wx, wy, radius)
    elif nearest < 0:  # back to the first direction, measured by its nearest point
        n = _emit_arc(out, n, px, py, radius, last_x, last_y, ex[order[0]], ey[order[0]], no_full)
    if n > 1 and out[n - 1, 0] == out[0, 0] and out[n - 1, 1] == out[0, 1]:
        n -= 1
    return out[:n].copy(), 0


# ------------------------------------------------------------------- ray fan


@njit(cache=True, parallel=True)
def cast_rays(segs, px, py, dirs, max_t):
    """Nearest hit parameter along each ray p + t * dir (inf on a miss), brute force."""
    n = dirs.shape[0]
    m = segs.shape[0]
    out = np.empty(n)
    for r in prange(n):
        dx, dy = dirs[r, 0], dirs[r, 1]
        best = max_t
        for i in range(m):
            ax, ay = segs[i, 0], segs[i, 1]
            ex, ey = segs[i, 2] - ax, segs[i, 3] - ay
            denom = dx * ey - dy * ex
            if denom == 0.0:
                continue
            wx, wy = ax - px, ay - py
            t = (wx * ey - wy * ex) / denom
            u = (wx * dy - wy * dx) / denom
            if t >= 0.0 and 0.0 <= u <= 1.0 and t < best:
                best = t
        out[r] = best
    return out


call_sweep = caller_of(sweep, SWEEP_SIGNATURE)


def addresses() -> tuple[int, int]:
    """The addresses of :func:`finish_walls` and :func:`sweep`, for the scene's kernels."""
    compile_family()
    return compiled_address(finish_walls, FINISH_SIGNATURE), compiled_address(
        sweep, SWEEP_SIGNATURE
    )


def compile_family(prepare_types: tuple[types.Type, ...] | None = None) -> None:
    """Compile (or load) the split, the finish and the sweep, with :func:`prepare_walls`
    for ``prepare_types`` if given, side by side where there are cores (:mod:`.jobs`).

    Seconds are a 2-core machine's first compile of each (alone: with the
    exact predicates they call): the split and the sweep each take about
    half of the family's.
    """
    units = [
        (split_segments, SPLIT_SIGNATURE.args, 4.5),
        (finish_walls, FINISH_SIGNATURE.args, 0.7),
        (sweep, SWEEP_SIGNATURE.args, 5.0),
    ]
    if prepare_types is not None:
        units.append((prepare_walls, prepare_types, 0.5))
    compile_together(units)
