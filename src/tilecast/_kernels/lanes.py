"""Batch ray casting on a grid: rays walked in SIMD lanes.

The walk of one ray is a chain of dependent steps (load a cell's clearance,
decide which border the ray leaves by, land, load again), and a core runs
such a chain far below its capacity. So a thread keeps ``LANES`` rays in
flight, one per *lane*, with each ray's state stored field by field
(structure of arrays). A *pass* advances every lane by one step: first the
cells the lanes stand on are read (independent loads, so the core overlaps
them; they were prefetched at the end of the previous pass), then one loop
with no branch and no indirect access computes the step for all lanes,
which the compiler turns into SIMD code (eight lanes per AVX-512
instruction, four with AVX2). After the pass, each lane whose ray stopped
writes that ray's answer and takes the next ray; rays are set up a batch at
a time (``STAGE`` rays, also in one vectorised loop) and copied into the
lanes that free up.

One step is the jump of the one walk (:mod:`tilecast._kernels.walk`) and the
grid-line crossing that ends it, merged: from a cell with clearance ``r``
(``r = 0`` is a plain step) the ray leaves the empty square towards its
quadrant by line ``X = nx + sx*r`` or ``Y = ny + sy*r``, whichever it meets
first, and enters the cell beyond. The step stops its ray whenever an exact
decision would be needed:

- the float filter cannot order the two crossings (a tie is a corner, where
  the diagonal-gap rule applies);
- the landing estimate lies within its error bound of a grid line;
- the crossing's distance lies within 1e-12 (relative) of ``max_distance``.

Such rays, and rays that start off the map, inside a wall, on an axis or
with numbers outside the range where the step's arithmetic is proven, are
finished by :func:`tilecast._kernels.walk.walk_first` from their start, so every
ray's answer is the exact one, bit for bit. On the standard workloads that is about one
ray in a hundred thousand.

Why the distance test is exact: the walk stops at the first crossing
whose float distance ``((X - u0) / du) * norm`` exceeds ``max_distance``.
A step only checks the crossing that ends it; the crossings it jumps over
come before that one, so (the formula being monotone up to a few ulps) they
are within the limit when the last one is clearly within it, and when the
last one is clearly beyond, the ray ends in empty cells either way.

Memory safety: a lane's next cell index is clamped to the map array, so
even a lane whose ray has stopped (it keeps stepping until it gets a new
ray, its results ignored) never reads outside it.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from tilecast._kernels import internal
from tilecast._kernels.beams import SINCOS_RANGE, sincos_near
from tilecast._kernels.intrinsics import bits_float, claim, float_bits, lowest_bit, prefetch
from tilecast._kernels.jobs import argument_types
from tilecast._kernels.walk import (
    call_walk,
    compile_walk_with,
    first_ray,
    store_first_hit,
    walk_address,
)
from tilecast._walkspec import (
    DONE,
    ESTIMATE_ERROR,
    FILTER,
    FOUND,
    OFF_EMPTY,
    SAFE_DIRECTION,
    SAFE_LARGE,
    SAFE_SMALL,
    UNSAFE,
    WalkMap,
)

#: Rays in flight per thread (one bit each in a uint64: the pass returns the stopped lanes).
LANES = 64
ALL_LANES = np.uint64(2**64 - 1)
#: Rays set up together.
STAGE = 256
# Fields are stored this many entries apart: an odd number of cache lines, so
# that the fields of one ray fall in different sets of the L1 cache (no
# measurable difference on the benchmark machine, where nothing evicts them).
LANE_STRIDE = LANES + 8
STAGE_STRIDE = STAGE + 8
# The distance test's relative margin (the float estimate is within a few
# ulps of the reference's formula).
_DISTANCE_MARGIN = 1e-12
# The largest map side the lanes walk (their cell columns and rows are int32).
LANE_SIDE_LIMIT = 2**30
# Slopes dv/du outside (1e-200, 1e200) go to the one-ray walk (keeps estimates finite).
_SLOPE_RANGE = 1e200
NO_CROSSING = 2.0  # AXIS before the first crossing

# Float fields of a lane: the walk's, then those of the answer (the last
# four only for the hit point).
U0, V0, FX, FY, SLOPE_VU, SLOPE_UV, SCALE_X, SCALE_Y, LO_D, HI_D, AXIS = range(11)
DU, DV, NORM, X0, Y0, DX_SCALED, DY_SCALED = range(11, 18)
N_FLOAT = 18
# Integer fields, int64: where the ray's map plane starts in the stack's
# cells (BASE), the index of the cell it stands on (IDX), STATE: what the
# last step found, SURE + OVER + IN_WALL (the ray walks on while it is SURE
# alone; when staged: SURE if the ray can walk at all), and the ray's number.
BASE, IDX, STATE, RAY = range(4)
N_INT = 4
# Small integer fields, int32 (AVX2 converts int32, not int64, to and from
# float64 in SIMD lanes, and multiplies int32): the cell's column and row
# after the step (NX, NY), the quadrant's signs as 0 or 1 (PX, PY) and
# CURRENT: the value of the cell at IDX, read for the step.
NX, NY, PX, PY, CURRENT = range(5)
N_WORD = 5
# A staged ray's field that a lane does not take (RAY is set when it does):
# where the planes of the ray's map start in the stack's cells.
MAP_PLANES = RAY
SURE = 1  # the step needed no exact decision
OVER = 2  # and its crossing lies beyond max_distance
IN_WALL = 4  # the cell the ray stands on (CURRENT) is a wall or off the map
# fields a lane takes from the staged ray (the others are set or computed)
_COPIED_FLOATS = (U0, V0, FX, FY, SLOPE_VU, SLOPE_UV, SCALE_X, SCALE_Y, LO_D, HI_D, DU, DV, NORM)
_COPIED_FLOATS_FULL = (X0, Y0, DX_SCALED, DY_SCALED)
_COPIED_INTS = (BASE, IDX)
_COPIED_WORDS = (NX, NY, PX, PY)

# kinds of input
MANY = 0
SCAN = 1


class Staged(NamedTuple):
    """Rays copied from the input, one per entry: start, direction and max distance."""

    xs: Any
    ys: Any
    dxs: Any
    dys: Any
    limits: Any


@njit(cache=True, inline="always")
def _at(field, stride, t):
    """The index of a field of lane (or staged ray) t, unsigned: Numba skips
    the negative-index handling."""
    return np.uint64(field * stride + t)


@internal(error_model="numpy")
def _stage(count, first, walk_map, maps, staged, sf, si, sw):
    """Set up rays 0 .. count - 1 of the staging buffers (no branch: vectorises).

    Tile-space start and direction as :func:`start_ray` computes them (the
    direction scaled by a power of two so its larger component is in [1, 2);
    here by a multiplication with that power, built from the exponent bits).
    ``staged``: the rays, a :class:`Staged`, the first of them ray ``first``
    of the batch; ``walk_map`` the map's record (its geometry), ``maps`` the
    :class:`~tilecast._walkspec.MapStack` whose map ``k // per_map`` ray
    ``k`` walks (its cells' index counts from the stack's first map).
    """
    ox, oy = walk_map.origin_x, walk_map.origin_y
    w, h = walk_map.cell_width, walk_map.cell_height
    xs, ys, dxs, dys, limits = staged.xs, staged.ys, staged.dxs, staged.dys, staged.limits
    rows = maps.info.shape[2] - 2
    cols = maps.info.shape[3] - 2
    per_map = maps.per_map
    row_step = np.int64(cols + 2)
    plane_size = (rows + 2) * row_step
    # a cell's column and row are int32 in the lanes: maps wider or taller
    # than LANE_SIDE_LIMIT (never seen: 2 ** 30 cells) go to the one-ray walk
    small_enough = (cols < LANE_SIDE_LIMIT) & (rows < LANE_SIDE_LIMIT)
    b = first // per_map  # the map of each staged ray, counted on (no division per ray)
    within = first - b * per_map
    for s in range(count):
        si[MAP_PLANES * STAGE_STRIDE + s] = b * 4 * plane_size
        within += 1
        if within == per_map:
            within = 0
            b += 1
    for s in range(count):
        x0 = xs[s]
        y0 = ys[s]
        dx0 = dxs[s]
        dy0 = dys[s]
        exponent = (float_bits(max(abs(dx0), abs(dy0))) >> 52) & 0x7FF
        scalable = (exponent >= 1) & (exponent <= 2045)
        factor = bits_float((2046 - exponent) << 52)  # 2 ** (1023 - exponent)
        dx = dx0 * factor
        dy = dy0 * factor
        u0 = (x0 - ox) / w  # x / 1.0 == x: the same as start_ray's shortcut
        v0 = (y0 - oy) / h
        du = dx / w
        dv = dy / h
        safe = (
            ((u0 == 0.0) | ((abs(u0) >= SAFE_SMALL) & (abs(u0) <= SAFE_LARGE)))
            & ((v0 == 0.0) | ((abs(v0) >= SAFE_SMALL) & (abs(v0) <= SAFE_LARGE)))
            & ((du == 0.0) | ((abs(du) >= SAFE_SMALL) & (abs(du) <= SAFE_DIRECTION)))
            & ((dv == 0.0) | ((abs(dv) >= SAFE_SMALL) & (abs(dv) <= SAFE_DIRECTION)))
        )
        norm = math.sqrt(dx * dx + dy * dy)
        px = np.float64(du > 0.0)
        py = np.float64(dv > 0.0)
        i = px * np.floor(u0) + (1.0 - px) * (np.ceil(u0) - 1.0)  # floats: SIMD
        j = py * np.floor(v0) + (1.0 - py) * (np.ceil(v0) - 1.0)
        slope = dv / du
        max_d = min(limits[s], 1e300)
        good = (
            small_enough
            & scalable
            & safe
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
        base = (si[MAP_PLANES * STAGE_STRIDE + s] + quadrant * plane_size + row_step + 1
                - pyi * row_step - pxi)  # fmt: skip
        nx = np.int32(on * i) + np.int32(px)
        ny = np.int32(on * j) + np.int32(py)
        sf[U0 * STAGE_STRIDE + s] = u0
        sf[V0 * STAGE_STRIDE + s] = v0
        sf[FX * STAGE_STRIDE + s] = (2.0 * px - 1.0) * abs(dv)
        sf[FY * STAGE_STRIDE + s] = (2.0 * py - 1.0) * abs(du)
        sf[SLOPE_VU * STAGE_STRIDE + s] = slope
        sf[SLOPE_UV * STAGE_STRIDE + s] = 1.0 / slope
        sf[SCALE_X * STAGE_STRIDE + s] = norm / du
        sf[SCALE_Y * STAGE_STRIDE + s] = norm / dv
        sf[DU * STAGE_STRIDE + s] = du
        sf[DV * STAGE_STRIDE + s] = dv
        sf[NORM * STAGE_STRIDE + s] = norm
        sf[LO_D * STAGE_STRIDE + s] = max_d * (1.0 - _DISTANCE_MARGIN)
        sf[HI_D * STAGE_STRIDE + s] = max_d * (1.0 + _DISTANCE_MARGIN)
        sf[X0 * STAGE_STRIDE + s] = x0
        sf[Y0 * STAGE_STRIDE + s] = y0
        sf[DX_SCALED * STAGE_STRIDE + s] = dx
        sf[DY_SCALED * STAGE_STRIDE + s] = dy
        sw[NX * STAGE_STRIDE + s] = nx
        sw[NY * STAGE_STRIDE + s] = ny
        sw[PX * STAGE_STRIDE + s] = np.int32(px)
        sw[PY * STAGE_STRIDE + s] = np.int32(py)
        si[BASE * STAGE_STRIDE + s] = base
        si[IDX * STAGE_STRIDE + s] = base + np.int64(ny) * row_step + np.int64(nx)
        si[STATE * STAGE_STRIDE + s] = np.int64(good)  # SURE or 0


@internal(error_model="numpy")
def _advance(flat, row_step, lf, li, lw):
    """One pass: every lane leaves its cell's empty square and enters the next cell.

    Sets STATE to SURE for the lanes whose ray walks on, and returns the
    others as bits (bit t: lane t). The value of the cell a lane enters is
    read at its next pass; a negative value there ends it, and the lane then
    keeps the state of the crossing into that cell.
    """
    top = np.int64(flat.shape[0] - 1)
    row_step32 = np.int32(row_step)
    stopped = np.uint64(0)
    for t in range(LANES):  # the loads (indirect: kept out of the SIMD loop)
        lw[CURRENT * LANE_STRIDE + t] = flat[li[IDX * LANE_STRIDE + t]]
    for t in range(LANES):
        value = lw[CURRENT * LANE_STRIDE + t]
        negative = value < 0
        r = max(value, np.int32(0))
        px = lw[PX * LANE_STRIDE + t]
        py = lw[PY * LANE_STRIDE + t]
        # (Numba computes with int32 in int64: each result is cast back, so
        # that LLVM keeps the lanes' arithmetic and conversions in int32)
        sx = np.int32(2 * px - 1)
        sy = np.int32(2 * py - 1)
        old_nx = lw[NX * LANE_STRIDE + t]
        old_ny = lw[NY * LANE_STRIDE + t]
        x_line = np.int32(old_nx + sx * r)
        y_line = np.int32(old_ny + sy * r)
        u0 = lf[U0 * LANE_STRIDE + t]
        v0 = lf[V0 * LANE_STRIDE + t]
        ax = float(x_line) - u0
        by = float(y_line) - v0
        a = ax * lf[FX * LANE_STRIDE + t]
        b = by * lf[FY * LANE_STRIDE + t]
        diff = a - b
        tol = FILTER * (a + b)
        # both candidate crossings are worked out, then one is chosen (every
        # value is loaded unconditionally: a choice between two loads would
        # stop the loop from vectorising)
        row_at_x = v0 + ax * lf[SLOPE_VU * LANE_STRIDE + t]
        col_at_y = u0 + by * lf[SLOPE_UV * LANE_STRIDE + t]
        distance_x = ax * lf[SCALE_X * LANE_STRIDE + t]
        distance_y = by * lf[SCALE_Y * LANE_STRIDE + t]
        y_first = diff >= 0.0  # else the x line comes first
        estimate = col_at_y if y_first else row_at_x
        start = u0 if y_first else v0
        distance = distance_y if y_first else distance_x
        floor = np.floor(estimate)  # a float (math.floor gives an int64: no SIMD)
        frac = estimate - floor
        bound = ESTIMATE_ERROR * (abs(estimate) + abs(start)) + 1e-300
        landed = np.int32(floor)
        over = distance > lf[HI_D * LANE_STRIDE + t]
        sure = (
            (abs(diff) > tol)
            & (frac > bound)
            & (frac < 1.0 - bound)
            & ((distance < lf[LO_D * LANE_STRIDE + t]) | over)
        )
        nx = np.int32(landed + px) if y_first else np.int32(x_line + sx)
        ny = np.int32(y_line + sy) if y_first else np.int32(landed + py)
        offset = np.int64(ny) * np.int64(row_step32) + np.int64(nx)
        next_idx = min(max(li[BASE * LANE_STRIDE + t] + offset, 0), top)
        # a ray that stands in a wall keeps the crossing that brought it there
        lw[NX * LANE_STRIDE + t] = old_nx if negative else nx
        lw[NY * LANE_STRIDE + t] = old_ny if negative else ny
        idx = li[IDX * LANE_STRIDE + t]
        li[IDX * LANE_STRIDE + t] = idx if negative else next_idx
        axis = lf[AXIS * LANE_STRIDE + t]
        lf[AXIS * LANE_STRIDE + t] = axis if negative else np.float64(y_first)
        state = SURE * np.int64(sure) + OVER * np.int64(over) + IN_WALL * np.int64(negative)
        li[STATE * LANE_STRIDE + t] = state
        stopped |= np.uint64(state != SURE) << np.uint64(t)
    for t in range(LANES):  # the cells the next pass reads
        prefetch(flat, li[IDX * LANE_STRIDE + t])
    return stopped


@internal
def map_of(m, maps, k):
    """The :class:`~tilecast._walkspec.WalkMap` of the map ray ``k`` walks: ``m`` with the
    clearance of map ``k // per_map`` of ``maps`` (a :class:`~tilecast._walkspec.MapStack`)."""
    return WalkMap(maps.info[k // maps.per_map], m.variants, m.pixels, m.outside_solid,
                   m.jump_min, m.origin_x, m.origin_y, m.cell_width, m.cell_height)  # fmt: skip


@internal
def _cast_alone(k, m, ray, out, full, walk_at):
    """Cast ray k (a :class:`~tilecast._walkspec.Ray`) with the one-ray walk
    (:func:`tilecast._kernels.walk.walk_first`, at address ``walk_at``) and
    write its answer to ``out`` (a :class:`~tilecast._walkspec.FirstHits`)."""
    a = call_walk(walk_at, m, ray)
    if full:
        store_first_hit(out, k, a)
    else:  # a scan: the distance only (the other outputs are empty placeholders)
        out.status[k] = UNSAFE if a.status == UNSAFE else DONE
        out.distance[k] = a.distance if a.status == FOUND else np.inf


# how a ray that stopped ends
HIT = 0
MISS = 1
EXACT = 2  # the one-ray walk decides


@njit(cache=True, inline="always")
def _outcome(state, hit_axis, current):
    """HIT, MISS or EXACT for a lane whose ray stopped (scalars only: inlined
    functions that take arrays would add reference counting per ray)."""
    if state >= IN_WALL and hit_axis != NO_CROSSING:  # entered a wall or the outside
        return MISS if current == OFF_EMPTY else HIT  # off a map with an empty outside: gone
    if state == SURE + OVER:  # beyond max_distance, in empty cells
        return MISS
    return EXACT


@internal(error_model="numpy")
def _gather(kind, first, count, rays, beams, staged):
    """Copy rays first .. first + count - 1 of the input (``rays``, a
    :class:`~tilecast._walkspec.RayBatch`, or ``beams``, a :class:`~tilecast._walkspec.Beams`)
    into the staging buffers ``staged`` (a :class:`Staged`)."""
    xs, ys, dxs, dys, limits = staged.xs, staged.ys, staged.dxs, staged.dys, staged.limits
    if kind == MANY:
        origins, directions, max_distances = rays.origins, rays.directions, rays.max_distances
        origin_stride = rays.origin_stride
        direction_step = np.int64(directions.shape[0] != 1)
        distance_step = np.int64(max_distances.shape[0] != 1)
        o = first // origin_stride
        within = first - o * origin_stride
        for s in range(count):
            k = first + s
            xs[s] = origins[o, 0]
            ys[s] = origins[o, 1]
            dxs[s] = directions[k * direction_step, 0]
            dys[s] = directions[k * direction_step, 1]
            limits[s] = max_distances[k * distance_step]
            within += 1
            if within == origin_stride:
                within = 0
                o += 1
    else:
        poses, angles, max_range = beams.poses, beams.angles, beams.max_range
        n_beams = angles.shape[0]
        p = first // n_beams
        beam = first - p * n_beams
        for s in range(count):
            xs[s] = poses[p, 0]
            ys[s] = poses[p, 1]
            dxs[s] = poses[p, 2] + angles[beam]  # the angle, for now
            beam += 1
            if beam == n_beams:
                beam = 0
                p += 1
        for s in range(count):  # vectorises
            sine, cosine = sincos_near(dxs[s])
            dys[s] = sine
            limits[s] = cosine
        for s in range(count):
            angle = dxs[s]
            if abs(angle) < SINCOS_RANGE:
                dxs[s] = limits[s]
            else:  # rare: libm
                dxs[s] = math.cos(angle)
                dys[s] = math.sin(angle)
            limits[s] = max_range


@njit(cache=True, nogil=True, error_model="numpy")
def cast_lanes_at(kind, counter, hi, m, maps, rays, beams, out, full, walk_at):
    """Cast rays of a batch (kind MANY) or of a scan (kind SCAN), claimed STAGE at a time.

    The rays are ``counter[0] .. hi - 1``: ``counter`` (an int64 array of one
    element) is shared by every thread casting the batch, and each takes the
    next STAGE rays from it with an atomic add (:func:`claim`) whenever its
    lanes need rays, until it passes ``hi``. So the threads share the work
    however it is spread over the rays, and each thread's lanes stay full
    until the whole batch is nearly done: one call per thread, not one per
    slice of the batch (each call ends with its lanes draining, and each
    costs a Python call with the GIL).

    ``maps``: the maps (a :class:`~tilecast._walkspec.MapStack`, one map for
    a single map's batch): ray k walks map ``k // maps.per_map``, whose
    :class:`~tilecast._walkspec.WalkMap` is ``m`` with that map's clearance
    (:func:`map_of`); they share ``m``'s geometry. MANY: the rays are
    ``rays`` (a :class:`~tilecast._walkspec.RayBatch`: ray k starts at
    origins[k // origin_stride]; one direction or one max distance
    broadcasts over all rays). SCAN: the rays are ``beams`` (a
    :class:`~tilecast._walkspec.Beams`: ray k is beam k % B of pose k // B, direction
    sincos(theta + angle), range max_range). The other input is a
    placeholder of the same type. Results go to ``out`` (a
    :class:`~tilecast._walkspec.FirstHits`, its pixel not written):
    distance (N,), point (N, 2), normal (N, 2), cell (N, 2), inside (N,)
    and status (N,); without `full` only distance and status are written
    (the others may be empty). One entry point for both kinds, and every
    argument from the caller, so that the lane walk is compiled once. It
    releases the GIL: :mod:`tilecast._threads` runs ranges in parallel.
    ``walk_at`` is :func:`~tilecast._kernels.walk.walk_address`, for the
    rays the lanes leave to the one walk (:func:`cast_lanes` passes it).
    (One function, not a wrapper around a worker: Numba optimises and
    compiles every callee again inside each caller.)
    """
    cols = maps.info.shape[3] - 2
    flat = maps.info.reshape(-1)
    ox, oy, w, h = m.origin_x, m.origin_y, m.cell_width, m.cell_height
    gaps, ignore_start = rays.gaps, rays.ignore_start
    distance, point, normal, cell = out.distance, out.point, out.normal, out.cell
    inside, status = out.inside, out.status
    row_step = np.int64(cols + 2)
    lf = np.zeros(N_FLOAT * LANE_STRIDE)
    li = np.zeros(N_INT * LANE_STRIDE, dtype=np.int64)  # every lane idle: STATE 0, IDX 0
    lw = np.zeros(N_WORD * LANE_STRIDE, dtype=np.int32)
    for t in range(LANES):
        li[RAY * LANE_STRIDE + t] = -1
    sf = np.empty(N_FLOAT * STAGE_STRIDE)
    si = np.empty(N_INT * STAGE_STRIDE, dtype=np.int64)
    sw = np.empty(N_WORD * STAGE_STRIDE, dtype=np.int32)
    xs = np.empty(STAGE)
    ys = np.empty(STAGE)
    dxs = np.empty(STAGE)
    dys = np.empty(STAGE)
    limits = np.empty(STAGE)
    staged = Staged(xs, ys, dxs, dys, limits)
    ray = np.empty(5)  # one ray's input, for the one-ray walk
    alone = Staged(ray[0:1], ray[1:2], ray[2:3], ray[3:4], ray[4:5])
    stopped = ALL_LANES  # bit t: lane t has no ray that walks on (at first: every lane)
    first = 0  # the first staged ray's number in the batch
    n_staged = 0
    cursor = 0  # the next staged ray to hand to a lane
    exhausted = False  # the counter has passed hi
    live = 0
    while True:
        while stopped != 0:
            t = lowest_bit(stopped)
            stopped &= stopped - np.uint64(1)
            k = li[_at(RAY, LANE_STRIDE, t)]
            if k >= 0:  # write the answer of the ray that stopped in lane t
                live -= 1
                li[_at(RAY, LANE_STRIDE, t)] = -1
                hit_axis = lf[_at(AXIS, LANE_STRIDE, t)]
                outcome = _outcome(
                    li[_at(STATE, LANE_STRIDE, t)], hit_axis, lw[_at(CURRENT, LANE_STRIDE, t)]
                )
                if outcome == HIT:
                    px = np.int64(lw[_at(PX, LANE_STRIDE, t)])
                    py = np.int64(lw[_at(PY, LANE_STRIDE, t)])
                    nx = np.int64(lw[_at(NX, LANE_STRIDE, t)])
                    ny = np.int64(lw[_at(NY, LANE_STRIDE, t)])
                    # the line crossed into the wall (a column line when the
                    # axis is 0) and the reference's distance to it, bit for
                    # bit (selects, no branch: the axis is a coin toss)
                    on_x = hit_axis == 0.0
                    line = float(nx + 1 - 2 * px) if on_x else float(ny + 1 - 2 * py)
                    start = lf[_at(U0, LANE_STRIDE, t)] if on_x else lf[_at(V0, LANE_STRIDE, t)]
                    speed = lf[_at(DU, LANE_STRIDE, t)] if on_x else lf[_at(DV, LANE_STRIDE, t)]
                    along = (line - start) / speed
                    status[k] = DONE
                    distance[k] = along * lf[_at(NORM, LANE_STRIDE, t)]
                    if full:
                        x0 = lf[_at(X0, LANE_STRIDE, t)]
                        y0 = lf[_at(Y0, LANE_STRIDE, t)]
                        dx = lf[_at(DX_SCALED, LANE_STRIDE, t)]
                        dy = lf[_at(DY_SCALED, LANE_STRIDE, t)]
                        point[k, 0] = ox + line * w if on_x else x0 + along * dx
                        point[k, 1] = y0 + along * dy if on_x else oy + line * h
                        normal[k, 0] = 1.0 - 2.0 * px if on_x else 0.0
                        normal[k, 1] = 0.0 if on_x else 1.0 - 2.0 * py
                        cell[k, 0] = nx - px
                        cell[k, 1] = ny - py
                        inside[k] = False
                elif outcome == MISS:
                    status[k] = DONE
                    distance[k] = np.inf
                    if full:
                        point[k, 0] = np.nan
                        point[k, 1] = np.nan
                        normal[k, 0] = 0.0
                        normal[k, 1] = 0.0
                        cell[k, 0] = -1
                        cell[k, 1] = -1
                        inside[k] = False
                else:  # rare: the one walk casts the ray again from its start
                    _gather(kind, k, np.int64(1), rays, beams, alone)
                    one = first_ray(ray[0], ray[1], ray[2], ray[3], ray[4], gaps, ignore_start)
                    _cast_alone(k, map_of(m, maps, k), one, out, full, walk_at)
            while True:  # hand the lane the next ray that can walk
                if cursor == n_staged:
                    if exhausted:
                        break
                    first = claim(counter, STAGE)
                    if first >= hi:
                        exhausted = True
                        break
                    n_staged = min(STAGE, hi - first)
                    _gather(kind, first, n_staged, rays, beams, staged)
                    _stage(n_staged, first, m, maps, staged, sf, si, sw)
                    cursor = 0
                s = cursor
                cursor += 1
                k = first + s  # the staged ray's number in the batch
                if si[_at(STATE, STAGE_STRIDE, s)] == SURE:
                    for f in _COPIED_FLOATS:
                        lf[_at(f, LANE_STRIDE, t)] = sf[_at(f, STAGE_STRIDE, s)]
                    if full:
                        for f in _COPIED_FLOATS_FULL:
                            lf[_at(f, LANE_STRIDE, t)] = sf[_at(f, STAGE_STRIDE, s)]
                    for f in _COPIED_INTS:
                        li[_at(f, LANE_STRIDE, t)] = si[_at(f, STAGE_STRIDE, s)]
                    for f in _COPIED_WORDS:
                        lw[_at(f, LANE_STRIDE, t)] = sw[_at(f, STAGE_STRIDE, s)]
                    lf[_at(AXIS, LANE_STRIDE, t)] = NO_CROSSING
                    li[_at(RAY, LANE_STRIDE, t)] = k
                    live += 1
                    break
                one = first_ray(xs[s], ys[s], dxs[s], dys[s], limits[s], gaps, ignore_start)
                _cast_alone(k, map_of(m, maps, k), one, out, full, walk_at)
        if live == 0:
            return
        stopped = _advance(flat, row_step, lf, li, lw)


_walk_at = 0  # the one walk's address, once compiled


def cast_lanes(*args: Any) -> None:
    """:func:`cast_lanes_at` with the one walk's address as the last argument.

    The first call compiles (or loads) the walk and this kernel side by side
    (:func:`~tilecast._kernels.walk.compile_walk_with`).
    """
    global _walk_at
    if not _walk_at:
        compile_walk_with(cast_lanes_at, argument_types(cast_lanes_at, (*args, 0)), 4.0)
        _walk_at = walk_address()
    cast_lanes_at(*args, _walk_at)
