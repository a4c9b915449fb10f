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
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast import _engine
from tilecast._threads import numba_parallel, run_shared, run_tasks, share_count
from tilecast._validate import (
    RANGE_DTYPES,
    as_angles,
    as_choice_index,
    as_direction,
    as_directions_array,
    as_finite_float,
    as_flag,
    as_max_distance,
    as_max_distances,
    as_max_range,
    as_point,
    as_points_array,
    as_poses,
    as_range_dtype,
    check_out,
)
from tilecast._walkmap import CLEARANCE_CAP, clearance_map, tile_info_map, walk_map
from tilecast._walkspec import (
    ALL_LAYERS,
    CORNERS_BOTH,
    DIAGONAL_GAPS,
    DONE,
    FOUND,
    Beams,
    FirstHits,
    RayBatch,
    WalkMap,
)
from tilecast.grid import Grid, check_map
from tilecast.results import Hit, Hits
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
        out = FirstHits(distance, point, normal, cell, inside, _NO_CELLS, status)

        def task() -> None:
            lanes.cast_lanes(lanes.MANY, counter, n, view, rays, _NO_BEAMS, out, True)

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


# --------------------------------------------------------------- public API
def raycast_many(
    grid: Grid | TileMap | np.ndarray,
    origins: Any,
    directions: Any,
    max_distance: Any = math.inf,
    *,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
    mask: int = ALL_LAYERS,
) -> Hits:
    """Cast many rays at once (compiled, parallel over rays).

    Element for element identical to :func:`tilecast.raycast` on the same
    ray: same cell, same ``inside``, same float64 distance and point.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map. On a :class:`~tilecast.TileMap` rays stop on the first solid
        *pixel* (as on :meth:`~tilecast.TileMap.to_pixel_grid`): ``cell`` is
        the tile and ``Hits.pixel`` the pixel ``(px, py)`` inside it.
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
        The collision layers that stop the rays, as for :func:`tilecast.raycast`.

    Returns
    -------
    Hits
        Arrays ``hit``, ``distance``, ``point``, ``normal``, ``cell``, ``inside``;
        on a ``TileMap`` also ``pixel`` (``-1`` on a miss).

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
    """
    # a raw array is wrapped once, here (a Grid or TileMap passes as it is)
    world: Any = grid if mask is ALL_LAYERS else check_map(grid, mask)
    if type(world) is not Grid and type(world) is not TileMap:
        world = check_map(world)
    view, is_tilemap = walk_map(world)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    ignore = as_flag("ignore_start", ignore_start)
    origin = _single_pair("origins", origins)
    direction = _single_pair("directions", directions) if origin is not None else None
    if origin is not None and direction is not None and type(max_distance) in _PLAIN:
        # one ray: no input arrays (see _one_ray)
        x0, y0 = origin
        dx, dy = direction
        if dx == 0.0 and dy == 0.0:
            as_direction("directions", direction)  # raises
        limit = as_max_distance(max_distance)
        return _one_ray(world, view, is_tilemap, x0, y0, dx, dy, limit, gaps, ignore)
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

    def cast() -> tuple[NDArray[Any], ...]:
        view, is_tilemap = walk_map(world)
        return _cast(world, view, is_tilemap, origin_array, stride, direction_array,
                     max_distances, gaps, ignore, n)  # fmt: skip

    distance, point, normal, cell, inside, pixel = world.consistent(cast)
    return Hits(distance < math.inf, distance, point, normal, cell, inside,
                pixel if is_tilemap else None)  # fmt: skip


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
    grid: Grid | TileMap | np.ndarray,
    poses: Any,
    angles: Any,
    max_range: float,
    *,
    out: NDArray[np.floating[Any]] | None = None,
    dtype: Any = np.float64,
    mask: int = ALL_LAYERS,
) -> NDArray[np.floating[Any]]:
    """Lidar-style ranges for many poses (particle filters), shape (P, B).

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map (robotics maps usually want ``outside="solid"``); on a
        ``TileMap`` beams stop on the first solid pixel.
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
        (on a ROS map, ``mask=1`` reads unknown cells as free).

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
    return _scan_many(grid, poses, angles, max_range, "poses", out, dtype, mask)


def _scan_many(
    grid: Any, poses: Any, angles: Any, max_range: Any, pose_name: str, out: Any = None,
    dtype: Any = np.float64, mask: Any = ALL_LAYERS,
) -> NDArray[np.floating[Any]]:  # fmt: skip
    """``scan_many``; a ray whose numbers overflow names ``pose_name`` (row k)."""
    world = check_map(grid, mask)
    pose_array = as_poses(poses)
    angle_array = as_angles(angles)
    max_range = as_max_range(max_range)
    n_poses, n_beams = len(pose_array), len(angle_array)
    shape = (n_poses, n_beams)
    if out is None:
        result = np.empty(shape, as_range_dtype(dtype))
    else:
        result = check_out(out, shape, RANGE_DTYPES, (pose_array, angle_array))
    if result.size == 0:
        return result
    flat = result.reshape(-1)  # a view: result is C-contiguous
    direct = flat.dtype == np.float64  # else float64 scratch, rounded once into flat

    def cast() -> None:
        view, is_tilemap = walk_map(world)
        if is_tilemap:
            ranges = flat if direct else np.empty(flat.size)
            _scan_tile_rays(world, view, pose_array, 0, angle_array, max_range, ranges, pose_name)
            if not direct:
                _round_into(flat, ranges)
            return

        ranges = flat if direct else np.empty(flat.size)
        _scan_grid_rays(world, view, pose_array, 0, angle_array, max_range, ranges, pose_name)
        if not direct:
            _round_into(flat, ranges)

    world.consistent(cast)
    return result


def _round_into(target: NDArray[np.floating[Any]], ranges: NDArray[np.float64]) -> None:
    """Store float64 ranges into a float32 array, each rounded once (beyond 3.4e38: inf)."""
    with np.errstate(over="ignore"):
        target[...] = ranges


def _scan_grid_rays(
    world: Any, view: WalkMap, poses: NDArray[np.float64], first_pose: int,
    angles: NDArray[np.float64], max_range: float, distance: NDArray[np.float64], pose_name: str,
) -> None:  # fmt: skip
    """Cast every beam of ``poses`` on a grid into ``distance`` (P * B,), in parallel.

    Ray k is beam ``k % B`` of ``poses[k // B]``; ``poses`` may be a slice of
    the caller's poses starting at row ``first_pose`` (error messages name
    that row). Exact ranges, ``max_range`` where nothing is hit. The threads
    share the rays (:func:`tilecast._threads.run_shared`: the calling thread
    alone could cast them all, so a busy pool only makes it slower).
    """
    lanes = _engine.kernels("lanes")

    n_beams, n = len(angles), len(distance)
    status = np.zeros(n, dtype=np.uint8)
    counter = np.zeros(1, dtype=np.int64)  # the threads claim rays from it

    beams = Beams(poses, angles, max_range)
    out = FirstHits(distance, _NO_POINTS, _NO_POINTS, _NO_CELLS, _NO_INSIDE, _NO_CELLS, status)

    def task() -> None:
        lanes.cast_lanes(lanes.SCAN, counter, n, view, _NO_RAYS, beams, out, False)

    run_shared(task, n)
    for k in np.flatnonzero(status).tolist():  # rare: beyond the compiled range
        pose = poses[k // n_beams]
        direction = beam_directions(pose[None], angles[k % n_beams : k % n_beams + 1])[0]
        start, beam = (float(pose[0]), float(pose[1])), (float(direction[0]), float(direction[1]))
        hit = _engine.far_first_hit(world, start, beam, max_range, 0, False,
                                    f"{pose_name}[{first_pose + k // n_beams}]")  # fmt: skip
        distance[k] = math.inf if hit is None else hit.distance
    # a miss is +inf; every hit lies within max_range
    np.minimum(distance, max_range, out=distance)


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
) -> None:  # fmt: skip
    """Cast the scans of ``poses`` a chunk of poses at a time, never all at once.

    For each chunk of poses ``first .. end - 1`` (all of a pose's beams in one
    chunk, at most about ``CHUNK_RAYS`` rays), the chunk's rays are cast in
    parallel into a scratch buffer that the next chunk reuses, exactly as
    :func:`scan_many` casts them; then ``evaluate(first, end, ranges)`` gets
    slices of it, flat ``((end - first) * B,)``, also in parallel on the pool
    (``evaluate`` must be thread-safe: the slices are disjoint). The whole
    cast sees one state of the map (``World.consistent``).
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
                _scan_grid_rays(world, view, chunk, first, angles, max_range, ranges, pose_name)

            def part(lo: int, hi: int, first: int = first, ranges: Any = ranges) -> None:
                evaluate(first + lo, first + hi, ranges[lo * n_beams : hi * n_beams])

            # one part per thread (each beam costs about the same), whole poses
            run_tasks(part, end - first, -(-(end - first) // share_count(len(ranges))))

    world.consistent(cast)


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
    out: NDArray[np.floating[Any]] | None = None,
    dtype: Any = np.float64,
    mask: int = ALL_LAYERS,
) -> NDArray[np.floating[Any]]:
    """Lidar-style ranges for one pose ``(x, y, theta)``, shape (B,); see :func:`scan_many`.

    ``out`` (a float32 or float64 array of shape (B,)), ``dtype``, ``mask``
    and ``max_range=inf`` work as for :func:`scan_many`.

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
    if isinstance(pose, str | bytes) or not hasattr(pose, "__len__") or len(pose) != 3:
        raise ValueError("pose must be (x, y, theta)")
    x = as_finite_float("pose[0]", pose[0])
    y = as_finite_float("pose[1]", pose[1])
    theta = as_finite_float("pose[2]", pose[2])
    if out is None:
        ranges: NDArray[np.floating[Any]] = _scan_many(
            world, [(x, y, theta)], angles, max_range, "pose", None, dtype
        )[0]
        return ranges
    n_beams = len(as_angles(angles))
    check_out(out, (n_beams,), RANGE_DTYPES, (angles,))
    _scan_many(world, [(x, y, theta)], angles, max_range, "pose", out.reshape(1, n_beams))
    return out
