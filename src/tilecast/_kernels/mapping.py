"""Occupancy mapping: carving beams with the exact walk, and log-odds updates (Numba).

A beam is a ray from a pose along ``sincos(theta + angle)`` (the direction
``scan_many`` casts) that ends at ``limit = min(range, max_range)``. The
cells it enters within ``limit`` are found with the walk's own helpers of
:mod:`tilecast._kernels.walk` (``start_ray``, ``first_cell``, ``order``,
``line_limit``, ``enter_map``), stepped as the walk steps a ray on a map
with nothing to stop it: so the cells, and the last one (the cell the beam
enters at ``limit``, inclusive), are those ``raycast_all`` enters on an
all-solid map with ``diagonal_gaps="open"``, bit for bit. At a lattice
point the beam goes straight to the diagonal cell: the two shoulder cells
are touched at one point only, which the beam does not cross.

Two passes per chunk of scans (``tilecast.mapping``):

1. :func:`carve_range` (parallel over beams): each beam writes the flat
   indices of the map cells it crosses before its end cell into its own
   slot of a shared buffer (sized by :func:`beam_bounds`), in walk order,
   and its end cell apart.
2. :func:`apply_band` (parallel over bands of rows): one thread per band
   applies the scans in order to the cells of its band: integer counts of
   hits and misses per cell within a scan, then
   ``L = min(max(L + (hits * l_hit + misses * l_miss), l_min), l_max)``.
   A beam's rows are monotone along it, so its cells in a band are one
   contiguous run of its slot (found by bisection).

Each cell is updated by one thread, from integer counts, scan after scan:
the result depends neither on the number of threads nor on the chunks.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from tilecast._kernels.beams import sincos
from tilecast._kernels.walk import (
    NO_LIMIT,
    Line,
    enter_map,
    first_cell,
    left_for_good,
    line_limit,
    order,
    start_ray,
)
from tilecast._walkspec import FILTER, OFF_EMPTY, UNSAFE  # UNSAFE: the walk's status

#: Beam statuses written by carve_range.
CARVED = 0
# UNSAFE (the walk's status): beyond the walk's proven range, the caller carves it exactly
OVERFLOW = 2  # more cells than its bound (never expected)


@njit(cache=True, nogil=True)
def beam_bounds(poses, ranges, angles, max_range, resolution, cap, out):
    """out[k] = most map cells beam k can cross before its end cell (flat k = p * B + b).

    A ray of length ``limit`` crosses at most ``limit |cos| / res + 1``
    column lines and as many row lines for ``sin``; it lies in at most
    ``cap = rows + cols`` cells of the map. A margin of 4 covers the
    rounding of the estimate.
    """
    n_beams = angles.shape[0]
    for k in range(out.shape[0]):
        p = k // n_beams
        b = k - p * n_beams
        limit = min(ranges[p, b], max_range)
        s, c = sincos(poses[p, 2] + angles[b])
        estimate = limit / resolution * (abs(c) + abs(s)) + 4.0
        out[k] = np.int64(estimate) if estimate < cap else cap


@njit(cache=True, nogil=True)
def carve_range(lo, hi, poses, ranges, angles, frame, size, slots, cells, run_end, end_cell,
                status):  # fmt: skip
    """Carve beams lo .. hi - 1 (beam k is beam ``k % B`` of pose ``k // B``).

    ``frame`` is (origin x, origin y, resolution, max_range), ``size``
    (rows, cols). Beam k writes the map cells it crosses before its end
    cell, as flat indices ``row * cols + col`` in walk order, to
    ``cells[slots[k]:run_end[k]]`` (room up to ``slots[k + 1]``), and its end
    cell to ``end_cell[k]`` (-1: off the map, or no return). ``status[k]``
    is CARVED, UNSAFE or OVERFLOW.
    """
    max_range = frame[3]
    n_beams = angles.shape[0]
    for k in range(lo, hi):
        p = k // n_beams
        b = k - p * n_beams
        r = ranges[p, b]
        returned = r < max_range
        limit = r if returned else max_range
        s, c = sincos(poses[p, 2] + angles[b])
        first = slots[k]
        count, end, state = walk_beam(poses[p, 0], poses[p, 1], c, s, limit, frame, size, cells,
                                      first, slots[k + 1])  # fmt: skip
        status[k] = state
        run_end[k] = first + count
        end_cell[k] = end if returned and state == CARVED else -1


@njit(cache=True, nogil=True, inline="always")
def walk_beam(x0, y0, dx, dy, limit, frame, size, cells, first, stop):
    """Walk one beam; write its crossed map cells from ``cells[first]`` (before ``stop``).

    Returns (count, end cell's flat index or -1 when off the map, status).
    The stepping is the walk's for a ray (``walk`` in FIRST/ALL mode) with
    no cell that stops it: the same exact order, the same distance limit.
    """
    ox, oy, resolution, _ = frame
    rows, cols = size
    safe, u0, v0, du, dv, sdx, sdy, norm = start_ray(ox, oy, resolution, resolution, x0, y0, dx,
                                                     dy)  # fmt: skip
    if not safe:
        return np.int64(0), np.int64(-1), UNSAFE
    adu = abs(du)
    adv = abs(dv)
    sx = np.int64(1) if du > 0.0 else (np.int64(-1) if du < 0.0 else np.int64(0))
    sy = np.int64(1) if dv > 0.0 else (np.int64(-1) if dv < 0.0 else np.int64(0))
    i = first_cell(u0, du)
    j = first_cell(v0, dv)
    nx = i + 1 if sx > 0 else i
    ny = j + 1 if sy > 0 else j
    count = np.int64(0)
    if not (0 <= i < cols and 0 <= j < rows):
        # the walk's line of this beam on a map of unit cells with an empty outside
        line = Line(u0, v0, du, dv, adu, adv, 0.0, 0.0, sx, sy, norm, sdx, sdy, i, j, i, j,
                    NO_LIMIT, NO_LIMIT, np.int64((1 if sx < 0 else 0) + (2 if sy < 0 else 0)),
                    np.int64(1), np.int64(1), np.int64(cols), np.int64(rows),
                    np.int64(OFF_EMPTY))  # fmt: skip
        outcome, i, j, nx, ny = enter_map(line, i, j)
        if outcome == 1:
            return count, np.int64(-1), CARVED
        if outcome != 0:
            return count, np.int64(-1), UNSAFE
    x_limit = line_limit(u0, du, norm, limit, sx)
    y_limit = line_limit(v0, dv, norm, limit, sy)
    x_scale = sx * adv  # order()'s float filter, inlined: the exact test only on near ties
    y_scale = sy * adu
    while True:
        on_map = 0 <= i < cols and 0 <= j < rows
        if not on_map and left_for_good(i, j, cols, rows, sx, sy):
            return count, np.int64(-1), CARVED  # off the map for good
        if sx == 0:
            event = 1
        elif sy == 0:
            event = -1
        else:
            lhs = (nx - u0) * x_scale
            rhs = (ny - v0) * y_scale
            diff = lhs - rhs
            tol = FILTER * (lhs + rhs)
            if diff < -tol:
                event = -1
            elif diff > tol:
                event = 1
            else:
                event = order(nx, ny, u0, v0, adu, adv, 0.0, 0.0, sx, sy)
        if event <= 0:
            if (nx - x_limit) * sx > 0 and x_limit != NO_LIMIT:
                break
        elif (ny - y_limit) * sy > 0 and y_limit != NO_LIMIT:
            break
        # the beam crosses out of (i, j) within its range: a miss there
        if on_map:
            if first + count >= stop:
                return count, np.int64(-1), OVERFLOW
            cells[first + count] = j * cols + i
            count += 1
        if event <= 0:
            i += sx
            nx += sx
        if event >= 0:
            j += sy
            ny += sy
    if 0 <= i < cols and 0 <= j < rows:
        return count, j * cols + i, CARVED
    return count, np.int64(-1), CARVED


@njit(cache=True, inline="always")
def _run_in_band(cells, a, b, cols, r0, r1):
    """The run ``lo .. hi - 1`` of ``cells[a:b]`` whose rows lie in [r0, r1) (rows monotone)."""
    if a >= b:
        return a, a
    rising = cells[a] // cols <= cells[b - 1] // cols
    if rising:
        return _first_row_at_least(cells, a, b, cols, r0), _first_row_at_least(cells, a, b, cols,
                                                                               r1)  # fmt: skip
    return _first_row_below(cells, a, b, cols, r1), _first_row_below(cells, a, b, cols, r0)


@njit(cache=True, inline="always")
def _first_row_at_least(cells, a, b, cols, row):
    """First index in [a, b) whose row is >= ``row`` (rows non-decreasing), else b."""
    while a < b:
        mid = (a + b) // 2
        if cells[mid] // cols >= row:
            b = mid
        else:
            a = mid + 1
    return a


@njit(cache=True, inline="always")
def _first_row_below(cells, a, b, cols, row):
    """First index in [a, b) whose row is < ``row`` (rows non-increasing), else b."""
    while a < b:
        mid = (a + b) // 2
        if cells[mid] // cols < row:
            b = mid
        else:
            a = mid + 1
    return a


#: A cell's counter within a scan: misses in the low bits, hits from HIT_UNIT up
#: (a scan has fewer than 2**16 beams).
HIT_UNIT = 1 << 16


@njit(cache=True, nogil=True)
def apply_band(r0, r1, cols, n_scans, beams, log_odds, update, scratch):
    """Apply scans 0 .. n_scans - 1, in order, to the cells in rows r0 .. r1 - 1.

    ``beams`` is (slots, cells, run_end, end_cell) as :func:`carve_range`
    wrote them, ``update`` (l_hit, l_miss, l_min, l_max), ``log_odds`` flat
    (rows * cols,), ``scratch`` (counts, touched): zero int32 counters of
    the map's size (left zero; misses + HIT_UNIT * hits) and room for the
    band's cells. Within a scan a cell adds ``hits * l_hit + misses *
    l_miss`` once, then is clamped to [l_min, l_max].
    """
    slots, cells, run_end, end_cell = beams
    l_hit, l_miss, l_min, l_max = update
    counts, touched = scratch
    n_beams = run_end.shape[0] // n_scans
    lo_cell = r0 * cols
    hi_cell = r1 * cols
    for p in range(n_scans):
        n_touched = 0
        for b in range(n_beams):
            k = p * n_beams + b
            a, z = _run_in_band(cells, slots[k], run_end[k], cols, r0, r1)
            for q in range(a, z):
                c = cells[q]
                if counts[c] == 0:
                    touched[n_touched] = c
                    n_touched += 1
                counts[c] += 1
            c = end_cell[k]
            if lo_cell <= c < hi_cell:
                if counts[c] == 0:
                    touched[n_touched] = c
                    n_touched += 1
                counts[c] += HIT_UNIT
        for t in range(n_touched):
            c = touched[t]
            hits = counts[c] >> 16
            misses = counts[c] & (HIT_UNIT - 1)
            value = log_odds[c] + (hits * l_hit + misses * l_miss)
            log_odds[c] = min(max(value, l_min), l_max)
            counts[c] = 0


@njit(cache=True, nogil=True)
def log_odds_probability(log_odds, out):
    """out = 1 - 1 / (1 + exp(L)), written so that it neither overflows nor loses small values."""
    for k in range(log_odds.shape[0]):
        value = log_odds[k]
        if value >= 0.0:
            out[k] = 1.0 / (1.0 + math.exp(-value))
        else:
            e = math.exp(value)
            out[k] = e / (1.0 + e)
