"""Input checks shared by every public function.

Each helper turns one user argument into the canonical Python or NumPy value
the library works with, or raises a ``ValueError`` / ``TypeError`` whose
message starts with the argument's name. Compiled kernels never see input that
has not passed through here: Numba does not bounds-check.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray


__all__ = [
    "LAYER_LIMIT",
    "MAGNITUDE_EXPONENT",
    "MAGNITUDE_HIGH",
    "MAGNITUDE_LOW",
    "RANGE_DTYPES",
    "all_finite",
    "as_angles",
    "as_bounds",
    "as_choice",
    "as_choice_index",
    "as_circles",
    "as_cone",
    "as_direction",
    "as_directions_array",
    "as_finite_float",
    "as_flag",
    "as_host_array",
    "as_layer_bits",
    "as_likelihood_table",
    "as_mask",
    "as_max_distances",
    "as_max_range",
    "as_nonnegative_float",
    "as_observed",
    "as_path",
    "as_point",
    "as_points_array",
    "as_poses",
    "as_positive_float",
    "as_range_dtype",
    "as_real_array",
    "as_segments",
    "as_shape_rows",
    "as_stack_array",
    "check_out",
]


def _is_real_scalar(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    return isinstance(value, numbers.Real)


def as_finite_float(name: str, value: Any) -> float:
    """Return ``value`` as a finite Python float, or raise naming ``name``."""
    if type(value) is float and value - value == 0.0:  # the common case, fast (not inf, NaN)
        return value
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        result = float(value)
    except OverflowError:  # an int (or Fraction) beyond the float range
        raise ValueError(f"{name} must be finite, got a number beyond the float range") from None
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite, got {result!r}")
    return result


def as_positive_float(name: str, value: Any) -> float:
    """Return ``value`` as a finite float > 0, or raise naming ``name``."""
    result = as_finite_float(name, value)
    if result <= 0.0:
        raise ValueError(f"{name} must be positive, got {result!r}")
    return result


def as_nonnegative_float(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float >= 0 (``inf`` allowed if asked), or raise."""
    if type(value) is float and 0.0 <= value < math.inf:  # the common case, fast
        return value
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        result = float(value)
    except OverflowError:  # an int beyond the float range: larger than any float
        result = math.inf if value > 0 else -math.inf
    if math.isnan(result):
        raise ValueError(f"{name} must not be NaN")
    if result < 0.0:
        raise ValueError(f"{name} must be non-negative, got {result!r}")
    if math.isinf(result) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {result!r}")
    return result


def tile_coordinates(
    name: str, point: tuple[float, float], origin: tuple[float, float], size: tuple[float, float]
) -> tuple[float, float]:
    """Map a checked world point to tile space, or raise ``ValueError`` naming it on overflow."""
    u = (point[0] - origin[0]) / size[0]
    v = (point[1] - origin[1]) / size[1]
    if not (math.isfinite(u) and math.isfinite(v)):
        raise ValueError(
            f"{name} {point} is too far from the map's origin {origin} for its cell size "
            f"{size}: its cell coordinates overflow a float"
        )
    return u, v


def as_max_distance(value: Any) -> float:
    """Return a ray's ``max_distance``: a float >= 0, ``inf`` allowed (fast for a float)."""
    if type(value) is float and value >= 0.0:  # also rejects NaN
        return value
    return as_nonnegative_float("max_distance", value, allow_inf=True)


def as_point(name: str, value: Any) -> tuple[float, float]:
    """Return a 2D point as a tuple of two finite floats, or raise naming ``name``.

    Any sequence of two real numbers is a point: a tuple or list, a NumPy
    array of shape (2,), a ``pygame.Vector2``.
    """
    kind = type(value)
    if (kind is tuple or kind is list) and len(value) == 2:
        x, y = value
        # the common case, fast: x - x == 0 is False for inf and NaN
        if type(x) is float and type(y) is float and x - x == 0.0 and y - y == 0.0:
            return value if kind is tuple else (x, y)
    if isinstance(value, str | bytes) or not hasattr(value, "__getitem__"):
        raise TypeError(f"{name} must be a pair of numbers (x, y), got {type(value).__name__}")
    try:
        size = len(value)
    except TypeError:
        raise TypeError(
            f"{name} must be a pair of numbers (x, y), got {type(value).__name__}"
        ) from None
    if size != 2:
        raise ValueError(f"{name} must have exactly 2 coordinates, got {size}")
    return (as_finite_float(f"{name}[0]", value[0]), as_finite_float(f"{name}[1]", value[1]))


def as_direction(name: str, value: Any) -> tuple[float, float]:
    """Return a finite, non-zero 2D direction (need not be unit length)."""
    dx, dy = as_point(name, value)
    if dx == 0.0 and dy == 0.0:
        raise ValueError(f"{name} must not be the zero vector")
    return dx, dy


def as_flag(name: str, value: Any) -> bool:
    """Return ``value`` if it is True or False, or raise naming ``name``."""
    if value is not True and value is not False:
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return value


def as_choice_index(name: str, value: Any, choices: Sequence[str]) -> int:
    """Return the index of ``value`` in ``choices``, or raise naming ``name``."""
    if type(value) is str and value in choices:
        return choices.index(value)
    return choices.index(as_choice(name, value, choices))


def as_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, or raise naming ``name``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {list(choices)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def as_path(name: str, value: Any) -> Path:
    """Return ``value`` (a str or os.PathLike) as a ``Path``, or raise naming ``name``."""
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {type(value).__name__}")
    return Path(value)


def as_host_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a NumPy array, without a copy where possible.

    NumPy arrays pass as they are. Any array exposing ``__dlpack__`` (PyTorch,
    JAX, CuPy ...) is viewed through :func:`numpy.from_dlpack` when it lives
    in CPU memory; one on another device is a ``ValueError`` naming ``name``.
    Anything else goes through :func:`numpy.asarray` (``__array_interface__``,
    ``__array__``, nested sequences).
    """
    if type(value) is np.ndarray:
        return value
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        device = value.__dlpack_device__()
        if int(device[0]) != _DLPACK_CPU:
            raise ValueError(
                f"{name} lives on a device ({_device_name(device)}), not in CPU memory: "
                "copy it to the CPU first (or use tilecast.cuda)"
            )
        try:
            return np.from_dlpack(value)
        except (TypeError, ValueError, BufferError, RuntimeError):
            pass  # e.g. a dtype DLPack cannot carry to NumPy: the general path
    try:
        return np.asarray(value)
    except (TypeError, ValueError, RuntimeError) as exc:  # ragged input
        raise ValueError(f"{name} must be a regular array of numbers: {exc}") from None


_DLPACK_CPU = 1  # DLPack's kDLCPU
_DLPACK_DEVICES = {2: "CUDA", 3: "CUDA host", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 10: "ROCm",
                   13: "CUDA managed", 14: "oneAPI"}  # fmt: skip


def _device_name(device: Any) -> str:
    kind, number = int(device[0]), int(device[1])
    return f"{_DLPACK_DEVICES.get(kind, f'DLPack device type {kind}')} device {number}"


def as_real_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as an array of real numbers (ints or floats, not bools), or raise."""
    array = as_host_array(name, value)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    return array


def all_finite(array: np.ndarray) -> bool:
    """Return True when no entry of the float array is NaN or infinite (fast on small arrays)."""
    if array.size <= 16:  # Python is faster than two ufunc calls here
        return all(map(math.isfinite, array.ravel().tolist()))
    # max() propagates NaN, and NaN < inf is False
    return bool(np.abs(array).max() < math.inf)


def as_points_array(name: str, value: Any, *, allow_single: bool = True) -> np.ndarray:
    """Return an ``(N, 2)`` float64 C-contiguous array of finite values.

    A single point of shape ``(2,)`` becomes ``(1, 2)`` when ``allow_single``.
    """
    if allow_single and type(value) is tuple and len(value) == 2:
        return np.array([as_point(name, value)])
    if type(value) is list and 0 < len(value) <= 16 and all(type(p) is tuple for p in value):
        # a short list of (x, y) tuples: NumPy's conversion is the slow part
        # of a small batch, so check the floats first and convert once
        try:
            points = [as_point(name, p) for p in value]
        except (TypeError, ValueError):
            pass  # the general path below names the argument and the problem
        else:
            return np.array(points)
    array = as_real_array(name, value)
    if array.ndim == 1 and allow_single and array.shape[0] == 2:
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must have shape (N, 2), got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    if not all_finite(array):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return array


_INF_DISTANCE = np.full(1, math.inf)  # never written


def as_max_distances(value: Any, n: int) -> NDArray[np.float64]:
    """Return ``max_distance`` (a scalar or ``(n,)``) as a float64 array of 1 or n limits."""
    if type(value) is float and value >= 0.0:
        return _INF_DISTANCE if value == math.inf else np.full(1, value)
    array = as_real_array("max_distance", value)
    if array.ndim == 0:
        array = array.reshape(1)
    elif array.shape != (n,):
        raise ValueError(f"max_distance must be a scalar or have shape ({n},), got {array.shape}")
    if np.isnan(array).any():
        raise ValueError("max_distance must not be NaN")
    if (array < 0).any():
        raise ValueError("max_distance must be non-negative")
    return np.ascontiguousarray(array, dtype=np.float64)


def as_directions_array(value: Any) -> NDArray[np.float64]:
    """Return ``directions`` as ``(N, 2)`` float64 rows, none of them the zero vector."""
    directions = as_points_array("directions", value)
    if len(directions) <= 16:  # Python is faster than three ufunc calls here
        if (0.0, 0.0) not in map(tuple, directions.tolist()):
            return directions
    zero = (directions[:, 0] == 0.0) & (directions[:, 1] == 0.0)
    if zero.any():
        raise ValueError(
            f"directions must not contain the zero vector (row {int(np.argmax(zero))})"
        )
    return directions


def as_cell(name: str, cell: Any) -> tuple[int, int]:
    """Return one cell ``(i, j)`` as two Python ints (numpy integers accepted, bools not)."""
    if isinstance(cell, str | bytes) or not hasattr(cell, "__len__") or len(cell) != 2:
        raise TypeError(f"{name} must be a pair of integers (i, j)")
    out = []
    for k, c in enumerate(cell):
        if isinstance(c, bool | np.bool_) or not isinstance(c, int | np.integer):
            raise TypeError(f"{name}[{k}] must be an integer, got {type(c).__name__}")
        out.append(int(c))
    return (out[0], out[1])


def as_cell_array(name: str, cells: Any) -> np.ndarray:
    """Return cells as an ``(N, 2)`` int64 C-contiguous array (one ``(i, j)`` gives one row)."""
    try:
        array = np.asarray(cells)
    except (TypeError, ValueError, OverflowError) as exc:  # ragged, or ints beyond int64
        raise ValueError(
            f"{name} must be one cell (i, j) or an (N, 2) array of integers: {exc}"
        ) from None
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        if array.size == 0:
            array = array.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    if array.ndim == 1 and array.shape[0] == 2:
        array = array.reshape(1, 2)
    if array.ndim == 1 and array.shape[0] == 0:
        array = array.reshape(0, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(
            f"{name} must be one cell (i, j) or an array of shape (N, 2), got {array.shape}"
        )
    return np.ascontiguousarray(array, dtype=np.int64)


def as_int(name: str, value: Any, minimum: int) -> int:
    """Return ``value`` as an int of at least ``minimum`` (bools refused)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


#: One past the largest layer bit field (DESIGN 20: 32 collision layers).
LAYER_LIMIT = 2**32


def as_mask(value: Any, name: str = "mask") -> int:
    """Return a layer mask: an integer in ``[0, 2**32)`` (bools refused)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(
            f"{name} must be an integer bit field (0 to 0xFFFFFFFF), got {type(value).__name__}"
        )
    if not 0 <= value < LAYER_LIMIT:
        raise ValueError(f"{name} must be a 32-bit layer mask (0 to 0xFFFFFFFF), got {value}")
    return int(value)


def as_layer_bits(name: str, value: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Return layer bit fields as a C-contiguous uint32 array (a copy).

    Bools are layer bit 1 (True) or no layer; integers must lie in
    ``[0, 2**32)``. ``shape``, when given, is the shape required (a scalar
    is broadcast to it).
    """
    try:
        array = as_host_array(name, value)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith(name):
            raise
        raise ValueError(f"{name} must be an array of layer bits: {exc}") from None
    if array.dtype != np.bool_ and not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"{name} must hold bool or integer layer bits (0 to 0xFFFFFFFF), "
            f"got dtype {array.dtype}"
        )
    if array.dtype != np.bool_ and array.size:
        low, high = int(array.min()), int(array.max())
        if low < 0 or high >= LAYER_LIMIT:
            bad = low if low < 0 else high
            raise ValueError(f"{name} must hold layer bits 0 to 0xFFFFFFFF, got {bad}")
    if shape is not None:
        if array.ndim == 0:
            array = np.broadcast_to(array, shape)
        elif array.shape != shape:
            raise ValueError(f"{name} must be one value or of shape {shape}, got {array.shape}")
    return np.array(array, dtype=np.uint32, order="C", copy=True)


def as_pixel_size(name: str, value: Any) -> tuple[int, int]:
    """Return an integer size ``n`` or ``(width, height)`` in pixels as a pair."""
    if isinstance(value, tuple | list | np.ndarray):
        if len(value) != 2:
            raise ValueError(f"{name} must be an integer or (width, height), got {value!r}")
        return (as_int(f"{name}[0]", value[0], 1), as_int(f"{name}[1]", value[1], 1))
    size = as_int(name, value, 1)
    return (size, size)


def as_int_array(name: str, value: Any, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Return a non-empty 2D integer array, or one of exactly ``shape``."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2D array of integers: {exc}") from None
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    if shape is None:
        if array.ndim != 2:
            raise ValueError(f"{name} must be 2D (rows, cols), got {array.ndim} dimensions")
        if array.shape[0] == 0 or array.shape[1] == 0:
            raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    elif array.shape != shape:
        raise ValueError(f"{name} must have the shape of tile_ids {shape}, got {array.shape}")
    return array


def as_tile_size(tile_size: Any) -> tuple[float, float]:
    """Return a positive size ``s`` or ``(width, height)`` as a pair of floats."""
    if isinstance(tile_size, tuple | list | np.ndarray):
        width, height = as_point("tile_size", tile_size)
        return (as_positive_float("tile_size[0]", width), as_positive_float("tile_size[1]", height))
    size = as_positive_float("tile_size", tile_size)
    return (size, size)


def as_rect(name: str, rect: Any) -> tuple[float, float, float, float]:
    """Return ``(x0, y0, x1, y1)`` of finite floats with ``x0 <= x1`` and ``y0 <= y1``."""
    if isinstance(rect, str | bytes) or not hasattr(rect, "__len__"):
        raise TypeError(f"{name} must be (x0, y0, x1, y1), got {type(rect).__name__}")
    if len(rect) != 4:
        raise ValueError(f"{name} must have 4 numbers (x0, y0, x1, y1), got {len(rect)}")
    x0, y0, x1, y1 = (as_finite_float(f"{name}[{k}]", v) for k, v in enumerate(rect))
    if x0 > x1 or y0 > y1:
        raise ValueError(f"{name} must have x0 <= x1 and y0 <= y1, got {(x0, y0, x1, y1)}")
    return (x0, y0, x1, y1)


# ---------------------------------------------- regular arrays, magnitudes (issue 16)
def as_regular_array(name: str, value: Any) -> np.ndarray:
    """Return ``np.asarray(value)``; ragged or odd input is a ``ValueError`` naming ``name``."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError) as exc:  # ragged lists, huge ints
        raise ValueError(f"{name} must be a regular array of numbers: {exc}") from None


def check_magnitude(
    name: str, array: np.ndarray | tuple[float, ...], low: float, high: float
) -> None:
    """Raise naming ``name`` unless every non-zero ``|value|`` lies in ``[low, high]``.

    ``array``: an array of floats, or a tuple of floats (a point, a radius,
    bounds: checked in Python, without NumPy's per-call cost).

    Examples
    --------
    >>> check_magnitude("radius", (2.0,), 2.0**-400, 2.0**400)
    >>> check_magnitude("observer", np.array([0.0, 1e300]), 2.0**-400, 2.0**400)
    Traceback (most recent call last):
    ...
    ValueError: observer must have coordinates of magnitude at most 2.58e+120, got 1e+300
    """
    if isinstance(array, tuple) or array.size <= _FEW:
        values = array if isinstance(array, tuple) else array.ravel().tolist()
        if any(v != v for v in values):  # NaN (callers check finiteness first): not checked
            return
        largest = max((abs(v) for v in values), default=0.0)
        smallest = min((abs(v) for v in values if v != 0.0), default=math.inf)
    else:
        magnitude = np.abs(array)
        largest = magnitude.max()
        small = magnitude[magnitude > 0.0]
        smallest = small.min() if small.size else math.inf
    if largest > high:
        raise ValueError(
            f"{name} must have coordinates of magnitude at most {high:.3g}, "
            f"got {float(largest):.3g}"
        )
    if smallest < low:
        raise ValueError(
            f"{name} must have non-zero coordinates of magnitude at least {low:.3g}, "
            f"got {float(smallest):.3g}"
        )


_FEW = 16  # arrays this small are checked in Python


# --------------------------------------------------- walls and visibility queries
#: Non-zero wall coordinates (and radii) must have magnitudes in
#: ``[2**-MAGNITUDE_EXPONENT, 2**MAGNITUDE_EXPONENT]`` (about 3.9e-121 to
#: 2.6e120): there the orientation predicates are exact on every point the
#: visibility sweep forms and no computed vertex overflows (docs: numeric_range.md).
MAGNITUDE_EXPONENT = 400
MAGNITUDE_LOW, MAGNITUDE_HIGH = 2.0**-MAGNITUDE_EXPONENT, 2.0**MAGNITUDE_EXPONENT


def as_segments(name: str, value: Any) -> np.ndarray:
    """Return walls of shape ``(M, 2, 2)`` as a C-contiguous ``(M, 4)`` float64 array."""
    array = as_regular_array(name, value)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.size == 0:
        return np.empty((0, 4))
    if array.ndim != 3 or array.shape[1:] != (2, 2):
        raise ValueError(f"{name} must have shape (M, 2, 2), got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64).reshape(-1, 4)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return array


def as_circles(value: Any) -> np.ndarray:
    """Return circular occluders ``(x, y, radius)`` as a ``(C, 3)`` float64 array."""
    array = as_regular_array("circles", value)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
        raise TypeError(f"circles must hold real numbers, got dtype {array.dtype}")
    if array.size == 0:
        return np.empty((0, 3))
    if array.ndim == 1 and array.shape[0] == 3:
        array = array.reshape(1, 3)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"circles must have shape (C, 3) rows (x, y, radius), got {array.shape}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        raise ValueError("circles must contain only finite values")
    if (array[:, 2] <= 0).any():
        raise ValueError("circles radii must be positive")
    return array


def as_cone(value: Any) -> tuple[float, float, float] | None:
    """Return a cone ``((dx, dy), half_angle)`` as ``(mid_angle, half_angle, 0.0)``.

    None when the half angle is pi or more (the full turn).
    """
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError("cone must be ((dx, dy), half_angle_radians)")
    dx, dy = as_point("cone[0]", value[0])
    if dx == 0.0 and dy == 0.0:
        raise ValueError("cone[0] (the direction) must not be the zero vector")
    half = as_finite_float("cone[1]", value[1])
    if half <= 0.0:
        raise ValueError(f"cone[1] (the half angle) must be positive, got {half!r}")
    if half >= math.pi:
        return None  # the full turn
    return math.atan2(dy, dx), half, 0.0


def as_bounds(value: Any) -> tuple[float, float, float, float]:
    """Return a clipping rectangle ``(x0, y0, x1, y1)`` with ``x0 < x1`` and ``y0 < y1``."""
    if not isinstance(value, tuple | list | np.ndarray) or len(value) != 4:
        raise TypeError("bounds must be (x0, y0, x1, y1)")
    x0, y0, x1, y1 = (as_finite_float(f"bounds[{k}]", v) for k, v in enumerate(value))
    if not (x0 < x1 and y0 < y1):
        raise ValueError(f"bounds must have x0 < x1 and y0 < y1, got {tuple(value)}")
    return x0, y0, x1, y1


# ------------------------------------------------------ scans and sensor models
def as_angles(angles: Any) -> NDArray[np.float64]:
    """``angles`` as a flat C-contiguous float64 array of finite numbers."""
    if (type(angles) is np.ndarray and angles.dtype == _F64 and angles.ndim == 1
            and angles.flags.c_contiguous and all_finite(angles)):  # fmt: skip
        return angles  # the common case, fast
    array = as_real_array("angles", angles)
    array = np.ascontiguousarray(array, dtype=np.float64).reshape(-1)
    if not np.isfinite(array).all():
        raise ValueError("angles must be finite")
    return array


def as_poses(poses: Any) -> NDArray[np.float64]:
    """``poses`` as a C-contiguous (P, 3) float64 array of finite ``(x, y, theta)``."""
    if (type(poses) is np.ndarray and poses.dtype == _F64 and poses.ndim == 2
            and poses.shape[1] == 3 and poses.flags.c_contiguous
            and all_finite(poses)):  # fmt: skip
        return poses  # the common case, fast
    array = as_real_array("poses", poses)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"poses must have shape (P, 3) for (x, y, theta), got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    if not np.isfinite(array).all():
        raise ValueError("poses must be finite")
    return array


def as_stack_array(name: str, value: Any, count: int, width: int) -> NDArray[np.float64]:
    """``value`` as a C-contiguous ``(count, K, width)`` float64 array of finite numbers.

    The per-map rows of a ``GridStack`` query: the leading axis is the map.
    """
    array = as_real_array(name, value)
    if array.ndim != 3 or array.shape[2] != width:
        raise ValueError(f"{name} must have shape (B, K, {width}) on a stack of B maps, "
                         f"got {array.shape}")  # fmt: skip
    if array.shape[0] != count:
        raise ValueError(f"{name} must have one row per map: leading dimension {count} "
                         f"(the stack's B), got shape {array.shape}")  # fmt: skip
    array = np.ascontiguousarray(array, dtype=np.float64)
    if not all_finite(array):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return array


def as_shape_rows(name: str, value: Any, count: int | None, width: int) -> NDArray[np.float64]:
    """Circles ``(x, y, r)`` or boxes ``(cx, cy, hw, hh, angle)`` of each map, ``(M, K, width)``.

    ``count`` None: one map's ``(K, width)`` (M = 1); else a stack's
    ``(count, K, width)``. A row of NaN is no shape (kept, the kernels skip
    it); a row with NaN in only some entries, an infinite entry, or a
    negative radius or half extent is an error naming ``name``.
    """
    if type(value) is np.ndarray and value.dtype == _F64 and value.flags.c_contiguous:
        fast = _plain_shape_rows(value, count, width)
        if fast is not None:
            return fast
    array = as_real_array(name, value)
    expected = f"(K, {width})" if count is None else f"(B, K, {width}) with B = {count}"
    if count is None:
        if array.ndim != 2 or array.shape[1] != width:
            raise ValueError(f"{name} must have shape {expected}, got {array.shape}")
        array = array[None]
    elif array.ndim != 3 or array.shape[0] != count or array.shape[2] != width:
        raise ValueError(f"{name} must have shape {expected} on a stack, got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    nan = np.isnan(array)
    empty = nan.all(axis=-1)
    if (nan.any(axis=-1) & ~empty).any():
        m, k = np.argwhere(nan.any(axis=-1) & ~empty)[0]
        row = f"{name}[{k}]" if count is None else f"{name}[{m}, {k}]"
        raise ValueError(f"{row} has NaN in some entries only (a row of NaN is no shape)")
    if np.isinf(array).any():
        raise ValueError(f"{name} must be finite (or rows of NaN)")
    sizes = array[..., 2:3] if width == 3 else array[..., 2:4]
    if (sizes < 0).any():
        what = "radius" if width == 3 else "half width and half height"
        raise ValueError(f"{name} must have a non-negative {what}")
    return array


def _plain_shape_rows(
    array: NDArray[np.float64], count: int | None, width: int
) -> NDArray[np.float64] | None:
    """``array`` as :func:`as_shape_rows` returns it when nothing needs a closer look, else None.

    The fast path for a float64 C-contiguous array of the right shape whose
    entries are all finite (one sum) with no negative size (one minimum):
    two reductions where the general path takes seven. Rows of NaN (free
    slots), and anything wrong, go the general way, which names the problem.
    """
    if count is None:
        if array.ndim != 2 or array.shape[1] != width:
            return None
        array = array[None]
    elif array.ndim != 3 or array.shape[0] != count or array.shape[2] != width:
        return None
    if array.size == 0:
        return array
    sizes = array[..., 2:3] if width == 3 else array[..., 2:4]
    if not all_finite(array) or _min_reduce(sizes, axis=None) < 0.0:
        return None
    return array


_F64 = np.dtype(np.float64)
_min_reduce = np.minimum.reduce
RANGE_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


def as_max_range(value: Any) -> float:
    """``max_range`` as a float > 0; ``inf`` allowed (a beam that hits nothing reports it)."""
    result = as_nonnegative_float("max_range", value, allow_inf=True)
    if result == 0.0:
        raise ValueError("max_range must be positive, got 0.0")
    return result


def as_range_dtype(dtype: Any) -> np.dtype[Any]:
    """``dtype`` for ranges: float32 or float64."""
    try:
        result: np.dtype[Any] = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be float32 or float64, got {dtype!r}") from None
    if result not in RANGE_DTYPES:
        raise ValueError(f"dtype must be float32 or float64, got {result}")
    return result


def check_out(
    out: Any, shape: tuple[int, ...], dtypes: tuple[np.dtype[Any], ...], inputs: tuple[Any, ...]
) -> NDArray[np.floating[Any]]:
    """Return ``out`` as a NumPy array if it can take the result, else raise naming ``out``.

    Shape, dtype, C order, writable, no aliasing. ``out`` may be any CPU
    array exposing ``__dlpack__`` or ``__array_interface__`` (a PyTorch
    tensor, say): the array returned is a view of its memory, so writing
    into it fills ``out`` in place.
    """
    if not isinstance(out, np.ndarray):
        if not (hasattr(out, "__dlpack__") or hasattr(out, "__array_interface__")):
            raise TypeError(
                "out must be a NumPy array or a CPU array exposing __dlpack__ or "
                f"__array_interface__, got {type(out).__name__}"
            )
        out = as_host_array("out", out)
    if out.shape != shape:
        raise ValueError(f"out must have shape {shape}, got {out.shape}")
    if out.dtype not in dtypes:
        names = " or ".join(str(d) for d in dtypes)
        raise TypeError(f"out must have dtype {names} (native byte order), got {out.dtype}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if not out.flags.writeable:
        raise ValueError("out must be writable")
    if any(np.may_share_memory(out, array) for array in inputs):
        raise ValueError("out must not share memory with the input arrays")
    checked: NDArray[np.floating[Any]] = out
    return checked


def as_observed(observed: Any, n_beams: int) -> NDArray[np.float64]:
    """``observed`` as ``n_beams`` finite, non-negative float64 readings."""
    array = as_real_array("observed", observed)
    if array.shape != (n_beams,):
        raise ValueError(f"observed must have shape ({n_beams},) (one reading per angle), "
                         f"got {array.shape}")  # fmt: skip
    return _finite_nonnegative("observed", array, " (a sensor's 'no return' is max_range)", "")


def as_likelihood_table(table: Any) -> NDArray[np.float64]:
    """``table`` as a non-empty 2D float64 array of finite, non-negative probabilities."""
    array = as_real_array("table", table)
    if array.ndim != 2 or array.size == 0:
        raise ValueError("table must be a non-empty 2D array [observed_index, expected_index], "
                         f"got shape {array.shape}")  # fmt: skip
    return _finite_nonnegative("table", array, "", " (probabilities)")


def _finite_nonnegative(
    name: str, array: np.ndarray, finite_note: str, sign_note: str
) -> NDArray[np.float64]:
    """``array`` as C-contiguous float64 of finite values >= 0, or raise naming ``name``."""
    array = np.ascontiguousarray(array, dtype=np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite{finite_note}")
    if (array < 0.0).any():
        raise ValueError(f"{name} must be non-negative{sign_note}")
    return array


# ---------------------------------------------------------------- mapping
def as_scan_ranges(ranges: Any, n_poses: int, n_beams: int) -> NDArray[np.float64]:
    """``ranges`` as a C-contiguous (n_poses, n_beams) float64 array, none NaN or negative.

    ``inf`` is a beam with no return.
    """
    array = as_real_array("ranges", ranges)
    if array.shape != (n_poses, n_beams):
        raise ValueError(
            f"ranges must have shape (N, R) = ({n_poses}, {n_beams}): one row per pose, "
            f"one column per angle, got {array.shape}"
        )
    array = np.ascontiguousarray(array, dtype=np.float64)
    nan = np.isnan(array)
    if nan.any():
        row, beam = np.argwhere(nan)[0].tolist()
        raise ValueError(
            f"ranges must not be NaN, got NaN at ranges[{row}, {beam}] (an invalid reading, "
            "REP 117; give inf for 'no return', or leave the beam out)"
        )
    negative = array < 0.0
    if negative.any():
        row, beam = np.argwhere(negative)[0].tolist()
        raise ValueError(
            f"ranges must be non-negative, got {array[row, beam]!r} at ranges[{row}, {beam}]"
        )
    return array


def as_open_probability(name: str, value: Any) -> float:
    """Return a probability strictly between 0 and 1, or raise naming ``name``."""
    result = as_finite_float(name, value)
    if not 0.0 < result < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {result!r}")
    return result


def as_map_shape(value: Any) -> tuple[int, int]:
    """Return ``(rows, cols)``, two positive ints (bools refused), or raise naming ``shape``."""
    if isinstance(value, str | bytes) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"shape must be (rows, cols), got {value!r}")
    rows, cols = value
    for name, size in (("shape[0]", rows), ("shape[1]", cols)):
        if isinstance(size, bool | np.bool_) or not isinstance(size, numbers.Integral):
            raise TypeError(f"{name} must be an int, got {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"{name} must be positive, got {int(size)}")
    if int(rows) * int(cols) >= 2**40:
        raise ValueError(f"shape {(int(rows), int(cols))} is too large (2**40 cells or more)")
    return int(rows), int(cols)
