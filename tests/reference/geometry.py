"""Readable exact oracles for the geometry predicates (Fractions, no floats).

Every double is a rational number, so these decide exactly what the compiled
predicates must decide, at any magnitude.
"""

from __future__ import annotations

from fractions import Fraction


def orientation_reference(a, b, c):
    """Sign of (b - a) x (c - a), exactly."""
    ax, ay, bx, by, cx, cy = (Fraction(float(v)) for v in (*a, *b, *c))
    det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (det > 0) - (det < 0)


def point_in_polygon_reference(point, polygon):
    """Even-odd rule, half-open: an edge counts when exactly one end is above the
    point's y and it crosses that line strictly right of the point."""
    px, py = (Fraction(float(v)) for v in point)
    ring = [(Fraction(float(x)), Fraction(float(y))) for x, y in polygon]
    if len(ring) >= 2 and ring[0] == ring[-1]:
        ring = ring[:-1]
    inside = False
    for k, (ax, ay) in enumerate(ring):
        bx, by = ring[(k + 1) % len(ring)]
        if (ay > py) != (by > py):
            x_cross = ax + (py - ay) * (bx - ax) / (by - ay)
            if x_cross > px:
                inside = not inside
    return inside


def segments_meet_reference(a, b, c, d):
    """Whether the closed segments a-b and c-d share a point."""
    o1, o2 = orientation_reference(a, b, c), orientation_reference(a, b, d)
    o3, o4 = orientation_reference(c, d, a), orientation_reference(c, d, b)
    if o1 == o2 == o3 == o4 == 0:
        pts = [[Fraction(float(v)) for v in p] for p in (a, b, c, d)]
        axis = 0 if len({p[0] for p in pts}) > 1 else 1
        lo1, hi1 = sorted((pts[0][axis], pts[1][axis]))
        lo2, hi2 = sorted((pts[2][axis], pts[3][axis]))
        return max(lo1, lo2) <= min(hi1, hi2)
    return o1 * o2 <= 0 and o3 * o4 <= 0
