"""Mapping: occupancy grids from scans, and AMCL's likelihood field.

:class:`OccupancyGrid` turns the scans a robot took into a map: every beam
is carved with the exact walk (the cells ``raycast`` would enter), in log
odds, scan after scan, batched and parallel. :class:`LikelihoodField` is the
sensor model nav2's AMCL uses by default: no ray casting, only the distance
from each beam's end point to the nearest wall, taken from an exact
Euclidean distance transform computed once per map (docs/mapping.md).

This module checks and shapes the input; the kernels are in
:mod:`tilecast._kernels.mapping` (carving, log-odds updates) and
:mod:`tilecast._kernels.distance` (distance transform, field evaluation).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast import _engine
from tilecast._engine import kernels
from tilecast._threads import run_each, run_tasks, thread_count
from tilecast._validate import (
    as_angles,
    as_choice,
    as_finite_float,
    as_map_shape,
    as_open_probability,
    as_path,
    as_point,
    as_poses,
    as_positive_float,
    as_scan_ranges,
)
from tilecast._walkspec import ALL_LAYERS, GAPS_OPEN, SAFE_LARGE, SAFE_SMALL
from tilecast.grid import Grid, check_map
from tilecast.world import readonly_view

__all__ = ["LikelihoodField", "OccupancyGrid"]

#: Most beams per scan (a cell's counts within a scan are packed into 32 bits).
MAX_BEAMS = 2**15 - 1
#: Most cells the carving buffer holds at once (16 MiB of int32); a chunk of scans fills
#: it. Larger chunks cost fewer thread hand-offs: on the basement benchmark 2**22 cells
#: integrate in about 0.7-0.85x the time of 2**18 (1 MiB, which stays in cache).
CHUNK_CELLS = 1 << 22
#: Cell sizes the carving is exact for (tile-space directions stay in the walk's safe range).
RESOLUTION_RANGE = (1e-60, 1e60)
#: The ``sigma_hit`` a LikelihoodField takes (``2 sigma**2`` stays a normal float).
SIGMA_RANGE = (1e-150, 1e150)
#: The largest ``pz`` the ``"amcl"`` weighting takes: a sum of 2**31 beams' ``pz**3``
#: stays finite below it.
AMCL_PZ_LIMIT = 1e99
# Layer bits of a cell (DESIGN 20): ROS maps set occupied = 1, unknown = 2.
OCCUPIED_BIT = 1
UNKNOWN_BIT = 2
# nav2 map_saver's trinary pixels (nav2_map_server/src/map_io.cpp), and the
# thresholds the YAML gives to read them back: 254 free, 205 unknown, 0 occupied.
_FREE_PIXEL, _UNKNOWN_PIXEL, _OCCUPIED_PIXEL = 254, 205, 0
_READ_OCCUPIED, _READ_FREE = 0.65, 0.196


def _balanced_bands(
    slots: NDArray[np.int64], cells: NDArray[Any], run_end: NDArray[np.int64], rows: int,
    cols: int, bands: int,
) -> list[int]:  # fmt: skip
    """Row edges of ``bands`` bands holding about as many carved cells each.

    Each beam's cells lie in a monotone run of rows; spreading its count
    evenly over those rows gives a cheap estimate of the work per row (one
    pass over the beams, not the cells). Which band a cell falls in changes
    only who updates it, never the result.

    Examples
    --------
    >>> slots, run_end = np.array([0, 4, 6]), np.array([4, 6])
    >>> cells = np.array([0, 10, 20, 30, 90, 91])  # rows 0-3, then row 9 twice (10 columns)
    >>> _balanced_bands(slots, cells, run_end, 10, 10, 2)
    [0, 3, 10]
    """
    if bands < 2:
        return [0, rows]
    starts = slots[:-1]
    used = run_end > starts
    first_row = cells[starts[used]] // cols
    last_row = cells[run_end[used] - 1] // cols
    low, high = np.minimum(first_row, last_row), np.maximum(first_row, last_row)
    density = (run_end[used] - starts[used]) / (high - low + 1)
    change = np.bincount(low, density, rows + 1) - np.bincount(high + 1, density, rows + 1)
    work = np.cumsum(np.cumsum(change[:rows]))
    if len(work) == 0 or work[-1] <= 0.0:
        return [rows * t // bands for t in range(bands + 1)]
    inner = np.searchsorted(work, work[-1] * np.arange(1, bands) / bands, side="right")
    return [0, *(int(e) for e in inner), rows]


def _logit(p: float) -> float:
    return math.log(p / (1.0 - p))


class OccupancyGrid:
    """An occupancy grid in log odds, built from range scans.

    Parameters
    ----------
    shape : (int, int)
        ``(rows, cols)`` of the map.
    resolution : float
        The side of a (square) cell in world units (metres per cell in ROS),
        within ``RESOLUTION_RANGE``.
    origin : (float, float), default (0.0, 0.0)
        World position of the corner of cell (0, 0): cell ``(i, j) = (col,
        row)`` covers ``[ox + i res, ox + (i + 1) res) x [oy + j res, oy +
        (j + 1) res)``, as in a :class:`~tilecast.Grid` of the same geometry
        (for a ROS map, row 0 is the bottom: y up).
    p_hit : float, default 0.7
        ``p(occupied | a beam ends in the cell)``, in (0.5, 1).
    p_miss : float, default 0.4
        ``p(occupied | a beam crosses the cell)``, in (0, 0.5).
    clamp : (float, float), default (0.12, 0.97)
        The probabilities a cell's log odds are clamped to after each scan
        (so that a map can still change its mind), ``0 < low < 0.5 < high < 1``.

    Notes
    -----
    Every cell starts at log odds 0 (probability 0.5, unknown). A scan
    adds ``logit(p_hit)`` to a cell once per beam that ends in it and
    ``logit(p_miss)`` once per beam that crosses it, as one sum from
    integer counts, ``L + (hits * logit(p_hit) + misses * logit(p_miss))``,
    then clamps it to ``[logit(low), logit(high)]``.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import OccupancyGrid
    >>> grid = OccupancyGrid((4, 6), resolution=0.5, origin=(-1.0, 0.0))
    >>> grid.integrate([(-0.75, 0.25, 0.0)], [[2.0]], [0.0], max_range=10.0)
    >>> (grid.log_odds[0] > 0).astype(int).tolist()  # the beam ends at x = 1.25: cell 4
    [0, 0, 0, 0, 1, 0]
    >>> (grid.log_odds[0] < 0).astype(int).tolist()  # cells 0-3 are crossed
    [1, 1, 1, 1, 0, 0]
    """

    __slots__ = ("_clamp", "_log_odds", "_origin", "_p_hit", "_p_miss", "_resolution", "_view")
    _log_odds: NDArray[np.float64]
    _view: NDArray[np.float64]

    def __init__(
        self,
        shape: tuple[int, int],
        resolution: float,
        origin: tuple[float, float] = (0.0, 0.0),
        *,
        p_hit: float = 0.7,
        p_miss: float = 0.4,
        clamp: tuple[float, float] = (0.12, 0.97),
    ) -> None:
        rows, cols = as_map_shape(shape)
        res = as_positive_float("resolution", resolution)
        if not RESOLUTION_RANGE[0] <= res <= RESOLUTION_RANGE[1]:
            raise ValueError(f"resolution must lie in {list(RESOLUTION_RANGE)}, got {res!r}")
        self._resolution = res
        self._origin = as_point("origin", origin)
        self._p_hit = as_open_probability("p_hit", p_hit)
        if not self._p_hit > 0.5:
            raise ValueError(f"p_hit must be above 0.5 (a hit is evidence of a wall), got {p_hit}")
        self._p_miss = as_open_probability("p_miss", p_miss)
        if not self._p_miss < 0.5:
            raise ValueError(f"p_miss must be below 0.5 (a miss is evidence of free space), "
                             f"got {p_miss}")  # fmt: skip
        if isinstance(clamp, str | bytes) or not hasattr(clamp, "__len__") or len(clamp) != 2:
            raise ValueError(f"clamp must be (low, high), got {clamp!r}")
        low = as_open_probability("clamp[0]", clamp[0])
        high = as_open_probability("clamp[1]", clamp[1])
        if not low < 0.5 < high:
            raise ValueError(f"clamp must have low < 0.5 < high, got ({low}, {high})")
        self._clamp = (low, high)
        self._log_odds = np.zeros((rows, cols))
        self._view = readonly_view(self._log_odds)

    # ------------------------------------------------------------------ basics
    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the map."""
        rows, cols = self._log_odds.shape
        return (rows, cols)

    @property
    def resolution(self) -> float:
        """The side of a cell in world units."""
        return self._resolution

    @property
    def origin(self) -> tuple[float, float]:
        """World position of the corner of cell (0, 0)."""
        return self._origin

    @property
    def log_odds(self) -> NDArray[np.float64]:
        """Read-only view of the log odds, indexed ``[row, col]`` (0: unknown)."""
        return self._view

    @property
    def probability(self) -> NDArray[np.float64]:
        """``p(occupied)`` of each cell, ``1 - 1 / (1 + exp(L))``, a new (rows, cols) array.

        Examples
        --------
        >>> from tilecast import OccupancyGrid
        >>> grid = OccupancyGrid((1, 3), resolution=1.0)
        >>> grid.integrate([(0.5, 0.5, 0.0)], [[1.0]], [0.0], max_range=5.0)
        >>> grid.probability.round(3).tolist()
        [[0.4, 0.7, 0.5]]
        """
        log_odds_probability = kernels("mapping").log_odds_probability
        out = np.empty(self._log_odds.shape)
        log_odds_probability(self._log_odds.reshape(-1), out.reshape(-1))
        return out

    def __repr__(self) -> str:
        rows, cols = self.shape
        return f"OccupancyGrid({rows}x{cols}, resolution={self._resolution}, origin={self._origin})"

    # -------------------------------------------------------------- integrate
    def integrate(self, poses: Any, ranges: Any, angles: Any, max_range: float) -> None:
        """Carve scans into the map, in order: misses along each beam, a hit where it ends.

        Parameters
        ----------
        poses : array_like, shape (N, 3)
            The sensor's pose ``(x, y, theta)`` for each scan, in world units
            and radians.
        ranges : array_like, shape (N, R)
            The measured ranges, non-negative; ``inf`` (or anything at or
            beyond ``max_range``) is a beam with no return. NaN is refused
            (an invalid reading, REP 117): give ``inf`` for "no return".
        angles : array_like, shape (R,)
            Beam angles relative to each pose's ``theta`` (at most
            ``MAX_BEAMS``, 32767).
        max_range : float
            The sensor's range, finite and positive.

        Notes
        -----
        Beam ``b`` of scan ``p`` runs from the pose along
        ``(cos(theta + angles[b]), sin(theta + angles[b]))`` (the direction
        :func:`~tilecast.scan_many` casts, :func:`tilecast.batch.beam_directions`)
        for ``d = min(ranges[p, b], max_range)``. Its cells are those the
        exact walk enters within ``d`` (inclusive), as ``raycast_all`` enters
        them on an all-solid map with ``diagonal_gaps="open"``: at a lattice
        point the beam goes on to the diagonal cell, the two shoulder cells
        being touched at one point only. With a return (range below
        ``max_range``) every cell before the last is a miss and the last, the
        cell the beam enters at ``d`` (where ``raycast`` reports the hit, so
        the exact ranges of ``scan_many`` mark the wall), is a hit. With no
        return every cell before the last is a miss and the cell holding the
        point at ``max_range`` is left alone. Cells off the map are skipped.

        Scans are applied in order, each as the class Notes say, so the map
        does not depend on the number of threads nor on how the scans are
        split across calls. Errors are raised before any cell changes.

        Examples
        --------
        >>> import numpy as np
        >>> from tilecast import Grid, OccupancyGrid, scan_many
        >>> walls = np.zeros((5, 5), bool)
        >>> walls[:, 4] = True
        >>> poses = np.array([(1.5, 2.5, 0.0), (1.5, 1.5, 0.0)])
        >>> angles = np.array([0.0, np.pi])
        >>> ranges = scan_many(Grid(walls), poses, angles, 10.0)  # the wall at x = 4
        >>> ranges.tolist()
        [[2.5, 10.0], [2.5, 10.0]]
        >>> grid = OccupancyGrid((5, 5), resolution=1.0)
        >>> grid.integrate(poses, ranges, angles, max_range=10.0)
        >>> np.sign(grid.log_odds).astype(int)[1:3].tolist()
        [[-1, -1, -1, -1, 1], [-1, -1, -1, -1, 1]]
        """
        pose_array = as_poses(poses)
        angle_array = as_angles(angles)
        n_poses, n_beams = len(pose_array), len(angle_array)
        if n_beams > MAX_BEAMS:
            raise ValueError(f"angles must hold at most {MAX_BEAMS} beams per scan, got {n_beams}")
        range_array = as_scan_ranges(ranges, n_poses, n_beams)
        limit = as_positive_float("max_range", max_range)
        self._check_poses(pose_array, angle_array)
        if n_poses * n_beams == 0:
            return
        beam_bounds = kernels("mapping").beam_bounds
        rows, cols = self.shape
        bounds = np.empty(n_poses * n_beams, dtype=np.int64)
        beam_bounds(pose_array, range_array, angle_array, limit, self._resolution, rows + cols,
                    bounds)  # fmt: skip
        per_scan = bounds.reshape(n_poses, n_beams).sum(axis=1)
        # per cell, within a scan: misses + HIT_UNIT * hits (kept zero between scans)
        counts = np.zeros(rows * cols, dtype=np.int32)
        first = 0
        while first < n_poses:
            end = first + 1  # at least one scan per chunk
            total = int(per_scan[first])
            while end < n_poses and total + per_scan[end] <= CHUNK_CELLS:
                total += int(per_scan[end])
                end += 1
            chunk_bounds = bounds[first * n_beams : end * n_beams]
            self._integrate_chunk(pose_array[first:end], range_array[first:end], angle_array,
                                  limit, chunk_bounds, first, counts)  # fmt: skip
            first = end

    def _check_poses(self, poses: NDArray[np.float64], angles: NDArray[np.float64]) -> None:
        """Raise naming ``poses[k]`` where a beam cannot be carved exactly.

        The compiled walk is exact for cell coordinates 0 or of magnitude in
        [2**-300, 2**50]; beyond, a beam from a pose on the map takes the
        exact plain-Python walk (slow, rare: a pose within 1e-90 cells of a
        grid line but not on it, a direction within about 1e-90 of an axis).
        A pose off the map must be in that range, beams included.
        """
        (ox, oy), res = self._origin, self._resolution
        with np.errstate(over="ignore"):
            tile = np.column_stack([(poses[:, 0] - ox) / res, (poses[:, 1] - oy) / res])
        rows, cols = self.shape
        off_map = ~(
            (tile[:, 0] >= 0) & (tile[:, 0] < cols) & (tile[:, 1] >= 0) & (tile[:, 1] < rows)
        )
        bad = _unsafe(tile).any(axis=1) & off_map
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(
                f"poses[{k}] = {tuple(poses[k].tolist())} lies off the map, too far from its "
                f"origin (or too close to a grid line but not on it) for exact carving: its "
                f"cell coordinates must be 0 or of magnitude within [2**-300, 2**50]"
            )
        off = np.flatnonzero(off_map)
        if len(off) == 0 or len(angles) == 0:
            return
        from tilecast.batch import beam_directions

        directions = beam_directions(poses[off], angles)
        _, exponent = np.frexp(np.abs(directions).max(axis=1))
        scaled = np.ldexp(directions, (1 - exponent)[:, None]) / res
        beam_bad = _unsafe(scaled, 2.0**300).reshape(len(off), len(angles) * 2).any(axis=1)
        if beam_bad.any():
            k = int(off[np.argmax(beam_bad)])
            raise ValueError(
                f"poses[{k}] lies off the map and one of its beams runs within about 1e-90 "
                "radians of an axis: it cannot be carved exactly from there"
            )

    def _integrate_chunk(
        self, poses: NDArray[np.float64], ranges: NDArray[np.float64],
        angles: NDArray[np.float64], max_range: float, bounds: NDArray[np.int64], first_pose: int,
        counts: NDArray[np.int32],
    ) -> None:  # fmt: skip
        """Carve a chunk of scans (pass 1, parallel over beams), then apply them (pass 2, bands)."""
        compiled = kernels("mapping")
        overflow, unsafe = compiled.OVERFLOW, compiled.UNSAFE
        apply_band, carve_range = compiled.apply_band, compiled.carve_range
        rows, cols = self.shape
        n = len(bounds)
        slots = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(bounds, out=slots[1:])
        # flat cell indices: int32 where they fit (half the memory traffic)
        cells = np.empty(int(slots[-1]), dtype=np.int32 if rows * cols < 2**31 else np.int64)
        run_end = np.empty(n, dtype=np.int64)
        end_cell = np.empty(n, dtype=np.int64)
        status = np.empty(n, dtype=np.uint8)
        frame = (*self._origin, self._resolution, max_range)
        size = (rows, cols)
        run_tasks(lambda lo, hi: carve_range(lo, hi, poses, ranges, angles, frame, size, slots,
                                             cells, run_end, end_cell, status), n)  # fmt: skip
        for k in np.flatnonzero(status == unsafe).tolist():  # rare: a beam along an axis
            self._carve_exactly(poses, ranges, angles, max_range, k, slots, cells, run_end,
                                end_cell)  # fmt: skip
        if (status == overflow).any():  # never expected
            k = int(np.argmax(status == overflow))
            raise RuntimeError(
                f"poses[{first_pose + k // len(angles)}]: beam {k % len(angles)} crossed more "
                "cells than its bound (please report this); the map holds the scans before it"
            )
        low, high = self._clamp
        update = (_logit(self._p_hit), _logit(self._p_miss), _logit(low), _logit(high))
        beams = (slots, cells, run_end, end_cell)
        flat = self._log_odds.reshape(-1)
        bands = min(thread_count(), rows)
        edges = _balanced_bands(slots, cells, run_end, rows, cols, bands)

        def band(t: int) -> None:
            r0, r1 = edges[t], edges[t + 1]
            touched = np.empty((r1 - r0) * cols, dtype=cells.dtype)
            apply_band(r0, r1, cols, len(poses), beams, flat, update, (counts, touched))

        run_each(band, bands)

    def _carve_exactly(
        self, poses: NDArray[np.float64], ranges: NDArray[np.float64],
        angles: NDArray[np.float64], max_range: float, k: int, slots: NDArray[np.int64],
        cells: NDArray[np.signedinteger[Any]], run_end: NDArray[np.int64],
        end_cell: NDArray[np.int64],
    ) -> None:  # fmt: skip
        """Carve beam k (from a pose on the map) with the exact plain-Python walk.

        ``raycast_all`` on an all-solid map with a solid outside enters every
        map cell the beam enters, then, if it leaves the map within range,
        the first cell beyond it: the same cells the compiled walk finds.
        """
        from tilecast.batch import beam_directions

        n_beams = len(angles)
        p, b = divmod(k, n_beams)
        rows, cols = self.shape
        solid = Grid(np.ones((rows, cols), bool), tile_size=self._resolution,
                     origin=self._origin, outside="solid")  # fmt: skip
        direction = beam_directions(poses[p : p + 1], angles[b : b + 1])[0]
        r = float(ranges[p, b])
        returned = r < max_range
        hits = _engine.far_all_hits(solid, (float(poses[p, 0]), float(poses[p, 1])),
                                    (float(direction[0]), float(direction[1])),
                                    r if returned else max_range, GAPS_OPEN, False,
                                    "poses")  # fmt: skip
        visited = [hit.cell for hit in hits]  # the first is the start cell, on the map
        on_map = [0 <= i < cols and 0 <= j < rows for i, j in visited]
        crossed = [j * cols + i for (i, j), inside in zip(visited[:-1], on_map, strict=False)
                   if inside]  # fmt: skip
        if len(crossed) > slots[k + 1] - slots[k]:
            raise RuntimeError(f"poses[{p}]: beam {b} crossed more cells than its bound")
        cells[slots[k] : slots[k] + len(crossed)] = crossed
        run_end[k] = slots[k] + len(crossed)
        last_i, last_j = visited[-1]
        end_cell[k] = last_j * cols + last_i if returned and on_map[-1] else -1

    # ------------------------------------------------------------------ export
    def _layer_bits(self, occupied: Any, free: Any) -> NDArray[np.uint32]:
        """Layer bits per cell (DESIGN 20): OCCUPIED_BIT, UNKNOWN_BIT or 0 (free), [row, col]."""
        occupied_p = as_finite_float("occupied", occupied)
        free_p = as_finite_float("free", free)
        if not 0.0 <= free_p <= occupied_p <= 1.0:
            raise ValueError(f"need 0 <= free <= occupied <= 1, got free={free_p}, "
                             f"occupied={occupied_p}")  # fmt: skip
        p = self.probability
        # nav2's reading of a map (map_io.cpp, trinary): occupied above the
        # threshold, free below the other, unknown in between
        bits = np.full(p.shape, UNKNOWN_BIT, dtype=np.uint32)
        bits[p > occupied_p] = OCCUPIED_BIT
        bits[p < free_p] = 0
        return bits

    def to_grid(
        self, occupied: float = 0.65, free: float = 0.196, *, outside: str = "solid"
    ) -> Grid:
        """Return the map as a :class:`~tilecast.Grid` of the same geometry, for ray casting.

        A cell is occupied where its probability is above ``occupied``, free
        where it is below ``free``, unknown in between (nav2's ``trinary``
        rule). The grid's cells carry layer bits (DESIGN 20): occupied cells
        are on layer 1, unknown ones on layer 2, free ones on none; so a
        query with ``mask=1`` reads unknown space as free, and the default
        mask (or ``mask=3``) as a wall. :func:`tilecast.io.load_ros_map`
        reads the map :meth:`save_ros` writes back with the same bits.

        Parameters
        ----------
        occupied, free : float
            Probability thresholds, ``0 <= free <= occupied <= 1``.
        outside : {"solid", "empty"}, default "solid"
            Passed to :class:`~tilecast.Grid`.

        Returns
        -------
        Grid
            ``tile_size`` the resolution, ``origin`` the map's origin.

        Examples
        --------
        >>> from tilecast import OccupancyGrid
        >>> grid = OccupancyGrid((1, 4), resolution=1.0)
        >>> grid.integrate([(0.5, 0.5, 0.0)] * 6, [[2.0]] * 6, [0.0], max_range=5.0)
        >>> grid.to_grid().layers.tolist()  # free, free, occupied, unknown (never seen)
        [[0, 0, 1, 2]]
        >>> grid.to_grid().masked(1).solid.astype(int).tolist()  # unknown read as free
        [[0, 0, 1, 0]]
        """
        as_choice("outside", outside, ("empty", "solid"))
        bits = self._layer_bits(occupied, free)
        return Grid(bits, tile_size=self._resolution, origin=self._origin, outside=outside)

    def save_ros(self, path: Any, occupied: float = 0.65, free: float = 0.196) -> Path:
        """Write the map as a ROS map: a YAML file and a PGM image beside it.

        Cells are classified as :meth:`to_grid` does and written as nav2's
        ``map_saver`` writes a ``trinary`` map (``nav2_map_server/src/map_io.cpp``):
        free 254, unknown 205, occupied 0, the image's top row the map's last
        row (y up). The YAML gives ``image``, ``mode: trinary``,
        ``resolution``, ``origin: [x, y, 0.0]``, ``negate: 0`` and the
        thresholds that read those three values back (``occupied_thresh:
        0.65``, ``free_thresh: 0.196``: 205 is ``occ = 0.19608``, just above
        it, so unknown; nav2's saver default of 0.25 would read it as free).
        nav2's ``map_server`` and :func:`tilecast.io.load_ros_map` read it back
        with the same cells, resolution and origin (floats written exactly).

        Parameters
        ----------
        path : str or os.PathLike
            The YAML file to write (``.yaml`` or ``.yml``); the image is the
            same name with ``.pgm``. Its folder must exist.
        occupied, free : float
            Probability thresholds, as for :meth:`to_grid`.

        Returns
        -------
        pathlib.Path
            The YAML file written.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from tilecast import OccupancyGrid
        >>> from tilecast.io import load_ros_map
        >>> grid = OccupancyGrid((2, 4), resolution=0.05, origin=(-1.0, 2.0))
        >>> grid.integrate([(-0.975, 2.025, 0.0)] * 4, [[0.1]] * 4, [0.0], max_range=5.0)
        >>> yaml_path = grid.save_ros(pathlib.Path(tempfile.mkdtemp()) / "map.yaml")
        >>> print(yaml_path.read_text().strip())
        image: map.pgm
        mode: trinary
        resolution: 0.05
        origin: [-1.0, 2.0, 0.0]
        negate: 0
        occupied_thresh: 0.65
        free_thresh: 0.196
        >>> load_ros_map(yaml_path, unknown="solid").solid.astype(int).tolist()
        [[0, 0, 1, 1], [1, 1, 1, 1]]
        """
        yaml_path = as_path("path", path)
        if yaml_path.suffix.lower() not in (".yaml", ".yml"):
            raise ValueError(f"path must name a .yaml (or .yml) file, got {str(yaml_path)!r}")
        if not yaml_path.parent.is_dir():
            raise ValueError(f"path {str(yaml_path)!r}: its folder {str(yaml_path.parent)!r} "
                             "does not exist")  # fmt: skip
        bits = self._layer_bits(occupied, free)
        pixels = np.full(bits.shape, _UNKNOWN_PIXEL, dtype=np.uint8)
        pixels[bits == OCCUPIED_BIT] = _OCCUPIED_PIXEL
        pixels[bits == 0] = _FREE_PIXEL
        rows, cols = bits.shape
        image_path = yaml_path.with_suffix(".pgm")
        header = f"P5\n{cols} {rows}\n255\n".encode("ascii")
        image_path.write_bytes(header + pixels[::-1].tobytes())  # top image row: last map row
        ox, oy = self._origin
        yaml_path.write_text(
            f"image: {image_path.name}\n"
            "mode: trinary\n"
            f"resolution: {_yaml_float(self._resolution)}\n"
            f"origin: [{_yaml_float(ox)}, {_yaml_float(oy)}, 0.0]\n"
            "negate: 0\n"
            f"occupied_thresh: {_READ_OCCUPIED}\n"
            f"free_thresh: {_READ_FREE}\n",
            encoding="utf-8",
        )
        return yaml_path


def _unsafe(values: NDArray[np.float64], large: float = SAFE_LARGE) -> NDArray[np.bool_]:
    """Where tile-space numbers leave the compiled walk's proven range (0 is in it)."""
    size = np.abs(values)
    out: NDArray[np.bool_] = ~np.isfinite(values) | (
        (size != 0.0) & ((size < SAFE_SMALL) | (size > large))
    )
    return out


def _yaml_float(value: float) -> str:
    """``repr(value)`` (exact) in a form YAML 1.1 reads as a float: ``1e-05`` -> ``1.0e-05``.

    Examples
    --------
    >>> [_yaml_float(v) for v in (0.05, 1e-05, 2e20, -3.0)]
    ['0.05', '1.0e-05', '2.0e+20', '-3.0']
    """
    text = repr(float(value))
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


class LikelihoodField:
    """nav2 AMCL's likelihood field model, for :func:`~tilecast.scan_likelihood`.

    For each beam with a reading ``z`` below ``max_range``, the end point
    ``pose + z (cos(theta + a), sin(theta + a))`` is found, and ``d`` is the
    distance from the cell holding it to the nearest blocking cell (cell
    centre to cell centre, exact Euclidean distance transform, in world
    units), capped at ``max_distance``; an end point off the map gets
    ``max_distance``. Then, as in nav2_amcl's
    ``src/sensors/laser/likelihood_field_model.cpp`` (ros-navigation/navigation2
    at commit 15d0062d72d27026fa5c2d37126764e4fd72d054,
    ``LikelihoodFieldModel::sensorFunction``)::

        pz = z_hit * exp(-d**2 / (2 sigma_hit**2)) + z_rand / max_range

    The Gaussian is not normalised (AMCL's own note). Readings at or beyond
    ``max_range`` are skipped, as AMCL skips them.

    Parameters
    ----------
    grid : Grid or 2D bool array
        The map; its solid cells are the obstacles. Cells beyond the map
        are not (AMCL's map has no outside): an end point off the map gets
        ``max_distance`` whatever ``outside`` says. The distance transform
        is computed here, once, and again after ``grid.set_solid``.
    sigma_hit : float
        Standard deviation of the hit part, world units, in [1e-150, 1e150].
    z_hit, z_rand : float
        Weights of the hit and random parts (>= 0, not both 0). A query
        whose largest ``pz`` would overflow (or, with ``"amcl"``, whose sum
        of cubes would) is refused with a ``ValueError``.
    max_distance : float
        Where distances are capped (AMCL's ``laser_likelihood_max_dist``), > 0.
    weighting : {"product", "amcl"}, default "product"
        How beams combine. ``"product"`` (the model of Probabilistic
        Robotics, Table 6.3): ``scan_likelihood`` returns ``sum_b log pz_b``,
        the log of the product, as its contract says. ``"amcl"``: AMCL's
        ad-hoc rule, the weight factor ``1 + sum_b pz_b**3`` (summed from 1.0
        in beam order), returned as its log; its ratios between poses are
        far flatter than the product's.

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import Grid, LikelihoodField
    >>> grid = Grid(np.pad(np.zeros((6, 6), bool), 1, constant_values=True))
    >>> field = LikelihoodField(grid, sigma_hit=0.5, z_hit=0.9, z_rand=0.1, max_distance=2.0)
    >>> field.distance[3].tolist()  # row 3: from each cell to the nearest wall cell
    [0.0, 1.0, 2.0, 3.0, 3.0, 2.0, 1.0, 0.0]

    A scan whose end points fall on the walls from the first pose:

    >>> from tilecast import scan_likelihood
    >>> poses = [(3.5, 3.5, 0.0), (2.5, 3.5, 0.0)]
    >>> ll = scan_likelihood(grid, poses, [0.0, np.pi], [3.5, 3.0], max_range=10.0, model=field)
    >>> np.round(ll, 4).tolist()  # distances 0, 0 and 1, off the map (2)
    [-0.1886, -6.6019]
    """

    __slots__ = ("_cache", "_grid", "_source", "max_distance",
                 "sigma_hit", "weighting", "z_hit", "z_rand")  # fmt: skip

    def __init__(
        self,
        grid: Grid | np.ndarray,
        sigma_hit: float,
        z_hit: float,
        z_rand: float,
        max_distance: float,
        *,
        weighting: str = "product",
    ) -> None:
        world = check_map(grid)
        if not isinstance(world, Grid):
            raise TypeError(f"grid must be a tilecast.Grid or a 2D bool array, "
                            f"got {type(grid).__name__}")  # fmt: skip
        self.sigma_hit = as_positive_float("sigma_hit", sigma_hit)
        if not SIGMA_RANGE[0] <= self.sigma_hit <= SIGMA_RANGE[1]:
            # AMCL's 2 sigma**2 must be a normal float: no overflow, no 0 / 0
            raise ValueError(
                f"sigma_hit must lie in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}], "
                f"got {self.sigma_hit!r}"
            )
        self.z_hit = as_finite_float("z_hit", z_hit)
        self.z_rand = as_finite_float("z_rand", z_rand)
        for name, value in (("z_hit", self.z_hit), ("z_rand", self.z_rand)):
            if value < 0.0:
                raise ValueError(f"{name} must be non-negative, got {value!r}")
        if not self.z_hit + self.z_rand > 0.0:
            raise ValueError("z_hit + z_rand must be positive, got 0.0")
        self.max_distance = as_positive_float("max_distance", max_distance)
        self.weighting = as_choice("weighting", weighting, ("product", "amcl"))
        self._source = grid
        self._grid = world
        # max_range -> (the distances it was made from, the per-cell table)
        self._cache: dict[float, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
        self._distances()  # computed now, not in the first query

    @property
    def grid(self) -> Grid:
        """The map the field belongs to."""
        return self._grid

    @property
    def distance(self) -> NDArray[np.float64]:
        """Exact distance from each cell to the nearest solid cell, world units, [row, col].

        Not capped (``inf`` on a map without solid cells); read-only.

        Examples
        --------
        >>> from tilecast import Grid, LikelihoodField
        >>> field = LikelihoodField(Grid([[1, 0, 0]], tile_size=0.5), 0.2, 0.9, 0.1, 5.0)
        >>> field.distance.tolist()
        [[0.0, 0.5, 1.0]]
        """
        return self._distances()

    def _distances(self, mask: int = ALL_LAYERS) -> NDArray[np.float64]:
        """Return the distance transform of the cells ``mask`` sees: kept, remade after an edit."""
        distances: NDArray[np.float64] = self._grid.masked(mask).snapshot(
            "distance transform", _read_only_distances
        )
        return distances

    def _table(self, max_range: float, mask: int = ALL_LAYERS) -> NDArray[np.float64]:
        """Per-cell ``log pz`` (product) or ``pz**3`` (amcl) for readings of this sensor range."""
        top = self.z_hit + self.z_rand / max_range  # pz at distance 0, its largest value
        if not math.isfinite(top) or (self.weighting == "amcl" and top > AMCL_PZ_LIMIT):
            raise ValueError(
                f"z_hit and z_rand are too large for this model: pz = z_hit + z_rand / "
                f"max_range reaches {top:g}, and "
                + ("AMCL's sum of pz**3 would overflow a float" if math.isfinite(top)
                   else "overflows a float")
            )  # fmt: skip
        distances = self._distances(mask)
        cached = self._cache.get(max_range)
        if cached is not None and cached[0] is distances:
            return cached[1]
        pz = self._pz(np.minimum(distances, self.max_distance), max_range)
        with np.errstate(divide="ignore"):  # pz = 0: log is -inf, as the sum of logs is
            table = np.ascontiguousarray(pz**3 if self.weighting == "amcl" else np.log(pz))
        self._cache = {max_range: (distances, table)}  # the sensor's range rarely changes
        return table

    def _pz(self, d: Any, max_range: float) -> Any:
        """AMCL's ``pz`` at distance(s) ``d``."""
        return self.z_hit * np.exp(-(d * d) / (2.0 * self.sigma_hit**2)) + self.z_rand / max_range

    def _evaluate(
        self, grid: Any, poses: NDArray[np.float64], angles: NDArray[np.float64],
        observed: NDArray[np.float64], max_range: float, out: NDArray[np.float64],
        mask: int = ALL_LAYERS,
    ) -> None:  # fmt: skip
        """Write the scan log-likelihood of each pose to ``out`` (``scan_likelihood``'s work).

        The obstacles are the cells ``mask`` selects (a distance transform per mask in use).
        """
        if grid is not self._source and grid is not self._grid:
            raise ValueError("grid must be the map the LikelihoodField was built on")
        field_log_likelihood = kernels("distance").field_log_likelihood
        table = self._table(max_range, mask)
        used = observed < max_range  # AMCL skips max-range readings
        beam_angles = np.ascontiguousarray(angles[used])
        readings = np.ascontiguousarray(observed[used])
        off_pz = float(self._pz(np.float64(self.max_distance), max_range))
        with np.errstate(divide="ignore"):
            off = off_pz**3 if self.weighting == "amcl" else float(np.log(off_pz))
        (ox, oy), (w, h) = self._grid.origin, self._grid.tile_size
        frame = (ox, oy, w, h, off)
        cube = self.weighting == "amcl"
        run_tasks(lambda lo, hi: field_log_likelihood(lo, hi, poses, beam_angles, readings, table,
                                                      frame, cube, out), len(poses),
                  max(1, 8192 // max(1, len(readings))))  # fmt: skip


def _read_only_distances(grid: Any) -> NDArray[np.float64]:
    """Return the distance transform of a grid's solid cells, read-only (a snapshot)."""
    distances: NDArray[np.float64] = distance_transform(grid.solid, grid.tile_size)
    distances.flags.writeable = False
    return distances


def distance_transform(blocking: Any, tile_size: tuple[float, float] = (1.0, 1.0)) -> Any:
    """Exact Euclidean distance from each cell to the nearest blocking cell, in world units.

    Cell centre to cell centre, with cells ``tile_size = (w, h)`` wide and
    high: ``scipy.ndimage.distance_transform_edt(~blocking, sampling=(h, w))``,
    compiled (Felzenszwalb and Huttenlocher's two passes, in parallel). For
    square cells the squared distance is an exact integer and the result
    ``w * sqrt(it)``; ``inf`` everywhere on a map without blocking cells.

    Parameters
    ----------
    blocking : array_like of bool, shape (rows, cols)
        The obstacles.
    tile_size : (float, float), default (1.0, 1.0)
        Cell width and height.

    Returns
    -------
    ndarray of float64, shape (rows, cols)

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast.mapping import distance_transform
    >>> distance_transform(np.array([[1, 0, 0], [0, 0, 0]], bool)).round(4).tolist()
    [[0.0, 1.0, 2.0], [1.0, 1.4142, 2.2361]]
    """
    column_pass, row_pass = kernels("distance").column_pass, kernels("distance").row_pass
    cells = np.ascontiguousarray(np.asarray(blocking, dtype=np.bool_))
    if cells.ndim != 2:
        raise ValueError(f"blocking must be 2D (rows, cols), got {cells.ndim} dimensions")
    w, h = float(tile_size[0]), float(tile_size[1])
    rows, cols = cells.shape
    g = np.empty((rows, cols))
    out = np.empty((rows, cols))
    if cells.size == 0:
        return out
    run_tasks(lambda lo, hi: column_pass(lo, hi, cells, g), cols, max(64, -(-cols // 8)))
    ratio = h / w
    run_tasks(lambda lo, hi: row_pass(lo, hi, g, ratio, w, out), rows, max(16, -(-rows // 8)))
    return out
