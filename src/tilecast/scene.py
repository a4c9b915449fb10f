"""Prepared visibility: walls prepared once, visibility polygons in microseconds.

:class:`VisibilityScene` answers exactly what
:func:`~tilecast.visibility_polygon` answers, vertex for vertex, for many
observers among walls that do not change: the walls are bucketed in a grid
once; each query floods the grid outward from the observer, skipping cells
hidden behind walls already seen, and runs the same exact sweep on the walls
it found (see :mod:`tilecast._kernels.scene`).
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from tilecast._engine import kernels
from tilecast._threads import run_tasks
from tilecast._validate import (
    MAGNITUDE_HIGH,
    MAGNITUDE_LOW,
    as_bounds,
    as_circles,
    as_cone,
    as_point,
    as_points_array,
    as_positive_float,
    as_real_array,
    as_segments,
    check_magnitude,
)
from tilecast._walkspec import ALL_LAYERS
from tilecast.grid import Grid
from tilecast.tiles import TileMap
from tilecast.visibility import (
    SEES_TO_INFINITY,
    cone_trig,
    extra_walls,
    visibility_polygon,
    wall_segments,
)
from tilecast.world import readonly_view

__all__ = ["VisibilityScene"]

#: Walls per grid cell the scene aims for (fewer cells to flood; each wall is still tested).
CELL_LOAD = 3.0
_MAX_SIDE = 2048
_BOUNDS_CACHE = 16
_NO_WALLS = np.empty((0, 4))  # a query that adds no walls (no bounds or circles)


_kernel_addresses: tuple[int, int, int] | None = None
_family_ready = False  # the scene's kernels compiled or loaded in this process
_entries: dict[str, Any] = {}


def _addresses() -> tuple[int, int, int]:
    """Return the addresses of the preparation's end, the sweep and the expansion."""
    global _kernel_addresses
    if _kernel_addresses is None:
        _kernel_addresses = (*kernels("visibility").addresses(), kernels("expansion").address())
    return _kernel_addresses


def _entry(name: str) -> Any:
    """Return the scene kernel ``name``'s entry point: no type dispatch per call.

    Its arguments must be of the kernel's declared types (``*_TYPES`` in
    :mod:`tilecast._kernels.scene`): the scene builds them so (records as
    tuples of their fields in order, C-contiguous float64 and int64 arrays).
    """
    entry = _entries.get(name)
    if entry is None:
        entry = _entries[name] = kernels("scene").entry_point(name)
    return entry


#: The most walls a scene takes (its sorts key wall pairs as exact doubles).
MAX_WALLS = 2**26


class VisibilityScene:
    """Walls prepared once for fast, exact visibility polygons from many observers.

    Parameters
    ----------
    segments : array_like, shape (M, 2, 2)
        Walls ``[[x0, y0], [x1, y1]]``, as :func:`~tilecast.visibility_polygon`
        takes them; they may cross, touch and overlap.
    circles : array_like, shape (C, 3), optional
        Circular occluders ``(x, y, radius)``, as ``visibility_polygon`` takes
        them (they are not prepared: each query adds their near arcs).

    Notes
    -----
    Preparation splits the walls into pieces where they cross, triangulates
    the pieces' ends with every piece an edge (a constrained Delaunay
    triangulation, exact orientation tests) and buckets the walls in a
    uniform grid; about 120 ms for 28,000 walls. A query without a radius,
    bounds or circles walks to the observer's triangle and expands from it
    (triangular expansion): each window of directions, bounded by rays
    through triangle corners, crosses triangle after triangle until it
    meets a wall, and the walls met, in counter-clockwise order, give the
    polygon's vertices as :func:`~tilecast.visibility_polygon`'s sweep
    computes them. Where the sweep's own rules decide (a corner exactly on
    a window's edge, a cone) the sweep runs on the walls met; with a
    radius, bounds or circles, or an observer on a triangle's edge, a flood
    of the grid picks the walls that can matter and the sweep runs on them.
    Either way the answer is the same array. Observers outside the walls'
    bounding box, and scenes whose pieces leave the exact range, are
    answered by ``visibility_polygon`` itself.

    Examples
    --------
    >>> from tilecast import VisibilityScene, visibility_polygon
    >>> room = [[[0, 0], [4, 0]], [[4, 0], [4, 4]], [[4, 4], [0, 4]], [[0, 4], [0, 0]]]
    >>> walls = room + [[[2, 1], [3, 1]]]
    >>> scene = VisibilityScene(walls)
    >>> scene.polygon((2, 2)).tolist()
    [[0.0, 4.0], [0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [3.0, 1.0], [4.0, 0.0], [4.0, 4.0]]
    >>> bool((scene.polygon((1, 3)) == visibility_polygon(walls, (1, 3))).all())
    True
    """

    def __init__(self, segments: Any, *, circles: Any = None) -> None:
        segs = as_segments("segments", segments)
        if len(segs) > MAX_WALLS:  # pair codes i * m + j must stay exact as doubles
            raise ValueError(f"segments: at most {MAX_WALLS} walls, got {len(segs)}")
        circ = None if circles is None else as_circles(circles)
        check_magnitude("segments", segs, MAGNITUDE_LOW, MAGNITUDE_HIGH)
        if circ is not None:
            check_magnitude("circles", circ, MAGNITUDE_LOW, MAGNITUDE_HIGH)
        self._segs = segs
        self._circles = circ if circ is not None and len(circ) else None
        self._lock = threading.Lock()
        self._stamp = 0
        self._bounds_lex: dict[tuple[float, ...], tuple[np.ndarray, np.ndarray, bool]] = {}
        self._fallback = len(segs) == 0
        self._plain: tuple[Any, ...] | None = None  # a plain query's kernel and arguments, but p
        # a radius query's arguments after the radius (see _query_args), but the workspace
        self._radius_tail: tuple[Any, ...] | None = None
        self._walls = segs  # the kernels' order of the walls (below)
        if self._fallback:
            return
        bucket_walls = kernels("visibility").bucket_walls
        ks = kernels("scene")
        global _family_ready
        if not _family_ready:  # the first scene of the process: compile side by side
            ks.compile_family()
            _family_ready = True
        lo = segs.reshape(-1, 2).min(axis=0)
        hi = segs.reshape(-1, 2).max(axis=0)
        scale = float(np.abs(segs).max())
        pad = 1e-6 * float((hi - lo).max()) + 1e-9 * scale + 1e-300
        width, height = float(hi[0] - lo[0]) + 2 * pad, float(hi[1] - lo[1]) + 2 * pad
        cells = max(1.0, len(segs) / CELL_LOAD)
        h = max(math.sqrt(width * height / cells), width / _MAX_SIDE, height / _MAX_SIDE)
        self._x0, self._y0, self._h = float(lo[0]) - pad, float(lo[1]) - pad, h
        self._nx = max(1, math.ceil(width / h))
        self._ny = max(1, math.ceil(height / h))
        slack = 1e-6 * h + 1e-12 * scale
        starts, members = bucket_walls(segs, self._x0, self._y0, h, h, self._nx, self._ny,
                                       slack, slack)  # fmt: skip
        # The kernels number the walls by the first cell that lists them, so
        # that the walls of nearby cells lie together in memory; ``orig``
        # gives each its number in the walls as given (the order the split's
        # rounding and the sweep's input follow), ``self._rank`` the reverse.
        m = len(segs)
        first_slot = np.full(m, len(members))
        np.minimum.at(first_slot, members, np.arange(len(members)))
        orig = np.argsort(first_slot, kind="stable")
        self._rank = np.empty(m, dtype=np.int64)
        self._rank[orig] = np.arange(m)
        self._walls = np.ascontiguousarray(segs[orig])
        members = self._rank[members]
        nb_start, nb = ks.build_touching(self._walls, starts, members)
        cut_start, cut = ks.build_cutters(self._walls, nb_start, nb)
        end_start, far_ends = ks.build_ends(self._walls, nb_start, nb)
        rows, src = ks.lex_pieces(segs)
        src = self._rank[src]
        self._lex = (rows, src)
        # each wall's pieces: their positions among the sorted rows
        piece_at = np.argsort(src, kind="stable")
        piece_start = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=m), out=piece_start[1:])
        self._fallback = not ks.in_range(rows)
        # the triangulation plain queries expand in (none: they flood)
        triangulated = None
        if not self._fallback:
            triangulated = kernels("expansion").prepare(
                rows, self._x0, self._y0, h, self._nx, self._ny
            )
        self._mesh: np.ndarray
        self._mesh, tri_start = triangulated or (np.empty((0, 12)), np.empty(0, dtype=np.int64))
        index = ks.pack_index(
            self._nx, self._ny, starts, members, nb_start, nb, cut_start, cut,
            piece_start, piece_at, end_start, orig, tri_start,
        )  # fmt: skip
        # the prepared scene as the query kernels take it
        self._arrays = ks.SceneArrays(
            self._walls, np.ascontiguousarray(far_ends), index, self._mesh, self._x0, self._y0, h
        )
        # the workspace of single queries (polygon, visible), used under the lock
        self._work, self._cover, self._stack, picked = ks.new_workspace(
            len(segs), self._nx * self._ny, len(rows), len(self._mesh)
        )
        if not self._fallback and self._circles is None:
            _, tail, ok = self._query_args(1.0, None, None)
            if ok:
                self._radius_tail = tail
            _, sweep_at, expand_at = _addresses()
            self._plain = (
                _entry("plain_polygon"), (self._arrays, rows),
                (self._stack, picked, expand_at, sweep_at),
            )  # fmt: skip

    @classmethod
    def from_grid(
        cls, grid: Grid | TileMap | np.ndarray, *, mask: int = ALL_LAYERS
    ) -> VisibilityScene:
        """Prepare the walls of a tile grid (:func:`~tilecast.wall_segments`).

        ``mask`` picks the collision layers that block sight, as for
        :func:`~tilecast.wall_segments` (one scene per mask: a scene is
        prepared once and does not follow edits of the map).

        Examples
        --------
        >>> from tilecast import Grid, VisibilityScene
        >>> scene = VisibilityScene.from_grid(Grid([[0, 0, 0], [0, 1, 0]], outside="solid"))
        >>> len(scene.segments)
        8
        >>> scene.polygon((0.5, 0.5)).round(3).tolist()  # the shadow meets x = 3 at y = 4/3
        [[0.0, 2.0], [0.0, 0.0], [3.0, 0.0], [3.0, 1.333], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0]]
        """
        return cls(wall_segments(grid, mask=mask))

    @property
    def segments(self) -> np.ndarray:
        """The walls, ``(M, 2, 2)`` float64 (read-only)."""
        return readonly_view(self._segs.reshape(-1, 2, 2))

    # ---------------------------------------------------------------- queries
    def _inside(self, p: tuple[float, float]) -> bool:
        """Say whether p lies in the prepared grid (else visibility_polygon answers)."""
        if self._fallback:
            return False
        i = math.floor((p[0] - self._x0) / self._h)
        j = math.floor((p[1] - self._y0) / self._h)
        return 0 <= i < self._nx and 0 <= j < self._ny

    def _options(
        self, radius: Any, cone: Any, bounds: Any, name: str, points: Any
    ) -> tuple[
        float | None,
        tuple[float, float, float] | None,
        tuple[float, float, float, float] | None,
    ]:
        """Check the options and the observers' magnitudes (``name``: the argument's).

        In ``visibility_polygon``'s order: the same error for the same bad input.
        """
        r = None if radius is None else as_positive_float("radius", radius)
        cone_spec = None if cone is None else as_cone(cone)
        box = None if bounds is None else as_bounds(bounds)
        check_magnitude(name, points, MAGNITUDE_LOW, MAGNITUDE_HIGH)
        if r is not None:
            check_magnitude("radius", (r,), MAGNITUDE_LOW, MAGNITUDE_HIGH)
        if box is not None:
            check_magnitude("bounds", box, MAGNITUDE_LOW, MAGNITUDE_HIGH)
        return r, cone_spec, box

    def _lex_rows(
        self, radius: float | None, box: tuple[float, float, float, float] | None
    ) -> tuple[np.ndarray, np.ndarray, bool]:
        """Sorted pieces for the sweep's first wall, when they do not depend on the observer."""
        if self._fallback:
            return np.empty((0, 4)), np.empty(0, dtype=np.int64), False
        if radius is not None or self._circles is not None:
            return np.empty((0, 4)), np.empty(0, dtype=np.int64), True
        if box is None:
            return self._lex[0], self._lex[1], True
        with self._lock:
            found = self._bounds_lex.get(box)
        if found is None:
            edges = extra_walls((0.0, 0.0), box, None)
            assert edges is not None
            rows, src = kernels("scene").lex_pieces(np.concatenate([self._segs, edges]))
            m = len(self._segs)
            src = np.where(src < m, self._rank[np.minimum(src, m - 1)], src)  # the kernels' numbers
            found = (rows, src, bool(kernels("scene").in_range(rows)))
            with self._lock:
                if len(self._bounds_lex) >= _BOUNDS_CACHE:
                    self._bounds_lex.clear()
                self._bounds_lex[box] = found
        return found

    def _query_args(
        self,
        radius: float | None,
        cone: tuple[float, float, float] | None,
        box: tuple[float, float, float, float] | None,
    ) -> tuple[tuple[Any, ...], tuple[Any, ...], bool]:
        """Return a query's options: its record's fields after ``extras`` (a ``SceneQuery``).

        As ``(head, tail, ok)``: ``head`` the radius, ``tail`` the rest;
        ``ok``: the scene's kernels can answer (see :meth:`_lex_rows`).
        """
        lex_rows, lex_src, ok = self._lex_rows(radius, box)
        head = (float(radius or 0.0),)
        tail = (
            np.array(box if box is not None else (), dtype=np.float64),
            lex_rows,
            lex_src,
            cone is not None,
            np.array(cone_trig(cone) if cone is not None else (0.0,) * 4, dtype=np.float64),
        )
        return head, tail, ok

    def polygon(
        self, observer: Any, *, radius: float | None = None, cone: Any = None, bounds: Any = None
    ) -> np.ndarray:
        """Return the region visible from ``observer``: ``visibility_polygon``'s answer.

        Parameters and result as :func:`~tilecast.visibility_polygon` (the
        walls and circles are the scene's); the same errors for bad input and
        for an observer that sees to infinity with no ``radius`` or
        ``bounds``.

        Examples
        --------
        >>> from tilecast import Grid, VisibilityScene
        >>> pillar = Grid([[0, 0, 0], [0, 1, 0], [0, 0, 0]], outside="solid")
        >>> scene = VisibilityScene.from_grid(pillar)
        >>> scene.polygon((0.5, 0.5), cone=((1, 0), 0.1)).round(3).tolist()
        [[0.5, 0.5], [3.0, 0.249], [3.0, 0.751]]
        >>> len(scene.polygon((0.5, 0.5), radius=1.0))
        124
        """
        if radius is None and cone is None and bounds is None and self._plain is not None:
            # the common case, kept short: a plain query, p valid and in the grid
            plain = _plain_point(observer)
            if plain is not None and self._inside(plain):
                kernel, head, tail = self._plain
                with self._lock:  # the workspace is shared by this scene's single queries
                    poly, status = kernel(*head, plain[0], plain[1], *tail)
                if status == 0:
                    result: np.ndarray = poly
                    return result
                if status == 1:
                    raise ValueError(SEES_TO_INFINITY)
                if status == 2:
                    return self._full(plain, None, None, None)
                # else p lies on an edge of the triangulation: the flood below
        elif cone is None and bounds is None and self._radius_tail is not None:
            # a light: only a radius, a plain number in the range the predicates allow
            if isinstance(radius, float | int) and type(radius) in (float, int):
                plain = _plain_point(observer)
                if (MAGNITUDE_LOW <= radius <= MAGNITUDE_HIGH and plain is not None
                        and self._inside(plain)):  # fmt: skip
                    return self._lit(plain, float(radius))
        p = as_point("observer", observer)
        r, cone_spec, box = self._options(radius, cone, bounds, "observer", p)
        if box is not None and not (box[0] < p[0] < box[2] and box[1] < p[1] < box[3]):
            raise ValueError(f"observer {p} must lie strictly inside bounds {box}")
        head, tail, ok = self._query_args(r, cone_spec, box)
        if not (ok and self._inside(p)):
            return self._full(p, radius, cone, bounds)
        extras = extra_walls(p, box, self._circles)
        if extras is None:
            return np.empty((0, 2))
        return self._query(p, extras, head, tail, (radius, cone, bounds))

    def _lit(self, p: tuple[float, float], radius: float) -> np.ndarray:
        """``polygon(p, radius=radius)``, p and radius checked and p in the grid."""
        assert self._radius_tail is not None
        return self._query(p, _NO_WALLS, (radius,), self._radius_tail, (radius, None, None))

    def _query(
        self, p: tuple[float, float], extras: np.ndarray, head: tuple[Any, ...],
        tail: tuple[Any, ...], options: tuple[Any, Any, Any],
    ) -> np.ndarray:  # fmt: skip
        """Run the query kernel on the scene's workspace.

        ``options``: (radius, cone, bounds) as given, for ``visibility_polygon``
        when a prepared wall is out of the exact range.
        """
        with self._lock:  # the workspace is shared by this scene's single queries
            self._stamp += 1
            # the query's record as a tuple of its fields (a SceneQuery)
            poly, status = _entry("polygon")(
                self._arrays, (extras, *head, *tail), p[0], p[1],
                self._work, self._cover, self._stack, self._stamp, *_addresses(),
            )  # fmt: skip
        if status == 1:
            raise ValueError(SEES_TO_INFINITY)
        if status == 2:
            return self._full(p, *options)
        result: np.ndarray = poly
        return result

    def _full(self, p: tuple[float, float], radius: Any, cone: Any, bounds: Any) -> np.ndarray:
        circles = self._circles
        return visibility_polygon(
            self.segments, p, radius=radius, cone=cone, bounds=bounds, circles=circles
        )

    def polygons(
        self, observers: Any, *, radius: float | None = None, cone: Any = None, bounds: Any = None
    ) -> list[np.ndarray]:
        """Return one visibility polygon per observer, computed in parallel.

        The same arrays as ``[scene.polygon(p, ...) for p in observers]``;
        the batch is cut into ranges run on tilecast's thread pool (the
        kernel releases the GIL).

        Parameters
        ----------
        observers : array_like, shape (N, 2)
        radius, cone, bounds
            As :meth:`polygon`, the same for every observer.

        Returns
        -------
        list of ndarray, shape (K_i, 2)

        Raises
        ------
        ValueError
            As :meth:`polygon`, for the first observer that fails.

        Examples
        --------
        >>> from tilecast import Grid, VisibilityScene
        >>> pillar = Grid([[0, 0, 0], [0, 1, 0], [0, 0, 0]], outside="solid")
        >>> scene = VisibilityScene.from_grid(pillar)
        >>> [len(poly) for poly in scene.polygons([(0.5, 0.5), (2.5, 1.5)])]
        [8, 6]
        """
        pts = _as_points("observers", observers)
        r, cone_spec, box = self._options(radius, cone, bounds, "observers", pts)
        if box is not None:
            inside = (box[0] < pts[:, 0]) & (pts[:, 0] < box[2])
            inside &= (box[1] < pts[:, 1]) & (pts[:, 1] < box[3])
            if not inside.all():
                k = int(np.argmin(inside))
                raise ValueError(
                    f"observers[{k}] {tuple(pts[k].tolist())} must lie strictly inside bounds {box}"
                )
        head, tail, ok = self._query_args(r, cone_spec, box)
        n = len(pts)
        out: list[np.ndarray | None] = [None] * n
        fast = np.zeros(n, dtype=bool)
        if ok and not self._fallback:
            i = np.floor((pts[:, 0] - self._x0) / self._h)
            j = np.floor((pts[:, 1] - self._y0) / self._h)
            fast = (0 <= i) & (i < self._nx) & (0 <= j) & (j < self._ny)
        if self._circles is not None:
            fast[:] = False  # each observer has its own circle arcs: one at a time
        index = np.flatnonzero(fast)
        chosen = np.ascontiguousarray(pts[index])
        extras = extra_walls((0.0, 0.0), box, None)
        assert extras is not None

        def task(lo: int, hi: int) -> None:
            vertices, offsets, status = polygons(self._arrays, query, chosen[lo:hi], *_addresses())
            for k in range(hi - lo):
                q = int(index[lo + k])
                if status[k] == 1:
                    out[q] = None  # raised below, in order
                elif status[k] == 0:
                    out[q] = vertices[offsets[k] : offsets[k + 1]]
            statuses[lo:hi] = status

        statuses = np.zeros(len(index), dtype=np.int64)
        if len(index):
            query = kernels("scene").SceneQuery(extras, *head, *tail)
            polygons = _entry("polygons")
            run_tasks(task, len(index))
        bad = dict(zip(index.tolist(), statuses.tolist(), strict=True))
        for q in range(n):
            if bad.get(q) == 1:
                raise ValueError(f"observers[{q}]: {SEES_TO_INFINITY}")
            if out[q] is None:
                try:
                    out[q] = self.polygon(pts[q], radius=radius, cone=cone, bounds=bounds)
                except ValueError as error:
                    raise ValueError(f"observers[{q}]: {error}") from None
        return [poly for poly in out if poly is not None]

    def visible(self, observer: Any, points: Any) -> np.ndarray:
        """Say, exactly, which points the observer sees.

        A point is visible when it lies in the closed visible region: on the
        near side of every wall, or on a wall the observer sees. The rules
        are the polygon's (walls through the observer hide nothing, a ray
        grazing a wall's end passes it), decided with exact predicates on the
        walls themselves, not on the rounded polygon. Circles are ignored.

        Parameters
        ----------
        observer : (float, float)
        points : array_like, shape (N, 2)

        Returns
        -------
        ndarray of bool, shape (N,)

        Examples
        --------
        >>> from tilecast import VisibilityScene
        >>> room = [[[0, 0], [4, 0]], [[4, 0], [4, 4]], [[4, 4], [0, 4]], [[0, 4], [0, 0]]]
        >>> scene = VisibilityScene(room + [[[2, 1], [3, 1]]])
        >>> scene.visible((2, 2), [(2.5, 0.5), (2.5, 1.0), (1, 1), (5, 5)]).tolist()
        [False, True, True, False]
        """
        p = as_point("observer", observer)
        pts = _as_points("points", points)
        check_magnitude("observer", p, MAGNITUDE_LOW, MAGNITUDE_HIGH)
        check_magnitude("points", pts, MAGNITUDE_LOW, MAGNITUDE_HIGH)
        ks = kernels("scene")
        if self._inside(p):
            with self._lock:
                self._stamp += 1
                chosen = _entry("flood_walls")(
                    self._arrays, p[0], p[1], self._work, self._cover, self._stamp
                )
        else:
            chosen = np.arange(len(self._segs))
        result: np.ndarray = ks.visible(self._walls, chosen, p[0], p[1], pts)
        return result


def _plain_point(value: Any) -> tuple[float, float] | None:
    """Return the observer as two floats when it is a common, valid one (else None: check it).

    A tuple or list of two floats, or a float64 array of shape (2,), with
    finite coordinates whose magnitudes the exact predicates allow.
    """
    kind = type(value)
    if kind is tuple or kind is list:
        if len(value) != 2:
            return None
        x, y = value
        if type(x) is not float or type(y) is not float:
            return None
    elif kind is np.ndarray and value.shape == (2,) and value.dtype == np.float64:
        x, y = value.tolist()
    else:
        return None
    ax, ay = abs(x), abs(y)  # NaN fails both comparisons below
    if (MAGNITUDE_LOW <= ax <= MAGNITUDE_HIGH or ax == 0.0) and (
        MAGNITUDE_LOW <= ay <= MAGNITUDE_HIGH or ay == 0.0
    ):
        return x, y
    return None


def _as_points(name: str, value: Any) -> np.ndarray:
    """``(N, 2)`` finite points (:func:`as_points_array`); any empty input is no points."""
    if as_real_array(name, value).size == 0:
        return np.empty((0, 2))
    return as_points_array(name, value, allow_single=False)
