"""A spatial hash for game objects: boxes, segments and circles bucketed by cell.

A tilemap is an acceleration structure: each object is stored in the buckets
of the hash cells it touches, and a query looks only at the buckets near the
question, then tests each candidate's actual shape. Objects have integer ids;
internally they live in dense slot arrays (so queries filter candidates with
NumPy), and a dict maps an id to its slot.

Exactness: rectangle and circle queries decide contact exactly on the float64
values given (float filter, ``Fraction`` for the close calls), touching
counts. Ray queries compute contact distances in float64 and report objects
in increasing distance, each once, lazily.

Range: any finite values. A ray's direction may be any non-zero finite
vector (it is rescaled by a power of two, exactly), and contact distances are
computed on the shape and origin scaled by a power of two when they are
large, so nothing overflows inside; a contact farther than the largest double
(about ``1.8e308``) cannot be expressed and is not reported.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from tilecast._engine import steps
from tilecast._exact import ABS_ERROR, REL_ERROR
from tilecast._validate import (
    as_direction,
    as_nonnegative_float,
    as_point,
    as_positive_float,
    as_rect,
)
from tilecast._walkspec import CORNERS_BOTH
from tilecast.regions import circle_rect_exact
from tilecast.results import RayContact

__all__ = ["SpatialHash"]

# Ray contacts are computed on shapes scaled (by a power of two) below this.
_SAFE_MAGNITUDE = 2.0**500

_FREE, _BOX, _SEGMENT, _CIRCLE = 0, 1, 2, 3
_KIND_NAMES = {_BOX: "box", _SEGMENT: "segment", _CIRCLE: "circle"}
# A segment's cells are widened by this (relative to its tile coordinates;
# about 64 ulps) so that rounding in the interpolation never loses a cell. Box
# and circle ranges need no widening: world -> cell rounding is monotone.
_SLACK = 1.5e-14
# Objects spanning more hash cells than this are kept in one list, tested by
# every query, instead of in buckets.
_LARGE = 4096
# A ray query yields a contact once every object not yet seen starts later
# than it by this much (relative): contacts are float64 (a few ulps off).
_MARGIN = 1e-9
# A bound on the rounding of a ray's point p + t*d in hash cells, relative to
# the magnitudes summed (p, t*d, the hash's origin): 4 ulps, twice what the
# three roundings (the point, less the origin, over the cell size) can reach.
_ROUNDING = 2.0**-50

_FloatArray: TypeAlias = NDArray[np.float64]
_IntArray: TypeAlias = NDArray[np.int64]
_BoolArray: TypeAlias = NDArray[np.bool_]
# internal shape record, one slot row: box (x0, y0, x1, y1), segment (ax, ay, bx, by),
# circle (cx, cy, r, 0)
_Geom: TypeAlias = tuple[float, float, float, float]
_Cells: TypeAlias = frozenset[tuple[int, int]]
# a stored object's shape as it was given (SpatialHash.shape): a box (x0, y0, x1, y1),
# a segment ((ax, ay), (bx, by)) or a circle ((cx, cy), radius)
_ShapeGeometry: TypeAlias = (
    tuple[float, float, float, float]
    | tuple[tuple[float, float], tuple[float, float]]
    | tuple[tuple[float, float], float]
)


def _ifloor(u: float) -> int:
    # tile coordinates can be astronomically large; clamp before int()
    return math.floor(min(max(u, -(2.0**62)), 2.0**62))


# -------------------------------------------------------- exact vector tests
def _orient_sign(
    ax: _FloatArray,
    ay: _FloatArray,
    bx: _FloatArray,
    by: _FloatArray,
    px: _FloatArray,
    py: _FloatArray,
) -> _IntArray:
    """Exact sign of cross(b - a, p - a) for arrays of doubles."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        ux, uy, vx, vy = bx - ax, by - ay, px - ax, py - ay
        left, right = ux * vy, uy * vx
        det = left - right
        tol = REL_ERROR * (np.abs(left) + np.abs(right)) + ABS_ERROR
        sign = np.sign(det).astype(np.int64)
        unsure = ~(np.isfinite(tol) & (np.abs(det) > tol))
    for k in np.flatnonzero(unsure):
        fa = [Fraction(float(v.flat[k])) for v in (ax, ay, bx, by, px, py)]
        d = (fa[2] - fa[0]) * (fa[5] - fa[1]) - (fa[3] - fa[1]) * (fa[4] - fa[0])
        sign.flat[k] = (d > 0) - (d < 0)
    return sign


def _segments_meet_rect(seg: _FloatArray, rect: tuple[float, float, float, float]) -> _BoolArray:
    """Test closed segments ``(M, 4)`` against one closed rectangle exactly (separating axes)."""
    x0, y0, x1, y1 = rect
    ax, ay, bx, by = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3]
    hit = (
        (np.minimum(ax, bx) <= x1)
        & (np.maximum(ax, bx) >= x0)
        & (np.minimum(ay, by) <= y1)
        & (np.maximum(ay, by) >= y0)
    )
    if not hit.any():
        return hit
    idx = np.flatnonzero(hit)
    signs = [
        _orient_sign(
            ax[idx], ay[idx], bx[idx], by[idx], np.full(len(idx), cx), np.full(len(idx), cy)
        )
        for cx, cy in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    ]
    s = np.stack(signs)
    separated = (s > 0).all(axis=0) | (s < 0).all(axis=0)
    hit[idx] = ~separated
    return hit


def _segments_meet_circle(seg: _FloatArray, cx: float, cy: float, r: float) -> _BoolArray:
    """Test closed segments ``(M, 4)`` against one closed disc exactly."""
    ax, ay, bx, by = seg[:, 0], seg[:, 1], seg[:, 2], seg[:, 3]
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        ex, ey = bx - ax, by - ay
        fx, fy = cx - ax, cy - ay
        ee = ex * ex + ey * ey
        t = np.where(ee > 0, np.clip((fx * ex + fy * ey) / np.where(ee > 0, ee, 1.0), 0, 1), 0)
        qx, qy = fx - t * ex, fy - t * ey
        lhs = qx * qx + qy * qy
        rhs = r * r
        tol = 1e-12 * (fx * fx + fy * fy + ee + rhs) + ABS_ERROR
        hit = lhs <= rhs
        unsure = ~(np.isfinite(tol) & (np.abs(lhs - rhs) > tol))
    for k in np.flatnonzero(unsure):
        ax_k, ay_k, bx_k, by_k = (float(v) for v in seg[k])
        hit[k] = _segment_circle_fraction(ax_k, ay_k, bx_k, by_k, cx, cy, r)
    return hit


def _segment_circle_fraction(
    ax: float, ay: float, bx: float, by: float, cx: float, cy: float, r: float
) -> bool:
    fa = [Fraction(v) for v in (ax, ay, bx, by, cx, cy, r)]
    ex, ey, fx, fy = fa[2] - fa[0], fa[3] - fa[1], fa[4] - fa[0], fa[5] - fa[1]
    ee = ex * ex + ey * ey
    t = Fraction(0) if ee == 0 else min(max((fx * ex + fy * ey) / ee, Fraction(0)), Fraction(1))
    qx, qy = fx - t * ex, fy - t * ey
    return qx * qx + qy * qy <= fa[6] * fa[6]


def _circles_meet_circle(circ: _FloatArray, cx: float, cy: float, r: float) -> _BoolArray:
    """Test closed discs ``(M, 3)`` against one closed disc exactly."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        dx, dy = circ[:, 0] - cx, circ[:, 1] - cy
        rs = circ[:, 2] + r
        lhs, rhs = dx * dx + dy * dy, rs * rs
        tol = REL_ERROR * (lhs + rhs) + ABS_ERROR
        hit = lhs <= rhs
        unsure = ~(np.isfinite(tol) & (np.abs(lhs - rhs) > tol))
    for k in np.flatnonzero(unsure):
        fx = Fraction(float(circ[k, 0])) - Fraction(cx)
        fy = Fraction(float(circ[k, 1])) - Fraction(cy)
        fr = Fraction(float(circ[k, 2])) + Fraction(r)
        hit[k] = fx * fx + fy * fy <= fr * fr
    return hit


# ------------------------------------------------------------ ray contacts
def ray_contact(
    kind: int, g: tuple[float, ...], px: float, py: float, dx: float, dy: float
) -> float | None:
    """Smallest ``t >= 0`` with ``p + t*d`` in the closed shape, in float64; None if none.

    ``d`` is expected near unit size (``query_ray`` rescales it). Large shapes
    and origins are scaled down by a power of two first (``t`` scales with
    them), so no intermediate overflows; a ``t`` beyond the double range is None.
    """
    big = max(abs(px), abs(py), abs(g[0]), abs(g[1]), abs(g[2]), abs(g[3]))
    if big > _SAFE_MAGNITUDE:
        shift = -math.frexp(big)[1]
        scaled = tuple(math.ldexp(v, shift) for v in g)
        t = _contact(kind, scaled, math.ldexp(px, shift), math.ldexp(py, shift), dx, dy)
        if t is None:
            return None
        try:
            return math.ldexp(t, -shift)
        except OverflowError:  # farther than the largest double
            return None
    return _contact(kind, g, px, py, dx, dy)


def _contact(
    kind: int, g: tuple[float, ...], px: float, py: float, dx: float, dy: float
) -> float | None:
    if kind == _BOX:
        x0, y0, x1, y1 = g[:4]
        t_in, t_out = 0.0, math.inf
        for p, d, lo, hi in ((px, dx, x0, x1), (py, dy, y0, y1)):
            if d == 0.0:
                if p < lo or p > hi:
                    return None
                continue
            ta, tb = (lo - p) / d, (hi - p) / d
            t_in, t_out = max(t_in, min(ta, tb)), min(t_out, max(ta, tb))
        return t_in if t_in <= t_out else None
    if kind == _CIRCLE:
        cx, cy, r = g[:3]
        fx, fy = px - cx, py - cy
        c = fx * fx + fy * fy - r * r
        if c <= 0.0:
            return 0.0
        a = dx * dx + dy * dy
        b = fx * dx + fy * dy
        if b >= 0.0:
            return None
        # a * (r**2 - squared distance of the line from the centre): no
        # cancellation of two huge terms, unlike b*b - a*c
        cross = fx * dy - fy * dx
        disc = a * (r * r) - cross * cross
        if disc < 0.0:
            return None
        # the smaller root, in the cancellation-free form c / q
        return c / (-b + math.sqrt(disc))
    ax, ay, bx, by = g[:4]
    ex, ey = bx - ax, by - ay
    wx, wy = ax - px, ay - py
    denom = dx * ey - dy * ex
    if denom != 0.0:
        t = (wx * ey - wy * ex) / denom
        s = (wx * dy - wy * dx) / denom
        if t >= 0.0 and 0.0 <= s <= 1.0:
            return t
        return None
    if wx * dy - wy * dx != 0.0:
        return None  # parallel, not collinear
    dd = dx * dx + dy * dy
    ta = (wx * dx + wy * dy) / dd
    tb = ((bx - px) * dx + (by - py) * dy) / dd
    if max(ta, tb) < 0.0:
        return None
    return max(min(ta, tb), 0.0)


class SpatialHash:
    """Buckets of objects (boxes, segments, circles) on a uniform grid of hash cells.

    Parameters
    ----------
    cell_size : float or (float, float)
        Hash cell width and height in world units; a size near the typical
        object's size (or query's) works best.
    origin : (float, float), default (0, 0)
        World position of the corner of hash cell (0, 0).

    Notes
    -----
    Objects are identified by non-negative integer ids chosen by the caller.
    An object is a closed box ``box=(x0, y0, x1, y1)``, a closed segment
    ``segment=((ax, ay), (bx, by))`` or a closed disc
    ``circle=((cx, cy), radius)``. It is stored in every hash cell its shape
    may touch (a segment only in the cells along it). Moving an object updates
    only the buckets it leaves and enters.

    Examples
    --------
    >>> from tilecast import SpatialHash
    >>> world = SpatialHash(cell_size=4.0)
    >>> world.insert(1, box=(0.0, 0.0, 2.0, 2.0))
    >>> world.insert(2, circle=((10.0, 1.0), 1.0))
    >>> world.insert(3, segment=((5.0, -3.0), (5.0, 3.0)))
    >>> world.query_rect((1.0, 1.0, 9.0, 1.5)).tolist()  # ascending ids
    [1, 2, 3]
    >>> world.query_circle((7.0, 1.0), 2.0).tolist()  # touches circle 2
    [2, 3]
    >>> [(c.id, c.distance) for c in world.query_ray((-1.0, 1.0), (1.0, 0.0))]
    [(1, 1.0), (3, 6.0), (2, 10.0)]
    >>> world.move(1, box=(20.0, 0.0, 21.0, 1.0))
    >>> next(iter(world.query_ray((-1.0, 1.0), (1.0, 0.0)))).id
    3
    """

    def __init__(self, cell_size: Any, origin: Any = (0.0, 0.0)) -> None:
        if isinstance(cell_size, tuple | list | np.ndarray):
            w, h = as_point("cell_size", cell_size)
            self._size = (
                as_positive_float("cell_size[0]", w),
                as_positive_float("cell_size[1]", h),
            )
        else:
            size = as_positive_float("cell_size", cell_size)
            self._size = (size, size)
        self._origin = as_point("origin", origin)
        self._slot_of: dict[int, int] = {}
        self._free: list[int] = []
        capacity = 16
        self._ids: _IntArray = np.full(capacity, -1, dtype=np.int64)
        self._kind: NDArray[np.int8] = np.zeros(capacity, dtype=np.int8)
        self._geom: _FloatArray = np.zeros((capacity, 4), dtype=np.float64)
        self._cells: list[_Cells | None] = [None] * capacity
        self._buckets: dict[tuple[int, int], set[int]] = {}
        self._large: set[int] = set()
        # cell-index bounding box of everything ever stored (never shrinks)
        self._extent: list[int] | None = None

    # ------------------------------------------------------------ housekeeping
    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, obj_id: object) -> bool:
        return isinstance(obj_id, int | np.integer) and int(obj_id) in self._slot_of

    def __repr__(self) -> str:
        return (
            f"SpatialHash(cell_size={self._size}, objects={len(self)}, cells={len(self._buckets)})"
        )

    @property
    def cell_size(self) -> tuple[float, float]:
        """Hash cell ``(width, height)`` in world units."""
        return self._size

    def shape(self, obj_id: int) -> tuple[str, _ShapeGeometry]:
        """Return ``(kind, geometry)`` of a stored object, as it was given.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(7, circle=((0.5, 0.5), 2.0))
        >>> world.shape(7)
        ('circle', ((0.5, 0.5), 2.0))
        """
        slot = self._slot("obj_id", obj_id)
        kind = int(self._kind[slot])
        g: list[float] = self._geom[slot].tolist()
        if kind == _BOX:
            return ("box", (g[0], g[1], g[2], g[3]))
        if kind == _SEGMENT:
            return ("segment", ((g[0], g[1]), (g[2], g[3])))
        return ("circle", ((g[0], g[1]), g[2]))

    def _slot(self, name: str, obj_id: Any) -> int:
        key = self._as_id(name, obj_id)
        try:
            return self._slot_of[key]
        except KeyError:
            raise KeyError(f"{name}: no object with id {key}") from None

    @staticmethod
    def _as_id(name: str, obj_id: Any) -> int:
        if isinstance(obj_id, bool | np.bool_) or not isinstance(obj_id, int | np.integer):
            raise TypeError(f"{name} must be an integer, got {type(obj_id).__name__}")
        if not 0 <= int(obj_id) < 2**63:
            raise ValueError(f"{name} must be a non-negative int64, got {int(obj_id)}")
        return int(obj_id)

    def _grow(self) -> None:
        capacity = 2 * len(self._ids)
        self._ids = np.concatenate([self._ids, np.full(len(self._ids), -1, dtype=np.int64)])
        self._kind = np.concatenate([self._kind, np.zeros(len(self._kind), dtype=np.int8)])
        self._geom = np.concatenate([self._geom, np.zeros_like(self._geom)])
        self._cells.extend([None] * (capacity - len(self._cells)))

    # ------------------------------------------------------------------ shapes
    @staticmethod
    def _parse_shape(box: Any, segment: Any, circle: Any) -> tuple[int, _Geom]:
        given = [s is not None for s in (box, segment, circle)]
        if sum(given) != 1:
            raise ValueError("give exactly one of box=, segment= or circle=")
        if box is not None:
            return _BOX, as_rect("box", box)
        if segment is not None:
            if isinstance(segment, str | bytes) or not hasattr(segment, "__len__"):
                raise TypeError("segment must be ((ax, ay), (bx, by))")
            if len(segment) != 2:
                raise ValueError("segment must be two points ((ax, ay), (bx, by))")
            a = as_point("segment[0]", segment[0])
            b = as_point("segment[1]", segment[1])
            return _SEGMENT, (*a, *b)
        if isinstance(circle, str | bytes) or not hasattr(circle, "__len__") or len(circle) != 2:
            raise TypeError("circle must be ((cx, cy), radius)")
        c = as_point("circle[0]", circle[0])
        r = as_nonnegative_float("circle[1] (radius)", circle[1])
        return _CIRCLE, (*c, r, 0.0)

    def _u(self, x: float) -> float:
        return (x - self._origin[0]) / self._size[0]

    def _v(self, y: float) -> float:
        return (y - self._origin[1]) / self._size[1]

    def _range(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        """Hash cells (widened against rounding) covering a world box."""
        return (
            _ifloor(self._u(x0)),
            _ifloor(self._v(y0)),
            _ifloor(self._u(x1)),
            _ifloor(self._v(y1)),
        )

    def _cells_of(self, kind: int, g: _Geom) -> _Cells | None:
        """Hash cells of a shape, or None for a large object (kept off the buckets)."""
        if kind == _BOX:
            i0, j0, i1, j1 = self._range(*g)
        elif kind == _CIRCLE:
            cx, cy, r = g[:3]
            i0, j0, i1, j1 = self._range(cx - r, cy - r, cx + r, cy + r)
        else:
            return self._segment_cells(g)
        if (i1 - i0 + 1) * (j1 - j0 + 1) > _LARGE:
            return None
        return frozenset((i, j) for j in range(j0, j1 + 1) for i in range(i0, i1 + 1))

    def _segment_cells(self, g: _Geom) -> _Cells | None:
        """Cells along a segment: per column, the rows its (widened) piece spans."""
        ua, va, ub, vb = self._u(g[0]), self._v(g[1]), self._u(g[2]), self._v(g[3])
        if ua > ub:
            ua, va, ub, vb = ub, vb, ua, va
        # rounding in the interpolation scales with the coordinates' size
        slack = _SLACK * (1.0 + abs(ua) + abs(ub) + abs(va) + abs(vb))
        if not (ub - ua) + abs(vb - va) + 4.0 * slack + 4.0 <= _LARGE / 2:
            return None
        cells: set[tuple[int, int]] = set()
        for i in range(_ifloor(ua - slack), _ifloor(ub + slack) + 1):
            lo_u, hi_u = max(ua, i - slack), min(ub, i + 1.0 + slack)
            if ub > ua:
                v_lo = va + (vb - va) * ((lo_u - ua) / (ub - ua))
                v_hi = va + (vb - va) * ((hi_u - ua) / (ub - ua))
            else:
                v_lo, v_hi = va, vb
            lo, hi = min(v_lo, v_hi), max(v_lo, v_hi)
            for j in range(_ifloor(lo - slack), _ifloor(hi + slack) + 1):
                cells.add((i, j))
        return frozenset(cells)

    # ------------------------------------------------------------------ edits
    def insert(
        self, obj_id: int, *, box: Any = None, segment: Any = None, circle: Any = None
    ) -> None:
        """Add an object; give exactly one of ``box``, ``segment``, ``circle``.

        Raises ``ValueError`` if the id is already present.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(2.0)
        >>> world.insert(0, segment=((0, 0), (3, 1)))
        >>> 0 in world, len(world)
        (True, 1)
        """
        key = self._as_id("obj_id", obj_id)
        if key in self._slot_of:
            raise ValueError(f"obj_id {key} is already in the hash (use move)")
        kind, g = self._parse_shape(box, segment, circle)
        if not self._free and len(self._slot_of) >= len(self._ids):
            self._grow()
        slot = self._free.pop() if self._free else len(self._slot_of)
        self._slot_of[key] = slot
        self._ids[slot] = key
        self._store(slot, kind, g, frozenset())

    def move(
        self, obj_id: int, *, box: Any = None, segment: Any = None, circle: Any = None
    ) -> None:
        """Give an object a new shape (any kind); only changed buckets are touched.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(5, box=(0, 0, 1, 1))
        >>> world.move(5, circle=((10.0, 10.0), 0.5))
        >>> world.query_rect((0, 0, 1, 1)).tolist(), world.query_rect((9, 9, 10, 10)).tolist()
        ([], [5])
        """
        slot = self._slot("obj_id", obj_id)
        kind, g = self._parse_shape(box, segment, circle)
        self._store(slot, kind, g, self._cells[slot] or frozenset())

    def _store(self, slot: int, kind: int, g: _Geom, old: _Cells) -> None:
        new = self._cells_of(kind, g)
        if new is None:
            self._large.add(slot)
            new = frozenset()
        else:
            self._large.discard(slot)
        for key in old - new:
            bucket = self._buckets[key]
            bucket.discard(slot)
            if not bucket:
                del self._buckets[key]
        for key in new - old:
            self._buckets.setdefault(key, set()).add(slot)
            if self._extent is None:
                self._extent = [key[0], key[1], key[0], key[1]]
            else:
                e = self._extent
                e[0], e[1] = min(e[0], key[0]), min(e[1], key[1])
                e[2], e[3] = max(e[2], key[0]), max(e[3], key[1])
        self._kind[slot] = kind
        self._geom[slot] = g
        self._cells[slot] = new

    def remove(self, obj_id: int) -> None:
        """Remove an object; ``KeyError`` for an unknown id.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(3, box=(0, 0, 1, 1))
        >>> world.remove(3)
        >>> len(world)
        0
        """
        slot = self._slot("obj_id", obj_id)
        for key in self._cells[slot] or ():
            bucket = self._buckets[key]
            bucket.discard(slot)
            if not bucket:
                del self._buckets[key]
        del self._slot_of[int(obj_id)]
        self._large.discard(slot)
        self._cells[slot] = None
        self._kind[slot] = _FREE
        self._ids[slot] = -1
        self._free.append(slot)

    # ----------------------------------------------------------------- queries
    def _candidates(self, i0: int, j0: int, i1: int, j1: int) -> _IntArray:
        found: set[int] = set(self._large)
        e = self._extent or [0, 0, -1, -1]
        i0, j0, i1, j1 = max(i0, e[0]), max(j0, e[1]), min(i1, e[2]), min(j1, e[3])
        if i0 > i1 or j0 > j1:
            return np.fromiter(found, dtype=np.int64, count=len(found))
        buckets = self._buckets
        if (i1 - i0 + 1) * (j1 - j0 + 1) > len(buckets):
            for (i, j), bucket in buckets.items():
                if i0 <= i <= i1 and j0 <= j <= j1:
                    found.update(bucket)
        else:
            for j in range(j0, j1 + 1):
                for i in range(i0, i1 + 1):
                    cell_bucket = buckets.get((i, j))
                    if cell_bucket:
                        found.update(cell_bucket)
        return np.fromiter(found, dtype=np.int64, count=len(found))

    def _filter(
        self,
        slots: _IntArray,
        box_test: Callable[[_FloatArray], _BoolArray],
        seg_test: Callable[[_FloatArray], _BoolArray],
        circ_test: Callable[[_FloatArray], _BoolArray],
    ) -> _IntArray:
        kind = self._kind[slots]
        geom = self._geom[slots]
        keep = np.zeros(len(slots), dtype=np.bool_)
        for code, test in ((_BOX, box_test), (_SEGMENT, seg_test), (_CIRCLE, circ_test)):
            mask = kind == code
            if mask.any():
                keep[mask] = test(geom[mask])
        ids = self._ids[slots[keep]]
        ids.sort()
        return ids

    def query_rect(self, rect: Any) -> _IntArray:
        """Ids of the objects that meet the closed rectangle (touching counts), ascending.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(1, box=(0, 0, 1, 1))
        >>> world.insert(2, segment=((2, 0), (3, 1)))
        >>> world.query_rect((1, 1, 2, 2)).tolist()  # touches the box's corner only
        [1]
        """
        x0, y0, x1, y1 = as_rect("rect", rect)
        slots = self._candidates(*self._range(x0, y0, x1, y1))

        def boxes(g: _FloatArray) -> _BoolArray:
            return (g[:, 0] <= x1) & (g[:, 2] >= x0) & (g[:, 1] <= y1) & (g[:, 3] >= y0)

        def circles(g: _FloatArray) -> _BoolArray:
            n = len(g)
            return circle_rect_exact(
                g[:, 0], g[:, 1], g[:, 2], *(np.full(n, v) for v in (x0, y0, x1, y1))
            )

        return self._filter(
            slots, boxes, lambda g: _segments_meet_rect(g, (x0, y0, x1, y1)), circles
        )

    def query_circle(self, center: Any, radius: float) -> _IntArray:
        """Ids of the objects that meet the closed disc (touching counts), ascending.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(1, box=(3, 4, 5, 5))
        >>> world.query_circle((0, 0), 5.0).tolist()  # the box's corner (3, 4) is on the circle
        [1]
        """
        cx, cy = as_point("center", center)
        r = as_nonnegative_float("radius", radius)
        slots = self._candidates(*self._range(cx - r, cy - r, cx + r, cy + r))

        def boxes(g: _FloatArray) -> _BoolArray:
            n = len(g)
            return circle_rect_exact(
                np.full(n, cx), np.full(n, cy), np.full(n, r), g[:, 0], g[:, 1], g[:, 2], g[:, 3]
            )

        return self._filter(
            slots,
            boxes,
            lambda g: _segments_meet_circle(g, cx, cy, r),
            lambda g: _circles_meet_circle(g, cx, cy, r),
        )

    def query_ray(
        self, origin: Any, direction: Any, max_distance: float = math.inf
    ) -> Iterator[RayContact]:
        """Objects along a ray in order of first contact, lazily; each object once.

        Walks the hash cells along the ray and yields an object as soon as no
        object in a later cell can come first, so stopping after the first
        result costs only the cells up to it.

        Parameters
        ----------
        origin : (float, float)
        direction : (float, float)
            Non-zero, any finite size (``(5e-324, 0)`` is fine); need not be
            unit length.
        max_distance : float, default inf
            Inclusive limit on the contact distance (world units).

        Yields
        ------
        RayContact
            ``(id, distance, point)`` in increasing ``distance`` (ties by id).

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(2.0)
        >>> world.insert(1, circle=((5.0, 0.0), 1.0))
        >>> world.insert(2, box=(-1.0, -1.0, 1.0, 1.0))
        >>> [tuple(c) for c in world.query_ray((0.0, 0.0), (2.0, 0.0))]
        [(2, 0.0, (0.0, 0.0)), (1, 4.0, (4.0, 0.0))]
        """
        px, py = as_point("origin", origin)
        dx, dy = as_direction("direction", direction)
        # a power of two (exact) brings the direction near unit size: its norm
        # and the ray parameters neither underflow nor overflow
        shift = 1 - math.frexp(max(abs(dx), abs(dy)))[1]  # largest component in [1, 2)
        dx, dy = math.ldexp(dx, shift), math.ldexp(dy, shift)
        max_d = as_nonnegative_float("max_distance", max_distance, allow_inf=True)
        return self._ray(px, py, dx, dy, max_d)

    def _ray(
        self, px: float, py: float, dx: float, dy: float, max_d: float
    ) -> Iterator[RayContact]:
        norm = math.hypot(dx, dy)
        t_max = max_d / norm
        seen: set[int] = set()
        heap: list[tuple[float, int, int]] = []

        def consider(slot: int) -> None:
            seen.add(slot)
            g = tuple(self._geom[slot].tolist())
            t = ray_contact(int(self._kind[slot]), g, px, py, dx, dy)
            if t is not None and t <= t_max:
                heapq.heappush(heap, (t, int(self._ids[slot]), slot))

        def drain(limit: float) -> Iterator[RayContact]:
            while heap and heap[0][0] <= limit:
                t, key_id, _ = heapq.heappop(heap)
                yield RayContact(key_id, t * norm, (px + t * dx, py + t * dy))

        for slot in self._large:
            consider(slot)
        yield from self._walk(px, py, dx, dy, t_max, norm, seen, consider, drain)
        yield from drain(math.inf)

    def _consider_all(self, seen: set[int], consider: Callable[[int], None]) -> None:
        """Hand every stored object not yet seen to ``consider`` (a ray's brute-force pass)."""
        for bucket in self._buckets.values():
            for slot in bucket:
                if slot not in seen:
                    consider(slot)

    def _walk(
        self,
        px: float,
        py: float,
        dx: float,
        dy: float,
        t_max: float,
        norm: float,
        seen: set[int],
        consider: Callable[[int], None],
        drain: Callable[[float], Iterator[RayContact]],
    ) -> Iterator[RayContact]:
        """Visit the hash cells along the ray in order, yielding what is safe to yield."""
        if self._extent is None:
            return
        (ox, oy), (w, h) = self._origin, self._size
        # tile space of the hash; clip the ray's t-range to the stored extent
        pu, pv, du, dv = (px - ox) / w, (py - oy) / h, dx / w, dy / h
        if not all(map(math.isfinite, (pu, pv, du, dv))):  # beyond the hash's tile space
            self._consider_all(seen, consider)
            return
        e = self._extent
        t_lo, t_hi = 0.0, t_max
        for p, d, lo, hi in ((pu, du, e[0] - 1.0, e[2] + 2.0), (pv, dv, e[1] - 1.0, e[3] + 2.0)):
            if d == 0.0:
                if not lo <= p <= hi:
                    return
                continue
            ta, tb = (lo - p) / d, (hi - p) / d
            t_lo, t_hi = max(t_lo, min(ta, tb)), min(t_hi, max(ta, tb))
        if not t_lo <= t_hi:  # also NaN, which the checked ranges rule out
            return
        if not math.isfinite(t_lo):
            # the extent starts beyond the float range of t in hash cells (a
            # ray from near 1e308): no walk there; each object decides alone
            self._consider_all(seen, consider)
            return
        # The hash cells along the ray's stretch [t_lo, t_hi] over the stored
        # extent, in order, from the exact walk of traverse (its far-range
        # walk where the numbers are beyond the compiled range). It walks the
        # segment S between the ray's points at t_lo and t_hi, rounded: S
        # stays within `off` (in hash cells, at most half a cell) of the ray
        # R at the same parameter. So while S is in a cell, R is in it, in a
        # cell across one of its sides (S and R on either side of a grid line
        # near S) or, for no longer than `lag`, in a cell across a corner
        # (both lines near). When S enters a cell, the buckets of that cell,
        # of the two cells ahead of it and of each cell behind it across a
        # line S crossed less than 2 * off ago are considered: every object R
        # meets before S enters the next cell, less `lag`, has been seen, and
        # drain() may yield every contact before that.
        a = (px + t_lo * dx, py + t_lo * dy)
        b = (px + t_hi * dx, py + t_hi * dy)
        off = _ROUNDING * max(
            (abs(px) + abs(t_hi * dx) + abs(ox)) / w, (abs(py) + abs(t_hi * dy) + abs(oy)) / h
        )
        if not off <= 0.5 or not all(map(math.isfinite, (*a, *b))):
            # the ray's points in hash cells are too coarse to walk (a cell is
            # less than an ulp of the coordinates): each object decides alone
            self._consider_all(seen, consider)
            return
        span = t_hi - t_lo
        lag = 2.0 * off / max(abs(du), abs(dv))
        # how long (in the segment's parameter) S stays within 2 * off of a line it crossed
        near_x = 2.0 * off / abs(du * span) if du * span != 0.0 else math.inf
        near_y = 2.0 * off / abs(dv * span) if dv * span != 0.0 else math.inf
        si, sj = (1 if du > 0 else -1), (1 if dv > 0 else -1)
        # the parameter at which S last crossed a column (row) line; the start
        # counts as one where it is near a line behind it
        ua, va = self._u(a[0]), self._v(a[1])

        def crossed_at_start(u: float) -> float:
            near = t_lo > 0.0 or min(u - math.floor(u), math.ceil(u) - u) <= 2.0 * off
            return 0.0 if near else -math.inf

        crossed_x, crossed_y = crossed_at_start(ua), crossed_at_start(va)
        first = True
        buckets = self._buckets
        # a walk across much empty space ends in one brute-force pass instead
        budget = 4 * len(buckets) + 64
        # CORNERS_BOTH: a walk through a lattice point lists both cells beside it
        for step in steps(self._origin, self._size, a, b, CORNERS_BOTH):
            budget -= 1
            if budget < 0:
                self._consider_all(seen, consider)
                return
            # the margin covers the float contacts and the rounding of the
            # reported entry
            t_enter = t_lo + step.t * span
            yield from drain(t_enter - lag - _MARGIN * (abs(t_enter) + 1.0 / norm))
            i, j = step.cell
            keys = [(i, j), (i + si, j), (i, j + sj)]
            if first:
                first = False
                if t_lo > 0.0:  # R starts within `off` of S: in any cell around S's
                    keys = [(i + di, j + dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)]
                else:  # a is the ray's origin; the hash files it by floor, the
                    # walk (on a grid line) by the cell the ray moves into
                    keys.append((_ifloor(ua), _ifloor(va)))
            if step.normal[0] != 0.0:  # entered across a column line (or a corner)
                crossed_x = step.t
            elif step.t - crossed_x <= near_x:
                keys.append((i - si, j))
            if step.normal[1] != 0.0:
                crossed_y = step.t
            elif step.t - crossed_y <= near_y:
                keys.append((i, j - sj))
            for key in keys:
                for slot in buckets.get(key, ()):
                    if slot not in seen:
                        consider(slot)
