"""Prepared visibility (Numba): which walls can matter to one observer, then the same sweep.

A :class:`~tilecast.VisibilityScene` keeps its walls in a uniform grid of
square cells (numbered by the first cell that lists them, so that nearby
walls lie together in memory), the pairs of walls that touch or cross, and
the walls' pieces (split where they cross) in lexicographic order. A query:

1. floods the cells outward from the observer's, skipping a cell when every
   direction it spans is hidden nearer than the cell by a wall seen so far
   (an angular occlusion buffer of ``BINS`` wedges, each holding how far away
   a wall spanning it certainly hides everything; float angles and
   distances with wide margins, so a skip is never wrong). The walls of the
   cells not skipped are a superset of the walls the answer touches;
2. without a radius, bounds or circles (the walls' pieces do not depend on
   the observer): takes those walls' prepared pieces and the first piece in
   lexicographic order (the sweep starts from it), in that order, as
   :func:`~tilecast._kernels.visibility.finish_walls` would give them
   (:func:`chosen_pieces`); otherwise adds the walls that touch or cross
   them (they cut them into the same pieces) and the wall of the first
   piece, and runs :func:`~tilecast._kernels.visibility.prepare_walls`'s
   steps on that subset, in the walls' original order;
3. runs :func:`~tilecast._kernels.visibility.sweep` on those pieces: the
   answer of ``visibility_polygon`` on all the walls.

A query's buffers (stamps per wall and per cell, the flood's queue, the
occlusion buffer, a bit per piece) are kept between queries
(:func:`new_workspace`).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros

from tilecast._kernels import internal
from tilecast._kernels.expansion import (
    ENDLESS,
    EXPANDED_SIGNATURE,
    SEEN,
    TRACED,
    UNSURE,
    call_expanded_polygon,
    expanded_polygon,
    triangulate,
)
from tilecast._kernels.geometry import SAFE_EXPONENT, orient2d
from tilecast._kernels.jobs import argument_types, compile_together
from tilecast._kernels.visibility import (
    FINISH_SIGNATURE,
    SWEEP_SIGNATURE,
    call_finish_walls,
    call_sweep,
    cell_span,
    finish_walls,
    near_walls,
    on_open_segment,
    pair_orientations,
    pseudo_angle,
    row_order,
    split_pairs,
    split_segments,
    sweep,
)

#: Angular wedges of the occlusion buffer (pseudo-angles in [0, 4)).
BINS = 1024
_WIDTH = 4.0 / BINS
_STRIDE = 8  # the most wedges a wall's distance bound is shared by (see _occlude)
_EPS = 1e-9  # pseudo-angle margin, far above the rounding of one division
_FAR = 1.0 + 1e-6  # relative margin on a distance a wall hides beyond
_LOW = 2.0**-SAFE_EXPONENT
_HIGH = 2.0**402  # 4 * 2**400: the largest coordinate a prepared wall may have
_ONE = np.int64(1)
_NO_END = np.int64(-1)  # an extra wall's end numbers (typed: a literal -1 compiles _occlude twice)


# ------------------------------------------------------------------- records
class SceneArrays(NamedTuple):
    """A prepared scene as the query kernels take it: one record, built once per scene.

    ``walls`` (M, 4): the walls in the kernels' order; ``far_ends``: the far
    ends of the walls touching each wall end (:func:`build_ends`);
    ``index``: the scene's lists (:func:`pack_index`); ``mesh``: its
    triangulation (:func:`tilecast._kernels.expansion.prepare`; no rows:
    none); ``x0``, ``y0``, ``h``: its grid's corner and cell side.
    """

    walls: Any
    far_ends: Any
    index: Any
    mesh: Any
    x0: float
    y0: float
    h: float


class SceneQuery(NamedTuple):
    """A query's options as the query kernels take them (the observer apart).

    ``extras`` (K, 4): the walls the query adds (circles' near arcs, the
    bounds' edges); ``radius`` (0: none); ``box``: the bounds (x0, y0, x1,
    y1) or empty; ``lex_rows``/``lex_src``: the sorted pieces and their walls
    (empty: they depend on the observer; see :func:`choose_walls`); ``cone``
    and its ``cone_trig``.
    """

    extras: Any
    radius: float
    box: Any
    lex_rows: Any
    lex_src: Any
    cone: bool
    cone_trig: Any


class SceneLists(NamedTuple):
    """The scene's integer lists, views of its ``index`` (:func:`unpack_index`).

    The grid's columns and rows ``nx``, ``ny``; the cells' walls (CSR over
    cells: ``starts``, ``members``), the walls touching each wall
    (``nb_start``, ``nb``), the walls cutting each wall (``cut_start``,
    ``cut``), each wall's positions among the sorted pieces (``piece_start``,
    ``piece_at``), each wall end's touching far ends (``end_start``,
    :func:`build_ends`), each wall's number in the walls as given (``orig``)
    and each cell's first triangle for the expansion (``tri_start``,
    :func:`tilecast._kernels.expansion.cell_starts`; empty without a
    triangulation).
    """

    nx: int
    ny: int
    starts: Any
    members: Any
    nb_start: Any
    nb: Any
    cut_start: Any
    cut: Any
    piece_start: Any
    piece_at: Any
    end_start: Any
    orig: Any
    tri_start: Any


class FloodBuffers(NamedTuple):
    """What a query's flood writes: views of its workspace (:func:`workspace_parts`).

    ``seen`` (per wall) and ``cell_seen`` (per cell) take this query's
    ``stamp``; ``chosen`` lists the walls chosen, ``queue`` the cells to
    visit; ``cover`` is the occlusion buffer (see :func:`_occlude`).
    """

    seen: Any
    chosen: Any
    cell_seen: Any
    queue: Any
    cover: Any
    stamp: int


class Facing(NamedTuple):
    """A wall as seen from the observer p (:func:`_facing`).

    Its ends ``(ax, ay)``, ``(bx, by)`` counter-clockwise around p
    (``swapped``: b was the first), their distances ``la``, ``lb`` from p,
    and whether it is ``clear`` of the line through p (else it hides nothing).
    """

    ax: float
    ay: float
    bx: float
    by: float
    swapped: bool
    la: float
    lb: float
    clear: bool


_WALLS = types.float64[:, ::1]
_FLOATS = types.float64[::1]
_INTS = types.int64[::1]
#: Numba's types of the records the scene passes (a test checks them against a real scene's).
SCENE_TYPE = types.NamedTuple(
    (_WALLS, _WALLS, _INTS, _WALLS, types.float64, types.float64, types.float64), SceneArrays
)
QUERY_TYPE = types.NamedTuple(
    (_WALLS, types.float64, _FLOATS, _WALLS, _INTS, types.boolean, _FLOATS), SceneQuery
)
_STACK = types.float64[:, :, ::1]
#: The argument types of the kernels the scene calls through their entry points
#: (:func:`entry_point`): :func:`polygon`, :func:`plain_polygon`,
#: :func:`polygons` and :func:`flood_walls`.
POLYGON_TYPES = (SCENE_TYPE, QUERY_TYPE, types.float64, types.float64, _INTS, _WALLS, _STACK,
                 types.int64, types.int64, types.int64, types.int64)  # fmt: skip
PLAIN_TYPES = (SCENE_TYPE, _WALLS, types.float64, types.float64, _STACK, _INTS, types.int64,
               types.int64)  # fmt: skip
POLYGONS_TYPES = (SCENE_TYPE, QUERY_TYPE, _WALLS, types.int64, types.int64, types.int64)
FLOOD_TYPES = (SCENE_TYPE, types.float64, types.float64, _INTS, _WALLS, types.int64)


# ------------------------------------------------------------------ building
@internal
def _sort_ints(keys):
    """Indices of ``keys`` (int64) in ascending order, ties in input order.

    :func:`tilecast._kernels.visibility.row_order` on one column: the keys
    (wall numbers and pair codes, far below 2**53) are exact as doubles.
    """
    column = np.empty((keys.shape[0], 1))
    for k in range(keys.shape[0]):
        column[k, 0] = keys[k]
    return row_order(column)


@internal
def _touch(segs, i, j):
    """Do walls i and j share a point (exactly)?"""
    apart, o1, o2, o3, o4 = pair_orientations(segs, i, j)
    return not apart and o1 * o2 <= 0 and o3 * o4 <= 0  # all four 0: collinear, boxes overlap


@njit(cache=True)
def build_touching(segs, starts, members):
    """CSR lists of the walls each wall touches or crosses (from the cells they share)."""
    m = segs.shape[0]
    keys = np.empty(64, dtype=np.int64)
    n = 0
    for cell in range(starts.shape[0] - 1):
        for p in range(starts[cell], starts[cell + 1]):
            for q in range(p + 1, starts[cell + 1]):
                i, j = members[p], members[q]
                if _touch(segs, i, j):
                    if n + 2 > keys.shape[0]:
                        grown = np.empty(2 * keys.shape[0], dtype=np.int64)
                        for k in range(n):  # a loop: slice assignment compiles shape checks
                            grown[k] = keys[k]
                        keys = grown
                    keys[n] = i * m + j
                    keys[n + 1] = j * m + i
                    n += 2
    keys = keys[:n]
    order = _sort_ints(keys)
    nb_start = np.zeros(m + 1, dtype=np.int64)
    nb = np.empty(n, dtype=np.int64)
    count = 0
    last = -1
    for k in range(n):
        key = keys[order[k]]
        if key == last:
            continue
        last = key
        nb[count] = key % m
        nb_start[key // m + 1] += 1
        count += 1
    for i in range(m):
        nb_start[i + 1] += nb_start[i]
    return nb_start, nb[:count].copy()


@njit(cache=True)
def build_cutters(segs, nb_start, nb):
    """CSR lists, per wall, of the touching walls that cut it: put a split point inside it.

    Those are the walls crossing it and the walls with an end on its open
    interior; a wall meeting it only at its ends leaves its pieces as they are.
    """
    m = segs.shape[0]
    cut_start = np.zeros(m + 1, dtype=np.int64)
    cut = np.empty(nb.shape[0], dtype=np.int64)
    count = 0
    for i in range(m):
        for q in range(nb_start[i], nb_start[i + 1]):
            if _cuts(segs, nb[q], i):
                cut[count] = nb[q]
                count += 1
        cut_start[i + 1] = count
    return cut_start, cut[:count].copy()


@internal
def _cuts(segs, j, i):
    """Does wall j (touching wall i) put a split point inside wall i (``split_pairs``' rule)?"""
    ax, ay, bx, by = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
    cx, cy, dx, dy = segs[j, 0], segs[j, 1], segs[j, 2], segs[j, 3]
    o1 = orient2d(ax, ay, bx, by, cx, cy)
    o2 = orient2d(ax, ay, bx, by, dx, dy)
    if o1 * o2 < 0 and orient2d(cx, cy, dx, dy, ax, ay) * orient2d(cx, cy, dx, dy, bx, by) < 0:
        return True  # a proper crossing
    return (o1 == 0 and on_open_segment(ax, ay, bx, by, cx, cy)) or (
        o2 == 0 and on_open_segment(ax, ay, bx, by, dx, dy)
    )


@njit(cache=True)
def lex_pieces(segs):
    """The walls' pieces (split where they cross), ends in canonical order, sorted.

    Returns the rows and the wall each comes from; the sweep starts from the
    first row not in line with the observer.
    """
    pieces, source = split_segments(segs)
    for k in range(pieces.shape[0]):
        x0, y0, x1, y1 = pieces[k, 0], pieces[k, 1], pieces[k, 2], pieces[k, 3]
        if x0 > x1 or (x0 == x1 and y0 > y1):
            pieces[k, 0], pieces[k, 1], pieces[k, 2], pieces[k, 3] = x1, y1, x0, y0
    order = row_order(pieces)
    rows = np.empty_like(pieces)
    src = np.empty(pieces.shape[0], dtype=np.int64)
    for k in range(order.shape[0]):
        for c in range(4):
            rows[k, c] = pieces[order[k], c]
        src[k] = source[order[k]]
    return rows, src


# --------------------------------------------------------- occlusion buffer
def _wedge_directions() -> np.ndarray:
    """Directions of the wedges' boundaries, pseudo-angle k * 4 / BINS, and their lengths.

    Two turns' worth (``2 * BINS`` rows): a wall's boundaries are indexed
    from its start's wedge on, without wrapping. (Exact directions; the
    lengths' rounding is far inside the margins they are used with.)
    """
    s = (np.arange(2 * BINS) % BINS) * _WIDTH
    quarter = s.astype(np.int64)
    f = s - quarter
    dx = np.choose(quarter, [1.0 - f, -f, f - 1.0, f])
    dy = np.choose(quarter, [f, 1.0 - f, -f, f - 1.0])
    return np.ascontiguousarray(np.stack([dx, dy, np.hypot(dx, dy)], axis=1))


_DIRS = _wedge_directions()  # a constant of the compiled kernels


# The scene's integer lists in one array (fewer arguments per call): nx, ny,
# the offsets of the parts, then the parts (see pack_index, unpack_index).
_PARTS = 11


def pack_index(nx: int, ny: int, *parts: np.ndarray) -> np.ndarray:
    """``[nx, ny, offsets (12), *parts]``, int64: the lists :func:`unpack_index` returns."""
    assert len(parts) == _PARTS
    sizes = [len(part) for part in parts]
    offsets = 2 + _PARTS + 1 + np.concatenate([[0], np.cumsum(sizes)])
    return np.concatenate([[nx, ny], offsets, *parts]).astype(np.int64)


@internal
def unpack_index(index):
    """The scene's lists as one :class:`SceneLists` record of views of ``index``."""
    o = index[2 : 3 + _PARTS]
    return SceneLists(
        index[0], index[1],
        index[o[0] : o[1]], index[o[1] : o[2]], index[o[2] : o[3]],
        index[o[3] : o[4]], index[o[4] : o[5]], index[o[5] : o[6]],
        index[o[6] : o[7]], index[o[7] : o[8]], index[o[8] : o[9]], index[o[9] : o[10]],
        index[o[10] : o[11]],
    )  # fmt: skip


@internal
def _boundary_distance(dirs, k, across, ex, ey, parallel, far):
    """How far along wedge boundary k the wall's line lies (at most ``far``, with margin).

    ``across`` is the cross product of (wall start - p) and the wall's
    direction (ex, ey); ``parallel`` a tolerance on the cross product of a
    unit direction with (ex, ey) under which the two count as parallel.
    """
    dx, dy, length = dirs[k, 0], dirs[k, 1], dirs[k, 2]
    den = dx * ey - dy * ex
    if abs(den) < parallel * length:
        return far  # nearly parallel: the end's distance bounds it
    t = across / den
    if not t > 0.0:
        return far
    return min(far, t * length * _FAR)


@njit(cache=True)
def build_ends(segs, nb_start, nb):
    """Per wall end ``2 i + e``, the far ends of the touching walls with an end exactly there.

    CSR: ``(end_start (2 M + 1,), far (K, 2))``; see :func:`_continued`.
    """
    m = segs.shape[0]
    end_start = np.zeros(2 * m + 1, dtype=np.int64)
    far = np.empty((2 * nb.shape[0], 2))
    count = 0
    for i in range(m):
        for e in range(2):
            xx, xy = segs[i, 2 * e], segs[i, 2 * e + 1]
            for q in range(nb_start[i], nb_start[i + 1]):
                j = nb[q]
                for end in range(2):
                    if segs[j, 2 * end] == xx and segs[j, 2 * end + 1] == xy:
                        far[count, 0], far[count, 1] = segs[j, 2 - 2 * end], segs[j, 3 - 2 * end]
                        count += 1
            end_start[2 * i + e + 1] = count
    return end_start, far[:count].copy()


@internal
def _continued(end_start, far, end, px, py, xx, xy, side):
    """Does a wall touching this wall at its end x carry on past x's direction (seen from p)?

    ``end`` is x's number (:func:`build_ends`); ``side`` the side of the
    ray from p through x that the wall's other end lies on (1: left). A wall
    from x to the other side hides the directions beyond x together with
    this one, with no gap at x.
    """
    for q in range(end_start[end], end_start[end + 1]):
        if orient2d(px, py, xx, xy, far[q, 0], far[q, 1]) == -side:
            return True
    return False


@internal
def _length(dx, dy):
    """``hypot(dx, dy)``, by a square root where its squares neither overflow nor underflow."""
    d = math.sqrt(dx * dx + dy * dy)
    if 2.0**-500 < d < 2.0**500:
        return d
    return math.hypot(dx, dy)


@internal
def _facing(px, py, ax, ay, bx, by):
    """The wall a-b seen from p, a :class:`Facing` record.

    The ends counter-clockwise around p (``swapped``: b was the first), their
    distances from p, and whether the wall is far enough from in line with p
    for float angles (float cross product above ``1e-9 la lb``, far above its
    rounding, so its sign is the exact orientation's); a wall that is not
    ``clear`` hides nothing here.
    """
    la = _length(ax - px, ay - py)
    lb = _length(bx - px, by - py)
    cross = (ax - px) * (by - py) - (ay - py) * (bx - px)
    clear = abs(cross) > 1e-9 * la * lb  # False for NaN and overflow
    if cross < 0.0:
        return Facing(bx, by, ax, ay, True, lb, la, clear)
    return Facing(ax, ay, bx, by, False, la, lb, clear)


@internal
def _occlude(cover, dirs, end_start, far_ends, end_a, end_b, px, py, wall):
    """Record that the wall a-b hides what lies beyond it.

    The ``wall`` as :func:`_facing` gives it, ``clear``; ``end_a``, ``end_b``:
    its ends' numbers (:func:`build_ends`), or -1 (an extra wall).
    ``cover[0]`` holds, per wedge, a distance beyond which a wall spanning
    the whole wedge hides everything; ``cover[1]``/``cover[2]`` the extent
    (within the wedge) and distance of the best wall covering the wedge from
    its start, ``cover[3]``/``cover[4]`` the same for walls covering it up to
    its end: two of those that meet make the wedge covered. An end is
    widened by a margin, unless another wall carries on from it.
    """
    ax, ay, bx, by, la, lb = wall.ax, wall.ay, wall.bx, wall.by, wall.la, wall.lb
    lo = pseudo_angle(ax - px, ay - py)
    hi = pseudo_angle(bx - px, by - py)
    # counter-clockwise and clear, b lies left of the ray from p through a
    # and a right of the ray through b (exactly: see _facing)
    if end_a < 0 or not _continued(end_start, far_ends, end_a, px, py, ax, ay, 1):
        lo += _EPS
    if end_b < 0 or not _continued(end_start, far_ends, end_b, px, py, bx, by, -1):
        hi -= _EPS
    if hi < lo - 2.0:
        hi += 4.0
    if hi <= lo:
        return
    far = max(la, lb) * _FAR
    ex, ey = bx - ax, by - ay
    across = (ax - px) * ey - (ay - py) * ex
    parallel = 1e-6 * _length(ex, ey)
    k0 = int(math.ceil(lo / _WIDTH))  # noqa: RUF046 (numba); 0 <= lo < 4 + _EPS
    k1 = int(math.floor(hi / _WIDTH)) - 1  # noqa: RUF046 (numba); hi < lo + 2
    d0 = _boundary_distance(dirs, k0, across, ex, ey, parallel, far)
    if k0 * _WIDTH <= hi:  # the wedge the wall starts in: covered from lo to its end
        b = (k0 - 1) % BINS
        start = lo - (k0 - 1) * _WIDTH
        if start < cover[3, b]:
            cover[3, b] = start
            cover[4, b] = max(la * _FAR, d0)
            _meet(cover, b)
    # The wedges it spans whole, a few at a time when it spans many: along
    # the rays of an angle, the distance to a line is largest at one of its
    # two edges (it grows away from the foot of the perpendicular), so the
    # larger of the two bounds every wedge between them.
    stride = min(_STRIDE, max(1, (k1 + 1 - k0) // 16))
    k = k0
    while k <= k1:
        step = min(stride, k1 + 1 - k)
        d1 = _boundary_distance(dirs, k + step, across, ex, ey, parallel, far)
        bound = max(d0, d1)
        for j in range(k, k + step):
            b = j - BINS if j >= BINS else j
            cover[0, b] = min(cover[0, b], bound)
        d0 = d1
        k += step
    last = k1 + 1  # the wedge the wall ends in: covered from its start to hi
    if last >= k0 and hi < (last + 1) * _WIDTH:
        b = last % BINS
        extent = hi - last * _WIDTH
        if extent > cover[1, b]:
            cover[1, b] = extent
            cover[2, b] = max(lb * _FAR, d0)
            _meet(cover, b)


@internal
def _meet(cover, b):
    if cover[1, b] >= cover[3, b]:
        cover[0, b] = min(cover[0, b], max(cover[2, b], cover[4, b]))


@internal
def clear_cover(cover):
    """Empty the occlusion buffer (see ``_occlude``): nothing hidden yet."""
    for b in range(BINS):
        cover[0, b] = np.inf
        cover[1, b] = -1.0
        cover[2, b] = np.inf
        cover[3, b] = 2.0 * _WIDTH
        cover[4, b] = np.inf


@internal
def _box_span(px, py, cx0, cy0, cx1, cy1):
    """Pseudo-angles of the box's first and last corner counter-clockwise, p outside it.

    The two corners are picked by where p lies (exact comparisons); the
    second may exceed 4 (the span crosses direction 0).
    """
    if py < cy0:
        if px < cx0:
            lo, hi = pseudo_angle(cx1 - px, cy0 - py), pseudo_angle(cx0 - px, cy1 - py)
        elif px <= cx1:
            lo, hi = pseudo_angle(cx1 - px, cy0 - py), pseudo_angle(cx0 - px, cy0 - py)
        else:
            lo, hi = pseudo_angle(cx1 - px, cy1 - py), pseudo_angle(cx0 - px, cy0 - py)
    elif py <= cy1:
        if px < cx0:
            lo, hi = pseudo_angle(cx0 - px, cy0 - py), pseudo_angle(cx0 - px, cy1 - py)
        else:
            lo, hi = pseudo_angle(cx1 - px, cy1 - py), pseudo_angle(cx1 - px, cy0 - py)
    elif px < cx0:
        lo, hi = pseudo_angle(cx0 - px, cy0 - py), pseudo_angle(cx1 - px, cy1 - py)
    elif px <= cx1:
        lo, hi = pseudo_angle(cx0 - px, cy1 - py), pseudo_angle(cx1 - px, cy1 - py)
    else:
        lo, hi = pseudo_angle(cx0 - px, cy1 - py), pseudo_angle(cx1 - px, cy0 - py)
    if hi < lo:
        hi += 4.0
    return lo, hi


@internal
def _covered(cover, lo, hi, near):
    """Is every direction from pseudo-angle lo to hi (> lo) hidden nearer than ``near``?"""
    if hi - lo >= 1.9:
        return False
    lo -= _EPS
    hi += _EPS
    if lo < 0.0:
        lo += 4.0
        hi += 4.0
    for k in range(int(math.floor(lo / _WIDTH)), int(math.floor(hi / _WIDTH)) + 1):  # noqa: RUF046 (numba)
        if not cover[0, k % BINS] < near:
            return False
    return True


@internal
def _nearness(px, py, cx0, cy0, cx1, cy1, margin):
    """A distance from p below every point of the box (with margin); -1 if p is at the box."""
    if cx0 - margin <= px <= cx1 + margin and cy0 - margin <= py <= cy1 + margin:
        return -1.0
    gx = max(cx0 - px, 0.0, px - cx1)
    gy = max(cy0 - py, 0.0, py - cy1)
    return _length(gx, gy) * (1.0 - 1e-9) - margin


@internal
def _hidden(cover, px, py, cx0, cy0, cx1, cy1, margin):
    """Is every point of the box hidden behind walls recorded in ``cover``?"""
    near = _nearness(px, py, cx0, cy0, cx1, cy1, margin)
    if near <= 0.0:
        return False
    lo, hi = _box_span(px, py, cx0, cy0, cx1, cy1)
    return _covered(cover, lo, hi, near)


# ------------------------------------------------------------------ queries
@internal
def _mark(i, stamp, seen, chosen, count):
    if seen[i] != stamp:
        seen[i] = stamp
        chosen[count] = i
        count += 1
    return count


@internal
def _mark_touching(i, nb_start, nb, stamp, seen, chosen, count):
    count = _mark(i, stamp, seen, chosen, count)
    for k in range(nb_start[i], nb_start[i + 1]):
        count = _mark(nb[k], stamp, seen, chosen, count)
    return count


@internal
def _min_x_in_disc(ax, ay, bx, by, px, py, radius):
    """Smallest x of the wall's part in the closed disc (radius <= 0: no disc); inf if none."""
    if radius <= 0.0:
        return min(ax, bx)
    ex, ey = bx - ax, by - ay
    qa = ex * ex + ey * ey
    qb = (ax - px) * ex + (ay - py) * ey
    qc = (ax - px) ** 2 + (ay - py) ** 2 - radius * radius
    if qa == 0.0:
        return ax if qc <= 0.0 else np.inf
    disc = qb * qb - qa * qc
    if disc < 0.0:
        return np.inf
    root = math.sqrt(disc)
    t0 = max((-qb - root) / qa, 0.0)
    t1 = min((-qb + root) / qa, 1.0)
    if t0 > t1:
        return np.inf
    return min(ax + t0 * ex, ax + t1 * ex)


@internal
def _surely_kept_x(ax, ay, bx, by, px, py, radius):
    """Smallest x of a wall that surely leaves a piece for the sweep (inf: not sure)."""
    la = math.hypot(ax - px, ay - py)
    lb = math.hypot(bx - px, by - py)
    if abs((ax - px) * (by - py) - (ay - py) * (bx - px)) <= 1e-6 * la * lb:
        return np.inf  # (nearly) in line with the observer: may be dropped
    if radius <= 0.0:
        return min(ax, bx)
    return _min_x_in_disc(ax, ay, bx, by, px, py, radius * (1.0 - 1e-6))


@internal
def workspace_parts(work, m, cells):
    """Views of a query's workspace (:func:`new_workspace`).

    ``seen`` (per wall) and ``cell_seen`` (per cell) hold the stamp of the
    last query that met them, so they are never cleared; ``picked`` (a bit
    per sorted piece) is left zero by each query; ``position``, ``chosen``
    and ``queue`` are scratch.
    """
    seen = work[:m]
    position = work[m : 2 * m]
    chosen = work[2 * m : 3 * m]
    cell_seen = work[3 * m : 3 * m + cells]
    queue = work[3 * m + cells : 3 * m + 2 * cells]
    picked = work[3 * m + 2 * cells :]
    return seen, position, chosen, cell_seen, queue, picked


@internal
def _flood(scene, lists, query, px, py, buffers, dirs):
    """Walls of the cells not hidden, flooding outward from the observer's.

    They are marked in ``buffers.seen`` and listed in ``buffers.chosen``;
    returns how many. ``dirs``: :data:`_DIRS`.
    """
    segs, far_ends, x0, y0, h = scene.walls, scene.far_ends, scene.x0, scene.y0, scene.h
    nx, ny, starts, members = lists.nx, lists.ny, lists.starts, lists.members
    end_start = lists.end_start
    extras, radius, box = query.extras, query.radius, query.box
    seen, chosen, cell_seen, queue = buffers.seen, buffers.chosen, buffers.cell_seen, buffers.queue
    cover, stamp = buffers.cover, buffers.stamp
    scale = max(abs(x0), abs(y0), abs(x0 + nx * h), abs(y0 + ny * h), abs(px), abs(py), radius)
    margin = 1e-9 * scale + 1e-300
    count = 0
    clear_cover(cover)
    for e in range(extras.shape[0]):
        wall = _facing(px, py, extras[e, 0], extras[e, 1], extras[e, 2], extras[e, 3])
        if wall.clear:
            _occlude(cover, dirs, end_start, far_ends, _NO_END, _NO_END, px, py, wall)
    # 1. flood the cells outward from the observer's
    start = int(math.floor((py - y0) / h)) * nx + int(math.floor((px - x0) / h))  # noqa: RUF046 (numba)
    queue[0] = start
    cell_seen[start] = stamp
    head, tail = 0, 1
    reach = radius * (1.0 + 1e-9) + margin
    while head < tail:
        cell = queue[head]
        head += 1
        r, c = cell // nx, cell % nx
        cx0, cy0 = x0 + c * h, y0 + r * h
        cx1, cy1 = cx0 + h, cy0 + h
        if radius > 0.0:
            gx = max(cx0 - px, 0.0, px - cx1)
            gy = max(cy0 - py, 0.0, py - cy1)
            if math.hypot(gx, gy) > reach:
                continue
        if box.shape[0] == 4 and (
            cx1 < box[0] - margin
            or cx0 > box[2] + margin
            or cy1 < box[1] - margin
            or cy0 > box[3] + margin
        ):
            continue
        if _hidden(cover, px, py, cx0, cy0, cx1, cy1, margin):
            continue
        for k in range(starts[cell], starts[cell + 1]):
            i = members[k]
            if seen[i] == stamp or seen[i] == -stamp:
                continue
            x0i, y0i, x1i, y1i = segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3]
            wall = _facing(px, py, x0i, y0i, x1i, y1i)
            ax, ay, bx, by, swapped, _, _, clear = wall
            if clear:  # its directions: from a's to b's
                near = _nearness(px, py, min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), margin)
                lo, hi = pseudo_angle(ax - px, ay - py), pseudo_angle(bx - px, by - py)
                hidden = near > 0.0 and _covered(cover, lo, hi + 4.0 * (hi < lo), near)
            else:
                hidden = _hidden(
                    cover, px, py, min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), margin
                )
            if hidden:
                seen[i] = -stamp  # hidden (for good: the buffer only grows), not chosen
                continue
            seen[i] = stamp
            chosen[count] = i
            count += 1
            if clear:
                end_a = 2 * i + swapped
                _occlude(cover, dirs, end_start, far_ends, end_a, end_a ^ 1, px, py, wall)
        for step in range(4):
            rr = r + (1 if step == 0 else -1 if step == 1 else 0)
            cc = c + (1 if step == 2 else -1 if step == 3 else 0)
            if 0 <= rr < ny and 0 <= cc < nx and cell_seen[rr * nx + cc] != stamp:
                cell_seen[rr * nx + cc] = stamp
                queue[tail] = rr * nx + cc
                tail += 1
    return count


@internal
def choose_walls(scene, lists, query, px, py, buffers, dirs):
    """A superset of the walls the answer depends on, in the walls' original order.

    The scene's wall numbers (``orig[i]``: wall i's number in the walls as given).

    The query's ``box`` is (x0, y0, x1, y1) or empty; its ``lex_rows`` and
    ``lex_src`` the sorted pieces of all the walls with the query's extras
    (empty rows: find the first piece's wall here, for queries whose pieces
    depend on the observer). The flood's ``buffers`` as :func:`_flood`'s.
    """
    segs, x0, y0, h = scene.walls, scene.x0, scene.y0, scene.h
    nx, ny, starts, members, orig = lists.nx, lists.ny, lists.starts, lists.members, lists.orig
    nb_start, nb, cut_start, cut = lists.nb_start, lists.nb, lists.cut_start, lists.cut
    extras, radius, lex_rows, lex_src = query.extras, query.radius, query.lex_rows, query.lex_src
    seen, chosen, stamp = buffers.seen, buffers.chosen, buffers.stamp
    m = segs.shape[0]
    scale = max(abs(x0), abs(y0), abs(x0 + nx * h), abs(y0 + ny * h), abs(px), abs(py), radius)
    margin = 1e-9 * scale + 1e-300
    reach = radius * (1.0 + 1e-9) + margin
    count = visible = _flood(scene, lists, query, px, py, buffers, dirs)
    # 2. the first piece in lexicographic order: the sweep starts from it
    if lex_rows.shape[0] > 0:
        k = first_piece(lex_rows, px, py)
        j = k
        while 0 <= j < lex_rows.shape[0] and (
            lex_rows[j, 0] == lex_rows[k, 0]
            and lex_rows[j, 1] == lex_rows[k, 1]
            and lex_rows[j, 2] == lex_rows[k, 2]
            and lex_rows[j, 3] == lex_rows[k, 3]
        ):
            if lex_src[j] < m:
                count = _mark_touching(lex_src[j], nb_start, nb, stamp, seen, chosen, count)
            j += 1
    else:
        # Pieces depend on the observer (radius, circles): take every wall
        # whose part in the disc reaches left to within a margin of a piece
        # that surely exists; the first piece is among theirs.
        best = np.inf
        for k in range(visible):
            i = chosen[k]
            x = _surely_kept_x(segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3], px, py, radius)
            best = min(best, x)
        for e in range(extras.shape[0]):
            x = _surely_kept_x(
                extras[e, 0], extras[e, 1], extras[e, 2], extras[e, 3], px, py, radius
            )
            best = min(best, x)
        best += 1e-6 * scale + 1e-300
        lo_y, hi_y = y0, y0 + ny * h
        lo_x = x0
        if radius > 0.0:
            lo_y, hi_y, lo_x = py - reach, py + reach, px - reach
        c0, c1 = cell_span(lo_x, min(best, x0 + nx * h), x0, h, nx)
        r0, r1 = cell_span(lo_y, hi_y, y0, h, ny)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell = r * nx + c
                for k in range(starts[cell], starts[cell + 1]):
                    i = members[k]
                    x = _min_x_in_disc(
                        segs[i, 0], segs[i, 1], segs[i, 2], segs[i, 3], px, py,
                        radius * (1.0 + 1e-6) + margin if radius > 0.0 else 0.0,
                    )  # fmt: skip
                    if x - 1e-6 * scale <= best:
                        count = _mark_touching(i, nb_start, nb, stamp, seen, chosen, count)
    # 3. walls cutting a chosen one cut it into the same pieces
    for k in range(visible):
        i = chosen[k]
        for q in range(cut_start[i], cut_start[i + 1]):
            count = _mark(cut[q], stamp, seen, chosen, count)
    for e in range(extras.shape[0]):
        ex0, ex1 = min(extras[e, 0], extras[e, 2]), max(extras[e, 0], extras[e, 2])
        ey0, ey1 = min(extras[e, 1], extras[e, 3]), max(extras[e, 1], extras[e, 3])
        c0, c1 = cell_span(ex0 - margin, ex1 + margin, x0, h, nx)
        r0, r1 = cell_span(ey0 - margin, ey1 + margin, y0, h, ny)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                cell = r * nx + c
                for k in range(starts[cell], starts[cell + 1]):
                    i = members[k]
                    if (
                        min(segs[i, 0], segs[i, 2]) <= ex1 + margin
                        and max(segs[i, 0], segs[i, 2]) >= ex0 - margin
                        and min(segs[i, 1], segs[i, 3]) <= ey1 + margin
                        and max(segs[i, 1], segs[i, 3]) >= ey0 - margin
                    ):
                        count = _mark(i, stamp, seen, chosen, count)
    chosen = chosen[:count]
    return chosen[_sort_ints(orig[chosen])]


@internal
def first_piece(lex_rows, px, py):
    """The first of the sorted pieces not in line with p (the sweep starts from it); -1: none."""
    for k in range(lex_rows.shape[0]):
        if orient2d(px, py, lex_rows[k, 0], lex_rows[k, 1], lex_rows[k, 2], lex_rows[k, 3]):
            return k
    return -1


@internal
def chosen_pieces(chosen, count, lex_rows, piece_start, piece_at, px, py, picked):
    """The sweep's walls from the prepared pieces: ``finish_walls`` of the chosen walls' split.

    Without a radius or extras the pieces of a wall do not depend on the
    observer, and the full split's pieces of a wall are its pieces in any
    subset holding the walls that cut it; the walls whose pieces are not
    taken are hidden at every point, so they leave the sweep's answer as
    it is. ``lex_rows`` are the scene's pieces, sorted and in canonical
    order; ``piece_at[piece_start[i]:piece_start[i + 1]]`` wall i's
    positions among them. The result is those rows of the chosen walls and
    the first piece, in order, without repeats and without those in line
    with p: what ``finish_walls`` returns on the chosen walls' pieces.
    ``picked`` is a bit per row (zeros; left zero).
    """
    n = 0
    lo = picked.shape[0]
    hi = -1
    for k in range(count):
        i = chosen[k]
        for q in range(piece_start[i], piece_start[i + 1]):
            r = piece_at[q]
            picked[r >> 6] |= _ONE << (r & 63)
            lo = min(lo, r >> 6)
            hi = max(hi, r >> 6)
            n += 1
    return picked_rows(picked, lo, hi, n, lex_rows, px, py)


@internal
def picked_rows(picked, lo, hi, n, lex_rows, px, py):
    """The rows of the pieces whose bits are set in ``picked`` and the first piece, in order.

    ``picked[lo:hi + 1]`` holds the ``n`` bits set (or fewer: a piece may
    have been counted twice); the words are left zero. Rows in line with p
    and repeats are left out (see :func:`chosen_pieces`).
    """
    r = first_piece(lex_rows, px, py)
    if r >= 0:
        picked[r >> 6] |= _ONE << (r & 63)
        lo = min(lo, r >> 6)
        hi = max(hi, r >> 6)
        n += 1
    rows = np.empty((n, 4))
    out = 0
    for w in range(lo, hi + 1):  # the picked rows in order: the set bits, word by word
        word = picked[w]
        picked[w] = 0
        while word != 0:
            r = 64 * w + trailing_zeros(word)
            word &= word - 1
            x0, y0, x1, y1 = lex_rows[r, 0], lex_rows[r, 1], lex_rows[r, 2], lex_rows[r, 3]
            if orient2d(px, py, x0, y0, x1, y1) == 0:
                continue
            if out > 0 and (
                rows[out - 1, 0] == x0
                and rows[out - 1, 1] == y0
                and rows[out - 1, 2] == x1
                and rows[out - 1, 3] == y1
            ):
                continue
            rows[out, 0], rows[out, 1], rows[out, 2], rows[out, 3] = x0, y0, x1, y1
            out += 1
    return rows[:out]  # C-contiguous (the sweep copies it)


@internal
def _boxes_meet(walls, i, j):
    return (
        min(walls[i, 0], walls[i, 2]) <= max(walls[j, 0], walls[j, 2])
        and min(walls[j, 0], walls[j, 2]) <= max(walls[i, 0], walls[i, 2])
        and min(walls[i, 1], walls[i, 3]) <= max(walls[j, 1], walls[j, 3])
        and min(walls[j, 1], walls[j, 3]) <= max(walls[i, 1], walls[i, 3])
    )


@internal
def prepare_chosen(segs, chosen, nb_start, nb, extras, px, py, radius, seen, stamp, position,
                   finish_at):  # fmt: skip
    """``prepare_walls`` on the chosen walls (in original order) and the extras.

    The candidate pairs come from the lists of touching walls.

    ``finish_at`` is the address of :func:`tilecast._kernels.visibility.finish_walls`."""
    if radius > 0.0:
        keep = near_walls(segs[chosen], px, py, radius)
    else:
        keep = np.ones(chosen.shape[0], dtype=np.bool_)
    count = 0
    for k in range(chosen.shape[0]):
        i = chosen[k]
        position[i] = count if keep[k] else -1
        count += keep[k]
    n_extra = extras.shape[0]
    walls = np.empty((count + n_extra, 4))
    for k in range(chosen.shape[0]):
        i = chosen[k]
        if position[i] >= 0:
            for c in range(4):
                walls[position[i], c] = segs[i, c]
    for e in range(n_extra):
        for c in range(4):
            walls[count + e, c] = extras[e, c]
    # Candidate pairs: listed touching walls both kept (in the walls' own
    # order, as the full split sees them), then every pair with an extra.
    first = np.empty(64, dtype=np.int64)
    second = np.empty(64, dtype=np.int64)
    n = 0
    for k in range(chosen.shape[0]):
        i = chosen[k]
        if position[i] < 0:
            continue
        for q in range(nb_start[i], nb_start[i + 1]):
            j = nb[q]
            if seen[j] == stamp and position[j] > position[i]:
                first, second, n = _pair(first, second, n, position[i], position[j])
    for e in range(n_extra):
        for i in range(count + e):
            if _boxes_meet(walls, i, count + e):
                first, second, n = _pair(first, second, n, i, count + e)
    pieces = split_pairs(walls, first[:n], second[:n])[0]
    return call_finish_walls(finish_at, pieces, px, py, radius)


@internal
def _pair(first, second, n, i, j):
    if n == first.shape[0]:
        grown_first = np.empty(2 * n, dtype=np.int64)
        grown_second = np.empty(2 * n, dtype=np.int64)
        for k in range(n):
            grown_first[k] = first[k]
            grown_second[k] = second[k]
        first, second = grown_first, grown_second
    first[n] = i
    second[n] = j
    return first, second, n + 1


@njit(cache=True)
def in_range(rows):
    """Do the prepared walls' non-zero coordinates lie where the predicates are exact?"""
    for i in range(rows.shape[0]):
        for c in range(4):
            v = abs(rows[i, c])
            if v > _HIGH or (0.0 < v < _LOW):
                return False
    return True


@internal
def _expand_at_cell(scene, lists, px, py, stack, picked, span, lex_rows, cone, expand_at):
    """The expansion from p's grid cell's first triangle: ``(polygon, outcome)``.

    :func:`tilecast._kernels.expansion.expanded_polygon`'s outcomes; UNSURE
    also when the scene has no triangulation or the cell no triangle.
    """
    mesh, tri_start, x0, y0, h = scene.mesh, lists.tri_start, scene.x0, scene.y0, scene.h
    if mesh.shape[0] == 0:
        return np.empty((0, 2)), UNSURE
    cell = int(math.floor((py - y0) / h)) * lists.nx + int(math.floor((px - x0) / h))  # noqa: RUF046 (numba)
    if tri_start[cell] < 0:
        return np.empty((0, 2)), UNSURE
    first = first_piece(lex_rows, px, py)
    return call_expanded_polygon(
        expand_at, mesh, tri_start[cell], px, py, stack, picked, span, lex_rows, first, cone
    )


#: :func:`plain_polygon`'s status when the flood must answer (ask :func:`polygon`).
FLOOD = 3


@njit(cache=True)
def plain_polygon(scene, lex_rows, px, py, stack, picked, expand_at, sweep_at):
    """A plain query (the scene's own walls, no options): ``(polygon, status)``.

    What :func:`polygon` answers for p when the triangular expansion can,
    with the fewest arguments (a game's per-frame queries notice each;
    the scene calls it through its entry point, :data:`PLAIN_TYPES`).
    ``lex_rows``: the scene's sorted pieces (:func:`lex_pieces`).
    Status 0, 1 and 2 as :func:`polygon`'s; :data:`FLOOD`: p lies on an
    edge of the triangulation, in no triangle's reach, or the scene has
    none: ask :func:`polygon`. ``picked``: the workspace's bits
    (:func:`workspace_parts`), ``stack``: its stack.
    """
    if lex_rows.shape[0] == 0:
        return np.empty((0, 2)), FLOOD
    span = np.empty(5, dtype=np.int64)
    poly, status = _expand_at_cell(scene, unpack_index(scene.index), px, py, stack, picked, span,
                                   lex_rows, False, expand_at)  # fmt: skip
    if status == TRACED:
        return poly, 0
    if status == ENDLESS:
        return poly, 1
    if status != SEEN:
        return poly, FLOOD
    rows = picked_rows(picked, span[0], span[1], span[2], lex_rows, px, py)
    if not in_range(rows):
        return np.empty((0, 2)), 2
    return call_sweep(sweep_at, rows, px, py, 0.0, False, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True)
def polygon(scene, query, px, py, work, cover, stack, stamp, finish_at, sweep_at, expand_at):
    """One observer's visibility polygon: ``(polygon, status)``.

    Status 0: done; 1: it sees to infinity; 2: a prepared wall is out of the
    exact range (the caller asks ``visibility_polygon`` for its error).
    ``scene``: a :class:`SceneArrays`; ``query``: a :class:`SceneQuery`.
    ``work``, ``cover`` and ``stack`` are the query's workspace
    (:func:`new_workspace`), kept between queries; ``stamp`` must grow from
    query to query on one workspace. ``finish_at``, ``sweep_at``:
    :func:`tilecast._kernels.visibility.addresses`, ``expand_at``:
    :func:`tilecast._kernels.expansion.address` (called through them, the
    preparation's end, the sweep and the expansion are not compiled again
    inside the scene's kernels).

    With the scene's own pieces (no bounds, circles or radius) the walls
    come from the triangular expansion when the scene has a triangulation
    and p lies strictly inside one of its triangles; else from the flood.
    """
    lists = unpack_index(scene.index)
    segs, extras, radius, lex_rows = scene.walls, query.extras, query.radius, query.lex_rows
    cone = query.cone
    dirs = _DIRS
    seen, position, chosen, cell_seen, queue, picked = workspace_parts(
        work, segs.shape[0], lists.nx * lists.ny
    )
    buffers = FloodBuffers(seen, chosen, cell_seen, queue, cover, stamp)
    if extras.shape[0] == 0 and radius <= 0.0 and 0 < lex_rows.shape[0] == lists.piece_at.shape[0]:
        # the scene's own pieces (no bounds, circles or radius): taken as they are
        span = np.empty(5, dtype=np.int64)
        poly, status = _expand_at_cell(scene, lists, px, py, stack, picked, span, lex_rows, cone,
                                       expand_at)  # fmt: skip
        if status == TRACED:
            return poly, 0
        if status == ENDLESS and not cone:
            return poly, 1
        if status == SEEN:
            rows = picked_rows(picked, span[0], span[1], span[2], lex_rows, px, py)
        else:
            count = _flood(scene, lists, query, px, py, buffers, dirs)
            rows = chosen_pieces(chosen, count, lex_rows, lists.piece_start, lists.piece_at, px, py,
                                 picked)  # fmt: skip
    else:
        walls = choose_walls(scene, lists, query, px, py, buffers, dirs)
        rows = prepare_chosen(segs, walls, lists.nb_start, lists.nb, extras, px, py, radius, seen,
                              stamp, position, finish_at)  # fmt: skip
    if not in_range(rows):
        return np.empty((0, 2)), 2
    ux = uy = wx = wy = 0.0
    if cone:  # visibility._cone_points, with the same trigonometry
        cone_trig = query.cone_trig
        scale = max(1.0, abs(px), abs(py))
        ux, uy = px + scale * cone_trig[0], py + scale * cone_trig[1]
        wx, wy = px + scale * cone_trig[2], py + scale * cone_trig[3]
    return call_sweep(sweep_at, rows, px, py, radius, cone, ux, uy, wx, wy)


@njit(cache=True)
def new_workspace(m, cells, pieces, triangles):
    """A query's workspace: ``(work, cover, stack, picked)`` (see :func:`polygon`).

    ``stack`` holds the expansion's pending windows and its trail, each
    fewer than the triangles (:func:`tilecast._kernels.expansion.expand`);
    ``picked`` is the bits per piece in ``work`` (:func:`workspace_parts`).
    """
    work = np.zeros(3 * m + 2 * cells + pieces // 64 + 1, dtype=np.int64)
    cover = np.empty((5, BINS))
    stack = np.empty((2, triangles + 8, 5))
    return work, cover, stack, workspace_parts(work, m, cells)[5]


@njit(cache=True, nogil=True)
def polygons(scene, query, observers, finish_at, sweep_at, expand_at):
    """Many observers' polygons: ``(vertices (V, 2), offsets (N + 1,), status (N,))``.

    :func:`polygon` for each row of ``observers`` (N, 2), with one workspace.
    """
    n = observers.shape[0]
    nx, ny = scene.index[0], scene.index[1]
    work, cover, stack, _ = new_workspace(
        scene.walls.shape[0], nx * ny, query.lex_rows.shape[0], scene.mesh.shape[0]
    )
    offsets = np.zeros(n + 1, dtype=np.int64)
    status = np.zeros(n, dtype=np.int64)
    vertices = np.empty((1024, 2))
    for q in range(n):
        poly, status[q] = polygon(
            scene, query, observers[q, 0], observers[q, 1], work, cover, stack, q + 1, finish_at,
            sweep_at, expand_at,
        )  # fmt: skip
        at = offsets[q]
        if at + poly.shape[0] > vertices.shape[0]:
            grown = np.empty((2 * (at + poly.shape[0]), 2))
            for k in range(at):
                grown[k, 0], grown[k, 1] = vertices[k, 0], vertices[k, 1]
            vertices = grown
        for k in range(poly.shape[0]):
            vertices[at + k, 0], vertices[at + k, 1] = poly[k, 0], poly[k, 1]
        offsets[q + 1] = at + poly.shape[0]
    return vertices[: offsets[n]].copy(), offsets, status


@internal
def _blocked(walls, chosen, px, py, qx, qy, after):
    """Does a wall hide q just after (or just before) the direction of q, seen from p?"""
    for k in range(chosen.shape[0]):
        i = chosen[k]
        ax, ay, bx, by = walls[i, 0], walls[i, 1], walls[i, 2], walls[i, 3]
        side = orient2d(px, py, ax, ay, bx, by)
        if side == 0:
            continue  # in line with the observer: hides nothing
        if side < 0:
            ax, ay, bx, by = bx, by, ax, ay
        oa = orient2d(px, py, ax, ay, qx, qy)
        ob = orient2d(px, py, qx, qy, bx, by)
        if oa > 0 and ob > 0:
            pass  # the wall spans the direction of q
        elif after and oa == 0 and (ax - px) * (qx - px) + (ay - py) * (qy - py) > 0:
            pass  # it starts on that ray: it is there just after
        elif not after and ob == 0 and (bx - px) * (qx - px) + (by - py) * (qy - py) > 0:
            pass  # it ends on that ray: it is there just before
        else:
            continue
        beyond = orient2d(ax, ay, bx, by, qx, qy)
        if beyond != 0 and beyond != orient2d(ax, ay, bx, by, px, py):
            return True
    return False


@njit(cache=True)
def flood_walls(scene, px, py, work, cover, stamp):
    """The walls of the cells not hidden from p, with no radius, bounds or extras."""
    lists = unpack_index(scene.index)
    seen, _, chosen, cell_seen, queue, _ = workspace_parts(
        work, scene.walls.shape[0], lists.nx * lists.ny
    )
    no_walls = np.empty((0, 4))
    query = SceneQuery(no_walls, 0.0, np.empty(0), no_walls, np.empty(0, dtype=np.int64), False,
                       np.empty(0))  # fmt: skip
    buffers = FloodBuffers(seen, chosen, cell_seen, queue, cover, stamp)
    count = _flood(scene, lists, query, px, py, buffers, _DIRS)
    return chosen[:count].copy()


def entry_point(name: str) -> Any:
    """The compiled entry point of query kernel ``name`` for its ``*_TYPES`` (loaded if need be).

    ``name``: ``"polygon"``, ``"plain_polygon"``, ``"polygons"`` or
    ``"flood_walls"``. Called with arguments of exactly those types (a
    record as any tuple of its fields in order, arrays C-contiguous), it
    skips Numba's type dispatch, which costs about a microsecond per record
    argument.
    """
    kernel, argument_types = {
        "polygon": (polygon, POLYGON_TYPES),
        "plain_polygon": (plain_polygon, PLAIN_TYPES),
        "polygons": (polygons, POLYGONS_TYPES),
        "flood_walls": (flood_walls, FLOOD_TYPES),
    }[name]
    return kernel.compile(argument_types)


@njit(cache=True)
def visible(segs, chosen, px, py, points):
    """Is each point in the closed region visible from p (exact predicates on the chosen walls)?

    A point is visible when no wall hides it just after its direction, or
    none just before (so a ray grazing a wall's end passes it, and one
    through a corner between walls on both sides stops there).
    """
    out = np.empty(points.shape[0], dtype=np.bool_)
    for k in range(points.shape[0]):
        qx, qy = points[k, 0], points[k, 1]
        if qx == px and qy == py:
            out[k] = True
        else:
            out[k] = not _blocked(segs, chosen, px, py, qx, qy, True) or not _blocked(
                segs, chosen, px, py, qx, qy, False
            )
    return out


def family_units() -> list[tuple[object, tuple[object, ...], float]]:
    """A scene's largest kernels, with the argument types the scene calls them with.

    The query kernel, the preparation's sort of pieces and list of touching
    walls, and the preparation's end and the sweep that the queries call
    through their addresses. The query kernels with the types the scene
    calls their entry points with (:data:`POLYGON_TYPES`, a test checks
    them against a real scene's calls), the others typed from stand-in
    arguments. Seconds are a 2-core machine's first compile of each, alone.
    """
    walls = np.empty((0, 4))
    ints = np.empty(0, dtype=np.int64)
    floats = np.empty(0)
    return [
        (polygon, POLYGON_TYPES, 7.6),
        (plain_polygon, PLAIN_TYPES, 1.5),
        (lex_pieces, argument_types(lex_pieces, (walls,)), 5.4),
        (build_touching, argument_types(build_touching, (walls, ints, ints)), 1.7),
        (
            triangulate,
            argument_types(triangulate, (floats.reshape(0, 2), ints, ints.reshape(0, 2), ints)),
            3.0,
        ),
        (finish_walls, FINISH_SIGNATURE.args, 0.7),
        (expanded_polygon, EXPANDED_SIGNATURE.args, 5.0),
        (sweep, SWEEP_SIGNATURE.args, 5.0),
    ]


def compile_family() -> None:
    """Compile (or load) :func:`family_units` side by side where there are cores.

    The smaller kernels compile on first use (:mod:`tilecast._kernels.jobs`).
    """
    compile_together(family_units())
