"""Input checks shared by every public function.

Each helper turns one user argument into the canonical Python or NumPy value
the library works with, or raises a ``ValueError`` / ``TypeError`` whose
message starts with the argument's name. Compiled kernels never see input that
has not passed through here: Numba does not bounds-check.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "as_choice",
    "as_direction",
    "as_finite_float",
    "as_nonnegative_float",
    "as_point",
    "as_points_array",
    "as_positive_float",
    "as_real_array",
]


def _is_real_scalar(value: Any) -> bool:
    if isinstance(value, bool | np.bool_):
        return False
    return isinstance(value, numbers.Real)


def as_finite_float(name: str, value: Any) -> float:
    """Return ``value`` as a finite Python float, or raise naming ``name``."""
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    result = float(value)
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
    if not _is_real_scalar(value):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    result = float(value)
    if math.isnan(result):
        raise ValueError(f"{name} must not be NaN")
    if result < 0.0:
        raise ValueError(f"{name} must be non-negative, got {result!r}")
    if math.isinf(result) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {result!r}")
    return result


def as_point(name: str, value: Any) -> tuple[float, float]:
    """Return a 2D point as a tuple of two finite floats, or raise naming ``name``."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(f"{name} must be a pair of numbers (x, y), got {type(value).__name__}")
    if len(value) != 2:
        raise ValueError(f"{name} must have exactly 2 coordinates, got {len(value)}")
    return (as_finite_float(f"{name}[0]", value[0]), as_finite_float(f"{name}[1]", value[1]))


def as_direction(name: str, value: Any) -> tuple[float, float]:
    """Return a finite, non-zero 2D direction (need not be unit length)."""
    dx, dy = as_point(name, value)
    if dx == 0.0 and dy == 0.0:
        raise ValueError(f"{name} must not be the zero vector")
    return dx, dy


def as_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, or raise naming ``name``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {list(choices)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def as_real_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as an array of real numbers (ints or floats, not bools), or raise."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged input
        raise ValueError(f"{name} must be a regular array of numbers: {exc}") from None
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)
    ):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    return array


def as_points_array(name: str, value: Any, *, allow_single: bool = True) -> np.ndarray:
    """Return an ``(N, 2)`` float64 C-contiguous array of finite values.

    A single point of shape ``(2,)`` becomes ``(1, 2)`` when ``allow_single``.
    """
    array = as_real_array(name, value)
    if array.ndim == 1 and allow_single and array.shape[0] == 2:
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must have shape (N, 2), got {array.shape}")
    array = np.ascontiguousarray(array, dtype=np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return array
