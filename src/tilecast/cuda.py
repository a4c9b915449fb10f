"""The batch calls on a CUDA GPU: ``raycast_many``, ``scan_many`` and ``scan_likelihood``.

Extra ``cuda`` (``pip install "tilecast[cuda]"``: numba-cuda); this module is
imported only when used (``import tilecast.cuda``). The calls take what
:func:`tilecast.raycast_many`, :func:`tilecast.scan_many` and
:func:`tilecast.scan_likelihood` take, with the per-ray and per-pose arrays
on a CUDA device (anything with ``__cuda_array_interface__``: CuPy, PyTorch,
JAX and Numba device arrays; DLPack-only arrays through CuPy), and answer on
the device: as CuPy or PyTorch arrays when the input is one, else as Numba
device arrays, or into ``out=``.

Every answer is bit for bit the CPU call's: each GPU thread runs the CPU's
own exact walk (its Python source, compiled for the device by
:mod:`tilecast._kernels.gpu`, without fused multiply-adds), and the rare
rays the compiled walk cannot decide (numbers beyond its proven range,
beam angles beyond the scans' polynomial sine) are finished on the CPU, as
the CPU path finishes them. The map and its acceleration data are copied to
the device once per edit (per mask, per device) and reused.

The speed has not been measured on a GPU yet: ``benchmarks/gpu.py`` is
ready to run where there is one. Without a GPU the calls run on Numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, for tests: slow).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

try:
    from numba import cuda as _numba_cuda
except ImportError as exc:  # pragma: no cover - the extra is installed in CI
    raise ImportError(
        "tilecast.cuda needs numba-cuda and a CUDA toolkit: pip install 'tilecast[cuda]' "
        "(numba-cuda[cu12]), with an NVIDIA driver"
    ) from exc

from tilecast import _engine
from tilecast._validate import (
    as_angles,
    as_choice_index,
    as_flag,
    as_mask,
    as_max_distance,
    as_max_range,
    as_observed,
    as_range_dtype,
    as_real_array,
)
from tilecast._walkmap import stack_walk_map, walk_map
from tilecast._walkspec import ALL_LAYERS, DIAGONAL_GAPS, FirstHits, RayBatch, WalkMap
from tilecast.grid import Grid, check_map
from tilecast.results import Hits
from tilecast.stack import GridStack
from tilecast.tiles import TileMap

_cuda: Any = _numba_cuda  # numba-cuda is untyped

__all__ = ["raycast_many", "scan_likelihood", "scan_many"]

_DLPACK_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged


# ------------------------------------------------------------------ arrays
def _require_cuda() -> None:
    from numba import config

    if not getattr(config, "ENABLE_CUDASIM", False) and not _cuda.is_available():
        raise ImportError(
            "tilecast.cuda found no CUDA GPU (numba.cuda.is_available() is False): install an "
            "NVIDIA driver and pip install 'tilecast[cuda]' (numba-cuda[cu12]); for tests "
            "without a GPU, set NUMBA_ENABLE_CUDASIM=1 before numba is imported"
        )


def _device_of(value: Any) -> int | None:
    """Return the CUDA device id of an array that says where it lives (DLPack), else None."""
    probe = getattr(value, "__dlpack_device__", None)
    if probe is None:
        return None
    kind, device = probe()
    return int(device) if int(kind) in _DLPACK_CUDA else None


def _on_device(value: Any) -> bool:
    """Tell a CUDA array: a Numba device array, or anything with ``__cuda_array_interface__``."""
    return bool(getattr(value, "__cuda_ndarray__", False)) or hasattr(
        value, "__cuda_array_interface__"
    )


def _view(value: Any) -> Any:
    """Return a Numba device array of CUDA array ``value`` (itself if it is one; no copy)."""
    return value if getattr(value, "__cuda_ndarray__", False) else _cuda.as_cuda_array(value)


def _as_device(name: str, value: Any, function: str) -> Any:
    """Return a Numba view of CUDA array ``value`` (no copy); TypeError naming ``name`` on host."""
    if _on_device(value):
        _require_cuda()
        return _view(value)
    probe = getattr(value, "__dlpack_device__", None)
    if probe is not None and int(probe()[0]) in _DLPACK_CUDA:
        try:
            import cupy
        except ImportError:
            raise TypeError(
                f"{name} is a DLPack CUDA array without __cuda_array_interface__: install cupy "
                "(tilecast.cuda then reads it without a copy)"
            ) from None
        _require_cuda()
        return _view(cupy.from_dlpack(value))
    raise TypeError(
        f"{name} is on the host ({type(value).__module__}.{type(value).__name__}): "
        f"tilecast.cuda.{function} takes CUDA arrays (CuPy, PyTorch, JAX, Numba device arrays); "
        f"move it to the GPU, or call tilecast.{function} for host arrays"
    )


def _check_float_array(name: str, array: Any, shape: tuple[int | None, ...]) -> None:
    if array.dtype != np.float64:
        raise TypeError(f"{name} must be float64 on the device, got {array.dtype}")
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape, strict=True)
    ):
        wanted = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {wanted}, got {tuple(array.shape)}")


def _one_device(named: dict[str, Any]) -> Any:
    """Return the device every array in ``named`` is on (a context); ValueError if several."""
    found = {name: _device_of(value) for name, value in named.items()}
    ids = {device for device in found.values() if device is not None}
    if len(ids) > 1:
        where = ", ".join(f"{name} on device {d}" for name, d in found.items() if d is not None)
        raise ValueError(f"the arrays are on different CUDA devices: {where}")
    from numba import config

    if not ids or getattr(config, "ENABLE_CUDASIM", False):
        return _NoSwitch()
    return _cuda.gpus[ids.pop()]


class _NoSwitch:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _as_library(array: Any, like: Any) -> Any:
    """Return ``array`` as an array of ``like``'s library (CuPy, PyTorch) and device; no copy."""
    library = type(like).__module__.split(".")[0]
    if library == "cupy":
        import cupy

        with cupy.cuda.Device(_device_of(like) or 0):
            return cupy.asarray(array)
    if library == "torch":
        import torch

        return torch.as_tensor(array, device=f"cuda:{_device_of(like) or 0}")
    return array


# --------------------------------------------------------------------- map
def _device_map(world: Any) -> tuple[WalkMap, bool]:
    """Return the walk's view of ``world`` on the current device: copied once per edit."""
    device = getattr(_cuda.get_current_device(), "id", 0)

    def build(world: Any) -> tuple[WalkMap, bool]:
        view, is_tilemap = walk_map(world)
        arrays = [_cuda.to_device(a) for a in (view.info, view.variants, view.pixels)]
        return view._replace(info=arrays[0], variants=arrays[1], pixels=arrays[2]), is_tilemap

    return world.snapshot(("cuda", device), build)  # type: ignore[no-any-return]


def _gpu() -> Any:
    return _engine.kernels("gpu")


# ------------------------------------------------------------ raycast_many
def raycast_many(
    grid: Grid | TileMap | GridStack | np.ndarray,
    origins: Any,
    directions: Any,
    max_distance: Any = math.inf,
    *,
    diagonal_gaps: str = "block_if_both",
    ignore_start: bool = False,
    mask: int = ALL_LAYERS,
) -> Hits:
    """:func:`tilecast.raycast_many` on a CUDA GPU: the rays on the device, the answers too.

    Parameters
    ----------
    grid : Grid, TileMap, GridStack or 2D bool array
        The map (on the host; copied to the device once per edit and mask).
        On a :class:`~tilecast.GridStack` of B maps, ``origins`` and
        ``directions`` are ``(B, N, 2)`` (or ``(B, 1, 2)``), ``max_distance``
        a float or ``(B, N)``, and every array of the answer has a leading
        axis of B, as :func:`tilecast.raycast_many` on the stack.
    origins, directions : CUDA arrays of float64, shape (N, 2) or (1, 2)
        As for :func:`tilecast.raycast_many` (one row broadcasts).
    max_distance : float or CUDA array of float64, shape (N,)
    diagonal_gaps, ignore_start, mask
        As for :func:`tilecast.raycast_many`.

    Returns
    -------
    Hits
        Its arrays on the device (CuPy or PyTorch when ``origins`` is one,
        else Numba device arrays), bit for bit the CPU's answers.

    Examples
    --------
    >>> import numpy as np
    >>> from numba import cuda
    >>> from tilecast import Grid
    >>> import tilecast.cuda as tc
    >>> grid = Grid([[0, 0, 1]])
    >>> origins = cuda.to_device(np.array([[0.5, 0.5]]))  # doctest: +SKIP
    >>> directions = cuda.to_device(np.array([[1.0, 0.0]]))  # doctest: +SKIP
    >>> hits = tc.raycast_many(grid, origins, directions)  # doctest: +SKIP
    >>> hits.distance.copy_to_host().tolist()  # doctest: +SKIP
    [1.5]
    """
    name = "raycast_many"
    if type(grid) is GridStack:
        return _stack_raycast(grid, origins, directions, max_distance, diagonal_gaps,
                              ignore_start, mask)  # fmt: skip
    world: Any = check_map(grid, mask)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    ignore = as_flag("ignore_start", ignore_start)
    d_origins = _as_device("origins", origins, name)
    d_directions = _as_device("directions", directions, name)
    _check_float_array("origins", d_origins, (None, 2))
    _check_float_array("directions", d_directions, (None, 2))
    n_origins, n_directions = d_origins.shape[0], d_directions.shape[0]
    if n_origins != 1 and n_directions != 1 and n_origins != n_directions:
        raise ValueError(
            f"origins ({n_origins}) and directions ({n_directions}) must have the same "
            "number of rows, or one of them a single row"
        )
    n = n_directions if n_origins == 1 else n_origins
    arrays = {"origins": origins, "directions": directions}
    if isinstance(max_distance, int | float | np.floating | np.integer):
        limit = as_max_distance(float(max_distance))
        d_limits = None
    else:
        d_limits = _as_device("max_distance", max_distance, name)
        _check_float_array("max_distance", d_limits, (n,))
        arrays["max_distance"] = max_distance
    with _one_device(arrays):
        if d_limits is None:
            d_limits = _cuda.to_device(np.array([limit]))
        stride = max(n, 1) if n_origins == 1 else 1
        view, is_tilemap = _device_map(world)
        rays = RayBatch(d_origins, d_directions, stride, d_limits, gaps, ignore, ALL_LAYERS)
        out = FirstHits(
            _cuda.device_array(n), _cuda.device_array((n, 2)), _cuda.device_array((n, 2)),
            _cuda.device_array((n, 2), np.int64), _cuda.device_array(n, np.bool_),
            _cuda.device_array((n, 2), np.int64), _cuda.device_array(n, np.uint8),
        )  # fmt: skip
        hit = _cuda.device_array(n, np.bool_)
        if n:
            unsafe = _cuda.to_device(np.zeros(1, np.int64))
            gpu = _gpu()
            args = (view, rays, out, hit, unsafe)
            gpu.launch(gpu.cast_rays, n, args)
            if int(unsafe.copy_to_host()[0]):
                _finish_rays(world, rays, out, hit, gaps, ignore)
    pixel = _as_library(out.pixel, origins) if is_tilemap else None
    distance, point, normal, cell, inside = (_as_library(a, origins) for a in out[:5])
    return Hits(_as_library(hit, origins), distance, point, normal, cell, inside, pixel)


def _finish_rays(
    world: Any, rays: RayBatch, out: FirstHits, hit: Any, gaps: int, ignore: bool
) -> None:
    """Cast the flagged rows of a device batch on the CPU (rare) and write them back."""
    from tilecast.batch import raycast_many as cpu_raycast_many

    n = hit.shape[0]
    for k in np.flatnonzero(out.status.copy_to_host()).tolist():
        o = k // rays.origin_stride
        origin = rays.origins[o].copy_to_host()
        direction = rays.directions[0 if rays.directions.shape[0] == 1 else k].copy_to_host()
        limit = float(rays.max_distances[0 if rays.max_distances.shape[0] == 1 else k])
        try:
            hits = cpu_raycast_many(
                world,
                origin[None],
                direction[None],
                np.array([limit]),
                diagonal_gaps=DIAGONAL_GAPS[gaps],
                ignore_start=ignore,
            )
        except ValueError as exc:  # fmt: skip
            raise ValueError(f"ray {k} of {n}: {exc}") from None
        out.distance[k] = hits.distance[0]
        out.point[k] = hits.point[0]
        out.normal[k] = hits.normal[0]
        out.cell[k] = hits.cell[0]
        out.inside[k] = hits.inside[0]
        out.pixel[k] = hits.pixel[0] if hits.pixel is not None else (-1, -1)
        hit[k] = hits.hit[0]


# --------------------------------------------------------------- scan_many
def scan_many(
    grid: Grid | TileMap | GridStack | np.ndarray,
    poses: Any,
    angles: Any,
    max_range: float,
    *,
    out: Any = None,
    dtype: Any = np.float64,
    mask: int = ALL_LAYERS,
) -> Any:
    """:func:`tilecast.scan_many` on a CUDA GPU: poses on the device, ranges (P, B) too.

    Parameters
    ----------
    grid : Grid, TileMap, GridStack or 2D bool array
        The map (on the host; copied to the device once per edit and mask).
        On a :class:`~tilecast.GridStack` of B maps, ``poses`` is
        ``(B, P, 3)`` and the ranges ``(B, P, R)``: map b's are exactly
        :func:`tilecast.scan_many`'s on the stack (one launch per map).
    poses : CUDA array of float64, shape (P, 3)
    angles : array of float64, shape (B,)
        On the host or the device (it is small; checked on the host).
    max_range, dtype, mask
        As for :func:`tilecast.scan_many`.
    out : CUDA array of float32 or float64, shape (P, B), optional
        Filled and returned.

    Returns
    -------
    CUDA array, shape (P, B)
        ``out``, or a new array of the poses' library (CuPy, PyTorch, else
        Numba), bit for bit the CPU's ranges.

    Examples
    --------
    >>> import numpy as np
    >>> from numba import cuda
    >>> from tilecast import Grid
    >>> import tilecast.cuda as tc
    >>> grid = Grid(np.zeros((4, 4), bool), outside="solid")
    >>> poses = cuda.to_device(np.array([(1.5, 1.5, 0.0)]))  # doctest: +SKIP
    >>> tc.scan_many(grid, poses, [0.0, np.pi], 10.0).copy_to_host().tolist()  # doctest: +SKIP
    [[2.5, 1.5]]
    """
    if type(grid) is GridStack:
        return _stack_scan(grid, poses, angles, max_range, out, dtype, mask)
    world, d_poses, angle_array, limit = _scan_input(grid, poses, angles, max_range, mask,
                                                     "scan_many")  # fmt: skip
    shape = (d_poses.shape[0], len(angle_array))
    arrays = {"poses": poses} if out is None else {"poses": poses, "out": out}
    with _one_device(arrays):
        result = _device_out(out, shape, as_range_dtype(dtype) if out is None else None,
                             "scan_many")  # fmt: skip
        _cast_beams(world, d_poses, angle_array, limit, result.reshape(-1))
    if out is not None:
        return out
    return _as_library(result, poses)


def _stack_scan(
    stack: GridStack, poses: Any, angles: Any, max_range: Any, out: Any, dtype: Any, mask: Any
) -> Any:
    """``scan_many`` on a ``GridStack``: poses ``(B, P, 3)`` on the device, ranges ``(B, P, R)``.

    The stacked clearance maps go to the device once per edit and mask; each
    map's beams are one launch on its own map, bit for bit the CPU's.
    """
    bits = as_mask(mask)
    d_poses = _as_device("poses", poses, "scan_many")
    count = len(stack)
    _check_float_array("poses", d_poses, (count, None, 3))
    if _on_device(angles):
        angles = _view(angles).copy_to_host()
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    shape = (count, d_poses.shape[1], len(angle_array))
    arrays = {"poses": poses} if out is None else {"poses": poses, "out": out}
    with _one_device(arrays):
        result = _device_out(out, shape, as_range_dtype(dtype) if out is None else None,
                             "scan_many")  # fmt: skip
        template, d_values = _device_stack(stack, bits)
        for b in range(count):
            flat = result[b].reshape(-1)
            if flat.shape[0]:
                _cast_beams_on(template._replace(info=d_values[b]),
                               lambda b=b: stack.map_for(b, bits), d_poses[b], angle_array,
                               limit, flat)  # fmt: skip
    if out is not None:
        return out
    return _as_library(result, poses)


def _device_out(out: Any, shape: tuple[int, ...], dtype: Any, function: str) -> Any:
    """Return a new device array of ``shape`` (``out`` None) or ``out`` itself, checked.

    ``dtype`` is the new array's type, and the one type ``out`` must have
    (None: float32 or float64, as the scans allow).
    """
    if out is None:
        return _cuda.device_array(shape, dtype)
    result = _as_device("out", out, function)
    allowed = (np.float32, np.float64) if dtype is None else (dtype,)
    if result.dtype not in allowed or tuple(result.shape) != shape:
        kinds = "float32 or float64" if dtype is None else np.dtype(dtype).name
        raise ValueError(f"out must be a {kinds} CUDA array of shape {shape}, got "
                         f"{result.dtype} {tuple(result.shape)}")  # fmt: skip
    if not result.is_c_contiguous():
        raise ValueError("out must be C-contiguous")
    return result


def _device_stack(stack: GridStack, bits: int) -> tuple[WalkMap, Any]:
    """Return map 0's device view and the stacked clearance on the device: once per edit."""
    device = getattr(_cuda.get_current_device(), "id", 0)

    def build(stack: GridStack) -> tuple[WalkMap, Any]:
        data = stack.walk_maps(bits)
        template = stack_walk_map(stack, data)
        template = template._replace(variants=_cuda.to_device(template.variants),
                                     pixels=_cuda.to_device(template.pixels))  # fmt: skip
        return template, _cuda.to_device(data.values)

    return stack.snapshot(("cuda", device, bits), build)


def _scan_input(
    grid: Any, poses: Any, angles: Any, max_range: Any, mask: Any, function: str
) -> tuple[Any, Any, NDArray[np.float64], float]:
    world = check_map(grid, mask)
    d_poses = _as_device("poses", poses, function)
    _check_float_array("poses", d_poses, (None, 3))
    if _on_device(angles):
        angles = _view(angles).copy_to_host()
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    return world, d_poses, angle_array, limit


def _cast_beams(
    world: Any, d_poses: Any, angle_array: NDArray[np.float64], limit: float, flat: Any
) -> None:
    """Cast every beam into ``flat`` (P * B,) on the current device; flagged beams on the CPU."""
    if flat.shape[0]:
        _cast_beams_on(_device_map(world)[0], lambda: world, d_poses, angle_array, limit, flat)


def _cast_beams_on(
    view: WalkMap, cpu_world: Any, d_poses: Any, angle_array: NDArray[np.float64],
    limit: float, flat: Any,
) -> None:  # fmt: skip
    """Cast on the device map ``view``; ``cpu_world()`` gives the map for the flagged beams."""
    n = flat.shape[0]
    d_angles = _cuda.to_device(angle_array)
    status = _cuda.device_array(n, np.uint8)
    unsafe = _cuda.to_device(np.zeros(1, np.int64))
    gpu = _gpu()
    args = (view, d_poses, d_angles, limit, flat, status, unsafe)
    gpu.launch(gpu.cast_beams, n, args)
    if not int(unsafe.copy_to_host()[0]):
        return
    from tilecast.batch import scan_many as cpu_scan_many

    n_beams = len(angle_array)
    world = cpu_world()
    for k in np.flatnonzero(status.copy_to_host()).tolist():
        q, b = divmod(k, n_beams)
        pose = d_poses[q].copy_to_host()
        try:
            reading = cpu_scan_many(world, pose[None], angle_array[b : b + 1], limit)
        except ValueError as exc:
            raise ValueError(f"poses[{q}]: {exc}") from None
        flat[k] = reading[0, 0]


# --------------------------------------------------------- scan_likelihood
def scan_likelihood(
    grid: Grid | TileMap | np.ndarray,
    poses: Any,
    angles: Any,
    observed: Any,
    *,
    max_range: float,
    model: Any = None,
    table: Any = None,
    table_resolution: float | None = None,
    out: Any = None,
    mask: int = ALL_LAYERS,
) -> Any:
    """:func:`tilecast.scan_likelihood` on a CUDA GPU: poses on the device, (N,) answers too.

    With a ``table`` everything runs on the device: the ranges, then one
    thread per pose sums its beams' table entries in order. With a
    :class:`~tilecast.BeamModel` the ranges are cast on the device and the
    model (``exp``, ``erf``, ``log``: the device's would round differently)
    is evaluated by the CPU kernel, so the answers stay the CPU's; with a
    :class:`~tilecast.LikelihoodField` (which casts no rays) the whole call
    runs on the CPU. ``angles``, ``observed`` and ``table`` may be on the
    host or the device.

    Parameters
    ----------
    grid, poses, angles, observed, max_range, model, table, table_resolution, mask
        As for :func:`tilecast.scan_likelihood`; ``poses`` a CUDA float64 array (N, 3).
    out : CUDA array of float64, shape (N,), optional
        Filled and returned.

    Returns
    -------
    CUDA array of float64, shape (N,)
        ``out``, or a new array of the poses' library; bit for bit the CPU's.

    Examples
    --------
    >>> import numpy as np
    >>> from numba import cuda
    >>> from tilecast import Grid
    >>> import tilecast.cuda as tc
    >>> grid = Grid(np.pad(np.zeros((8, 8), bool), 1, constant_values=True))
    >>> table = np.full((41, 41), 0.01)
    >>> np.fill_diagonal(table, 0.5)
    >>> poses = cuda.to_device(np.array([(4.5, 4.5, 0.0)]))  # doctest: +SKIP
    >>> ll = tc.scan_likelihood(grid, poses, [0.0, np.pi], [4.5, 3.5], max_range=20.0,
    ...                         table=table, table_resolution=0.5)  # doctest: +SKIP
    >>> np.round(ll.copy_to_host(), 4).tolist()  # doctest: +SKIP
    [-1.3863]
    """
    if type(grid) is GridStack:
        return _stack_likelihood(grid, poses, angles, observed, max_range, model, table,
                                 table_resolution, out, mask)  # fmt: skip
    from tilecast.mapping import LikelihoodField
    from tilecast.sensor import BeamModel, beam_evaluator, table_terms
    from tilecast.sensor import scan_likelihood as cpu_scan_likelihood

    world, d_poses, angle_array, limit = _scan_input(grid, poses, angles, max_range, mask,
                                                     "scan_likelihood")  # fmt: skip
    if _on_device(observed):
        observed = _view(observed).copy_to_host()
    if _on_device(table):
        table = _view(table).copy_to_host()
    n_poses, n_beams = d_poses.shape[0], len(angle_array)
    readings = as_observed(observed, n_beams)
    arrays = {"poses": poses} if out is None else {"poses": poses, "out": out}
    with _one_device(arrays):
        result = _device_out(out, (n_poses,), np.dtype(np.float64), "scan_likelihood")
        if (
            isinstance(model, LikelihoodField)
            or (model is None) == (table is None)
            or (model is not None and not isinstance(model, BeamModel))
            or n_poses * n_beams == 0
        ):
            # no rays to cast (or the CPU call's own error): the CPU call, on host poses
            answer = cpu_scan_likelihood(grid, d_poses.copy_to_host(), angle_array, readings,
                                         max_range=limit, model=model, table=table,
                                         table_resolution=table_resolution,
                                         mask=mask)  # fmt: skip
            result.copy_to_device(answer)
        elif model is not None:
            if table_resolution is not None:
                raise ValueError("table_resolution goes with table=, not with model=")
            if limit == math.inf:
                raise ValueError("max_range must be finite with a BeamModel")
            evaluate = beam_evaluator(model, readings, limit, n_beams)
            ranges = _cuda.device_array(n_poses * n_beams)
            _cast_beams(world, d_poses, angle_array, limit, ranges)
            answer = np.empty(n_poses)
            evaluate(ranges.copy_to_host(), answer)
            result.copy_to_device(answer)
        else:
            log_rows, row_of_beam, step, last = table_terms(table, table_resolution, readings)
            ranges = _cuda.device_array(n_poses * n_beams)
            _cast_beams(world, d_poses, angle_array, limit, ranges)
            gpu = _gpu()
            args = (ranges, n_beams, _cuda.to_device(log_rows), _cuda.to_device(row_of_beam),
                    step, last, result)  # fmt: skip
            gpu.launch(gpu.table_sums, n_poses, args)
    if out is not None:
        return out
    return _as_library(result, poses)


def _stack_likelihood(
    stack: GridStack, poses: Any, angles: Any, observed: Any, max_range: Any, model: Any,
    table: Any, table_resolution: Any, out: Any, mask: Any,
) -> Any:  # fmt: skip
    """``scan_likelihood`` on a ``GridStack``: poses (B, N, 3) on the device, answers (B, N).

    The beams of each map are cast on its own device map (one launch per
    map), then evaluated as the single-map call evaluates them: a table's
    sums on the device, a beam model by the CPU kernel. Bit for bit the CPU
    call on the stack.
    """
    from tilecast.sensor import BeamModel, beam_evaluator, table_terms
    from tilecast.sensor import scan_likelihood as cpu_scan_likelihood

    bits = as_mask(mask)
    d_poses = _as_device("poses", poses, "scan_likelihood")
    count = len(stack)
    _check_float_array("poses", d_poses, (count, None, 3))
    if _on_device(angles):
        angles = _view(angles).copy_to_host()
    if _on_device(observed):
        observed = _view(observed).copy_to_host()
    if _on_device(table):
        table = _view(table).copy_to_host()
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    n_poses, n_beams = d_poses.shape[1], len(angle_array)
    arrays = {"poses": poses} if out is None else {"poses": poses, "out": out}
    with _one_device(arrays):
        result = _device_out(out, (count, n_poses), np.dtype(np.float64), "scan_likelihood")
        with_table = model is None and table is not None
        with_model = (
            isinstance(model, BeamModel)
            and table is None
            and table_resolution is None
            and limit != math.inf
        )
        if not (with_table or with_model) or n_poses * n_beams == 0:
            # no rays to cast (or the CPU call's own error): the CPU call, on host poses
            answer = cpu_scan_likelihood(stack, d_poses.copy_to_host(), angle_array, observed,
                                         max_range=limit, model=model, table=table,
                                         table_resolution=table_resolution,
                                         mask=bits)  # fmt: skip
            result.copy_to_device(answer)
        else:
            readings = as_real_array("observed", observed)
            if readings.shape != (count, n_beams):
                raise ValueError(f"observed must have shape ({count}, {n_beams}) on a stack "
                                 f"(one scan per map), got {readings.shape}")  # fmt: skip
            template, d_values = _device_stack(stack, bits)
            gpu = _gpu()
            for b in range(count):
                row = as_observed(readings[b], n_beams)
                ranges = _cuda.device_array(n_poses * n_beams)
                _cast_beams_on(template._replace(info=d_values[b]),
                               lambda b=b: stack.map_for(b, bits), d_poses[b], angle_array,
                               limit, ranges)  # fmt: skip
                if model is not None:
                    answer = np.empty(n_poses)
                    beam_evaluator(model, row, limit, n_beams)(ranges.copy_to_host(), answer)
                    result[b].copy_to_device(answer)
                else:
                    log_rows, row_of_beam, step, last = table_terms(table, table_resolution, row)
                    args = (ranges, n_beams, _cuda.to_device(log_rows),
                            _cuda.to_device(row_of_beam), step, last, result[b])  # fmt: skip
                    gpu.launch(gpu.table_sums, n_poses, args)
    if out is not None:
        return out
    return _as_library(result, poses)


def _stack_raycast(
    stack: GridStack, origins: Any, directions: Any, max_distance: Any, diagonal_gaps: Any,
    ignore_start: Any, mask: Any,
) -> Hits:  # fmt: skip
    """``raycast_many`` on a ``GridStack``: rays (B, N, 2) on the device, one launch per map."""
    name = "raycast_many"
    bits = as_mask(mask)
    gaps = as_choice_index("diagonal_gaps", diagonal_gaps, DIAGONAL_GAPS)
    ignore = as_flag("ignore_start", ignore_start)
    count = len(stack)
    d_origins = _as_device("origins", origins, name)
    d_directions = _as_device("directions", directions, name)
    _check_float_array("origins", d_origins, (count, None, 2))
    _check_float_array("directions", d_directions, (count, None, 2))
    n_origins, n_directions = d_origins.shape[1], d_directions.shape[1]
    if n_origins != 1 and n_directions != 1 and n_origins != n_directions:
        raise ValueError(
            f"origins ({n_origins} per map) and directions ({n_directions} per map) must have "
            "the same number of rows, or one of them a single row per map"
        )
    n = n_directions if n_origins == 1 else n_origins
    arrays = {"origins": origins, "directions": directions}
    d_limits = None
    if isinstance(max_distance, int | float | np.floating | np.integer):
        limit = as_max_distance(float(max_distance))
    else:
        d_limits = _as_device("max_distance", max_distance, name)
        _check_float_array("max_distance", d_limits, (count, n))
        arrays["max_distance"] = max_distance
    with _one_device(arrays):
        one_limit = _cuda.to_device(np.array([limit])) if d_limits is None else None
        out = FirstHits(
            _cuda.device_array((count, n)), _cuda.device_array((count, n, 2)),
            _cuda.device_array((count, n, 2)), _cuda.device_array((count, n, 2), np.int64),
            _cuda.device_array((count, n), np.bool_), _cuda.device_array((count, n, 2), np.int64),
            _cuda.device_array((count, n), np.uint8),
        )  # fmt: skip
        hit = _cuda.device_array((count, n), np.bool_)
        if n:
            template, d_values = _device_stack(stack, bits)
            gpu = _gpu()
            stride = max(n, 1) if n_origins == 1 else 1
            for b in range(count):
                limits = one_limit if d_limits is None else d_limits[b]
                rays = RayBatch(d_origins[b], d_directions[b], stride, limits, gaps, ignore,
                                ALL_LAYERS)  # fmt: skip
                out_b = FirstHits(*(field[b] for field in out))
                unsafe = _cuda.to_device(np.zeros(1, np.int64))
                view = template._replace(info=d_values[b])
                gpu.launch(gpu.cast_rays, n, (view, rays, out_b, hit[b], unsafe))
                if int(unsafe.copy_to_host()[0]):
                    _finish_rays(stack.map_for(b, bits), rays, out_b, hit[b], gaps, ignore)
    distance, point, normal, cell, inside = (_as_library(a, origins) for a in out[:5])
    return Hits(_as_library(hit, origins), distance, point, normal, cell, inside, None)
