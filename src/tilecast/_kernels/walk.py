"""The one exact grid walk (Numba), used by every ray query on every map.

A ray (or segment) lives in *tile space*: it starts at ``(u0, v0)`` and moves
along ``(du, dv)``; its parameter ``t`` crosses the vertical grid line ``X``
at ``(X - u0) / du`` and the horizontal line ``Y`` at ``(Y - v0) / dv``. The
only decision a walk makes is which of the next two crossings comes first.
A floating-point filter answers when it is sure, an error-free expansion
(Dekker products, Shewchuk sums; :mod:`tilecast._kernels.exact`) otherwise,
which is exact while the tile-space numbers stay inside a safe range (rays
outside it get the status :data:`UNSAFE`, and the caller takes the exact
far-range path). For a segment the direction ``u1 - u0`` is carried as two
doubles, so the decisions are exact for the segment's true direction.

One kernel per mode, over shared helpers: :func:`walk_first` (the first
hit: ``raycast``, the batch's rare rays), :func:`walk_all` (every hit:
``raycast_all``), :func:`walk_sight` (line of sight) and :func:`walk_cells`
(the plain list of cells: ``traverse``). Their interfaces are records
(:mod:`tilecast._walkspec`): the map is one :class:`WalkMap`, the query one
:class:`Ray`, a resumed walk's state one :class:`WalkState`, and the answer
a :class:`WalkHit` or :class:`WalkChunk`; inside, a ray's tile-space state
is one :class:`Line`. The walks read the two-level map of
:mod:`tilecast._kernels.maps`: a ``Grid`` is a tile map whose tiles are one
pixel each, with its quadrant clearance map as tile info. From a cell whose
clearance square is large enough the walk jumps to the square's far border
(the nearer exit decided exactly, then the row or column there settled
exactly): nothing inside can stop it, so a jump skips nothing a step would
have reported. Reported numbers (distance, point, ``t``) come from the
crossing line with fixed float64 formulas, so every path agrees bit for bit.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit, types

from tilecast import _walkspec as spec
from tilecast._kernels import internal
from tilecast._kernels.exact import expansion_sign, scratch, two_prod, two_sum
from tilecast._kernels.intrinsics import caller_of, compiled_address
from tilecast._kernels.jobs import compile_together
from tilecast._walkspec import (  # the walk's rules, bounds and records, shared by every walk
    ALL_LAYERS,
    CORNER_NORMAL,
    CORNERS_BOTH,
    CORNERS_X_FIRST,
    CORNERS_Y_FIRST,
    DONE,
    FILTER,
    FOUND,
    MIXED_TILE,
    MORE,
    OFF_EMPTY,
    SAFE_DIRECTION,
    SAFE_LARGE,
    SAFE_SMALL,
    SOLID,
    UNSAFE,
    FirstHits,
    Ray,
    RayBatch,
    WalkChunk,
    WalkHit,
    WalkMap,
    WalkState,
)

_LIMIT_CAP = 2.0**52
NO_LIMIT = np.int64(2**62)
EMPTY_PIXEL = -3  # walk value EMPTY_PIXEL - r: a clear pixel of a mixed tile, clearance r
# Jump inside a mixed tile only from pixels whose clearance is at least this.
PIXEL_JUMP_MIN = 2


# ------------------------------------------------------------ exact predicates
@internal
def exact_order(x_line, y_line, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy):
    """Sign of sx*(x_line - u0)*(adv + adv_lo) - sy*(y_line - v0)*(adu + adu_lo), exactly."""
    a1, a2 = two_sum(sx * float(x_line), -sx * u0)
    b1, b2 = two_sum(sy * float(y_line), -sy * v0)
    terms = scratch(16)
    terms[0], terms[1] = two_prod(a1, adv)
    terms[2], terms[3] = two_prod(a2, adv)
    terms[4], terms[5] = two_prod(-b1, adu)
    terms[6], terms[7] = two_prod(-b2, adu)
    terms[8], terms[9] = two_prod(a1, adv_lo)
    terms[10], terms[11] = two_prod(a2, adv_lo)
    terms[12], terms[13] = two_prod(-b1, adu_lo)
    terms[14], terms[15] = two_prod(-b2, adu_lo)
    return expansion_sign(terms)


@internal
def order(x_line, y_line, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy):
    """-1 if the x crossing comes strictly first, 1 if the y crossing does, 0 if both."""
    lhs = (x_line - u0) * sx * adv
    rhs = (y_line - v0) * sy * adu
    diff = lhs - rhs
    tol = FILTER * (lhs + rhs)
    if diff < -tol:
        return -1
    if diff > tol:
        return 1
    return exact_order(x_line, y_line, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy)


first_cell = internal(spec.first_cell)


last_cell = internal(spec.last_cell)


@internal
def settle(x_line, j0, u0, v0, du, dv, adu, adv, adu_lo, adv_lo, sx, sy):
    """Row occupied just before the ray crosses x_line, and the next row line.

    With the axes swapped (``settle(y_line, i0, v0, u0, dv, du, adv, adu,
    adv_lo, adu_lo, sy, sx)``) it gives the column occupied just before the
    ray crosses ``y_line``, and the next column line: :func:`order` with its
    axes swapped is exactly the opposite order, and this uses only that.
    """
    estimate = v0 + dv * ((x_line - u0) / du)
    j = np.int64(math.floor(estimate)) if abs(estimate) < _LIMIT_CAP else j0
    if (j - j0) * sy < 0:
        j = j0
    line = j + 1 if sy > 0 else j
    while order(x_line, line, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy) > 0:
        j += sy
        line += sy
    while j != j0 and order(x_line, line - sy, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy) <= 0:
        j -= sy
        line -= sy
    return j, line


@internal
def order_at(line, x_line, y_line):
    """:func:`order` of the crossings of ``x_line`` and ``y_line`` by the walk's line."""
    return order(x_line, y_line, line.u0, line.v0, line.adu, line.adv, line.adu_lo,
                 line.adv_lo, line.sx, line.sy)  # fmt: skip


@internal
def land(line, by_x, x_line, y_line, i, j, nx, ny, i_from, j_from):
    """Move the ray to the cell it occupies just before it crosses ``x_line``
    (``by_x``) or ``y_line``, settling the other axis exactly.

    (i, j, nx, ny) is the current state, kept on an axis the ray does not
    move along; the settled row (column) is not behind ``j_from``
    (``i_from``). Returns the new state.
    """
    u0, v0, du, dv, adu, adv = line.u0, line.v0, line.du, line.dv, line.adu, line.adv
    adu_lo, adv_lo, sx, sy = line.adu_lo, line.adv_lo, line.sx, line.sy
    if by_x:
        i = x_line - 1 if sx > 0 else x_line
        nx = x_line
        if sy != 0:
            j, ny = settle(x_line, j_from, u0, v0, du, dv, adu, adv, adu_lo, adv_lo, sx, sy)
    else:
        j = y_line - 1 if sy > 0 else y_line
        ny = y_line
        if sx != 0:
            i, nx = settle(y_line, i_from, v0, u0, dv, du, adv, adu, adv_lo, adu_lo, sy, sx)
    return i, j, nx, ny


@internal
def line_limit(u0, du, norm, max_distance, s):
    """Last grid line (in the walk direction) whose crossing is within max_distance.

    Uses the same float64 formula as every reported distance,
    ((X - u0) / du) * norm, which is monotone along the walk, so the allowed
    lines form a prefix.
    """
    if s == 0 or not math.isfinite(max_distance):
        return NO_LIMIT
    estimate = u0 + du * (max_distance / norm)
    if not abs(estimate) < _LIMIT_CAP:
        return NO_LIMIT
    line = np.int64(math.floor(estimate)) if s > 0 else np.int64(math.ceil(estimate))
    # Far from a grid line, the estimate decides: the float formula is within
    # a few ulps of the exact distance, so it cannot put `line` (or the next
    # one) on the other side of max_distance. Near a line, check exactly.
    margin = 1e-12 * (abs(u0) + abs(estimate) + 1.0)
    if abs(estimate - line) > margin and abs(estimate - (line + s)) > margin:
        return line
    while ((line + s - u0) / du) * norm <= max_distance:
        line += s
    while ((line - u0) / du) * norm > max_distance:
        line -= s
    return line


@internal
def _safe(x, large):
    return x == 0.0 or SAFE_SMALL <= abs(x) <= large


@internal
def start_ray(ox, oy, w, h, x0, y0, dx, dy):
    """Map a world ray to tile space.

    Returns (safe, u0, v0, du, dv, dx, dy, norm): the direction scaled by a
    power of two so its larger component is in [1, 2) (exact: the ray is the
    same, and ray parameters stay in range), tile-space start and direction,
    and the scaled direction's length. ``safe`` is False when the numbers
    leave the range where the exact predicates are proven.
    """
    largest = max(abs(dx), abs(dy))
    if 0.5 <= largest < 1.0:  # frexp/ldexp are slow; this is the common case
        dx *= 2.0
        dy *= 2.0
    elif not 1.0 <= largest < 2.0:
        _, exponent = math.frexp(largest)
        dx = math.ldexp(dx, 1 - exponent)
        dy = math.ldexp(dy, 1 - exponent)
    if w == 1.0:  # x / 1.0 == x exactly: skip the divisions
        u0 = x0 - ox
        du = dx
    else:
        u0 = (x0 - ox) / w
        du = dx / w
    if h == 1.0:
        v0 = y0 - oy
        dv = dy
    else:
        v0 = (y0 - oy) / h
        dv = dy / h
    safe = (
        _safe(u0, SAFE_LARGE)
        and _safe(v0, SAFE_LARGE)
        and _safe(du, SAFE_DIRECTION)
        and _safe(dv, SAFE_DIRECTION)
    )
    norm = math.sqrt(dx * dx + dy * dy)  # not hypot: libm and CPython differ by an ulp
    return safe, u0, v0, du, dv, dx, dy, norm


@internal
def enter_map(line, i, j):
    """Bring a ray that starts in cell (i, j) off a map with an empty outside to it.

    Returns (outcome, i, j, nx, ny): outcome 0 when the ray now stands just
    before it enters the map box (i, j, nx, ny: its state there), 1 when it
    misses the map (it leaves one axis's span strictly before it enters the
    other's, or moves away), 2 if the state found is not next to the map
    (never expected; the caller then takes the far-range path).
    """
    cols, rows, sx, sy = line.cols, line.rows, line.sx, line.sy
    nx = i + 1 if sx > 0 else i
    ny = j + 1 if sy > 0 else j
    if left_for_good(i, j, cols, rows, sx, sy):
        return 1, i, j, nx, ny
    has_x = i < 0 or i >= cols
    has_y = j < 0 or j >= rows
    x_line = 0 if i < 0 else cols
    y_line = 0 if j < 0 else rows
    x_exit = cols if sx > 0 else 0
    y_exit = rows if sy > 0 else 0
    if has_y and sx != 0 and order_at(line, x_exit, y_line) < 0:
        return 1, i, j, nx, ny
    if has_x and sy != 0 and order_at(line, x_line, y_exit) > 0:
        return 1, i, j, nx, ny
    seek_x = has_x
    if has_x and has_y:
        # enter at the later of the two crossings; a float misjudgement here
        # only seeks less far (the walk then steps the rest exactly)
        seek_x = (x_line - line.u0) / line.du >= (y_line - line.v0) / line.dv
    i, j, nx, ny = land(line, seek_x, x_line, y_line, i, j, nx, ny, i, j)
    if not (-1 <= i <= cols and -1 <= j <= rows):
        return 2, i, j, nx, ny
    return 0, i, j, nx, ny


corner_stop = internal(spec.corner_stop)


# ----------------------------------------------------------------- map reads
@internal
def _tile_value(m, line, big_i, big_j, px, py):
    """Walk value of pixel (px, py) of tile (big_i, big_j), anywhere in the plane.

    >= 0: a tile without solid pixels (its clearance); SOLID; OFF_EMPTY;
    EMPTY_PIXEL - r: a clear pixel of a mixed tile with clearance r in its tile.
    """
    info = m.info
    if big_i < 0 or big_j < 0 or big_i >= info.shape[2] - 2 or big_j >= info.shape[1] - 2:
        return line.outside
    q = line.q
    v = np.int64(info[q, big_j + 1, big_i + 1])
    if v == MIXED_TILE:
        r = np.int64(m.pixels[q, m.variants[big_j, big_i], py, px])
        if r < 0:
            return np.int64(SOLID)
        return EMPTY_PIXEL - r
    return v


@internal
def _cell_value(m, line, p, r):
    """Walk value of walk cell (pixel) (p, r)."""
    big_i = p // line.tw
    big_j = r // line.th
    return _tile_value(m, line, big_i, big_j, p - big_i * line.tw, r - big_j * line.th)


@internal
def _step_in_tile(p, big, s, size):
    """Pixel index ``p`` in tile ``big`` moved by ``s`` (1 or -1), into the next tile past an edge.

    Returns the new ``(p, big)``; ``size`` is the tile's width (or height) in pixels.
    """
    p += s
    if p == size:
        p = np.int64(0)
        big += 1
    elif p < 0:
        p = size - 1
        big -= 1
    return p, big


@internal
def left_for_good(i, j, cols, rows, sx, sy):
    """Off the map and moving away from it on some axis: never comes back."""
    return (
        (i < 0 and sx <= 0)
        or (i >= cols and sx >= 0)
        or (j < 0 and sy <= 0)
        or (j >= rows and sy >= 0)
    )


@internal
def _misses_map(i, j, sx, sy, i_last, j_last, cols, rows):
    """A segment now in cell (i, j), off the map, never enters it again."""
    if i < 0 and (sx <= 0 or i_last < 0):
        return True
    if i >= cols and (sx >= 0 or i_last >= cols):
        return True
    if j < 0 and (sy <= 0 or j_last < 0):
        return True
    return j >= rows and (sy >= 0 or j_last >= rows)


# ------------------------------------------------------------- the walk's line
class Line(NamedTuple):
    """A ray or segment in tile space, and what each step of its walk reads (one record).

    ``(u0, v0)`` the start, ``(du, dv)`` the direction (a segment's exact
    ``u1 - u0`` is ``du + du_lo``: ``adu_lo = |du_lo|`` with the sign of the
    direction), ``(sx, sy)`` its signs; ``norm``, ``(dx, dy)``: the scaled
    world direction's length and components (rays); ``(i0, j0)`` the first
    cell, ``(i_last, j_last)`` a segment's last; ``x_limit``, ``y_limit``
    the last lines within ``max_distance`` (:data:`NO_LIMIT`: none); the
    quadrant ``q``, the tile size ``(tw, th)`` in walk cells, the map's size
    ``(cols, rows)`` in walk cells and the value of the cells beyond it.
    """

    u0: float
    v0: float
    du: float
    dv: float
    adu: float
    adv: float
    adu_lo: float
    adv_lo: float
    sx: int
    sy: int
    norm: float
    dx: float
    dy: float
    i0: int
    j0: int
    i_last: int
    j_last: int
    x_limit: int
    y_limit: int
    q: int
    tw: int
    th: int
    cols: int
    rows: int
    outside: int


@internal
def _sign(d):
    return np.int64(1) if d > 0.0 else (np.int64(-1) if d < 0.0 else np.int64(0))


@internal
def _line(m, safe, u0, v0, du, dv, du_lo, dv_lo, cells):
    """The :class:`Line` of a ray or segment (its last cell and limits are set by the caller)."""
    sx = _sign(du)
    sy = _sign(dv)
    tw = np.int64(1) if cells else np.int64(m.pixels.shape[3])
    th = np.int64(1) if cells else np.int64(m.pixels.shape[2])
    i0 = np.int64(first_cell(u0, du)) if safe else np.int64(0)
    j0 = np.int64(first_cell(v0, dv)) if safe else np.int64(0)
    return Line(
        u0, v0, du, dv, abs(du), abs(dv), du_lo * sx, dv_lo * sy, sx, sy, 1.0, 0.0, 0.0, i0, j0,
        i0, j0, NO_LIMIT, NO_LIMIT, np.int64((1 if sx < 0 else 0) + (2 if sy < 0 else 0)), tw, th,
        np.int64(m.info.shape[2] - 2) * tw, np.int64(m.info.shape[1] - 2) * th,
        np.int64(SOLID) if m.outside_solid else np.int64(OFF_EMPTY),
    )  # fmt: skip


@internal
def ray_line(m, ray):
    """(safe, line) of a ray (FIRST, ALL); not safe: beyond the proven range (see start_ray)."""
    safe, u0, v0, du, dv, dx, dy, norm = start_ray(
        m.origin_x, m.origin_y, m.cell_width, m.cell_height, ray.x0, ray.y0, ray.x1, ray.y1
    )
    line = _line(m, safe, u0, v0, du, dv, 0.0, 0.0, False)
    x_limit = line_limit(u0, du, norm, ray.max_distance, line.sx) if safe else NO_LIMIT
    y_limit = line_limit(v0, dv, norm, ray.max_distance, line.sy) if safe else NO_LIMIT
    line = Line(
        u0, v0, du, dv, line.adu, line.adv, line.adu_lo, line.adv_lo, line.sx, line.sy, norm, dx,
        dy, line.i0, line.j0, line.i_last, line.j_last, x_limit, y_limit, line.q, line.tw,
        line.th, line.cols, line.rows, line.outside,
    )  # fmt: skip
    return safe, line


@internal
def segment_line(m, ray, cells):
    """(safe, line) of a segment (SIGHT; CELLS with ``cells``: walk cells are tiles).

    The direction ``u1 - u0`` is carried as two doubles, so the decisions are
    exact for the segment's true direction.
    """
    u0 = (ray.x0 - m.origin_x) / m.cell_width
    v0 = (ray.y0 - m.origin_y) / m.cell_height
    u1 = (ray.x1 - m.origin_x) / m.cell_width
    v1 = (ray.y1 - m.origin_y) / m.cell_height
    du, du_lo = two_sum(u1, -u0)  # the exact difference, as two doubles
    dv, dv_lo = two_sum(v1, -v0)
    safe = (
        _safe(u0, SAFE_LARGE)
        and _safe(v0, SAFE_LARGE)
        and _safe(u1, SAFE_LARGE)
        and _safe(v1, SAFE_LARGE)
    )
    line = _line(m, safe, u0, v0, du, dv, du_lo, dv_lo, cells)
    i_last = np.int64(last_cell(u1, du)) if safe and line.sx != 0 else line.i0
    j_last = np.int64(last_cell(v1, dv)) if safe and line.sy != 0 else line.j0
    line = Line(
        u0, v0, du, dv, line.adu, line.adv, line.adu_lo, line.adv_lo, line.sx, line.sy, 1.0, 0.0,
        0.0, line.i0, line.j0, i_last, j_last, NO_LIMIT, NO_LIMIT, line.q, line.tw, line.th,
        line.cols, line.rows, line.outside,
    )  # fmt: skip
    return safe, line


# ------------------------------------------------------- steps, shared by the modes
@internal
def _lines_ahead(line, i, j):
    """The first column and row lines ahead of cell (i, j)."""
    return (i + 1 if line.sx > 0 else i), (j + 1 if line.sy > 0 else j)


@internal
def _split(line, i, j):
    """Tile and pixel-in-tile of walk cell (i, j): (big_i, px, big_j, py)."""
    big_i = i // line.tw
    big_j = j // line.th
    return big_i, i - big_i * line.tw, big_j, j - big_j * line.th


@internal
def _on_map(line, i, j):
    return 0 <= i < line.cols and 0 <= j < line.rows


@internal
def _square(m, line, i, j, big_i, big_j, value):
    """The square of walk cells the ray can cross at once from cell (i, j) of value ``value``.

    Returns (jump, x_lo, y_lo, size_x, size_y): the square spans the lines
    x_lo .. x_lo + size_x and y_lo .. y_lo + size_y; no jump when the cell's
    clearance is too small to be worth one.
    """
    if value >= m.jump_min:
        # a tile without solid pixels: its empty square of tiles
        tw = line.tw
        th = line.th
        x_lo = big_i * tw if line.sx >= 0 else (big_i - value) * tw
        y_lo = big_j * th if line.sy >= 0 else (big_j - value) * th
        return True, x_lo, y_lo, (value + 1) * tw, (value + 1) * th
    if value <= EMPTY_PIXEL - PIXEL_JUMP_MIN:
        # a clear pixel of a mixed tile: its clear square of pixels
        r = EMPTY_PIXEL - value
        x_lo = i if line.sx >= 0 else i - r
        y_lo = j if line.sy >= 0 else j - r
        return True, x_lo, y_lo, r + 1, r + 1
    return False, np.int64(0), np.int64(0), np.int64(0), np.int64(0)


@internal
def _leave(line, i, j, nx, ny, x_lo, y_lo, size_x, size_y):
    """Leave the square at once, by the exit line crossed first; returns (i, j, nx, ny).

    Nothing inside the square can stop the ray, so the jump skips nothing a
    step would have reported.
    """
    sx = line.sx
    sy = line.sy
    x_exit = x_lo + size_x if sx >= 0 else x_lo
    y_exit = y_lo + size_y if sy >= 0 else y_lo
    if (sx == 0 or x_exit == nx) and (sy == 0 or y_exit == ny):
        return i, j, nx, ny  # already in the square's last cell
    by_x = sy == 0 or (sx != 0 and order_at(line, x_exit, y_exit) <= 0)
    return land(line, by_x, x_exit, y_exit, i, j, nx, ny, line.i0, line.j0)


@internal
def _ray_event(line, nx, ny):
    """Which crossing comes next on a ray: -1 the column line nx, 1 the row line ny, 0 both."""
    if line.sx == 0:
        return np.int64(1)
    if line.sy == 0:
        return np.int64(-1)
    return np.int64(order_at(line, nx, ny))


@internal
def _segment_done(line, i, j):
    """The segment has reached its last cell on both axes."""
    return (line.i_last - i) * line.sx <= 0 and (line.j_last - j) * line.sy <= 0


@internal
def _segment_event(line, i, j, nx, ny):
    """Which crossing comes next on a segment not done: as :func:`_ray_event`, but an
    axis on which the segment has reached its last cell is crossed no more."""
    x_left = (line.i_last - i) * line.sx
    y_left = (line.j_last - j) * line.sy
    if x_left > 0 and y_left > 0:
        return np.int64(order_at(line, nx, ny))
    return np.int64(-1) if x_left > 0 else np.int64(1)


@internal
def _crossing(line, event, nx, ny):
    """(within, t): the ray parameter of the next crossing, and whether it is within
    ``max_distance`` (the line limits decide, exactly)."""
    if event <= 0:
        if (nx - line.x_limit) * line.sx > 0 and line.x_limit != NO_LIMIT:
            return False, 0.0
        return True, (nx - line.u0) / line.du
    if (ny - line.y_limit) * line.sy > 0 and line.y_limit != NO_LIMIT:
        return False, 0.0
    return True, (ny - line.v0) / line.dv


@internal
def _step(m, line, on_x, i, j, big_i, px, big_j, py):
    """Step into the next walk cell across a column line (``on_x``) or a row line.

    Returns (i, j, big_i, px, big_j, py, value) of the cell entered.
    """
    if on_x:
        i += line.sx
        px, big_i = _step_in_tile(px, big_i, line.sx, line.tw)
    else:
        j += line.sy
        py, big_j = _step_in_tile(py, big_j, line.sy, line.th)
    return i, j, big_i, px, big_j, py, _tile_value(m, line, big_i, big_j, px, py)


@internal
def _shoulders(m, line, i, j):
    """Are the shoulders of a lattice point, (i + sx, j) and (i, j + sy), solid?"""
    a_solid = _cell_value(m, line, i + line.sx, j) == SOLID
    b_solid = _cell_value(m, line, i, j + line.sy) == SOLID
    return a_solid, b_solid


# ------------------------------------------------------------- events
@internal
def _event(status, distance, x, y, normal_x, normal_y, col, row, inside, px, py):
    """A :class:`WalkHit` of exactly the declared field types."""
    return WalkHit(np.int64(status), np.float64(distance), np.float64(x), np.float64(y),
                   np.float64(normal_x), np.float64(normal_y), np.int64(col), np.int64(row),
                   np.int64(inside), np.int64(px), np.int64(py))  # fmt: skip


@internal
def _miss(status):
    return _event(status, np.inf, np.nan, np.nan, 0.0, 0.0, -1, -1, 0, -1, -1)


@internal
def _start_hit(ray, line, i, j):
    """A ray that starts inside a wall: hit at its origin, distance 0."""
    big_i, px, big_j, py = _split(line, i, j)
    return _event(FOUND, 0.0, ray.x0, ray.y0, 0.0, 0.0, big_i, big_j, 1, px, py)


@internal
def _crossing_hit(m, ray, line, on_x, t, nx, ny, big_i, big_j, px, py):
    """The hit where the ray crosses the column line nx (``on_x``) or the row line ny.

    The coordinate on the crossed line is the line's own; the others come
    from the ray parameter ``t`` with fixed float64 formulas.
    """
    x = m.origin_x + nx * m.cell_width if on_x else ray.x0 + t * line.dx
    y = ray.y0 + t * line.dy if on_x else m.origin_y + ny * m.cell_height
    return _event(FOUND, t * line.norm, x, y, float(-line.sx) if on_x else 0.0,
                  0.0 if on_x else float(-line.sy), big_i, big_j, 0, px, py)  # fmt: skip


@internal
def _corner_hit(m, line, t, nx, ny, i, j):
    """The hit of walk cell (i, j) at the lattice point (nx, ny): the diagonal normal."""
    big_i, px, big_j, py = _split(line, i, j)
    return _event(FOUND, t * line.norm, m.origin_x + nx * m.cell_width,
                  m.origin_y + ny * m.cell_height, -line.sx * CORNER_NORMAL,
                  -line.sy * CORNER_NORMAL, big_i, big_j, 0, px, py)  # fmt: skip


@internal
def _record(out_f, out_i, k, e):
    """Write event ``e`` as row ``k``: ``out_f[k] = (distance or t, x, y, normal)``,
    ``out_i[k] = (col, row, inside or corner, px, py)``."""
    out_f[k, 0] = e.distance
    out_f[k, 1] = e.x
    out_f[k, 2] = e.y
    out_f[k, 3] = e.normal_x
    out_f[k, 4] = e.normal_y
    out_i[k, 0] = e.col
    out_i[k, 1] = e.row
    out_i[k, 2] = e.inside
    out_i[k, 3] = e.px
    out_i[k, 4] = e.py


@internal
def _chunk(status, count, i, j, nx, ny, t_prev):
    """A :class:`WalkChunk` of exactly the declared field types."""
    return WalkChunk(np.int64(status), np.int64(count),
                     WalkState(True, np.int64(i), np.int64(j), np.int64(nx), np.int64(ny),
                               np.float64(t_prev)))  # fmt: skip


# ------------------------------------------------------------- the records' types
# One signature per kernel, compiled once: every caller passes exactly these
# types (the engine calls the compiled entry points directly, skipping dispatch).
# Compiled on first use (``walk_address``, ``compile_walk_with``), not on import.
MAP_TYPE = types.NamedTuple(
    (types.int8[:, :, ::1], types.int32[:, ::1], types.int8[:, :, :, ::1], types.boolean,
     types.int64, types.float64, types.float64, types.float64, types.float64),
    WalkMap,
)  # fmt: skip
RAY_TYPE = types.NamedTuple(
    (*[types.float64] * 5, types.int64, types.int64, types.boolean, types.uint32), Ray
)
STATE_TYPE = types.NamedTuple((types.boolean, *[types.int64] * 4, types.float64), WalkState)
HIT_TYPE = types.NamedTuple((types.int64, *[types.float64] * 5, *[types.int64] * 5), WalkHit)
CHUNK_TYPE = types.NamedTuple((types.int64, types.int64, STATE_TYPE), WalkChunk)
EVENTS_F = types.float64[:, ::1]
EVENTS_I = types.int64[:, ::1]

FIRST_SIGNATURE = HIT_TYPE(MAP_TYPE, RAY_TYPE)
SIGHT_SIGNATURE = types.int64(MAP_TYPE, RAY_TYPE)
EVENTS_SIGNATURE = CHUNK_TYPE(MAP_TYPE, RAY_TYPE, STATE_TYPE, EVENTS_F, EVENTS_I)

#: The one-ray kernel other kernels call through its address (the first hit).
WALK_SIGNATURE = FIRST_SIGNATURE


# ------------------------------------------------------------- one kernel per mode
@njit(cache=True)
def walk_first(m, ray):
    """FIRST: the first solid cell (or pixel) the ray enters, as a :class:`WalkHit`.

    Status FOUND (the hit), DONE (a miss: nothing solid within
    ``max_distance``, or the ray left a map with an empty outside) or UNSAFE
    (the far-range walk decides).
    """
    safe, line = ray_line(m, ray)
    if not safe:
        return _miss(UNSAFE)
    sx = line.sx
    sy = line.sy
    i = line.i0
    j = line.j0
    nx, ny = _lines_ahead(line, i, j)
    value = _cell_value(m, line, i, j)
    if value == SOLID and not ray.ignore_start:
        return _start_hit(ray, line, i, j)
    if value == OFF_EMPTY:
        outcome, i, j, nx, ny = enter_map(line, i, j)
        if outcome != 0:
            return _miss(DONE if outcome == 1 else UNSAFE)
        # still off the map (one cell before it): value stays OFF_EMPTY
    big_i, px, big_j, py = _split(line, i, j)
    while True:
        jump, x_lo, y_lo, size_x, size_y = _square(m, line, i, j, big_i, big_j, value)
        if jump:
            i, j, nx, ny = _leave(line, i, j, nx, ny, x_lo, y_lo, size_x, size_y)
            big_i, px, big_j, py = _split(line, i, j)
        event = _ray_event(line, nx, ny)
        within, t = _crossing(line, event, nx, ny)
        if not within:
            return _miss(DONE)
        if event != 0:
            on_x = event < 0  # the ray crosses a column line (else a row line)
            i, j, big_i, px, big_j, py, value = _step(m, line, on_x, i, j, big_i, px, big_j, py)
            if value == SOLID:
                return _crossing_hit(m, ray, line, on_x, t, nx, ny, big_i, big_j, px, py)
            if on_x:
                nx += sx
            else:
                ny += sy
        else:
            # a lattice point: the shoulders (i + sx, j) and (i, j + sy), then the diagonal cell
            a_solid, b_solid = _shoulders(m, line, i, j)
            stopped, stop_i, stop_j = corner_stop(a_solid, b_solid, ray.gaps, i, j, sx, sy)
            if stopped:
                return _corner_hit(m, line, t, nx, ny, stop_i, stop_j)
            i += sx
            j += sy
            big_i, px, big_j, py = _split(line, i, j)
            value = _tile_value(m, line, big_i, big_j, px, py)
            if value == SOLID:
                return _corner_hit(m, line, t, nx, ny, i, j)
            nx += sx
            ny += sy
        if value == OFF_EMPTY and left_for_good(i, j, line.cols, line.rows, sx, sy):
            return _miss(DONE)


@njit(cache=True)
def walk_all(m, ray, state, out_f, out_i):
    """ALL: every solid cell (or pixel) the ray enters, written as events to ``out_f``, ``out_i``.

    Answers a :class:`WalkChunk`: status DONE, UNSAFE, or MORE when the
    buffers are nearly full (call again with the chunk's state).
    """
    cap = out_f.shape[0]
    count = np.int64(0)
    safe, line = ray_line(m, ray)
    if not safe:
        return _chunk(UNSAFE, count, state.i, state.j, state.nx, state.ny, 0.0)
    sx = line.sx
    sy = line.sy
    if state.started:
        i = state.i
        j = state.j
        nx = state.nx
        ny = state.ny
        value = _cell_value(m, line, i, j)
    else:
        i = line.i0
        j = line.j0
        nx, ny = _lines_ahead(line, i, j)
        value = _cell_value(m, line, i, j)
        if value == SOLID and not ray.ignore_start:
            _record(out_f, out_i, count, _start_hit(ray, line, i, j))
            count += 1
            if not _on_map(line, i, j):
                return _chunk(DONE, count, i, j, nx, ny, 0.0)
        if value == OFF_EMPTY:
            outcome, i, j, nx, ny = enter_map(line, i, j)
            if outcome != 0:
                return _chunk(DONE if outcome == 1 else UNSAFE, count, i, j, nx, ny, 0.0)
    big_i, px, big_j, py = _split(line, i, j)
    while True:
        if count + 3 > cap:
            return _chunk(MORE, count, i, j, nx, ny, 0.0)
        jump, x_lo, y_lo, size_x, size_y = _square(m, line, i, j, big_i, big_j, value)
        if jump:
            i, j, nx, ny = _leave(line, i, j, nx, ny, x_lo, y_lo, size_x, size_y)
            big_i, px, big_j, py = _split(line, i, j)
        event = _ray_event(line, nx, ny)
        within, t = _crossing(line, event, nx, ny)
        if not within:
            return _chunk(DONE, count, i, j, nx, ny, 0.0)
        if event != 0:
            on_x = event < 0
            i, j, big_i, px, big_j, py, value = _step(m, line, on_x, i, j, big_i, px, big_j, py)
            if value == SOLID:
                hit = _crossing_hit(m, ray, line, on_x, t, nx, ny, big_i, big_j, px, py)
                _record(out_f, out_i, count, hit)
                count += 1
                if not _on_map(line, i, j):  # the first cell beyond a solid outside
                    return _chunk(DONE, count, i, j, nx, ny, 0.0)
            if on_x:
                nx += sx
            else:
                ny += sy
        else:
            a_solid, b_solid = _shoulders(m, line, i, j)
            if corner_stop(a_solid, b_solid, ray.gaps, i, j, sx, sy)[0]:
                # every blocking shoulder is a hit, the x-step one first; the
                # first one beyond a solid outside is the last hit
                if a_solid:
                    _record(out_f, out_i, count, _corner_hit(m, line, t, nx, ny, i + sx, j))
                    count += 1
                    if not _on_map(line, i + sx, j):
                        return _chunk(DONE, count, i, j, nx, ny, 0.0)
                if b_solid:
                    _record(out_f, out_i, count, _corner_hit(m, line, t, nx, ny, i, j + sy))
                    count += 1
                    if not _on_map(line, i, j + sy):
                        return _chunk(DONE, count, i, j, nx, ny, 0.0)
            i += sx
            j += sy
            big_i, px, big_j, py = _split(line, i, j)
            value = _tile_value(m, line, big_i, big_j, px, py)
            if value == SOLID:
                _record(out_f, out_i, count, _corner_hit(m, line, t, nx, ny, i, j))
                count += 1
                if not _on_map(line, i, j):
                    return _chunk(DONE, count, i, j, nx, ny, 0.0)
            nx += sx
            ny += sy
        if value == OFF_EMPTY and left_for_good(i, j, line.cols, line.rows, sx, sy):
            return _chunk(DONE, count, i, j, nx, ny, 0.0)


@njit(cache=True)
def walk_sight(m, ray):
    """SIGHT: does a cell strictly between the segment's end cells block it?

    Answers the status: FOUND (blocked), DONE (clear) or UNSAFE.
    """
    safe, line = segment_line(m, ray, False)
    if not safe:
        return np.int64(UNSAFE)
    sx = line.sx
    sy = line.sy
    i_last = line.i_last
    j_last = line.j_last
    i = line.i0
    j = line.j0
    nx, ny = _lines_ahead(line, i, j)
    value = _cell_value(m, line, i, j)
    big_i, px, big_j, py = _split(line, i, j)
    while True:
        if _segment_done(line, i, j):
            return np.int64(DONE)
        if value == OFF_EMPTY:
            # off a map with an empty outside: nothing here blocks; jump to
            # the map, or finish if the rest of the segment never reaches it
            if _misses_map(i, j, sx, sy, i_last, j_last, line.cols, line.rows):
                return np.int64(DONE)
            outcome, i2, j2, nx2, ny2 = enter_map(line, i, j)
            if outcome != 0:
                return np.int64(DONE if outcome == 1 else UNSAFE)
            if i2 != i or j2 != j:
                i = i2
                j = j2
                nx = nx2
                ny = ny2
                big_i, px, big_j, py = _split(line, i, j)
                value = _cell_value(m, line, i, j)
                continue
        jump, x_lo, y_lo, size_x, size_y = _square(m, line, i, j, big_i, big_j, value)
        if jump:
            if x_lo <= i_last < x_lo + size_x and y_lo <= j_last < y_lo + size_y:
                return np.int64(DONE)  # the rest of the segment stays in this empty square
            i, j, nx, ny = _leave(line, i, j, nx, ny, x_lo, y_lo, size_x, size_y)
            big_i, px, big_j, py = _split(line, i, j)
            if _segment_done(line, i, j):
                return np.int64(DONE)
        event = _segment_event(line, i, j, nx, ny)
        if event != 0:
            on_x = event < 0
            i, j, big_i, px, big_j, py, value = _step(m, line, on_x, i, j, big_i, px, big_j, py)
            if value == SOLID and not (i == i_last and j == j_last):
                return np.int64(FOUND)
            if on_x:
                nx += sx
            else:
                ny += sy
        else:
            a_solid, b_solid = _shoulders(m, line, i, j)
            if corner_stop(a_solid, b_solid, ray.gaps, i, j, sx, sy)[0]:
                return np.int64(FOUND)
            i += sx
            j += sy
            big_i, px, big_j, py = _split(line, i, j)
            value = _tile_value(m, line, big_i, big_j, px, py)
            if value == SOLID and not (i == i_last and j == j_last):
                return np.int64(FOUND)
            nx += sx
            ny += sy
        if value == OFF_EMPTY and left_for_good(i, j, line.cols, line.rows, sx, sy):
            return np.int64(DONE)


@njit(cache=True)
def walk_cells(m, ray, state, out_f, out_i):
    """CELLS: every cell the segment passes through, in order, written as events.

    Reads no map (the walk cells are its tiles; ``m`` gives the origin and
    tile size). Event: ``(t, u0, v0, normal, col, row, corner, -1, -1)``,
    the ``t`` clamped to the previous one and 1 (the order is exact, the
    reported float only rounds). Answers a :class:`WalkChunk` as
    :func:`walk_all` does.
    """
    cap = out_f.shape[0]
    count = np.int64(0)
    safe, line = segment_line(m, ray, True)
    if not safe:
        return _chunk(UNSAFE, count, state.i, state.j, state.nx, state.ny, state.t_prev)
    sx = line.sx
    sy = line.sy
    u0 = line.u0
    v0 = line.v0
    if state.started:
        i = state.i
        j = state.j
        nx = state.nx
        ny = state.ny
        t_prev = state.t_prev
    else:
        i = line.i0
        j = line.j0
        nx, ny = _lines_ahead(line, i, j)
        t_prev = 0.0
        _record(out_f, out_i, count, _event(DONE, 0.0, u0, v0, 0.0, 0.0, i, j, 0, -1, -1))
        count += 1
    diagonal_x = -sx * CORNER_NORMAL
    diagonal_y = -sy * CORNER_NORMAL
    corners = ray.corners
    while True:
        if count + 3 > cap:
            return _chunk(MORE, count, i, j, nx, ny, t_prev)
        if _segment_done(line, i, j):
            return _chunk(DONE, count, i, j, nx, ny, t_prev)
        event = _segment_event(line, i, j, nx, ny)
        t = (nx - u0) / line.du if event <= 0 else (ny - v0) / line.dv
        t = min(max(t, t_prev), 1.0)
        t_prev = t
        corner = np.int64(1) if event == 0 else np.int64(0)
        if event == 0:
            normal_x = diagonal_x
            normal_y = diagonal_y
            if corners == CORNERS_BOTH or corners == CORNERS_X_FIRST:
                shoulder = _event(DONE, t, u0, v0, normal_x, normal_y, i + sx, j, 1, -1, -1)
                _record(out_f, out_i, count, shoulder)
                count += 1
            if corners == CORNERS_BOTH or corners == CORNERS_Y_FIRST:
                shoulder = _event(DONE, t, u0, v0, normal_x, normal_y, i, j + sy, 1, -1, -1)
                _record(out_f, out_i, count, shoulder)
                count += 1
            i += sx
            j += sy
            nx += sx
            ny += sy
        elif event < 0:
            normal_x = float(-sx)
            normal_y = 0.0
            i += sx
            nx += sx
        else:
            normal_x = 0.0
            normal_y = float(-sy)
            j += sy
            ny += sy
        _record(out_f, out_i, count,
                _event(DONE, t, u0, v0, normal_x, normal_y, i, j, corner, -1, -1))  # fmt: skip
        count += 1


#: The walk called from other kernels through its address: the first hit.
walk = walk_first


# ------------------------------------------------------ Python's faces of the walk
# Numba boxes a named tuple for Python by calling its class (about a
# microsecond); the engine calls these instead, which call the mode's kernel
# through its address and hand back the record's fields as a plain tuple, in
# the record's order (the engine unpacks them by name).
call_walk = caller_of(walk_first, FIRST_SIGNATURE)
call_events = caller_of(walk_all, EVENTS_SIGNATURE)  # walk_all or walk_cells: one signature

FIRST_FIELDS_SIGNATURE = (MAP_TYPE, RAY_TYPE, types.int64)
EVENTS_FIELDS_SIGNATURE = (MAP_TYPE, RAY_TYPE, STATE_TYPE, EVENTS_F, EVENTS_I, types.int64)


@njit(cache=True)
def first_fields(m, ray, walk_at):
    """:func:`walk_first` (at address ``walk_at``): the :class:`WalkHit`'s fields, in order."""
    a = call_walk(walk_at, m, ray)
    return (a.status, a.distance, a.x, a.y, a.normal_x, a.normal_y, a.col, a.row, a.inside,
            a.px, a.py)  # fmt: skip


@njit(cache=True)
def events_fields(m, ray, state, out_f, out_i, walk_at):
    """:func:`walk_all` or :func:`walk_cells` (at address ``walk_at``): the
    :class:`WalkChunk`'s status, count and the state's fields, in order."""
    a = call_events(walk_at, m, ray, state, out_f, out_i)
    s = a.state
    return a.status, a.n_events, s.i, s.j, s.nx, s.ny, s.t_prev


def kernel_address(kernel: Any, signature: Any) -> int:
    """The address of a mode's compiled kernel (compiled or loaded on first use)."""
    return compiled_address(kernel, signature)


def walk_address() -> int:
    """The address of the compiled first-hit walk, for kernels that call it (:data:`call_walk`)."""
    return compiled_address(walk_first, FIRST_SIGNATURE)


def compile_walk_with(dispatcher: Any, argument_types: tuple[Any, ...], seconds: float) -> None:
    """Compile (or load) the first-hit walk and a kernel that calls it, side by side where there
    are cores.

    ``seconds``: about how long the kernel's first compile takes (the walk's
    is about 4 s on a 2-core machine), see :mod:`tilecast._kernels.jobs`.
    """
    compile_together([(walk_first, FIRST_SIGNATURE.args, 4.0),
                      (dispatcher, argument_types, seconds)])  # fmt: skip


# ------------------------------------------------------ many rays, one walk each
BATCH_TYPE = types.NamedTuple(
    (types.float64[:, ::1], types.float64[:, ::1], types.int64, types.float64[::1], types.int64,
     types.boolean, types.uint32),
    RayBatch,
)  # fmt: skip
HITS_TYPE = types.NamedTuple(
    (types.float64[::1], types.float64[:, ::1], types.float64[:, ::1], types.int64[:, ::1],
     types.boolean[::1], types.int64[:, ::1], types.uint8[::1]),
    FirstHits,
)  # fmt: skip


@internal
def first_ray(x0, y0, dx, dy, max_distance, gaps, ignore_start):
    """The :class:`Ray` of a first-hit query, of exactly the declared field types (all layers)."""
    return Ray(np.float64(x0), np.float64(y0), np.float64(dx), np.float64(dy),
               np.float64(max_distance), np.int64(gaps), np.int64(CORNERS_BOTH),
               bool(ignore_start), np.uint32(ALL_LAYERS))  # fmt: skip


@internal
def store_first_hit(out, k, a):
    """Write a first hit ``a`` (a :class:`WalkHit`) as row ``k`` of ``out``; return found.

    A miss is ``inf`` distance, NaN point, zero normal, cell ``(-1, -1)``;
    ``status[k]`` says whether the ray needs the exact far path. The pixel
    is the caller's to write.
    """
    found = a.status == FOUND
    out.status[k] = UNSAFE if a.status == UNSAFE else DONE
    out.distance[k] = a.distance if found else np.inf
    out.point[k, 0] = a.x if found else np.nan
    out.point[k, 1] = a.y if found else np.nan
    out.normal[k, 0] = a.normal_x if found else 0.0
    out.normal[k, 1] = a.normal_y if found else 0.0
    out.cell[k, 0] = a.col if found else -1
    out.cell[k, 1] = a.row if found else -1
    out.inside[k] = found and a.inside != 0
    return found


@internal
def cast_ray(k, m, rays, out, walk_at):
    """First hit of ray ``k`` of ``rays`` (a :class:`RayBatch`), written as row ``k`` of ``out``.

    Writes what :func:`cast_range` writes for the ray; returns whether it is
    UNSAFE. The body of :func:`cast_range`, and of the CUDA kernel's thread
    (:mod:`tilecast._kernels.gpu`, where ``call_walk`` is the walk itself).
    """
    direction_step = np.int64(rays.directions.shape[0] != 1)
    distance_step = np.int64(rays.max_distances.shape[0] != 1)
    o = k // rays.origin_stride
    d = k * direction_step
    ray = first_ray(rays.origins[o, 0], rays.origins[o, 1], rays.directions[d, 0],
                    rays.directions[d, 1], rays.max_distances[k * distance_step], rays.gaps,
                    rays.ignore_start)  # fmt: skip
    a = call_walk(walk_at, m, ray)
    found = store_first_hit(out, k, a)
    out.pixel[k, 0] = a.px if found else -1
    out.pixel[k, 1] = a.py if found else -1
    return a.status == UNSAFE


CAST_RANGE_SIGNATURE = (types.int64, types.int64, MAP_TYPE, BATCH_TYPE, HITS_TYPE, types.int64)


@njit(cache=True, nogil=True)  # compiled for CAST_RANGE_SIGNATURE on first use
def cast_range(lo, hi, m, rays, out, walk_at):
    """First hits of rays lo .. hi - 1 of ``rays`` (a :class:`RayBatch`), written to ``out``.

    Writes distance (inf on a miss), point (NaN), normal (0), cell (-1),
    inside, pixel (-1) and status (DONE or UNSAFE) of each ray; returns how
    many are UNSAFE (for the far-range path).
    """
    unsafe = 0
    for k in range(lo, hi):
        unsafe += cast_ray(k, m, rays, out, walk_at)
    return unsafe


CAST_SINGLE_SIGNATURE = (
    MAP_TYPE, RAY_TYPE, types.boolean[::1], types.float64[::1], types.float64[:, ::1],
    types.float64[:, ::1], types.int64[:, ::1], types.boolean[::1], types.int64[:, ::1],
    types.int64,
)  # fmt: skip


@njit(cache=True, nogil=True)  # compiled for CAST_SINGLE_SIGNATURE on first use
def cast_single(m, ray, hit, distance, point, normal, cell, inside, pixel, walk_at):
    """First hit of one ray, written as row 0 of the outputs (a one-ray ``raycast_many``).

    Writes what :func:`cast_range` writes, and ``hit``; returns the walk's
    status (FOUND, DONE, or UNSAFE: the caller takes the exact far path).
    Taking the ray and filling the caller's arrays, one call replaces the
    input arrays and the Python writes a one-ray batch would need.
    """
    out = FirstHits(distance, point, normal, cell, inside, pixel, np.empty(1, dtype=np.uint8))
    a = call_walk(walk_at, m, ray)
    found = store_first_hit(out, 0, a)
    hit[0] = found
    pixel[0, 0] = a.px if found else -1
    pixel[0, 1] = a.py if found else -1
    return a.status
