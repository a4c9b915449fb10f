"""Exact oracle for a scan beam among walls, circles and oriented boxes.

Written another way than the kernels (no float filter, no expansions): the
wall comes from :func:`reference.oracle.raycast_all_oracle` (sorted
``Fraction`` crossings), circles and box edges are met in exact rationals,
and a circle's root ``(A - sqrt(D)) / a`` is compared in 200-digit
``decimal`` arithmetic (exact for the perfect squares where ties happen).

The beam's ray is ``p + t d`` with ``d`` scaled by a power of two so that its
larger component lies in [1, 2) (as the walk scales it, an exact change);
the wall's parameter is the walk's tile-space one, ``(X - u0) / du``.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

from reference.oracle import raycast_all_oracle

getcontext().prec = 200


def _scaled(direction):
    dx, dy = direction
    _, e = math.frexp(max(abs(dx), abs(dy)))
    return math.ldexp(dx, 1 - e), math.ldexp(dy, 1 - e)


def _decimal(q):
    """A Fraction, or a (A, D, a) root (A - sqrt(D)) / a, as a 200-digit Decimal."""
    if isinstance(q, Fraction):
        return Decimal(q.numerator) / Decimal(q.denominator)
    big_a, disc, a = q
    root = (Decimal(disc.numerator) / Decimal(disc.denominator)).sqrt()
    return (_decimal(big_a) - root) / _decimal(a)


def circle_t(p, d, circle):
    """The exact contact of the ray with a closed disc: None, Fraction(0), or a root."""
    px, py = map(Fraction, p)
    dx, dy = map(Fraction, d)
    cx, cy, r = map(Fraction, circle)
    fx, fy = px - cx, py - cy
    if fx * fx + fy * fy <= r * r:
        return Fraction(0)  # starts inside or on it
    a = dx * dx + dy * dy
    b = fx * dx + fy * dy
    disc = b * b - a * (fx * fx + fy * fy - r * r)
    if b >= 0 or disc < 0:
        return None
    return (-b, disc, a)


def polygon_t(p, d, corners):
    """The exact contact of the ray with a closed convex polygon (counter-clockwise)."""
    px, py = map(Fraction, p)
    dx, dy = map(Fraction, d)
    pts = [(Fraction(x), Fraction(y)) for x, y in corners]
    n = len(pts)

    def cross(ax, ay, bx, by):
        return ax * by - ay * bx

    if all(cross(pts[(k + 1) % n][0] - pts[k][0], pts[(k + 1) % n][1] - pts[k][1],
                 px - pts[k][0], py - pts[k][1]) >= 0 for k in range(n)):  # fmt: skip
        return Fraction(0)
    best = None
    for k in range(n):
        (ax, ay), (bx, by) = pts[k], pts[(k + 1) % n]
        ex, ey = bx - ax, by - ay
        den = cross(dx, dy, ex, ey)
        if den == 0:
            if cross(ax - px, ay - py, dx, dy) != 0:
                continue  # parallel, off the ray's line
            # along the line: the end points' parameters
            ts = [
                ((qx - px) / dx) if dx != 0 else ((qy - py) / dy) for qx, qy in ((ax, ay), (bx, by))
            ]
            lo, hi = min(ts), max(ts)
            if hi < 0:
                continue
            t = max(lo, Fraction(0))
        else:
            t = cross(ax - px, ay - py, ex, ey) / den
            s = cross(ax - px, ay - py, dx, dy) / den
            if t < 0 or s < 0 or s > 1:
                continue
        best = t if best is None or t < best else best
    return best


def beam_oracle(grid, origin, direction, max_range, circles, corners, gaps="block_if_both",
                ignore_start=False):  # fmt: skip
    """The beam's reading: ``("wall", None)``, ``("zero", 0.0)`` or ``("shape", t * |d|)``.

    ``"wall"``: the scan without shapes answers it (no shape, or a shape not
    strictly before the wall). ``"shape"``: the exact contact distance (a
    float near it; beyond ``max_range`` the reading is ``max_range``).
    :func:`first_shape` says which shape.
    """
    kind, distance, _ = first_shape(grid, origin, direction, circles, corners, gaps,
                                    ignore_start)  # fmt: skip
    return kind, distance


def first_shape(grid, origin, direction, circles, corners, gaps="block_if_both",
                ignore_start=False):  # fmt: skip
    """``(kind, distance, row)``: as :func:`beam_oracle`, and the row of the shape met first.

    ``circles`` may hold rows of NaN (no shape: they keep their row number);
    a box's row counts after every circle row. Between shapes met at the
    same point the lower row comes first; a wall met there comes first.
    """
    d = _scaled(direction)
    contacts = [(circle_t(origin, d, c), q) for q, c in enumerate(circles)
                if not math.isnan(c[0])]  # fmt: skip
    contacts += [(polygon_t(origin, d, q), len(circles) + k) for k, q in enumerate(corners)]
    contacts = [(c, q) for c, q in contacts if c is not None]
    if not contacts:
        return "wall", None, -1
    first, row = min(contacts, key=lambda item: (_decimal(item[0]), item[1]))
    hits = raycast_all_oracle(grid, origin, direction, math.inf, gaps, ignore_start)
    if hits:
        cell, kind, _, _ = hits[0]
        if kind == "inside":
            return "wall", None, -1  # a tie at 0: the wall
        (w, h), (ox, oy) = grid.tile_size, grid.origin
        u0, du = Fraction((origin[0] - ox) / w), Fraction(d[0] / w)
        v0, dv = Fraction((origin[1] - oy) / h), Fraction(d[1] / h)
        column = (cell[0] + (1 if du < 0 else 0) - u0) / du if du != 0 else None
        row_line = (cell[1] + (1 if dv < 0 else 0) - v0) / dv if dv != 0 else None
        if kind == "x":
            wall = column
        elif kind == "y":
            wall = row_line
        else:  # a corner: the cell may be a shoulder; the line beside it that is the corner's
            # is the later one (the other was crossed before)
            wall = max(column, row_line)
        if not _decimal(first) < _decimal(wall):
            return "wall", None, -1
    if first == Fraction(0) and isinstance(first, Fraction):
        return "zero", 0.0, row
    norm = math.sqrt(d[0] * d[0] + d[1] * d[1])
    return "shape", float(_decimal(first)) * norm, row
