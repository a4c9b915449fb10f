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

:func:`walk` serves every query: the first hit (``raycast``, the batch's
rare rays), every hit (``raycast_all``), line of sight, and the plain list
of cells (``traverse``). It reads the two-level map of
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
from typing import Any

import numpy as np
from numba import njit, types

from tilecast import _walkspec as spec
from tilecast._kernels import internal
from tilecast._kernels.exact import expansion_sign, two_prod, two_sum
from tilecast._kernels.intrinsics import caller_of, compiled_address
from tilecast._kernels.jobs import compile_together
from tilecast._walkspec import (  # the walk's rules and bounds, shared by every walk
    ALL,
    CELLS,
    CORNER_NORMAL,
    CORNERS_BOTH,
    CORNERS_X_FIRST,
    CORNERS_Y_FIRST,
    DONE,
    FILTER,
    FIRST,
    FOUND,
    MIXED_TILE,
    MORE,
    OFF_EMPTY,
    SAFE_DIRECTION,
    SAFE_LARGE,
    SAFE_SMALL,
    SIGHT,
    SOLID,
    UNSAFE,
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
    terms = np.empty(16)
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
def land(by_x, x_line, y_line, i, j, nx, ny, i0, j0, u0, v0, du, dv, adu, adv, adu_lo, adv_lo,
         sx, sy):  # fmt: skip
    """Move the ray to the cell it occupies just before it crosses ``x_line``
    (``by_x``) or ``y_line``, settling the other axis exactly.

    (i, j, nx, ny) is the current state, kept on an axis the ray does not
    move along; returns the new one.
    """
    if by_x:
        i = x_line - 1 if sx > 0 else x_line
        nx = x_line
        if sy != 0:
            j, ny = settle(x_line, j0, u0, v0, du, dv, adu, adv, adu_lo, adv_lo, sx, sy)
    else:
        j = y_line - 1 if sy > 0 else y_line
        ny = y_line
        if sx != 0:
            i, nx = settle(y_line, i0, v0, u0, dv, du, adv, adu, adv_lo, adu_lo, sy, sx)
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
def enter_map(i, j, cols, rows, u0, v0, du, dv, adu_lo, adv_lo, sx, sy):
    """Bring a ray that starts in cell (i, j) off a map with an empty outside to it.

    Returns (outcome, i, j, nx, ny): outcome 0 when the ray now stands just
    before it enters the map box (i, j, nx, ny: its state there), 1 when it
    misses the map (it leaves one axis's span strictly before it enters the
    other's, or moves away), 2 if the state found is not next to the map
    (never expected; the caller then takes the far-range path).
    """
    adu = abs(du)
    adv = abs(dv)
    i0 = i
    j0 = j
    nx = i + 1 if sx > 0 else i
    ny = j + 1 if sy > 0 else j
    if (
        (i < 0 and sx <= 0)
        or (i >= cols and sx >= 0)
        or (j < 0 and sy <= 0)
        or (j >= rows and sy >= 0)
    ):
        return 1, i, j, nx, ny
    has_x = i < 0 or i >= cols
    has_y = j < 0 or j >= rows
    x_line = 0 if i < 0 else cols
    y_line = 0 if j < 0 else rows
    x_exit = cols if sx > 0 else 0
    y_exit = rows if sy > 0 else 0
    if has_y and sx != 0 and order(x_exit, y_line, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy) < 0:
        return 1, i, j, nx, ny
    if has_x and sy != 0 and order(x_line, y_exit, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy) > 0:
        return 1, i, j, nx, ny
    seek_x = has_x
    if has_x and has_y:
        # enter at the later of the two crossings; a float misjudgement here
        # only seeks less far (the walk then steps the rest exactly)
        seek_x = (x_line - u0) / du >= (y_line - v0) / dv
    i, j, nx, ny = land(seek_x, x_line, y_line, i, j, nx, ny, i0, j0, u0, v0, du, dv, adu, adv,
                        adu_lo, adv_lo, sx, sy)  # fmt: skip
    if not (-1 <= i <= cols and -1 <= j <= rows):
        return 2, i, j, nx, ny
    return 0, i, j, nx, ny


corner_stop = internal(spec.corner_stop)


# ----------------------------------------------------------------- map reads
@internal
def _tile_value(info, q, variants, pixels, outside, big_i, big_j, px, py):
    """Walk value of pixel (px, py) of tile (big_i, big_j), anywhere in the plane.

    >= 0: a tile without solid pixels (its clearance); SOLID; OFF_EMPTY;
    EMPTY_PIXEL - r: a clear pixel of a mixed tile with clearance r in its tile.
    """
    if big_i < 0 or big_j < 0 or big_i >= info.shape[2] - 2 or big_j >= info.shape[1] - 2:
        return outside
    v = np.int64(info[q, big_j + 1, big_i + 1])
    if v == MIXED_TILE:
        r = np.int64(pixels[q, variants[big_j, big_i], py, px])
        if r < 0:
            return np.int64(SOLID)
        return EMPTY_PIXEL - r
    return v


@internal
def _cell_value(info, q, variants, pixels, outside, tw, th, p, r):
    """Walk value of walk cell (pixel) (p, r)."""
    big_i = p // tw
    big_j = r // th
    return _tile_value(info, q, variants, pixels, outside, big_i, big_j, p - big_i * tw,
                       r - big_j * th)  # fmt: skip


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
def _gone(i, j, cols, rows, sx, sy):
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


# ------------------------------------------------------------------ the walk
@internal
def _record(out_f, out_i, k, f0, x, y, normal_x, normal_y, ci, cj, flag, px, py):
    out_f[k, 0] = f0
    out_f[k, 1] = x
    out_f[k, 2] = y
    out_f[k, 3] = normal_x
    out_f[k, 4] = normal_y
    out_i[k, 0] = ci
    out_i[k, 1] = cj
    out_i[k, 2] = flag
    out_i[k, 3] = px
    out_i[k, 4] = py


# One signature, compiled once: every caller passes exactly these types
# (``rays.py`` calls the compiled entry point directly, skipping dispatch).
# Compiled on first use (``walk_address``, ``compile_walk_with``), not on import.
WALK_RESULT = types.Tuple((*[types.int64] * 6, *[types.float64] * 6, *[types.int64] * 5))
WALK_SIGNATURE = WALK_RESULT(
    types.int8[:, :, ::1], types.int32[:, ::1], types.int8[:, :, :, ::1], types.boolean,
    types.int64, types.float64, types.float64, types.float64, types.float64,
    types.int64, types.int64, types.int64, types.boolean,
    types.float64, types.float64, types.float64, types.float64, types.float64,
    types.int64, types.int64, types.int64, types.int64, types.int64, types.float64,
    types.float64[:, ::1], types.int64[:, ::1],
)  # fmt: skip


@njit(cache=True)
def walk(info, variants, pixels, outside_solid, tile_jump_min, ox, oy, pw, ph, mode, gaps,
         corners, ignore_start, x0, y0, x1, y1, max_distance, resume, i, j, nx, ny, t_prev,
         out_f, out_i):  # fmt: skip
    """Walk one ray or segment over the map; see the module docstring.

    The map: ``info`` (4, rows + 2, cols + 2) int8 tile info (a grid's
    clearance map), ``variants`` (rows, cols) the variant of each tile,
    ``pixels`` (4, V, th, tw) int8 pixel clearance per variant (a grid:
    (4, 1, 1, 1), never read), ``tile_jump_min`` the least tile clearance
    worth a jump, ``(ox, oy)`` the origin and ``pw, ph`` the world size of one
    walk cell (a pixel; a grid's tile). Rays (FIRST, ALL) start at (x0, y0) along
    (x1, y1) within ``max_distance``; segments (SIGHT, CELLS) run from
    (x0, y0) to (x1, y1). CELLS reads no map: the walk cells are its tiles.

    ``resume`` 0 starts the walk; 1 goes on from the state (i, j, nx, ny,
    t_prev) a MORE status returned. ALL and CELLS write events to
    ``out_f[k] = (distance or t, x, y, nx, ny)`` and
    ``out_i[k] = (col, row, inside or corner, px, py)`` (FIRST and SIGHT
    may pass empty buffers).

    Returns (status, count, i, j, nx, ny, t_prev, and the last event:
    distance or t, x, y, normal x, normal y, col, row, inside or corner,
    px, py).
    """
    cap = out_f.shape[0]
    count = np.int64(0)  # not the literal 0: one compiled signature for _record
    # the last event
    e_f0 = np.inf
    e_x = np.nan
    e_y = np.nan
    e_nx = 0.0
    e_ny = 0.0
    e_ci = np.int64(-1)
    e_cj = np.int64(-1)
    e_flag = np.int64(0)
    e_px = np.int64(-1)
    e_py = np.int64(-1)

    segment = mode >= SIGHT
    if mode == CELLS:
        th = np.int64(1)
        tw = np.int64(1)
    else:
        th = np.int64(pixels.shape[2])
        tw = np.int64(pixels.shape[3])
    pcols = np.int64(info.shape[2] - 2) * tw
    prows = np.int64(info.shape[1] - 2) * th
    outside = np.int64(SOLID) if outside_solid else np.int64(OFF_EMPTY)
    if segment:
        u0 = (x0 - ox) / pw
        v0 = (y0 - oy) / ph
        u1 = (x1 - ox) / pw
        v1 = (y1 - oy) / ph
        du, du_lo = two_sum(u1, -u0)  # the exact difference, as two doubles
        dv, dv_lo = two_sum(v1, -v0)
        dx = 0.0
        dy = 0.0
        norm = 1.0
        safe = (
            _safe(u0, SAFE_LARGE)
            and _safe(v0, SAFE_LARGE)
            and _safe(u1, SAFE_LARGE)
            and _safe(v1, SAFE_LARGE)
        )
    else:
        safe, u0, v0, du, dv, dx, dy, norm = start_ray(ox, oy, pw, ph, x0, y0, x1, y1)
        du_lo = 0.0
        dv_lo = 0.0
    if not safe:
        return (UNSAFE, count, i, j, nx, ny, t_prev, e_f0, e_x, e_y, e_nx, e_ny, e_ci, e_cj,
                e_flag, e_px, e_py)  # fmt: skip
    adu = abs(du)
    adv = abs(dv)
    sx = np.int64(1) if du > 0.0 else (np.int64(-1) if du < 0.0 else np.int64(0))
    sy = np.int64(1) if dv > 0.0 else (np.int64(-1) if dv < 0.0 else np.int64(0))
    adu_lo = du_lo * sx
    adv_lo = dv_lo * sy
    q = (1 if sx < 0 else 0) + (2 if sy < 0 else 0)
    i0 = first_cell(u0, du)
    j0 = first_cell(v0, dv)
    i_last = last_cell(u1, du) if segment and sx != 0 else i0
    j_last = last_cell(v1, dv) if segment and sy != 0 else j0
    x_normal = float(-sx)
    y_normal = float(-sy)
    diagonal_x = -sx * CORNER_NORMAL
    diagonal_y = -sy * CORNER_NORMAL

    value = np.int64(0)
    if resume == 0:
        i = i0
        j = j0
        nx = i + 1 if sx > 0 else i
        ny = j + 1 if sy > 0 else j
        t_prev = 0.0
        if mode == CELLS:
            out_f[0, 0] = 0.0
            out_f[0, 1] = u0  # unused by CELLS; keeps the row defined
            out_f[0, 2] = v0
            out_f[0, 3] = 0.0
            out_f[0, 4] = 0.0
            out_i[0, 0] = i
            out_i[0, 1] = j
            out_i[0, 2] = 0
            count = 1
        elif not segment:
            value = _cell_value(info, q, variants, pixels, outside, tw, th, i, j)
            on_map = 0 <= i < pcols and 0 <= j < prows
            if value == SOLID and not ignore_start:
                big_i = i // tw
                big_j = j // th
                e_f0 = 0.0
                e_x = x0
                e_y = y0
                e_ci = big_i
                e_cj = big_j
                e_flag = np.int64(1)
                e_px = i - big_i * tw
                e_py = j - big_j * th
                if mode == FIRST:
                    return (FOUND, count, i, j, nx, ny, t_prev, e_f0, e_x, e_y, e_nx, e_ny, e_ci,
                            e_cj, e_flag, e_px, e_py)  # fmt: skip
                _record(out_f, out_i, count, e_f0, e_x, e_y, e_nx, e_ny, e_ci, e_cj, e_flag,
                        e_px, e_py)  # fmt: skip
                count += 1
                if not on_map:
                    return (DONE, count, i, j, nx, ny, t_prev, e_f0, e_x, e_y, e_nx, e_ny, e_ci,
                            e_cj, e_flag, e_px, e_py)  # fmt: skip
            if value == OFF_EMPTY:
                outcome, i, j, nx, ny = enter_map(i, j, pcols, prows, u0, v0, du, dv, adu_lo,
                                                  adv_lo, sx, sy)  # fmt: skip
                if outcome != 0:
                    status = DONE if outcome == 1 else UNSAFE
                    return (status, count, i, j, nx, ny, t_prev, e_f0, e_x, e_y, e_nx, e_ny,
                            e_ci, e_cj, e_flag, e_px, e_py)  # fmt: skip
                # still off the map (one cell before it): value stays OFF_EMPTY
    if mode != CELLS and (resume != 0 or segment):
        value = _cell_value(info, q, variants, pixels, outside, tw, th, i, j)

    x_limit = line_limit(u0, du, norm, max_distance, sx) if not segment else NO_LIMIT
    y_limit = line_limit(v0, dv, norm, max_distance, sy) if not segment else NO_LIMIT
    # tile and pixel-in-tile of the current cell, kept in step with (i, j)
    big_i = i // tw
    px = i - big_i * tw
    big_j = j // th
    py = j - big_j * th
    status = np.int64(-1)  # running
    while True:
        if count + 3 > cap and (mode == ALL or mode == CELLS):
            status = MORE
            break
        x_left = (i_last - i) * sx
        y_left = (j_last - j) * sy
        if segment and x_left <= 0 and y_left <= 0:
            status = DONE
            break
        if mode == SIGHT and value == OFF_EMPTY:
            # off a map with an empty outside: nothing here blocks; jump to
            # the map, or finish if the rest of the segment never reaches it
            if _misses_map(i, j, sx, sy, i_last, j_last, pcols, prows):
                status = DONE
                break
            outcome, i2, j2, nx2, ny2 = enter_map(i, j, pcols, prows, u0, v0, du, dv, adu_lo,
                                                  adv_lo, sx, sy)  # fmt: skip
            if outcome != 0:
                status = DONE if outcome == 1 else UNSAFE
                break
            if i2 != i or j2 != j:
                i = i2
                j = j2
                nx = nx2
                ny = ny2
                big_i = i // tw
                px = i - big_i * tw
                big_j = j // th
                py = j - big_j * th
                value = _cell_value(info, q, variants, pixels, outside, tw, th, i, j)
                continue
        # a square of walk cells the ray can cross at once: lines x_lo .. x_lo + size_x
        jump = False
        x_lo = np.int64(0)
        y_lo = np.int64(0)
        size_x = np.int64(0)
        size_y = np.int64(0)
        if mode == CELLS:
            pass  # no map: every cell is walked
        elif value >= tile_jump_min:
            # a tile without solid pixels: its empty square of tiles
            jump = True
            size_x = (value + 1) * tw
            size_y = (value + 1) * th
            x_lo = big_i * tw if sx >= 0 else (big_i - value) * tw
            y_lo = big_j * th if sy >= 0 else (big_j - value) * th
        elif value <= EMPTY_PIXEL - PIXEL_JUMP_MIN:
            # a clear pixel of a mixed tile: its clear square of pixels
            jump = True
            r = EMPTY_PIXEL - value
            size_x = r + 1
            size_y = r + 1
            x_lo = i if sx >= 0 else i - r
            y_lo = j if sy >= 0 else j - r
        if jump:
            if (mode == SIGHT and x_lo <= i_last < x_lo + size_x
                    and y_lo <= j_last < y_lo + size_y):  # fmt: skip
                # the rest of the segment stays in this empty square
                status = DONE
                break
            # leave the square at once, by the exit line crossed first
            x_exit = x_lo + size_x if sx >= 0 else x_lo
            y_exit = y_lo + size_y if sy >= 0 else y_lo
            if not ((sx == 0 or x_exit == nx) and (sy == 0 or y_exit == ny)):
                # (else already in the square's last cell)
                by_x = sy == 0 or (
                    sx != 0 and order(x_exit, y_exit, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy) <= 0
                )
                i, j, nx, ny = land(by_x, x_exit, y_exit, i, j, nx, ny, i0, j0, u0, v0, du, dv,
                                    adu, adv, adu_lo, adv_lo, sx, sy)  # fmt: skip
            big_i = i // tw
            px = i - big_i * tw
            big_j = j // th
            py = j - big_j * th
        # which crossing comes next
        if segment:
            x_left = (i_last - i) * sx
            y_left = (j_last - j) * sy
            if x_left <= 0 and y_left <= 0:
                status = DONE
                break
            if x_left > 0 and y_left > 0:
                event = order(nx, ny, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy)
            else:
                event = -1 if x_left > 0 else 1
        elif sx == 0:
            event = 1
        elif sy == 0:
            event = -1
        else:
            event = order(nx, ny, u0, v0, adu, adv, adu_lo, adv_lo, sx, sy)
        if event <= 0:
            if (nx - x_limit) * sx > 0 and x_limit != NO_LIMIT:
                status = DONE
                break
            t = (nx - u0) / du
        else:
            if (ny - y_limit) * sy > 0 and y_limit != NO_LIMIT:
                status = DONE
                break
            t = (ny - v0) / dv

        if mode == CELLS:
            # clamp: the order is exact, the reported float t only rounds
            t = min(max(t, t_prev), 1.0)
            t_prev = t
            e_f0 = t
            e_flag = np.int64(1) if event == 0 else np.int64(0)
            if event == 0:
                e_nx = diagonal_x
                e_ny = diagonal_y
                if corners == CORNERS_BOTH or corners == CORNERS_X_FIRST:
                    _record(out_f, out_i, count, t, u0, v0, e_nx, e_ny, i + sx, j, e_flag,
                            e_px, e_py)  # fmt: skip
                    count += 1
                if corners == CORNERS_BOTH or corners == CORNERS_Y_FIRST:
                    _record(out_f, out_i, count, t, u0, v0, e_nx, e_ny, i, j + sy, e_flag,
                            e_px, e_py)  # fmt: skip
                    count += 1
                i += sx
                j += sy
                nx += sx
                ny += sy
            elif event < 0:
                e_nx = x_normal
                e_ny = 0.0
                i += sx
                nx += sx
            else:
                e_nx = 0.0
                e_ny = y_normal
                j += sy
                ny += sy
            e_ci = i
            e_cj = j
            _record(out_f, out_i, count, t, u0, v0, e_nx, e_ny, i, j, e_flag, e_px, e_py)
            count += 1
            continue

        distance = t * norm
        if event != 0:
            on_x = event < 0  # the ray crosses a column line (else a row line)
            if on_x:
                i += sx
                px, big_i = _step_in_tile(px, big_i, sx, tw)
            else:
                j += sy
                py, big_j = _step_in_tile(py, big_j, sy, th)
            value = _tile_value(info, q, variants, pixels, outside, big_i, big_j, px, py)
            if value == SOLID and not (mode == SIGHT and i == i_last and j == j_last):
                if mode == SIGHT:
                    status = FOUND
                    break
                e_f0 = distance
                # the coordinate on the crossed line is the line's own
                e_x = ox + nx * pw if on_x else x0 + t * dx
                e_y = y0 + t * dy if on_x else oy + ny * ph
                e_nx = x_normal if on_x else 0.0
                e_ny = 0.0 if on_x else y_normal
                e_ci = big_i
                e_cj = big_j
                e_flag = np.int64(0)
                e_px = px
                e_py = py
                if mode == FIRST:
                    status = FOUND
                    break
                _record(out_f, out_i, count, e_f0, e_x, e_y, e_nx, e_ny, e_ci, e_cj, e_flag,
                        e_px, e_py)  # fmt: skip
                count += 1
                if not (0 <= i < pcols and 0 <= j < prows):
                    status = DONE
                    break
            if on_x:
                nx += sx
            else:
                ny += sy
        else:
            # a lattice point: the shoulders (i + sx, j) and (i, j + sy)
            a_solid = _cell_value(info, q, variants, pixels, outside, tw, th, i + sx, j) == SOLID
            b_solid = _cell_value(info, q, variants, pixels, outside, tw, th, i, j + sy) == SOLID
            stopped, stop_i, stop_j = corner_stop(a_solid, b_solid, gaps, i, j, sx, sy)
            if stopped and mode == SIGHT:
                status = FOUND
                break
            e_f0 = distance
            e_x = ox + nx * pw
            e_y = oy + ny * ph
            e_nx = diagonal_x
            e_ny = diagonal_y
            e_flag = np.int64(0)
            if stopped and mode == ALL:
                # every blocking shoulder is a hit, the x-step one first; the
                # first one beyond a solid outside is the last hit
                for k in range(2):
                    si = i + sx if k == 0 else i
                    sj = j if k == 0 else j + sy
                    if not (a_solid if k == 0 else b_solid):
                        continue
                    big_si = si // tw
                    big_sj = sj // th
                    e_ci = big_si
                    e_cj = big_sj
                    e_px = si - big_si * tw
                    e_py = sj - big_sj * th
                    _record(out_f, out_i, count, e_f0, e_x, e_y, e_nx, e_ny, e_ci, e_cj,
                            e_flag, e_px, e_py)  # fmt: skip
                    count += 1
                    if not (0 <= si < pcols and 0 <= sj < prows):
                        status = DONE
                        break
                if status >= 0:
                    break
                stopped = False
            i += sx
            j += sy
            big_i = i // tw
            px = i - big_i * tw
            big_j = j // th
            py = j - big_j * th
            value = _tile_value(info, q, variants, pixels, outside, big_i, big_j, px, py)
            if value == SOLID and not stopped:
                if mode == SIGHT:
                    if not (i == i_last and j == j_last):
                        status = FOUND
                        break
                else:
                    stopped = True
                    stop_i = i
                    stop_j = j
            if stopped:
                big_si = stop_i // tw
                big_sj = stop_j // th
                e_ci = big_si
                e_cj = big_sj
                e_px = stop_i - big_si * tw
                e_py = stop_j - big_sj * th
                if mode == FIRST:
                    status = FOUND
                    break
                _record(out_f, out_i, count, e_f0, e_x, e_y, e_nx, e_ny, e_ci, e_cj, e_flag,
                        e_px, e_py)  # fmt: skip
                count += 1
                if not (0 <= i < pcols and 0 <= j < prows):
                    status = DONE
                    break
            nx += sx
            ny += sy
        if value == OFF_EMPTY and _gone(i, j, pcols, prows, sx, sy):
            status = DONE
            break
    return (status, count, i, j, nx, ny, t_prev, e_f0, e_x, e_y, e_nx, e_ny, e_ci, e_cj, e_flag,
            e_px, e_py)  # fmt: skip


# ------------------------------------------------------ many rays, one walk each
# Other kernels call the walk through its address (see caller_of): linked in,
# its code would be optimised and compiled again inside each of them.
call_walk = caller_of(walk, WALK_SIGNATURE)


def walk_address() -> int:
    """The address of the compiled walk, for kernels that call it through :data:`call_walk`."""
    return compiled_address(walk, WALK_SIGNATURE)


def compile_walk_with(dispatcher: Any, argument_types: tuple[Any, ...], seconds: float) -> None:
    """Compile (or load) the walk and a kernel that calls it, side by side where there are cores.

    ``seconds``: about how long the kernel's first compile takes (the walk's
    is about 5 s on a 2-core machine), see :mod:`tilecast._kernels.jobs`.
    """
    compile_together([(walk, WALK_SIGNATURE.args, 5.0), (dispatcher, argument_types, seconds)])


CAST_RANGE_SIGNATURE = (
    types.int64, types.int64, *WALK_SIGNATURE.args[:9], types.int64, types.boolean,
    types.float64[:, ::1], types.float64[:, ::1], types.int64, types.float64[::1],
    types.float64[::1], types.float64[:, ::1], types.float64[:, ::1], types.int64[:, ::1],
    types.boolean[::1], types.int64[:, ::1], types.uint8[::1], types.int64,
)  # fmt: skip


@internal
def store_first_hit(r, k, status, distance, point, normal, cell, inside):
    """Write a FIRST-mode walk result ``r`` as row ``k`` of a batch's outputs; return found.

    A miss is ``inf`` distance, NaN point, zero normal, cell ``(-1, -1)``;
    ``status[k]`` says whether the ray needs the exact far path.
    """
    found = r[0] == FOUND
    status[k] = UNSAFE if r[0] == UNSAFE else DONE
    distance[k] = r[7] if found else np.inf
    point[k, 0] = r[8] if found else np.nan
    point[k, 1] = r[9] if found else np.nan
    normal[k, 0] = r[10] if found else 0.0
    normal[k, 1] = r[11] if found else 0.0
    cell[k, 0] = r[12] if found else -1
    cell[k, 1] = r[13] if found else -1
    inside[k] = found and r[14] != 0
    return found


@njit(cache=True, nogil=True)  # compiled for CAST_RANGE_SIGNATURE on first use
def cast_range(lo, hi, info, variants, pixels, outside_solid, jump_min, ox, oy, pw, ph, gaps,
               ignore_start, origins, directions, origin_stride, max_distances, distance, point,
               normal, cell, inside, pixel, status, walk_at):  # fmt: skip
    """First hits of rays lo .. hi - 1; ray k starts at origins[k // origin_stride].

    One direction or one max distance broadcasts over all rays. Writes
    distance (inf on a miss), point (NaN), normal (0), cell (-1), inside,
    pixel (-1) and status (DONE or UNSAFE) of each ray; returns how many are
    UNSAFE (for the far-range path).
    """
    direction_step = np.int64(directions.shape[0] != 1)
    distance_step = np.int64(max_distances.shape[0] != 1)
    no_f = np.empty((0, 5))
    no_i = np.empty((0, 5), dtype=np.int64)
    unsafe = 0
    for k in range(lo, hi):
        o = k // origin_stride
        d = k * direction_step
        r = call_walk(walk_at, info, variants, pixels, outside_solid, jump_min, ox, oy, pw, ph,
                      FIRST, gaps, 0, ignore_start, origins[o, 0], origins[o, 1],
                      directions[d, 0], directions[d, 1], max_distances[k * distance_step], 0, 0,
                      0, 0, 0, 0.0, no_f, no_i)  # fmt: skip
        found = store_first_hit(r, k, status, distance, point, normal, cell, inside)
        unsafe += r[0] == UNSAFE
        pixel[k, 0] = r[15] if found else -1
        pixel[k, 1] = r[16] if found else -1
    return unsafe


CAST_SINGLE_SIGNATURE = (
    *WALK_SIGNATURE.args[:9], types.int64, types.boolean, types.float64, types.float64,
    types.float64, types.float64, types.float64, types.boolean[::1], types.float64[::1],
    types.float64[:, ::1], types.float64[:, ::1], types.int64[:, ::1], types.boolean[::1],
    types.int64[:, ::1], types.int64,
)  # fmt: skip


@njit(cache=True, nogil=True)  # compiled for CAST_SINGLE_SIGNATURE on first use
def cast_single(info, variants, pixels, outside_solid, jump_min, ox, oy, pw, ph, gaps,
                ignore_start, x0, y0, dx, dy, max_distance, hit, distance, point, normal, cell,
                inside, pixel, walk_at):  # fmt: skip
    """First hit of one ray, written as row 0 of the outputs (a one-ray ``raycast_many``).

    Writes what :func:`cast_range` writes, and ``hit``; returns the walk's
    status (FOUND, DONE, or UNSAFE: the caller takes the exact far path).
    Taking scalars and filling the caller's arrays, one call replaces the
    input arrays and the Python writes a one-ray batch would need.
    """
    status = np.empty(1, dtype=np.uint8)
    r = call_walk(walk_at, info, variants, pixels, outside_solid, jump_min, ox, oy, pw, ph,
                  FIRST, gaps, 0, ignore_start, x0, y0, dx, dy, max_distance, 0, 0, 0, 0, 0, 0.0,
                  np.empty((0, 5)), np.empty((0, 5), dtype=np.int64))  # fmt: skip
    found = store_first_hit(r, 0, status, distance, point, normal, cell, inside)
    hit[0] = found
    pixel[0, 0] = r[15] if found else -1
    pixel[0, 1] = r[16] if found else -1
    return r[0]
