"""The exact grid walk shared by the pure-Python ray functions (the reference).

A ray (or segment) lives in *tile space*: it starts at ``(u0, v0)`` and moves
along ``(du, dv)``. Its parameter ``t`` crosses the vertical grid line ``X`` at
``(X - u0) / du`` and the horizontal line ``Y`` at ``(Y - v0) / dv``. The only
decision a walk makes is which of the next two crossings comes first, and that
is decided exactly: a floating-point filter answers when it is sure, and
:class:`fractions.Fraction` arithmetic on the same doubles answers otherwise.
No epsilon, no accumulated error: a crossing's ``t`` is recomputed from the
origin every time it is reported.

The walker also *seeks*: it jumps to the state just before a given grid line
is crossed (used to reach a map from far away, and by two-level walks that
skip empty blocks), with the skipped cell found exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["CORNER_NORMAL", "TileWalker", "first_cell", "last_cell"]

# |error| of the filtered comparison is below 3 units in the last place of the
# operands' sum; 1e-15 is about 9 of them, comfortably safe.
_FILTER = 1e-15
# Below this the products may have lost bits to underflow: go exact.
_TINY = 1e-280

CORNER_NORMAL = 1.0 / math.sqrt(2.0)


def _sign(value: float) -> int:
    return (value > 0.0) - (value < 0.0)


def first_cell(u: float, du: float) -> int:
    """Index of the cell occupied just after ``t = 0`` along one axis."""
    if du < 0.0:
        return math.ceil(u) - 1
    return math.floor(u)


def last_cell(u: float, du: float) -> int:
    """Index of the cell occupied just before the segment's end along one axis."""
    if du > 0.0:
        return math.ceil(u) - 1
    return math.floor(u)


class TileWalker:
    """Exact walk of the grid cells along a tile-space ray.

    Parameters
    ----------
    u0, v0 : float
        Start point in tile space.
    du, dv : float
        Direction in tile space (floats used to report ``t``).
    exact_du, exact_dv : Fraction
        The exact direction, used only when the float filter is unsure (for a
        segment this is ``Fraction(u1) - Fraction(u0)``, which the float
        ``du`` may only approximate).

    Attributes
    ----------
    i, j : int
        The cell currently occupied.
    next_x, next_y : int
        The next grid lines the ray will cross (meaningless on an axis with
        zero direction).
    """

    __slots__ = (
        "du",
        "dv",
        "exact_du",
        "exact_dv",
        "i",
        "i0",
        "j",
        "j0",
        "next_x",
        "next_y",
        "sx",
        "sy",
        "u0",
        "v0",
    )

    def __init__(
        self,
        u0: float,
        v0: float,
        du: float,
        dv: float,
        exact_du: Fraction | None = None,
        exact_dv: Fraction | None = None,
    ) -> None:
        self.u0, self.v0, self.du, self.dv = u0, v0, du, dv
        self.exact_du = Fraction(du) if exact_du is None else exact_du
        self.exact_dv = Fraction(dv) if exact_dv is None else exact_dv
        self.sx, self.sy = _sign(du), _sign(dv)
        self.i = self.i0 = first_cell(u0, du)
        self.j = self.j0 = first_cell(v0, dv)
        self.next_x = self.i + 1 if self.sx > 0 else self.i
        self.next_y = self.j + 1 if self.sy > 0 else self.j

    # ----------------------------------------------------------- predicates
    def order(self, x_line: int, y_line: int) -> int:
        """Compare when the ray crosses ``x_line`` and ``y_line``.

        Returns -1 when the x crossing comes strictly first, 1 when the y
        crossing does, 0 when they coincide (a lattice point). Both axes must
        have a non-zero direction and both lines must lie ahead of the start.
        """
        a = abs(x_line - self.u0)
        b = abs(y_line - self.v0)
        lhs = a * abs(self.dv)
        rhs = b * abs(self.du)
        total = lhs + rhs
        if math.isfinite(total) and min(lhs, rhs) > _TINY:
            diff = lhs - rhs
            if abs(diff) > _FILTER * total:
                return -1 if diff < 0.0 else 1
        exact = abs(x_line - Fraction(self.u0)) * abs(self.exact_dv) - abs(
            y_line - Fraction(self.v0)
        ) * abs(self.exact_du)
        return (exact > 0) - (exact < 0)

    def next_event(self) -> int:
        """Which crossing comes next: -1 x, 1 y, 0 both at once (a corner)."""
        if self.sx == 0:
            return 1
        if self.sy == 0:
            return -1
        return self.order(self.next_x, self.next_y)

    def t_at_x(self, x_line: int) -> float:
        """Ray parameter where the ray crosses the vertical line ``x_line``."""
        return (x_line - self.u0) / self.du

    def t_at_y(self, y_line: int) -> float:
        """Ray parameter where the ray crosses the horizontal line ``y_line``."""
        return (y_line - self.v0) / self.dv

    # ---------------------------------------------------------------- moves
    def step_x(self) -> None:
        """Cross the next vertical line."""
        self.i += self.sx
        self.next_x += self.sx

    def step_y(self) -> None:
        """Cross the next horizontal line."""
        self.j += self.sy
        self.next_y += self.sy

    def seek_x(self, x_line: int) -> None:
        """Jump to the state just before the ray crosses ``x_line``.

        Every crossing strictly before that one is taken (exactly), any
        crossing at the same ``t`` is left for the caller. ``x_line`` must be
        at or beyond :attr:`next_x` in the direction of travel.
        """
        self.i = x_line - 1 if self.sx > 0 else x_line
        self.next_x = x_line
        if self.sy != 0:
            estimate = self.v0 + self.dv * self.t_at_x(x_line)
            self.j, self.next_y = self._settle(
                self.j0, self.sy, estimate, lambda line: self.order(x_line, line) > 0
            )

    def seek_y(self, y_line: int) -> None:
        """Jump to the state just before the ray crosses ``y_line`` (see :meth:`seek_x`)."""
        self.j = y_line - 1 if self.sy > 0 else y_line
        self.next_y = y_line
        if self.sx != 0:
            estimate = self.u0 + self.du * self.t_at_y(y_line)
            self.i, self.next_x = self._settle(
                self.i0, self.sx, estimate, lambda line: self.order(line, y_line) < 0
            )

    @staticmethod
    def _settle(start: int, step: int, estimate: float, crossed_before) -> tuple[int, int]:
        """Find the cell on the other axis from a float estimate, exactly.

        ``crossed_before(line)`` tells whether that line is crossed strictly
        before the target crossing. Returns ``(cell, next_line)``.
        """
        cell = math.floor(estimate) if math.isfinite(estimate) else start
        if (cell - start) * step < 0:  # never behind the start cell
            cell = start
        line = cell + 1 if step > 0 else cell
        while crossed_before(line):
            cell += step
            line += step
        while cell != start and not crossed_before(line - step):
            cell -= step
            line -= step
        return cell, line
