"""Readable oracles for mapping: beam carving, log-odds updates, the likelihood field.

Plain Python, one beam at a time. The cells a beam enters are found the
way ``oracle.py`` finds them, not by stepping from crossing to crossing:
every grid-line crossing within the beam's range is listed with its exact
parameter (:class:`fractions.Fraction`), the list is sorted, and the cells
follow from the start cell and the axes of each crossing (both at a lattice
point: the beam goes on to the diagonal cell). What the contract fixes in
float64 is done in float64 here too: the map to tile space, the direction
scaled to [1, 2), and the distance of a crossing, ``((X - u0) / du) * norm``,
which decides (inclusive) whether a crossing is within range; at a lattice
point the column line's distance decides. Nothing is imported from tilecast
but the scans' beam directions (``tilecast.batch.beam_directions``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from tilecast.batch import beam_directions


def _first_cell(u, du):
    return math.ceil(u) - 1 if du < 0 else math.floor(u)


def _crossings(u0, du, norm, limit, lo, hi):
    """Lines met along one axis, nearest first, with whether each is within ``limit``.

    Lists the lines within range (float distance, inclusive) and the first
    one beyond; only lines in [lo, hi] matter (beyond them every cell is off
    the map).
    """
    if du == 0.0:
        return []
    step = 1 if du > 0 else -1
    line = math.floor(u0) + 1 if du > 0 else math.ceil(u0) - 1
    lines = []
    while lo <= line <= hi or (line < lo and step > 0) or (line > hi and step < 0):
        within = ((line - u0) / du) * norm <= limit
        lines.append((line, within))
        if not within:
            break
        line += step
    return lines


def beam_cells(pose_xy, direction, limit, resolution, origin, shape):
    """Cells (col, row) the beam enters within ``limit``, in order, off-map ones included.

    Stops after the first cell beyond the map's far side on an axis (the
    beam never comes back); the last cell is the one holding the end point
    when the beam stays on the map.
    """
    x0, y0 = pose_xy
    dx, dy = direction
    _, e = math.frexp(max(abs(dx), abs(dy)))
    dx, dy = math.ldexp(dx, 1 - e), math.ldexp(dy, 1 - e)
    ox, oy = origin
    u0, v0 = (x0 - ox) / resolution, (y0 - oy) / resolution
    du, dv = dx / resolution, dy / resolution
    norm = math.sqrt(dx * dx + dy * dy)
    rows, cols = shape
    x_lines = _crossings(u0, du, norm, limit, -1, cols + 1)
    y_lines = _crossings(v0, dv, norm, limit, -1, rows + 1)
    U0, V0, DU, DV = map(Fraction, (u0, v0, du, dv))
    events = {}  # parameter t -> {axis: whether that line is within range}
    for X, within in x_lines:
        events.setdefault((X - U0) / DU, {})["x"] = within
    for Y, within in y_lines:
        events.setdefault((Y - V0) / DV, {})["y"] = within
    sx, sy = (du > 0) - (du < 0), (dv > 0) - (dv < 0)
    i, j = _first_cell(u0, du), _first_cell(v0, dv)
    cells = [(i, j)]
    for t in sorted(events):
        axes = events[t]
        # at a lattice point (both lines at once) the column line's distance decides
        if not axes.get("x", axes.get("y")):
            break
        i += sx if "x" in axes else 0
        j += sy if "y" in axes else 0
        cells.append((i, j))
    return cells


def logit(p):
    return math.log(p / (1.0 - p))


def integrate_reference(log_odds, poses, ranges, angles, max_range, *, resolution, origin,
                        p_hit, p_miss, clamp):  # fmt: skip
    """Apply the scans in order to ``log_odds`` (a list of row lists), as the contract says.

    Per scan, per cell: ``L + (hits * logit(p_hit) + misses * logit(p_miss))``
    from integer counts, then clamped to [logit(clamp[0]), logit(clamp[1])].
    """
    rows, cols = len(log_odds), len(log_odds[0])
    l_hit, l_miss = logit(p_hit), logit(p_miss)
    l_min, l_max = logit(clamp[0]), logit(clamp[1])
    for pose, scan in zip(poses, ranges, strict=True):
        directions = beam_directions([pose], angles)
        hits, misses = {}, {}
        for r, direction in zip(scan, directions, strict=True):
            returned = r < max_range
            cells = beam_cells(pose[:2], tuple(direction), r if returned else max_range,
                               resolution, origin, (rows, cols))  # fmt: skip
            on_map = [c for c in cells[:-1] if 0 <= c[0] < cols and 0 <= c[1] < rows]
            for c in on_map:
                misses[c] = misses.get(c, 0) + 1
            end = cells[-1]
            if returned and 0 <= end[0] < cols and 0 <= end[1] < rows:
                hits[end] = hits.get(end, 0) + 1
        for c in set(hits) | set(misses):
            i, j = c
            value = log_odds[j][i] + (hits.get(c, 0) * l_hit + misses.get(c, 0) * l_miss)
            log_odds[j][i] = min(max(value, l_min), l_max)
    return log_odds


def brute_distance(solid, tile_size):
    """Distance from each cell's centre to the nearest solid cell's centre, by brute force."""
    w, h = tile_size
    rows, cols = len(solid), len(solid[0])
    walls = [(r, c) for r in range(rows) for c in range(cols) if solid[r][c]]
    return [
        [
            min(
                (math.sqrt((w * (c - wc)) ** 2 + (h * (r - wr)) ** 2) for wr, wc in walls),
                default=math.inf,
            )
            for c in range(cols)
        ]
        for r in range(rows)
    ]


def likelihood_field_reference(distance, tile_size, origin, poses, angles, observed, max_range,
                               *, sigma_hit, z_hit, z_rand, max_distance, weighting):  # fmt: skip
    """Log-likelihood per pose under AMCL's likelihood field (nav2_amcl's sensorFunction)."""
    rows, cols = len(distance), len(distance[0])
    w, h = tile_size
    ox, oy = origin
    out = []
    for pose in poses:
        directions = beam_directions([pose], angles)
        total = 1.0 if weighting == "amcl" else 0.0
        for z, (c, s) in zip(observed, directions, strict=True):
            if z >= max_range:  # AMCL skips max-range readings
                continue
            u = (pose[0] + z * c - ox) / w
            v = (pose[1] + z * s - oy) / h
            if 0 <= u < cols and 0 <= v < rows:
                d = min(distance[int(v)][int(u)], max_distance)
            else:  # off the map: max distance
                d = max_distance
            pz = z_hit * math.exp(-(d * d) / (2 * sigma_hit * sigma_hit)) + z_rand / max_range
            if weighting == "amcl":
                total += pz**3
            else:
                total += -math.inf if pz == 0.0 else math.log(pz)
        out.append(math.log(total) if weighting == "amcl" else total)
    return out
