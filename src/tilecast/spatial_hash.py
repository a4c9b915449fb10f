"""The set of bodies: boxes, segments, circles and convex polygons bucketed by hash cell.

A tilemap is an acceleration structure: each object is filed in the buckets
of the hash cells it touches, and a query looks only at the buckets near the
question, then tests each candidate's actual shape. Objects have integer ids;
they live in dense NumPy slot arrays (kind, geometry, collision layers), a
dict maps an id to its slot, and the buckets are a hash table in arrays,
rebuilt in one compiled pass after edits (on the next query, or at once by
:meth:`SpatialHash.move_many`). Every query runs compiled
(:mod:`tilecast._kernels.bodies`): no Python per cell or per object.

Exactness: rectangle and circle queries decide contact exactly on the
float64 values given, touching counts. Ray queries decide exactly whether a
ray meets an object and which contact comes first (exact ties by id), in
``query_ray`` and in the ray queries on maps (``bodies=``;
:mod:`tilecast._kernels.shapes`); distances are float64, within a few ulps.

Range: any finite values. A ray's direction may be any non-zero finite
vector (it is rescaled by a power of two, exactly), and contact distances are
computed on the shape and origin scaled by a power of two when they are
large (beyond ``2**500``), so nothing overflows inside; a contact farther
than the largest double (about ``1.8e308``) cannot be expressed and is not
reported. The exact tie-breaks between contacts hold while coordinates stay
below about ``2**100`` in magnitude (beyond, contacts are ordered by their
float64 parameters).

Concurrency (DESIGN 17): edits hold a lock and bump a sequence number (odd
while an edit runs); a query reads the arrays as they are, and runs again if
an edit ran meanwhile, so it sees the hash before or after each edit, never
half of one, and never reads outside its arrays.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any, TypeAlias, TypeVar

import numpy as np
from numpy.typing import NDArray

from tilecast._engine import kernels
from tilecast._validate import (
    as_direction,
    as_nonnegative_float,
    as_point,
    as_positive_float,
    as_rect,
)
from tilecast.results import RayContact

__all__ = ["SpatialHash"]

# slot kinds, as tilecast._kernels.bodies numbers them
_FREE, _BOX, _SEGMENT, _CIRCLE, _POLYGON = 0, 1, 2, 3, 4
_KIND_NAMES = {_BOX: "box", _SEGMENT: "segment", _CIRCLE: "circle", _POLYGON: "polygon"}
#: Every collision layer (``layers & mask != 0`` for any non-zero layers).
ALL_LAYERS = 0xFFFFFFFF

_T = TypeVar("_T")
_FloatArray: TypeAlias = NDArray[np.float64]
_IntArray: TypeAlias = NDArray[np.int64]
# internal shape record, one slot row: box (x0, y0, x1, y1), segment (ax, ay, bx, by),
# circle (cx, cy, r, 0), polygon: its bounding box
_Geom: TypeAlias = tuple[float, float, float, float]
# a stored object's shape as it was given (SpatialHash.shape): a box (x0, y0, x1, y1),
# a segment ((ax, ay), (bx, by)), a circle ((cx, cy), radius) or a polygon ((x, y), ...)
_ShapeGeometry: TypeAlias = (
    tuple[float, float, float, float]
    | tuple[tuple[float, float], tuple[float, float]]
    | tuple[tuple[float, float], float]
    | tuple[tuple[float, float], ...]
)


def as_layers(name: str, value: Any) -> int:
    """Return layer bits, an int in ``[0, 2**32)`` (not a bool), or raise naming ``name``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer bit field, got {type(value).__name__}")
    if not 0 <= int(value) < 2**32:
        raise ValueError(f"{name} must be in [0, 2**32) (32 layer bits), got {int(value)}")
    return int(value)


def _as_polygon(polygon: Any) -> tuple[NDArray[np.float64], bool]:
    """Check a convex polygon; return its vertices counter-clockwise and whether they were reversed.

    Counter-clockwise means positive shoelace area in ``(x, y)``. Refused
    (``ValueError`` naming ``polygon``): fewer than 3 vertices, NaN or
    infinite values, repeated consecutive vertices, zero area, a reflex
    vertex (not convex) or more than one turn (self-intersecting, such as a
    pentagram). Decided exactly (``Fraction``).
    """
    if isinstance(polygon, str | bytes):
        raise TypeError("polygon must be an (N, 2) array of vertices")
    try:
        v = np.array(polygon, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("polygon must be an (N, 2) array of numbers") from None
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
        raise ValueError(f"polygon must be (N, 2) with N >= 3 vertices, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError("polygon has NaN or infinite coordinates")
    pts = [(Fraction(float(x)), Fraction(float(y))) for x, y in v]
    n = len(pts)
    if any(pts[k] == pts[(k + 1) % n] for k in range(n)):
        raise ValueError("polygon has repeated consecutive vertices")
    area = sum(pts[k][0] * pts[(k + 1) % n][1] - pts[(k + 1) % n][0] * pts[k][1] for k in range(n))
    if area == 0:
        raise ValueError("polygon has zero area")
    sign = 1 if area > 0 else -1
    turning = 0.0
    for k in range(n):
        a, b, c = pts[k - 1], pts[k], pts[(k + 1) % n]
        cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        if cross * sign < 0:
            raise ValueError("polygon must be convex (it has a reflex vertex)")
        dot = (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1])
        turning += math.atan2(float(cross) * sign, float(dot))
    if turning > 3 * math.pi:  # one turn is 2 pi; a star polygon turns twice or more
        raise ValueError("polygon must be simple (it winds around more than once)")
    if sign < 0:
        return np.ascontiguousarray(v[::-1]), True
    return np.ascontiguousarray(v), False


class SpatialHash:
    """The set of bodies: boxes, segments, circles and convex polygons in buckets of hash cells.

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
    ``segment=((ax, ay), (bx, by))``, a closed disc
    ``circle=((cx, cy), radius)`` or a closed convex polygon
    ``polygon=[(x, y), ...]``, with collision ``layers`` (a 32-bit field,
    default 1) that ray queries on maps filter with their ``mask``. It is
    filed in every hash cell its bounding box meets (a segment only in the
    cells along it). Edits (``insert``, ``move``, ``remove`` and the array
    forms ``insert_many``, ``move_many``) change the slot arrays; the
    buckets are rebuilt in one compiled pass, on the next query.

    Ray queries on a map take the hash as ``bodies=`` (``raycast``,
    ``raycast_all``, ``line_of_sight``, ``raycast_many``, ``scan``,
    ``scan_many``): the first contact among the map's cells and the bodies,
    decided exactly; a cell wins a tie with a body.

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
        self._frame = np.array([*self._origin, *self._size], dtype=np.float64)
        self._slot_of: dict[int, int] = {}
        self._free: list[int] = []
        self._top = 0  # slots below this have been used
        capacity = 16
        self._ids: _IntArray = np.full(capacity, -1, dtype=np.int64)
        self._kind: NDArray[np.int8] = np.zeros(capacity, dtype=np.int8)
        self._geom: _FloatArray = np.zeros((capacity, 4), dtype=np.float64)
        self._layers: NDArray[np.uint32] = np.zeros(capacity, dtype=np.uint32)
        self._vstart: _IntArray = np.full(capacity, -1, dtype=np.int64)
        self._vcount: _IntArray = np.zeros(capacity, dtype=np.int64)
        self._reversed: set[int] = set()  # polygon slots stored reversed (given clockwise)
        self._verts: _FloatArray = np.zeros((0, 2), dtype=np.float64)
        self._n_verts = 0  # used rows of _verts (live or garbage)
        self._state: Any = None  # the HashState of the current arrays; None: rebuild
        self._lock = threading.RLock()
        self._seq = 0  # odd while an edit runs

    # ------------------------------------------------------------ housekeeping
    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, obj_id: object) -> bool:
        return isinstance(obj_id, int | np.integer) and int(obj_id) in self._slot_of

    def __repr__(self) -> str:
        return f"SpatialHash(cell_size={self._size}, objects={len(self)})"

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_state")}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._state = None
        self._seq = 0

    @property
    def cell_size(self) -> tuple[float, float]:
        """Hash cell ``(width, height)`` in world units."""
        return self._size

    @property
    def ids(self) -> _IntArray:
        """The stored ids, ascending (a new array).

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert_many([4, 2], circles=[(0, 0, 1), (5, 0, 1)])
        >>> world.ids.tolist()
        [2, 4]
        """
        return np.array(sorted(self._slot_of), dtype=np.int64)

    def shape(self, obj_id: int) -> tuple[str, _ShapeGeometry]:
        """Return ``(kind, geometry)`` of a stored object, as it was given.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(7, circle=((0.5, 0.5), 2.0))
        >>> world.shape(7)
        ('circle', ((0.5, 0.5), 2.0))
        >>> world.insert(8, polygon=[(0, 0), (1, 0), (0, 1)])
        >>> world.shape(8)
        ('polygon', ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0)))
        """
        slot = self._slot("obj_id", obj_id)
        kind = int(self._kind[slot])
        g: list[float] = self._geom[slot].tolist()
        if kind == _BOX:
            return ("box", (g[0], g[1], g[2], g[3]))
        if kind == _SEGMENT:
            return ("segment", ((g[0], g[1]), (g[2], g[3])))
        if kind == _CIRCLE:
            return ("circle", ((g[0], g[1]), g[2]))
        start, count = int(self._vstart[slot]), int(self._vcount[slot])
        rows = self._verts[start : start + count]
        if slot in self._reversed:
            rows = rows[::-1]
        return ("polygon", tuple((float(x), float(y)) for x, y in rows))

    def layers(self, obj_id: int) -> int:
        """Return an object's collision layer bits.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(1, box=(0, 0, 1, 1), layers=0b110)
        >>> world.layers(1)
        6
        """
        return int(self._layers[self._slot("obj_id", obj_id)])

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

    def _reserve(self, n: int) -> None:
        """Make room for ``n`` more objects (arrays reallocated: queries keep the old ones)."""
        need = len(self._slot_of) + n
        capacity = len(self._ids)
        if self._top + n - len(self._free) <= capacity and need <= capacity:
            return
        while capacity < self._top + n:
            capacity *= 2
        grow = capacity - len(self._ids)
        self._ids = np.concatenate([self._ids, np.full(grow, -1, dtype=np.int64)])
        self._kind = np.concatenate([self._kind, np.zeros(grow, dtype=np.int8)])
        self._geom = np.concatenate([self._geom, np.zeros((grow, 4))])
        self._layers = np.concatenate([self._layers, np.zeros(grow, dtype=np.uint32)])
        self._vstart = np.concatenate([self._vstart, np.full(grow, -1, dtype=np.int64)])
        self._vcount = np.concatenate([self._vcount, np.zeros(grow, dtype=np.int64)])

    def _take_slot(self) -> int:
        if self._free:
            return self._free.pop()
        slot = self._top
        self._top += 1
        return slot

    # ------------------------------------------------------------ edit protocol
    def _edit(self) -> Any:
        return _Editing(self)

    def _stable_seq(self) -> int:
        seq = self._seq
        while seq & 1:
            with self._lock:  # waits for the edit to end
                pass
            seq = self._seq
        return seq

    def _current(self) -> Any:
        """Return the HashState of the arrays now (buckets rebuilt if an edit left them stale)."""
        state = self._state
        if state is None:
            with self._lock:
                state = self._state
                if state is None:
                    state = self._build()
                    self._state = state
        return state

    def _build(self) -> Any:
        bodies = kernels("bodies")
        kind = self._kind[: max(self._top, 1)]
        geom = self._geom[: max(self._top, 1)]
        starts, entries, large, extent = bodies.build_buckets(kind, geom, self._frame)
        return self._record(starts, entries, large, extent)

    def _record(self, starts: Any, entries: Any, large: Any, extent: Any) -> Any:
        bodies = kernels("bodies")
        n = max(self._top, 1)
        return bodies.HashState(
            self._kind[:n], self._geom[:n], self._layers[:n], self._ids[:n], self._vstart[:n],
            self._vcount[:n], self._verts[: max(self._n_verts, 0)], starts, entries, large,
            self._frame, extent,
        )  # fmt: skip

    def consistent(self, query: Callable[[Any], _T]) -> _T:
        """Run ``query(state)`` on a state no edit changed while it ran (again if one did).

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.consistent(lambda state: len(state.ids) >= 0)
        True
        """
        while True:
            seq = self._stable_seq()
            state = self._current()
            result = query(state)
            if self._seq == seq:
                return result

    # ------------------------------------------------------------------ shapes
    @staticmethod
    def _parse_shape(box: Any, segment: Any, circle: Any, polygon: Any = None) -> tuple[int, Any]:
        given = [s is not None for s in (box, segment, circle, polygon)]
        if sum(given) != 1:
            raise ValueError("give exactly one of box=, segment=, circle= or polygon=")
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
        if polygon is not None:
            return _POLYGON, _as_polygon(polygon)
        if isinstance(circle, str | bytes) or not hasattr(circle, "__len__") or len(circle) != 2:
            raise TypeError("circle must be ((cx, cy), radius)")
        c = as_point("circle[0]", circle[0])
        r = as_nonnegative_float("circle[1] (radius)", circle[1])
        return _CIRCLE, (*c, r, 0.0)

    def _put(self, slot: int, kind: int, g: Any, layers: int | None) -> None:
        """Write one checked shape into ``slot`` (inside an edit)."""
        self._reversed.discard(slot)
        if kind == _POLYGON:
            vertices, flipped = g
            n = len(vertices)
            if self._n_verts + n > len(self._verts):
                self._compact_vertices(n)
            start = self._n_verts
            self._verts[start : start + n] = vertices
            self._n_verts += n
            self._vstart[slot], self._vcount[slot] = start, n
            if flipped:
                self._reversed.add(slot)
            x, y = vertices[:, 0], vertices[:, 1]
            g = (float(x.min()), float(y.min()), float(x.max()), float(y.max()))
        else:
            self._vstart[slot], self._vcount[slot] = -1, 0
        self._kind[slot] = kind
        self._geom[slot] = g
        if layers is not None:
            self._layers[slot] = layers

    def _compact_vertices(self, extra: int) -> None:
        """Drop the vertices of polygons gone or moved; a new array (queries keep the old one)."""
        live = [s for s in self._slot_of.values() if self._kind[s] == _POLYGON]
        total = int(sum(int(self._vcount[s]) for s in live))
        fresh = np.zeros((max(2 * (total + extra), 64), 2))
        top = 0
        for s in live:
            start, count = int(self._vstart[s]), int(self._vcount[s])
            fresh[top : top + count] = self._verts[start : start + count]
            self._vstart[s] = top
            top += count
        self._verts, self._n_verts = fresh, top

    # ------------------------------------------------------------------ edits
    def insert(
        self, obj_id: int, *, box: Any = None, segment: Any = None, circle: Any = None,
        polygon: Any = None, layers: int = 1,
    ) -> None:  # fmt: skip
        """Add an object; give exactly one of ``box``, ``segment``, ``circle``, ``polygon``.

        Parameters
        ----------
        obj_id : int
            A non-negative integer not already in the hash (``ValueError`` if it is).
        box : (x0, y0, x1, y1), optional
        segment : ((ax, ay), (bx, by)), optional
        circle : ((cx, cy), radius), optional
            ``radius >= 0`` (0 is a point).
        polygon : array_like of shape (N, 2), optional
            A convex polygon, either orientation. A polygon that is not
            convex, or not simple (self-intersecting, zero area, repeated
            vertices), is refused with a ``ValueError`` naming ``polygon``.
        layers : int, default 1
            Collision layer bits in ``[0, 2**32)``: ray queries with a
            ``mask`` see the object when ``layers & mask != 0``.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(2.0)
        >>> world.insert(0, segment=((0, 0), (3, 1)))
        >>> world.insert(1, polygon=[(4, 0), (6, 0), (5, 2)], layers=2)
        >>> 0 in world, len(world)
        (True, 2)
        """
        key = self._as_id("obj_id", obj_id)
        if key in self._slot_of:
            raise ValueError(f"obj_id {key} is already in the hash (use move)")
        kind, g = self._parse_shape(box, segment, circle, polygon)
        bits = as_layers("layers", layers)
        with self._edit():
            self._reserve(1)
            slot = self._take_slot()
            self._slot_of[key] = slot
            self._ids[slot] = key
            self._put(slot, kind, g, bits)

    def insert_many(
        self, ids: Any, *, circles: Any = None, boxes: Any = None, layers: Any = 1
    ) -> None:
        """Add many circles or boxes at once (one of ``circles``, ``boxes``).

        Parameters
        ----------
        ids : array_like of int, shape (N,)
            New, distinct, non-negative ids.
        circles : array_like, shape (N, 3), optional
            Rows ``(cx, cy, radius)``, ``radius >= 0``.
        boxes : array_like, shape (N, 4), optional
            Rows ``(x0, y0, x1, y1)`` with ``x0 <= x1``, ``y0 <= y1``.
        layers : int or array_like of int, shape (N,), default 1
            Collision layer bits per object.

        Everything is checked first: a refused call leaves the hash unchanged.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert_many([1, 2, 3], circles=[(0, 0, 0.5), (3, 0, 0.5), (6, 0, 0.5)])
        >>> world.query_rect((2, -1, 7, 1)).tolist()
        [2, 3]
        """
        keys = _as_ids("ids", ids)
        n = len(keys)
        if (circles is None) == (boxes is None):
            raise ValueError("give exactly one of circles= or boxes=")
        name = "circles" if circles is not None else "boxes"
        width = 3 if circles is not None else 4
        rows = _as_rows(name, circles if circles is not None else boxes, n, width)
        if circles is not None:
            if (rows[:, 2] < 0).any():
                raise ValueError("circles: a radius is negative")
            geom = np.zeros((n, 4))
            geom[:, :3] = rows
            kind = _CIRCLE
        else:
            if (rows[:, 0] > rows[:, 2]).any() or (rows[:, 1] > rows[:, 3]).any():
                raise ValueError("boxes: rows must have x0 <= x1 and y0 <= y1")
            geom = rows
            kind = _BOX
        bits = _as_layers_array("layers", layers, n)
        present = [k for k in keys.tolist() if k in self._slot_of]
        if present:
            raise ValueError(f"ids: {present[0]} is already in the hash (use move)")
        with self._edit():
            self._reserve(n)
            slots = np.array([self._take_slot() for _ in range(n)], dtype=np.int64)
            self._slot_of.update(zip(keys.tolist(), slots.tolist(), strict=True))
            self._ids[slots] = keys
            self._kind[slots] = kind
            self._geom[slots] = geom
            self._layers[slots] = bits
            self._vstart[slots], self._vcount[slots] = -1, 0
            for s in slots.tolist():
                self._reversed.discard(s)

    def move(
        self, obj_id: int, *, box: Any = None, segment: Any = None, circle: Any = None,
        polygon: Any = None, offset: Any = None,
    ) -> None:  # fmt: skip
        """Give an object a new shape (any kind), or translate it by ``offset=(dx, dy)``.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(5, box=(0, 0, 1, 1))
        >>> world.move(5, circle=((10.0, 10.0), 0.5))
        >>> world.query_rect((0, 0, 1, 1)).tolist(), world.query_rect((9, 9, 10, 10)).tolist()
        ([], [5])
        >>> world.move(5, offset=(-10.0, 0.0))
        >>> world.shape(5)
        ('circle', ((0.0, 10.0), 0.5))
        """
        slot = self._slot("obj_id", obj_id)
        if offset is not None:
            if any(s is not None for s in (box, segment, circle, polygon)):
                raise ValueError("give either a new shape or offset=, not both")
            self.move_many([int(obj_id)], [as_point("offset", offset)])
            return
        kind, g = self._parse_shape(box, segment, circle, polygon)
        with self._edit():
            self._put(slot, kind, g, None)

    def move_many(self, ids: Any, offsets: Any) -> None:
        """Translate many objects at once: object ``ids[k]`` moves by ``offsets[k]``.

        One compiled pass moves the shapes and rebuilds the buckets. Checked
        first (unknown or repeated ids, NaN or infinite offsets, a shape that
        would leave the float range): a refused call leaves the hash unchanged.

        Parameters
        ----------
        ids : array_like of int, shape (N,)
        offsets : array_like, shape (N, 2)

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert_many([1, 2], circles=[(0, 0, 0.5), (5, 0, 0.5)])
        >>> world.move_many([1, 2], [(10, 0), (0, 10)])
        >>> world.query_circle((10, 0), 0.1).tolist(), world.shape(2)
        ([1], ('circle', ((5.0, 10.0), 0.5)))
        """
        keys = _as_ids("ids", ids)
        n = len(keys)
        moves = _as_rows("offsets", offsets, n, 2)
        try:
            slots = np.fromiter((self._slot_of[k] for k in keys.tolist()), np.int64, count=n)
        except KeyError as missing:
            raise KeyError(f"ids: no object with id {missing.args[0]}") from None
        kind = self._kind[slots]
        shift = np.zeros((n, 4))
        shift[:, 0], shift[:, 1] = moves[:, 0], moves[:, 1]
        two_points = (kind == _BOX) | (kind == _SEGMENT) | (kind == _POLYGON)
        shift[two_points, 2], shift[two_points, 3] = moves[two_points, 0], moves[two_points, 1]
        with np.errstate(over="ignore", invalid="ignore"):
            moved = self._geom[slots] + shift
        if not np.isfinite(moved).all():
            raise ValueError("offsets: an object would leave the float range")
        with self._edit():
            bodies = kernels("bodies")
            top = max(self._top, 1)
            starts, entries, large, extent = bodies.move_and_build(
                self._kind[:top], self._geom[:top], self._vstart[:top], self._vcount[:top],
                self._verts, slots, moves, self._frame,
            )  # fmt: skip
            self._state = self._record(starts, entries, large, extent)

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
        with self._edit():
            del self._slot_of[int(obj_id)]
            self._kind[slot] = _FREE
            self._ids[slot] = -1
            self._vstart[slot], self._vcount[slot] = -1, 0
            self._reversed.discard(slot)
            self._free.append(slot)

    @property
    def _buckets(self) -> dict[tuple[int, int], set[int]]:
        """The hash cells and the slots filed in each (a debugging view, built on demand)."""
        out: dict[tuple[int, int], set[int]] = {}
        bodies = kernels("bodies")
        for slot in self._slot_of.values():
            for i, j in bodies.cells_of(self._kind[slot], self._geom[slot], self._frame).tolist():
                out.setdefault((i, j), set()).add(slot)
        return out

    # ----------------------------------------------------------------- queries
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
        box = np.array(as_rect("rect", rect), dtype=np.float64)
        query = kernels("bodies").query_rect

        def run(state: Any) -> _IntArray:
            ids, unsure = query(state, box)
            return self._settle(
                state, ids, unsure, lambda k, g, v: _meets_rect_fraction(k, g, v, box)
            )

        return self.consistent(run)

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
        query = kernels("bodies").query_circle

        def run(state: Any) -> _IntArray:
            ids, unsure = query(state, cx, cy, r)
            return self._settle(
                state, ids, unsure, lambda k, g, v: _meets_circle_fraction(k, g, v, cx, cy, r)
            )

        return self.consistent(run)

    @staticmethod
    def _settle(
        state: Any, ids: _IntArray, unsure: _IntArray, exact: Callable[[int, Any, Any], bool]
    ) -> _IntArray:
        """Add the undecided slots that ``exact`` (rational arithmetic) finds, ids ascending."""
        if not len(unsure):
            return ids
        more = []
        for slot in unsure.tolist():
            start, count = int(state.vstart[slot]), int(state.vcount[slot])
            vertices = state.verts[start : start + count].tolist() if start >= 0 else []
            if exact(int(state.kind[slot]), state.geom[slot].tolist(), vertices):
                more.append(int(state.ids[slot]))
        return np.sort(np.concatenate([ids, np.array(more, dtype=np.int64)]))

    def query_ray(
        self, origin: Any, direction: Any, max_distance: float = math.inf
    ) -> Iterator[RayContact]:
        """Objects along a ray in order of first contact; each object once.

        One compiled call finds every object the ray meets within
        ``max_distance`` (from the hash cells along the ray); they are then
        yielded one by one.

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
            ``(id, distance, point)`` in the exact order of the contacts
            (exact ties by id); ``distance`` and ``point`` in float64, within
            a few ulps.

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
        max_d = as_nonnegative_float("max_distance", max_distance, allow_inf=True)
        return iter([c for c, _ in self.ray_hits((px, py), (dx, dy), max_d, exact_order=True)])

    def ray_hits(
        self, origin: tuple[float, float], direction: tuple[float, float], max_distance: float,
        mask: int = ALL_LAYERS, ignore: Any = None, *, exact_order: bool = False,
    ) -> list[tuple[RayContact, tuple[float, float]]]:  # fmt: skip
        """Every contact of a checked ray with its surface normal (``query_ray``, ``raycast_all``).

        ``origin``, ``direction`` and ``max_distance`` checked floats (the
        direction non-zero); ``mask``: layer bits (``layers & mask != 0``);
        ``ignore``: ids left out. ``exact_order``: order by the exact contact
        parameters (ties by id) instead of the float distances.

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(1, box=(2, -1, 3, 1), layers=2)
        >>> world.ray_hits((0.0, 0.0), (1.0, 0.0), math.inf, mask=1)
        []
        >>> world.ray_hits((0.0, 0.0), (1.0, 0.0), math.inf, mask=2)
        [(RayContact(id=1, distance=2.0, point=(2.0, 0.0)), (-1.0, 0.0))]
        """
        px, py = origin
        # a power of two (exact) brings the direction near unit size
        shift = 1 - math.frexp(max(abs(direction[0]), abs(direction[1])))[1]
        dx, dy = math.ldexp(direction[0], shift), math.ldexp(direction[1], shift)
        norm = math.hypot(dx, dy)
        t_max = max_distance / norm
        self.ignored_slots(ignore)  # checked before any compiled code runs
        ray = (px, py, dx, dy)
        kernel = kernels("bodies").ray_contacts
        bits = np.uint32(mask)

        def run(state: Any) -> tuple[_IntArray, _FloatArray, _FloatArray]:
            slots, ts, normals = kernel(state, ray, t_max, bits, self.ignored_slots(ignore))
            return state.ids[slots], ts, normals

        ids, ts, normals = self.consistent(run)
        order = np.arange(len(ids)) if exact_order else np.lexsort((ids, ts))
        out: list[tuple[RayContact, tuple[float, float]]] = []
        last = 0.0
        for k in order.tolist():
            # in exact order, the float parameters never go back (they may round
            # out of order among tiny or equal values)
            t = max(float(ts[k]), last)
            last = t
            distance = t * norm
            if not math.isfinite(distance):
                continue
            contact = RayContact(int(ids[k]), distance, (px + t * dx, py + t * dy))
            out.append((contact, (float(normals[k, 0]), float(normals[k, 1]))))
        return out

    def ignored_slots(self, ignore: Any) -> _IntArray:
        """Return the slots of the ids in ``ignore`` (an id or ids; unknown ids skipped), sorted.

        For the ray queries' ``ignore=`` (the slots are what the kernels skip).

        Examples
        --------
        >>> from tilecast import SpatialHash
        >>> world = SpatialHash(1.0)
        >>> world.insert(9, box=(0, 0, 1, 1))
        >>> world.ignored_slots([9, 12]).tolist(), world.ignored_slots(None).tolist()
        ([0], [])
        """
        if ignore is None:
            return _NO_SLOTS
        keys = [ignore] if isinstance(ignore, int | np.integer) else list(ignore)
        slots = []
        for key in keys:
            k = self._as_id("ignore", key)
            if k in self._slot_of:
                slots.append(self._slot_of[k])
        return np.array(sorted(slots), dtype=np.int64)


# ------------------------------------ rational answers for the undecided few
def _f(*values: float) -> list[Fraction]:
    return [Fraction(float(v)) for v in values]


def _segment_rect_fraction(g: Any, rect: Any) -> bool:
    ax, ay, bx, by = _f(*g)
    lo, hi = _f(rect[0], rect[1]), _f(rect[2], rect[3])
    a, d = (ax, ay), (bx - ax, by - ay)
    t0, t1 = Fraction(0), Fraction(1)
    for k in range(2):
        if d[k] == 0:
            if not lo[k] <= a[k] <= hi[k]:
                return False
            continue
        ta, tb = (lo[k] - a[k]) / d[k], (hi[k] - a[k]) / d[k]
        t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
    return t0 <= t1


def _circle_rect_fraction(cx: float, cy: float, r: float, rect: Any) -> bool:
    fx, fy, fr = _f(cx, cy, r)
    x0, y0, x1, y1 = _f(*rect)
    gx = max(x0 - fx, fx - x1, Fraction(0))
    gy = max(y0 - fy, fy - y1, Fraction(0))
    return gx * gx + gy * gy <= fr * fr


def _segment_circle_fraction(g: Any, cx: float, cy: float, r: float) -> bool:
    ax, ay, bx, by = _f(*g)
    fcx, fcy, fr = _f(cx, cy, r)
    ex, ey, fx, fy = bx - ax, by - ay, fcx - ax, fcy - ay
    ee = ex * ex + ey * ey
    t = Fraction(0) if ee == 0 else min(max((fx * ex + fy * ey) / ee, Fraction(0)), Fraction(1))
    qx, qy = fx - t * ex, fy - t * ey
    return qx * qx + qy * qy <= fr * fr


def _in_polygon_fraction(vertices: Any, x: float, y: float) -> bool:
    px, py = _f(x, y)
    v = [tuple(_f(*row)) for row in vertices]
    n = len(v)
    for k in range(n):
        (ax, ay), (bx, by) = v[k], v[(k + 1) % n]
        if (bx - ax) * (py - ay) - (by - ay) * (px - ax) < 0:
            return False
    return True


def _edges(vertices: Any) -> Iterator[tuple[float, float, float, float]]:
    n = len(vertices)
    for k in range(n):
        yield (*vertices[k], *vertices[(k + 1) % n])


def _meets_rect_fraction(kind: int, g: Any, vertices: Any, rect: Any) -> bool:
    """Exact rectangle test of one object in rational arithmetic (the rare undecided case)."""
    if kind == _BOX:
        return bool(g[0] <= rect[2] and g[2] >= rect[0] and g[1] <= rect[3] and g[3] >= rect[1])
    if kind == _SEGMENT:
        return _segment_rect_fraction(g, rect)
    if kind == _CIRCLE:
        return _circle_rect_fraction(g[0], g[1], g[2], rect)
    if any(_segment_rect_fraction(e, rect) for e in _edges(vertices)):
        return True
    return _in_polygon_fraction(vertices, rect[0], rect[1])


def _meets_circle_fraction(
    kind: int, g: Any, vertices: Any, cx: float, cy: float, r: float
) -> bool:
    """Exact disc test of one object in rational arithmetic (the rare undecided case)."""
    if kind == _BOX:
        return _circle_rect_fraction(cx, cy, r, g)
    if kind == _SEGMENT:
        return _segment_circle_fraction(g, cx, cy, r)
    if kind == _CIRCLE:
        gx, gy, gr, fx, fy, fr = _f(g[0], g[1], g[2], cx, cy, r)
        return (gx - fx) ** 2 + (gy - fy) ** 2 <= (gr + fr) ** 2
    if _in_polygon_fraction(vertices, cx, cy):
        return True
    return any(_segment_circle_fraction(e, cx, cy, r) for e in _edges(vertices))


def as_bodies(bodies: Any) -> SpatialHash:
    """Return ``bodies`` if it is a :class:`~tilecast.SpatialHash`, else raise naming it.

    Examples
    --------
    >>> from tilecast import SpatialHash
    >>> isinstance(as_bodies(SpatialHash(1.0)), SpatialHash)
    True
    """
    if not isinstance(bodies, SpatialHash):
        raise TypeError(f"bodies must be a SpatialHash or None, got {type(bodies).__name__}")
    return bodies


class _Editing:
    """One edit of a hash: its lock held, its sequence odd, its buckets stale at the end."""

    __slots__ = ("_hash",)

    def __init__(self, owner: SpatialHash) -> None:
        self._hash = owner

    def __enter__(self) -> None:
        self._hash._lock.acquire()
        self._hash._seq += 1
        self._hash._state = None

    def __exit__(self, *exc: object) -> None:
        h = self._hash
        h._seq += 1
        h._lock.release()


_NO_SLOTS = np.zeros(0, dtype=np.int64)


def _as_ids(name: str, ids: Any) -> _IntArray:
    """Distinct non-negative int64 ids ``(N,)``, or raise naming ``name``."""
    if isinstance(ids, str | bytes):
        raise TypeError(f"{name} must be integers")
    array = np.asarray(ids)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and (array.dtype.kind not in "iu" or array.dtype == np.bool_):
        raise TypeError(f"{name} must be integers, got dtype {array.dtype}")
    if array.size and (array.min() < 0 or (array.dtype.kind == "u" and array.max() >= 2**63)):
        raise ValueError(f"{name} must be non-negative int64 values")
    keys = array.astype(np.int64)
    if len(np.unique(keys)) != len(keys):
        raise ValueError(f"{name} has repeated ids")
    return keys


def _as_rows(name: str, value: Any, n: int, width: int) -> _FloatArray:
    try:
        rows = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers") from None
    if rows.shape != (n, width):
        raise ValueError(f"{name} must have shape ({n}, {width}), got {rows.shape}")
    if not np.isfinite(rows).all():
        raise ValueError(f"{name} has NaN or infinite values")
    return rows


def _as_layers_array(name: str, value: Any, n: int) -> NDArray[np.uint32]:
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return np.full(n, as_layers(name, value), dtype=np.uint32)
    array = np.asarray(value)
    if array.dtype == np.bool_ or array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an int or integers, got dtype {array.dtype}")
    if array.shape != (n,):
        raise ValueError(f"{name} must be an int or have shape ({n},), got {array.shape}")
    if n and (array.min() < 0 or array.max() >= 2**32):
        raise ValueError(f"{name} must be in [0, 2**32) (32 layer bits)")
    return array.astype(np.uint32)
