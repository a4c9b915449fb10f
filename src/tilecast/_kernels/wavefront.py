"""Batch ray casting on a grid: many rays walked side by side (a *wavefront*).

The walk of one ray is a chain of dependent steps (load a cell's clearance,
decide which border the ray leaves by, land, load again). A core runs such a
chain far below its capacity, and each load of the clearance map may wait on
memory. So the rays of a chunk are walked together, one step per ray per
pass: the steps of different rays are independent, the core overlaps them,
and the cell each ray lands in is prefetched one pass before it is read.

One step here is the jump of :func:`tilecast._kernels.raycast.cast_one` and
the grid-line crossing that ends it, merged: from a cell with clearance ``r``
(``r = 0`` is a plain step) the ray leaves the empty square towards its
quadrant by line ``X = nx + sx*r`` or ``Y = ny + sy*r``, whichever it meets
first, and enters the cell beyond. The step has no branches that depend on
the ray (selects and 0/1 arithmetic instead), and it stops the ray whenever
an exact decision would be needed:

- the float filter cannot order the two crossings (a tie is a corner, where
  the diagonal-gap rule applies);
- the landing estimate lies within its error bound of a grid line;
- the crossing's distance lies within 1e-12 (relative) of ``max_distance``.

Such rays, and rays that start off the map, inside a wall, or on an axis, are
finished by :func:`cast_one` from their start, so every ray's answer is the
exact one, bit for bit. On the standard workloads that is about one ray in
a hundred thousand.

Why the distance test is exact: the reference stops at the first crossing
whose float distance ``((X - u0) / du) * norm`` exceeds ``max_distance``.
A step only checks the crossing that ends it; the crossings it jumps over
come before that one, so (the formula being monotone up to a few ulps) they
are within the limit when the last one is clearly within it, and when the
last one is clearly beyond, the ray ends in empty cells either way.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from tilecast._kernels.intrinsics import prefetch
from tilecast._kernels.raycast import (
    _ESTIMATE_ERROR,
    _FILTER,
    DONE,
    OFF_EMPTY,
    cast_one,
    sincos,
    start_ray,
)

#: Rays walked side by side by one thread.
CHUNK = 64
#: Chunks per parallel task (the work arrays are allocated once per task).
BLOCK = 32
# The distance test's relative margin (the float estimate is within a few
# ulps of the reference's formula).
_DISTANCE_MARGIN = 1e-12
# Slopes dv/du outside (1e-200, 1e200) go to cast_one (keeps estimates finite).
_SLOPE_RANGE = 1e200

# float state, one row per ray (U0/V0 and the x/y pairs must stay adjacent:
# the step reads them at column + axis)
U0, V0, FX, FY, SLOPE_VU, SLOPE_UV, SCALE_X, SCALE_Y, LO_D, HI_D, AXIS = range(11)
N_FLOAT = 11
# integer state
NX, NY, SX, SY, PX, PY, BASE, IDX, PREV_IDX, VALUE, CODE = range(11)
N_INT = 11
NO_CROSSING = 2.0  # AXIS before the first crossing


@njit(cache=True, inline="always", error_model="numpy")
def _step(flat, row_step, st, si, k):
    """One pass of ray k: leave the current cell's square, enter the next cell.

    Returns 1 while the ray goes on. The value of the cell it enters is read
    at its next step (prefetched now); a negative value there ends it.
    """
    idx = si[k, IDX]
    value = np.int64(flat[idx])
    negative = (value >> 63) & 1
    r = value * (1 - negative)  # a stopped ray's last step just has to stay finite
    sx = si[k, SX]
    sy = si[k, SY]
    x_line = si[k, NX] + sx * r
    y_line = si[k, NY] + sy * r
    u0 = st[k, U0]
    v0 = st[k, V0]
    ax = float(x_line) - u0
    by = float(y_line) - v0
    a = ax * st[k, FX]
    b = by * st[k, FY]
    diff = a - b
    tol = _FILTER * (a + b)
    # landing estimates of both candidate crossings, computed before the
    # choice so that the choice does not lengthen the chain
    row_at_x = v0 + ax * st[k, SLOPE_VU]
    col_at_y = u0 + by * st[k, SLOPE_UV]
    axis = np.int64(diff >= 0.0)  # 0: the x line comes first, 1: the y line
    y_first = float(axis)
    x_first = 1.0 - y_first
    estimate = row_at_x * x_first + col_at_y * y_first  # exact: one term is 0
    floor = math.floor(estimate)
    frac = estimate - floor
    bound = _ESTIMATE_ERROR * (abs(estimate) + abs(st[k, V0 - axis])) + 1e-300
    landed = np.int64(floor)
    line = float(x_line + axis * (y_line - x_line))
    distance = (line - st[k, U0 + axis]) * st[k, SCALE_X + axis]
    sure = (
        np.int64(abs(diff) > tol)
        & np.int64(frac > bound)
        & np.int64(frac < 1.0 - bound)
        & (np.int64(distance < st[k, LO_D]) | np.int64(distance > st[k, HI_D]))
    )
    over = np.int64(distance > st[k, HI_D])
    nx = axis * (landed + si[k, PX]) + (1 - axis) * (x_line + sx)
    ny = axis * (y_line + sy) + (1 - axis) * (landed + si[k, PY])
    next_idx = si[k, BASE] + ny * row_step + nx
    prefetch(flat, next_idx)
    si[k, NX] = nx
    si[k, NY] = ny
    si[k, PREV_IDX] = idx
    si[k, IDX] = next_idx
    si[k, VALUE] = value
    si[k, CODE] = sure + 2 * over
    # the axis of the crossing into a wall is kept (the line follows from the cell)
    st[k, AXIS] = st[k, AXIS] if negative else y_first
    return sure & (1 - over) & (1 - negative)


# error_model numpy: divisions by a zero direction component give inf (those
# rays go to cast_one) instead of raising
@njit(cache=True, error_model="numpy")
def cast_chunk(flat, rows, cols, outside_solid, ox, oy, w, h, m, xs, ys, dxs, dys,
               max_distances, gaps, ignore_start, jump_min, lo, distance, point, normal, cell,
               inside, status, full, st, si, active):  # fmt: skip
    """Cast rays lo .. lo + m - 1; write their results at those rows.

    xs, ys, dxs, dys, max_distances: the chunk's rays (first m entries).
    Results as in :func:`cast_many`. st, si, active: scratch of CHUNK rows.
    """
    row_step = np.int64(cols + 2)
    plane_size = (rows + 2) * row_step
    n_active = 0
    for a in range(m):
        safe, u0, v0, du, dv, _, _, norm = start_ray(ox, oy, w, h, xs[a], ys[a], dxs[a], dys[a])
        # no branch on the direction below: 0/1 arithmetic instead
        px = np.float64(du > 0.0)
        py = np.float64(dv > 0.0)
        i = px * math.floor(u0) + (1.0 - px) * (math.ceil(u0) - 1.0)
        j = py * math.floor(v0) + (1.0 - py) * (math.ceil(v0) - 1.0)
        slope = dv / du
        inverse = 1.0 / slope
        max_d = min(max_distances[a], 1e300)
        good = (
            safe
            & (du != 0.0)
            & (dv != 0.0)
            & (i >= 0.0)
            & (i < cols)
            & (j >= 0.0)
            & (j < rows)
            & (abs(slope) > 1.0 / _SLOPE_RANGE)
            & (abs(slope) < _SLOPE_RANGE)
        )
        on = np.float64(good)
        pxi = np.int64(px)
        pyi = np.int64(py)
        quadrant = (1 - pxi) + 2 * (1 - pyi)
        base = quadrant * plane_size + row_step + 1 - pyi * row_step - pxi
        nx = np.int64(on * i) + pxi
        ny = np.int64(on * j) + pyi
        idx = base + ny * row_step + nx
        prefetch(flat, idx)
        st[a, U0] = u0
        st[a, V0] = v0
        st[a, FX] = (2.0 * px - 1.0) * abs(dv)
        st[a, FY] = (2.0 * py - 1.0) * abs(du)
        st[a, SLOPE_VU] = slope
        st[a, SLOPE_UV] = inverse
        st[a, SCALE_X] = norm / du
        st[a, SCALE_Y] = norm / dv
        st[a, LO_D] = max_d * (1.0 - _DISTANCE_MARGIN)
        st[a, HI_D] = max_d * (1.0 + _DISTANCE_MARGIN)
        st[a, AXIS] = NO_CROSSING
        si[a, NX] = nx
        si[a, NY] = ny
        si[a, SX] = 2 * pxi - 1
        si[a, SY] = 2 * pyi - 1
        si[a, PX] = pxi
        si[a, PY] = pyi
        si[a, BASE] = base
        si[a, IDX] = idx
        si[a, VALUE] = 0
        si[a, CODE] = 0  # not sure: cast_one, unless a step runs
        active[n_active] = a
        n_active += np.int64(good)
    while n_active > 0:
        kept = 0
        for t in range(n_active):
            a = active[t]
            going = _step(flat, row_step, st, si, a)
            active[kept] = a
            kept += going
        n_active = kept
    for a in range(m):
        k = lo + a
        value = si[a, VALUE]
        hit_axis = st[a, AXIS]
        if value < 0 and hit_axis != NO_CROSSING:  # entered a wall or the outside
            if value == OFF_EMPTY:  # walked off a map with an empty outside: never back
                _write_miss(k, distance, point, normal, cell, inside, status, full)
                continue
            _, u0, v0, du, dv, dx, dy, norm = start_ray(ox, oy, w, h, xs[a], ys[a], dxs[a],
                                                        dys[a])  # fmt: skip
            rest = si[a, PREV_IDX] % plane_size
            j = rest // row_step - 1
            i = rest - (j + 1) * row_step - 1
            status[k] = DONE
            if hit_axis == 0.0:
                line = float(i + 1 - si[a, PX])  # the column line crossed into cell i
                t = (line - u0) / du
                distance[k] = t * norm
                if full:
                    point[k, 0] = ox + line * w
                    point[k, 1] = ys[a] + t * dy
                    normal[k, 0] = -1.0 if du > 0.0 else 1.0
                    normal[k, 1] = 0.0
            else:
                line = float(j + 1 - si[a, PY])
                t = (line - v0) / dv
                distance[k] = t * norm
                if full:
                    point[k, 0] = xs[a] + t * dx
                    point[k, 1] = oy + line * h
                    normal[k, 0] = 0.0
                    normal[k, 1] = -1.0 if dv > 0.0 else 1.0
            if full:
                cell[k, 0] = i
                cell[k, 1] = j
                inside[k] = 0
        elif value >= 0 and si[a, CODE] == 3:  # sure, and beyond max_distance
            _write_miss(k, distance, point, normal, cell, inside, status, full)
        else:
            result = cast_one(flat, rows, cols, outside_solid, ox, oy, w, h, xs[a], ys[a],
                              dxs[a], dys[a], max_distances[a], gaps, ignore_start,
                              jump_min)  # fmt: skip
            status[k] = result[0]
            distance[k] = result[1]
            if full:
                point[k, 0] = result[2]
                point[k, 1] = result[3]
                normal[k, 0] = result[4]
                normal[k, 1] = result[5]
                cell[k, 0] = result[6]
                cell[k, 1] = result[7]
                inside[k] = result[8]


@njit(cache=True, inline="always")
def _write_miss(k, distance, point, normal, cell, inside, status, full):
    status[k] = DONE
    distance[k] = np.inf
    if full:
        point[k, 0] = np.nan
        point[k, 1] = np.nan
        normal[k, 0] = 0.0
        normal[k, 1] = 0.0
        cell[k, 0] = -1
        cell[k, 1] = -1
        inside[k] = 0


@njit(cache=True)
def _scratch():
    """Per-thread work arrays: the chunk's rays (5) and the walk state (3)."""
    return (np.empty(CHUNK), np.empty(CHUNK), np.empty(CHUNK), np.empty(CHUNK), np.empty(CHUNK),
            np.empty((CHUNK, N_FLOAT)), np.empty((CHUNK, N_INT), dtype=np.int64),
            np.empty(CHUNK, dtype=np.int64))  # fmt: skip


@njit(cache=True, parallel=True)
def cast_many(accel, outside_solid, ox, oy, w, h, origins, directions, origin_stride,
              max_distances, gaps, ignore_start, jump_min, distance, point, normal, cell,
              inside, status, full):  # fmt: skip
    """Cast every ray; ray k starts at origins[k // origin_stride].

    One direction or one max distance broadcasts over all rays. Results go
    to distance (N,), point (N, 2), normal (N, 2), cell (N, 2), inside (N,)
    and status (N,); without `full` only distance and status are written
    (the others may be empty).
    """
    rows = accel.shape[1] - 2
    cols = accel.shape[2] - 2
    flat = accel.reshape(-1)
    n = distance.shape[0]
    direction_step = np.int64(directions.shape[0] != 1)
    distance_step = np.int64(max_distances.shape[0] != 1)
    n_chunks = (n + CHUNK - 1) // CHUNK
    n_blocks = (n_chunks + BLOCK - 1) // BLOCK
    for block in prange(n_blocks):
        xs, ys, dxs, dys, limits, st, si, active = _scratch()
        for c in range(block * BLOCK, min(n_chunks, (block + 1) * BLOCK)):
            lo = c * CHUNK
            m = min(n, lo + CHUNK) - lo
            for a in range(m):
                k = lo + a
                o = k // origin_stride
                xs[a] = origins[o, 0]
                ys[a] = origins[o, 1]
                dxs[a] = directions[k * direction_step, 0]
                dys[a] = directions[k * direction_step, 1]
                limits[a] = max_distances[k * distance_step]
            cast_chunk(flat, rows, cols, outside_solid, ox, oy, w, h, m, xs, ys, dxs, dys,
                       limits, gaps, ignore_start, jump_min, lo, distance, point, normal, cell,
                       inside, status, full, st, si, active)  # fmt: skip


@njit(cache=True, parallel=True)
def cast_scan(accel, outside_solid, ox, oy, w, h, poses, angles, max_range, jump_min, distance,
              status):  # fmt: skip
    """Lidar scans: ray k is beam k % B of pose k // B, direction sincos(theta + angle)."""
    rows = accel.shape[1] - 2
    cols = accel.shape[2] - 2
    flat = accel.reshape(-1)
    n_beams = angles.shape[0]
    n = poses.shape[0] * n_beams
    n_chunks = (n + CHUNK - 1) // CHUNK
    n_blocks = (n_chunks + BLOCK - 1) // BLOCK
    empty2 = np.empty((0, 2))
    empty2i = np.empty((0, 2), dtype=np.int64)
    empty1 = np.empty(0, dtype=np.uint8)
    for block in prange(n_blocks):
        xs, ys, dxs, dys, limits, st, si, active = _scratch()
        limits[:] = max_range
        for c in range(block * BLOCK, min(n_chunks, (block + 1) * BLOCK)):
            lo = c * CHUNK
            m = min(n, lo + CHUNK) - lo
            for a in range(m):
                k = lo + a
                p = k // n_beams
                s, co = sincos(poses[p, 2] + angles[k - p * n_beams])
                xs[a] = poses[p, 0]
                ys[a] = poses[p, 1]
                dxs[a] = co
                dys[a] = s
            cast_chunk(flat, rows, cols, outside_solid, ox, oy, w, h, m, xs, ys, dxs, dys,
                       limits, 0, False, jump_min, lo, distance, empty2, empty2, empty2i, empty1,
                       status, False, st, si, active)  # fmt: skip
