"""Exact oracle for rays against bodies: circle, axis-aligned box, segment, convex polygon.

Plain Python over :class:`fractions.Fraction`, straight from the definitions:
the ray is ``p + t*d`` for ``t >= 0``, every shape is closed. A contact
parameter is a :class:`Param`: a rational ``t`` (boxes, segments, polygons,
and a start inside anything: ``t = 0``) or, for a circle, the smaller root
``t = (A - sqrt(B)) / C`` of ``|p + t*d - c|**2 = r**2`` with rational
``A``, ``B >= 0``, ``C > 0``. Params compare exactly: two rationals as
fractions; a root with a rational ``q`` by the sign of ``A - C*q`` and the
squares; two roots by high-precision decimals (200 digits), an apparent
tie confirmed by the common root of their quadratics (a zero resultant).
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from fractions import Fraction

F = Fraction
_CONTEXT = decimal.Context(prec=200)


@dataclass(frozen=True)
class Param:
    """A contact parameter: ``(a - sqrt(b)) / c`` (``b == 0`` for a rational ``a / c``)."""

    a: Fraction
    b: Fraction
    c: Fraction

    @staticmethod
    def rational(t: Fraction) -> Param:
        return Param(F(t), F(0), F(1))

    def is_rational(self) -> bool:
        root = _rational_sqrt(self.b)
        return root is not None

    def exact(self) -> Fraction | None:
        """The value as a fraction, or None when irrational."""
        root = _rational_sqrt(self.b)
        return None if root is None else (self.a - root) / self.c

    def decimal(self) -> decimal.Decimal:
        """The value to 200 significant digits (relative: a tiny root keeps its digits)."""

        def dec(q: Fraction) -> decimal.Decimal:
            return _CONTEXT.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))

        root = _CONTEXT.sqrt(dec(self.b))
        if self.a > 0:
            # a - sqrt(b) = (a^2 - b) / (a + sqrt(b)): no cancellation where sqrt(b) ~ a
            # (a ray starting a hair outside a circle: a root of 1e-493 read as 0)
            numerator = dec(self.a * self.a - self.b)
            return _CONTEXT.divide(numerator, _CONTEXT.multiply(_CONTEXT.add(dec(self.a), root),
                                                                dec(self.c)))  # fmt: skip
        return _CONTEXT.divide(_CONTEXT.subtract(dec(self.a), root), dec(self.c))

    def __float__(self) -> float:
        value = self.exact()
        return float(value) if value is not None else float(self.decimal())

    def times(self, factor: float) -> float:
        """``self * factor`` rounded to a float (a distance: ``t`` times the direction's norm)."""
        value = self.exact()
        if value is not None:
            return float(value * F(factor))
        return float(_CONTEXT.multiply(self.decimal(), decimal.Decimal(factor)))

    def compare(self, other: Param) -> int:
        """Exact sign of ``self - other``."""
        x, y = self.exact(), other.exact()
        if x is not None and y is not None:
            return (x > y) - (x < y)
        if x is not None:
            return -other._compare_rational(x)
        if y is not None:
            return self._compare_rational(y)
        mine, theirs = self.decimal(), other.decimal()
        gap = _CONTEXT.subtract(mine, theirs)
        # both hold 200 significant digits: a gap above 1e-150 of the larger is real
        if abs(gap) > decimal.Decimal(10) ** -150 * max(abs(mine), abs(theirs)):
            return 1 if gap > 0 else -1
        if _resultant(self.quadratic(), other.quadratic()) == 0:
            return 0
        raise AssertionError("two roots within 1e-150 (relative) without a common root")

    def _compare_rational(self, q: Fraction) -> int:
        """Sign of ``self - q`` for an irrational self: ``(a - sqrt(b))/c - q``."""
        s = self.a - self.c * q  # self - q has the sign of s - sqrt(b)
        if s < 0:
            return -1
        return 1 if s * s > self.b else -1  # never equal: sqrt(b) is irrational

    def quadratic(self) -> tuple[Fraction, Fraction, Fraction]:
        """``(u, v, w)`` with ``u t**2 + v t + w = 0`` at ``t = self``: ``(c t - a)**2 = b``."""
        return (self.c * self.c, -2 * self.a * self.c, self.a * self.a - self.b)


def _rational_sqrt(q: Fraction) -> Fraction | None:
    if q < 0:
        return None
    n, d = _isqrt(q.numerator), _isqrt(q.denominator)
    if n * n == q.numerator and d * d == q.denominator:
        return F(n, d)
    return None


def _isqrt(n: int) -> int:
    import math

    return math.isqrt(n)


def _resultant(p: tuple[Fraction, ...], q: tuple[Fraction, ...]) -> Fraction:
    """Resultant of two quadratics ``a t**2 + b t + c`` (zero iff a common root)."""
    a1, b1, c1 = p
    a2, b2, c2 = q
    return (a1 * c2 - a2 * c1) ** 2 - (a1 * b2 - a2 * b1) * (b1 * c2 - b2 * c1)


ZERO = Param.rational(F(0))


def _fr(*values: float) -> list[Fraction]:
    return [F(v) for v in values]


def ray_box(p, d, box) -> Param | None:
    px, py, dx, dy = _fr(*p, *d)
    x0, y0, x1, y1 = _fr(*box)
    if x0 <= px <= x1 and y0 <= py <= y1:
        return ZERO
    t_in, t_out = F(0), None
    for q, dq, lo, hi in ((px, dx, x0, x1), (py, dy, y0, y1)):
        if dq == 0:
            if not lo <= q <= hi:
                return None
            continue
        ta, tb = (lo - q) / dq, (hi - q) / dq
        t_in = max(t_in, min(ta, tb))
        t_out = max(ta, tb) if t_out is None else min(t_out, max(ta, tb))
    if t_out is None or t_in > t_out:
        return None
    return Param.rational(t_in)


def _cross(ux, uy, vx, vy):
    return ux * vy - uy * vx


def ray_segment(p, d, a, b) -> Param | None:
    px, py, dx, dy = _fr(*p, *d)
    ax, ay, bx, by = _fr(*a, *b)
    ex, ey = bx - ax, by - ay
    wx, wy = ax - px, ay - py
    det = _cross(dx, dy, ex, ey)
    if det != 0:
        t = _cross(wx, wy, ex, ey) / det
        s = _cross(wx, wy, dx, dy) / det
        if t >= 0 and 0 <= s <= 1:
            return Param.rational(t)
        return None
    if _cross(wx, wy, dx, dy) != 0:
        return None  # parallel, apart
    dd = dx * dx + dy * dy
    ta = (wx * dx + wy * dy) / dd
    tb = ((bx - px) * dx + (by - py) * dy) / dd
    if max(ta, tb) < 0:
        return None
    return Param.rational(max(min(ta, tb), F(0)))


def ray_circle(p, d, center, r) -> Param | None:
    px, py, dx, dy = _fr(*p, *d)
    cx, cy, rr = _fr(*center, r)
    fx, fy = px - cx, py - cy
    c = fx * fx + fy * fy - rr * rr
    if c <= 0:
        return ZERO
    a = dx * dx + dy * dy
    b = fx * dx + fy * dy
    if b >= 0:
        return None
    disc = b * b - a * c
    if disc < 0:
        return None
    return Param(-b, disc, a)


def ray_polygon(p, d, vertices) -> Param | None:
    """Convex polygon, either orientation."""
    v = [tuple(_fr(*q)) for q in vertices]
    n = len(v)
    area = sum(_cross(v[k][0], v[k][1], v[(k + 1) % n][0], v[(k + 1) % n][1]) for k in range(n))
    sign = 1 if area > 0 else -1
    px, py = _fr(*p)
    if all(
        sign * _cross(v[(k + 1) % n][0] - v[k][0], v[(k + 1) % n][1] - v[k][1],
                      px - v[k][0], py - v[k][1]) >= 0
        for k in range(n)
    ):  # fmt: skip
        return ZERO
    best = None
    for k in range(n):
        c = ray_segment(p, d, vertices[k], vertices[(k + 1) % n])
        if c is not None and (best is None or c.compare(best) < 0):
            best = c
    return best


def ray_shape(p, d, kind: str, geometry) -> Param | None:
    """Contact with a shape given as ``SpatialHash.shape`` returns it."""
    if kind == "box":
        return ray_box(p, d, geometry)
    if kind == "segment":
        return ray_segment(p, d, *geometry)
    if kind == "circle":
        return ray_circle(p, d, geometry[0], geometry[1])
    return ray_polygon(p, d, geometry)


def first_body(p, d, shapes: dict[int, tuple[str, object]], t_max=None):
    """The first body met: ``(id, Param)`` (exact order, ties by id) or None."""
    best = None
    for key in sorted(shapes):
        c = ray_shape(p, d, *shapes[key])
        if c is None or (t_max is not None and c.compare(t_max) > 0):
            continue
        if best is None or c.compare(best[1]) < 0:
            best = (key, c)
    return best


def segment_blocked(a, b, shapes: dict[int, tuple[str, object]]) -> bool:
    """Whether a shape meets the closed segment ``a b`` (a point when ``a == b``), exactly."""
    ax, ay, bx, by = _fr(*a, *b)
    d = (bx - ax, by - ay) if (ax, ay) != (bx, by) else (F(1), F(0))
    end = ONE if (ax, ay) != (bx, by) else ZERO
    for kind, geometry in shapes.values():
        c = ray_shape(a, d, kind, geometry)
        if c is not None and c.compare(end) <= 0:
            return True
    return False


ONE = Param.rational(F(1))
