"""Exact oracles for shape casts and overlap, by brute force over every obstacle.

Written without the product's sweep: every blocking cell of the map (a
``TileMap`` through its public ``to_pixel_grid()``; with ``outside="solid"``
one ring of cells around the map, which a shape inside the map meets before
anything further out) is a closed box whose corners are the doubles
``ox + i*w`` (as the library defines them), taken as exact rationals.

A shape overlaps a box when their interiors meet. Moving the centre along
``c + t*d``, the set of ``t`` where it overlaps a box is an open interval:

- a box shape: the open Minkowski box ``(x0 - hx, x1 + hx) x (y0 - hy, y1 + hy)``,
  slab by slab, in :class:`fractions.Fraction`;
- a circle: the union of the open discs of radius ``r`` around the box's
  corners and the two crosses ``(x0 - r, x1 + r) x [y0, y1]``,
  ``[x0, x1] x (y0 - r, y1 + r)``; a disc's entry is a root of a quadratic,
  kept exact as ``(-b - sqrt(D)) / a`` and compared exactly (squaring, with
  the signs taken care of); distances are printed at 80 decimal digits.

The first contact is the smallest entry time among boxes whose interval
reaches past ``t = 0`` (a start inside a box: time 0, ``inside``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

from tilecast import Grid, TileMap

_DIGITS = 80


def _dec(q: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return Decimal(q.numerator) / Decimal(q.denominator)


def _exact_sqrt(q: Fraction) -> Fraction | None:
    """The square root of ``q >= 0`` when it is rational, else None."""
    n, d = math.isqrt(q.numerator), math.isqrt(q.denominator)
    if n * n == q.numerator and d * d == q.denominator:
        return Fraction(n, d)
    return None


@dataclass(frozen=True)
class Time:
    """An exact contact time: a rational, or ``(-b - sqrt(disc)) / a`` (a > 0, disc >= 0)."""

    rational: Fraction | None = None
    b: Fraction = Fraction(0)
    disc: Fraction = Fraction(0)
    a: Fraction = Fraction(1)

    def decimal(self) -> Decimal:
        if self.rational is not None:
            return _dec(self.rational)
        exact = self.exact()
        if exact is not None:  # a rational root (0 included): exactly
            return _dec(exact)
        with localcontext() as ctx:
            ctx.prec = _DIGITS
            root = _dec(self.disc).sqrt()
            if self.b < 0:  # -b - sqrt(disc) = (b^2 - disc) / (-b + sqrt(disc)): no cancellation
                return _dec(self.b * self.b - self.disc) / ((-_dec(self.b) + root) * _dec(self.a))
            return (-_dec(self.b) - root) / _dec(self.a)

    def exact(self) -> Fraction | None:
        """The time as a rational when it is one (a rational root included), else None."""
        if self.rational is not None:
            return self.rational
        root = _exact_sqrt(self.disc)
        return None if root is None else (-self.b - root) / self.a

    def below(self) -> Fraction:
        """A rational no greater than the time (exactly it when rational)."""
        exact = self.exact()
        if exact is not None:
            return exact
        value = Fraction(self.decimal())
        return value - (abs(value) + 1) / 10**70  # 80 digits: far below the margin

    def above(self) -> Fraction:
        """A rational no less than the time (exactly it when rational)."""
        exact = self.exact()
        if exact is not None:
            return exact
        value = Fraction(self.decimal())
        return value + (abs(value) + 1) / 10**70

    def parts(self) -> tuple[Fraction, Fraction]:
        """``(u, v)`` with the time ``u - sqrt(v)`` (``v = 0`` for a rational)."""
        if self.rational is not None:
            return self.rational, Fraction(0)
        return -self.b / self.a, self.disc / (self.a * self.a)


def _sgn(q) -> int:
    return (q > 0) - (q < 0)


def compare(s: Time, t: Time) -> int:
    """Exact sign of ``s - t``: ``(u1 - sqrt(v1)) - (u2 - sqrt(v2))``, squaring with care."""
    u1, v1 = s.parts()
    u2, v2 = t.parts()
    w = u1 - u2  # the sign of w - (sqrt(v1) - sqrt(v2)) is wanted
    root = _sgn(v1 - v2)  # the sign of sqrt(v1) - sqrt(v2)
    if w == 0 or root == 0 or _sgn(w) != root:
        return _sgn(w) if w != 0 else -root
    # same signs: compare |w| with |sqrt(v1) - sqrt(v2)|, i.e. w**2 with
    # v1 + v2 - 2 sqrt(v1 v2): with y = v1 + v2 - w**2, |w| > |...| iff 2 sqrt(v1 v2) > y
    y = v1 + v2 - w * w
    bigger = 1 if y < 0 else _sgn(4 * v1 * v2 - y * y)
    return _sgn(w) * bigger


@dataclass(frozen=True)
class Contact:
    """One obstacle's contact: ``cell`` (walk cell: a pixel on a tile map), entry ``time``,
    ``inside``, and ``kind`` ("face" or "corner"), with the face normal or the corner met."""

    cell: tuple[int, int]
    time: Time
    inside: bool
    kind: str
    normal: tuple[int, int] | None
    corner: tuple[Fraction, Fraction] | None


def _cells_grid(world):
    if isinstance(world, TileMap):
        return world.to_pixel_grid()
    if isinstance(world, Grid):
        return world
    return Grid(world)


def obstacles(world, blocks: bool = True):
    """Yield ``((col, row), (x0, x1, y0, y1))`` of every obstacle, as Fractions of doubles."""
    grid = _cells_grid(world)
    rows, cols = grid.shape
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    cells = []
    if blocks:
        cells += [(int(i), int(j)) for j, i in zip(*grid.solid.nonzero(), strict=True)]
    if grid.outside == "solid":
        for i in range(-1, cols + 1):
            cells += [(i, -1), (i, rows)]
        for j in range(rows):
            cells += [(-1, j), (cols, j)]
    for i, j in cells:
        box = (ox + i * w, ox + (i + 1) * w, oy + j * h, oy + (j + 1) * h)
        yield (i, j), tuple(Fraction(v) for v in box)


def _slab(lo, hi, c, d):
    """Open interval of t with c + t d in the open (lo, hi); None empty; (None, None) all t."""
    if d == 0:
        return (None, None) if lo < c < hi else None
    a, b = (lo - c) / d, (hi - c) / d
    return (a, b) if d > 0 else (b, a)


def _meet(*slabs):
    """Intersect open intervals (None bounds: unbounded); None when empty."""
    lo = hi = None
    for s in slabs:
        if s is None:
            return None
        if s[0] is not None and (lo is None or s[0] > lo):
            lo = s[0]
        if s[1] is not None and (hi is None or s[1] < hi):
            hi = s[1]
    if lo is not None and hi is not None and lo >= hi:
        return None
    return lo, hi


def box_contact(cell, box, c, d, half, t_max) -> Contact | None:
    x0, x1, y0, y1 = box
    hx, hy = half
    sx = _slab(x0 - hx, x1 + hx, c[0], d[0])
    sy = _slab(y0 - hy, y1 + hy, c[1], d[1])
    span = _meet(sx, sy)
    if span is None or (span[1] is not None and span[1] <= 0):
        return None
    lo = span[0]
    if lo is None or lo < 0:
        return Contact(cell, Time(Fraction(0)), True, "inside", None, None)
    if t_max is not None and lo > t_max:
        return None
    ex = sx[0] if sx[0] is not None else None
    ey = sy[0] if sy[0] is not None else None
    sgn = lambda v: (v > 0) - (v < 0)  # noqa: E731
    if ex == ey:
        normal = (-sgn(d[0]), -sgn(d[1]))
        return Contact(cell, Time(lo), False, "corner", normal, None)
    if ex is not None and ex == lo:
        return Contact(cell, Time(lo), False, "face", (-sgn(d[0]), 0), None)
    return Contact(cell, Time(lo), False, "face", (0, -sgn(d[1])), None)


def _disc_entry(k, c, d, r) -> Time | None:
    """Entry Time into the open disc of radius r around k, if the line crosses it and the
    crossing ends after t = 0; else None."""
    qx, qy = c[0] - k[0], c[1] - k[1]
    a = d[0] ** 2 + d[1] ** 2
    b = d[0] * qx + d[1] * qy
    disc = b * b - a * (qx * qx + qy * qy - r * r)
    if disc <= 0:
        return None
    # exit (-b + sqrt(disc)) / a > 0  <=>  sqrt(disc) > b
    if not (b < 0 or disc > b * b):
        return None
    return Time(None, b, disc, a)


def _gap2(box, p):
    x0, x1, y0, y1 = box
    gx = max(x0 - p[0], Fraction(0), p[0] - x1)
    gy = max(y0 - p[1], Fraction(0), p[1] - y1)
    return gx * gx + gy * gy


def circle_contact(cell, box, c, d, r, t_max) -> Contact | None:
    x0, x1, y0, y1 = box
    sgn = lambda v: (v > 0) - (v < 0)  # noqa: E731
    if _gap2(box, c) < r * r:
        return Contact(cell, Time(Fraction(0)), True, "inside", None, None)
    pieces = []  # (entry Time, kind, normal, corner); not inside, so every entry is >= 0
    for span, normal in (
        (_meet(_slab(x0 - r, x1 + r, c[0], d[0]), _closed(y0, y1, c[1], d[1])), (-sgn(d[0]), 0)),
        (_meet(_closed(x0, x1, c[0], d[0]), _slab(y0 - r, y1 + r, c[1], d[1])), (0, -sgn(d[1]))),
    ):
        if span is None or (span[1] is not None and span[1] <= 0):
            continue
        pieces.append((Time(span[0]), "face", normal, None))
    for k in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
        entry = _disc_entry(k, c, d, r)
        if entry is not None:
            pieces.append((entry, "corner", None, k))
    if not pieces:
        return None
    best = pieces[0]
    for piece in pieces[1:]:
        order = compare(piece[0], best[0])
        if order < 0 or (order == 0 and piece[1] == "face" and best[1] == "corner"):
            best = piece
    entry, kind, normal, k = best
    if t_max is not None and compare(entry, Time(t_max)) > 0:
        return None
    return Contact(cell, entry, False, kind, normal, k)


def _closed(lo, hi, c, d):
    """Closed interval of t with c + t d in [lo, hi], as an 'open' pair (None: unbounded)."""
    if d == 0:
        return (None, None) if lo <= c <= hi else None
    a, b = (lo - c) / d, (hi - c) / d
    return (a, b) if d > 0 else (b, a)


def cast(world, center, direction, *, radius=None, half=None, max_distance=math.inf,
         blocks=True):  # fmt: skip
    """Every first contact (ties included), faces first, then by (row, col); [] on a miss.

    ``t_max`` is ``max_distance / |d|`` taken from the doubles (the product
    rounds it up by a few ulps; tests compare away from that edge).
    """
    c = (Fraction(center[0]), Fraction(center[1]))
    d = (Fraction(direction[0]), Fraction(direction[1]))
    # None: no limit
    t_max = (
        None if math.isinf(max_distance)
        else Fraction(max_distance) / Fraction(math.hypot(*direction))
    )  # fmt: skip
    found = []
    grid = _cells_grid(world)
    if grid.outside == "solid":
        # the outside is one obstacle: a shape reaching beyond the map's rectangle starts in it
        rows, cols = grid.shape
        (w, h), (ox, oy) = grid.tile_size, grid.origin
        ex, ey = (radius, radius) if radius is not None else half
        x0, x1 = Fraction(ox), Fraction(ox + cols * w)
        y0, y1 = Fraction(oy), Fraction(oy + rows * h)
        if (
            c[0] - Fraction(ex) < x0
            or c[0] + Fraction(ex) > x1
            or (c[1] - Fraction(ey) < y0 or c[1] + Fraction(ey) > y1)
        ):
            return [Contact((-1, -1), Time(Fraction(0)), True, "inside", None, None)]
    for cell, box in obstacles(world, blocks):
        if radius is not None:
            contact = circle_contact(cell, box, c, d, Fraction(radius), t_max)
        else:
            contact = box_contact(cell, box, c, d, tuple(map(Fraction, half)), t_max)
        if contact is not None:
            found.append(contact)
    if not found:
        return []
    if any(f.inside for f in found):
        return sorted((f for f in found if f.inside), key=lambda f: (f.cell[1], f.cell[0]))
    first = found[0].time
    for f in found:
        if compare(f.time, first) < 0:
            first = f.time
    tied = [f for f in found if compare(f.time, first) == 0]
    return sorted(tied, key=lambda f: (f.kind != "face", f.cell[1], f.cell[0]))


def overlaps(world, position, *, radius=None, half=None, blocks=True) -> bool:
    """Exactly: does the shape at ``position`` (doubles or Fractions) overlap an obstacle?

    With ``outside="solid"``, only the ring of cells around the map stands for
    the outside: give positions of shapes that start within the map.
    """
    px, py = Fraction(position[0]), Fraction(position[1])
    for _, (x0, x1, y0, y1) in obstacles(world, blocks):
        if radius is not None:
            r = Fraction(radius)
            gx = max(x0 - px, Fraction(0), px - x1)
            gy = max(y0 - py, Fraction(0), py - y1)
            if gx * gx + gy * gy < r * r:
                return True
        else:
            hx, hy = Fraction(half[0]), Fraction(half[1])
            if px + hx > x0 and px - hx < x1 and py + hy > y0 and py - hy < y1:
                return True
    return False


def distance(time: Time, direction) -> Decimal:
    """The exact travel ``t * |d|`` at 80 digits."""
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        n2 = _dec(Fraction(direction[0]) ** 2 + Fraction(direction[1]) ** 2)
        return time.decimal() * n2.sqrt()


# ------------------------------------------------------------------- bodies
# A body of a SpatialHash (through its public ``shape(id)``): a box, a circle,
# a segment or a convex polygon, closed, its coordinates the doubles taken as
# exact rationals. The shape's centre meets it when it enters the open
# Minkowski sum of the body and the shape:
# - a circle and a circle body: the disc of radius r + rb (summed exactly);
# - a box and a circle body: the circle of radius rb against the box around
#   the body's centre (what ``circle_contact`` does for a cell);
# - a circle and a segment: the capsule (two end discs, and the band of the
#   side, whose entry ``(side*c0 - r*|s|) / (-side*cd)`` is ``u - sqrt(v)``);
#   a convex polygon: the polygon itself (a start inside) and its edges' capsules;
# - a box and a segment or a convex polygon: the open half-planes of the
#   separating axes (x, y and each edge's normal), all rational.


def _sign_minus_root(x: Fraction, beta: Fraction, v: Fraction) -> int:
    """Exact sign of ``x - beta * sqrt(v)`` (``v >= 0``)."""
    if beta == 0 or v == 0:
        return _sgn(x)
    if beta < 0:
        if x >= 0:
            return 1
        return _sgn(beta * beta * v - x * x)
    if x <= 0:
        return -1
    return _sgn(x * x - beta * beta * v)


def _root_time(u: Fraction, v: Fraction) -> Time:
    """The Time ``u - sqrt(v)``."""
    return Time(None, -u, v, Fraction(1))


def _earliest(pieces):
    """The earliest of ``(Time, kind)`` pieces (a tie: a face first); None when empty."""
    best = None
    for piece in pieces:
        if best is None:
            best = piece
            continue
        order = compare(piece[0], best[0])
        if order < 0 or (order == 0 and piece[1] == "face" and best[1] == "corner"):
            best = piece
    return best


def _dist2_to_segment(p, a, b) -> Fraction:
    sx, sy = b[0] - a[0], b[1] - a[1]
    wx, wy = p[0] - a[0], p[1] - a[1]
    ss = sx * sx + sy * sy
    u = Fraction(0) if ss == 0 else min(max((wx * sx + wy * sy) / ss, Fraction(0)), Fraction(1))
    gx, gy = wx - u * sx, wy - u * sy
    return gx * gx + gy * gy


def _band(a, b, c, d, r) -> Time | None:
    """Entry of ``c + t d`` into the open side band of the segment ``a b`` within its span."""
    sx, sy = b[0] - a[0], b[1] - a[1]
    ss = sx * sx + sy * sy
    if ss == 0:
        return None
    c0 = sx * (c[1] - a[1]) - sy * (c[0] - a[0])
    cd = sx * d[1] - sy * d[0]
    side = _sgn(c0)
    if side == 0 or _sgn(cd) != -side or c0 * c0 <= r * r * ss:
        return None
    # t = u - sqrt(v): u = side*c0 / (-side*cd), sqrt(v) = r |s| / (-side*cd)
    den = -side * cd
    u = side * c0 / den
    v = r * r * ss / (den * den)
    along0 = (c[0] - a[0]) * sx + (c[1] - a[1]) * sy
    ds = d[0] * sx + d[1] * sy
    # along(T) = along0 + ds (u - sqrt(v)) strictly within (0, ss)
    if _sign_minus_root(along0 + ds * u, ds, v) <= 0:
        return None
    if _sign_minus_root(along0 - ss + ds * u, ds, v) >= 0:
        return None
    return _root_time(u, v)


def _capsule(a, b, c, d, r):
    """``(inside, earliest (Time, kind) or None)`` of a circle against a segment's capsule."""
    if _dist2_to_segment(c, a, b) < r * r:
        return True, None
    pieces = [(e, "corner") for e in (_disc_entry(a, c, d, r), _disc_entry(b, c, d, r)) if e]
    band = _band(a, b, c, d, r)
    if band is not None:
        pieces.append((band, "face"))
    return False, _earliest(pieces)


def _ccw(vertices):
    area = sum(
        vertices[k][0] * vertices[(k + 1) % len(vertices)][1]
        - vertices[(k + 1) % len(vertices)][0] * vertices[k][1]
        for k in range(len(vertices))
    )
    return vertices if area > 0 else vertices[::-1]


def _edges(vertices):
    """Directed edges with the inside on their left (a segment: both ways)."""
    if len(vertices) == 2:
        return [(vertices[0], vertices[1]), (vertices[1], vertices[0])]
    v = _ccw(vertices)
    return [(v[k], v[(k + 1) % len(v)]) for k in range(len(v))]


def _halfplane(a, b, c, d, half):
    """Open t-interval where the box at ``c + t d`` meets the open left side of ``a b`` grown."""
    sx, sy = b[0] - a[0], b[1] - a[1]
    reach = abs(sy) * half[0] + abs(sx) * half[1]
    l0 = sx * (c[1] - a[1]) - sy * (c[0] - a[0]) + reach
    l1 = sx * d[1] - sy * d[0]
    if l1 == 0:
        return (None, None) if l0 > 0 else None
    return (-l0 / l1, None) if l1 > 0 else (None, -l0 / l1)


def _box_polygon(vertices, c, d, half):
    """``(inside, (Time, kind) or None)`` of a box against a segment or convex polygon."""
    xs = [v[0] for v in vertices]
    ys = [v[1] for v in vertices]
    slabs = [
        _slab(min(xs) - half[0], max(xs) + half[0], c[0], d[0]),
        _slab(min(ys) - half[1], max(ys) + half[1], c[1], d[1]),
    ]
    slabs += [_halfplane(a, b, c, d, half) for a, b in _edges(vertices)]
    span = _meet(*slabs)
    if span is None or (span[1] is not None and span[1] <= 0):
        return False, None
    if span[0] is None or span[0] < 0:
        return True, None
    return False, (Time(span[0]), "face")


def _strictly_inside(p, vertices) -> bool:
    return all(
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0
        for a, b in _edges(vertices)
    )


def body_contact(kind, geometry, c, d, *, radius=None, half=None):
    """``(inside, (Time, kind) or None)`` of the shape moving along ``c + t d`` against a body."""
    F = Fraction
    if kind == "box":
        box = (F(geometry[0]), F(geometry[2]), F(geometry[1]), F(geometry[3]))
        if radius is not None:
            found = circle_contact((0, 0), box, c, d, F(radius), None)
        else:
            found = box_contact((0, 0), box, c, d, (F(half[0]), F(half[1])), None)
        if found is None:
            return False, None
        return found.inside, (None if found.inside else (found.time, found.kind))
    if kind == "circle":
        k, rb = (F(geometry[0][0]), F(geometry[0][1])), F(geometry[1])
        if radius is not None:
            reach = F(radius) + rb
            if (c[0] - k[0]) ** 2 + (c[1] - k[1]) ** 2 < reach * reach:
                return True, None
            entry = _disc_entry(k, c, d, reach)
            return False, (None if entry is None else (entry, "corner"))
        hx, hy = F(half[0]), F(half[1])
        box = (k[0] - hx, k[0] + hx, k[1] - hy, k[1] + hy)
        found = circle_contact((0, 0), box, c, d, rb, None)
        if found is None:
            return False, None
        return found.inside, (None if found.inside else (found.time, found.kind))
    vertices = [(F(x), F(y)) for x, y in geometry]
    if radius is None:
        return _box_polygon(vertices, c, d, (F(half[0]), F(half[1])))
    r = F(radius)
    if len(vertices) > 2 and _strictly_inside(c, vertices):
        return True, None
    edges = [(vertices[0], vertices[1])] if len(vertices) == 2 else _edges(vertices)
    pieces = []
    for a, b in edges:
        inside, piece = _capsule(a, b, c, d, r)
        if inside:
            return True, None
        if piece is not None:
            pieces.append(piece)
    return False, _earliest(pieces)


def cast_with_bodies(world, bodies, center, direction, *, radius=None, half=None):
    """Every first obstacle: ``("cell", cell)`` or ``("body", id)``, with the Time and inside.

    Returns ``(time, inside, obstacles)``, or None on a miss: the obstacles met
    first (all of an exact tie); the product reports a cell when one is among them.
    """
    F = Fraction
    c = (F(center[0]), F(center[1]))
    d = (F(direction[0]), F(direction[1]))
    found = []  # (inside, Time or None, obstacle)
    for contact in cast(world, center, direction, radius=radius, half=half):
        found.append((contact.inside, contact.time, ("cell", contact.cell)))
    for body in bodies.query_rect((-1e300, -1e300, 1e300, 1e300)).tolist():
        kind, geometry = bodies.shape(body)
        if kind == "segment":
            kind, geometry = "polygon", geometry
        inside, piece = body_contact(kind, geometry, c, d, radius=radius, half=half)
        if inside:
            found.append((True, Time(F(0)), ("body", body)))
        elif piece is not None:
            found.append((False, piece[0], ("body", body)))
    if not found:
        return None
    if any(f[0] for f in found):
        return Time(F(0)), True, [f[2] for f in found if f[0]]
    first = found[0][1]
    for f in found:
        if compare(f[1], first) < 0:
            first = f[1]
    return first, False, [f[2] for f in found if compare(f[1], first) == 0]


def overlaps_bodies(bodies, position, *, radius=None, half=None) -> bool:
    """Exactly: does the shape at ``position`` overlap a body (interiors meet)?"""
    p = (Fraction(position[0]), Fraction(position[1]))
    still = (Fraction(1), Fraction(0))
    for body in bodies.query_rect((-1e300, -1e300, 1e300, 1e300)).tolist():
        kind, geometry = bodies.shape(body)
        if kind == "segment":
            kind = "polygon"
        if body_contact(kind, geometry, p, still, radius=radius, half=half)[0]:
            return True
    return False
