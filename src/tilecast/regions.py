"""Range queries on a tile map: the tiles in a rectangle or a circle.

A cell is its *closed* box here (touching counts), in contrast to the
half-open boxes that ray walks use: a range query wants every tile that could
matter. Results are clipped to the map (negative indices never wrap) and
listed row by row: rows ascending, then columns ascending, as ``(K, 2)``
arrays of ``(col, row)``.

- :func:`tiles_in_rect` maps the rectangle to tile space like a point
  (``u = (x - ox) / w``) and decides on those doubles.
- :func:`tiles_in_circle` decides in world units, with each cell's box corners
  ``ox + i*w`` taken exactly as the float64 values :meth:`Grid.cell_bounds`
  gives; it computes each row's first and last cell from a float estimate
  (``sqrt``) corrected by exact tests, never by testing every cell.
- :func:`circle_intersects_rect` is the underlying exact predicate, scalar or
  broadcast over arrays.

The spatial hash for game objects lives in :mod:`tilecast.spatial_hash`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from tilecast._exact import _ABS, _REL, gap, sq_le
from tilecast._validate import as_finite_float, as_nonnegative_float, as_point
from tilecast.grid import Grid

__all__ = ["circle_intersects_rect", "tiles_in_circle", "tiles_in_rect"]


# ----------------------------------------------------------------- validation
def _as_grid(grid: Any) -> Grid:
    if not isinstance(grid, Grid):
        raise TypeError(f"grid must be a tilecast.Grid, got {type(grid).__name__}")
    return grid


def _as_rect(name: str, rect: Any) -> tuple[float, float, float, float]:
    if isinstance(rect, str | bytes) or not hasattr(rect, "__len__"):
        raise TypeError(f"{name} must be (x0, y0, x1, y1), got {type(rect).__name__}")
    if len(rect) != 4:
        raise ValueError(f"{name} must have 4 numbers (x0, y0, x1, y1), got {len(rect)}")
    x0, y0, x1, y1 = (as_finite_float(f"{name}[{k}]", v) for k, v in enumerate(rect))
    if x0 > x1 or y0 > y1:
        raise ValueError(f"{name} must have x0 <= x1 and y0 <= y1, got {(x0, y0, x1, y1)}")
    return (x0, y0, x1, y1)


def _cells_from_spans(rows: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Concatenate the column spans ``lo..hi`` of the given rows, row by row."""
    counts = np.maximum(hi - lo + 1, 0)
    total = int(counts.sum())
    out = np.empty((total, 2), dtype=np.int64)
    row_of = np.repeat(rows, counts)
    starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
    out[:, 0] = starts + np.arange(total, dtype=np.int64)
    out[:, 1] = row_of
    return out


def _index_span(lo_t: float, hi_t: float, count: int) -> tuple[int, int]:
    """Return the first and last k in [0, count) whose box [k, k+1] meets [lo_t, hi_t]."""
    # k + 1 >= lo_t  <=>  k >= ceil(lo_t) - 1 ;  k <= hi_t  <=>  k <= floor(hi_t).
    # Clamping first keeps huge or infinite tile coordinates out of int().
    first = max(math.ceil(min(max(lo_t, -1.0), count + 1.0)) - 1, 0)
    last = min(math.floor(min(max(hi_t, -1.0), count + 1.0)), count - 1)
    return first, last


# ------------------------------------------------------------------ rectangle
def tiles_in_rect(grid: Grid, rect: Any) -> np.ndarray:
    """Cells whose closed box meets the closed rectangle, clipped to the map.

    Parameters
    ----------
    grid : Grid
    rect : (x0, y0, x1, y1)
        World rectangle with ``x0 <= x1`` and ``y0 <= y1``; mapped to tile
        space like a point, ``u = (x - ox) / w``.

    Returns
    -------
    ndarray of int64, shape (K, 2)
        ``(col, row)``, rows ascending, then columns ascending.

    Examples
    --------
    >>> from tilecast import Grid, tiles_in_rect
    >>> grid = Grid([[0] * 4] * 3)
    >>> tiles_in_rect(grid, (0.5, 0.5, 2.0, 1.5)).tolist()  # x = 2.0 touches column 2
    [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]
    >>> tiles_in_rect(grid, (-5.0, -5.0, -0.5, 9.0)).shape  # left of the map
    (0, 2)
    """
    grid = _as_grid(grid)
    x0, y0, x1, y1 = _as_rect("rect", rect)
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    i0, i1 = _index_span((x0 - ox) / w, (x1 - ox) / w, grid.cols)
    j0, j1 = _index_span((y0 - oy) / h, (y1 - oy) / h, grid.rows)
    if i0 > i1 or j0 > j1:
        return np.empty((0, 2), dtype=np.int64)
    rows = np.arange(j0, j1 + 1, dtype=np.int64)
    return _cells_from_spans(
        rows, np.full(len(rows), i0, dtype=np.int64), np.full(len(rows), i1, dtype=np.int64)
    )


# --------------------------------------------------------------------- circle
def _first_true(pred: Callable[[int], bool], lo: int, hi: int, guess: float) -> int:
    """Smallest ``k`` in ``[lo, hi]`` with ``pred(k)`` (monotone False..True); ``hi + 1`` if none.

    Starts at the float ``guess`` and gallops away from it, so an accurate
    guess costs two or three predicate calls.
    """
    if lo > hi:
        return hi + 1
    k = int(min(max(guess, lo), hi)) if math.isfinite(guess) else lo
    if pred(k):
        # answer <= k: gallop down to a False, then bisect
        step, good = 1, k
        while True:
            probe = good - step
            if probe < lo:
                bad = lo - 1
                break
            if not pred(probe):
                bad = probe
                break
            good, step = probe, step * 2
    else:
        step, bad = 1, k
        while True:
            probe = bad + step
            if probe > hi:
                good = hi + 1
                break
            if pred(probe):
                good = probe
                break
            bad, step = probe, step * 2
    while good - bad > 1:  # pred(bad) is False (or bad < lo), pred(good) True (or > hi)
        mid = (good + bad) // 2
        if pred(mid):
            good = mid
        else:
            bad = mid
    return good


def _circle_span(
    c: float, r2_rest: tuple[tuple[float, float], float], o: float, s: float, count: int
) -> tuple[int, int]:
    """First and last index along one axis whose closed cell interval is within reach.

    ``r2_rest = (g, r)``: the other axis' exact gap ``g`` and the radius; cell
    ``k`` spans ``[o + k*s, o + (k+1)*s]`` and is in reach when its gap to
    ``c`` satisfies ``gap**2 + g**2 <= r**2`` exactly.
    """
    g, r = r2_rest
    zero = (0.0, 0.0)

    def reaches_left(k: int) -> bool:  # the interval's right end is not left of the reach
        edge = o + (k + 1) * s
        return edge >= c or sq_le((c, edge), g, r)

    def reaches_right(k: int) -> bool:  # the interval's left end is not right of the reach
        edge = o + k * s
        return edge <= c or sq_le((edge, c), g, r)

    gg = g[0] - g[1]
    rho = math.sqrt(max(r * r - gg * gg, 0.0)) if g != zero else r
    first = _first_true(reaches_left, 0, count - 1, (c - rho - o) / s - 1.0)
    # the last k with reaches_right is one before the first k where it fails
    last = _first_true(lambda k: not reaches_right(k), 0, count - 1, (c + rho - o) / s + 1.0) - 1
    return first, last


def tiles_in_circle(grid: Grid, center: Any, radius: float) -> np.ndarray:
    """Cells whose closed box meets the closed disc, clipped to the map, row by row.

    Decided exactly in world units, with each box's corners taken as the
    float64 values ``ox + i*w``, ``oy + j*h`` (:meth:`Grid.cell_bounds`). Each
    row's first and last cell come from a float estimate corrected by exact
    tests; interior cells are never tested.

    Parameters
    ----------
    grid : Grid
    center : (float, float)
        World point.
    radius : float
        Non-negative; a radius of 0 returns the cells whose box holds the point.

    Returns
    -------
    ndarray of int64, shape (K, 2)
        ``(col, row)``, rows ascending, then columns ascending.

    Examples
    --------
    >>> from tilecast import Grid, tiles_in_circle
    >>> grid = Grid([[0] * 5] * 5)
    >>> tiles_in_circle(grid, (2.5, 2.5), 0.5).tolist()  # touches 4 neighbours' edges
    [[2, 1], [1, 2], [2, 2], [3, 2], [2, 3]]
    >>> len(tiles_in_circle(grid, (2.5, 2.5), 0.7))  # diagonal neighbours need sqrt(0.5)
    5
    >>> len(tiles_in_circle(grid, (2.0, 2.0), 0.0))  # a lattice point touches 4 boxes
    4
    """
    grid = _as_grid(grid)
    cx, cy = as_point("center", center)
    r = as_nonnegative_float("radius", radius)
    (ox, oy), (w, h) = grid.origin, grid.tile_size
    zero = (0.0, 0.0)
    j0, j1 = _circle_span(cy, (zero, r), oy, h, grid.rows)
    if j0 > j1:
        return np.empty((0, 2), dtype=np.int64)
    rows = np.arange(j0, j1 + 1, dtype=np.int64)
    lo = np.empty(len(rows), dtype=np.int64)
    hi = np.empty(len(rows), dtype=np.int64)
    for k, j in enumerate(range(j0, j1 + 1)):
        gy = gap(cy, oy + j * h, oy + (j + 1) * h)
        lo[k], hi[k] = _circle_span(cx, (gy, r), ox, w, grid.cols)
    return _cells_from_spans(rows, lo, hi)


# ------------------------------------------------------------------ predicate
def _as_float_array(name: str, value: Any) -> np.ndarray:
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of numbers: {exc}") from None
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)
    ):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return array


def circle_rect_exact(
    cx: np.ndarray,
    cy: np.ndarray,
    r: np.ndarray,
    x0: np.ndarray,
    y0: np.ndarray,
    x1: np.ndarray,
    y1: np.ndarray,
) -> np.ndarray:
    """Exact closed disc / closed box test on same-shape float64 arrays (no validation)."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        gx = np.maximum(np.maximum(x0 - cx, cx - x1), 0.0)
        gy = np.maximum(np.maximum(y0 - cy, cy - y1), 0.0)
        lhs = gx * gx + gy * gy
        rhs = r * r
        tol = _REL * (lhs + rhs) + _ABS
        result = np.array(lhs <= rhs, dtype=np.bool_)  # 0-d inputs give a scalar
        unsure = ~(np.isfinite(tol) & ((lhs < rhs - tol) | (lhs > rhs + tol)))
    for k in np.flatnonzero(unsure):
        fx, fy, fr = (Fraction(float(a.flat[k])) for a in (cx, cy, r))
        ex = max(Fraction(float(x0.flat[k])) - fx, fx - Fraction(float(x1.flat[k])), Fraction(0))
        ey = max(Fraction(float(y0.flat[k])) - fy, fy - Fraction(float(y1.flat[k])), Fraction(0))
        result.flat[k] = ex * ex + ey * ey <= fr * fr
    return result


def circle_intersects_rect(center: Any, radius: Any, rect: Any) -> Any:
    """Whether the closed disc meets the closed rectangle (touching counts), exactly.

    The folded-quadrant clamp test: per axis the gap from the centre to the
    rectangle's interval, ``max(x0 - cx, cx - x1, 0)`` (the same as
    ``max(|cx - mid| - half, 0)``, but without rounding ``mid``), then
    ``gx**2 + gy**2 <= radius**2``, decided exactly on the doubles given.

    Parameters
    ----------
    center : array_like, shape (..., 2)
    radius : array_like, shape (...)
        Non-negative.
    rect : array_like, shape (..., 4)
        ``(x0, y0, x1, y1)`` with ``x0 <= x1`` and ``y0 <= y1``.

    Returns
    -------
    bool or ndarray of bool
        A Python bool for one circle and one rectangle; otherwise the inputs
        broadcast like a NumPy ufunc (over all but their last axis).

    Examples
    --------
    >>> from tilecast import circle_intersects_rect
    >>> circle_intersects_rect((0.0, 0.0), 1.0, (1.0, -5.0, 2.0, 5.0))  # touching
    True
    >>> circle_intersects_rect((0.0, 0.0), 1.0, (0.8, 0.8, 2.0, 2.0))  # corner too far
    False
    >>> circle_intersects_rect([[0.0, 0.0], [3.0, 0.0]], [1.0, 0.5], (1.0, -1.0, 2.0, 1.0))
    array([ True, False])
    """
    c = _as_float_array("center", center)
    r = _as_float_array("radius", radius)
    b = _as_float_array("rect", rect)
    if c.ndim == 0 or c.shape[-1] != 2:
        raise ValueError(f"center must have shape (..., 2), got {c.shape}")
    if b.ndim == 0 or b.shape[-1] != 4:
        raise ValueError(f"rect must have shape (..., 4), got {b.shape}")
    if (r < 0).any():
        raise ValueError("radius must be non-negative")
    if (b[..., 0] > b[..., 2]).any() or (b[..., 1] > b[..., 3]).any():
        raise ValueError("rect must have x0 <= x1 and y0 <= y1")
    scalar = c.ndim == 1 and r.ndim == 0 and b.ndim == 1
    try:
        parts = np.broadcast_arrays(
            c[..., 0], c[..., 1], r, b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        )
    except ValueError:
        raise ValueError(
            f"center {c.shape}, radius {r.shape} and rect {b.shape} do not broadcast"
        ) from None
    result = circle_rect_exact(*parts)
    if scalar:
        return bool(result)
    return result
