"""Many rays at once: ``raycast_many``, ``scan`` and ``scan_many``.

This module checks and shapes the input and hands the work to compiled
kernels: on a ``Grid`` the SIMD-lane batch kernel
(:mod:`tilecast._kernels.lanes`), elsewhere (tile maps, small batches) the
one walk ray by ray (:func:`tilecast._kernels.walk.cast_range`). Every ray
gets exactly the answer :func:`tilecast.raycast` gives (same cell, pixel,
``inside``, same float64 distance and point): the lane kernel hands every
ray that needs an exact decision to the one walk.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from tilecast import _engine
from tilecast._threads import (
    MIN_TASK,
    numba_parallel,
    run_shared,
    run_tasks,
    share_count,
    thread_count,
)
from tilecast._validate import (
    RANGE_DTYPES,
    as_angles,
    as_choice_index,
    as_direction,
    as_directions_array,
    as_finite_float,
    as_flag,
    as_host_array,
    as_mask,
    as_max_distance,
    as_max_distances,
    as_max_range,
    as_point,
    as_points_array,
    as_poses,
    as_range_dtype,
    as_real_array,
    as_shape_rows,
    as_stack_array,
    check_out,
)
from tilecast._walkmap import (
    CLEARANCE_CAP,
    clearance_map,
    stack_walk_map,
    tile_info_map,
    walk_map,
)
from tilecast._walkspec import (
    ALL_LAYERS,
    CORNERS_BOTH,
    DIAGONAL_GAPS,
    DONE,
    FOUND,
    Beams,
    FirstHits,
    MapStack,
    RayBatch,
    Shapes,
    WalkMap,
)
from tilecast.grid import Grid, check_map
from tilecast.results import Hit, Hits
from tilecast.spatial_hash import SpatialHash, as_bodies
from tilecast.stack import GridStack
from tilecast.tiles import TileMap

__all__ = [
    "CLEARANCE_CAP",
    "beam_directions",
    "clearance_map",
    "raycast_many",
    "scan",
    "scan_many",
    "tile_info_map",
]

# Batches up to this size are cast ray by ray on the calling thread: starting
# the parallel kernel costs more than the rays.
_SMALL_BATCH = 32
_cast_range: Any = None  # entry points of the walk's batch kernels, loaded on first use
_cast_single: Any = None


def _load_cast_range() -> Any:
    """Load the batch kernel that casts rays lo .. hi - 1 with the one walk."""
    global _cast_range
    _cast_range = _engine.walk_caller("cast_range", "CAST_RANGE_SIGNATURE")
    return _cast_range


def _load_cast_single() -> Any:
    """Load the kernel that casts one ray into one-row arrays."""
    global _cast_single
    _cast_single = _engine.walk_caller("cast_single", "CAST_SINGLE_SIGNATURE")
    return _cast_single


# where a small batch on a grid writes pixels nobody reads (rows < _SMALL_BATCH)
_NO_PIXELS = np.empty((_SMALL_BATCH, 2), dtype=np.int64)
# the inputs and outputs a batch or a scan does not use (never read or written)
_NO_POSES = np.empty((0, 3))
_NO_ANGLES = np.empty(0)
_NO_POINTS = np.empty((0, 2))
_NO_LIMITS = np.empty(0)
_NO_CELLS = np.empty((0, 2), dtype=np.int64)
_NO_INSIDE = np.empty(0, dtype=np.bool_)
_NO_STATUS = np.empty(0, dtype=np.uint8)
_NO_CIRCLES = np.empty((1, 0, 3))
_NO_CORNERS = np.empty((1, 0, 4, 2))
# the input of the other kind, for the lanes (one compiled signature for both kinds)
_NO_RAYS = RayBatch(_NO_POINTS, _NO_POINTS, 1, _NO_LIMITS, 0, False, ALL_LAYERS)
_NO_BEAMS = Beams(_NO_POSES, _NO_ANGLES, 0.0)


def _far_path(
    grid: Any, origins: NDArray[np.float64], origin_stride: int, directions: NDArray[np.float64],
    max_distances: NDArray[np.float64], gaps: int, ignore_start: bool, k: int,
    origin_name: str = "origins",
) -> Any:  # fmt: skip
    """Ray k of a batch on the exact far-range walk (numbers beyond the compiled range)."""
    o = origins[k // origin_stride]
    d = directions[0 if len(directions) == 1 else k]
    limit = max_distances[0 if len(max_distances) == 1 else k]
    start, direction = (float(o[0]), float(o[1])), (float(d[0]), float(d[1]))
    name = f"{origin_name}[{k // origin_stride}]"
    return _engine.far_first_hit(grid, start, direction, float(limit), gaps, ignore_start, name)


def _cast(
    grid: Any, view: WalkMap, is_tilemap: bool, origins: NDArray[np.float64], origin_stride: int,
    directions: NDArray[np.float64], max_distances: NDArray[np.float64], gaps: int,
    ignore_start: bool, n: int, origin_name: str = "origins",
) -> tuple[NDArray[Any], ...]:  # fmt: skip
    """Cast n rays; return (distance, point, normal, cell, inside, pixel) arrays."""
    distance = np.empty(n)
    point = np.empty((n, 2))
    normal = np.empty((n, 2))
    cell = np.empty((n, 2), dtype=np.int64)
    inside = np.empty(n, dtype=np.bool_)
    pixel = np.empty((n, 2) if is_tilemap else (0, 2), dtype=np.int64)
    status = np.empty(n, dtype=np.uint8)
    if n == 0:
        return distance, point, normal, cell, inside, pixel
    if is_tilemap or n <= _SMALL_BATCH:
        if not is_tilemap:
            pixel = _NO_PIXELS if n <= _SMALL_BATCH else np.empty((n, 2), dtype=np.int64)
        cast_range = _cast_range or _load_cast_range()
        # records of the kernel's signature (RayBatch, FirstHits of tilecast._kernels.walk)
        rays = (origins, directions, origin_stride, max_distances, gaps, ignore_start, ALL_LAYERS)
        out = (distance, point, normal, cell, inside, pixel, status)
        walk_at = _engine.walk_address
        if n <= _SMALL_BATCH:
            if not cast_range(0, n, view, rays, out, walk_at):
                return distance, point, normal, cell, inside, pixel
        else:
            run_tasks(lambda lo, hi: cast_range(lo, hi, view, rays, out, walk_at), n)
    else:
        lanes = _engine.kernels("lanes")

        counter = np.zeros(1, dtype=np.int64)  # the threads claim rays from it

        rays = RayBatch(origins, directions, origin_stride, max_distances, gaps, ignore_start,
                        ALL_LAYERS)  # fmt: skip
        maps = MapStack(view.info[None], n)  # one map
        out = FirstHits(distance, point, normal, cell, inside, _NO_CELLS, status)

        def task() -> None:
            lanes.cast_lanes(lanes.MANY, counter, n, view, maps, rays, _NO_BEAMS, out, True)

        run_shared(task, n)
    for k in np.flatnonzero(status != 0).tolist():  # rare: beyond the compiled range
        hit = _far_path(grid, origins, origin_stride, directions, max_distances, gaps,
                        ignore_start, k, origin_name)  # fmt: skip
        _store_hit(hit, k, distance, point, normal, cell, inside, pixel if is_tilemap else None)
    return distance, point, normal, cell, inside, pixel


def _store_hit(
    hit: Hit | None, k: int, distance: NDArray[np.float64], point: NDArray[np.float64],
    normal: NDArray[np.float64], cell: NDArray[np.int64], inside: NDArray[np.bool_],
    pixel: NDArray[np.int64] | None,
) -> None:  # fmt: skip
    """Write ``hit`` (None: a miss) as row ``k`` of a batch's outputs, as the kernels do."""
    distance[k] = math.inf if hit is None else hit.distance
    point[k] = (math.nan, math.nan) if hit is None else hit.point
    normal[k] = (0.0, 0.0) if hit is None else hit.normal
    cell[k] = (-1, -1) if hit is None else hit.cell
    inside[k] = 0 if hit is None else hit.inside
    if pixel is not None:
        pixel[k] = (-1, -1) if hit is None or hit.pixel is None else hit.pixel


class StackRays(NamedTuple):
    """A query's rays on a ``GridStack``.

    The maps the lanes walk (``maps``, whose
    ``per_map`` is the rays of each map), how many poses (or origins) each
    map has, and ``grid(b)``: map b as a ``Grid`` for the query's mask (for
    the rare rays the far-range walk decides).
    """

    maps: MapStack
    poses_per_map: int
    grid: Callable[[int], Any]


def _stack_rays(
    stack: GridStack, data: Any, first_map: int, end_map: int, rays_per_map: int,
    poses_per_map: int, mask: int,
) -> StackRays:  # fmt: skip
    """Return the :class:`StackRays` of maps ``first_map .. end_map - 1`` of ``stack``."""
    maps = MapStack(data.values[first_map:end_map], max(rays_per_map, 1))
    return StackRays(maps, poses_per_map, lambda b: stack.map_for(first_map + b, mask))


def _stack_limits(max_distance: Any, count: int, n: int) -> NDArray[np.float64]:
    """``max_distance`` of a stack's rays: a scalar, or one per ray (B, N), flat."""
    if isinstance(max_distance, int | float) or np.ndim(max_distance) == 0:
        return as_max_distances(max_distance, count * n)
    array = as_real_array("max_distance", max_distance)
    if array.shape != (count, n):
        raise ValueError(
            f"max_distance must be a scalar or have shape ({count}, {n}), got {array.shape}"
        )
    return as_max_distances(array.reshape(-1), count * n)


def _stack_scan(
    stack: GridStack, poses: Any, angles: Any, max_range: Any, mask: Any, out: Any, dtype: Any,
    circles: Any, boxes: Any,
) -> NDArray[np.floating[Any]]:  # fmt: skip
    """``scan_many`` on a stack: ranges (B, P, R), one compiled call for every map."""
    count = len(stack)
    pose_array = as_stack_array("poses", poses, count, 3)
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    mask_bits = as_mask(mask)
    n_poses, n_beams = pose_array.shape[1], len(angle_array)
    shapes = _shapes(circles, boxes, count, max(n_poses, 1))
    shape = (count, n_poses, n_beams)
    if out is None:
        result = np.empty(shape, as_range_dtype(dtype))
    else:
        result = check_out(out, shape, RANGE_DTYPES, (pose_array, angle_array))
    if result.size == 0:
        return result if out is None else out
    flat_poses = pose_array.reshape(-1, 3)
    flat = result.reshape(-1)
    direct = flat.dtype == np.float64

    def cast() -> None:
        data = stack.walk_maps(mask_bits)
        view = stack_walk_map(stack, data)
        rays = _stack_rays(stack, data, 0, count, n_poses * n_beams, n_poses, mask_bits)
        ranges = flat if direct else np.empty(flat.size)
        _scan_grid_rays(stack, view, flat_poses, 0, angle_array, limit, ranges, "poses", rays,
                        shapes)  # fmt: skip
        if not direct:
            _round_into(flat, ranges)

    stack.consistent(cast)
    return result if out is None else out


def _stack_raycast(
    stack: GridStack, origins: Any, directions: Any, max_distance: Any, gaps: int,
    ignore: bool, mask: Any, circles: Any = None, boxes: Any = None,
) -> Hits:  # fmt: skip
    """``raycast_many`` on a stack: origins and directions (B, N, 2), one ray per row."""
    count = len(stack)
    origin_array = as_stack_array("origins", origins, count, 2)
    direction_array = as_stack_array("directions", directions, count, 2)
    mask_bits = as_mask(mask)
    n_origins, n_directions = origin_array.shape[1], direction_array.shape[1]
    if n_origins != 1 and n_directions != 1 and n_origins != n_directions:
        raise ValueError(
            f"origins ({n_origins} per map) and directions ({n_directions} per map) must have "
            "the same number of rows, or one of them a single row per map"
        )
    n = n_directions if n_origins == 1 else n_origins
    # broadcast only when needed: np.broadcast_to's view is read-only, a type of its own
    # to Numba (the lane kernel compiled again for it)
    per_map = direction_array
    if per_map.shape[1] != n:  # one direction per map, shared by its rays
        per_map = np.broadcast_to(per_map, (count, n, 2))
    flat_directions = np.ascontiguousarray(per_map.reshape(-1, 2))
    if ((flat_directions[:, 0] == 0.0) & (flat_directions[:, 1] == 0.0)).any():
        as_directions_array(flat_directions)  # raises, naming the row
    limits = _stack_limits(max_distance, count, n)
    shapes = _shapes(circles, boxes, count, max(n, 1))
    stride = n if n_origins == 1 else 1
    flat_origins = origin_array.reshape(-1, 2)
    total = count * n
    distance, point = np.empty(total), np.empty((total, 2))
    normal, cell = np.empty((total, 2)), np.empty((total, 2), dtype=np.int64)
    inside, status = np.empty(total, dtype=np.bool_), np.zeros(total, dtype=np.uint8)

    def cast() -> None:
        if total == 0:
            return
        lanes = _engine.kernels("lanes")
        data = stack.walk_maps(mask_bits)
        view = stack_walk_map(stack, data)
        maps = MapStack(data.values, max(n, 1))
        counter = np.zeros(1, dtype=np.int64)
        rays = RayBatch(flat_origins, flat_directions, stride, limits, gaps, ignore, ALL_LAYERS)
        out = FirstHits(distance, point, normal, cell, inside, _NO_CELLS, status)

        def task() -> None:
            lanes.cast_lanes(lanes.MANY, counter, total, view, maps, rays, _NO_BEAMS, out, True)

        run_shared(task, total)
        for k in np.flatnonzero(status != 0).tolist():  # rare: beyond the compiled range
            b = k // n
            hit = _far_path(stack.map_for(b, mask_bits), flat_origins, stride, flat_directions,
                            limits, gaps, ignore, k, "origins")  # fmt: skip
            _store_hit(hit, k, distance, point, normal, cell, inside, None)

    stack.consistent(cast)
    body = None
    if shapes is not None:
        rays = RayBatch(flat_origins, flat_directions, stride, limits, gaps, ignore, ALL_LAYERS)
        walls = FirstHits(distance, point, normal, cell, inside, _NO_CELLS, _NO_STATUS)
        body = _clip_rays(rays, shapes, walls, stack_walk_map(stack, stack.walk_maps(mask_bits)),
                          total).reshape(count, n)  # fmt: skip
    return Hits(
        (distance < math.inf).reshape(count, n), distance.reshape(count, n),
        point.reshape(count, n, 2), normal.reshape(count, n, 2), cell.reshape(count, n, 2),
        inside.reshape(count, n), None, body,  # type: ignore[arg-type]
    )  # fmt: skip


# --------------------------------------------------------------- public API
def raycast_many(
    grid: Grid | TileMap | GridStack | np.ndarray,
    origins: Any,
    directions: Any,
    max_distance: Any = math.inf,
    *,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
    mask: int = ALL_LAYERS,
    bodies: SpatialHash | None = None,
    ignore: Any = None,
    circles: Any = None,
    boxes: Any = None,
) -> Hits:
    """Cast many rays at once (compiled, parallel over rays).

    Element for element identical to :func:`tilecast.raycast` on the same
    ray: same cell, same ``inside``, same float64 distance and point.

    Parameters
    ----------
    grid : Grid, TileMap, GridStack or 2D bool array
        The map. On a :class:`~tilecast.TileMap` rays stop on the first solid
        *pixel* (as on :meth:`~tilecast.TileMap.to_pixel_grid`): ``cell`` is
        the tile and ``Hits.pixel`` the pixel ``(px, py)`` inside it. On a
        :class:`~tilecast.GridStack` of B maps, ``origins`` and ``directions``
        are ``(B, N, 2)`` (or ``(B, 1, 2)``, one per map), ``max_distance`` a
        scalar or ``(B, N)``, and every array of the ``Hits`` has a leading
        axis of B: map b's rows are exactly ``raycast_many(stack[b], ...)``'s.
    origins : array_like, shape (N, 2), (1, 2) or (2,)
        Ray origins in world units; a single origin broadcasts.
    directions : array_like, shape (N, 2), (1, 2) or (2,)
        Directions (need not be unit length, never zero); a single one broadcasts.
    max_distance : float or array_like of shape (N,), default inf
        Inclusive range of each ray.
    diagonal_gaps : {"block_if_both", "block_if_either", "open"}
        As for :func:`tilecast.raycast`.
    ignore_start : bool, default False
        As for :func:`tilecast.raycast`.
    mask : int, default ALL_LAYERS
        The collision layers that stop the rays, as for :func:`tilecast.raycast`
        (on a ``GridStack``: a cell blocks when ``layers & mask != 0``).
    bodies : SpatialHash, optional
        Moving bodies, as for :func:`tilecast.raycast` (a cell wins a tie);
        ``Hits.body`` holds the id of the body hit (``-1`` for a cell or a
        miss), and a body's row has ``cell`` (and ``pixel``) ``-1``. Not on
        a ``GridStack``.
    ignore : int or iterable of int, optional
        Ids of bodies left out.
    circles : array_like, shape (K, 3), optional
        Moving round things ``(x, y, r)`` as for :func:`scan_many` (on a
        ``GridStack`` ``(B, K, 3)``, each map's own; rows of NaN are free
        slots): a ray stops at the first of cell, circle or box, decided
        exactly (a tie goes to the cell; between shapes, to the lower row,
        circles before boxes). A shape's row has ``cell`` ``(-1, -1)``, the
        shape's outward normal and ``Hits.body`` the shape's row: circle
        ``q`` is ``q``, box ``q`` is ``K + q``. A ray starting inside or on
        a shape hits it at distance 0 with ``inside=True`` (``ignore_start``
        is about cells); a shape met first beyond ``max_distance`` leaves
        the ray a miss. Only on a ``Grid`` or ``GridStack``, not with ``bodies``.
    boxes : array_like, shape (K, 5), optional
        Oriented boxes ``(cx, cy, half_w, half_h, angle)`` as for
        :func:`scan_many` (on a ``GridStack`` ``(B, K, 5)``).

    Returns
    -------
    Hits
        Arrays ``hit``, ``distance``, ``point``, ``normal``, ``cell``, ``inside``,
        ``body``; on a ``TileMap`` also ``pixel`` (``-1`` on a miss).

    Notes
    -----
    The first call on a grid builds its clearance map (one pass over the map,
    one byte per cell); ``grid.set_solid`` keeps it current. On a tile map the
    same kind of map is built per tile (:func:`tile_info_map`): rays jump over
    squares of tiles without solid pixels, stop at once in fully solid tiles
    and walk pixels only inside mixed tiles; ``tilemap.set_tile`` keeps it
    current. Small batches (up to a few dozen rays) are cast ray by ray on
    the calling thread; larger ones in parallel. The first call in a new
    Python process loads the compiled kernel from Numba's cache (or compiles
    it once after installation; see ``tilecast.warmup``).

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid, raycast_many
    >>> grid = Grid([[0, 0, 0], [0, 0, 0], [1, 1, 1]])
    >>> angles = np.radians([0.0, 90.0, 135.0])
    >>> hits = raycast_many(grid, (1.5, 0.5), np.column_stack([np.cos(angles), np.sin(angles)]))
    >>> hits.hit.tolist(), hits.cell[1].tolist(), round(float(hits.distance[1]), 6)
    ([False, True, True], [1, 2], 1.5)

    On a tile map, to the pixel:

    >>> from tilecast import TileMap, TileSet
    >>> slope = np.tril(np.ones((4, 4), dtype=bool))  # solid at and below the diagonal
    >>> tmap = TileMap([[-1, 0, 0]], TileSet([slope]), flips=[[0, 0, 1]])
    >>> hits = raycast_many(tmap, (0.5, 2.5), [(1.0, 0.0), (0.0, -1.0)])
    >>> hits.cell.tolist(), hits.pixel.tolist(), hits.point[0].tolist()
    ([[1, 0], [-1, -1]], [[0, 2], [-1, -1]], [4.0, 2.5])

    Among moving circles (the second ray meets circle 0 before the wall):

    >>> hits = raycast_many(grid, (1.5, 0.5), [(1.0, 0.0), (0.0, 1.0)],
    ...                     circles=[(1.5, 1.5, 0.5)])
    >>> hits.distance.tolist(), hits.body.tolist(), hits.cell[1].tolist()
    ([inf, 0.5], [-1, 0], [-1, -1])
    """
    if type(grid) is GridStack:
        if bodies is not None:
            raise TypeError("bodies: a SpatialHash goes with one map; on a GridStack give "
                            "circles= and boxes= per map")  # fmt: skip
        gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
        ignore = as_flag("ignore_start", ignore_start)
        return _stack_raycast(grid, origins, directions, max_distance, gaps, ignore, mask,
                              circles, boxes)  # fmt: skip
    # a raw array is wrapped once, here (a Grid or TileMap passes as it is)
    world: Any = grid if mask is ALL_LAYERS else check_map(grid, mask)
    if type(world) is not Grid and type(world) is not TileMap:
        world = check_map(world)
    view, is_tilemap = walk_map(world)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    start_free = as_flag("ignore_start", ignore_start)
    origin = _single_pair("origins", origins)
    direction = _single_pair("directions", directions) if origin is not None else None
    if bodies is not None:
        hash_ = as_bodies(bodies)
        origin = None  # the general path: the bodies' pass takes arrays
    if circles is not None or boxes is not None:
        _shapes_allowed(world, bodies)
        origin = None  # the general path: the shapes' pass takes arrays
    if origin is not None and direction is not None and type(max_distance) in _PLAIN:
        # one ray: no input arrays (see _one_ray)
        x0, y0 = origin
        dx, dy = direction
        if dx == 0.0 and dy == 0.0:
            as_direction("directions", direction)  # raises
        limit = as_max_distance(max_distance)
        return _one_ray(world, view, is_tilemap, x0, y0, dx, dy, limit, gaps, start_free)
    origin_array = as_points_array("origins", origins)
    direction_array = as_directions_array(directions)
    n_origins, n_directions = len(origin_array), len(direction_array)
    if n_origins != 1 and n_directions != 1 and n_origins != n_directions:
        raise ValueError(
            f"origins ({n_origins}) and directions ({n_directions}) must have the same "
            "number of rows, or one of them a single row"
        )
    n = n_directions if n_origins == 1 else n_origins
    max_distances = as_max_distances(max_distance, n)
    stride = max(n, 1) if n_origins == 1 else 1
    shapes = _shapes(circles, boxes, None, max(n, 1))

    def cast() -> tuple[NDArray[Any], ...]:
        view, is_tilemap = walk_map(world)
        return _cast(world, view, is_tilemap, origin_array, stride, direction_array,
                     max_distances, gaps, start_free, n)  # fmt: skip

    distance, point, normal, cell, inside, pixel = world.consistent(cast)
    pixels = pixel if is_tilemap else None
    if shapes is not None:
        rays = RayBatch(origin_array, direction_array, stride, max_distances, gaps, start_free,
                        ALL_LAYERS)  # fmt: skip
        walls = FirstHits(distance, point, normal, cell, inside, _NO_CELLS, _NO_STATUS)
        body = _clip_rays(rays, shapes, walls, view, n)
        return Hits(distance < math.inf, distance, point, normal, cell, inside, None, body)
    if bodies is None:
        return Hits(distance < math.inf, distance, point, normal, cell, inside, pixels)
    body = _engine.bodies_many(hash_, view, (origin_array, stride, direction_array, max_distances),
                               (distance, point, normal, cell, inside, pixels), int(mask),
                               ignore)  # fmt: skip
    return Hits(distance < math.inf, distance, point, normal, cell, inside, pixels, body)


def _shapes_allowed(world: Any, bodies: Any) -> None:
    """Raise unless ``circles=`` and ``boxes=`` may go with this map and ``bodies``."""
    if isinstance(world, TileMap):
        raise TypeError("circles and boxes need a Grid or a GridStack, not a TileMap")
    if bodies is not None:
        raise ValueError(
            "bodies: give the moving things as a SpatialHash (bodies=) or as arrays "
            "(circles=, boxes=), not both in one call"
        )


def _clip_rays(
    rays: RayBatch, shapes: Shapes, walls: FirstHits, view: WalkMap, n: int
) -> NDArray[np.int64]:
    """Stop the ``n`` cast rays at their first shape where it comes first; return ``body``.

    :func:`tilecast._kernels.obstacles.clip_rays` over the batch, in parallel
    (``walls``: the walk's outputs, overwritten in place).
    """
    body = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return body
    clip_rays = _engine.kernels("obstacles").clip_rays
    size = max(-(-n // thread_count()), 256)  # each ray tests every shape: threads pay sooner
    run_tasks(lambda lo, hi: clip_rays(lo, hi, rays, shapes, walls, view, body), n, size)
    return body


def _single_pair(name: str, value: Any) -> tuple[float, float] | None:
    """Return the one point of ``value``, checked, if it is one pair; else None (the general path).

    One pair: ``(x, y)`` or ``[(x, y)]`` of plain numbers (lists too), or a
    NumPy array of shape ``(2,)`` or ``(1, 2)``. Checked as :func:`as_point`
    checks a point: a bad one raises naming ``name``.
    """
    kind = type(value)
    if kind is tuple or kind is list:
        if len(value) == 1:
            value = value[0]
            kind = type(value)
            if kind is not tuple and kind is not list:
                return None
        if len(value) != 2:
            return None
        x, y = value
        # the common case, fast: x - x == 0 is False for inf and NaN
        if type(x) is float and type(y) is float and x - x == 0.0 and y - y == 0.0:
            return value if kind is tuple else (x, y)
        return as_point(name, value) if type(x) in _PLAIN else None
    if kind is np.ndarray and value.size == 2 and value.shape[-1] == 2 and value.ndim <= 2:
        return as_point(name, value.reshape(2).tolist()) if value.dtype.kind in "fiu" else None
    return None


_PLAIN = (float, int)


def _one_ray(
    world: Any, view: WalkMap, is_tilemap: bool, x0: float, y0: float, dx: float, dy: float,
    limit: float, gaps: int, ignore: bool,
) -> Hits:  # fmt: skip
    """``Hits`` of one checked ray: one compiled call fills the seven one-row arrays.

    Empty arrays of prepared shapes and dtypes are the cheapest NumPy makes
    (about 0.1 us each); the kernel writes them, so no value goes through
    Python.
    """
    hit = _empty(_ONE, _BOOL)
    distance = _empty(_ONE, _FLOAT)
    point = _empty(_ONE_PAIR, _FLOAT)
    normal = _empty(_ONE_PAIR, _FLOAT)
    cell = _empty(_ONE_PAIR, _INT)
    inside = _empty(_ONE, _BOOL)
    pixel = _empty(_ONE_PAIR, _INT) if is_tilemap else _NO_PIXELS
    cast_single = _cast_single or _load_cast_single()
    ray = (x0, y0, dx, dy, limit, gaps, CORNERS_BOTH, ignore, ALL_LAYERS)  # a Ray's fields
    status = cast_single(view, ray, hit, distance, point, normal, cell, inside, pixel,
                         _engine.walk_address)  # fmt: skip
    if status != FOUND and status != DONE:  # rare: beyond the compiled range
        far = _engine.first_hit(world, view, is_tilemap, x0, y0, dx, dy, limit, gaps, ignore,
                                "origins")  # fmt: skip
        _store_hit(far, 0, distance, point, normal, cell, inside, pixel if is_tilemap else None)
        hit[0] = far is not None
    return Hits(hit, distance, point, normal, cell, inside, pixel if is_tilemap else None)


_empty = np.empty
_ONE, _ONE_PAIR = (1,), (1, 2)
_BOOL, _FLOAT, _INT = np.dtype(np.bool_), np.dtype(np.float64), np.dtype(np.int64)


def scan_many(
    grid: Grid | TileMap | GridStack | np.ndarray,
    poses: Any,
    angles: Any,
    max_range: float,
    *,
    out: Any = None,
    dtype: Any = np.float64,
    mask: int = ALL_LAYERS,
    bodies: SpatialHash | None = None,
    ignore: Any = None,
    circles: Any = None,
    boxes: Any = None,
) -> NDArray[np.floating[Any]]:
    """Lidar-style ranges for many poses (particle filters), shape (P, B).

    Parameters
    ----------
    grid : Grid, TileMap, GridStack or 2D bool array
        The map (robotics maps usually want ``outside="solid"``); on a
        ``TileMap`` beams stop on the first solid pixel. On a
        :class:`~tilecast.GridStack` of B maps ``poses`` is ``(B, P, 3)`` (P
        poses on each map) and the ranges ``(B, P, R)``: one compiled call
        for every map, ``result[b]`` exactly ``scan_many(stack[b], poses[b], ...)``.
    poses : array_like, shape (P, 3)
        ``(x, y, theta)`` per pose, in world units and radians.
    angles : array_like, shape (B,)
        Beam angles relative to each pose's ``theta``.
    max_range : float
        Range reported where nothing is hit (the robotics convention); may
        be ``inf`` (a beam that hits nothing then reports ``inf``).
    out : ndarray of float32 or float64, shape (P, B), optional
        A C-contiguous, writable array to fill and return instead of a new
        one (no allocation per call in a filter's loop).
    dtype : float32 or float64, default float64
        The type of the new array when ``out`` is None (``out`` sets its own).
    mask : int, default ALL_LAYERS
        The collision layers the beams see, as for :func:`tilecast.raycast`
        (on a ROS map, ``mask=1`` reads unknown cells as free; on a ``GridStack``
        a cell blocks when ``layers & mask != 0``).
    bodies : SpatialHash, optional
        Moving bodies the beams stop on too (the first contact among cells
        and bodies, as :func:`tilecast.raycast` decides it; a beam starting
        inside a body reads 0). Not on a ``GridStack``, nor with ``circles``
        or ``boxes`` (give the moving things one way).
    ignore : int or iterable of int, optional
        Ids of bodies left out (the robot's own body).
    circles : array_like, shape (K, 3), optional
        Moving round things ``(x, y, r)`` in world units (on a stack
        ``(B, K, 3)``, each map's own): a beam stops at the first of wall,
        circle or box, decided exactly (a tie goes to the wall). A beam
        starting inside a shape reads 0; shapes count outside the map too.
        A row of NaN is no shape (free slots in a fixed-size array).
    boxes : array_like, shape (K, 5), optional
        Oriented boxes ``(cx, cy, half_w, half_h, angle)`` (on a stack
        ``(B, K, 5)``): corners ``c + R(angle) (+-half_w, +-half_h)``,
        ``angle`` in radians, counter-clockwise in the world's x-y axes;
        the corners are computed once in float64 and every decision is exact
        on them. As ``circles`` otherwise. Only on a ``Grid`` or ``GridStack``.

    Returns
    -------
    ndarray, shape (P, B)
        ``out`` if given. float32 ranges are the exact float64 ranges rounded
        once (to nearest).

    Notes
    -----
    Each beam is an exact :func:`raycast` along
    :func:`tilecast.batch.beam_directions` (sine and cosine from tilecast's
    own polynomial, within 2 ulps of libm's and much faster).

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid, scan_many
    >>> grid = Grid(np.zeros((4, 4), bool), outside="solid")
    >>> scan_many(grid, [(1.5, 1.5, 0.0), (0.5, 0.5, np.pi)], [0.0], 10.0).tolist()
    [[2.5], [0.5]]

    Into a float32 buffer, and with no range limit:

    >>> ranges = np.empty((2, 1), np.float32)
    >>> scan_many(grid, [(1.5, 1.5, 0.0), (0.5, 0.5, np.pi)], [0.0], 10.0, out=ranges) is ranges
    True
    >>> scan_many(Grid(np.zeros((4, 4), bool)), [(1.5, 1.5, 0.0)], [0.0], np.inf).tolist()
    [[inf]]
    """
    if type(grid) is GridStack:
        if bodies is not None:
            raise TypeError("bodies: a SpatialHash goes with one map; on a GridStack give "
                            "circles= and boxes= per map")  # fmt: skip
        return _stack_scan(grid, poses, angles, max_range, mask, out, dtype, circles, boxes)
    return _scan_many(grid, poses, angles, max_range, "poses", out, dtype, mask, bodies, ignore,
                      circles=circles, boxes=boxes)  # fmt: skip


def _scan_many(
    grid: Any, poses: Any, angles: Any, max_range: Any, pose_name: str, out: Any = None,
    dtype: Any = np.float64, mask: Any = ALL_LAYERS, bodies: Any = None, ignore: Any = None,
    body_mask: int | None = None, circles: Any = None, boxes: Any = None,
) -> NDArray[np.floating[Any]]:  # fmt: skip
    """``scan_many``; a ray whose numbers overflow names ``pose_name`` (row k).

    ``mask`` filters the map; ``body_mask`` (default ``mask``) the bodies.
    """
    world = check_map(grid, mask)
    pose_array = as_poses(poses)
    angle_array = as_angles(angles)
    max_range = as_max_range(max_range)
    n_poses, n_beams = len(pose_array), len(angle_array)
    shapes = _shapes(circles, boxes, None, max(n_poses, 1))
    if shapes is not None:
        _shapes_allowed(world, bodies)
    shape = (n_poses, n_beams)
    if out is None:
        result = np.empty(shape, as_range_dtype(dtype))
    else:
        result = check_out(out, shape, RANGE_DTYPES, (pose_array, angle_array))
    if result.size == 0:
        return result if out is None else out
    flat = result.reshape(-1)  # a view: result is C-contiguous
    direct = flat.dtype == np.float64  # else float64 scratch, rounded once into flat
    if bodies is not None:
        hash_ = as_bodies(bodies)

        def cast_with_bodies() -> None:
            ranges = _scan_with_bodies(world, pose_array, angle_array, max_range, pose_name,
                                       hash_, (int(mask if body_mask is None else body_mask),
                                               ignore))  # fmt: skip
            _round_into(flat, ranges)

        world.consistent(cast_with_bodies)
        return result

    def cast() -> None:
        view, is_tilemap = walk_map(world)
        if is_tilemap:
            ranges = flat if direct else np.empty(flat.size)
            _scan_tile_rays(world, view, pose_array, 0, angle_array, max_range, ranges, pose_name)
            if not direct:
                _round_into(flat, ranges)
            return

        ranges = flat if direct else np.empty(flat.size)
        _scan_grid_rays(world, view, pose_array, 0, angle_array, max_range, ranges, pose_name,
                        None, shapes)  # fmt: skip
        if not direct:
            _round_into(flat, ranges)

    world.consistent(cast)
    return result if out is None else out


def _shapes(circles: Any, boxes: Any, count: int | None, poses_per_map: int) -> Shapes | None:
    """Return the :class:`Shapes` of ``circles=`` and ``boxes=`` (checked), or None without any.

    ``count`` None: one map (rows ``(K, 3)``, ``(K, 5)``); else a stack's B
    (``(B, K, 3)``, ``(B, K, 5)``). A box's corners ``c + R(angle) (+-hw, +-hh)``
    are computed here, once, in float64; every decision is exact on them.
    """
    if circles is None and boxes is None:
        return None
    circle_rows = _NO_CIRCLES  # no shape on any map (the kernels read K = 0)
    if circles is not None:
        circle_rows = as_shape_rows("circles", circles, count, 3)
    corners = _NO_CORNERS
    if boxes is not None:
        rows = as_shape_rows("boxes", boxes, count, 5)
        cx, cy, hw, hh, angle = (rows[..., q] for q in range(5))
        cosine, sine = np.cos(angle), np.sin(angle)
        corners = np.empty((*rows.shape[:-1], 4, 2))
        for q, (sx, sy) in enumerate(((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))):
            ux, uy = sx * hw, sy * hh  # counter-clockwise in the world's x-y axes
            corners[..., q, 0] = cx + (cosine * ux - sine * uy)
            corners[..., q, 1] = cy + (sine * ux + cosine * uy)
    return Shapes(circle_rows, corners, poses_per_map)


def _scan_with_bodies(
    world: Any, poses: NDArray[np.float64], angles: NDArray[np.float64], max_range: float,
    pose_name: str, bodies: SpatialHash, which: tuple[int, Any],
) -> NDArray[np.float64]:  # fmt: skip
    """Return the ranges of a scan among bodies: beams cast as :func:`raycast_many` rays.

    The beams are :func:`beam_directions` (so the cells' answers are the
    scan's, bit for bit); ``max_range`` where nothing is hit; ``which``: ``(mask, ignore)``.
    """
    view, is_tilemap = walk_map(world)
    n_beams = len(angles)
    n = len(poses) * n_beams
    directions = beam_directions(poses, angles)
    origins = np.ascontiguousarray(poses[:, :2])
    limits = np.array([max_range])
    hits = _cast(world, view, is_tilemap, origins, n_beams, directions, limits, 0, False, n,
                 pose_name)  # fmt: skip
    distance, point, normal, cell, inside, pixel = hits
    mask, ignore = which
    _engine.bodies_many(bodies, view, (origins, n_beams, directions, limits),
                        (distance, point, normal, cell, inside, pixel if is_tilemap else None),
                        mask, ignore)  # fmt: skip
    ranges: NDArray[np.float64] = np.minimum(distance, max_range)
    return ranges


def _round_into(target: NDArray[np.floating[Any]], ranges: NDArray[np.float64]) -> None:
    """Store float64 ranges into a float32 array, each rounded once (beyond 3.4e38: inf)."""
    with np.errstate(over="ignore"):
        target[...] = ranges


def _scan_grid_rays(
    world: Any, view: WalkMap, poses: NDArray[np.float64], first_pose: int,
    angles: NDArray[np.float64], max_range: float, distance: NDArray[np.float64], pose_name: str,
    stack: StackRays | None = None, shapes: Shapes | None = None,
) -> None:  # fmt: skip
    """Cast every beam of ``poses`` on a grid into ``distance`` (P * B,), in parallel.

    Ray k is beam ``k % B`` of ``poses[k // B]``; ``poses`` may be a slice of
    the caller's poses starting at row ``first_pose`` (error messages name
    that row). Exact ranges, ``max_range`` where nothing is hit. The threads
    share the rays (:func:`tilecast._threads.run_shared`: the calling thread
    alone could cast them all, so a busy pool only makes it slower). On a
    stack (``stack``: its maps, ``view`` its map 0's) pose ``p`` is on map
    ``p // stack.poses_per_map``, and ``world`` is the ``GridStack``. With
    ``shapes`` (circles and boxes, :func:`_shapes`) each beam then stops at
    the first of wall and shape (:func:`tilecast._kernels.obstacles.clip_beams`).
    """
    lanes = _engine.kernels("lanes")

    n_beams, n = len(angles), len(distance)
    status = np.zeros(n, dtype=np.uint8)
    counter = np.zeros(1, dtype=np.int64)  # the threads claim rays from it

    beams = Beams(poses, angles, max_range)
    maps = MapStack(view.info[None], n) if stack is None else stack.maps
    full = shapes is not None  # the walls' cells and normals too, for the exact comparison
    if full:
        out = FirstHits(distance, np.empty((n, 2)), np.empty((n, 2)),
                        np.empty((n, 2), dtype=np.int64), np.empty(n, dtype=np.bool_), _NO_CELLS,
                        status)  # fmt: skip
    else:
        out = FirstHits(distance, _NO_POINTS, _NO_POINTS, _NO_CELLS, _NO_INSIDE, _NO_CELLS, status)

    def task() -> None:
        lanes.cast_lanes(lanes.SCAN, counter, n, view, maps, _NO_RAYS, beams, out, full)

    run_shared(task, n)
    for k in np.flatnonzero(status).tolist():  # rare: beyond the compiled range
        pose = poses[k // n_beams]
        direction = beam_directions(pose[None], angles[k % n_beams : k % n_beams + 1])[0]
        start, beam = (float(pose[0]), float(pose[1])), (float(direction[0]), float(direction[1]))
        grid, name = world, f"{pose_name}[{first_pose + k // n_beams}]"
        if stack is not None:
            b, p = divmod(first_pose + k // n_beams, stack.poses_per_map)
            grid, name = stack.grid(b), f"{pose_name}[{b}, {p}]"
        hit = _engine.far_first_hit(grid, start, beam, max_range, 0, False, name)
        distance[k] = math.inf if hit is None else hit.distance
        if full:
            _store_hit(hit, k, distance, out.point, out.normal, out.cell, out.inside, None)
    # a miss is +inf; every hit lies within max_range
    np.minimum(distance, max_range, out=distance)
    if shapes is not None:
        clip_beams = _engine.kernels("obstacles").clip_beams
        numbers = np.array((max_range, view.origin_x, view.origin_y, view.cell_width,
                            view.cell_height))  # fmt: skip
        circles, corners, per_map = shapes
        distance, normal, cell, inside = out.distance, out.normal, out.cell, out.inside

        def clip(lo: int, hi: int) -> None:
            clip_beams(lo, hi, poses, angles, numbers, circles, corners, per_map, distance,
                       normal, cell, inside)  # fmt: skip

        if n < 2 * MIN_TASK:  # few beams: on this thread, no pool round trip
            clip(0, n)
        else:
            run_tasks(clip, n, -(-n // share_count(n)))


_POSE_ROW = re.compile(r"^(\w+)\[(\d+)\]")


def _scan_tile_rays(
    world: Any, view: WalkMap, poses: NDArray[np.float64], first_pose: int,
    angles: NDArray[np.float64], max_range: float, distance: NDArray[np.float64], pose_name: str,
) -> None:  # fmt: skip
    """Cast every beam of ``poses`` on a tile map into ``distance`` (P * B,).

    As :func:`_scan_grid_rays` does on a grid. Runs on the calling thread,
    which must not be a pool thread: the cast itself runs in parallel.
    """
    n_beams = len(angles)
    directions = beam_directions(poses, angles)
    origins = np.ascontiguousarray(poses[:, :2])
    try:
        ranges = _cast(world, view, True, origins, n_beams, directions, np.array([max_range]), 0,
                       False, len(distance), pose_name)[0]  # fmt: skip
    except ValueError as exc:  # name the row among the caller's poses, not the slice's
        message = str(exc)
        match = _POSE_ROW.match(message)
        if first_pose == 0 or match is None or match[1] != pose_name:
            raise
        row = first_pose + int(match[2])
        raise ValueError(f"{pose_name}[{row}]{message[match.end() :]}") from None
    np.minimum(ranges, max_range, out=distance)


#: Most rays ``scan_in_chunks`` casts before evaluating them (a 2 MiB buffer).
CHUNK_RAYS = 1 << 18


def scan_in_chunks(
    world: Any, poses: NDArray[np.float64], angles: NDArray[np.float64], max_range: float,
    pose_name: str, evaluate: Callable[[int, int, NDArray[np.float64]], None],
    shapes: Shapes | None = None,
) -> None:  # fmt: skip
    """Cast the scans of ``poses`` a chunk of poses at a time, never all at once.

    For each chunk of poses ``first .. end - 1`` (all of a pose's beams in one
    chunk, at most about ``CHUNK_RAYS`` rays), the chunk's rays are cast in
    parallel into a scratch buffer that the next chunk reuses, exactly as
    :func:`scan_many` casts them; then ``evaluate(first, end, ranges)`` gets
    slices of it, flat ``((end - first) * B,)``, also in parallel on the pool
    (``evaluate`` must be thread-safe: the slices are disjoint). The whole
    cast sees one state of the map (``World.consistent``). ``shapes``: one
    map's circles and boxes (:func:`_shapes`), on a grid.
    """
    n_poses, n_beams = len(poses), len(angles)
    if n_poses * n_beams == 0:
        return
    step = max(1, CHUNK_RAYS // n_beams)  # poses per chunk
    scratch = np.empty(min(step, n_poses) * n_beams)

    def cast() -> None:
        view, is_tilemap = walk_map(world)
        for first in range(0, n_poses, step):
            end = min(first + step, n_poses)
            ranges = scratch[: (end - first) * n_beams]
            chunk = poses[first:end]
            if is_tilemap:
                _scan_tile_rays(world, view, chunk, first, angles, max_range, ranges, pose_name)
            else:
                _scan_grid_rays(world, view, chunk, first, angles, max_range, ranges, pose_name,
                                None, shapes)  # fmt: skip

            def part(lo: int, hi: int, first: int = first, ranges: Any = ranges) -> None:
                evaluate(first + lo, first + hi, ranges[lo * n_beams : hi * n_beams])

            # one part per thread (each beam costs about the same), whole poses
            run_tasks(part, end - first, -(-(end - first) // share_count(len(ranges))))

    world.consistent(cast)


def stack_scan_in_chunks(
    stack: GridStack, poses: NDArray[np.float64], angles: NDArray[np.float64], max_range: float,
    mask: int, evaluate: Callable[[int, int, int, NDArray[np.float64]], None],
    shapes: Shapes | None = None,
) -> None:  # fmt: skip
    """:func:`scan_in_chunks` on a stack: poses ``(B, P, 3)``, a chunk of whole maps at a time.

    Each chunk (whole maps, or part of one map's poses when one map's scans
    exceed ``CHUNK_RAYS``) is cast in one compiled call into a reused
    buffer; then ``evaluate(b, first, end, ranges)`` gets map ``b``'s poses
    ``first .. end - 1``, flat ``((end - first) * R,)``, in parallel.
    ``shapes``: each map's circles and boxes (:func:`_shapes` of the stack).
    """
    count, n_poses, _ = poses.shape
    n_beams = len(angles)
    if count * n_poses * n_beams == 0:
        return
    per_map = n_poses * n_beams
    maps_step = max(1, CHUNK_RAYS // per_map)  # whole maps per chunk
    # one map's poses in parts when its scans alone exceed CHUNK_RAYS
    poses_step = n_poses if per_map <= CHUNK_RAYS else max(1, CHUNK_RAYS // n_beams)
    scratch = np.empty(min(maps_step, count) * poses_step * n_beams)
    flat_poses = poses.reshape(-1, 3)
    chunks = [
        (b, min(b + maps_step, count), p, min(p + poses_step, n_poses))
        for b in range(0, count, maps_step)
        for p in range(0, n_poses, poses_step)
    ]

    def cast() -> None:
        data = stack.walk_maps(mask)
        view = stack_walk_map(stack, data)
        for b0, b1, p0, p1 in chunks:
            rays_per_map = (p1 - p0) * n_beams
            ranges = scratch[: (b1 - b0) * rays_per_map]
            chunk = flat_poses[b0 * n_poses + p0 : (b1 - 1) * n_poses + p1]
            rays = _stack_rays(stack, data, b0, b1, rays_per_map, p1 - p0, mask)
            part_shapes = None
            if shapes is not None:  # the chunk's maps, p1 - p0 poses on each
                part_shapes = Shapes(shapes.circles[b0:b1], shapes.corners[b0:b1], p1 - p0)
            _scan_grid_rays(stack, view, chunk, 0, angles, max_range, ranges, "poses", rays,
                            part_shapes)  # fmt: skip

            def part(lo: int, hi: int, b0: int = b0, p0: int = p0, p1: int = p1,
                     ranges: Any = ranges) -> None:  # fmt: skip
                for b in range(b0 + lo, b0 + hi):
                    size = (p1 - p0) * n_beams
                    start = (b - b0) * size
                    evaluate(b, p0, p1, ranges[start : start + size])

            run_tasks(part, b1 - b0, -(-(b1 - b0) // share_count(len(ranges))))

    stack.consistent(cast)


def beam_directions(poses: Any, angles: Any) -> NDArray[np.float64]:
    """Return the beam directions ``(cos(theta + a), sin(theta + a))`` of the scans, (P * B, 2).

    The scans compute sine and cosine with tilecast's own polynomial (within
    2 units in the last place of libm's, four times faster); cast these
    directions with :func:`raycast` or :func:`raycast_many` to reproduce a
    scan bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast.batch import beam_directions
    >>> beam_directions([(0.0, 0.0, np.pi / 2)], [0.0, np.pi / 2]).round(12).tolist()
    [[0.0, 1.0], [-1.0, 0.0]]
    """
    pose_array, angle_array = as_poses(poses), as_angles(angles)
    with numba_parallel():
        directions: NDArray[np.float64] = _engine.kernels("beams").scan_directions(
            pose_array, angle_array
        )
    return directions


def scan(
    grid: Grid | TileMap | np.ndarray,
    pose: Any,
    angles: Any,
    max_range: float,
    *,
    out: Any = None,
    dtype: Any = np.float64,
    mask: int = ALL_LAYERS,
    bodies: SpatialHash | None = None,
    ignore: Any = None,
    circles: Any = None,
    boxes: Any = None,
) -> NDArray[np.floating[Any]]:
    """Lidar-style ranges for one pose ``(x, y, theta)``, shape (B,); see :func:`scan_many`.

    ``out`` (a float32 or float64 array of shape (B,)), ``dtype``, ``mask``,
    ``max_range=inf``, ``bodies``, ``ignore``, ``circles`` and ``boxes`` work as for
    :func:`scan_many`.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid, scan
    >>> grid = Grid(np.zeros((3, 3), bool), outside="solid")
    >>> scan(grid, (1.5, 1.5, np.pi / 2), [0.0, np.pi / 2], 5.0).tolist()
    [1.5, 1.5]
    >>> scan(grid, (1.5, 1.5, 0.0), [0.0], 5.0, dtype=np.float32).dtype
    dtype('float32')
    """
    world = check_map(grid, mask)
    if type(pose) is not tuple and type(pose) is not list and type(pose) is not np.ndarray:
        if hasattr(pose, "__dlpack__") or hasattr(pose, "__array_interface__"):
            pose = as_host_array("pose", pose)
    if isinstance(pose, str | bytes) or not hasattr(pose, "__len__") or len(pose) != 3:
        raise ValueError("pose must be (x, y, theta)")
    x = as_finite_float("pose[0]", pose[0])
    y = as_finite_float("pose[1]", pose[1])
    theta = as_finite_float("pose[2]", pose[2])
    one_pose = np.array(((x, y, theta),))  # checked: as_poses passes it at once
    if out is None:
        ranges: NDArray[np.floating[Any]] = _scan_many(
            world, one_pose, angles, max_range, "pose", None, dtype, ALL_LAYERS, bodies,
            ignore, mask, circles=circles, boxes=boxes,
        )[0]  # fmt: skip
        return ranges
    angle_array = as_angles(angles)
    n_beams = len(angle_array)
    array = check_out(out, (n_beams,), RANGE_DTYPES, (angle_array,))
    _scan_many(world, one_pose, angle_array, max_range, "pose", array.reshape(1, n_beams),
               np.float64, ALL_LAYERS, bodies, ignore, mask, circles=circles,
               boxes=boxes)  # fmt: skip
    return out  # type: ignore[no-any-return]
