"""Triangular expansion (Numba): a scene's walls triangulated, and the walls an observer sees.

A :class:`~tilecast.VisibilityScene` triangulates the endpoints of its
pieces (the walls split where they cross) inside a box around them, with
every piece an edge of the triangulation (a *constraint*). A plain query
(no radius, bounds, cone or circles) then finds the observer's triangle and
expands from it, edge by edge (Bungiu et al., 2014): each window is the
open range of directions between two rays from the observer through
triangulation vertices, narrowed at every triangle it crosses, and it stops
at a constraint. The constraints it meets are exactly the pieces that are
nearest to the observer over some open range of directions; every other
piece is hidden in every direction, so the sweep on the pieces met gives
the answer the sweep on all of them gives (see
:mod:`tilecast._kernels.scene`).

Every decision is an exact orientation test on the input coordinates (the
window's edges are rays through vertices); only the Delaunay criterion,
which shapes the triangles but never their validity, is tested in floating
point: a flip is made only when both new triangles turn counter-clockwise
exactly.

Triangles are rows of three vertex numbers, counter-clockwise. Slot ``k`` of a
triangle names its vertex ``k`` and the edge opposite it: ``nbr[t, k]`` is the
triangle across that edge (-1 on the box), ``cons[t, k]`` the piece it is
(-1: not a wall).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types

from tilecast._kernels import internal
from tilecast._kernels.geometry import orient2d
from tilecast._kernels.intrinsics import caller_of, compiled_address, prefetch
from tilecast._kernels.visibility import emit_point, point_between

#: What :func:`expand` returns when it cannot answer (the caller floods instead).
UNSURE = -1
#: What :func:`expand` returns when the observer sees past every wall.
ENDLESS = -2
_WALK_STEPS = 1 << 20


# ------------------------------------------------------------------ topology
@internal
def _slot(rows, t, value):
    """The slot k of triangle t with ``rows[t, k] == value`` (a corner, or a neighbour)."""
    if rows[t, 0] == value:
        return 0
    if rows[t, 1] == value:
        return 1
    return 2


@internal
def _relink(nbr, t, old, new):
    """Triangle ``t`` (if any) now has ``new`` where it had neighbour ``old``."""
    if t >= 0:
        nbr[t, _slot(nbr, t, old)] = new


class Slots(NamedTuple):
    """One value per slot of a triangle: its corners, neighbours or walls (:func:`_set`).

    Built in the kernels, it types its values as int64 (no literal copies
    of :func:`_set` for constant arguments).
    """

    k0: int
    k1: int
    k2: int


@internal
def _set(tri, nbr, cons, t, corners, across, walls):
    """Triangle t is ``corners``, the triangles ``across`` its slots' edges and their ``walls``."""
    tri[t, 0], tri[t, 1], tri[t, 2] = corners.k0, corners.k1, corners.k2
    nbr[t, 0], nbr[t, 1], nbr[t, 2] = across.k0, across.k1, across.k2
    cons[t, 0], cons[t, 1], cons[t, 2] = walls.k0, walls.k1, walls.k2


@internal
def _flip(tri, nbr, cons, vtri, t, k):
    """Flip the edge opposite slot ``k`` of ``t``: quad (p0, p1, w, p2) gets diagonal p0-w.

    Afterwards ``t`` is (p0, p1, w) and its neighbour ``u`` is (p0, w, p2).
    """
    p0, p1, p2 = tri[t, k], tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
    u = nbr[t, k]
    j = _slot(nbr, u, t)
    w = tri[u, j]
    t_a, t_b = nbr[t, (k + 1) % 3], nbr[t, (k + 2) % 3]  # across p2-p0, p0-p1
    c_a, c_b = cons[t, (k + 1) % 3], cons[t, (k + 2) % 3]
    u_a, u_b = nbr[u, (j + 1) % 3], nbr[u, (j + 2) % 3]  # across p1-w, w-p2
    d_a, d_b = cons[u, (j + 1) % 3], cons[u, (j + 2) % 3]
    _set(tri, nbr, cons, t, Slots(p0, p1, w), Slots(u_a, u, t_b), Slots(d_a, -1, c_b))
    _set(tri, nbr, cons, u, Slots(p0, w, p2), Slots(u_b, t_a, t), Slots(d_b, c_a, -1))
    _relink(nbr, u_a, u, t)
    _relink(nbr, t_a, t, u)
    vtri[p0] = t
    vtri[p1] = t
    vtri[w] = t
    vtri[p2] = u


@internal
def _left(xy, a, b, c):
    """orient2d of vertices a, b, c."""
    return orient2d(xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1], xy[c, 0], xy[c, 1])


@internal
def _in_circle(xy, a, b, c, d):
    """Is d inside the circle through a, b, c (counter-clockwise)? Floating point."""
    adx, ady = xy[a, 0] - xy[d, 0], xy[a, 1] - xy[d, 1]
    bdx, bdy = xy[b, 0] - xy[d, 0], xy[b, 1] - xy[d, 1]
    cdx, cdy = xy[c, 0] - xy[d, 0], xy[c, 1] - xy[d, 1]
    det = (
        (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy)
        + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy)
        + (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady)
    )
    return det > 0.0


@internal
def _convex(xy, t, k, tri, nbr):
    """Can the edge opposite slot k of t be flipped (both new triangles counter-clockwise)?"""
    p0, p1, p2 = tri[t, k], tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
    u = nbr[t, k]
    w = tri[u, _slot(nbr, u, t)]
    return _left(xy, p0, p1, w) > 0 and _left(xy, p0, w, p2) > 0


@internal
def locate(xy, tri, nbr, t, px, py):
    """The triangle holding point p (inside or on its edges), walking from ``t``; -1: lost.

    A visibility walk: cross any edge that has p strictly beyond it, trying
    the edges in turn from a rotating first one (so that it cannot cycle for
    long); at most ``_WALK_STEPS`` steps.
    """
    for step in range(_WALK_STEPS):
        moved = False
        for e in range(3):
            k = (e + step) % 3
            a, b = tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
            if orient2d(xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1], px, py) < 0:
                t = nbr[t, k]
                moved = True
                break
        if t < 0:
            return -1
        if not moved:
            return t
    return -1


# --------------------------------------------------------------- building
@internal
def _legalize(xy, tri, nbr, cons, vtri, stack, n, v):
    """Lawson's flips around the new vertex v, from the triangles ``stack[:n]``."""
    flips = 0
    while n > 0:
        n -= 1
        t = stack[n]
        k = _slot(tri, t, v)
        u = nbr[t, k]
        if u < 0 or cons[t, k] >= 0:
            continue
        w = tri[u, _slot(nbr, u, t)]
        if not _in_circle(xy, tri[t, 0], tri[t, 1], tri[t, 2], w):
            continue
        if not _convex(xy, t, k, tri, nbr) or flips > 4096:
            continue  # rounding in the float circle test: keep the valid edge
        _flip(tri, nbr, cons, vtri, t, k)
        flips += 1
        stack[n] = t
        stack[n + 1] = u
        n += 2
    return flips


@internal
def _insert(xy, tri, nbr, cons, vtri, count, t, v, stack):
    """Insert vertex v, lying in triangle t (inside or on an edge); returns the triangle count.

    -1: v lies on a vertex or on the box (the caller gives up).
    """
    px, py = xy[v, 0], xy[v, 1]
    on = -1
    for k in range(3):
        a, b = tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
        o = orient2d(xy[a, 0], xy[a, 1], xy[b, 0], xy[b, 1], px, py)
        if o == 0:
            if on >= 0:
                return -1  # on two edges: a vertex
            on = k
        elif o != 1:
            return -1
    if on < 0:  # split t into three: (a, b, v), (b, c, v), (c, a, v)
        a, b, c = tri[t, 0], tri[t, 1], tri[t, 2]
        na, nb, nc = nbr[t, 0], nbr[t, 1], nbr[t, 2]
        t1, t2 = count, count + 1
        _set(tri, nbr, cons, t, Slots(a, b, v), Slots(t1, t2, nc), Slots(-1, -1, -1))
        _set(tri, nbr, cons, t1, Slots(b, c, v), Slots(t2, t, na), Slots(-1, -1, -1))
        _set(tri, nbr, cons, t2, Slots(c, a, v), Slots(t, t1, nb), Slots(-1, -1, -1))
        _relink(nbr, na, t, t1)
        _relink(nbr, nb, t, t2)
        vtri[a] = t
        vtri[b] = t1
        vtri[c] = t2
        vtri[v] = t
        stack[0], stack[1], stack[2] = t, t1, t2
        _legalize(xy, tri, nbr, cons, vtri, stack, 3, v)
        return count + 2
    # on the edge opposite slot `on`: t = (p0, p1, p2), u = (w, p2, p1) become four
    k = on
    p0, p1, p2 = tri[t, k], tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
    u = nbr[t, k]
    if u < 0:
        return -1
    j = _slot(nbr, u, t)
    w = tri[u, j]
    t_a, t_b = nbr[t, (k + 1) % 3], nbr[t, (k + 2) % 3]  # across p2-p0, p0-p1
    u_a, u_b = nbr[u, (j + 1) % 3], nbr[u, (j + 2) % 3]  # across p1-w, w-p2
    t2, u2 = count, count + 1
    _set(tri, nbr, cons, t, Slots(p0, p1, v), Slots(u2, t2, t_b), Slots(-1, -1, -1))
    _set(tri, nbr, cons, t2, Slots(p0, v, p2), Slots(u, t_a, t), Slots(-1, -1, -1))
    _set(tri, nbr, cons, u, Slots(w, p2, v), Slots(t2, u2, u_b), Slots(-1, -1, -1))
    _set(tri, nbr, cons, u2, Slots(w, v, p1), Slots(t, u_a, u), Slots(-1, -1, -1))
    _relink(nbr, t_a, t, t2)
    _relink(nbr, u_a, u, u2)
    vtri[p0] = t
    vtri[p1] = t
    vtri[p2] = t2
    vtri[w] = u
    vtri[v] = t
    stack[0], stack[1], stack[2], stack[3] = t, t2, u, u2
    _legalize(xy, tri, nbr, cons, vtri, stack, 4, v)
    return count + 2


@internal
def _edge_from(tri, nbr, vtri, a, b):
    """A triangle with the directed edge a -> b (its slot opposite is returned too); -1: none."""
    for turn in (1, 2):  # around a counter-clockwise, then clockwise (a box corner)
        t0 = vtri[a]
        t = t0
        while True:
            k = _slot(tri, t, a)
            if tri[t, (k + 1) % 3] == b:
                return t, (k + 2) % 3
            t = nbr[t, (k + turn) % 3]
            if t < 0 or t == t0:
                break
        if t == t0:
            break
    return -1, -1


@internal
def _mark(tri, nbr, cons, vtri, a, b, piece):
    """Make the existing edge a-b the wall ``piece`` on both sides; False: it is another's.

    (Two pieces sharing an edge overlap: their split points were rounded.)
    """
    t, k = _edge_from(tri, nbr, vtri, a, b)
    if cons[t, k] >= 0 and cons[t, k] != piece:
        return False
    cons[t, k] = piece
    u = nbr[t, k]
    if u >= 0:
        cons[u, _slot(nbr, u, t)] = piece
    return True


@internal
def _first_crossing(xy, tri, nbr, vtri, a, b):
    """Leaving a towards b: ``(t, k, on)``.

    ``on >= 0``: the edge a-on exists and runs towards b (``on`` is b or a
    vertex on the open segment a-b); else triangle t at a has the segment
    leave through its edge opposite a (slot k). ``t = -1``: not found.
    """
    t0 = vtri[a]
    t = t0
    while True:
        k = _slot(tri, t, a)
        x, y = tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
        ox = _left(xy, a, b, x)
        if (
            ox == 0
            and (xy[x, 0] - xy[a, 0]) * (xy[b, 0] - xy[a, 0])
            + (xy[x, 1] - xy[a, 1]) * (xy[b, 1] - xy[a, 1])
            > 0.0
        ):
            return t, k, x
        oy = _left(xy, a, b, y)
        if ox < 0 and oy > 0:
            return t, k, -1
        t = nbr[t, (k + 1) % 3]
        if t < 0 or t == t0:
            return -1, -1, -1


@internal
def _insert_wall(xy, tri, nbr, cons, vtri, a, b, piece, queue):
    """Make the segment a-b a wall: flip the edges it crosses away (Sloan); False: it cannot.

    A vertex on the open segment splits it there. A crossed edge that is
    already a wall (walls that cross), or an edge that is already another
    wall (walls that overlap), fails.
    """
    while a != b:
        t, k, on = _first_crossing(xy, tri, nbr, vtri, a, b)
        if t < 0:
            return False
        if on >= 0:
            if not _mark(tri, nbr, cons, vtri, a, on, piece):
                return False
            a = on
            continue
        # walk along a-b, listing the crossed edges, up to b or a vertex on a-b
        n = 0
        end = -1
        while end < 0:
            if cons[t, k] >= 0:
                return False
            x, y = tri[t, (k + 1) % 3], tri[t, (k + 2) % 3]
            if n == queue.shape[0]:
                return False
            queue[n, 0], queue[n, 1] = x, y
            n += 1
            u = nbr[t, k]
            if u < 0:
                return False
            j = _slot(nbr, u, t)
            z = tri[u, j]
            oz = _left(xy, a, b, z)
            if z == b or oz == 0:
                end = z
            elif oz > 0:  # u = (z, y, x), x right of a-b, y and z left: leave through x-z
                t, k = u, (j + 1) % 3
            else:  # z right: through z-y
                t, k = u, (j + 2) % 3
        # flip the crossed edges until none crosses a-end
        head = 0
        budget = 64 * n * n + 1024
        while head < n:
            budget -= 1
            if budget < 0:
                return False
            x, y = queue[head, 0], queue[head, 1]
            head += 1
            s, m = _edge_from(tri, nbr, vtri, x, y)
            if s < 0:
                return False
            if not _convex(xy, s, m, tri, nbr):
                if n == queue.shape[0]:
                    return False
                queue[n, 0], queue[n, 1] = x, y  # later, when its quad is convex
                n += 1
                continue
            _flip(tri, nbr, cons, vtri, s, m)
            # the new diagonal joins tri[s, 0] and tri[s, 2]
            c, d = tri[s, 0], tri[s, 2]
            apart = _left(xy, a, end, c) * _left(xy, a, end, d) < 0
            if c != a and c != end and d != a and d != end and apart:
                if n == queue.shape[0]:
                    return False
                queue[n, 0], queue[n, 1] = c, d
                n += 1
            if head > queue.shape[0] // 2:  # keep room: move the pending edges to the front
                for q in range(head, n):
                    queue[q - head, 0], queue[q - head, 1] = queue[q, 0], queue[q, 1]
                n -= head
                head = 0
        if not _mark(tri, nbr, cons, vtri, a, end, piece):
            return False
        a = end
    return True


@njit(cache=True)
def triangulate(xy, order, walls, pieces):
    """A constrained triangulation: ``(tri, nbr, cons, ok)``.

    ``xy`` (V, 2): the vertices; the first four are a box's corners,
    counter-clockwise, strictly around all others (no two alike).
    ``order``: the others' insertion order (nearby ones in turn, so each
    walk is short). ``walls`` (W, 2): vertex pairs that must be edges,
    ``pieces`` (W,) the number each is known by (``cons``). ``ok`` is
    False when walls cross or a step failed (a scene then floods).
    """
    nv = xy.shape[0]
    size = 2 * nv
    tri = np.empty((size, 3), dtype=np.int64)
    nbr = np.empty((size, 3), dtype=np.int64)
    cons = np.empty((size, 3), dtype=np.int64)
    vtri = np.zeros(nv, dtype=np.int64)
    # box corners 0..3 ccw (t typed: a literal would compile another _set)
    _set(tri, nbr, cons, np.int64(0), Slots(0, 1, 2), Slots(-1, 1, -1), Slots(-1, -1, -1))
    _set(tri, nbr, cons, np.int64(1), Slots(0, 2, 3), Slots(-1, -1, 0), Slots(-1, -1, -1))
    vtri[1] = 0
    vtri[2] = 0
    vtri[3] = 1
    count = 2
    stack = np.empty(4 * nv + 16, dtype=np.int64)
    t = 0
    for q in range(order.shape[0]):
        v = order[q]
        t = locate(xy, tri, nbr, t, xy[v, 0], xy[v, 1])
        if t < 0:
            return tri[:count], nbr[:count], cons[:count], False
        count = _insert(xy, tri, nbr, cons, vtri, count, t, v, stack)
        if count < 0:
            return tri[:0], nbr[:0], cons[:0], False
        t = vtri[v]
    queue = np.empty((4 * nv + 64, 2), dtype=np.int64)
    for w in range(walls.shape[0]):
        if not _insert_wall(xy, tri, nbr, cons, vtri, walls[w, 0], walls[w, 1], pieces[w], queue):
            return tri[:count], nbr[:count], cons[:count], False
    _delaunay_again(xy, tri, nbr, cons, vtri, count)
    return tri[:count], nbr[:count], cons[:count], True


@internal
def _delaunay_again(xy, tri, nbr, cons, vtri, count):
    """Flip the edges the walls' insertion left thin, but walls (constrained Delaunay).

    Rounds over every edge until none flips (at most 64 rounds: the float
    circle test could disagree with itself); fewer thin triangles, fewer
    steps per query.
    """
    for _ in range(64):
        flipped = False
        for t in range(count):
            for k in range(3):
                u = nbr[t, k]
                if u < t or cons[t, k] >= 0:  # each edge once; the box (-1) and walls stay
                    continue
                w = tri[u, _slot(nbr, u, t)]
                thin = _in_circle(xy, tri[t, 0], tri[t, 1], tri[t, 2], w)
                if thin and _convex(xy, t, k, tri, nbr):
                    _flip(tri, nbr, cons, vtri, t, k)
                    flipped = True
                    break  # t has new edges
        if not flipped:
            return


@njit(cache=True)
def cell_starts(mesh, x0, y0, h, nx, ny):
    """A triangle near the centre of each grid cell (a query's walk starts there); -1: none."""
    out = np.full(nx * ny, -1, dtype=np.int64)
    t = 0
    for r in range(ny):
        for s in range(nx):
            c = s if r % 2 == 0 else nx - 1 - s  # back and forth: each walk is short
            found = locate_in(mesh, t, x0 + (c + 0.5) * h, y0 + (r + 0.5) * h)
            if found >= 0:
                t = found
                out[r * nx + c] = found
    return out


# ------------------------------------------------------------------ queries
# A query reads one record per triangle (``mesh``, float64 (T, 12)): its
# corners' coordinates (x0, y0, x1, y1, x2, y2), then per slot k the triangle
# across the edge opposite corner k with the slot that edge has there
# (``4 * u + j``; -1 on the box), then per slot the wall that edge is:
# ``2 * piece + reversed`` (-1: none), ``reversed`` 1 when the piece's row
# runs the other way from the edge (the edge runs counter-clockwise around
# the triangle, so around any observer whose window leaves the triangle
# through it: a query knows which end of the piece comes first without an
# orientation test). Triangles are numbered so that nearby ones lie
# together in memory.
_ACROSS = 6
_WALL = 9
_RECORD = 12


@internal
def locate_in(mesh, t, px, py):
    """:func:`locate` on a query's records: the triangle holding p, walking from t; -1: lost."""
    for step in range(_WALK_STEPS):
        moved = False
        for e in range(3):
            k = (e + step) % 3
            a, b = (k + 1) % 3, (k + 2) % 3
            if orient2d(mesh[t, 2 * a], mesh[t, 2 * a + 1], mesh[t, 2 * b], mesh[t, 2 * b + 1],
                        px, py) < 0:  # fmt: skip
                code = np.int64(mesh[t, _ACROSS + k])
                if code < 0:
                    return -1
                t = code >> 2
                moved = True
                break
        if not moved:
            return t
    return -1


@internal(inline="always")
def _push(stack, n, t, k, rx, ry, lx, ly):
    """Push the window from direction (rx, ry) to (lx, ly) through the edge opposite slot k of t."""
    stack[n, 0] = 4 * t + k
    stack[n, 1], stack[n, 2], stack[n, 3], stack[n, 4] = rx, ry, lx, ly
    return n + 1


@internal
def expand(mesh, start, px, py, stack, span, trail, rows):
    """Follow every window from p to the walls it ends on, counter-clockwise.

    Lists each window that ends on a wall in ``trail`` (rows ``wall, rx,
    ry, lx, ly``: the wall's code in the records, ``2 * piece +
    reversed``, and the directions through the window's right and left
    bounding vertices), in counter-clockwise order around p, starting from
    the first edge of p's triangle. Returns a status: 0 done, UNSURE when p
    lies on an edge of the triangulation or the walk from triangle
    ``start`` is lost, ENDLESS when p sees past the box. ``span`` (5,)
    int64 gets the rows of ``trail`` (``span[3]``) and 1 when a vertex lay
    exactly on a window's edge (``span[4]``, else 0; the trail then needs
    the sweep's rules for directions holding several events);
    :func:`mark_trail` fills the rest. ``stack`` and ``trail``: (S, 5)
    float64 scratch, S at least the number of vertices plus four (the
    windows pending at once are disjoint ranges of directions, each ending
    at a vertex's, and a step writes one row past them; so are the windows
    listed).

    The step is written without branches on the turns (a coin toss for the
    branch predictor): it always writes the window that crosses the far
    corner's left edge or its right edge, and the right part of a split
    window one row above, then keeps that row only when the window split.
    """
    span[3] = 0
    span[4] = 0
    t = locate_in(mesh, start, px, py)
    if t < 0:
        return UNSURE
    for k in range(3):  # strictly inside: every window is open and within a half turn
        a, b = (k + 1) % 3, (k + 2) % 3
        if orient2d(mesh[t, 2 * a], mesh[t, 2 * a + 1], mesh[t, 2 * b], mesh[t, 2 * b + 1],
                    px, py) != 1:  # fmt: skip
            return UNSURE
    # the window followed is kept in registers; the stack holds the windows
    # put off (the left parts of the windows split), the last put off first
    n = 0
    for k in range(2, 0, -1):  # seen from p, each edge runs counter-clockwise from its first end
        a, b = (k + 1) % 3, (k + 2) % 3
        n = _push(stack, n, t, k, mesh[t, 2 * a], mesh[t, 2 * a + 1], mesh[t, 2 * b],
                  mesh[t, 2 * b + 1])  # fmt: skip
    k = 0
    rx, ry, lx, ly = mesh[t, 2], mesh[t, 3], mesh[t, 4], mesh[t, 5]
    m = 0
    on_edge = False
    while True:
        wall = np.int64(mesh[t, _WALL + k])
        if wall >= 0:  # the window ends on a wall: listed, and the next one put off taken
            if rows.shape[0] > 0:
                prefetch(rows, 4 * (wall >> 1))  # the piece's row, for the trace
            trail[m, 0] = wall
            trail[m, 1], trail[m, 2], trail[m, 3], trail[m, 4] = rx, ry, lx, ly
            m += 1
            if n == 0:
                break
            n -= 1
            code = np.int64(stack[n, 0])
            t, k = code >> 2, code & 3
            rx, ry, lx, ly = stack[n, 1], stack[n, 2], stack[n, 3], stack[n, 4]
            continue
        across = np.int64(mesh[t, _ACROSS + k])
        if across < 0:
            span[3] = m
            return ENDLESS
        # entered u through the edge opposite its corner j: u's corners are
        # (w, left end, right end) from slot j on
        u, j = across >> 2, across & 3
        wx, wy = mesh[u, 2 * j], mesh[u, 2 * j + 1]
        right_turn = orient2d(px, py, rx, ry, wx, wy)
        left_turn = orient2d(px, py, wx, wy, lx, ly)
        on_edge |= (right_turn == 0) | (left_turn == 0)
        split = (right_turn > 0) & (left_turn > 0)
        after = j + 1 - 3 * (j == 2)  # the slot of the edge right end-w
        before = j + 2 - 3 * (j >= 1)  # the slot of the edge w-left end
        # the corners the next steps read beyond u's other edges (a hint: the
        # chain of records read one after the other is the step's cost)
        for slot in (after, before):
            beyond = max(np.int64(mesh[u, _ACROSS + slot]), 0)  # -1: the box (no triangle)
            prefetch(mesh, _RECORD * (beyond >> 2) + 2 * (beyond & 3))
            prefetch(mesh, _RECORD * (beyond >> 2) + _WALL)
        # w splits the window: its left part (across w-left end) is put off
        # (written always, kept when split: no branch on a coin toss) and its
        # right part followed; else all of it crosses w-left end when w lies
        # at or right of it, right end-w when at or left of it
        _push(stack, n, u, before, wx, wy, lx, ly)
        n += np.int64(split)
        k = before if left_turn > 0 and not split else after
        lx = wx if split else lx
        ly = wy if split else ly
        t = u
    span[3] = m
    span[4] = np.int64(on_edge)
    return 0


@internal
def mark_trail(trail, count, picked, span):
    """Set the bits of the trail's pieces in ``picked``; ``span[0:3]``: the lowest and
    highest word touched and the marks made (a piece met twice counts twice)."""
    lo = picked.shape[0]
    hi = -1
    for i in range(count):
        piece = np.int64(trail[i, 0]) >> 1
        picked[piece >> 6] |= np.int64(1) << (piece & 63)
        lo = min(lo, piece >> 6)
        hi = max(hi, piece >> 6)
    span[0] = lo
    span[1] = hi
    span[2] = count


@internal
def _before(px, py, ux, uy, ax, ay, bx, by):
    """Is direction a before direction b, counter-clockwise from direction u (u itself first)?"""
    half_a = _half(px, py, ux, uy, ax, ay)
    half_b = _half(px, py, ux, uy, bx, by)
    if half_a != half_b:
        return half_a < half_b
    return orient2d(px, py, ax, ay, bx, by) > 0


@internal
def _half(px, py, ux, uy, qx, qy):
    """0 for directions in [u, u + pi), 1 for [u + pi, u + 2 pi)."""
    o = orient2d(px, py, ux, uy, qx, qy)
    if o != 0:
        return 0 if o > 0 else 1
    # in line: the same way as u? (the signs of rounded differences are exact)
    return 0 if (qx - px) * (ux - px) + (qy - py) * (uy - py) > 0.0 else 1


@internal
def _counter_clockwise(lex_rows, r, px, py, piece):
    """Piece r's row with its ends counter-clockwise around p, in ``piece`` (1, 4)."""
    x0, y0, x1, y1 = lex_rows[r, 0], lex_rows[r, 1], lex_rows[r, 2], lex_rows[r, 3]
    if orient2d(px, py, x0, y0, x1, y1) < 0:
        x0, y0, x1, y1 = x1, y1, x0, y0
    piece[0, 0], piece[0, 1], piece[0, 2], piece[0, 3] = x0, y0, x1, y1


@internal(inline="always")
def _point_on_wall(lex_rows, wall, px, py, qx, qy):
    """:func:`~tilecast._kernels.visibility.point_on` for a trail's wall
    (``2 * piece + reversed``), its row's ends counter-clockwise around p as
    :func:`_counter_clockwise` orders them, without a test."""
    r = wall >> 1
    x0, y0, x1, y1 = lex_rows[r, 0], lex_rows[r, 1], lex_rows[r, 2], lex_rows[r, 3]
    if wall & 1:
        return point_between(x1, y1, x0, y0, px, py, qx, qy)
    return point_between(x0, y0, x1, y1, px, py, qx, qy)


@internal
def _changes_at(trail, i, count):
    """Does the wall change at the left end of window i (the next window's wall differs)?"""
    return trail[i, 0] != trail[_next(i, count), 0]


@internal(inline="always")
def _next(i, count):
    """i + 1, or 0 after count - 1 (no division)."""
    return 0 if i + 1 == count else i + 1


@internal
def _first_change(trail, count, px, py, ux, uy):
    """The window whose left end is the first change of wall at or after direction u.

    The windows are end to end around p, counter-clockwise from the right
    end d of window 0, so their left ends lie at strictly growing angles
    from d, the last at d itself (a full turn). A binary search finds the
    first left end not before u (seen from d); the first change from there
    on is the answer (or the first of all, past the full turn). When u
    points along d and the last window's end is a change, that end (at u
    itself) comes first. Some change exists.
    """
    dx, dy = trail[0, 1], trail[0, 2]
    last = count - 1
    if (_changes_at(trail, last, count) and orient2d(px, py, dx, dy, ux, uy) == 0
            and (ux - px) * (dx - px) + (uy - py) * (dy - py) > 0.0):  # fmt: skip
        return last
    lo, hi = 0, last  # the left end of window `last` is d, a full turn: never before u
    while lo < hi:
        mid = (lo + hi) // 2
        if _before(px, py, dx, dy, trail[mid, 3], trail[mid, 4], ux, uy):
            lo = mid + 1
        else:
            hi = mid
    for i in range(lo, count):
        if _changes_at(trail, i, count):
            return i
    for i in range(lo):
        if _changes_at(trail, i, count):
            return i
    return -1


@internal
def trace(trail, count, lex_rows, first, px, py):
    """The visibility polygon from an expansion's trail: ``(polygon, ok)``.

    What :func:`tilecast._kernels.visibility.sweep` returns on the walls
    seen: where the nearest wall changes (between two windows of the trail
    ending on different pieces, at the vertex they share), the points of
    both pieces in that direction, the first at or after the direction of
    the sweep's first event (the counter-clockwise-first end of row
    ``first``), consecutive repeats and a last point equal to the first
    left out. Only for a trail with no vertex on a window's edge (then each
    such direction holds one event the sweep measures it by: that vertex);
    ``ok`` False: use the sweep.
    """
    if count == 0 or first < 0:
        return np.empty((0, 2)), False
    changes = 0
    for i in range(count):
        nxt = _next(i, count)
        if trail[i, 3] != trail[nxt, 1] or trail[i, 4] != trail[nxt, 2]:
            return np.empty((0, 2)), False  # windows not end to end: leave it to the sweep
        changes += trail[i, 0] != trail[nxt, 0]
    if changes == 0:
        return np.empty((0, 2)), False
    piece = np.empty((1, 4))
    _counter_clockwise(lex_rows, first, px, py, piece)
    start = _first_change(trail, count, px, py, piece[0, 0], piece[0, 1])
    out = np.empty((2 * changes, 2))
    n = 0
    i = start
    for _ in range(count):
        nxt = _next(i, count)
        if trail[i, 0] == trail[nxt, 0]:
            i = nxt
            continue
        qx, qy = trail[i, 3], trail[i, 4]
        x, y = _point_on_wall(lex_rows, np.int64(trail[i, 0]), px, py, qx, qy)
        n = emit_point(out, n, x, y)
        x, y = _point_on_wall(lex_rows, np.int64(trail[nxt, 0]), px, py, qx, qy)
        n = emit_point(out, n, x, y)
        i = nxt
    if n > 1 and out[n - 1, 0] == out[0, 0] and out[n - 1, 1] == out[0, 1]:
        n -= 1
    return out[:n].copy(), True


#: :func:`expanded_polygon`'s signature: the scene's query kernel calls it
#: through its address (compiled apart, side by side with it).
EXPANDED_SIGNATURE = types.Tuple((types.float64[:, ::1], types.int64))(
    types.float64[:, ::1], types.int64, types.float64, types.float64,
    types.float64[:, :, ::1], types.int64[::1], types.int64[::1], types.float64[:, ::1],
    types.int64, types.boolean,
)  # fmt: skip
#: :func:`expanded_polygon`'s outcomes (with :data:`UNSURE` and :data:`ENDLESS`).
TRACED = 0
SEEN = 1


@njit(cache=True)
def expanded_polygon(mesh, start, px, py, stack, picked, span, lex_rows, first, cone):
    """A plain query's expansion: ``(polygon, outcome)``.

    TRACED: the polygon (traced from the trail; ``picked`` left zero).
    SEEN: the walls seen are marked in ``picked`` (``span`` as
    :func:`expand` and :func:`mark_trail` set it) for the sweep (a cone, or a corner exactly on a
    window's edge). UNSURE: flood instead; ENDLESS: p sees past the box
    (with a cone, perhaps not inside it: flood). ``stack`` (2, S, 5): the
    windows' stack and the trail; ``first``: the sweep's first row
    (:func:`tilecast._kernels.scene.first_piece`).
    """
    status = expand(mesh, start, px, py, stack[0], span, stack[1], lex_rows)
    if status == 0 and span[4] == 0 and not cone:
        poly, ok = trace(stack[1], span[3], lex_rows, first, px, py)
        if ok:
            return poly, TRACED
    if status == 0:
        mark_trail(stack[1], span[3], picked, span)
        return np.empty((0, 2)), SEEN
    return np.empty((0, 2)), status


call_expanded_polygon = caller_of(expanded_polygon, EXPANDED_SIGNATURE)


def address() -> int:
    """The address of :func:`expanded_polygon` (compiled on first use), for the scene's kernels."""
    return compiled_address(expanded_polygon, EXPANDED_SIGNATURE)


def wall_codes(mesh: np.ndarray, cons: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The records' wall columns: ``2 * piece + reversed`` per slot (-1: no wall).

    ``mesh``: the records' corners (columns 0-5); ``cons`` (T, 3): each
    edge's piece or -1; ``rows``: the pieces. ``reversed`` is 1 when the
    piece's row runs against the edge (from corner k + 1 to corner k + 2):
    the two lie on one line, so the signs of their coordinate differences
    (exact in floating point) tell.
    """
    codes = np.full(cons.shape, -1, dtype=np.int64)
    corners = mesh[:, :6].reshape(-1, 3, 2)
    for k in range(3):
        on = np.flatnonzero(cons[:, k] >= 0)
        piece = cons[on, k]
        edge = corners[on, (k + 2) % 3] - corners[on, (k + 1) % 3]
        row = rows[piece, 2:4] - rows[piece, 0:2]
        against_x = (edge[:, 0] > 0.0) != (row[:, 0] > 0.0)
        against_y = (edge[:, 1] > 0.0) != (row[:, 1] > 0.0)
        against = np.where(edge[:, 0] != 0.0, against_x, against_y)
        codes[on, k] = 2 * piece + against
    return codes


def prepare(
    rows: np.ndarray, x0: float, y0: float, h: float, nx: int, ny: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Triangulate a scene's sorted pieces inside its grid: ``(mesh, starts)``.

    ``rows`` (P, 4): the pieces (:func:`tilecast._kernels.scene.lex_pieces`);
    a piece is known by its row (the first of equal rows). The box is the
    grid's (corner ``(x0, y0)``, ``nx`` by ``ny`` cells of side ``h``), which
    lies strictly around the pieces. ``starts``: a triangle per grid cell
    (:func:`cell_triangles`). None when the pieces cross (their split points
    were rounded) or a step fails: the scene floods instead. ``mesh`` holds
    a record per triangle (see :func:`expand`).
    """
    ends = rows.reshape(-1, 2)
    points, inverse = np.unique(ends, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1, 2) + 4
    x1, y1 = x0 + nx * h, y0 + ny * h
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    xy = np.ascontiguousarray(np.concatenate([box, points]))
    # insertion order: grid cells row by row, back and forth (each walk is short)
    ix = np.clip(((points[:, 0] - x0) / h).astype(np.int64), 0, nx - 1)
    iy = np.clip(((points[:, 1] - y0) / h).astype(np.int64), 0, ny - 1)
    key = iy * nx + np.where(iy % 2 == 0, ix, nx - 1 - ix)
    order = np.argsort(key, kind="stable").astype(np.int64) + 4
    # one wall per pair of distinct ends, known by its first row
    real = inverse[:, 0] != inverse[:, 1]
    pair = np.sort(inverse, axis=1)
    code = pair[:, 0] * len(xy) + pair[:, 1]
    code = np.where(real, code, -1)
    _, first = np.unique(code, return_index=True)
    first = first[code[first] >= 0]
    walls = np.ascontiguousarray(inverse[first])
    tri, nbr, cons, ok = triangulate(xy, order, walls, first.astype(np.int64))
    if not ok:
        return None
    # number the triangles by the grid cell of their centroid (nearby ones together)
    centre = xy[tri].mean(axis=1)
    cx = np.clip(((centre[:, 0] - x0) / h).astype(np.int64), 0, nx - 1)
    cy = np.clip(((centre[:, 1] - y0) / h).astype(np.int64), 0, ny - 1)
    renumber = np.argsort(cy * nx + np.where(cy % 2 == 0, cx, nx - 1 - cx), kind="stable")
    new_number = np.empty(len(tri), dtype=np.int64)
    new_number[renumber] = np.arange(len(tri))
    facing = np.full(nbr.shape, -1, dtype=np.int64)  # the slot each edge has in the triangle across
    has = nbr >= 0
    rows_at, slots = np.nonzero(has)
    across = nbr[rows_at, slots]
    facing[rows_at, slots] = np.argmax(nbr[across] == rows_at[:, None], axis=1)
    code = np.where(has, 4 * new_number[np.maximum(nbr, 0)] + facing, -1)
    tri, code, cons = tri[renumber], code[renumber], cons[renumber]
    mesh = np.empty((len(tri), 12))
    mesh[:, :6] = xy[tri].reshape(-1, 6)
    mesh[:, _ACROSS : _ACROSS + 3] = code
    mesh[:, _WALL : _WALL + 3] = wall_codes(mesh, cons, rows)
    starts = cell_starts(mesh, x0, y0, h, nx, ny)
    return mesh, starts


@njit(cache=True)
def seen_pieces(mesh, start, px, py, pieces):
    """``(status, numbers)``: :func:`expand` from triangle ``start``, the pieces marked, ascending.

    ``pieces``: how many pieces the scene has. What a query's expansion
    does, with its own scratch; for checking it.
    """
    picked = np.zeros(pieces // 64 + 1, dtype=np.int64)
    stack = np.empty((mesh.shape[0] + 8, 5))
    trail = np.empty((mesh.shape[0] + 8, 5))
    span = np.empty(5, dtype=np.int64)
    status = expand(mesh, start, px, py, stack, span, trail, np.empty((0, 4)))
    if status == 0:
        mark_trail(trail, span[3], picked, span)
    out = np.empty(pieces, dtype=np.int64)
    n = 0
    for r in range(pieces):
        if picked[r >> 6] & (np.int64(1) << (r & 63)):
            out[n] = r
            n += 1
    return status, out[:n].copy()
