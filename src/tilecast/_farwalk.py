"""The exact far-range path: the grid walk in plain Python with exact rationals.

The compiled walk (:mod:`tilecast._kernels.walk`) is exact while a ray's
tile-space numbers stay inside a proven range (coordinates up to 2**50 tiles,
no coordinate or direction component below 2**-300 tiles but zero). The rare
ray beyond it (an origin 1e300 away, a direction such as ``(1, 1e-300)``)
comes here: the same walk, step for step, with Python integers for cells and
:class:`fractions.Fraction` to decide ties, so it is exact for every double.

A ray (or segment) lives in *tile space*: it starts at ``(u0, v0)`` and moves
along ``(du, dv)``. Its parameter ``t`` crosses the vertical grid line ``X`` at
``(X - u0) / du`` and the horizontal line ``Y`` at ``(Y - v0) / dv``. The only
decision a walk makes is which of the next two crossings comes first: a
floating-point filter answers when it is sure, Fraction arithmetic on the
same doubles otherwise. The walker also *seeks*: it jumps to the state just
before a given grid line is crossed (to reach a map from far away, and to
skip empty tiles of a tile map), with the skipped cell found exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from tilecast._validate import tile_coordinates
from tilecast._walkspec import (
    CORNER_NORMAL,
    DIAGONAL_GAPS,
    FILTER,
    TINY,
    corner_stop,
    first_cell,
    last_cell,
)
from tilecast.grid import Grid
from tilecast.results import Hit, Step
from tilecast.tiles import EMPTY, FULL, MIXED, TileMap
from tilecast.world import World

__all__ = ["cast", "cells", "sight"]


def _sign(value: float) -> int:
    return (value > 0.0) - (value < 0.0)


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
        if math.isfinite(total) and min(lhs, rhs) > TINY:
            diff = lhs - rhs
            if abs(diff) > FILTER * total:
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
    def _settle(
        start: int, step: int, estimate: float, crossed_before: Callable[[int], bool]
    ) -> tuple[int, int]:
        """Find the cell on the other axis from a float estimate, exactly.

        ``crossed_before(line)`` tells whether that line is crossed strictly
        before the target crossing. Returns ``(cell, next_line)``.
        """
        # Index k counts cells from the start along the travel: behind(k) says
        # the line ahead of cell start + k*step is crossed before the target.
        # It holds for the first cells and then never again; the answer is
        # the first k where it does not. The float estimate is usually within
        # a cell, but can be off by a lot where the numbers cancel (huge
        # coordinates), so search outwards from it by doubling steps and then
        # halve the bracket: a few dozen exact comparisons at worst.
        ahead = 1 if step > 0 else 0  # line = cell + ahead

        def behind(k: int) -> bool:
            return crossed_before(start + k * step + ahead)

        guess = (math.floor(estimate) - start) * step if math.isfinite(estimate) else 0
        guess = max(guess, 0)  # never behind the start cell
        if behind(guess):
            lo, width = guess, 1  # behind(lo) holds
            while behind(lo + width):
                lo += width
                width *= 2
            hi = lo + width  # behind(hi) fails
        else:
            hi, width = guess, 1  # behind(hi) fails
            lo = -1  # below 0: the start cell itself is the answer
            while hi > 0:
                probe = max(hi - width, 0)
                if behind(probe):
                    lo = probe
                    break
                hi = probe
                width *= 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if behind(mid):
                lo = mid
            else:
                hi = mid
        cell = start + hi * step
        return cell, cell + ahead


def normalised_direction(dx: float, dy: float) -> tuple[float, float]:
    """Scale a direction by a power of two so its larger component is in [1, 2).

    The scaling is exact, so the ray is unchanged, and ray parameters stay in a
    range where ``t * |d|`` neither overflows nor underflows even for
    directions such as ``(1e-300, 0)``.
    """
    _, exponent = math.frexp(max(abs(dx), abs(dy)))
    return math.ldexp(dx, 1 - exponent), math.ldexp(dy, 1 - exponent)


#: Cells a hit can report: within int64, like the cell arrays of ``raycast_many``.
CELL_LIMIT = 2**63


def check_reportable(name: str, cell: tuple[int, int]) -> None:
    """Raise ``ValueError`` naming ``name`` when a hit's cell does not fit in int64."""
    if not (-CELL_LIMIT <= cell[0] < CELL_LIMIT and -CELL_LIMIT <= cell[1] < CELL_LIMIT):
        raise ValueError(
            f"{name}: the ray starts in the solid cell {cell} beyond the map, which is "
            f"outside the cells a hit can report (int64: within +-2**63)"
        )


# ------------------------------------------------------------- walk spaces
@dataclass(frozen=True, slots=True)
class _Space:
    """What a walk needs to know about a map, in the units of the cells it walks.

    On a ``Grid`` the walk cells are the tiles. On a ``TileMap`` they are the
    pixels of the expanded pixel grid (so every answer equals the pixel
    grid's), and ``empty_block`` lets the walk jump over whole tiles that have
    no solid pixel.
    """

    cell_size: tuple[float, float]
    origin: tuple[float, float]
    cols: int
    rows: int
    outside_solid: bool
    is_solid: Callable[[int, int], bool]
    # (i, j) -> ((cell), pixel or None): the public names of a walk cell
    name: Callable[[int, int], tuple[tuple[int, int], tuple[int, int] | None]]
    # (i, j) on the map -> (x_lo, x_hi, y_lo, y_hi) walk lines bounding an
    # empty block containing it, or None; None on maps without blocks
    empty_block: Callable[[int, int], tuple[int, int, int, int] | None] | None = None

    def on_map(self, i: int, j: int) -> bool:
        return 0 <= i < self.cols and 0 <= j < self.rows


def _grid_space(grid: Grid) -> _Space:
    solid = grid.solid
    rows, cols = solid.shape
    outside_solid = grid.outside == "solid"

    def is_solid(i: int, j: int) -> bool:
        if 0 <= i < cols and 0 <= j < rows:
            return bool(solid[j, i])
        return outside_solid

    def name(i: int, j: int) -> tuple[tuple[int, int], None]:
        return (i, j), None

    return _Space(grid.tile_size, grid.origin, cols, rows, outside_solid, is_solid, name)


def _tilemap_space(tilemap: TileMap) -> _Space:
    tw, th = tilemap.tile_pixels
    rows, cols = tilemap.shape
    kinds, variants = tilemap.cell_kinds, tilemap.cell_variant
    masks = tilemap.variant_masks
    outside_solid = tilemap.outside == "solid"
    pixel_cols, pixel_rows = cols * tw, rows * th

    def is_solid(p: int, q: int) -> bool:
        if 0 <= p < pixel_cols and 0 <= q < pixel_rows:
            i, px = divmod(p, tw)
            j, py = divmod(q, th)
            kind = kinds[j, i]
            if kind == MIXED:
                return bool(masks[variants[j, i], py, px])
            return bool(kind == FULL)
        return outside_solid

    def name(p: int, q: int) -> tuple[tuple[int, int], tuple[int, int]]:
        i, px = divmod(p, tw)
        j, py = divmod(q, th)
        return (i, j), (px, py)

    def empty_block(p: int, q: int) -> tuple[int, int, int, int] | None:
        i, j = p // tw, q // th
        if kinds[j, i] != EMPTY:
            return None
        return (i * tw, (i + 1) * tw, j * th, (j + 1) * th)

    return _Space(
        tilemap.pixel_size,
        tilemap.origin,
        pixel_cols,
        pixel_rows,
        outside_solid,
        is_solid,
        name,
        empty_block,
    )


def _space_of(grid: World) -> _Space:
    if isinstance(grid, TileMap):
        return _tilemap_space(grid)
    assert isinstance(grid, Grid)
    return _grid_space(grid)


def _jump_block(walker: TileWalker, block: tuple[int, int, int, int]) -> None:
    """Seek to just before the ray leaves an empty block (ties left to the caller).

    The exit is the nearer of the block's two exit lines, decided exactly;
    nothing inside an empty block can stop a ray, not even a lattice point
    strictly inside it (its shoulders are in the block too).
    """
    x_lo, x_hi, y_lo, y_hi = block
    x_exit = x_hi if walker.sx > 0 else x_lo
    y_exit = y_hi if walker.sy > 0 else y_lo
    if walker.sx == 0:
        walker.seek_y(y_exit)
    elif walker.sy == 0 or walker.order(x_exit, y_exit) <= 0:
        walker.seek_x(x_exit)
    else:
        walker.seek_y(y_exit)


# ------------------------------------------------------------------ the walk
def cast(
    grid: World,
    origin: tuple[float, float],
    direction: tuple[float, float],
    max_distance: float,
    gaps: str,
    ignore_start: bool,
    origin_name: str = "origin",
) -> Iterator[Hit]:
    """Yield every solid cell (or pixel) the ray enters, in order (see ``raycast_all``).

    Raises ``ValueError`` naming ``origin_name`` (or ``grid`` for a direction
    that overflows tile space) where tile coordinates overflow a float, and
    where a hit would lie in a cell beyond int64 (a ray starting in a solid
    outside at such a distance).
    """
    space = _space_of(grid)
    gaps_index = DIAGONAL_GAPS.index(gaps)
    x0, y0 = origin
    dx, dy = normalised_direction(*direction)
    (w, h), (ox, oy) = space.cell_size, space.origin
    cols, rows = space.cols, space.rows
    outside_solid = space.outside_solid
    is_solid, on_map, name = space.is_solid, space.on_map, space.name
    empty_block = space.empty_block
    norm = math.sqrt(dx * dx + dy * dy)  # not hypot: libm and CPython differ by an ulp
    u0, v0 = tile_coordinates(origin_name, origin, (ox, oy), (w, h))
    du, dv = dx / w, dy / h
    if not (math.isfinite(du) and math.isfinite(dv)):
        raise ValueError(
            f"grid: its cell size {(w, h)} is too small for a walk (a unit direction "
            f"overflows a float in cell units)"
        )
    walker = TileWalker(u0, v0, du, dv)
    sx, sy = walker.sx, walker.sy

    def gone(i: int, j: int) -> bool:
        # off the map and moving away from it on some axis: never comes back
        return (
            (i < 0 and sx <= 0)
            or (i >= cols and sx >= 0)
            or (j < 0 and sy <= 0)
            or (j >= rows and sy >= 0)
        )

    def hit(
        point: tuple[float, float],
        normal: tuple[float, float],
        distance: float,
        i: int,
        j: int,
        inside: bool = False,
    ) -> Hit:
        cell, pixel = name(i, j)
        check_reportable(origin_name, cell)
        return Hit(point, normal, distance, cell, inside, pixel)

    i, j = walker.i, walker.j
    if is_solid(i, j) and not ignore_start:
        yield hit((x0, y0), (0.0, 0.0), 0.0, i, j, True)
        if not on_map(i, j):
            return
    if not on_map(i, j) and not outside_solid:
        if gone(i, j) or not _seek_map_entry(walker, cols, rows):
            return

    x_normal = (float(-sx), 0.0)
    y_normal = (0.0, float(-sy))
    diagonal = (-sx * CORNER_NORMAL, -sy * CORNER_NORMAL)
    while True:
        if empty_block is not None and on_map(walker.i, walker.j):
            block = empty_block(walker.i, walker.j)
            if block is not None:
                _jump_block(walker, block)
        event = walker.next_event()
        x_line, y_line = walker.next_x, walker.next_y
        t = walker.t_at_x(x_line) if event <= 0 else walker.t_at_y(y_line)
        distance = t * norm
        if distance > max_distance:
            return
        if event == 0:
            point = (ox + x_line * w, oy + y_line * h)
            shoulders = ((walker.i + sx, walker.j), (walker.i, walker.j + sy))
            solid = [is_solid(*c) for c in shoulders]
            stopped = corner_stop(solid[0], solid[1], gaps_index, walker.i, walker.j, sx, sy)[0]
            blocking = [c for c, s in zip(shoulders, solid, strict=True) if s] if stopped else []
            for cell in blocking:
                yield hit(point, diagonal, distance, *cell)
                if not on_map(*cell):
                    return  # the first cell beyond a solid outside is the last hit
            walker.step_x()
            walker.step_y()
            normal = diagonal
        elif event < 0:
            walker.step_x()
            point = (ox + x_line * w, y0 + t * dy)
            normal = x_normal
        else:
            walker.step_y()
            point = (x0 + t * dx, oy + y_line * h)
            normal = y_normal
        i, j = walker.i, walker.j
        if is_solid(i, j):
            yield hit(point, normal, distance, i, j)
            if not on_map(i, j):
                return
        elif not outside_solid and gone(i, j):
            return


def _seek_map_entry(walker: TileWalker, cols: int, rows: int) -> bool:
    """Jump a ray that starts off the map to just before it enters the map box.

    Returns False (and leaves the walker alone) when the ray misses the map:
    it leaves the map's span on one axis strictly before it enters the span
    of the other. Passing exactly through a corner of the map is not a miss
    (the shoulder on the map may block).
    """
    sx, sy = walker.sx, walker.sy
    x_line = 0 if walker.i < 0 else (cols if walker.i >= cols else None)
    y_line = 0 if walker.j < 0 else (rows if walker.j >= rows else None)
    x_exit = cols if sx > 0 else 0
    y_exit = rows if sy > 0 else 0
    if y_line is not None and sx != 0 and walker.order(x_exit, y_line) < 0:
        return False
    if x_line is not None and sy != 0 and walker.order(x_line, y_exit) > 0:
        return False
    if x_line is not None and y_line is not None:
        # Enter at the later of the two crossings; a float misjudgement here
        # only seeks less far (the walk then steps the rest exactly).
        if walker.t_at_x(x_line) >= walker.t_at_y(y_line):
            walker.seek_x(x_line)
        else:
            walker.seek_y(y_line)
    elif x_line is not None:
        walker.seek_x(x_line)
    elif y_line is not None:
        walker.seek_y(y_line)
    return True


def sight(grid: World, pa: tuple[float, float], pb: tuple[float, float], gaps: str) -> bool:
    """Line of sight between two world points (see :func:`tilecast.line_of_sight`)."""
    space = _space_of(grid)
    gaps_index = DIAGONAL_GAPS.index(gaps)
    (w, h), (ox, oy) = space.cell_size, space.origin
    u0, v0 = tile_coordinates("a", pa, (ox, oy), (w, h))
    u1, v1 = tile_coordinates("b", pb, (ox, oy), (w, h))
    walker = segment_walker(u0, v0, u1, v1, "b")
    sx, sy = walker.sx, walker.sy
    i_last = last_cell(u1, walker.du) if sx else walker.i
    j_last = last_cell(v1, walker.dv) if sy else walker.j
    cols, rows = space.cols, space.rows
    outside_solid = space.outside_solid
    is_solid, empty_block = space.is_solid, space.empty_block

    while True:
        i, j = walker.i, walker.j
        x_left = (i_last - i) * sx if sx else 0
        y_left = (j_last - j) * sy if sy else 0
        if x_left <= 0 and y_left <= 0:
            return True
        on_map = 0 <= i < cols and 0 <= j < rows
        if not outside_solid and not on_map:
            # Off an empty outside: nothing here blocks. Jump to the map, or
            # finish if the rest of the segment never reaches it.
            if _misses_map(i, j, sx, sy, i_last, j_last, cols, rows):
                return True
            before = (i, j)
            if not _seek_map_entry(walker, cols, rows):
                return True
            if (walker.i, walker.j) != before:
                continue
        if empty_block is not None and on_map:
            block = empty_block(i, j)
            if block is not None:
                x_lo, x_hi, y_lo, y_hi = block
                if x_lo <= i_last < x_hi and y_lo <= j_last < y_hi:
                    return True  # the rest of the segment stays in this empty block
                _jump_block(walker, block)
                i, j = walker.i, walker.j
                x_left = (i_last - i) * sx if sx else 0
                y_left = (j_last - j) * sy if sy else 0
        if x_left > 0 and y_left > 0:
            event = walker.next_event()
        else:
            event = -1 if x_left > 0 else 1
        if event == 0:
            if corner_stop(is_solid(i + sx, j), is_solid(i, j + sy), gaps_index, i, j, sx, sy)[0]:
                return False
            walker.step_x()
            walker.step_y()
        elif event < 0:
            walker.step_x()
        else:
            walker.step_y()
        cell = (walker.i, walker.j)
        if cell != (i_last, j_last) and is_solid(*cell):
            return False


def _misses_map(
    i: int, j: int, sx: int, sy: int, i_last: int, j_last: int, cols: int, rows: int
) -> bool:
    """Return True when a segment now in cell (i, j), off the map, never enters it again."""
    for cell, last, step, size in ((i, i_last, sx, cols), (j, j_last, sy, rows)):
        if cell < 0 and (step <= 0 or last < 0):
            return True
        if cell >= size and (step >= 0 or last >= size):
            return True
    return False


def segment_walker(u0: float, v0: float, u1: float, v1: float, end_name: str = "end") -> TileWalker:
    """Return a walker for the tile-space segment ``(u0, v0) -> (u1, v1)``.

    Raises ``ValueError`` naming ``end_name`` when the segment's extent
    overflows a float (ends near opposite ends of the float range, in cells).
    """
    du, dv = u1 - u0, v1 - v0
    if not (math.isfinite(du) and math.isfinite(dv)):
        raise ValueError(
            f"{end_name}: the segment from {(u0, v0)} to {(u1, v1)} (in cells) is longer "
            "than a float holds"
        )
    return TileWalker(
        u0,
        v0,
        du,
        dv,
        Fraction(u1) - Fraction(u0),
        Fraction(v1) - Fraction(v0),
    )


def cells(u0: float, v0: float, u1: float, v1: float, policy: str) -> Iterator[Step]:
    """Yield the steps of the tile-space segment ``(u0, v0) -> (u1, v1)`` (see ``traverse``)."""
    walker = segment_walker(u0, v0, u1, v1)
    i_last = last_cell(u1, walker.du) if walker.sx else walker.i
    j_last = last_cell(v1, walker.dv) if walker.sy else walker.j
    sx, sy = walker.sx, walker.sy
    yield Step((walker.i, walker.j), 0.0, (0.0, 0.0), False)
    t_prev = 0.0
    x_normal = (float(-sx), 0.0)
    y_normal = (0.0, float(-sy))
    diagonal = (-sx * CORNER_NORMAL, -sy * CORNER_NORMAL)
    while True:
        x_left = (i_last - walker.i) * sx if sx else 0
        y_left = (j_last - walker.j) * sy if sy else 0
        if x_left <= 0 and y_left <= 0:
            return
        if x_left > 0 and y_left > 0:
            event = walker.next_event()
        else:
            event = -1 if x_left > 0 else 1
        if event <= 0:
            t = walker.t_at_x(walker.next_x)
        else:
            t = walker.t_at_y(walker.next_y)
        # Clamp: the order is exact, the reported float t only rounds.
        t = min(max(t, t_prev), 1.0)
        t_prev = t
        if event < 0:
            walker.step_x()
            yield Step((walker.i, walker.j), t, x_normal, False)
        elif event > 0:
            walker.step_y()
            yield Step((walker.i, walker.j), t, y_normal, False)
        else:
            i, j = walker.i, walker.j
            if policy in ("both", "x_first"):
                yield Step((i + sx, j), t, diagonal, True)
            if policy in ("both", "y_first"):
                yield Step((i, j + sy), t, diagonal, True)
            walker.step_x()
            walker.step_y()
            yield Step((walker.i, walker.j), t, diagonal, True)
