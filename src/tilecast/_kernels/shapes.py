"""Exact ray-vs-shape contacts: circle, axis-aligned box, segment, convex polygon (Numba).

A ray is the tuple ``(px, py, dx, dy)`` of doubles: the points ``p + t*d``,
``t >= 0``. A shape is closed (its boundary belongs to it). Each ``ray_*``
function answers a :data:`Contact`: ``kind`` (:data:`MISS`, :data:`ZERO` for
a ray that starts inside or on the shape, or how the contact parameter is
defined), ``t`` (its float64 value), ``err`` (a bound on ``|t - exact|``,
``inf`` where the float value says nothing), and four doubles ``g`` that
define the exact parameter:

- :data:`AXIS` ``(lo, p, d, axis)``: ``t = (lo - p) / d`` (a box face; also a
  map's grid line in tile space, or a segment's end point met along its own
  line, ``axis`` 2, where ``lo, p, d`` are the end point's, the origin's and
  the direction's component of largest ``|d|``);
- :data:`EDGE` ``(ax, ay, bx, by)``: where the ray's line crosses the line
  through ``a`` and ``b``: ``t = cross(a - p, b - a) / cross(d, b - a)``;
- :data:`ROOT` ``(cx, cy, r, 0)``: the smaller root of
  ``|p + t*d - c|**2 = r**2``.

Every decision (does the ray meet the shape, does it start inside, which
face comes first, :func:`contact_order` between any two contacts) is exact
on the doubles given: a float filter with a proven error bound first, and
error-free expansions (``two_sum``/``two_prod``, Shewchuk) when it cannot
tell. The contact parameters of boxes, segments and polygons are ratios of
polynomials in the doubles, compared by cross-multiplying; a circle's is a
square root, compared with a ratio or another root by squaring with the
signs tracked (no rounding anywhere in the exact path). The exact path is
exact while no product of the expansions overflows or underflows: for
coordinates and direction components of magnitude between about ``1e-30``
and ``1e30`` (beyond that it is still correct in all but the closest calls).

Oriented boxes are convex polygons: take the corners as the float64 values
``c + R(angle) (+-hw, +-hh)`` computed once and every decision is exact on
those vertices (:func:`ray_polygon`).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from tilecast._kernels import internal
from tilecast._kernels.exact import two_prod, two_sum
from tilecast._kernels.geometry import orient2d

#: Contact kinds.
MISS, ZERO, AXIS, EDGE, ROOT = 0, 1, 2, 3, 4

#: A ray's contact with one shape (see the module docstring).
Contact = namedtuple("Contact", ["kind", "t", "err", "g0", "g1", "g2", "g3"])

_EPS = 2.0**-53
_TINY = 2.0**-1000  # absolute slack for products near the subnormals


@internal
def miss():
    return Contact(MISS, math.inf, 0.0, 0.0, 0.0, 0.0, 0.0)


@internal
def zero():
    return Contact(ZERO, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


# ----------------------------------------------------------- expansions
@internal
def compress(terms, n):
    """An exact non-overlapping expansion (increasing magnitude) of the sum of ``terms[:n]``."""
    h = np.empty(max(n, 1))
    m = 0
    for k in range(n):
        q = terms[k]
        count = 0
        for idx in range(m):
            q, small = two_sum(q, h[idx])
            if small != 0.0:
                h[count] = small
                count += 1
        h[count] = q
        m = count + 1
    # drop zeros (the largest component may be zero only if all are)
    out = np.empty(max(m, 1))
    count = 0
    for idx in range(m):
        if h[idx] != 0.0:
            out[count] = h[idx]
            count += 1
    return out[:count]


@internal
def ex_sign(e):
    """Sign of an expansion from :func:`compress` (its largest component's)."""
    if e.shape[0] == 0:
        return 0
    last = e[e.shape[0] - 1]
    return 1 if last > 0.0 else (-1 if last < 0.0 else 0)


@internal
def ex_value_of(e):
    """The double nearest (within an ulp) the exact value of an expansion from :func:`compress`."""
    total = 0.0
    for k in range(e.shape[0]):
        total += e[k]
    return total


@internal
def ex_value(a):
    e = np.empty(1)
    e[0] = a
    return compress(e, 1)


@internal
def ex_diff(a, b):
    """``a - b`` exactly."""
    s, err = two_sum(a, -b)
    e = np.empty(2)
    e[0], e[1] = err, s
    return compress(e, 2)


@internal
def ex_add(e, f, sign_f):
    """``e + sign_f * f`` exactly (``sign_f`` is 1 or -1)."""
    terms = np.empty(e.shape[0] + f.shape[0])
    for k in range(e.shape[0]):
        terms[k] = e[k]
    for k in range(f.shape[0]):
        terms[e.shape[0] + k] = sign_f * f[k]
    return compress(terms, terms.shape[0])


@internal
def ex_mul(e, f):
    """``e * f`` exactly (no overflow or underflow assumed)."""
    terms = np.empty(2 * e.shape[0] * f.shape[0])
    n = 0
    for i in range(e.shape[0]):
        for j in range(f.shape[0]):
            terms[n], terms[n + 1] = two_prod(e[i], f[j])
            n += 2
    return compress(terms, n)


@internal
def ex_cross(ax, ay, bx, by):
    """``ax * by - ay * bx`` exactly, the four factors expansions."""
    return ex_add(ex_mul(ax, by), ex_mul(ay, bx), -1)


@internal
def ex_dot(ax, ay, bx, by):
    return ex_add(ex_mul(ax, bx), ex_mul(ay, by), 1)


@internal
def _exponent(big):
    """The power of two that brings ``big`` (> 0) into [0.5, 1); 0 for 0 or beyond the range."""
    if big == 0.0 or not math.isfinite(big):
        return 0
    return -math.frexp(big)[1]


@internal
def ex_scaled(e, k):
    """``e * 2**k``, component by component."""
    out = np.empty(e.shape[0])
    for i in range(e.shape[0]):
        out[i] = math.ldexp(e[i], k)
    return out


@internal
def ex_top(e):
    """The largest magnitude among an expansion's components (0 for an empty one)."""
    big = 0.0
    for i in range(e.shape[0]):
        big = max(big, abs(e[i]))
    return big


@internal
def _cross_sign(ux, uy, vx, vy):
    """Exact sign of ``u x v`` for expansions, each vector scaled on its own first.

    Scaling ``u`` and ``v`` by powers of two keeps the sign and brings both
    near 1, so the products neither overflow nor underflow.
    """
    ku = _exponent(max(ex_top(ux), ex_top(uy)))
    kv = _exponent(max(ex_top(vx), ex_top(vy)))
    return ex_sign(ex_cross(ex_scaled(ux, ku), ex_scaled(uy, ku),
                            ex_scaled(vx, kv), ex_scaled(vy, kv)))  # fmt: skip


@internal
def prod_diff_sign(a, b, c, d):
    """Exact sign of ``a*b - c*d`` for expansions, each factor scaled on its own first.

    The products' signs decide unless they agree; then their magnitudes:
    by the factors' exponents when those set them more than a factor 4
    apart, else exactly with all four factors near 1 (so no product of
    leading components underflows or overflows, whatever the inputs' range).
    """
    sp = ex_sign(a) * ex_sign(b)
    sq = ex_sign(c) * ex_sign(d)
    if sp == 0:
        return -sq
    if sp != sq:
        return sp
    ka, kb = _exponent(ex_top(a)), _exponent(ex_top(b))
    kc, kd = _exponent(ex_top(c)), _exponent(ex_top(d))
    m = (kc + kd) - (ka + kb)  # |a b| / |c d| is (|A B| / |C D|) 2**m, each in [1/4, 1]
    if m >= 3:
        return sp
    if m <= -3:
        return -sp
    e = ex_add(ex_mul(ex_scaled(a, ka + m), ex_scaled(b, kb)),
               ex_mul(ex_scaled(c, kc), ex_scaled(d, kd)), -1)  # fmt: skip
    return ex_sign(e)


@internal
def _magnitude(c):
    """The largest position among a contact's ingredients (its direction ``d`` left out)."""
    if c.kind == AXIS:
        return max(abs(c.g0), abs(c.g1))
    if c.kind == EDGE:
        return max(abs(c.g0), abs(c.g1), abs(c.g2), abs(c.g3))
    if c.kind == ROOT:
        return max(abs(c.g0), abs(c.g1), abs(c.g2))
    return 0.0


@internal
def scale_positions(ray, c, k):
    """The ray and the contact with every position times ``2**k`` (so ``t`` times ``2**k``).

    The exact predicates are invariant under it (signs, and the order of two
    contacts scaled alike); it keeps their products from overflowing or
    underflowing when the coordinates are huge or tiny.
    """
    px, py, dx, dy = ray
    sray = (math.ldexp(px, k), math.ldexp(py, k), dx, dy)
    if c.kind == AXIS:
        g0, g1, g2, g3 = math.ldexp(c.g0, k), math.ldexp(c.g1, k), c.g2, c.g3
    elif c.kind == EDGE:
        g0, g1 = math.ldexp(c.g0, k), math.ldexp(c.g1, k)
        g2, g3 = math.ldexp(c.g2, k), math.ldexp(c.g3, k)
    elif c.kind == ROOT:
        g0, g1, g2, g3 = math.ldexp(c.g0, k), math.ldexp(c.g1, k), math.ldexp(c.g2, k), c.g3
    else:
        g0, g1, g2, g3 = c.g0, c.g1, c.g2, c.g3
    return sray, Contact(c.kind, c.t, c.err, g0, g1, g2, g3)


@internal
def side(ray, x, y):
    """Exact sign of ``cross(d, q - p)``: 1 when ``q`` is left of the ray's line, -1 right, 0 on."""
    px, py, dx, dy = ray
    wx, wy = x - px, y - py
    left, right = dx * wy, dy * wx
    det = left - right
    bound = 8.0 * _EPS * (abs(left) + abs(right)) + _TINY
    if det > bound:
        return 1
    if -det > bound:
        return -1
    return _cross_sign(ex_value(dx), ex_value(dy), ex_diff(x, px), ex_diff(y, py))


# -------------------------------------------------- exact contact values
@internal
def rational(ray, c):
    """The exact ``(numerator, denominator)`` of a ZERO, AXIS or EDGE contact; denominator > 0."""
    px, py, dx, dy = ray
    if c.kind == ZERO:
        return ex_value(0.0), ex_value(1.0)
    if c.kind == AXIS:
        num = ex_diff(c.g0, c.g1)
        den = ex_value(c.g2)
    else:
        ax, ay, bx, by = c.g0, c.g1, c.g2, c.g3
        ex, ey = ex_diff(bx, ax), ex_diff(by, ay)
        num = ex_cross(ex_diff(ax, px), ex_diff(ay, py), ex, ey)
        den = ex_cross(ex_value(dx), ex_value(dy), ex, ey)
    if ex_sign(den) < 0:
        return -num, -den
    return num, den


@internal
def quadratic(ray, c):
    """``(a, b, disc)`` of a ROOT contact, exactly: ``t = (-b - sqrt(disc)) / a``."""
    px, py, dx, dy = ray
    fx, fy = ex_diff(px, c.g0), ex_diff(py, c.g1)
    ddx, ddy = ex_value(dx), ex_value(dy)
    a = ex_dot(ddx, ddy, ddx, ddy)
    b = ex_dot(fx, fy, ddx, ddy)
    rr = ex_value(c.g2)
    cc = ex_add(ex_dot(fx, fy, fx, fy), ex_mul(rr, rr), -1)
    disc = ex_add(ex_mul(b, b), ex_mul(a, cc), -1)
    return a, b, disc


@internal
def _root_vs_rational(ray, root, other):
    """Sign of ``t_root - t_other``, ``other`` rational."""
    a, b, disc = quadratic(ray, root)
    num, den = rational(ray, other)
    # t_root < num/den  <=>  s < den * sqrt(disc), s = -b*den - a*num
    s = ex_add(ex_mul(-b, den), ex_mul(a, num), -1)
    if ex_sign(s) < 0:
        return -1
    return ex_sign(ex_add(ex_mul(s, s), ex_mul(ex_mul(den, den), disc), -1))


@internal
def _sum_root_sign(m, k, disc):
    """Sign of ``m + k * sqrt(disc)`` (``disc >= 0``)."""
    sk = ex_sign(k)
    sm = ex_sign(m)
    if sk == 0 or ex_sign(disc) == 0:
        return sm
    if sm == 0 or sm == sk:
        return sk if sm == 0 else sm
    return sm * ex_sign(ex_add(ex_mul(m, m), ex_mul(ex_mul(k, k), disc), -1))


@internal
def _root_vs_root(ray, first, second):
    """Sign of ``t_first - t_second``, both ROOT contacts on one ray (so one ``a > 0``)."""
    _, b1, disc1 = quadratic(ray, first)
    _, b2, disc2 = quadratic(ray, second)
    # a * (t1 - t2) = l + sqrt(disc2) - sqrt(disc1), l = b2 - b1
    lin = ex_add(b2, b1, -1)
    sl = ex_sign(lin)
    if sl < 0 and ex_sign(ex_add(disc2, ex_mul(lin, lin), -1)) < 0:
        return -1  # l + sqrt(disc2) < 0 <= sqrt(disc1)
    # both sides >= 0: compare squares, (l + sqrt(disc2))**2 - disc1 = m + 2 l sqrt(disc2)
    m = ex_add(ex_add(ex_mul(lin, lin), disc2, 1), disc1, -1)
    return _sum_root_sign(m, ex_add(lin, lin, 1), disc2)


@internal
def contact_order(ray, first, second):
    """Exact sign of ``t_first - t_second`` (-1, 0 or 1); a MISS is after everything."""
    if first.kind == MISS or second.kind == MISS:
        if first.kind == second.kind:
            return 0
        return 1 if first.kind == MISS else -1
    if first.t + first.err < second.t - second.err:
        return -1
    if first.t - first.err > second.t + second.err:
        return 1
    # one scale for both: positions near 1, t scaled alike (the order is kept)
    k = _exponent(max(abs(ray[0]), abs(ray[1]), _magnitude(first), _magnitude(second)))
    _, second = scale_positions(ray, second, k)
    ray, first = scale_positions(ray, first, k)
    if first.kind == ROOT and second.kind == ROOT:
        return _root_vs_root(ray, first, second)
    if first.kind == ROOT:
        return _root_vs_rational(ray, first, second)
    if second.kind == ROOT:
        return -_root_vs_rational(ray, second, first)
    n1, d1 = rational(ray, first)
    n2, d2 = rational(ray, second)
    return ex_sign(ex_add(ex_mul(n1, d2), ex_mul(n2, d1), -1))


@internal
def sign_of_t(ray, c):
    """Exact sign of a rational contact's parameter (each factor scaled on its own)."""
    if c.kind == ZERO:
        return 0
    if c.kind == AXIS:
        s = (c.g0 > c.g1) - (c.g0 < c.g1)
        return s if c.g2 > 0.0 else -s
    px, py, dx, dy = ray
    ex, ey = ex_diff(c.g2, c.g0), ex_diff(c.g3, c.g1)
    num = _cross_sign(ex_diff(c.g0, px), ex_diff(c.g1, py), ex, ey)
    den = _cross_sign(ex_value(dx), ex_value(dy), ex, ey)
    return num * den


# -------------------------------------------------------------- contacts
@internal
def axis_contact(lo, p, d, axis):
    """The AXIS contact ``t = (lo - p) / d`` (``d != 0``), with its error bound."""
    t = (lo - p) / d
    return Contact(AXIS, t, 4.0 * _EPS * abs(t) + _TINY, lo, p, d, float(axis))


@internal
def edge_contact(ray, ax, ay, bx, by):
    """The EDGE contact of the ray's line with the line ``a b`` (not parallel to the ray)."""
    px, py, dx, dy = ray
    wx, wy, ex, ey = ax - px, ay - py, bx - ax, by - ay
    n1, n2 = wx * ey, wy * ex
    e1, e2 = dx * ey, dy * ex
    num, den = n1 - n2, e1 - e2
    err_num = 8.0 * _EPS * (abs(n1) + abs(n2)) + _TINY
    err_den = 8.0 * _EPS * (abs(e1) + abs(e2)) + _TINY
    t = num / den if den != 0.0 else math.inf
    if abs(den) > 2.0 * err_den and math.isfinite(t):
        err = 2.0 * (err_num + abs(t) * err_den) / (abs(den) - err_den) + 4.0 * _EPS * abs(t)
    else:
        err = math.inf
    if not math.isfinite(t):
        t = 0.0
    return Contact(EDGE, t, err + _TINY, ax, ay, bx, by)


@internal
def _point_contact(ray, x, y):
    """AXIS contact for a point known to lie on the ray's line (largest direction component)."""
    px, py, dx, dy = ray
    # the float value as a projection (no cancellation: q - p is parallel to d)
    t = ((x - px) * dx + (y - py) * dy) / (dx * dx + dy * dy)
    err = 16.0 * _EPS * abs(t) + _TINY
    if abs(dx) >= abs(dy):
        return Contact(AXIS, t, err, x, px, dx, 2.0)
    return Contact(AXIS, t, err, y, py, dy, 2.0)


@internal
def ray_segment(ray, ax, ay, bx, by):
    """First contact of the ray with the closed segment ``a b``."""
    sa = side(ray, ax, ay)
    sb = side(ray, bx, by)
    if sa * sb > 0:
        return miss()
    if sa == 0 and sb == 0:
        # along the ray's line: the end points' parameters decide
        ca, cb = _point_contact(ray, ax, ay), _point_contact(ray, bx, by)
        near, far = ca, cb
        if contact_order(ray, cb, ca) < 0:
            near, far = cb, ca
        if sign_of_t(ray, far) < 0:
            return miss()
        if sign_of_t(ray, near) <= 0:
            return zero()
        return near
    c = edge_contact(ray, ax, ay, bx, by)
    st = sign_of_t(ray, c) if c.t - c.err <= 0.0 else 1
    if st < 0:
        return miss()
    if st == 0:
        return zero()
    return c


@internal
def ray_box(ray, x0, y0, x1, y1):
    """First contact of the ray with the closed box ``[x0, x1] x [y0, y1]`` (slabs, exact)."""
    px, py, dx, dy = ray
    if x0 <= px <= x1 and y0 <= py <= y1:
        return zero()
    enter, leave = zero(), miss()
    for axis in range(2):
        p, d, lo, hi = (px, dx, x0, x1) if axis == 0 else (py, dy, y0, y1)
        if d == 0.0:
            if p < lo or p > hi:
                return miss()
            continue
        near = axis_contact(lo if d > 0.0 else hi, p, d, axis)
        far = axis_contact(hi if d > 0.0 else lo, p, d, axis)
        if contact_order(ray, near, enter) > 0:
            enter = near
        if contact_order(ray, far, leave) < 0:
            leave = far
    if enter.kind == ZERO or contact_order(ray, enter, leave) > 0:
        return miss()  # enter ZERO here: the origin is outside and the slabs never overlap ahead
    return enter


@internal
def circle_contact(ray, cx, cy, r):
    """The ROOT contact of a ray from outside a circle whose line meets it (t, error bound)."""
    px, py, dx, dy = ray
    fx, fy = px - cx, py - cy
    ff, rr = fx * fx + fy * fy, r * r
    c = ff - rr
    a = dx * dx + dy * dy
    b = fx * dx + fy * dy
    cross = fx * dy - fy * dx
    disc = a * rr - cross * cross
    e_c = 8.0 * _EPS * (ff + rr) + _TINY
    e_b = 8.0 * _EPS * (abs(fx * dx) + abs(fy * dy)) + _TINY
    e_x = 4.0 * _EPS * (abs(fx * dy) + abs(fy * dx)) + _TINY
    e_d = 2.0 * (6.0 * _EPS * a * rr + 2.0 * abs(cross) * e_x + e_x * e_x
                 + 2.0 * _EPS * cross * cross) + _EPS * abs(disc) + _TINY  # fmt: skip
    root = math.sqrt(max(disc, 0.0))
    q = -b + root
    t = c / q if q > 0.0 else 0.0
    low = disc - e_d
    err = math.inf
    if low > 0.0:
        e_s = e_d / math.sqrt(low)
        e_q = e_b + e_s + 2.0 * _EPS * abs(q)
        if q > 2.0 * e_q:
            err = 2.0 * (e_c + abs(t) * e_q) / (q - e_q) + 4.0 * _EPS * abs(t) + _TINY
    return Contact(ROOT, t, err, cx, cy, r, 0.0), e_c, e_b, e_d


@internal
def ray_circle(ray, cx, cy, r):
    """First contact of the ray with the closed disc of centre ``c`` and radius ``r >= 0``."""
    px, py, dx, dy = ray
    contact, e_c, e_b, e_d = circle_contact(ray, cx, cy, r)
    fx, fy = px - cx, py - cy
    c = fx * fx + fy * fy - r * r
    b = fx * dx + fy * dy
    disc = (dx * dx + dy * dy) * (r * r) - (fx * dy - fy * dx) ** 2
    sure_c = abs(c) > e_c
    sure_b = abs(b) > e_b
    sure_d = abs(disc) > e_d
    if not (sure_c and sure_b and sure_d):
        # the differences f = p - c exactly, then f and r scaled together (near 1):
        # c = |f|**2 - r**2, b = f . d, disc = |d|**2 r**2 - (f x d)**2, all scaled alike
        f_x, f_y = ex_diff(px, cx), ex_diff(py, cy)
        ddx, ddy = ex_value(dx), ex_value(dy)
        # the signs of c = (u - r)(u + r) + w**2 ((u, w): f's larger and smaller
        # component) and b = fx dx + fy dy, each factor scaled on its own: no
        # product of a tiny component with a large one is rounded away
        r_ex = ex_value(r)
        u, w = (f_x, f_y) if ex_top(f_x) >= ex_top(f_y) else (f_y, f_x)
        c_sign = prod_diff_sign(ex_add(u, r_ex, -1), ex_add(u, r_ex, 1), -w, w)
        b_sign = prod_diff_sign(f_x, ddx, -f_y, ddy)
        k = _exponent(max(ex_top(f_x), ex_top(f_y), r))
        f_x, f_y, rr = ex_scaled(f_x, k), ex_scaled(f_y, k), ex_value(math.ldexp(r, k))
        c_ex = ex_add(ex_dot(f_x, f_y, f_x, f_y), ex_mul(rr, rr), -1)
        b_ex = ex_dot(f_x, f_y, ddx, ddy)
        cross = ex_cross(f_x, f_y, ddx, ddy)
        # disc's sign with (r, f x d) scaled together once more: the line's
        # distance from the centre may be far below |f|
        m = _exponent(max(ex_top(cross), ex_top(rr)))
        cross_m, rr_m = ex_scaled(cross, m), ex_scaled(rr, m)
        d_sign = ex_sign(ex_add(ex_mul(ex_dot(ddx, ddy, ddx, ddy), ex_mul(rr_m, rr_m)),
                                ex_mul(cross_m, cross_m), -1))  # fmt: skip
        disc_ex = ex_add(ex_mul(ex_dot(ddx, ddy, ddx, ddy), ex_mul(rr, rr)),
                         ex_mul(cross, cross), -1)  # fmt: skip
        if c_sign > 0 and b_sign < 0 and d_sign >= 0:
            # the float t from the exact c, b and disc, each rounded once: a few
            # ulps even where the float ones cancel (grazing, near the surface)
            q = -ex_value_of(b_ex) + math.sqrt(max(ex_value_of(disc_ex), 0.0))
            t = math.ldexp(ex_value_of(c_ex) / q, -k)
            contact = Contact(ROOT, t, math.inf, cx, cy, r, 0.0)
    else:
        c_sign = 1 if c > 0.0 else -1
        b_sign = 1 if b > 0.0 else -1
        d_sign = 1 if disc > 0.0 else -1
    if c_sign <= 0:
        return zero()
    if b_sign >= 0 or d_sign < 0:
        return miss()
    return contact


@internal
def ray_polygon(ray, vertices):
    """First contact of the ray with a closed convex polygon, vertices ``(N, 2)`` counter-clockwise.

    The origin is inside (or on) the polygon when it is on the left of (or
    on) every edge; otherwise the first contact is the earliest contact with
    an edge (the boundary is the union of the closed edges).
    """
    px, py = ray[0], ray[1]
    n = vertices.shape[0]
    inside = True
    for k in range(n):
        ax, ay = vertices[k, 0], vertices[k, 1]
        bx, by = vertices[(k + 1) % n, 0], vertices[(k + 1) % n, 1]
        if orient2d(ax, ay, bx, by, px, py) == -1:
            inside = False
            break
    if inside:
        return zero()
    best = miss()
    for k in range(n):
        ax, ay = vertices[k, 0], vertices[k, 1]
        bx, by = vertices[(k + 1) % n, 0], vertices[(k + 1) % n, 1]
        c = ray_segment(ray, ax, ay, bx, by)
        if c.kind != MISS and contact_order(ray, c, best) < 0:
            best = c
    return best


@internal
def contact_normal(ray, c):
    """Unit normal of the surface at a contact, pointing back against the ray ((0, 0) for ZERO)."""
    px, py, dx, dy = ray
    norm = math.hypot(dx, dy)
    if c.kind == AXIS:
        if c.g3 == 0.0:
            return (-1.0 if dx > 0.0 else 1.0), 0.0
        if c.g3 == 1.0:
            return 0.0, (-1.0 if dy > 0.0 else 1.0)
        return -dx / norm, -dy / norm
    if c.kind == EDGE:
        ex, ey = c.g2 - c.g0, c.g3 - c.g1
        length = math.hypot(ex, ey)
        nx, ny = -ey / length, ex / length
        if nx * dx + ny * dy > 0.0:
            return -nx, -ny
        return nx, ny
    if c.kind == ROOT:
        x, y = px + c.t * dx - c.g0, py + c.t * dy - c.g1
        length = math.hypot(x, y)
        if length == 0.0 or c.g2 == 0.0:  # a point (radius 0): against the ray
            return -dx / norm, -dy / norm
        return x / length, y / length
    return 0.0, 0.0
