"""Compiled first-hit ray casting on a grid, with exact empty-space skipping.

The walk is the one of :mod:`tilecast._walk`, step for step, on a *quadrant
clearance map*: for each empty cell and each of the four diagonal directions
``(sx, sy)``, the largest ``r`` (capped) such that the square of cells
``[i, i + sx*r] x [j, j + sy*r]`` is empty and on the map (``-1`` for a solid
cell). A ray moving towards ``(sx, sy)`` from a cell with ``r >= 1`` jumps
straight to the far border of that square: no cell inside it can stop the
ray, and every lattice point strictly inside it has four empty neighbours, so
the jump skips nothing the walk would have reported. The map is padded with
one ring of cells standing for what lies beyond it, so the walk needs no
bounds checks.

Every decision about cells is exact. The order of two crossings is decided by
a floating-point filter, and when the filter is unsure by an error-free
expansion (Dekker products, Shewchuk sums) that is exact as long as the ray's
tile-space numbers stay inside a safe range; rays outside it are flagged for
the pure-Python reference. Reported numbers (distance, point) use the same
float64 formulas as :func:`tilecast.raycast`, so results agree bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

CORNER_NORMAL = 1.0 / math.sqrt(2.0)
_FILTER = 1e-15
_SPLITTER = 134217729.0  # 2**27 + 1
_SAFE_SMALL = 2.0**-300
_SAFE_LARGE = 2.0**50
_SAFE_DIRECTION = 2.0**300
_LIMIT_CAP = 2.0**52
NO_LIMIT = np.int64(2**62)

SOLID = -1  # cell value: solid (on the map, or beyond it when outside is solid)
OFF_EMPTY = -2  # cell value: beyond the map, outside is empty

# status codes per ray
DONE = 0
UNSAFE = 1


# ------------------------------------------------------------ exact predicates
@njit(cache=True, inline="always")
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True, inline="always")
def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


@njit(cache=True, inline="always")
def _two_prod(a, b):
    p = a * b
    ahi, alo = _split(a)
    bhi, blo = _split(b)
    return p, ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo


@njit(cache=True)
def exact_order(x_line, y_line, u0, v0, adu, adv, sx, sy):
    """Sign of sx*(x_line - u0)*adv - sy*(y_line - v0)*adu, computed exactly."""
    a1, a2 = _two_sum(sx * float(x_line), -sx * u0)
    b1, b2 = _two_sum(sy * float(y_line), -sy * v0)
    terms = np.empty(8)
    terms[0], terms[1] = _two_prod(a1, adv)
    terms[2], terms[3] = _two_prod(a2, adv)
    terms[4], terms[5] = _two_prod(-b1, adu)
    terms[6], terms[7] = _two_prod(-b2, adu)
    # Shewchuk's grow-expansion with zero elimination: h stays a
    # non-overlapping expansion sorted by magnitude, summing exactly.
    h = np.empty(8)
    m = 0
    for k in range(8):
        q = terms[k]
        n = 0
        for idx in range(m):
            q, small = _two_sum(q, h[idx])
            if small != 0.0:
                h[n] = small
                n += 1
        h[n] = q
        m = n + 1
    for idx in range(m - 1, -1, -1):
        if h[idx] > 0.0:
            return 1
        if h[idx] < 0.0:
            return -1
    return 0


@njit(cache=True, inline="always")
def order(x_line, y_line, u0, v0, adu, adv, sx, sy):
    """-1 if the x crossing comes strictly first, 1 if the y crossing does, 0 if both."""
    lhs = (x_line - u0) * sx * adv
    rhs = (y_line - v0) * sy * adu
    diff = lhs - rhs
    tol = _FILTER * (lhs + rhs)
    if diff < -tol:
        return -1
    if diff > tol:
        return 1
    return exact_order(x_line, y_line, u0, v0, adu, adv, sx, sy)


@njit(cache=True, inline="always")
def _first_cell(u, d):
    if d < 0.0:
        return np.int64(math.ceil(u)) - 1
    return np.int64(math.floor(u))


@njit(cache=True)
def settle_y(x_line, j0, u0, v0, du, dv, adu, adv, sx, sy):
    """Row occupied just before the ray crosses x_line, and the next row line."""
    estimate = v0 + dv * ((x_line - u0) / du)
    j = np.int64(math.floor(estimate)) if abs(estimate) < _LIMIT_CAP else j0
    if (j - j0) * sy < 0:
        j = j0
    line = j + 1 if sy > 0 else j
    while order(x_line, line, u0, v0, adu, adv, sx, sy) > 0:
        j += sy
        line += sy
    while j != j0 and order(x_line, line - sy, u0, v0, adu, adv, sx, sy) <= 0:
        j -= sy
        line -= sy
    return j, line


@njit(cache=True)
def settle_x(y_line, i0, u0, v0, du, dv, adu, adv, sx, sy):
    """Column occupied just before the ray crosses y_line, and the next column line."""
    estimate = u0 + du * ((y_line - v0) / dv)
    i = np.int64(math.floor(estimate)) if abs(estimate) < _LIMIT_CAP else i0
    if (i - i0) * sx < 0:
        i = i0
    line = i + 1 if sx > 0 else i
    while order(line, y_line, u0, v0, adu, adv, sx, sy) < 0:
        i += sx
        line += sx
    while i != i0 and order(line - sx, y_line, u0, v0, adu, adv, sx, sy) >= 0:
        i -= sx
        line -= sx
    return i, line


# ---------------------------------------------------- quadrant clearance map
@njit(cache=True)
def quadrant_index(sx, sy):
    """Index 0..3 of the quadrant a ray moving along (sx, sy) uses (0 counts as +)."""
    return (1 if sx < 0 else 0) + (2 if sy < 0 else 0)


@njit(cache=True)
def fill_padding(accel, outside_solid):
    """Write the ring of cells that stands for what lies beyond the map."""
    _, rows2, cols2 = accel.shape
    value = SOLID if outside_solid else OFF_EMPTY
    for q in range(4):
        for j in range(rows2):
            accel[q, j, 0] = value
            accel[q, j, cols2 - 1] = value
        for i in range(cols2):
            accel[q, 0, i] = value
            accel[q, rows2 - 1, i] = value


@njit(cache=True)
def clearance_window(solid, cap, q, j_lo, j_hi, i_lo, i_hi, accel):
    """Recompute quadrant q's clearance for rows j_lo..j_hi-1, cols i_lo..i_hi-1.

    A cell's value depends only on its neighbours one step towards the
    quadrant, which are final before it in this order; values outside the
    window in that direction are not affected by cells inside it.
    """
    rows, cols = solid.shape
    sx = -1 if q & 1 else 1
    sy = -1 if q & 2 else 1
    j_start, j_stop = (j_hi - 1, j_lo - 1) if sy > 0 else (j_lo, j_hi)
    i_start, i_stop = (i_hi - 1, i_lo - 1) if sx > 0 else (i_lo, i_hi)
    for j in range(j_start, j_stop, -sy):
        for i in range(i_start, i_stop, -sx):
            if solid[j, i]:
                accel[q, j + 1, i + 1] = SOLID
                continue
            jn = j + sy
            i_n = i + sx
            if jn < 0 or jn >= rows or i_n < 0 or i_n >= cols:
                accel[q, j + 1, i + 1] = 0
                continue
            m = min(accel[q, j + 1, i_n + 1], accel[q, jn + 1, i + 1], accel[q, jn + 1, i_n + 1])
            accel[q, j + 1, i + 1] = 0 if m < 0 else min(m + 1, cap)


@njit(cache=True)
def build_clearance(solid, cap, outside_solid, accel):
    """Fill the padded quadrant clearance map accel, shape (4, rows + 2, cols + 2)."""
    rows, cols = solid.shape
    fill_padding(accel, outside_solid)
    for q in range(4):
        clearance_window(solid, cap, q, 0, rows, 0, cols, accel)


@njit(cache=True)
def update_clearance(solid, cap, cells, accel):
    """Bring accel up to date after the solidity of `cells` (N, 2) changed."""
    rows, cols = solid.shape
    for n in range(cells.shape[0]):
        ci = cells[n, 0]
        cj = cells[n, 1]
        for q in range(4):
            sx = -1 if q & 1 else 1
            sy = -1 if q & 2 else 1
            # the cells whose square (towards q) contains (ci, cj)
            i_lo, i_hi = (max(ci - cap, 0), ci + 1) if sx > 0 else (ci, min(ci + cap + 1, cols))
            j_lo, j_hi = (max(cj - cap, 0), cj + 1) if sy > 0 else (cj, min(cj + cap + 1, rows))
            clearance_window(solid, cap, q, j_lo, j_hi, i_lo, i_hi, accel)


@njit(cache=True, inline="always")
def _line_limit(u0, du, norm, max_distance, s):
    """Last grid line (in the walk direction) whose crossing is within max_distance.

    Uses the same float64 formula as the reference, ((X - u0) / du) * norm,
    which is monotone along the walk, so the allowed lines form a prefix.
    """
    if s == 0 or not math.isfinite(max_distance):
        return NO_LIMIT
    estimate = u0 + du * (max_distance / norm)
    if not abs(estimate) < _LIMIT_CAP:
        return NO_LIMIT
    line = np.int64(math.floor(estimate)) if s > 0 else np.int64(math.ceil(estimate))
    while ((line + s - u0) / du) * norm <= max_distance:
        line += s
    while ((line - u0) / du) * norm > max_distance:
        line -= s
    return line


# --------------------------------------------------------------- the ray cast
@njit(cache=True)
def cast_one(flat, rows, cols, outside_solid, ox, oy, w, h, x0, y0, dx, dy,
             max_distance, gaps, ignore_start, jump_min, out_f, out_i, k):  # fmt: skip
    """Cast ray k on the flattened padded clearance map; results in out_f[k], out_i[k].

    out_f[k] = (distance, px, py, nx, ny); out_i[k] = (status, hit, ci, cj, inside).
    gaps: 0 block_if_both, 1 block_if_either, 2 open.
    """
    out_i[k, 0] = DONE
    out_i[k, 1] = 0
    out_i[k, 2] = -1
    out_i[k, 3] = -1
    out_i[k, 4] = 0
    out_f[k, 0] = np.inf
    out_f[k, 1] = np.nan
    out_f[k, 2] = np.nan
    out_f[k, 3] = 0.0
    out_f[k, 4] = 0.0
    _, exponent = math.frexp(max(abs(dx), abs(dy)))
    dx = math.ldexp(dx, 1 - exponent)
    dy = math.ldexp(dy, 1 - exponent)
    u0 = (x0 - ox) / w
    v0 = (y0 - oy) / h
    du = dx / w
    dv = dy / h
    adu = abs(du)
    adv = abs(dv)
    if not (
        (u0 == 0.0 or _SAFE_SMALL <= abs(u0) <= _SAFE_LARGE)
        and (v0 == 0.0 or _SAFE_SMALL <= abs(v0) <= _SAFE_LARGE)
        and (du == 0.0 or _SAFE_SMALL <= adu <= _SAFE_DIRECTION)
        and (dv == 0.0 or _SAFE_SMALL <= adv <= _SAFE_DIRECTION)
    ):
        out_i[k, 0] = UNSAFE
        return
    norm = math.sqrt(dx * dx + dy * dy)  # not hypot: libm and CPython differ by an ulp
    sx = np.int64(1) if du > 0.0 else (np.int64(-1) if du < 0.0 else np.int64(0))
    sy = np.int64(1) if dv > 0.0 else (np.int64(-1) if dv < 0.0 else np.int64(0))
    i = _first_cell(u0, du)
    j = _first_cell(v0, dv)
    i0 = i
    j0 = j
    nx = i + 1 if sx > 0 else i
    ny = j + 1 if sy > 0 else j
    q = quadrant_index(sx, sy)
    row_step = cols + 2
    plane = q * (rows + 2) * (cols + 2)

    on_map = 0 <= i < cols and 0 <= j < rows
    if on_map:
        value = np.int64(flat[plane + (j + 1) * row_step + (i + 1)])
    elif outside_solid:
        if ignore_start:  # rare: walking on beyond a solid outside; use the reference
            out_i[k, 0] = UNSAFE
            return
        value = np.int64(SOLID)
    else:
        value = np.int64(OFF_EMPTY)
    if value == SOLID and not ignore_start:
        out_i[k, 1] = 1
        out_i[k, 2] = i
        out_i[k, 3] = j
        out_i[k, 4] = 1
        out_f[k, 0] = 0.0
        out_f[k, 1] = x0
        out_f[k, 2] = y0
        return
    if value == OFF_EMPTY:
        if (
            (i < 0 and sx <= 0)
            or (i >= cols and sx >= 0)
            or (j < 0 and sy <= 0)
            or (j >= rows and sy >= 0)
        ):
            return
        # jump to just before the ray enters the map box, or miss it
        has_x = i < 0 or i >= cols
        has_y = j < 0 or j >= rows
        x_line = 0 if i < 0 else cols
        y_line = 0 if j < 0 else rows
        x_exit = cols if sx > 0 else 0
        y_exit = rows if sy > 0 else 0
        if has_y and sx != 0 and order(x_exit, y_line, u0, v0, adu, adv, sx, sy) < 0:
            return
        if has_x and sy != 0 and order(x_line, y_exit, u0, v0, adu, adv, sx, sy) > 0:
            return
        seek_x = has_x
        if has_x and has_y:
            seek_x = (x_line - u0) / du >= (y_line - v0) / dv
        if seek_x:
            i = x_line - 1 if sx > 0 else x_line
            nx = x_line
            if sy != 0:
                j, ny = settle_y(x_line, j0, u0, v0, du, dv, adu, adv, sx, sy)
        else:
            j = y_line - 1 if sy > 0 else y_line
            ny = y_line
            if sx != 0:
                i, nx = settle_x(y_line, i0, u0, v0, du, dv, adu, adv, sx, sy)
        if not (-1 <= i <= cols and -1 <= j <= rows):  # never expected; stay safe
            out_i[k, 0] = UNSAFE
            return

    x_limit = _line_limit(u0, du, norm, max_distance, sx)
    y_limit = _line_limit(v0, dv, norm, max_distance, sy)
    fx = sx * adv
    fy = sy * adu
    x_step = sx
    y_step = sy * row_step
    idx = plane + (j + 1) * row_step + (i + 1)
    while True:
        if value >= jump_min:
            # leave the empty square towards the ray's quadrant at once
            x_exit = i + value + 1 if sx >= 0 else i - value
            y_exit = j + value + 1 if sy >= 0 else j - value
            if sy == 0 or (sx != 0 and order(x_exit, y_exit, u0, v0, adu, adv, sx, sy) <= 0):
                i = x_exit - 1 if sx > 0 else x_exit
                nx = x_exit
                if sy != 0:
                    j, ny = settle_y(x_exit, j0, u0, v0, du, dv, adu, adv, sx, sy)
            else:
                j = y_exit - 1 if sy > 0 else y_exit
                ny = y_exit
                if sx != 0:
                    i, nx = settle_x(y_exit, i0, u0, v0, du, dv, adu, adv, sx, sy)
            idx = plane + (j + 1) * row_step + (i + 1)
        if sx == 0:
            event = 1
        elif sy == 0:
            event = -1
        else:
            lhs = (nx - u0) * fx
            rhs = (ny - v0) * fy
            diff = lhs - rhs
            tol = _FILTER * (lhs + rhs)
            if diff < -tol:
                event = -1
            elif diff > tol:
                event = 1
            else:
                event = exact_order(nx, ny, u0, v0, adu, adv, sx, sy)
        if event <= 0:
            if (nx - x_limit) * sx > 0 and x_limit != NO_LIMIT:
                return
        elif (ny - y_limit) * sy > 0 and y_limit != NO_LIMIT:
            return
        if event < 0:
            i += sx
            idx += x_step
            value = np.int64(flat[idx])
            if value == SOLID:
                t = (nx - u0) / du
                out_i[k, 1] = 1
                out_i[k, 2] = i
                out_i[k, 3] = j
                out_f[k, 0] = t * norm
                out_f[k, 1] = ox + nx * w
                out_f[k, 2] = y0 + t * dy
                out_f[k, 3] = float(-sx)
                return
            nx += sx
        elif event > 0:
            j += sy
            idx += y_step
            value = np.int64(flat[idx])
            if value == SOLID:
                t = (ny - v0) / dv
                out_i[k, 1] = 1
                out_i[k, 2] = i
                out_i[k, 3] = j
                out_f[k, 0] = t * norm
                out_f[k, 1] = x0 + t * dx
                out_f[k, 2] = oy + ny * h
                out_f[k, 4] = float(-sy)
                return
            ny += sy
        else:
            a_solid = flat[idx + x_step] == SOLID
            b_solid = flat[idx + y_step] == SOLID
            stop_i = i + sx
            stop_j = j
            stopped = False
            if gaps == 0:
                stopped = a_solid and b_solid
            elif gaps == 1:
                stopped = a_solid or b_solid
                if not a_solid:
                    stop_i = i
                    stop_j = j + sy
            i += sx
            j += sy
            idx += x_step + y_step
            value = np.int64(flat[idx])
            if not stopped and value == SOLID:
                stopped = True
                stop_i = i
                stop_j = j
            if stopped:
                t = (nx - u0) / du
                out_i[k, 1] = 1
                out_i[k, 2] = stop_i
                out_i[k, 3] = stop_j
                out_f[k, 0] = t * norm
                out_f[k, 1] = ox + nx * w
                out_f[k, 2] = oy + ny * h
                out_f[k, 3] = -sx * CORNER_NORMAL
                out_f[k, 4] = -sy * CORNER_NORMAL
                return
            nx += sx
            ny += sy
        if value == OFF_EMPTY and (
            (i < 0 and sx <= 0)
            or (i >= cols and sx >= 0)
            or (j < 0 and sy <= 0)
            or (j >= rows and sy >= 0)
        ):
            return


@njit(cache=True, parallel=True)
def cast_many(accel, outside_solid, ox, oy, w, h, origins, directions, origin_stride,
              max_distances, gaps, ignore_start, jump_min, out_f, out_i):  # fmt: skip
    """Cast every ray; ray k starts at origins[k // origin_stride].

    One direction or one max distance broadcasts over all rays.
    """
    rows = accel.shape[1] - 2
    cols = accel.shape[2] - 2
    flat = accel.reshape(-1)
    n = out_f.shape[0]
    # 0 or 1: index multipliers (mixing a literal 0 and the loop index in a
    # conditional would type the index as float)
    direction_step = np.int64(directions.shape[0] != 1)
    distance_step = np.int64(max_distances.shape[0] != 1)
    for k in prange(n):
        o = k // origin_stride
        m = k * distance_step
        d = k * direction_step
        cast_one(flat, rows, cols, outside_solid, ox, oy, w, h, origins[o, 0], origins[o, 1],
                 directions[d, 0], directions[d, 1], max_distances[m], gaps, ignore_start,
                 jump_min, out_f, out_i, k)  # fmt: skip


@njit(cache=True, parallel=True)
def scan_directions(poses, angles):
    """Unit directions (cos, sin) of theta + angle for every pose and beam, (P * B, 2)."""
    p = poses.shape[0]
    b = angles.shape[0]
    out = np.empty((p * b, 2))
    for q in prange(p):
        for a in range(b):
            theta = poses[q, 2] + angles[a]
            out[q * b + a, 0] = math.cos(theta)
            out[q * b + a, 1] = math.sin(theta)
    return out
