"""The acceleration maps the walk reads (Numba): clearance per quadrant.

*Quadrant clearance map* of a grid, int8 ``(4, rows + 2, cols + 2)``: for
each empty cell and each of the four diagonal directions ``(sx, sy)``, the
largest ``r`` (capped) such that the square of cells ``[i, i + sx*r] x
[j, j + sy*r]`` is empty and on the map; :data:`SOLID` for a solid cell. A
ray moving towards ``(sx, sy)`` from a cell with ``r >= 1`` may jump straight
to the far border of that square: no cell inside it can stop the ray, and
every lattice point strictly inside it has four empty neighbours. The map is
padded with one ring of cells standing for what lies beyond it
(:data:`SOLID` or :data:`OFF_EMPTY`).

A ``TileMap`` has the same map at tile level (*tile info*: tiles with any
solid pixel block, fully solid tiles are :data:`SOLID`, mixed ones
:data:`MIXED_TILE`) and a per-variant pixel clearance inside each tile.
:func:`tilecast._walkmap.fill_clearance` fills both tile-level maps, one
:func:`clearance_window` pass per quadrant.
"""

from __future__ import annotations

from numba import njit

from tilecast._walkspec import SOLID  # the cell values the walk reads


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


# ------------------------------------------------------------- tile info map
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
