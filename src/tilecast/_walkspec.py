"""The grid walk's rules, in one place: modes, statuses, corner and gap rules, bounds.

Every walk of the library imports what it decides with from here: the
compiled walk (:mod:`tilecast._kernels.walk`), the SIMD lanes
(:mod:`tilecast._kernels.lanes`), the exact far-range walk in rationals
(:mod:`tilecast._farwalk`) and the public modules that call them. No number
or rule below is restated elsewhere.

It also defines the walk's records (:class:`WalkMap`, :class:`Ray`,
:class:`WalkState`, :class:`WalkHit`, :class:`WalkChunk`, and the batch
kernels' :class:`RayBatch`, :class:`Beams`, :class:`FirstHits`): the
kernels take and answer them as Numba named tuples, so every interface is
named.

The module is plain Python and imports nothing but :mod:`math` and
:mod:`typing`: importing it loads neither NumPy nor Numba. The functions
are written so that the same source runs in Python (the far-range walk
calls them with Python floats and integers, exact for any size) and
compiled (the kernels wrap them with :func:`tilecast._kernels.internal`,
where ``math.floor`` gives an int64; Numba ignores the type hints).

A ray lives in *tile space*: it starts at ``(u0, v0)`` and moves along
``(du, dv)``; cell ``(i, j)`` is the half-open box ``[i, i+1) x [j, j+1)``.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

# ----------------------------------------------------------------- modes
#: What a walk does: stop at the first solid cell entered (a ray).
FIRST = 0
#: Record every solid cell entered (a ray that pierces).
ALL = 1
#: Stop at the first cell that blocks the segment's line of sight.
SIGHT = 2
#: Record every cell the segment passes through (no map).
CELLS = 3

# -------------------------------------------------------------- statuses
#: Over: the ray left or ran out of range, the segment ended (SIGHT: clear).
DONE = 0
#: Outside the proven range: nothing decided (take the far-range walk).
UNSAFE = 1
#: FIRST: the hit is in the returned event; SIGHT: blocked.
FOUND = 2
#: ALL / CELLS: the buffer is full; call again with the returned state.
MORE = 3

# ------------------------------------------------------ policies by name
#: ``diagonal_gaps`` names, in the order of their index in the kernels.
DIAGONAL_GAPS = ("block_if_both", "block_if_either", "open")
GAPS_BLOCK_IF_BOTH = 0
GAPS_BLOCK_IF_EITHER = 1
GAPS_OPEN = 2
#: ``corners`` names of ``traverse``, in the order of their index.
CORNER_POLICIES = ("both", "x_first", "y_first", "none")
CORNERS_BOTH = 0
CORNERS_X_FIRST = 1
CORNERS_Y_FIRST = 2
CORNERS_NONE = 3

# ------------------------------------------------------------- numerics
#: Each component of the unit diagonal normal reported at a corner hit.
CORNER_NORMAL = 1.0 / math.sqrt(2.0)
#: Relative error bound of the float crossing order: the filtered comparison
#: errs by less than 3 units in the last place of the operands' sum, and
#: 1e-15 is about 9 of them. Closer calls are decided exactly.
FILTER = 1e-15
#: Below this, the filter's products may have lost bits to underflow: exact.
TINY = 1e-280
#: The compiled walk's proven range: every non-zero tile-space start
#: coordinate in [SAFE_SMALL, SAFE_LARGE], every direction component in
#: [SAFE_SMALL, SAFE_DIRECTION]. Other rays take the far-range walk.
SAFE_SMALL = 2.0**-300
SAFE_LARGE = 2.0**50
SAFE_DIRECTION = 2.0**300
#: Error bound of a jump's landing estimate ``v0 + (X - u0) * slope``,
#: relative to ``|estimate| + |v0|`` (about 5 units in the last place with
#: the slope rounded twice; 2e-15 is 9), plus a tiny absolute term near zero.
ESTIMATE_ERROR = 2e-15

# ---------------------------------------------------------- cell values
#: What the walk reads for a cell: solid (on the map, or beyond it when the
#: outside is solid).
SOLID = -1
#: Beyond the map, where the outside is empty.
OFF_EMPTY = -2
#: Tile info of a mixed tile: read the pixel clearance of its variant.
MIXED_TILE = -3


# ---------------------------------------------------------------- rules
def first_cell(u: float, d: float) -> int:
    """Index of the cell occupied just after ``t = 0`` along one axis.

    A start exactly on a grid line moving down the axis occupies the cell
    below the line (half-open cells).

    Examples
    --------
    >>> first_cell(2.0, -1.0), first_cell(2.0, 1.0), first_cell(2.5, -1.0)
    (1, 2, 2)
    """
    if d < 0.0:
        return math.ceil(u) - 1
    return math.floor(u)


def last_cell(u: float, d: float) -> int:
    """Index of the cell occupied just before a segment's end along one axis.

    Examples
    --------
    >>> last_cell(2.0, 1.0), last_cell(2.0, -1.0), last_cell(2.5, 1.0)
    (1, 2, 2)
    """
    if d > 0.0:
        return math.ceil(u) - 1
    return math.floor(u)


def corner_stop(
    a_solid: bool, b_solid: bool, gaps: int, i: int, j: int, sx: int, sy: int
) -> tuple[bool, int, int]:
    """Apply the diagonal-gap rule at a lattice point, from cell ``(i, j)`` along ``(sx, sy)``.

    ``a_solid``, ``b_solid``: the x-step shoulder ``(i + sx, j)`` and the
    y-step one ``(i, j + sy)``. Returns ``(stopped, stop_i, stop_j)``:
    whether the shoulders stop the ray (:data:`DIAGONAL_GAPS` index
    ``gaps``: block if both are solid, if either is, or never) and which
    shoulder is hit (the x-step one when both are solid).

    Examples
    --------
    >>> corner_stop(True, True, GAPS_BLOCK_IF_BOTH, 0, 0, 1, 1)
    (True, 1, 0)
    >>> corner_stop(False, True, GAPS_BLOCK_IF_EITHER, 0, 0, 1, -1)
    (True, 0, -1)
    >>> corner_stop(True, False, GAPS_BLOCK_IF_BOTH, 0, 0, 1, 1)[0]
    False
    """
    stopped = False
    if gaps == GAPS_BLOCK_IF_BOTH:
        stopped = a_solid and b_solid
    elif gaps == GAPS_BLOCK_IF_EITHER:
        stopped = a_solid or b_solid
    x_shoulder = a_solid or not stopped
    # one return: Numba can miscompile early returns in inlined functions
    return stopped, (i + sx if x_shoulder else i), (j if x_shoulder else j + sy)


# --------------------------------------------------------------- records
#: The layers a query's ray is stopped by, every one (DESIGN 20: ``mask``).
ALL_LAYERS = 0xFFFFFFFF


class WalkMap(NamedTuple):
    """What a walk reads of one map: one record, built once per map state (``_walkmap``).

    ``info`` (4, rows + 2, cols + 2) int8: the tile info per quadrant (a
    grid's clearance map); ``variants`` (rows, cols) int32: the variant of
    each tile; ``pixels`` (4, V, th, tw) int8: pixel clearance per variant
    (a grid: (4, 1, 1, 1), never read); ``outside_solid``; ``jump_min``:
    the least tile clearance worth a jump; the origin and the world size of
    one walk cell (a pixel; a grid's tile).
    """

    info: Any
    variants: Any
    pixels: Any
    outside_solid: bool
    jump_min: int
    origin_x: float
    origin_y: float
    cell_width: float
    cell_height: float


class MapStack(NamedTuple):
    """The maps a batch kernel walks.

    ``info`` (B, 4, rows + 2, cols + 2) int8 is the :attr:`WalkMap.info` of B
    maps of one shape and geometry (a ``GridStack``'s, or one map's as a stack
    of one); ray ``k`` of the batch walks map ``k // per_map``.
    """

    info: Any
    per_map: int


class Ray(NamedTuple):
    """One query's ray or segment, as every walk kernel takes it.

    A ray (FIRST, ALL) starts at ``(x0, y0)`` along ``(x1, y1)`` and goes
    ``max_distance`` far; a segment (SIGHT, CELLS) runs from ``(x0, y0)`` to
    ``(x1, y1)``. ``gaps``: a :data:`DIAGONAL_GAPS` index; ``corners``: a
    :data:`CORNER_POLICIES` index (CELLS); ``ignore_start`` (FIRST, ALL);
    ``mask``: the layers that block (uint32; :data:`ALL_LAYERS` until the
    maps have layers, not read yet).
    """

    x0: float
    y0: float
    x1: float
    y1: float
    max_distance: float
    gaps: int
    corners: int
    ignore_start: bool
    mask: int


class WalkState(NamedTuple):
    """Where a walk that records events (ALL, CELLS) stands.

    Cell ``(i, j)``, the next column and row lines ``(nx, ny)`` and the last
    ``t`` reported (CELLS). ``started`` False: start the walk (the other fields are not read); a
    walk that ran out of room (:data:`MORE`) answers the state to go on from.
    """

    started: bool
    i: int
    j: int
    nx: int
    ny: int
    t_prev: float


#: The state of a walk not yet started.
START = WalkState(False, 0, 0, 0, 0, 0.0)


class WalkHit(NamedTuple):
    """A walk's event: FIRST's answer (with its ``status``), and each event ALL and CELLS record.

    ``distance`` (CELLS: the segment's ``t``), the point ``(x, y)``, the
    normal, the cell ``(col, row)`` (the tile), ``inside`` (a start inside a
    wall; CELLS: a corner step) and the pixel ``(px, py)`` in the tile. A
    miss: ``inf``, NaN point, zero normal, cell and pixel ``-1``.
    """

    status: int
    distance: float
    x: float
    y: float
    normal_x: float
    normal_y: float
    col: int
    row: int
    inside: int
    px: int
    py: int


class WalkChunk(NamedTuple):
    """The answer of a walk that records events (ALL, CELLS).

    Its status, how many events it wrote, and the state to go on from
    (status :data:`MORE`).
    """

    status: int
    n_events: int
    state: WalkState


# ------------------------------------------------------ records of the batch kernels
class RayBatch(NamedTuple):
    """The rays of a batch (``raycast_many``).

    Ray k starts at ``origins[k // origin_stride]`` along ``directions[k]``
    within ``max_distances[k]`` (one direction or distance broadcasts), with
    the query's ``gaps``, ``ignore_start`` and ``mask``.
    """

    origins: Any
    directions: Any
    origin_stride: int
    max_distances: Any
    gaps: int
    ignore_start: bool
    mask: int


class FirstHits(NamedTuple):
    """A batch's first-hit outputs, row k for ray k.

    ``distance`` (N,), ``point``, ``normal`` (N, 2), ``cell``, ``pixel``
    (N, 2) int64, ``inside`` (N,) bool and ``status`` (N,) uint8: DONE, or
    UNSAFE for a ray the far-range walk decides (see
    :func:`tilecast._kernels.walk.store_first_hit`).
    """

    distance: Any
    point: Any
    normal: Any
    cell: Any
    inside: Any
    pixel: Any
    status: Any


class Beams(NamedTuple):
    """A scan's rays (``scan_many``).

    Ray k is beam ``k % B`` of ``poses[k // B]`` (x, y, theta), direction
    ``theta + angles[k % B]``, range ``max_range``.
    """

    poses: Any
    angles: Any
    max_range: float


class Shapes(NamedTuple):
    """The moving things of a scan's maps (``circles=``, ``boxes=``).

    ``circles`` (M, K, 3) ``(x, y, r)`` and ``corners`` (M, L, 4, 2), each
    box's four corners counter-clockwise; a row whose first number is NaN is
    no shape. Pose ``p`` of the scan is on map ``p // poses_per_map``.
    """

    circles: Any
    corners: Any
    poses_per_map: int
