"""Beyond one machine: tilecast's batch calls over Dask arrays (extra ``dask``).

``scan_many``, ``scan_likelihood`` and ``raycast_many`` take poses or rays as
Dask arrays chunked along N (NumPy input is cut into chunks of ``chunk``
rows) and return Dask arrays with the same chunks along N; ``fov_counts``
splits its origins into chunks and sums the partial counts in a tree. Each
task is the local call (:func:`tilecast.scan_many` and friends) on one
chunk, so the results are the local ones bit for bit.

The map goes to each worker once: with a ``distributed.Client`` active it is
scattered to every worker (``client.scatter(..., broadcast=True)``) and the
tasks name the scattered key; with the local schedulers it is one graph key
that every task depends on. The Dask graph never holds one copy per task.

Dask is imported by these functions, not by ``import tilecast``; install it
with ``pip install "tilecast[dask]"``. See docs/dask.md.
"""

from __future__ import annotations

import math
import os
import sys
import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilecast import batch, field_of_view, sensor
from tilecast._validate import (
    as_angles,
    as_choice_index,
    as_directions_array,
    as_flag,
    as_max_distances,
    as_max_range,
    as_observed,
    as_points_array,
    as_poses,
    as_range_dtype,
    as_real_array,
)
from tilecast._walkspec import ALL_LAYERS, DIAGONAL_GAPS
from tilecast.grid import Grid, check_map
from tilecast.results import Hits
from tilecast.tiles import TileMap

__all__ = ["DaskHits", "fov_counts", "raycast_many", "scan_likelihood", "scan_many"]

# Rows per task for NumPy input: about a million rays (a scan counts its
# beams), enough that a task's start-up (a millisecond on a cluster) is noise.
_RAYS_PER_TASK = 2**20
#: Fewest origins per ``fov_counts`` task by default: every task returns a whole
#: (rows, cols) map, which costs tens of milliseconds to fill, ship and add.
FOV_CHUNK = 4096
# By default fov_counts makes about this many tasks per worker thread.
_TASKS_PER_THREAD = 4
# Partial count maps summed per node of fov_counts' reduction tree.
_SPLIT_EVERY = 8


def _dask_array() -> Any:
    """Import ``dask.array``, or say how to install it."""
    try:
        import dask.array
    except ImportError as exc:  # pragma: no cover - the test extra installs Dask
        raise ImportError(
            'tilecast.dask needs Dask: pip install "tilecast[dask]" (dask[array] and distributed)'
        ) from exc
    return dask.array


def _active_client() -> Any:
    """Return the ``distributed.Client`` that ``compute()`` would use now, or None."""
    if "distributed" not in sys.modules:  # no Client can exist: do not import it
        return None
    from dask.base import get_scheduler
    from distributed import Client

    owner = getattr(get_scheduler(), "__self__", None)  # type: ignore[no-untyped-call]
    return owner if isinstance(owner, Client) else None


def _shared(value: Any, what: str) -> Any:
    """Put ``value`` (the map, a table) where every task can read it, sent once per worker.

    With a distributed Client: scattered to every worker, the tasks depend on
    its future. Otherwise one graph key holding the value (the threaded and
    process schedulers read it from there).
    """
    client = _active_client()
    if client is not None:
        # a fresh key per call: under a content hash, a call right after another with
        # the same map could see the key released by the first call's futures
        return client.scatter(value, broadcast=True, hash=False)
    from dask.delayed import delayed

    return delayed(value, name=f"tilecast-{what}-{uuid.uuid4().hex}", pure=False)


def _as_chunk(chunk: Any) -> int:
    if isinstance(chunk, bool) or not isinstance(chunk, int | np.integer):
        raise TypeError(f"chunk must be a positive integer (rows per task), got {chunk!r}")
    if chunk < 1:
        raise ValueError(f"chunk must be a positive integer (rows per task), got {chunk}")
    return int(chunk)


def _is_dask_array(name: str, value: Any) -> bool:
    if "dask" not in sys.modules:
        return False
    import dask.array

    if isinstance(value, dask.array.Array):
        return True
    from dask.base import is_dask_collection

    if is_dask_collection(value):
        raise TypeError(
            f"{name} must be a Dask array or array_like, got a {type(value).__name__} "
            "(convert it with .to_dask_array(lengths=True))"
        )
    return False


def _check_dask_rows(name: str, array: Any, width: int, kinds: str = "fiu") -> Any:
    """Check a Dask array of ``(N, width)`` rows chunked along N only; return it."""
    if array.ndim != 2 or array.shape[1] != width:
        raise ValueError(f"{name} must have shape (N, {width}), got {array.shape}")
    if array.dtype.kind not in kinds or array.dtype == np.bool_:
        what = "integers" if kinds == "iu" else "real numbers"
        raise TypeError(f"{name} must hold {what}, got dtype {array.dtype}")
    if array.numblocks[1] != 1:
        raise ValueError(
            f"{name} must be chunked along its rows only (one chunk across its {width} "
            f"columns, got column chunks {array.chunks[1]}): use {name}.rechunk({{1: -1}})"
        )
    return array


def _rows(name: str, value: Any, width: int, chunk: int, checked: Any) -> Any:
    """``value`` as a Dask array of ``(N, width)`` rows; NumPy input is checked by ``checked``."""
    da = _dask_array()
    if _is_dask_array(name, value):
        return _check_dask_rows(name, value, width)
    array = checked(value)
    return da.from_array(array, chunks=(chunk, width), name=False)


def _located(start_stop: tuple[Any, Any], call: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a local call on one chunk; an input error says which rows the chunk holds."""
    try:
        return call(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        start, stop = start_stop
        try:
            located = type(exc)(f"{exc} (in the chunk of rows {start} to {stop - 1})")
        except Exception:  # an exception type with other constructor arguments
            raise exc from None
        raise located from exc


def _rows_of(block_info: Any) -> tuple[Any, Any]:
    """Return the rows ``(start, stop)`` of the chunk of the first Dask input a task works on."""
    inputs = [info for key, info in (block_info or {}).items() if key is not None]
    if not inputs:
        return (0, 0)
    start, stop = inputs[0]["array-location"][0]
    return (start, stop)


# ------------------------------------------------------------------- tasks
def _scan_block(
    poses: Any, world: Any, angles: Any, max_range: float, dtype: Any, block_info: Any = None
) -> Any:
    return _located(_rows_of(block_info), batch.scan_many, world, poses, angles, max_range,
                    dtype=dtype)  # fmt: skip


def _likelihood_block(
    poses: Any, world: Any, angles: Any, observed: Any, options: dict[str, Any], table: Any,
    block_info: Any = None,
) -> Any:  # fmt: skip
    return _located(_rows_of(block_info), sensor.scan_likelihood, world, poses, angles, observed,
                    table=table, **options)  # fmt: skip


def _cast_block(
    origins: Any, directions: Any, max_distance: Any, world: Any, options: dict[str, Any],
    block_info: Any = None,
) -> Any:  # fmt: skip
    """Cast one chunk of rays; return a one-element object array holding its ``Hits``."""
    if isinstance(max_distance, np.ndarray):
        max_distance = max_distance[:, 0]  # carried as (N, 1) to line up with the rows
    hits = _located(_rows_of(block_info), batch.raycast_many, world, origins, directions,
                    max_distance, **options)  # fmt: skip
    holder = np.empty(1, dtype=object)
    holder[0] = hits
    return holder


def _hits_field(holder: Any, field: str) -> Any:
    return getattr(holder[0], field)


def _counts_block(
    origins: Any, world: Any, radius: Any, options: dict[str, Any], free: bool,
    block_info: Any = None,
) -> Any:  # fmt: skip
    """Partial counts of one chunk of origins, shape (1, rows, cols).

    With ``free`` the chunk is ``[[start, stop]]``: that slice of the map's
    floor cells (found here, on the worker, rather than shipped).
    """
    if free:
        start, stop = int(origins[0, 0]), int(origins[0, 1])
        rows_of, cols_of = np.nonzero(~world.solid)
        origins = np.column_stack([cols_of[start:stop], rows_of[start:stop]])
    counts = _located(_rows_of(block_info), field_of_view.fov_counts, world, radius,
                      origins=origins, **options)  # fmt: skip
    return counts[np.newaxis]


# -------------------------------------------------------------- public API
def scan_many(
    grid: Grid | TileMap | np.ndarray,
    poses: Any,
    angles: Any,
    max_range: float,
    *,
    dtype: Any = np.float64,
    chunk: int | None = None,
    mask: int = ALL_LAYERS,
) -> Any:
    """Lidar-style ranges for many poses as a Dask array (N, B); see :func:`tilecast.scan_many`.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map, sent to each worker once.
    poses : dask.array.Array or array_like, shape (N, 3)
        ``(x, y, theta)`` per pose. A Dask array must be chunked along N only;
        NumPy input is cut into chunks of ``chunk`` rows.
    angles : array_like, shape (B,)
        Beam angles relative to each pose's ``theta``.
    max_range : float
        As for :func:`tilecast.scan_many` (``inf`` allowed).
    dtype : float32 or float64, default float64
        The type of the ranges.
    chunk : int, optional
        Rows per task for NumPy ``poses`` (default: about 2**20 beams per task).
    mask : int, default ALL_LAYERS
        The collision layers that block, as for :func:`tilecast.raycast`
        (the map as that mask sees it is what goes to the workers).

    Returns
    -------
    dask.array.Array, shape (N, B)
        Chunked as ``poses`` along N, one chunk across the beams; computed,
        equal to :func:`tilecast.scan_many` bit for bit. (No ``out=``: store
        the result where you want with ``dask.array.store``.)

    Notes
    -----
    The shapes, ``angles``, ``max_range`` and ``dtype`` are checked here; the
    values of Dask ``poses`` are checked by each task, and an error names the
    chunk's rows.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> import tilecast
    >>> from tilecast import dask as tcd
    >>> grid = tilecast.Grid(np.zeros((4, 4), bool), outside="solid")
    >>> poses = da.from_array(np.array([(1.5, 1.5, 0.0), (0.5, 0.5, np.pi), (2.5, 0.5, 0.0)]),
    ...                       chunks=(2, 3))
    >>> ranges = tcd.scan_many(grid, poses, [0.0, np.pi / 2], 10.0)
    >>> ranges.chunks
    ((2, 1), (2,))
    >>> ranges.compute(scheduler="threads").tolist()
    [[2.5, 2.5], [0.5, 0.5], [1.5, 3.5]]
    """
    da = _dask_array()
    world = check_map(grid, mask)
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    result_dtype = as_range_dtype(dtype)
    rows = _rows("poses", poses, 3, _default_chunk(chunk, len(angle_array)), as_poses)
    return da.map_blocks(
        _scan_block, rows, _shared(world, "map"), angle_array, limit, result_dtype.name,
        chunks=(rows.chunks[0], (len(angle_array),)), dtype=result_dtype,
        meta=np.empty((0, 0), result_dtype), token="tilecast-scan_many",
    )  # fmt: skip


def _default_chunk(chunk: Any, rays_per_row: int) -> int:
    if chunk is None:
        return max(1, _RAYS_PER_TASK // max(1, rays_per_row))
    return _as_chunk(chunk)


def scan_likelihood(
    grid: Grid | TileMap | np.ndarray,
    poses: Any,
    angles: Any,
    observed: Any,
    *,
    max_range: float,
    model: sensor.BeamModel | None = None,
    table: Any = None,
    table_resolution: float | None = None,
    chunk: int | None = None,
    mask: int = ALL_LAYERS,
) -> Any:
    """Log-likelihood of a measured scan per pose as a Dask array, shape (N,).

    The same arguments as :func:`tilecast.scan_likelihood` (the sensor model
    is checked here, by the local function on no poses); a ``table`` is sent
    to each worker once, as the map is.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map, sent to each worker once.
    poses : dask.array.Array or array_like, shape (N, 3)
        ``(x, y, theta)`` per pose; a Dask array chunked along N only.
    angles, observed : array_like, shape (B,)
        Beam angles and the measured ranges.
    max_range : float
        The sensor's range.
    model : BeamModel, optional
        The beam model; or give ``table`` and ``table_resolution``.
    table : array_like, shape (R, C), optional
        ``table[observed_index, expected_index]``.
    table_resolution : float, optional
        With ``table``: the range of one table step.
    chunk : int, optional
        Rows per task for NumPy ``poses`` (default: about 2**20 beams per task).
    mask : int, default ALL_LAYERS
        The collision layers that block, as for :func:`tilecast.raycast`
        (the map as that mask sees it is what goes to the workers).

    Returns
    -------
    dask.array.Array of float64, shape (N,)
        Chunked as ``poses`` along N; computed, equal to
        :func:`tilecast.scan_likelihood` bit for bit. (No ``out=``.)

    Examples
    --------
    >>> import numpy as np
    >>> import tilecast
    >>> from tilecast import dask as tcd
    >>> grid = tilecast.Grid(np.pad(np.zeros((8, 8), bool), 1, constant_values=True))
    >>> poses = [(4.5, 4.5, 0.0), (2.5, 4.5, 0.0), (6.5, 3.5, 1.0)]
    >>> model = tilecast.BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.2, lambda_short=0.5)
    >>> ll = tcd.scan_likelihood(grid, poses, [0.0, np.pi], [4.5, 3.5], max_range=20.0,
    ...                          model=model, chunk=2)
    >>> ll.chunks
    ((2, 1),)
    >>> local = tilecast.scan_likelihood(grid, poses, [0.0, np.pi], [4.5, 3.5], max_range=20.0,
    ...                                  model=model)
    >>> np.array_equal(ll.compute(scheduler="threads"), local)
    True
    """
    da = _dask_array()
    world: Any = check_map(grid, mask)
    angle_array = as_angles(angles)
    # the local call on no poses checks observed, max_range and the sensor model
    sensor.scan_likelihood(world, np.empty((0, 3)), angle_array, observed, max_range=max_range,
                           model=model, table=table, table_resolution=table_resolution)  # fmt: skip
    readings = as_observed(observed, len(angle_array))
    table_ref = None if table is None else _shared(np.asarray(table, np.float64), "table")
    options = {"max_range": max_range, "model": model, "table_resolution": table_resolution}
    rows = _rows("poses", poses, 3, _default_chunk(chunk, len(angle_array)), as_poses)
    return da.map_blocks(
        _likelihood_block, rows, _shared(world, "map"), angle_array, readings, options, table_ref,
        chunks=(rows.chunks[0],), drop_axis=1, dtype=np.float64, meta=np.empty(0),
        token="tilecast-scan_likelihood",
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class DaskHits:
    """Results of :func:`tilecast.dask.raycast_many`: :class:`tilecast.Hits` of Dask arrays.

    Each field is chunked as the rays along N. The chunks are cast once
    whichever fields are computed together; :meth:`compute` computes them all
    into a :class:`tilecast.Hits`.

    Attributes
    ----------
    hit, distance, inside : dask.array.Array, shape (N,)
    point, normal, cell : dask.array.Array, shape (N, 2)
    pixel : dask.array.Array, shape (N, 2), or None
        On a ``TileMap``; None on a ``Grid``.

    Examples
    --------
    >>> import numpy as np
    >>> import tilecast
    >>> from tilecast import dask as tcd
    >>> hits = tcd.raycast_many(tilecast.Grid([[0, 0, 1]]), (0.5, 0.5), [(1.0, 0.0), (-1.0, 0.0)])
    >>> hits.distance.compute(scheduler="threads").tolist(), len(hits)
    ([1.5, inf], 2)
    """

    hit: Any
    distance: Any
    point: Any
    normal: Any
    cell: Any
    inside: Any
    pixel: Any = None

    def __len__(self) -> int:
        return int(self.hit.shape[0])

    def compute(self, **kwargs: Any) -> Hits:
        """Compute every field in one pass (keyword arguments go to ``dask.compute``).

        Examples
        --------
        >>> import tilecast
        >>> from tilecast import dask as tcd
        >>> hits = tcd.raycast_many(tilecast.Grid([[0, 0, 1]]), (0.5, 0.5), [(1.0, 0.0)])
        >>> hits.compute(scheduler="threads")[0].cell
        (2, 0)
        """
        from dask.base import compute

        fields = (self.hit, self.distance, self.point, self.normal, self.cell, self.inside)
        extra = () if self.pixel is None else (self.pixel,)
        values = compute(*fields, *extra, **kwargs)  # type: ignore[no-untyped-call]
        hit, distance, point, normal, cell, inside = values[:6]
        return Hits(hit, distance, point, normal, cell, inside, values[6] if extra else None)


def raycast_many(
    grid: Grid | TileMap | np.ndarray,
    origins: Any,
    directions: Any,
    max_distance: Any = math.inf,
    *,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
    chunk: int | None = None,
    mask: int = ALL_LAYERS,
) -> DaskHits:
    """Cast many rays over Dask; see :func:`tilecast.raycast_many`.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map, sent to each worker once.
    origins, directions : dask.array.Array or array_like, shape (N, 2), or one pair
        A single origin or direction broadcasts, as for the local call. Dask
        arrays must be chunked along N only; the rays follow the chunks of
        the first Dask array among ``origins`` and ``directions`` (NumPy
        input with N rows is cut the same way, or into ``chunk`` rows).
    max_distance : float, or dask.array.Array or array_like of shape (N,)
        Inclusive range of each ray.
    diagonal_gaps : {"block_if_both", "block_if_either", "open"}
        As for :func:`tilecast.raycast`.
    ignore_start : bool, default False
        As for :func:`tilecast.raycast`.
    chunk : int, optional
        Rays per task when neither ``origins`` nor ``directions`` is a Dask
        array (default 2**20).
    mask : int, default ALL_LAYERS
        The collision layers that block, as for :func:`tilecast.raycast`
        (the map as that mask sees it is what goes to the workers).

    Returns
    -------
    DaskHits
        Fields ``hit``, ``distance``, ``point``, ``normal``, ``cell``,
        ``inside`` (and ``pixel`` on a ``TileMap``) as Dask arrays;
        ``.compute()`` gives the :class:`tilecast.Hits` of the local call, bit
        for bit.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> import tilecast
    >>> from tilecast import dask as tcd
    >>> grid = tilecast.Grid([[0, 0, 0], [0, 0, 0], [1, 1, 1]])
    >>> angles = np.radians([0.0, 90.0, 135.0, 90.0])
    >>> directions = da.from_array(np.column_stack([np.cos(angles), np.sin(angles)]), chunks=(2, 2))
    >>> hits = tcd.raycast_many(grid, (1.5, 0.5), directions)
    >>> hits.distance.chunks
    ((2, 2),)
    >>> result = hits.compute(scheduler="threads")
    >>> result.hit.tolist(), result.cell[1].tolist()
    ([False, True, True, True], [1, 2])
    """
    da = _dask_array()
    world = check_map(grid, mask)
    as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    options = {
        "diagonal_gaps": diagonal_gaps,
        "ignore_start": as_flag("ignore_start", ignore_start),
    }
    arguments = {"origins": origins, "directions": directions, "max_distance": max_distance}
    given = [v for name, v in arguments.items() if _is_dask_array(name, v)]
    along = given[0].chunks[0] if given else _default_chunk(chunk, 1)
    rays = [
        _ray_rows("origins", origins, along, lambda v: as_points_array("origins", v)),
        _ray_rows("directions", directions, along, as_directions_array),
    ]
    counts = {len(r) if isinstance(r, np.ndarray) else r.shape[0] for r in rays} - {1}
    if len(counts) > 1:
        n_origins, n_directions = (r.shape[0] for r in rays)
        raise ValueError(
            f"origins ({n_origins}) and directions ({n_directions}) must have the same "
            "number of rows, or one of them a single row"
        )
    n = counts.pop() if counts else 1
    if all(isinstance(r, np.ndarray) for r in rays):  # one ray: a one-row Dask array
        rays[0] = da.from_array(rays[0], chunks=(1, 2), name=False)
    along = next(r for r in rays if not isinstance(r, np.ndarray)).chunks[0]
    limits = _ray_limits(max_distance, n, along)
    cast = da.map_blocks(
        _cast_block, *rays, limits, _shared(world, "map"), options, drop_axis=1,
        chunks=((1,) * len(along),), dtype=object, meta=np.empty(0, object),
        token="tilecast-raycast_many",
    )  # fmt: skip

    def field(name: str, dtype: Any, width: int) -> Any:
        extra = {} if width == 1 else {"new_axis": 1}
        shape = (along,) if width == 1 else (along, (width,))
        return cast.map_blocks(_hits_field, name, chunks=shape, dtype=dtype,
                               meta=np.empty((0,) * len(shape), dtype), **extra)  # fmt: skip

    return DaskHits(
        field("hit", np.bool_, 1), field("distance", np.float64, 1),
        field("point", np.float64, 2), field("normal", np.float64, 2),
        field("cell", np.int64, 2), field("inside", np.bool_, 1),
        field("pixel", np.int64, 2) if isinstance(world, TileMap) else None,
    )  # fmt: skip


def _ray_rows(name: str, value: Any, along: Any, checked: Any) -> Any:
    """Rays as a Dask array of (N, 2) rows chunked ``along``, or one checked pair (broadcasts)."""
    if _is_dask_array(name, value):
        rows = _check_dask_rows(name, value, 2)
        return rows if rows.chunks[0] == along else rows.rechunk({0: along})
    pairs = checked(value)
    if len(pairs) == 1:
        return pairs
    da = _dask_array()
    if not isinstance(along, int) and sum(along) != len(pairs):
        return da.from_array(pairs, chunks=(len(pairs), 2), name=False)  # the count check raises
    return da.from_array(pairs, chunks=(along, 2), name=False)


def _ray_limits(max_distance: Any, n: int, along: Any) -> Any:
    """``max_distance`` as one float for every task, or an (N, 1) Dask array chunked ``along``."""
    if _is_dask_array("max_distance", max_distance):
        if max_distance.ndim != 1 or max_distance.shape[0] != n:
            raise ValueError(
                f"max_distance must be a scalar or have shape ({n},), got {max_distance.shape}"
            )
        if max_distance.dtype.kind not in "fiu" or max_distance.dtype == np.bool_:
            raise TypeError(f"max_distance must hold real numbers, got dtype {max_distance.dtype}")
        if max_distance.chunks[0] != along:
            max_distance = max_distance.rechunk({0: along})
        return max_distance[:, np.newaxis]
    if as_real_array("max_distance", max_distance).ndim == 0:
        return float(as_max_distances(max_distance, 1)[0])
    checked = as_max_distances(max_distance, n)
    return _dask_array().from_array(checked[:, np.newaxis], chunks=(along, 1), name=False)


def fov_counts(
    grid: Grid | TileMap | np.ndarray,
    radius: float | None = None,
    *,
    origins: Any = None,
    chunk: int | None = None,
    metric: str = "euclidean",
    light_walls: bool = True,
    mask: int = ALL_LAYERS,
) -> Any:
    """For each cell, how many origin cells see it, over Dask; see :func:`tilecast.fov_counts`.

    The origins are split into chunks; each task is the local
    ``tilecast.fov_counts(grid, radius, origins=chunk_of_origins, ...)``, and
    the partial counts are summed in a tree (integers: the sum is exact).

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map, sent to each worker once.
    radius : float, optional
        Range of every viewer, as in :func:`tilecast.fov`.
    origins : dask.array.Array or array_like of int, shape (N, 2), optional
        The viewers' cells ``(col, row)``. ``None`` (the default) is every
        floor cell, as for the local call; each task then finds its slice of
        the floor cells on the map itself (nothing but two numbers shipped).
        A Dask array keeps its own chunks (along N only).
    chunk : int, optional
        Origins per task when ``origins`` is not a Dask array. By default
        about four tasks per worker thread (of the active Client, else of
        this machine), and at least 4096 origins each.
    metric : {"euclidean", "chebyshev", "manhattan"}, default "euclidean"
        Distance measure.
    light_walls : bool, default True
        Whether walls in view count as seen.
    mask : int, default ALL_LAYERS
        The collision layers that block, as for :func:`tilecast.raycast`
        (the map as that mask sees it is what goes to the workers).

    Returns
    -------
    dask.array.Array of int32, shape (rows, cols)
        One chunk; computed, equal to :func:`tilecast.fov_counts`.

    Examples
    --------
    >>> import numpy as np
    >>> import tilecast
    >>> from tilecast import dask as tcd
    >>> rows = ["#######",
    ...         "#...#.#",
    ...         "#.....#",
    ...         "#######"]
    >>> grid = tilecast.Grid([[c == "#" for c in row] for row in rows])
    >>> counts = tcd.fov_counts(grid, light_walls=False, chunk=3)  # 9 floor cells: 3 tasks
    >>> counts.compute(scheduler="threads")[1:3].tolist()
    [[0, 8, 8, 8, 0, 4, 0], [0, 8, 8, 9, 9, 9, 0]]
    """
    da = _dask_array()
    world = check_map(grid, mask)
    field_of_view.range_limit(world, radius, metric)  # checks radius and metric
    options = {"metric": metric, "light_walls": as_flag("light_walls", light_walls)}
    if chunk is not None:
        _as_chunk(chunk)
    free = origins is None
    if free:
        n = int(np.count_nonzero(~world.solid))
        size = _fov_chunk(chunk, n)
        bounds = [(start, min(start + size, n)) for start in range(0, n, size)] or [(0, 0)]
        blocks = da.from_array(np.array(bounds, dtype=np.int64), chunks=(1, 2), name=False)
    elif _is_dask_array("origins", origins):
        blocks = _check_dask_rows("origins", origins, 2, kinds="iu")
        n = blocks.shape[0]
    else:
        cells = field_of_view.check_origins(world, "origins", origins)
        n = len(cells)
        size = _fov_chunk(chunk, n)
        blocks = da.from_array(cells, chunks=(size, 2), name=False)
    if not math.isnan(n) and n > field_of_view.MAX_COUNTED:
        raise ValueError(f"origins may hold at most {field_of_view.MAX_COUNTED} cells, got {n}")
    rows, cols = world.shape
    partial = da.map_blocks(
        _counts_block, blocks, _shared(world, "map"), radius, options, free,
        drop_axis=1, new_axis=[1, 2], chunks=((1,) * blocks.numblocks[0], (rows,), (cols,)),
        dtype=np.int32, meta=np.empty((0, 0, 0), np.int32), token="tilecast-fov_counts",
    )  # fmt: skip
    return partial.sum(axis=0, dtype=np.int32, split_every=_SPLIT_EVERY)


def _fov_chunk(chunk: Any, n: int) -> int:
    """Origins per task: ``chunk``, or about four tasks per worker thread (at least 4096)."""
    if chunk is not None:
        return _as_chunk(chunk)
    client = _active_client()
    threads = sum(client.nthreads().values()) if client is not None else _cpu_count()
    return max(FOV_CHUNK, -(-n // (_TASKS_PER_THREAD * max(1, threads))))


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
