"""Geometric primitives and predicates for polygon worlds.

Rays, segments and circles (scalar and vectorised over NumPy arrays), circle
tangents from a point, and the even-odd point-in-polygon test. These are the
building blocks of :mod:`tilecast.visibility`.

Conventions
-----------
- A ray is ``origin + t * direction`` with ``t >= 0``; ``direction`` need not be
  unit length, so ``t`` is in units of ``direction``.
- A segment ``a -> b`` is ``a + u * (b - a)`` with ``0 <= u <= 1``.
- Scalar calls (every point a pair ``(x, y)``) return Python floats / tuples or
  ``None`` for no hit. Array calls (any point argument of shape ``(N, 2)``;
  arguments broadcast like NumPy) return arrays, with NaN where there is no hit.
- Parameters are computed in float64. :func:`orientation` is exact.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from tilecast._engine import kernels
from tilecast._threads import run_tasks
from tilecast._validate import as_points_array, as_positive_float

__all__ = [
    "circle_tangents",
    "orientation",
    "point_in_polygon",
    "ray_circle",
    "ray_segment",
    "segment_segment",
]

_FloatArray: TypeAlias = NDArray[np.float64]


# ----------------------------------------------------------------- helpers
def _points(names: tuple[str, ...], values: tuple[Any, ...]) -> tuple[list[_FloatArray], bool]:
    """Validate point arguments; broadcast to a common length N.

    Returns the ``(N, 2)`` arrays and whether every argument was a single point.
    """
    arrays = []
    scalar = True
    for name, value in zip(names, values, strict=True):
        array = as_points_array(name, value)
        if not _is_single_point(value):
            scalar = False
        arrays.append(array)
    n = max(len(a) for a in arrays)
    for name, array in zip(names, arrays, strict=True):
        if len(array) not in (1, n):
            raise ValueError(f"{name} has {len(array)} points, expected 1 or {n}")
    return [np.broadcast_to(a, (n, 2)) for a in arrays], scalar


def _is_single_point(value: Any) -> bool:
    """Whether a validated point argument was one point ``(x, y)`` (not ``(1, 2)``)."""
    if isinstance(value, tuple | list):
        return not (value and isinstance(value[0], tuple | list | np.ndarray))
    return bool(np.ndim(value) == 1)


def _row_shift(*arrays: _FloatArray) -> NDArray[np.int64]:
    """Per row, the power of two taking the largest magnitude of the arrays into [0.5, 1).

    ``np.ldexp(value, shift)`` is then exact (or loses only parts below 2**-1074
    of the row's largest value), so float64 formulas on the scaled rows neither
    overflow nor underflow.
    """
    big = np.max(np.abs(np.concatenate(arrays, axis=1)), axis=1)
    shift: NDArray[np.int64] = -np.frexp(big)[1].astype(np.int64)
    return shift


def _orient_rows(a: _FloatArray, b: _FloatArray, c: _FloatArray) -> NDArray[np.int64]:
    """Exact orientation per row; the compiled predicate's rare UNDECIDED rows in Fractions."""
    kg = kernels("geometry")
    out: NDArray[np.int64] = kg.orient_many(
        np.ascontiguousarray(a), np.ascontiguousarray(b), np.ascontiguousarray(c)
    ).astype(np.int64)
    for k in np.flatnonzero(out == kg.UNDECIDED):
        out[k] = _orient_fraction(a[k], b[k], c[k])
    return out


def _orient_fraction(a: _FloatArray, b: _FloatArray, c: _FloatArray) -> int:
    ax, ay, bx, by, cx, cy = (Fraction(float(v)) for v in (*a, *b, *c))
    det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (det > 0) - (det < 0)


def _radii(name: str, value: Any, n: int, scalar: bool) -> tuple[_FloatArray, bool]:
    if np.ndim(value) == 0:
        return np.full(n, as_positive_float(name, value)), scalar
    array = np.asarray(value)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if array.ndim != 1 or len(array) not in (1, n):
        raise ValueError(f"{name} must be a number or shape ({n},), got {array.shape}")
    if not (np.isfinite(array).all() and (array > 0).all()):
        raise ValueError(f"{name} must be finite and positive")
    return np.broadcast_to(array, (n,)), False


def _check_parameters_fit(
    name: str, direction: _FloatArray, scalar: bool, *parameters: _FloatArray
) -> None:
    """Refuse an answer whose ray parameter overflowed: its true value is beyond float64.

    The scaled formulas never overflow inside; only scaling ``t`` back by the
    direction's power of two can, when the direction is tiny next to the
    distances involved (``t = 1e300`` cells along ``(1e-300, 0)``). Such a ``t``
    has no float64 value, so the call names the direction instead of
    answering ``inf``.
    """
    for t in parameters:
        bad = np.flatnonzero(np.isinf(t))
        if len(bad):
            k = int(bad[0])
            where = name if scalar else f"{name}[{k}]"
            raise ValueError(
                f"{where} {tuple(float(v) for v in direction[k])} is too short for this "
                f"geometry: the ray parameter t of the answer exceeds the float64 range "
                f"(about 1.8e308); scale the direction up"
            )


def _cross(ax: _FloatArray, ay: _FloatArray, bx: _FloatArray, by: _FloatArray) -> _FloatArray:
    return ax * by - ay * bx


def orientation(a: Any, b: Any, c: Any) -> int | NDArray[np.int8]:
    """Exact orientation of three points: the sign of ``(b - a) x (c - a)``.

    Returns 1 when ``a, b, c`` turn counter-clockwise (in a y-up frame), -1 when
    clockwise and 0 when exactly collinear, decided exactly on the doubles given,
    for every finite double (from ``5e-324`` to ``1.8e308``): a floating-point
    filter, then error-free arithmetic (scaled by a power of two), and exact
    rational arithmetic (:class:`fractions.Fraction`) for the rare call the
    double-based arithmetic cannot decide (docs: ``numeric_range.md``).

    Parameters
    ----------
    a, b, c : (float, float) or array_like, shape (N, 2)
        The points; arrays broadcast.

    Returns
    -------
    int or ndarray of int8, shape (N,)

    Examples
    --------
    >>> from tilecast import orientation
    >>> orientation((0, 0), (1, 0), (0, 1)), orientation((0, 0), (1, 1), (3, 3))
    (1, 0)
    >>> orientation((0, 0), (1, 1), (1e-300, 0))  # exact, however small
    -1
    >>> orientation((-1e308, -1e308), (1e308, 1e308), (5e-324, 0))  # or large
    -1
    """
    (pa, pb, pc), scalar = _points(("a", "b", "c"), (a, b, c))
    out = _orient_rows(pa, pb, pc)
    return int(out[0]) if scalar else out.astype(np.int8)


# ------------------------------------------------------------------ rays
def ray_segment(
    origin: Any, direction: Any, a: Any, b: Any
) -> tuple[float, float] | tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """First point where the ray ``origin + t * direction`` meets segment ``a -> b``.

    Parameters
    ----------
    origin, direction : (float, float) or array_like, shape (N, 2)
        The ray; ``direction`` must not be ``(0, 0)``.
    a, b : (float, float) or array_like, shape (N, 2)
        The segment's ends; ``a == b`` is a point.

    Returns
    -------
    (t, u) or None
        ``t >= 0`` the ray parameter and ``0 <= u <= 1`` the segment parameter of
        the hit (point ``origin + t * direction == a + u * (b - a)``), or None.
        Array calls return two ``(N,)`` arrays, NaN where there is no hit.

    Notes
    -----
    - A segment parallel to the ray but not on its line is never hit.
    - A segment lying on the ray's line (collinear) is hit at its first point
      along the ray: ``t = 0`` and the origin's own ``u`` when the origin lies on
      the segment, else its nearer end in front of the origin; a segment wholly
      behind the origin is not hit.
    - Touching counts: an end of the segment on the ray, or the ray starting on
      the segment, is a hit.
    - Computed in float64 on the points and the direction each scaled by a power
      of two, so any finite input works and ``t`` is always finite. When the
      true ``t`` of a hit exceeds the double range (a tiny direction, a far
      segment) there is no float64 answer: ``ValueError`` naming ``direction``.

    Examples
    --------
    >>> from tilecast import ray_segment
    >>> ray_segment((0, 0), (1, 0), (2, -1), (2, 1))
    (2.0, 0.5)
    >>> ray_segment((0, 0), (1, 0), (3, 0), (5, 0))  # collinear: nearer end
    (3.0, 0.0)
    >>> ray_segment((0, 0), (-1, 0), (2, -1), (2, 1)) is None
    True
    >>> t, u = ray_segment([[0, 0], [0, 5]], (1, 0), (2, -1), (2, 1))
    >>> t
    array([ 2., nan])
    """
    (o, d, pa, pb), scalar = _points(("origin", "direction", "a", "b"), (origin, direction, a, b))
    if ((d[:, 0] == 0.0) & (d[:, 1] == 0.0)).any():
        raise ValueError("direction must not be the zero vector")
    # positions and the direction each scaled by a power of two (exact): no
    # overflow or underflow inside; t is scaled back at the end
    shift, d_shift = _row_shift(o, pa, pb), _row_shift(d)
    o, pa, pb = (np.ldexp(v, shift[:, None]) for v in (o, pa, pb))
    t, u = _line_segment(o, np.ldexp(d, d_shift[:, None]), pa, pb, ray=True)
    with np.errstate(over="ignore"):  # checked just below
        t = np.ldexp(t, d_shift - shift)
    _check_parameters_fit("direction", d, scalar, t)
    return _result(t, u, scalar)


def segment_segment(
    a: Any, b: Any, c: Any, d: Any
) -> tuple[float, float] | tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """First point of segment ``a -> b`` that lies on segment ``c -> d``.

    Parameters
    ----------
    a, b, c, d : (float, float) or array_like, shape (N, 2)
        The two segments; arrays broadcast.

    Returns
    -------
    (s, u) or None
        Parameters on ``a -> b`` and ``c -> d`` (both in [0, 1]) of the common
        point with the smallest ``s``, or None when they do not meet. Array
        calls return two arrays, NaN where the segments do not meet.

    Notes
    -----
    Whether the segments meet is decided exactly (orientation predicates) for
    every finite double; the parameters are then computed in float64 (on the
    points scaled by a power of two, so no intermediate overflows) and clamped
    to [0, 1].
    Parallel segments on different lines never meet; collinear overlapping
    segments meet at the first point of the overlap along ``a -> b``; touching
    at an end counts.

    Examples
    --------
    >>> from tilecast import segment_segment
    >>> segment_segment((0, 0), (4, 0), (1, -1), (1, 1))
    (0.25, 0.5)
    >>> segment_segment((0, 0), (4, 0), (2, 0), (9, 0))  # overlap starts at x = 2
    (0.5, 0.0)
    >>> segment_segment((0, 0), (1, 0), (0, 1), (1, 1)) is None
    True
    """
    (pa, pb, pc, pd), scalar = _points(("a", "b", "c", "d"), (a, b, c, d))
    # Whether they meet is decided exactly on the points given; the parameters
    # are computed on the points scaled by a power of two (no overflow).
    o1 = _orient_rows(pa, pb, pc)
    o2 = _orient_rows(pa, pb, pd)
    o3 = _orient_rows(pc, pd, pa)
    o4 = _orient_rows(pc, pd, pb)
    given = (pa, pb, pc, pd)
    shift = _row_shift(pa, pb, pc, pd)[:, None]
    pa, pb, pc, pd = (np.ldexp(v, shift) for v in given)
    collinear = (o1 == 0) & (o2 == 0) & (o3 == 0) & (o4 == 0)
    meet = (o1 * o2 <= 0) & (o3 * o4 <= 0) & ~collinear
    ex, ey = pb[:, 0] - pa[:, 0], pb[:, 1] - pa[:, 1]
    fx, fy = pd[:, 0] - pc[:, 0], pd[:, 1] - pc[:, 1]
    wx, wy = pc[:, 0] - pa[:, 0], pc[:, 1] - pa[:, 1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        denom = _cross(ex, ey, fx, fy)
        s_new = np.clip(np.nan_to_num(_cross(wx, wy, fx, fy) / denom), 0.0, 1.0)
        u_new = np.clip(np.nan_to_num(_cross(wx, wy, ex, ey) / denom), 0.0, 1.0)
    s = np.where(meet, s_new, np.nan)
    u = np.where(meet, u_new, np.nan)
    for k in np.flatnonzero(collinear):
        xs = [float(v[k, 0]) for v in given]
        # compare along x, or along y on a vertical line (all four x equal)
        along = xs if min(xs) != max(xs) else [float(v[k, 1]) for v in given]
        s[k], u[k] = _collinear_overlap(along)
    return _result(s, u, scalar)


def _collinear_overlap(values: list[float]) -> tuple[float, float]:
    """First common point of two collinear segments along ``a -> b`` (NaN, NaN if none).

    ``values`` are one coordinate of ``a, b, c, d``, along which the line is
    not constant unless all four points coincide. Whether the segments overlap
    is decided exactly on the doubles given, and the parameters are the exact
    ratios, rounded once (no overflow or underflow at any magnitude).
    """
    pa, pb, pc, pd = values
    lo = max(min(pa, pb), min(pc, pd))
    hi = min(max(pa, pb), max(pc, pd))
    if lo > hi:
        return math.nan, math.nan
    first = Fraction(lo if pa <= pb else hi)  # the overlap's end nearest a
    fa, fb, fc, fd = (Fraction(v) for v in values)
    s = float((first - fa) / (fb - fa)) if pb != pa else 0.0
    u = float((first - fc) / (fd - fc)) if pd != pc else 0.0
    return s, u


def _result(
    t: _FloatArray, u: _FloatArray, scalar: bool
) -> tuple[float, float] | tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    if scalar:
        if math.isnan(t[0]):
            return None
        return (float(t[0]), float(u[0]))
    return t, u


def _line_segment(
    o: _FloatArray, d: _FloatArray, a: _FloatArray, b: _FloatArray, *, ray: bool
) -> tuple[_FloatArray, _FloatArray]:
    """Parametric hit of ``o + t d`` (t >= 0, and t <= 1 unless ``ray``) on ``a -> b``."""
    ex, ey = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
    wx, wy = a[:, 0] - o[:, 0], a[:, 1] - o[:, 1]
    dx, dy = d[:, 0], d[:, 1]
    denom = _cross(dx, dy, ex, ey)
    t_max = np.inf if ray else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = _cross(wx, wy, ex, ey) / denom
        u = _cross(wx, wy, dx, dy) / denom
    ok = (denom != 0.0) & (t >= 0.0) & (t <= t_max) & (u >= 0.0) & (u <= 1.0)
    t_out = np.where(ok, t, np.nan)
    u_out = np.where(ok, u, np.nan)
    # Collinear: the segment lies on the line; project its ends on the ray.
    collinear = (denom == 0.0) & (_cross(wx, wy, dx, dy) == 0.0)
    for k in np.flatnonzero(collinear):
        hit = _collinear_hit(o[k], d[k], a[k], b[k], t_max)
        if hit is not None:
            t_out[k], u_out[k] = hit
    return t_out, u_out


def _collinear_hit(
    o: _FloatArray, d: _FloatArray, a: _FloatArray, b: _FloatArray, t_max: float
) -> tuple[float, float] | None:
    dd = float(d @ d)
    if dd == 0.0:  # a zero-length first segment: the point o itself
        e = b - a
        w = o - a
        if e[0] * w[1] - e[1] * w[0] != 0.0:
            return None
        ee = float(e @ e)
        u = float(w @ e) / ee if ee > 0.0 else 0.0
        on = (w == 0.0).all() if ee == 0.0 else 0.0 <= u <= 1.0
        return (0.0, u) if on else None
    ta = float((a - o) @ d) / dd
    tb = float((b - o) @ d) / dd
    lo, hi = min(ta, tb), max(ta, tb)
    start = max(lo, 0.0)
    if start > hi or start > t_max:
        return None
    if ta == tb:  # the segment is a point
        return (start, 0.0)
    return (start, (start - ta) / (tb - ta))


def ray_circle(
    origin: Any, direction: Any, center: Any, radius: Any
) -> tuple[float, float] | tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """Both parameters where the line ``origin + t * direction`` meets a circle.

    Parameters
    ----------
    origin, direction : (float, float) or array_like, shape (N, 2)
        The ray; ``direction`` must not be ``(0, 0)``.
    center : (float, float) or array_like, shape (N, 2)
    radius : float or array_like, shape (N,)
        Positive.

    Returns
    -------
    (t0, t1) or None
        The two roots, ``t0 <= t1`` (equal when the ray is tangent), or None when
        the line misses the circle. Roots may be negative (behind the origin):
        the ray hits the circle when ``t1 >= 0``, first at ``t0`` if ``t0 >= 0``
        and at ``t1`` when the origin is inside. Array calls return two arrays,
        NaN on a miss.

    Notes
    -----
    The roots are computed from the line's closest approach to the centre and
    the half chord (no cancellation for far-away circles); tangency is a
    closest distance of exactly ``radius`` in float64. Positions and the radius,
    and the direction, are each scaled by a power of two first, so any finite
    input works and the roots are always finite. When a root's true value
    exceeds the double range (a tiny direction, a huge circle) there is no
    float64 answer: ``ValueError`` naming ``direction``.

    Examples
    --------
    >>> from tilecast import ray_circle
    >>> ray_circle((0, 0), (1, 0), (5, 0), 1)
    (4.0, 6.0)
    >>> ray_circle((0, 0), (1, 0), (5, 1), 1)  # tangent
    (5.0, 5.0)
    >>> ray_circle((0, 0), (1, 0), (5, 2), 1) is None
    True
    """
    (o, d, c), scalar = _points(("origin", "direction", "center"), (origin, direction, center))
    if ((d[:, 0] == 0.0) & (d[:, 1] == 0.0)).any():
        raise ValueError("direction must not be the zero vector")
    direction_given = d
    r, scalar = _radii("radius", radius, len(o), scalar)
    # positions (and the radius) and the direction each scaled by a power of
    # two: no overflow or underflow inside; t is scaled back at the end
    shift, d_shift = _row_shift(o, c, r[:, None]), _row_shift(d)
    o, c, r = np.ldexp(o, shift[:, None]), np.ldexp(c, shift[:, None]), np.ldexp(r, shift)
    d = np.ldexp(d, d_shift[:, None])
    fx, fy = o[:, 0] - c[:, 0], o[:, 1] - c[:, 1]
    dx, dy = d[:, 0], d[:, 1]
    qa = dx * dx + dy * dy
    # Closest approach of the line to the centre first, then the half chord:
    # no cancellation for far-away circles.
    t_mid = -(fx * dx + fy * dy) / qa
    hx, hy = fx + t_mid * dx, fy + t_mid * dy
    disc = r * r - (hx * hx + hy * hy)
    with np.errstate(invalid="ignore"):
        half = np.sqrt(disc / qa)
    back = d_shift - shift
    with np.errstate(over="ignore"):  # checked just below
        t0 = np.where(disc >= 0.0, np.ldexp(t_mid - half, back), np.nan)
        t1 = np.where(disc >= 0.0, np.ldexp(t_mid + half, back), np.nan)
    _check_parameters_fit("direction", direction_given, scalar, t0, t1)
    return _result(t0, t1, scalar)


def circle_tangents(
    point: Any, center: Any, radius: Any
) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Points where the lines through ``point`` touch the circle.

    Parameters
    ----------
    point, center : (float, float) or array_like, shape (N, 2)
    radius : float or array_like, shape (N,)
        Positive.

    Returns
    -------
    ndarray, shape (K, 2), K in {0, 1, 2}
        For one point: no tangent point when ``point`` is strictly inside, the
        point itself when it lies exactly on the circle (in float64), two
        otherwise, ordered counter-clockwise as seen from ``point``: sweeping
        counter-clockwise around ``point`` one meets the first tangent point,
        then the circle, then the second.
    (tangents, count) for array calls
        ``tangents`` of shape ``(N, 2, 2)`` (NaN where missing) and ``count``
        of shape ``(N,)``.

    Notes
    -----
    With ``d = point - center`` and ``D = |d|**2`` the tangent points are
    ``center + (r**2 / D) d -/+ (r sqrt(D - r**2) / D) perp(d)``: no slope, no
    division by a coordinate difference, so points on an axis through the
    centre are ordinary cases. Computed in float64 on the inputs scaled by a
    power of two, so any finite input works (a tangent point beyond the double
    range, possible only within a factor 2 of ``1.8e308``, is infinite).

    Examples
    --------
    >>> from tilecast import circle_tangents
    >>> circle_tangents((2, 0), (0, 0), 1).round(6).tolist()
    [[0.5, 0.866025], [0.5, -0.866025]]
    >>> circle_tangents((0, -2), (0, 0), 1).round(6).tolist()  # on an axis: no special case
    [[0.866025, -0.5], [-0.866025, -0.5]]
    >>> circle_tangents((1, 0), (0, 0), 1).tolist()
    [[1.0, 0.0]]
    >>> circle_tangents((0.5, 0), (0, 0), 1).shape
    (0, 2)
    """
    (p_given, c), scalar = _points(("point", "center"), (point, center))
    r, scalar = _radii("radius", radius, len(p_given), scalar)
    # scaled by a power of two (no overflow or underflow inside), back at the end
    shift = _row_shift(p_given, c, r[:, None])
    p, c, r = np.ldexp(p_given, shift[:, None]), np.ldexp(c, shift[:, None]), np.ldexp(r, shift)
    dx, dy = p[:, 0] - c[:, 0], p[:, 1] - c[:, 1]
    dist2 = dx * dx + dy * dy
    r2 = r * r
    count = np.where(dist2 > r2, 2, np.where(dist2 == r2, 1, 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        # NaN/inf where there is no tangent (inside or at the centre): those
        # rows are never read below
        scale = r2 / dist2
        h = r * np.sqrt(dist2 - r2) / dist2
        bx, by = c[:, 0] + scale * dx, c[:, 1] + scale * dy
    out: _FloatArray = np.full((len(p), 2, 2), np.nan)
    two = count == 2
    out[two, 0, 0] = (bx - h * dy)[two]
    out[two, 0, 1] = (by + h * dx)[two]
    out[two, 1, 0] = (bx + h * dy)[two]
    out[two, 1, 1] = (by - h * dx)[two]
    out = np.ldexp(out, -shift[:, None, None])
    one = count == 1
    out[one, 0] = p_given[one]
    if scalar:
        tangents: _FloatArray = out[0, : int(count[0])].copy()
        return tangents
    return out, count


# ------------------------------------------------------------- point in polygon
def _as_polygon(name: str, polygon: Any) -> _FloatArray:
    array = as_points_array(name, polygon, allow_single=False)
    if len(array) >= 2 and (array[0] == array[-1]).all():
        array = array[:-1]  # an explicitly closed ring
    if len(array) < 3:
        raise ValueError(f"{name} must have at least 3 vertices, got {len(array)}")
    return np.ascontiguousarray(array)


def point_in_polygon(points: Any, polygon: Any) -> bool | NDArray[np.bool_]:
    """Even-odd point-in-polygon test, exact, compiled and parallel.

    Parameters
    ----------
    points : (float, float) or array_like, shape (N, 2)
    polygon : array_like, shape (K, 2)
        Vertices in order (either orientation; a repeated first vertex at the
        end is dropped). Self-intersecting rings are fine: the even-odd rule
        decides.

    Returns
    -------
    bool, or ndarray of bool, shape (N,)

    Notes
    -----
    A point is inside when a ray from it towards +x crosses the boundary an odd
    number of times. Every decision is exact (orientation predicate), for every
    finite double: a point whose test float64 arithmetic cannot decide (its
    coordinates and the polygon's span more than about ``2**960`` and a
    difference rounds) is decided in exact rational arithmetic instead.
    Points exactly on the boundary follow the same half-open rule as grid
    cells: such a point counts as inside exactly when the point nudged by an
    infinitesimal step towards +x (and a far smaller one towards +y) is inside.
    So for the box ``[0, 1] x [0, 1]`` the edges ``x = 0`` and ``y = 0`` are
    inside and ``x = 1``, ``y = 1`` outside, and polygons that tile the plane
    claim every point exactly once.

    The plane is cut into horizontal slabs at the vertices' y values and each
    slab into columns; edges wholly to the right of a point's column are
    counted in advance, so a point tests only the few edges near it.

    Examples
    --------
    >>> from tilecast import point_in_polygon
    >>> square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    >>> point_in_polygon((0.5, 0.5), square)
    True
    >>> point_in_polygon([(0, 0.5), (1, 0.5), (0.5, 0), (0.5, 1)], square).tolist()
    [True, False, True, False]
    """
    pts = as_points_array("points", points)
    single = _is_single_point(points)
    poly = _as_polygon("polygon", polygon)
    index = _slab_index(poly)
    out = np.zeros(len(pts), dtype=np.bool_)
    undecided = np.zeros(len(pts), dtype=np.bool_)
    kernel = kernels("geometry").points_in_polygon
    run_tasks(lambda lo, hi: kernel(lo, hi, pts, poly, index, out, undecided), len(pts))
    for k in np.flatnonzero(undecided):  # beyond float64's reach: exact rationals
        out[k] = _point_in_polygon_fraction((float(pts[k, 0]), float(pts[k, 1])), poly)
    return bool(out[0]) if single else out


def _slab_index(poly: _FloatArray) -> Any:
    ys = np.unique(poly[:, 1])
    if len(ys) > _MAX_SLABS + 1:  # keep the index linear in size for huge polygons
        ys = np.unique(ys[np.linspace(0, len(ys) - 1, _MAX_SLABS + 1).astype(np.int64)])
    if len(ys) == 1:
        ys = np.array([ys[0], ys[0]])
    n_cols = int(min(64, max(1, math.sqrt(len(poly)))))
    # the compiled index, one SlabIndex record (slab boundaries, column range,
    # entries, parities), passed back unchanged to points_in_polygon
    return kernels("geometry").build_slab_index(poly, ys, n_cols)


_MAX_SLABS = 2048


def _point_in_polygon_fraction(point: tuple[float, float], polygon: _FloatArray) -> bool:
    """Exact even-odd test in rationals: the kernel's fallback for undecided points."""
    px, py = (Fraction(v) for v in point)
    ring = [(Fraction(x), Fraction(y)) for x, y in polygon.tolist()]
    inside = False
    for k, (ax, ay) in enumerate(ring):
        bx, by = ring[(k + 1) % len(ring)]
        if (ay > py) != (by > py):
            # x of the crossing, compared exactly with px.
            x_cross = ax + (py - ay) * (bx - ax) / (by - ay)
            if x_cross > px:
                inside = not inside
    return inside
