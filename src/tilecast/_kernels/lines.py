"""Compiled lattice lines (the rules: ``tilecast.lattice``; the oracle: tests/reference/lines.py).

Integer-only arithmetic with error terms bounded by a few times the line's
length, so no intermediate overflows for coordinates the public module accepts.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def fill_line8(x0, y0, x1, y1, out, start):
    dx = x1 - x0
    dy = y1 - y0
    # Along the major axis (x when |dx| >= |dy|) one step per cell; the minor
    # coordinate is minor0 + floor((2*d_minor*k + n) / (2n)), kept as the
    # quotient q and the remainder r in [0, 2n) of that numerator. A y-major
    # line is the x-major rule with the axes swapped.
    if abs(dx) >= abs(dy):
        n, major, major0, minor0, d_minor = abs(dx), 0, x0, y0, dy
        s = 1 if dx >= 0 else -1
    else:
        n, major, major0, minor0, d_minor = abs(dy), 1, y0, x0, dx
        s = 1 if dy >= 0 else -1
    if n == 0:
        out[start, 0] = x0
        out[start, 1] = y0
        return
    two_n = 2 * n
    q = 0
    r = n
    for k in range(n + 1):
        out[start + k, major] = major0 + s * k
        out[start + k, 1 - major] = minor0 + q
        r += 2 * d_minor
        if r >= two_n:
            r -= two_n
            q += 1
        elif r < 0:
            r += two_n
            q -= 1


@njit(cache=True, nogil=True)
def fill_line4(x0, y0, x1, y1, out, start):
    dx = x1 - x0
    dy = y1 - y0
    adx = abs(dx)
    ady = abs(dy)
    sx = 1 if dx >= 0 else -1
    sy = 1 if dy >= 0 else -1
    x = x0
    y = y0
    out[start, 0] = x
    out[start, 1] = y
    # e = (2kx + 1) * ady - (2ky + 1) * adx compares the next crossings of a
    # vertical and a horizontal cell edge by the centre-to-centre segment.
    e = ady - adx
    for k in range(1, adx + ady + 1):
        if e < 0 or (e == 0 and sy < 0):
            x += sx
            e += 2 * ady
        else:
            y += sy
            e -= 2 * adx
        out[start + k, 0] = x
        out[start + k, 1] = y


@njit(cache=True, nogil=True)
def fill_lines(lo, hi, starts, ends, offsets, connectivity, out):
    """Write lines lo .. hi - 1 into ``out`` from row ``offsets[k]`` (GIL-free, for run_tasks)."""
    for k in range(lo, hi):
        if connectivity == 8:
            fill_line8(starts[k, 0], starts[k, 1], ends[k, 0], ends[k, 1], out, offsets[k])
        else:
            fill_line4(starts[k, 0], starts[k, 1], ends[k, 0], ends[k, 1], out, offsets[k])
