"""Visibility polygons among wall segments, and the walls of a tile grid.

:func:`visibility_polygon` answers "what can a light (or a player) at this point
see?" among obstacle segments, optionally limited to a radius, a flashlight cone
or a rectangle, with circular occluders. :func:`wall_segments` turns a
:class:`~tilecast.grid.Grid` into the segments between free and solid cells, so
the two together light a tilemap.

The default method is an exact angular sweep (O(M log M)); ``method="rays"``
keeps the classic approximate "three rays per vertex" fan for comparison.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tilecast._engine import kernels
from tilecast._threads import numba_parallel
from tilecast._validate import (
    MAGNITUDE_HIGH,
    MAGNITUDE_LOW,
    as_bounds,
    as_choice,
    as_circles,
    as_cone,
    as_point,
    as_positive_float,
    as_segments,
    check_magnitude,
)
from tilecast._walkspec import ALL_LAYERS
from tilecast.grid import Grid, check_map
from tilecast.tiles import TileMap

__all__ = ["visibility_polygon", "wall_segments"]

#: Angle (radians) either side of each vertex for ``method="rays"``.
RAY_EPSILON = 1e-5
_ONE_DEGREE = math.radians(1.0)
#: The error when nothing bounds the view (shared with the prepared scene).
SEES_TO_INFINITY = (
    "observer sees to infinity in some direction: pass radius= or bounds=, or close the walls"
)


_preparation_addresses: tuple[int, int] | None = None  # of the two compiled steps


# ------------------------------------------------------------- preparation
def _circle_walls(circles: np.ndarray, p: tuple[float, float]) -> np.ndarray | None:
    """Near arcs of the circles as seen from p (tangent point to tangent point).

    Returns None when p is inside or on a circle (it sees nothing).
    """
    walls = []
    for cx, cy, r in circles:
        dx, dy = p[0] - cx, p[1] - cy
        dist2 = dx * dx + dy * dy
        if dist2 <= r * r:
            return None
        h = r * math.sqrt(dist2 - r * r) / dist2
        bx, by = cx + (r * r / dist2) * dx, cy + (r * r / dist2) * dy
        t0 = (bx - h * dy, by + h * dx)
        t1 = (bx + h * dy, by - h * dx)
        a0 = math.atan2(t0[1] - cy, t0[0] - cx)
        span = 2.0 * math.acos(min(1.0, r / math.sqrt(dist2)))  # the near arc, < pi
        a_mid = math.atan2(dy, dx)
        if math.sin(a_mid - a0) < 0:  # walk from t0 towards p's side
            span = -span
        steps = max(1, math.ceil(abs(span) / _ONE_DEGREE))
        pts = [t0]
        pts += [
            (cx + r * math.cos(a0 + span * k / steps), cy + r * math.sin(a0 + span * k / steps))
            for k in range(1, steps)
        ]
        pts.append(t1)
        walls += [(*pts[k], *pts[k + 1]) for k in range(len(pts) - 1)]
    return np.array(walls, dtype=np.float64).reshape(-1, 4)


def extra_walls(
    p: tuple[float, float],
    bounds: tuple[float, float, float, float] | None,
    circles: np.ndarray | None,
) -> np.ndarray | None:
    """Return the walls a query adds: the circles' near arcs, then the bounds.

    None when p is inside or on a circle (it sees nothing).
    """
    parts = [np.empty((0, 4))]
    if circles is not None and len(circles):
        walls = _circle_walls(circles, p)
        if walls is None:
            return None
        parts.append(walls)
    if bounds is not None:
        x0, y0, x1, y1 = bounds
        parts.append(
            np.array(
                [[x0, y0, x1, y0], [x1, y0, x1, y1], [x1, y1, x0, y1], [x0, y1, x0, y0]],
                dtype=np.float64,
            )
        )
    return np.ascontiguousarray(np.concatenate(parts))


def _prepare(
    segs: np.ndarray,
    p: tuple[float, float],
    radius: float | None,
    bounds: tuple[float, float, float, float] | None,
    circles: np.ndarray | None,
    *,
    split: bool = True,
) -> np.ndarray | None:
    """All walls as non-crossing segments not collinear with p (None: p sees nothing).

    Walls beyond the radius's square are dropped first, the rest (with the
    circles' arcs and the bounds) split where they cross, clipped to the
    disc, those through p dropped, and sorted (see ``prepare_walls``).
    """
    extras = extra_walls(p, bounds, circles)
    if extras is None:
        return None
    segs = np.ascontiguousarray(segs, dtype=np.float64).reshape(-1, 4)
    global _preparation_addresses
    compiled = kernels("visibility")
    if _preparation_addresses is None:
        argument_types = kernels("jobs").argument_types
        radius_value = radius or 0.0
        compiled.compile_family(
            argument_types(compiled.prepare_walls, (segs, extras, p[0], p[1], radius_value,
                                                   split, 0, 0))
        )  # fmt: skip
        _preparation_addresses = compiled.preparation_addresses()
    prepared: np.ndarray = compiled.prepare_walls(
        segs, extras, p[0], p[1], radius or 0.0, split, *_preparation_addresses
    )
    return prepared


def cone_trig(cone: tuple[float, float, float]) -> tuple[float, float, float, float]:
    """Directions of the cone's two edges (cos, sin of each)."""
    mid, half, _ = cone
    return math.cos(mid - half), math.sin(mid - half), math.cos(mid + half), math.sin(mid + half)


def _cone_points(p: tuple[float, float], cone: tuple[float, float, float]) -> tuple[float, ...]:
    """Points on the cone's edges, one unit (or |p|) from p: the sweep's start and end."""
    c1, s1, c2, s2 = cone_trig(cone)
    scale = max(1.0, abs(p[0]), abs(p[1]))
    return (p[0] + scale * c1, p[1] + scale * s1, p[0] + scale * c2, p[1] + scale * s2)


# ------------------------------------------------------------------- public
def visibility_polygon(
    segments: Any,
    observer: Any,
    *,
    radius: float | None = None,
    cone: Any = None,
    bounds: Any = None,
    circles: Any = None,
    method: str = "sweep",
) -> np.ndarray:
    """Compute the region visible from ``observer`` among wall segments.

    Parameters
    ----------
    segments : array_like, shape (M, 2, 2)
        Walls ``[[x0, y0], [x1, y1]]``; they may cross, touch and overlap.
    observer : (float, float)
        The eye (or light).
    radius : float, optional
        Clip to the closed disc of this radius around the observer; its
        boundary arcs are drawn with at most 1 degree between vertices.
    cone : ((dx, dy), half_angle), optional
        A flashlight: only directions within ``half_angle`` radians of
        ``(dx, dy)``; the observer is then a vertex of the polygon. A half
        angle of pi or more is the full turn.
    bounds : (x0, y0, x1, y1), optional
        Clip to this rectangle, which must contain the observer strictly.
    circles : array_like, shape (C, 3), optional
        Circular occluders ``(x, y, radius)``: solid discs, each replaced by
        its near arc from tangent point to tangent point (vertices at most 1
        degree apart on the circle).
    method : {"sweep", "rays"}
        ``"sweep"`` (exact, O(M log M)) or ``"rays"``: three rays per vertex
        (at its angle and +/- ``RAY_EPSILON``), nearest hit each, brute force
        O(M^2); approximate: an edge seen between two rays is assumed straight,
        so it may cut corners off or miss a thin gap.

    Returns
    -------
    ndarray, shape (K, 2)
        The polygon, counter-clockwise in ``(x, y)`` (positive shoelace area;
        clockwise on screen when y points down), without a repeated first
        vertex. Empty (``(0, 2)``) when the observer is inside or on a circle.

    Raises
    ------
    ValueError
        When the observer sees to infinity in some direction and neither
        ``radius`` nor ``bounds`` is given, when it lies outside (or on)
        ``bounds``, and for malformed input, including a non-zero coordinate
        or radius of magnitude outside ``[2**-400, 2**400]`` (about 3.9e-121
        to 2.6e120: the range where every decision is exact and no vertex
        overflows; scale your scene into it).

    Notes
    -----
    Walls are zero-thickness two-sided segments. The sweep orders endpoints by
    exact angle (half-plane, then orientation; no atan2) and keeps the walls
    cut by the current ray in a heap ordered by exact orientation tests; walls
    are first split where they cross or touch (candidate pairs from a uniform
    grid). Only output coordinates are rounded: where a ray meets a wall,
    crossing points of walls, points on arcs and circles.

    - A wall through the observer (observer on a wall, or at a wall's end) or
      pointing straight at it has no angular width and hides nothing: an
      observer standing on a wall sees both sides of it.
    - Inside a closed ring of walls, the observer sees the inside of the ring
      (walls are boundaries, not solids); inside or on a circle it sees nothing.
    - Rays grazing a wall's end pass it: the boundary follows the ray beyond.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import visibility_polygon
    >>> room = [[[0, 0], [4, 0]], [[4, 0], [4, 4]], [[4, 4], [0, 4]], [[0, 4], [0, 0]]]
    >>> pillar = [[[2, 1], [3, 1]]]
    >>> poly = visibility_polygon(room + pillar, (2, 2))
    >>> poly.tolist()
    [[0.0, 4.0], [0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [3.0, 1.0], [4.0, 0.0], [4.0, 4.0]]
    >>> x, y = poly.T
    >>> float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2  # area
    14.5
    >>> visibility_polygon(pillar, (2, 2), radius=1.0).shape
    (360, 2)
    """
    segs = as_segments("segments", segments)
    p = as_point("observer", observer)
    r = None if radius is None else as_positive_float("radius", radius)
    cone_spec = None if cone is None else as_cone(cone)
    box = None if bounds is None else as_bounds(bounds)
    circ = None if circles is None else as_circles(circles)
    method = as_choice("method", method, ("sweep", "rays"))
    check_magnitude("segments", segs, MAGNITUDE_LOW, MAGNITUDE_HIGH)
    check_magnitude("observer", p, MAGNITUDE_LOW, MAGNITUDE_HIGH)
    if r is not None:
        check_magnitude("radius", (r,), MAGNITUDE_LOW, MAGNITUDE_HIGH)
    if box is not None:
        check_magnitude("bounds", box, MAGNITUDE_LOW, MAGNITUDE_HIGH)
    if circ is not None:
        check_magnitude("circles", circ, MAGNITUDE_LOW, MAGNITUDE_HIGH)
    if box is not None and not (box[0] < p[0] < box[2] and box[1] < p[1] < box[3]):
        raise ValueError(f"observer {p} must lie strictly inside bounds {box}")
    prepared = _prepare(segs, p, r, box, circ, split=method == "sweep")
    if prepared is None:
        return np.empty((0, 2))
    # Crossing points and arc points are rounded; one that lands extremely
    # close to zero (next to ordinary coordinates) would take the exact
    # predicates beyond float64 (see _kernels.geometry): refuse, never guess.
    check_magnitude(
        "segments", prepared, 2.0 ** -kernels("geometry").SAFE_EXPONENT, MAGNITUDE_HIGH * 4.0
    )
    if method == "rays":
        return _rays(prepared, p, r, cone_spec)
    if cone_spec is None:
        polygon, status = kernels("visibility").sweep(
            prepared, p[0], p[1], r or 0.0, False, 0.0, 0.0, 0.0, 0.0
        )
    else:
        polygon, status = kernels("visibility").sweep(
            prepared, p[0], p[1], r or 0.0, True, *_cone_points(p, cone_spec)
        )
    if status:
        raise ValueError(SEES_TO_INFINITY)
    return np.asarray(polygon, dtype=np.float64)


def _rays(
    segs: np.ndarray,
    p: tuple[float, float],
    radius: float | None,
    cone: tuple[float, float, float] | None,
) -> np.ndarray:
    """Cast the approximate three-rays-per-vertex fan (see ``method="rays"``)."""
    ends = segs.reshape(-1, 2)
    base = np.arctan2(ends[:, 1] - p[1], ends[:, 0] - p[0])
    fan = [base, base - RAY_EPSILON, base + RAY_EPSILON]
    if radius is not None:
        fan.append(np.arange(360) * _ONE_DEGREE)
    angles = np.concatenate(fan)
    if cone is not None:
        mid, half, _ = cone
        rel = np.mod(angles - (mid - half), 2 * np.pi)
        rel = np.concatenate([[0.0], rel[rel < 2 * half], [2 * half]])
        angles = np.unique(rel) + (mid - half)
    else:
        angles = np.unique(np.mod(angles, 2 * np.pi))
    dirs = np.ascontiguousarray(np.column_stack([np.cos(angles), np.sin(angles)]))
    with numba_parallel():
        t = kernels("visibility").cast_rays(
            segs, p[0], p[1], dirs, np.inf if radius is None else radius
        )
    if np.isinf(t).any():
        raise ValueError(SEES_TO_INFINITY)
    points: np.ndarray = np.asarray(p) + dirs * t[:, None]
    if cone is not None:
        points = np.vstack([[p], points])
    return points


# -------------------------------------------------------------- tile walls
def wall_segments(grid: Grid | TileMap | np.ndarray, *, mask: int = ALL_LAYERS) -> np.ndarray:
    """Return the walls of a tile grid: boundaries between free and solid cells.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        Beyond the map counts as solid when ``grid.outside == "solid"`` (so the
        map's border is a wall wherever a free cell touches it) and as free
        when ``"empty"``. On a :class:`~tilecast.TileMap` the walls are the
        outlines of its solid *pixels* (those of
        :meth:`~tilecast.TileMap.to_pixel_grid`), so that a visibility polygon
        among them agrees with :func:`~tilecast.raycast` on the map.
    mask : int, default ALL_LAYERS
        The collision layers that are walls: a cell is solid here when
        ``layers & mask != 0`` (as for :func:`~tilecast.raycast`).

    Returns
    -------
    ndarray, shape (M, 2, 2)
        Maximal straight segments in world units (``origin + k * tile_size``),
        horizontal ones first (by row line, then x), then vertical ones.

    Examples
    --------
    >>> from tilecast import Grid, wall_segments
    >>> wall_segments(Grid([[0, 1], [0, 0]])).reshape(-1, 4).tolist()
    [[1.0, 0.0, 2.0, 0.0], [1.0, 1.0, 2.0, 1.0], [1.0, 0.0, 1.0, 1.0], [2.0, 0.0, 2.0, 1.0]]
    >>> len(wall_segments(Grid([[0, 0], [0, 0]], outside="solid")))  # the border
    4
    >>> from tilecast import TileMap, TileSet
    >>> corner = TileSet([[[1, 0], [0, 0]]])  # one solid pixel in a 2x2 tile
    >>> wall_segments(TileMap([[0]], corner, tile_size=2.0)).reshape(-1, 4).tolist()
    [[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]]
    """
    world = check_map(grid, mask)
    if isinstance(world, TileMap):
        world = world.to_pixel_grid()
    fill = world.outside == "solid"
    solid = np.pad(np.asarray(world.solid), 1, constant_values=fill)
    ox, oy = world.origin
    w, h = world.tile_size
    segments: list[tuple[float, float, float, float]] = []
    # Horizontal lines y = j (tile space): differ[j, i] where cells (i, j-1), (i, j) differ.
    differ = solid[1:, 1:-1] != solid[:-1, 1:-1]
    for j, i0, i1 in _runs(differ):
        y = oy + j * h
        segments.append((ox + i0 * w, y, ox + i1 * w, y))
    # Vertical lines x = i: differ[j, i] where cells (i-1, j), (i, j) differ.
    differ = (solid[1:-1, 1:] != solid[1:-1, :-1]).T
    for i, j0, j1 in _runs(differ):
        x = ox + i * w
        segments.append((x, oy + j0 * h, x, oy + j1 * h))
    return np.array(segments, dtype=np.float64).reshape(-1, 2, 2)


def _runs(mask: np.ndarray) -> list[tuple[int, int, int]]:
    """Maximal runs of True along each row: (row, start, stop)."""
    padded = np.pad(mask, ((0, 0), (1, 1)))
    change = np.diff(padded.astype(np.int8), axis=1)
    rows, starts = np.nonzero(change == 1)
    _, stops = np.nonzero(change == -1)
    return list(zip(rows.tolist(), starts.tolist(), stops.tolist(), strict=True))
