"""The visibility polygon in plain Python with Fraction predicates: the oracle of the sweep."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from tilecast import visibility_polygon

_ONE_DEGREE = math.radians(1.0)


def visibility_reference(
    segs: np.ndarray,
    p: tuple[float, float],
    radius: float | None = None,
    cone_points: tuple[float, float, float, float] | None = None,
) -> np.ndarray:
    """Pure-Python oracle for the sweep kernel, on prepared walls (see ``_prepare``).

    Same output rules as the kernel, but each direction's nearest wall is found
    by scanning every wall, with exact rational predicates: O(M^2), readable.
    """
    px, py = Fraction(p[0]), Fraction(p[1])
    walls = []
    for ax, ay, bx, by in segs.tolist():
        a, b = (Fraction(ax), Fraction(ay)), (Fraction(bx), Fraction(by))
        walls.append((a, b) if _orient((px, py), a, b) > 0 else (b, a))
    if cone_points is None:
        if not walls:
            if radius is None:
                raise ValueError("the observer sees to infinity")
            return visibility_polygon(np.empty((0, 2, 2)), p, radius=radius)  # a circle
        u = walls[0][0]
        w = None
    else:
        u = (Fraction(cone_points[0]), Fraction(cone_points[1]))
        w = (Fraction(cone_points[2]), Fraction(cone_points[3]))
    o = (px, py)

    def key(q: tuple[Fraction, Fraction]) -> Any:
        return functools.cmp_to_key(lambda q1, q2: _angle_cmp_ref(o, u, q1, q2))(q)

    def strictly_inside(wall: tuple[Any, Any], q: Any) -> bool:
        return _orient(o, wall[0], q) > 0 and _orient(o, q, wall[1]) > 0

    def nearest(candidates: list[int]) -> int:
        best = -1
        for i in candidates:
            if best < 0 or _closer_ref(o, walls[i], walls[best], i, best):
                best = i
        return best

    def just_before(q: Any) -> int:
        return nearest(
            [i for i, s in enumerate(walls) if strictly_inside(s, q) or _same(o, s[1], q)]
        )

    def just_after(q: Any) -> int:
        return nearest(
            [i for i, s in enumerate(walls) if strictly_inside(s, q) or _same(o, s[0], q)]
        )

    directions: list[Any] = []
    for q in sorted({e for s in walls for e in s}, key=key):
        if not directions or _angle_cmp_ref(o, u, directions[-1], q) != 0:
            directions.append(q)
    if w is not None:
        directions = [
            q
            for q in directions
            if _angle_cmp_ref(o, u, u, q) < 0 and _angle_cmp_ref(o, u, q, w) < 0
        ]
    out: list[tuple[float, float]] = []

    def emit(i: int, q: Any) -> None:
        if i < 0:
            if radius is None:
                raise ValueError("the observer sees to infinity")
            dx, dy = float(q[0]) - p[0], float(q[1]) - p[1]
            scale = radius / math.hypot(dx, dy)
            point = (p[0] + dx * scale, p[1] + dy * scale)
        else:
            point = _point_on_ref(segs_f[i], p, (float(q[0]), float(q[1])))
        if not out or out[-1] != point:
            out.append(point)

    def arc(q1: Any, q2: Any) -> None:
        a1 = math.atan2(float(q1[1]) - p[1], float(q1[0]) - p[0])
        sweep = math.atan2(float(q2[1]) - p[1], float(q2[0]) - p[0]) - a1
        while sweep <= 0.0:
            sweep += 2 * math.pi
        steps = math.ceil(sweep / _ONE_DEGREE - 1e-9)
        for k in range(1, steps):
            point = (p[0] + radius * math.cos(a1 + sweep * k / steps),
                     p[1] + radius * math.sin(a1 + sweep * k / steps))  # fmt: skip
            if out[-1] != point:
                out.append(point)

    segs_f = [((s[0][0], s[0][1]), (s[1][0], s[1][1])) for s in walls]
    if w is not None:
        out.append(p)
        emit(just_after(u), u)
        previous = u
    for k, q in enumerate(directions):
        before, after = just_before(q), just_after(q)
        if before < 0 and (k > 0 or w is not None):
            arc(previous, q)
        if before != after or (before < 0 and after < 0 and radius is None):
            emit(before, q)
            emit(after, q)
        previous = q
    if w is not None:
        last = just_before(w)
        if last < 0:
            arc(previous, w)
        emit(last, w)
    elif just_before(u) < 0:
        arc(previous, u)
    if len(out) > 1 and out[-1] == out[0]:
        out.pop()
    return np.array(out, dtype=np.float64).reshape(-1, 2)


def _orient(o: Any, a: Any, b: Any) -> int:
    det = (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    return (det > 0) - (det < 0)


def _same(o: Any, a: Any, q: Any) -> bool:
    """Return whether a and q lie in the same direction from o."""
    return (
        _orient(o, a, q) == 0 and (a[0] - o[0]) * (q[0] - o[0]) + (a[1] - o[1]) * (q[1] - o[1]) > 0
    )


def _angle_cmp_ref(o: Any, u: Any, q1: Any, q2: Any) -> int:
    def half(q: Any) -> int:
        side = _orient(o, u, q)
        return 0 if side > 0 or (side == 0 and _same(o, u, q)) else 1

    h1, h2 = half(q1), half(q2)
    if h1 != h2:
        return -1 if h1 < h2 else 1
    return -_orient(o, q1, q2)


def _closer_ref(o: Any, s: Any, t: Any, i: int, j: int) -> bool:
    o1, o2 = _orient(s[0], s[1], t[0]), _orient(s[0], s[1], t[1])
    if o1 * o2 >= 0 and (o1 or o2):
        return _orient(s[0], s[1], o) != (o1 or o2)
    o3, o4 = _orient(t[0], t[1], s[0]), _orient(t[0], t[1], s[1])
    if o3 * o4 >= 0 and (o3 or o4):
        return _orient(t[0], t[1], o) == (o3 or o4)
    return i < j


def _point_on_ref(seg: Any, p: Any, q: Any) -> tuple[float, float]:
    (ax, ay), (bx, by) = ((float(v[0]), float(v[1])) for v in seg)
    if q in ((ax, ay), (bx, by)):
        return q
    dx, dy = q[0] - p[0], q[1] - p[1]
    ex, ey = bx - ax, by - ay
    t = ((ax - p[0]) * dy - (ay - p[1]) * dx) / (dx * ey - dy * ex)
    t = min(max(t, 0.0), 1.0)
    return (ax + t * ex, ay + t * ey)
