"""Exact oracles for the grid walk, written a different way than the DDA.

The walks (``tilecast._kernels.walk`` and ``tilecast._farwalk``) step from
crossing to crossing, comparing the next two. These oracles instead list
every grid-line crossing parameter as a :class:`fractions.Fraction`, sort
them, and read the cell occupied on each open interval between consecutive
crossings from the exact midpoint (``floor`` of a rational point). Ties
(lattice points) fall out as equal parameters.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

DIAG = 1.0 / math.sqrt(2.0)


def _floor(q: Fraction) -> int:
    return q.numerator // q.denominator


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _sign(q) -> int:
    return (q > 0) - (q < 0)


def _walk_cells(U0, V0, DU, DV, events, t_end):
    """Cells on the open intervals between ``0``, the sorted events and ``t_end``."""
    ts = [Fraction(0), *events, t_end]
    cells = []
    for a, b in itertools.pairwise(ts):
        mid = (a + b) / 2
        cells.append((_floor(U0 + mid * DU), _floor(V0 + mid * DV)))
    return cells


def _lines_between(a: Fraction, b: Fraction) -> list[int]:
    """Integers strictly between a and b, in the order met going from a to b."""
    if a < b:
        return list(range(_floor(a) + 1, _ceil(b)))
    if a > b:
        return list(range(_ceil(a) - 1, _floor(b), -1))
    return []


def traverse_oracle(grid, start, end, corners="both"):
    """Return [(cell, corner, normal)] for the segment, from sorted crossings."""
    u0, v0 = grid.to_tile_space(start)
    u1, v1 = grid.to_tile_space(end)
    U0, V0, U1, V1 = map(Fraction, (u0, v0, u1, v1))
    DU, DV = U1 - U0, V1 - V0
    params = {}
    for X in _lines_between(U0, U1):
        params.setdefault((X - U0) / DU, set()).add("x")
    for Y in _lines_between(V0, V1):
        params.setdefault((Y - V0) / DV, set()).add("y")
    events = sorted(params)
    cells = _walk_cells(U0, V0, DU, DV, events, Fraction(1))
    sx, sy = _sign(DU), _sign(DV)
    out = [(cells[0], False, (0.0, 0.0))]
    diag = (-sx * DIAG, -sy * DIAG)
    for k, t in enumerate(events, start=1):
        prev, cur = cells[k - 1], cells[k]
        if len(params[t]) == 2:
            if corners in ("both", "x_first"):
                out.append(((cur[0], prev[1]), True, diag))
            if corners in ("both", "y_first"):
                out.append(((prev[0], cur[1]), True, diag))
            out.append((cur, True, diag))
        elif "x" in params[t]:
            out.append((cur, False, (float(-sx), 0.0)))
        else:
            out.append((cur, False, (0.0, float(-sy))))
    return out, events


def raycast_all_oracle(grid, origin, direction, max_distance, gaps, ignore_start):
    """Every hit as (cell, kind, distance_float, exact_point) with kind in x/y/corner/inside."""
    x0, y0 = origin
    dx, dy = direction
    _, e = math.frexp(max(abs(dx), abs(dy)))
    dx, dy = math.ldexp(dx, 1 - e), math.ldexp(dy, 1 - e)
    (w, h), (ox, oy) = grid.tile_size, grid.origin
    u0, v0, du, dv = (x0 - ox) / w, (y0 - oy) / h, dx / w, dy / h
    norm = math.sqrt(dx * dx + dy * dy)  # not hypot: libm and CPython differ by an ulp
    U0, V0, DU, DV = map(Fraction, (u0, v0, du, dv))
    rows, cols = grid.shape
    solid = grid.solid

    def on_map(c):
        return 0 <= c[0] < cols and 0 <= c[1] < rows

    def is_solid(c):
        return bool(solid[c[1], c[0]]) if on_map(c) else grid.outside == "solid"

    # The first two lines ahead on each axis (enough to read the cells around
    # the first crossing exactly) and every line bounding the map: cells
    # between other lines all lie off the map.
    def axis_lines(P0, D, size):
        if D > 0:
            first = _floor(P0) + 1
            return sorted({first, first + 1, *range(max(first, 0), size + 2)})
        if D < 0:
            first = _ceil(P0) - 1
            return sorted({first, first - 1, *range(min(first, size), -2, -1)}, reverse=True)
        return []

    params = {}
    for X in axis_lines(U0, DU, cols):
        params.setdefault((X - U0) / DU, {})["x"] = X
    for Y in axis_lines(V0, DV, rows):
        params.setdefault((Y - V0) / DV, {})["y"] = Y
    events = sorted(params)
    t_end = (events[-1] if events else Fraction(0)) + 1
    cells = _walk_cells(U0, V0, DU, DV, events, t_end)

    def world(t):
        return (float(ox + (U0 + t * DU) * Fraction(w)), float(oy + (V0 + t * DV) * Fraction(h)))

    hits = []
    if is_solid(cells[0]) and not ignore_start:
        hits.append((cells[0], "inside", 0.0, (x0, y0)))
        if not on_map(cells[0]):
            return hits
    for k, t in enumerate(events, start=1):
        lines = params[t]
        t_float = (lines["x"] - u0) / du if "x" in lines else (lines["y"] - v0) / dv
        distance = t_float * norm
        if distance > max_distance:
            break
        prev, cur = cells[k - 1], cells[k]
        kind = "corner" if len(lines) == 2 else ("x" if "x" in lines else "y")
        if kind == "corner":
            shoulders = [(cur[0], prev[1]), (prev[0], cur[1])]
            flags = [is_solid(c) for c in shoulders]
            if gaps == "block_if_both":
                blocking = shoulders if all(flags) else []
            elif gaps == "block_if_either":
                blocking = [c for c, f in zip(shoulders, flags, strict=True) if f]
            else:
                blocking = []
            for c in blocking:
                hits.append((c, "corner", distance, world(t)))
                if not on_map(c):
                    return hits  # the first cell beyond a solid outside is the last hit
        if is_solid(cur):
            hits.append((cur, kind, distance, world(t)))
            if not on_map(cur):
                return hits
    return hits


def line_of_sight_oracle(grid, a, b, gaps):
    """Line of sight from the sorted-crossings cell sequence."""
    steps, _ = traverse_oracle(grid, a, b, "both")
    cells = [c for c, corner, _ in steps]
    first, last = cells[0], cells[-1]
    rows, cols = grid.shape

    def is_solid(c):
        if 0 <= c[0] < cols and 0 <= c[1] < rows:
            return bool(grid.solid[c[1], c[0]])
        return grid.outside == "solid"

    k = 1
    while k < len(steps):
        cell, corner, _ = steps[k]
        if corner:
            shoulders = [steps[k][0], steps[k + 1][0]]
            flags = [is_solid(c) for c in shoulders]
            if gaps == "block_if_both" and all(flags):
                return False
            if gaps == "block_if_either" and any(flags):
                return False
            k += 2
            cell = steps[k][0]
        if cell not in (first, last) and is_solid(cell):
            return False
        k += 1
    return True


def random_grid(rng: np.random.Generator, rows: int, cols: int, density: float):
    return rng.random((rows, cols)) < density
