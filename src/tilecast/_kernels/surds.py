"""Exact contact times of a shape cast, and their exact order (Numba).

A contact time is kept as its definition, eight doubles ``td`` (kind, then
the parameters), on the centre's path ``c + t*d`` of a cast query ``q``
(fields ``x, y, dx, dy``):

- :data:`TD_RAT` ``(n0, n1, n2, n3, n4, den)``: ``t = (n0 + ... + n4) / den``
  (a slab of an axis-aligned face whose bound is a sum of doubles);
- :data:`TD_LINE` ``(ax, ay, bx, by, ox, oy)``: where ``c + t*d`` crosses the
  line through ``a + o`` along ``s = b - a``: ``t = cross(s, a + o - c) /
  cross(s, d)`` (a polygon's edge moved by a box corner);
- :data:`TD_DISC` ``(kx0, kx1, ky0, ky1, r0, r1)``: the entry into the open
  disc of centre ``k = (kx0 + kx1, ky0 + ky1)`` and radius ``R = r0 + r1``,
  the smaller root of ``|c + t*d - k|**2 = R**2`` (a corner, a circle body:
  the radii are summed exactly, never rounded);
- :data:`TD_BAND` ``(ax, ay, bx, by, r, side)``: the entry into the band
  ``|cross(s, p - a)| < r |s|`` from the ``side`` (the sign of the cross
  product at the start) of the segment ``a b`` (a circle meeting a segment's
  side).

Each is ``(A + B*sqrt(D)) / C`` with ``C > 0`` and ``A, B, C, D`` exact wide
numbers (:mod:`tilecast._kernels.wide`) of the doubles; two times are
compared exactly by the sign of ``m + k1*sqrt(D1) + k2*sqrt(D2)``, squaring
with the signs tracked (no rounding, over the whole double range).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from tilecast._kernels import internal
from tilecast._kernels.intrinsics import caller_of, load_int64
from tilecast._kernels.wide import w_add, w_mul, w_neg, w_of, w_sign, w_terms

TD_RAT = 0.0
TD_LINE = 1.0
TD_DISC = 2.0
TD_BAND = 3.0
#: Size of a time definition (kind and seven parameters).
TD_SIZE = 8


@internal(inline="always")
def _cross(ax, ay, bx, by):
    return w_add(w_mul(ax, by), w_mul(ay, bx), -1)


@internal(inline="always")
def _diff(x, y):
    return w_add(w_of(x), w_of(y), -1)


@internal(inline="always")
def _sum2(x, y):
    return w_add(w_of(x), w_of(y), 1)


@internal(inline="always")
def _zero():
    return w_of(0.0)


@internal
def parts(td, q):
    """``(A, B, D, C)`` of a time definition, ``t = (A + B sqrt(D)) / C``, ``C > 0``."""
    kind = td[0]
    if kind == TD_RAT:
        a = w_terms(td[1:6], 5)
        c = w_of(td[6])
        b, d = _zero(), _zero()
    elif kind == TD_LINE:
        sx, sy = _diff(td[3], td[1]), _diff(td[4], td[2])
        wx = w_add(_sum2(td[1], td[5]), w_of(q.x), -1)
        wy = w_add(_sum2(td[2], td[6]), w_of(q.y), -1)
        a = _cross(sx, sy, wx, wy)
        c = _cross(sx, sy, w_of(q.dx), w_of(q.dy))
        b, d = _zero(), _zero()
    elif kind == TD_DISC:
        fx = w_add(w_of(q.x), _sum2(td[1], td[2]), -1)
        fy = w_add(w_of(q.y), _sum2(td[3], td[4]), -1)
        rr = _sum2(td[5], td[6])
        dx, dy = w_of(q.dx), w_of(q.dy)
        c = w_add(w_mul(dx, dx), w_mul(dy, dy), 1)
        bb = w_add(w_mul(dx, fx), w_mul(dy, fy), 1)
        cc = w_add(w_add(w_mul(fx, fx), w_mul(fy, fy), 1), w_mul(rr, rr), -1)
        d = w_add(w_mul(bb, bb), w_mul(c, cc), -1)
        a = w_neg(bb)
        b = w_of(-1.0)
    else:
        # side * cross(s, c + t d - a) falls to r |s|: t = (side c0 - r |s|) / (-side cd)
        sx, sy = _diff(td[3], td[1]), _diff(td[4], td[2])
        c0 = _cross(sx, sy, _diff(q.x, td[1]), _diff(q.y, td[2]))
        cd = _cross(sx, sy, w_of(q.dx), w_of(q.dy))
        side = td[6]
        a = c0 if side > 0.0 else w_neg(c0)
        c = w_neg(cd) if side > 0.0 else cd
        b = w_of(-td[5])
        d = w_add(w_mul(sx, sx), w_mul(sy, sy), 1)
    if w_sign(c) < 0:
        a, b, c = w_neg(a), w_neg(b), w_neg(c)
    return a, b, d, c


@internal
def root_sign(m, k, d):
    """Exact sign of ``m + k * sqrt(d)`` (``d >= 0``)."""
    sm = w_sign(m)
    sk = w_sign(k) if w_sign(d) > 0 else 0
    if sk == 0:
        return sm
    if sm == 0 or sm == sk:
        return sk if sm == 0 else sm
    return sm * w_sign(w_add(w_mul(m, m), w_mul(w_mul(k, k), d), -1))


@internal(inline="always")
def _two_roots_sign(m, k1, d1, k2, d2):
    """Exact sign of ``m + k1 sqrt(d1) + k2 sqrt(d2)``."""
    sx = root_sign(m, k1, d1)
    sy = w_sign(k2) if w_sign(d2) > 0 else 0
    if sx == 0:
        return sy
    if sy == 0 or sx == sy:
        return sx
    # opposite signs: x**2 - y**2 = m**2 + k1**2 d1 - k2**2 d2 + 2 m k1 sqrt(d1)
    mm = w_add(w_add(w_mul(m, m), w_mul(w_mul(k1, k1), d1), 1), w_mul(w_mul(k2, k2), d2), -1)
    two = w_of(2.0)
    return sx * root_sign(mm, w_mul(two, w_mul(m, k1)), d1)


@internal(inline="always")
def order(td1, td2, q):
    """Exact sign of ``T1 - T2`` for two time definitions on the path of ``q``."""
    a1, b1, d1, c1 = parts(td1, q)
    a2, b2, d2, c2 = parts(td2, q)
    m = w_add(w_mul(a1, c2), w_mul(a2, c1), -1)
    return _two_roots_sign(m, w_mul(b1, c2), d1, w_neg(w_mul(b2, c1)), d2)


@internal
def versus(td, t, q):
    """Exact sign of ``T - t`` for a double ``t``."""
    a, b, d, c = parts(td, q)
    return root_sign(w_add(a, w_mul(c, w_of(t)), -1), b, d)


@internal(inline="always")
def affine_sign(td, q, alpha, beta):
    """Exact sign of ``alpha + beta * T`` (wide ``alpha``, ``beta``)."""
    a, b, d, c = parts(td, q)
    return root_sign(w_add(w_mul(alpha, c), w_mul(beta, a), 1), w_mul(beta, b), d)


@internal(inline="always")
def round_down(td, t, q):
    """The largest double at most ``T``, from a float estimate ``t`` of it (``>= 0``)."""
    step = 0
    while t > 0.0 and versus(td, t, q) < 0:
        # below by one ulp, then steps that double
        t = max(min(np.nextafter(t, -np.inf), t - abs(t) * 2.0 ** (step - 53)), 0.0)
        step += 1
    t = max(t, 0.0) if t > 0.0 else 0.0  # never -0.0
    # climb back to the largest double at most T (a few ulps at most)
    for _ in range(16):
        up = np.nextafter(t, np.inf)
        if versus(td, up, q) < 0:
            break
        t = up
    return t


# ------------------------------------------------------------- one kernel, by address
# The exact decisions above are large (wide arithmetic, square roots) and the
# casts need them from many places. Called directly, each caller would link
# their code in and have it optimised and compiled again; :func:`exact_time`
# is compiled once, and every caller reaches it through its address (the first
# of the table of addresses at a cast query's ``at``; see caller_of). The float
# filters stay in the callers.


class Path(NamedTuple):
    """The centre's path ``c + t*d`` of a cast: all an exact time needs of the query."""

    x: float
    y: float
    dx: float
    dy: float


#: Operations of :func:`exact_time`.
ORDER = 0  # sign of T1 - T2
VERSUS = 1  # sign of T1 - t
ROUND_DOWN = 2  # the largest double at most T1 (from the estimate t)
ALONG_A = 3  # sign of (c + T1 d - a) . (b - a), a = td1[1:3], b = td1[3:5] (a band's segment)
ALONG_B = 4  # sign of (c + T1 d - b) . (b - a)

_TD_TYPE = types.float64[::1]
PATH_TYPE = types.NamedUniTuple(types.float64, 4, Path)
EXACT_SIGNATURE = types.float64(types.int64, _TD_TYPE, _TD_TYPE, types.float64, PATH_TYPE)


@internal(inline="always")
def _along(td, q, end):
    """Exact sign of ``(c + T d - e) . (b - a)``, ``e`` = ``a`` (``end`` 0) or ``b``."""
    sx = w_add(w_of(td[3]), w_of(td[1]), -1)
    sy = w_add(w_of(td[4]), w_of(td[2]), -1)
    ex, ey = (td[1], td[2]) if end == 0 else (td[3], td[4])
    wx, wy = w_add(w_of(q.x), w_of(ex), -1), w_add(w_of(q.y), w_of(ey), -1)
    alpha = w_add(w_mul(wx, sx), w_mul(wy, sy), 1)
    beta = w_add(w_mul(w_of(q.dx), sx), w_mul(w_of(q.dy), sy), 1)
    return affine_sign(td, q, alpha, beta)


@internal(by_address=True)
def exact_time(op, td1, td2, t, q):
    """The exact decision ``op`` on time definitions on the path ``q`` (a :class:`Path`).

    A sign (-1.0, 0.0, 1.0) for ORDER, VERSUS, ALONG_A and ALONG_B, a time
    for ROUND_DOWN; ``td2`` is read by ORDER only, ``t`` by VERSUS and
    ROUND_DOWN. Called through its address (:data:`call_exact`).
    """
    if op == ORDER:
        return float(order(td1, td2, q))
    if op == VERSUS:
        return float(versus(td1, t, q))
    if op == ROUND_DOWN:
        return round_down(td1, t, q)
    return float(_along(td1, q, 0 if op == ALONG_A else 1))


call_exact = caller_of(exact_time, EXACT_SIGNATURE)


@internal(inline="always")
def exact_order(td1, td2, q):
    """:func:`order` through its address (``q`` a cast query: the first at ``q.at``)."""
    return int(call_exact(load_int64(q.at, 0), ORDER, td1, td2, 0.0, Path(q.x, q.y, q.dx, q.dy)))


@internal(inline="always")
def exact_versus(td, t, q):
    """:func:`versus` through its address."""
    return int(call_exact(load_int64(q.at, 0), VERSUS, td, td, t, Path(q.x, q.y, q.dx, q.dy)))


@internal(inline="always")
def exact_round_down(td, t, q):
    """:func:`round_down` through its address."""
    return call_exact(load_int64(q.at, 0), ROUND_DOWN, td, td, t, Path(q.x, q.y, q.dx, q.dy))


@internal(inline="always")
def exact_along(td, q, end):
    """Exact sign of ``(c + T d - e) . (b - a)`` for a band's time ``T`` (``td``: ``a``,
    ``b`` at 1..4), ``e`` = ``a`` (``end`` 0) or ``b`` (1), through its address."""
    op = ALONG_A if end == 0 else ALONG_B
    return int(call_exact(load_int64(q.at, 0), op, td, td, 0.0, Path(q.x, q.y, q.dx, q.dy)))
