"""Particle-filter sensor models: ``scan_likelihood`` and ``BeamModel``.

A Monte Carlo localisation step asks, for each of N poses, how likely the
measured scan is given the map: the exact ranges the pose would see
(``scan_many``), then ``log p(observed | expected)`` summed over the beams.
``scan_likelihood`` does both in one call, a chunk of poses at a time, so the
(N, B) ranges never exist as one array. The sensor model is the beam model of
Probabilistic Robotics (section 6.3) or a lookup table as range_libc's
``set_sensor_model`` takes it (docs/sensor.md).

This module checks and shapes the input; the kernels are in
:mod:`tilecast._kernels.sensor`, the chunked cast in :mod:`tilecast.batch`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tilecast._engine import kernels
from tilecast._validate import (
    as_angles,
    as_finite_float,
    as_likelihood_table,
    as_mask,
    as_max_range,
    as_observed,
    as_poses,
    as_positive_float,
    as_real_array,
    as_stack_array,
    check_out,
)
from tilecast._walkspec import ALL_LAYERS
from tilecast.batch import _shapes, _shapes_allowed, scan_in_chunks, stack_scan_in_chunks
from tilecast.grid import Grid, check_map
from tilecast.mapping import LikelihoodField
from tilecast.stack import GridStack
from tilecast.tiles import TileMap

__all__ = ["BeamModel", "scan_likelihood"]

_FLOAT64 = (np.dtype(np.float64),)


@dataclass(frozen=True)
class BeamModel:
    """The beam model of a range finder (Probabilistic Robotics, section 6.3).

    ``p(z | z*)`` for a reading ``z`` where the map says ``z*`` (the exact
    range, at most ``max_range``) mixes four parts, all on [0, max_range]:

    - hit: a Gaussian around ``z*`` (``sigma_hit``), normalised on [0, max_range];
    - short: an exponential ``lambda_short * exp(-lambda_short * z)`` for
      ``z <= z*``, normalised on [0, z*] (an unexpected obstacle; none when
      ``z* == 0``);
    - max: a point mass at ``max_range`` (no return: readings at or beyond
      ``max_range`` count as ``max_range``);
    - rand: uniform on [0, max_range).

    Parameters
    ----------
    z_hit, z_short, z_max, z_rand : float
        The weights of the four parts: non-negative, with a positive sum.
        They are divided by their sum, so the mixture integrates to one
        whatever their scale.
    sigma_hit : float
        Standard deviation of the hit part, in world units (> 0).
    lambda_short : float
        Rate of the short part, per world unit (> 0).

    Examples
    --------
    >>> from tilecast import BeamModel
    >>> model = BeamModel(0.75, 0.01, 0.07, 0.12, sigma_hit=0.4, lambda_short=0.1)
    >>> model.sigma_hit
    0.4
    >>> BeamModel(0.0, 0.0, 0.0, 0.0, 1.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: z_hit + z_short + z_max + z_rand must be positive, got 0.0
    """

    z_hit: float
    z_short: float
    z_max: float
    z_rand: float
    sigma_hit: float
    lambda_short: float

    def __post_init__(self) -> None:
        total = 0.0
        for name in ("z_hit", "z_short", "z_max", "z_rand"):
            value = as_finite_float(name, getattr(self, name))
            if value < 0.0:
                raise ValueError(f"{name} must be non-negative, got {value!r}")
            object.__setattr__(self, name, value)
            total += value
        if not total > 0.0:
            raise ValueError(f"z_hit + z_short + z_max + z_rand must be positive, got {total!r}")
        for name in ("sigma_hit", "lambda_short"):
            object.__setattr__(self, name, as_positive_float(name, getattr(self, name)))

    def _weights(self) -> NDArray[np.float64]:
        """Return the four weights divided by their sum."""
        weights = np.array([self.z_hit, self.z_short, self.z_max, self.z_rand])
        normalised: NDArray[np.float64] = weights / weights.sum()
        return normalised


def scan_likelihood(
    grid: Grid | TileMap | GridStack | np.ndarray,
    poses: Any,
    angles: Any,
    observed: Any,
    *,
    max_range: float,
    model: BeamModel | LikelihoodField | None = None,
    table: Any = None,
    table_resolution: float | None = None,
    out: Any = None,
    mask: int = ALL_LAYERS,
    circles: Any = None,
    boxes: Any = None,
) -> NDArray[np.float64]:
    """Log-likelihood of a measured scan for each pose, shape (N,).

    ``result[p] = sum over beams b of log p(observed[b] | expected[p, b])``,
    where ``expected`` is exactly what :func:`scan_many` returns for the same
    poses, angles and ``max_range`` (float64). The ranges are cast a chunk of
    poses at a time (about 260,000 rays) into a buffer the chunks share, and
    evaluated there in parallel: the
    (N, B) array is never built. The beams are summed in order, in float64.

    Parameters
    ----------
    grid : Grid, TileMap, GridStack or 2D bool array
        The map (robotics maps usually want ``outside="solid"``). On a
        :class:`~tilecast.GridStack` of B maps (B filters at once), ``poses``
        is ``(B, N, 3)``, ``observed`` ``(B, R)`` (each map's measured scan)
        and the result ``(B, N)``: row b is exactly ``scan_likelihood(stack[b],
        poses[b], angles, observed[b], ...)``, all maps cast in one compiled
        call (a ``BeamModel`` or a ``table``; a ``LikelihoodField`` belongs to
        one map).
    poses : array_like, shape (N, 3)
        ``(x, y, theta)`` per pose (particle), in world units and radians.
    angles : array_like, shape (B,)
        Beam angles relative to each pose's ``theta``.
    observed : array_like, shape (B,)
        The measured ranges, finite and non-negative, in world units.
    max_range : float
        The sensor's range: a beam that hits nothing expects ``max_range``.
        ``inf`` is allowed with a ``table`` (such beams then use the table's
        last column), not with a ``model`` (whose max and random parts live
        on [0, max_range]).
    model : BeamModel or LikelihoodField, optional
        The beam model of Probabilistic Robotics 6.3 (see :class:`BeamModel`),
        or nav2 AMCL's likelihood field (see :class:`~tilecast.LikelihoodField`,
        built on this ``grid``): it casts no rays, skips readings at or beyond
        ``max_range`` and takes ``max_range`` for its random part (``inf``
        allowed: no random part).
    table : array_like, shape (R, C), optional
        ``table[observed_index, expected_index]``: the probability of the
        reading given the expected range, finite and non-negative, as
        range_libc's ``set_sensor_model`` takes it. Give exactly one of
        ``model`` and ``table``.
    table_resolution : float
        With ``table``: the range of one table step, in world units. A range
        ``r`` has index ``min(round(r / table_resolution), len - 1)``
        (``len`` is R for the observed index, C for the expected one),
        rounding half to even (as :func:`numpy.rint`): with unit steps,
        2.5 is index 2 and 3.5 index 4.
    out : ndarray of float64, shape (N,), optional
        A C-contiguous, writable array to fill and return.
    mask : int, default ALL_LAYERS
        The collision layers the beams see (as for :func:`~tilecast.raycast`);
        with a ``LikelihoodField``, the cells its distances are measured to
        (one distance transform per mask in use). On a ``GridStack`` a cell
        blocks when ``layers & mask != 0``.
    circles, boxes : array_like, optional
        Moving things the beams stop on, as for :func:`scan_many`: ``(K, 3)``
        circles ``(x, y, r)`` and ``(K, 5)`` oriented boxes ``(cx, cy, half_w,
        half_h, angle)``, ``(B, K, 3)`` and ``(B, K, 5)`` on a ``GridStack``;
        ``expected`` is then exactly ``scan_many(..., circles=, boxes=)``.
        With a ``BeamModel`` or a ``table``, on a ``Grid`` or ``GridStack``.

    Returns
    -------
    ndarray of float64, shape (N,)
        ``out`` if given. ``-inf`` where a beam has probability 0 (a zero in
        the table, or a model without a random part far from every wall).

    Notes
    -----
    With a table, the logarithms of the rows the observed scan uses are
    taken once per call (NumPy, ``len(set(observed indices)) * C`` of them);
    each beam then costs one division, one rounding and one lookup. The beam
    model costs an ``expm1`` per beam short of the wall, an ``exp`` and up to
    two ``erf`` per beam whose Gaussian part is not negligible, and one
    ``log`` per pose: about half the cast again, where a table costs almost
    nothing, so a table is the fast choice for large filters.
    See docs/sensor.md for range_libc's tables (pixel units, truncation).

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast import BeamModel, Grid, scan_likelihood
    >>> grid = Grid(np.pad(np.zeros((8, 8), bool), 1, constant_values=True))
    >>> poses = [(4.5, 4.5, 0.0), (2.5, 4.5, 0.0), (6.5, 3.5, 1.0)]
    >>> angles = [0.0, np.pi]  # ranges from the first pose: 4.5 and 3.5
    >>> observed = [4.5, 3.5]
    >>> model = BeamModel(0.8, 0.05, 0.05, 0.1, sigma_hit=0.2, lambda_short=0.5)
    >>> ll = scan_likelihood(grid, poses, angles, observed, max_range=20.0, model=model)
    >>> int(np.argmax(ll)), bool(ll[0] > ll[1])
    (0, True)

    With a table of probabilities indexed in steps of 0.5 (expected range
    4.5 is column 9):

    >>> table = np.full((41, 41), 0.01)
    >>> np.fill_diagonal(table, 0.5)
    >>> ll = scan_likelihood(grid, poses, angles, observed, max_range=20.0, table=table,
    ...                      table_resolution=0.5)
    >>> np.round(ll, 4).tolist()
    [-1.3863, -9.2103, -5.2983]
    """
    if type(grid) is GridStack:
        return _stack_likelihood(grid, poses, angles, observed, max_range, model, table,
                                 table_resolution, mask, out, (circles, boxes))  # fmt: skip
    world = check_map(grid, mask)
    pose_array = as_poses(poses)
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    n_poses, n_beams = len(pose_array), len(angle_array)
    readings = as_observed(observed, n_beams)
    if (model is None) == (table is None):
        raise ValueError("give exactly one of model= (a BeamModel) and table=")
    shapes = _shapes(circles, boxes, None, max(n_poses, 1))
    if shapes is not None:
        _shapes_allowed(world, None)
        if isinstance(model, LikelihoodField):
            raise ValueError("circles, boxes: a LikelihoodField casts no beams; give a "
                             "BeamModel or a table to see moving things")  # fmt: skip
    if isinstance(model, LikelihoodField):
        if table_resolution is not None:
            raise ValueError("table_resolution goes with table=, not with model=")
        field_out: NDArray[Any] = np.empty(n_poses)
        if out is not None:
            field_out = check_out(out, (n_poses,), _FLOAT64, (pose_array, angle_array, readings))
        model._evaluate(grid, pose_array, angle_array, readings, limit, field_out, mask)
        return field_out if out is None else out
    evaluate = _evaluator(model, table, table_resolution, readings, limit, n_beams)
    result: NDArray[Any] = np.empty(n_poses)
    if out is not None:
        result = check_out(out, (n_poses,), _FLOAT64, (pose_array, angle_array, readings))
    if n_beams == 0:
        result[...] = 0.0  # no beam: the empty sum
        return result if out is None else out

    def evaluate_chunk(first: int, end: int, ranges: NDArray[np.float64]) -> None:
        evaluate(ranges, result[first:end])

    scan_in_chunks(world, pose_array, angle_array, limit, "poses", evaluate_chunk, shapes)
    return result if out is None else out


def _stack_likelihood(
    stack: GridStack, poses: Any, angles: Any, observed: Any, max_range: Any, model: Any,
    table: Any, table_resolution: Any, mask: Any, out: Any, moving: tuple[Any, Any],
) -> NDArray[np.float64]:  # fmt: skip
    """``scan_likelihood`` on a stack: poses (B, N, 3), observed (B, R), result (B, N).

    ``moving``: ``(circles, boxes)``, each map's.
    """
    count = len(stack)
    pose_array = as_stack_array("poses", poses, count, 3)
    angle_array = as_angles(angles)
    limit = as_max_range(max_range)
    mask_bits = as_mask(mask)
    n_poses, n_beams = pose_array.shape[1], len(angle_array)
    readings = as_real_array("observed", observed)
    if readings.shape != (count, n_beams):
        raise ValueError(f"observed must have shape ({count}, {n_beams}) on a stack (one scan "
                         f"per map, one reading per angle), got {readings.shape}")  # fmt: skip
    rows = [as_observed(readings[b], n_beams) for b in range(count)]
    if (model is None) == (table is None):
        raise ValueError("give exactly one of model= (a BeamModel) and table=")
    if isinstance(model, LikelihoodField):
        raise TypeError("model: a LikelihoodField belongs to one map; on a GridStack use a "
                        "BeamModel or a table")  # fmt: skip
    shapes = _shapes(moving[0], moving[1], count, max(n_poses, 1))
    evaluators = [_evaluator(model, table, table_resolution, row, limit, n_beams) for row in rows]
    result: NDArray[Any] = np.empty((count, n_poses))
    if out is not None:
        result = check_out(out, (count, n_poses), _FLOAT64, (pose_array, angle_array, readings))
    if n_beams == 0:
        result[...] = 0.0  # no beam: the empty sum
        return result if out is None else out

    def evaluate_chunk(b: int, first: int, end: int, ranges: NDArray[np.float64]) -> None:
        evaluators[b](ranges, result[b, first:end])

    stack_scan_in_chunks(stack, pose_array, angle_array, limit, mask_bits, evaluate_chunk,
                         shapes)  # fmt: skip
    return result if out is None else out


def _evaluator(
    model: Any, table: Any, table_resolution: Any, readings: NDArray[np.float64], limit: float,
    n_beams: int,
) -> Any:  # fmt: skip
    """Return the evaluator of a beam model or a table for one measured scan (checked)."""
    if model is not None:
        if not isinstance(model, BeamModel):
            raise TypeError(
                f"model must be a tilecast.BeamModel or LikelihoodField, got {type(model).__name__}"
            )
        if table_resolution is not None:
            raise ValueError("table_resolution goes with table=, not with model=")
        if limit == math.inf:
            raise ValueError(
                "max_range must be finite with a BeamModel: its max-range and random parts "
                "live on [0, max_range] (use a table, or the sensor's largest reading)"
            )
        return _beam_evaluator(model, readings, limit, n_beams)
    return _table_evaluator(table, table_resolution, readings, n_beams)


def _beam_evaluator(
    model: BeamModel, readings: NDArray[np.float64], max_range: float, n_beams: int
) -> Any:
    beam_log_likelihood = kernels("sensor").beam_log_likelihood
    weights = model._weights()
    clipped = np.minimum(readings, max_range)  # a reading beyond max_range is a max reading
    sigma, rate = model.sigma_hit, model.lambda_short

    def evaluate(ranges: NDArray[np.float64], out: NDArray[np.float64]) -> None:
        beam_log_likelihood(ranges, n_beams, clipped, weights, sigma, rate, max_range, out)

    return evaluate


def _table_evaluator(
    table: Any, resolution: Any, readings: NDArray[np.float64], n_beams: int
) -> Any:
    table_log_likelihood = kernels("sensor").table_log_likelihood
    log_rows, row_of_beam, step, last = table_terms(table, resolution, readings)

    def evaluate(ranges: NDArray[np.float64], out: NDArray[np.float64]) -> None:
        table_log_likelihood(ranges, n_beams, log_rows, row_of_beam, step, last, out)

    return evaluate


def table_terms(
    table: Any, resolution: Any, readings: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64], float, float]:
    """Return what the table kernel takes, checked: ``(log_rows, row_of_beam, step, last)``.

    The logarithms of the table rows the observed scan uses, each beam's row
    among them, the table's step and its last expected index (as a float).
    ``tilecast.cuda`` evaluates the same terms on the device.
    """
    array = as_likelihood_table(table)
    if resolution is None:
        raise ValueError("table_resolution is required with table= (world units per table step)")
    step = as_positive_float("table_resolution", resolution)
    rows = _table_index(readings, step, array.shape[0])
    used, row_of_beam = np.unique(rows, return_inverse=True)
    with np.errstate(divide="ignore"):  # log(0) = -inf: a reading the table rules out
        log_rows = np.ascontiguousarray(np.log(array[used]))
    row_of_beam = np.ascontiguousarray(row_of_beam.reshape(-1), dtype=np.int64)
    return log_rows, row_of_beam, step, float(array.shape[1] - 1)


def beam_evaluator(
    model: BeamModel, readings: NDArray[np.float64], max_range: float, n_beams: int
) -> Any:
    """``evaluate(ranges, out)``: the beam model's log-likelihoods of flat ranges, on the CPU.

    What ``scan_likelihood`` runs on each chunk of ranges; ``tilecast.cuda``
    runs it on the ranges it casts on the device (bit for bit the same sums).
    """
    return _beam_evaluator(model, readings, max_range, n_beams)


def _table_index(ranges: Any, resolution: float, length: int) -> NDArray[np.int64]:
    """Table indices of ranges: ``min(round(r / resolution), length - 1)``, half to even.

    The rule the table kernel applies to expected ranges (non-negative,
    ``inf`` allowed): ``min`` first, so that huge ranges never overflow.

    Examples
    --------
    >>> _table_index([0.0, 0.24, 0.25, 0.75, 1e300, float("inf")], 0.5, 4).tolist()
    [0, 0, 0, 2, 3, 3]
    """
    array = np.asarray(ranges, dtype=np.float64)
    indices: NDArray[np.int64] = np.rint(np.minimum(array / resolution, length - 1)).astype(
        np.int64
    )
    return indices
