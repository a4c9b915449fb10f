"""Compiled first-hit ray casting on a pixel-perfect TileMap (two levels: tiles, then pixels).

The walk is the one :func:`tilecast.raycast` does on a ``TileMap``: the exact
grid walk of :mod:`tilecast._walk` in the tile space of the expanded *pixel*
grid (one walk cell per pixel, cell size ``(w / tw, h / th)``), so every
answer equals the pixel grid's. Two levels keep it fast:

- a padded per-quadrant *tile info* map, int8 ``(4, rows + 2, cols + 2)``:
  for a tile without any solid pixel, the largest ``r`` (capped) such that
  the square of tiles ``[I, I + sx*r] x [J, J + sy*r]`` has no solid pixel
  and lies on the map (the clearance of :mod:`tilecast._kernels.raycast`, at
  tile level); :data:`FULL_TILE` for a tile whose pixels are all solid,
  :data:`MIXED_TILE` for a tile whose mask must be read. The ring around the
  map stands for what lies beyond it (:data:`SOLID` or :data:`OFF_EMPTY`).
- A ray in a tile with clearance ``r`` jumps straight to the far border of
  that square of tiles (the exact order of the two exit lines, then an exact
  settle on the other axis): no pixel inside can stop it, and every pixel
  lattice point strictly inside has four empty neighbours. Entering any
  pixel of a full tile is a hit at once; only mixed tiles are walked pixel by
  pixel.
- Inside a mixed tile the walk reads a per-variant pixel clearance, int8
  ``(4, V, th, tw)`` (:func:`build_pixel_clearance`): -1 for a solid pixel of
  ``variant_masks[cell_variant[J, I]]``, else the largest clear square of
  pixels towards the quadrant that stays inside the tile; from a pixel with
  clearance of at least :data:`PIXEL_JUMP_MIN` the ray jumps out of that
  square in the same exact way.

Every decision is exact (the predicates of :mod:`tilecast._kernels.raycast`,
exact inside a safe range of tile-space numbers; rays outside it, and a ray
starting beyond a solid outside with ``ignore_start``, are flagged
:data:`UNSAFE` for the pure-Python reference). Reported numbers use the same
float64 formulas as the reference, so results agree bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from tilecast._kernels.raycast import (
    _FILTER,
    CORNER_NORMAL,
    DONE,
    NO_LIMIT,
    OFF_EMPTY,
    SOLID,
    UNSAFE,
    _first_cell,
    _line_limit,
    clearance_window,
    corner_stop,
    enter_map,
    exact_order,
    fill_padding,
    order,
    settle_x,
    settle_y,
    start_ray,
)

__all__ = [
    "FULL_TILE",
    "MIXED_TILE",
    "OFF_EMPTY",
    "SOLID",
    "UNSAFE",
    "build_pixel_clearance",
    "build_tile_info",
    "cast_tilemap_many",
    "cast_tilemap_one",
]

FULL_TILE = SOLID  # tile info: every pixel solid (-1)
MIXED_TILE = -3  # tile info: read the pixel clearance of the tile's variant
EMPTY_PIXEL = -3  # walk value EMPTY_PIXEL - r: a clear pixel of a mixed tile, clearance r
# Jump inside a mixed tile only from pixels whose clearance is at least this
# (a jump costs a few exact comparisons, a plain step one).
PIXEL_JUMP_MIN = 2


# ------------------------------------------------------------- tile info map
@njit(cache=True)
def build_tile_info(cell_kinds, cap, outside_solid, info):
    """Fill the padded tile info map ``info`` (4, rows + 2, cols + 2) from ``cell_kinds``.

    cell_kinds: 0 no solid pixel, 1 all solid, 2 mixed (as ``TileMap.cell_kinds``).
    It is the grid's quadrant clearance map of "tiles with any solid pixel",
    with the mixed tiles then marked MIXED_TILE (any negative value blocks
    the squares alike).
    """
    rows, cols = cell_kinds.shape
    fill_padding(info, outside_solid)
    blocked = cell_kinds != 0
    for q in range(4):
        clearance_window(blocked, cap, q, 0, rows, 0, cols, info)
        for j in range(rows):
            for i in range(cols):
                if cell_kinds[j, i] == 2:
                    info[q, j + 1, i + 1] = MIXED_TILE


@njit(cache=True)
def build_pixel_clearance(variant_masks, cap, out):
    """Fill ``out`` (4, V, th, tw): the per-quadrant clearance of each pixel inside its tile.

    For a clear pixel, the largest ``r`` (capped) such that the square of
    pixels ``[px, px + sx*r] x [py, py + sy*r]`` is clear and inside the
    tile; -1 for a solid pixel.
    """
    n_variants, th, tw = variant_masks.shape
    for q in range(4):
        sx = -1 if q & 1 else 1
        sy = -1 if q & 2 else 1
        y_start, y_stop = (th - 1, -1) if sy > 0 else (0, th)
        x_start, x_stop = (tw - 1, -1) if sx > 0 else (0, tw)
        for v in range(n_variants):
            for py in range(y_start, y_stop, -sy):
                for px in range(x_start, x_stop, -sx):
                    if variant_masks[v, py, px]:
                        out[q, v, py, px] = -1
                        continue
                    yn = py + sy
                    xn = px + sx
                    if yn < 0 or yn >= th or xn < 0 or xn >= tw:
                        out[q, v, py, px] = 0
                        continue
                    m = min(out[q, v, py, xn], out[q, v, yn, px], out[q, v, yn, xn])
                    out[q, v, py, px] = 0 if m < 0 else min(m + 1, cap)


@njit(cache=True, inline="always")
def _value(info, q, variants, pixels, big_i, big_j, px, py):
    """Walk value of pixel (px, py) of tile (big_i, big_j), which must lie in the padded map.

    >= 0: a tile without solid pixels (its clearance); SOLID; OFF_EMPTY;
    EMPTY_PIXEL - r: a clear pixel of a mixed tile with clearance r in its tile.
    """
    v = np.int64(info[q, big_j + 1, big_i + 1])
    if v == MIXED_TILE:
        r = np.int64(pixels[q, variants[big_j, big_i], py, px])
        if r < 0:
            return np.int64(SOLID)
        return EMPTY_PIXEL - r
    return v


@njit(cache=True, inline="always")
def _pixel_value(info, q, variants, pixels, tw, th, p, r):
    """Walk value of pixel (p, r) of the expanded pixel grid (inside the padded map)."""
    big_i = p // tw
    big_j = r // th
    return _value(info, q, variants, pixels, big_i, big_j, p - big_i * tw, r - big_j * th)


# --------------------------------------------------------------- the ray cast
@njit(cache=True)
def cast_tilemap_one(info, variants, pixels, outside_solid, ox, oy, pw, ph, x0, y0, dx, dy,
                     max_distance, gaps, ignore_start, out_f, out_i, k):  # fmt: skip
    """Cast ray k on the tile map; results in out_f[k], out_i[k].

    pw, ph: the world size of one pixel (``TileMap.pixel_size``).
    out_f[k] = (distance, x, y, nx, ny);
    out_i[k] = (status, hit, tile col, tile row, inside, px, py).
    gaps: 0 block_if_both, 1 block_if_either, 2 open.
    """
    out_i[k, 0] = DONE
    out_i[k, 1] = 0
    out_i[k, 2] = -1
    out_i[k, 3] = -1
    out_i[k, 4] = 0
    out_i[k, 5] = -1
    out_i[k, 6] = -1
    out_f[k, 0] = np.inf
    out_f[k, 1] = np.nan
    out_f[k, 2] = np.nan
    out_f[k, 3] = 0.0
    out_f[k, 4] = 0.0
    th = np.int64(pixels.shape[2])
    tw = np.int64(pixels.shape[3])
    rows = np.int64(info.shape[1] - 2)
    cols = np.int64(info.shape[2] - 2)
    pcols = cols * tw
    prows = rows * th
    safe, u0, v0, du, dv, dx, dy, norm = start_ray(ox, oy, pw, ph, x0, y0, dx, dy)
    if not safe:
        out_i[k, 0] = UNSAFE
        return
    adu = abs(du)
    adv = abs(dv)
    sx = np.int64(1) if du > 0.0 else (np.int64(-1) if du < 0.0 else np.int64(0))
    sy = np.int64(1) if dv > 0.0 else (np.int64(-1) if dv < 0.0 else np.int64(0))
    q = (1 if sx < 0 else 0) + (2 if sy < 0 else 0)
    i = _first_cell(u0, du)
    j = _first_cell(v0, dv)
    i0 = i
    j0 = j
    nx = i + 1 if sx > 0 else i
    ny = j + 1 if sy > 0 else j

    if 0 <= i < pcols and 0 <= j < prows:
        value = _pixel_value(info, q, variants, pixels, tw, th, i, j)
    elif outside_solid:
        if ignore_start:  # rare: walking on beyond a solid outside; use the reference
            out_i[k, 0] = UNSAFE
            return
        value = np.int64(SOLID)
    else:
        value = np.int64(OFF_EMPTY)
    if value == SOLID and not ignore_start:
        big_i = i // tw
        big_j = j // th
        out_i[k, 1] = 1
        out_i[k, 2] = big_i
        out_i[k, 3] = big_j
        out_i[k, 4] = 1
        out_i[k, 5] = i - big_i * tw
        out_i[k, 6] = j - big_j * th
        out_f[k, 0] = 0.0
        out_f[k, 1] = x0
        out_f[k, 2] = y0
        return
    if value == OFF_EMPTY:
        outcome, i, j, nx, ny = enter_map(i, j, pcols, prows, u0, v0, du, dv, sx, sy)
        if outcome == 1:
            return
        if outcome == 2:
            out_i[k, 0] = UNSAFE
            return
        # still off the map (one pixel before it): value stays OFF_EMPTY

    # tile and pixel-in-tile of the current pixel, kept in step with (i, j)
    big_i = i // tw
    px = i - big_i * tw
    big_j = j // th
    py = j - big_j * th
    x_limit = _line_limit(u0, du, norm, max_distance, sx)
    y_limit = _line_limit(v0, dv, norm, max_distance, sy)
    fx = sx * adv
    fy = sy * adu
    while True:
        if value >= 0:
            # a tile without solid pixels: leave its empty square of tiles at once
            x_exit = (big_i + value + 1) * tw if sx >= 0 else (big_i - value) * tw
            y_exit = (big_j + value + 1) * th if sy >= 0 else (big_j - value) * th
            if (sx == 0 or x_exit == nx) and (sy == 0 or y_exit == ny):
                pass  # already in the square's last pixel
            elif sy == 0 or (sx != 0 and order(x_exit, y_exit, u0, v0, adu, adv, sx, sy) <= 0):
                i = x_exit - 1 if sx > 0 else x_exit
                nx = x_exit
                if sy != 0:
                    j, ny = settle_y(x_exit, j0, u0, v0, du, dv, adu, adv, sx, sy)
            else:
                j = y_exit - 1 if sy > 0 else y_exit
                ny = y_exit
                if sx != 0:
                    i, nx = settle_x(y_exit, i0, u0, v0, du, dv, adu, adv, sx, sy)
            big_i = i // tw
            px = i - big_i * tw
            big_j = j // th
            py = j - big_j * th
        elif value <= EMPTY_PIXEL - PIXEL_JUMP_MIN:
            # a clear pixel of a mixed tile: leave its clear square of pixels at once
            r = EMPTY_PIXEL - value
            x_exit = i + r + 1 if sx >= 0 else i - r
            y_exit = j + r + 1 if sy >= 0 else j - r
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
            px = i - big_i * tw
            py = j - big_j * th
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
            px += sx
            if px == tw:
                px = 0
                big_i += 1
            elif px < 0:
                px = tw - 1
                big_i -= 1
            value = _value(info, q, variants, pixels, big_i, big_j, px, py)
            if value == SOLID:
                t = (nx - u0) / du
                out_i[k, 1] = 1
                out_i[k, 2] = big_i
                out_i[k, 3] = big_j
                out_i[k, 5] = px
                out_i[k, 6] = py
                out_f[k, 0] = t * norm
                out_f[k, 1] = ox + nx * pw
                out_f[k, 2] = y0 + t * dy
                out_f[k, 3] = float(-sx)
                return
            nx += sx
        elif event > 0:
            j += sy
            py += sy
            if py == th:
                py = 0
                big_j += 1
            elif py < 0:
                py = th - 1
                big_j -= 1
            value = _value(info, q, variants, pixels, big_i, big_j, px, py)
            if value == SOLID:
                t = (ny - v0) / dv
                out_i[k, 1] = 1
                out_i[k, 2] = big_i
                out_i[k, 3] = big_j
                out_i[k, 5] = px
                out_i[k, 6] = py
                out_f[k, 0] = t * norm
                out_f[k, 1] = x0 + t * dx
                out_f[k, 2] = oy + ny * ph
                out_f[k, 4] = float(-sy)
                return
            ny += sy
        else:
            a_solid = _pixel_value(info, q, variants, pixels, tw, th, i + sx, j) == SOLID
            b_solid = _pixel_value(info, q, variants, pixels, tw, th, i, j + sy) == SOLID
            stopped, stop_i, stop_j = corner_stop(a_solid, b_solid, gaps, i, j, sx, sy)
            i += sx
            j += sy
            big_i = i // tw
            px = i - big_i * tw
            big_j = j // th
            py = j - big_j * th
            value = _value(info, q, variants, pixels, big_i, big_j, px, py)
            if not stopped and value == SOLID:
                stopped = True
                stop_i = i
                stop_j = j
            if stopped:
                t = (nx - u0) / du
                stop_big_i = stop_i // tw
                stop_big_j = stop_j // th
                out_i[k, 1] = 1
                out_i[k, 2] = stop_big_i
                out_i[k, 3] = stop_big_j
                out_i[k, 5] = stop_i - stop_big_i * tw
                out_i[k, 6] = stop_j - stop_big_j * th
                out_f[k, 0] = t * norm
                out_f[k, 1] = ox + nx * pw
                out_f[k, 2] = oy + ny * ph
                out_f[k, 3] = -sx * CORNER_NORMAL
                out_f[k, 4] = -sy * CORNER_NORMAL
                return
            nx += sx
            ny += sy
        if value == OFF_EMPTY and (
            (i < 0 and sx <= 0)
            or (i >= pcols and sx >= 0)
            or (j < 0 and sy <= 0)
            or (j >= prows and sy >= 0)
        ):
            return


@njit(cache=True, parallel=True)
def cast_tilemap_many(info, variants, pixels, outside_solid, ox, oy, pw, ph, origins, directions,
                      origin_stride, max_distances, gaps, ignore_start, out_f, out_i):  # fmt: skip
    """Cast every ray on the tile map; ray k starts at origins[k // origin_stride].

    One direction or one max distance broadcasts over all rays.
    """
    n = out_f.shape[0]
    direction_step = np.int64(directions.shape[0] != 1)
    distance_step = np.int64(max_distances.shape[0] != 1)
    for k in prange(n):
        o = k // origin_stride
        m = k * distance_step
        d = k * direction_step
        cast_tilemap_one(info, variants, pixels, outside_solid, ox, oy, pw, ph, origins[o, 0],
                         origins[o, 1], directions[d, 0], directions[d, 1], max_distances[m],
                         gaps, ignore_start, out_f, out_i, k)  # fmt: skip
