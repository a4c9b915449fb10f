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
        with localcontext() as ctx:
            ctx.prec = _DIGITS
            return (-_dec(self.b) - _dec(self.disc).sqrt()) / _dec(self.a)

    def below(self) -> Fraction:
        """A rational no greater than the time (exactly it when rational)."""
        if self.rational is not None:
            return self.rational
        value = Fraction(self.decimal())
        return value - (abs(value) + 1) / 10**70  # 80 digits: far below the margin

    def above(self) -> Fraction:
        """A rational no less than the time."""
        if self.rational is not None:
            return self.rational
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
