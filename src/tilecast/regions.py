"""Range queries on a tile map: the tiles in a rectangle or a circle.

A cell is its *closed* box here (touching counts), in contrast to the
half-open boxes that ray walks use: a range query wants every tile that could
matter. Results are clipped to the map (negative indices never wrap) and
listed row by row: rows ascending, then columns ascending, as ``(K, 2)``
arrays of ``(col, row)``.

- :func:`tiles_in_rect` maps the rectangle to tile space like a point
  (``u = (x - ox) / w``) and decides on those doubles.
- :func:`tiles_in_circle` decides in world units, with each cell's box corners
  ``ox + i*w`` taken exactly (the real value ``Fraction(ox) + i*Fraction(w)``,
  not the float64 values :meth:`Grid.cell_bounds` gives); it computes each
  row's first and last cell from a float estimate (``sqrt``) corrected by
  exact tests, never by testing every cell.
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

from tilecast._exact import (
    ABS_ERROR,
    REL_ERROR,
    ROUNDING,
    corner_error,
    corner_exact,
)
from tilecast._validate import (
    as_nonnegative_float,
    as_point,
    as_rect,
)
from tilecast.grid import Grid, check_map
from tilecast.tiles import TileMap

__all__ = ["circle_intersects_rect", "tiles_in_circle", "tiles_in_rect"]


# ----------------------------------------------------------------- validation
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
def tiles_in_rect(grid: Grid | TileMap | np.ndarray, rect: Any) -> np.ndarray:
    """Cells whose closed box meets the closed rectangle, clipped to the map.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map; only its cell layout matters (on a ``TileMap`` the cells are its tiles).
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
    world = check_map(grid)
    x0, y0, x1, y1 = as_rect("rect", rect)
    (ox, oy), (w, h) = world.origin, world.tile_size
    i0, i1 = _index_span((x0 - ox) / w, (x1 - ox) / w, world.cols)
    j0, j1 = _index_span((y0 - oy) / h, (y1 - oy) / h, world.rows)
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


def _gap_exact(c: float, o: float, k: int, s: float) -> Fraction:
    """Exact gap from ``c`` to the interval ``[o + k*s, o + (k+1)*s]`` (exact corners)."""
    fc = Fraction(c)
    return max(corner_exact(o, k, s) - fc, fc - corner_exact(o, k + 1, s), Fraction(0))


_Other = tuple[float, float, tuple[float, float, int, float] | None]


def _circle_span(
    c: float, other: _Other, r: float, o: float, s: float, count: int
) -> tuple[int, int]:
    """First and last index along one axis whose closed cell interval is within reach.

    Cell ``k`` spans ``[o + k*s, o + (k+1)*s]``, corners taken exactly, and is
    in reach when its exact gap to ``c`` satisfies ``gap**2 + G**2 <= r**2``.
    ``other = (g, e, args)`` describes the other axis' exact gap ``G``: within
    ``e`` of the double ``g``, and exactly ``_gap_exact(*args)`` (zero when
    ``args`` is None). The caller guarantees ``G <= r``.
    """
    g, e_g, other_args = other
    rhs = r * r
    g2 = g * g
    g_slack = e_g * (2.0 * g + e_g)  # bounds |G**2 - g**2|
    e = corner_error(o, s, count)  # for every corner 0..count of this axis

    def within(d: float, edge_k: int, sign: int) -> bool:
        """Whether ``max(D, 0)**2 + G**2 <= r**2`` for the exact gap ``D``.

        ``D = sign * (o + edge_k*s - c)`` exactly; ``d`` is the same computed in
        float64. A float filter with an error bound, then ``Fraction``.
        """
        a = d if d > 0.0 else 0.0
        ea = e + ROUNDING * abs(d)  # |D - d|: the corner's rounding, then the subtraction's
        lhs = a * a + g2
        # |A**2 - a**2| <= ea * (2a + ea); REL_ERROR covers the rounding of lhs and rhs, and
        # the factor 2 that of tol itself
        tol = REL_ERROR * (lhs + rhs) + 2.0 * (ea * (2.0 * a + ea) + g_slack) + ABS_ERROR
        if tol < math.inf:  # also rules out an infinite lhs or rhs
            if lhs < rhs - tol:
                return True
            if lhs > rhs + tol:
                return False
        exact_d = sign * (corner_exact(o, edge_k, s) - Fraction(c))
        exact_a = max(exact_d, Fraction(0))
        exact_g = _gap_exact(*other_args) if other_args is not None else Fraction(0)
        fr = Fraction(r)
        return exact_a * exact_a + exact_g * exact_g <= fr * fr

    # d < -e (-e is a double, rounding is monotone) means the exact d is below -e, so
    # the exact gap is negative: the interval reaches past c, and G <= r puts it in reach
    def reaches_left(k: int) -> bool:  # the interval's right end is not left of the reach
        d = c - (o + (k + 1) * s)
        return d < -e or within(d, k + 1, -1)

    def short_of_right(k: int) -> bool:  # the interval's left end is right of the reach
        d = (o + k * s) - c
        return not (d < -e or within(d, k, 1))

    rho = math.sqrt(max(rhs - g2, 0.0)) if g != 0.0 else r
    first = _first_true(reaches_left, 0, count - 1, (c - rho - o) / s - 1.0)
    # the last k that reaches is one before the first k short of the reach
    last = _first_true(short_of_right, 0, count - 1, (c + rho - o) / s + 1.0) - 1
    return first, last


def tiles_in_circle(grid: Grid | TileMap | np.ndarray, center: Any, radius: float) -> np.ndarray:
    """Cells whose closed box meets the closed disc, clipped to the map, row by row.

    Decided exactly in world units, with each box's corners ``ox + i*w``,
    ``oy + j*h`` taken as exact real numbers on the doubles ``ox, w, oy, h``
    (``Fraction(ox) + i*Fraction(w)``), not rounded to float64 as
    :meth:`Grid.cell_bounds` gives them. Each row's first and last cell come
    from a float estimate corrected by tests that use a float filter with an
    error bound (``Fraction`` only for the close calls); interior cells are
    never tested.

    Parameters
    ----------
    grid : Grid, TileMap or 2D bool array
        The map; only its cell layout matters (on a ``TileMap`` the cells are its tiles).
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

    With 0.1-wide tiles the corner ``0 + 3*w`` is the exact real
    ``3 * Fraction(0.1)`` = 0.3000000000000000166..., not the double
    ``3 * 0.1`` = 0.30000000000000004:

    >>> strip = Grid([[0] * 10], tile_size=0.1)
    >>> tiles_in_circle(strip, (0.25, 0.05), 0.05000000000000002).tolist()  # reaches 3*0.1
    [[1, 0], [2, 0], [3, 0]]
    """
    world = check_map(grid)
    cx, cy = as_point("center", center)
    r = as_nonnegative_float("radius", radius)
    (ox, oy), (w, h) = world.origin, world.tile_size
    j0, j1 = _circle_span(cy, (0.0, 0.0, None), r, oy, h, world.rows)
    if j0 > j1:
        return np.empty((0, 2), dtype=np.int64)
    rows = np.arange(j0, j1 + 1, dtype=np.int64)
    lo = np.empty(len(rows), dtype=np.int64)
    hi = np.empty(len(rows), dtype=np.int64)
    e_y = corner_error(oy, h, world.rows)
    for k, j in enumerate(range(j0, j1 + 1)):
        # the row's gap max(D0, D1, 0), D0 = oy + j*h - cy and D1 = cy - (oy + (j+1)*h)
        # exactly; d0, d1 are them in float64, each within e_y + ROUNDING*|d| of them
        d0 = (oy + j * h) - cy
        d1 = cy - (oy + (j + 1) * h)
        if d0 < -e_y and d1 < -e_y:  # both exactly negative: cy inside, no gap
            gy = e_gy = 0.0
        else:
            gy = max(d0, d1, 0.0)
            e_gy = e_y + ROUNDING * max(abs(d0), abs(d1))
        lo[k], hi[k] = _circle_span(cx, (gy, e_gy, (cy, oy, j, h)), r, ox, w, world.cols)
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
        tol = REL_ERROR * (lhs + rhs) + ABS_ERROR
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
