"""Readable oracles for ``scan_likelihood``: the beam model from the book, the table lookup.

Plain Python, one beam at a time, written from Probabilistic Robotics
(Thrun, Burgard, Fox), section 6.3, equations 6.4-6.12, and from the
definition of the table index in docs/sensor.md. The expected ranges come
from the sorted-crossings oracle (``oracle.raycast_all_oracle``) along the
beam directions the caller passes (the scan's own, from
``tilecast.batch.beam_directions``), so nothing here shares code with the
kernels.
"""

from __future__ import annotations

import math

from reference.oracle import raycast_all_oracle


def expected_ranges(grid, pose, directions, max_range):
    """The exact range of each beam of one pose: the first hit, else max_range."""
    ranges = []
    for direction in directions:
        start, heading = (float(pose[0]), float(pose[1])), tuple(map(float, direction))
        hits = raycast_all_oracle(grid, start, heading, max_range, "block_if_both", False)
        ranges.append(min(hits[0][2], max_range) if hits else max_range)
    return ranges


def beam_probability(z, z_star, model, z_max):
    """p(z | z*) of the beam model (Probabilistic Robotics, Table 6.1), z in [0, z_max]."""
    total = model.z_hit + model.z_short + model.z_max + model.z_rand
    z = min(z, z_max)  # a reading beyond the sensor's range is a max reading
    sigma, lam = model.sigma_hit, model.lambda_short

    # p_hit (6.4-6.6): N(z; z*, sigma^2) on [0, z_max], eta its mass there,
    # the integral of the Gaussian from 0 to z_max written with erf
    gaussian = math.exp(-0.5 * ((z - z_star) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))
    root = sigma * math.sqrt(2.0)
    mass = 0.5 * (math.erf((z_max - z_star) / root) - math.erf((0.0 - z_star) / root))
    p_hit = gaussian / mass

    # p_short (6.7-6.9): lambda exp(-lambda z) on [0, z*], eta = 1 / (1 - exp(-lambda z*))
    # (expm1: the same number, without cancellation when lambda z* is small)
    if 0.0 <= z <= z_star and z_star > 0.0:
        p_short = lam * math.exp(-lam * z) / -math.expm1(-lam * z_star)
    else:
        p_short = 0.0

    # p_max (6.10): a point mass at z_max
    p_max = 1.0 if z == z_max else 0.0

    # p_rand (6.11): uniform on [0, z_max)
    p_rand = 1.0 / z_max if z < z_max else 0.0

    # (6.12), with the weights normalised to sum to one
    return (
        model.z_hit / total * p_hit
        + model.z_short / total * p_short
        + model.z_max / total * p_max
        + model.z_rand / total * p_rand
    )


def _log(p):
    return -math.inf if p == 0.0 else math.log(p)


def beam_log_likelihood(observed, expected, model, z_max):
    """Sum over beams of log p(observed_b | expected_b), in beam order."""
    total = 0.0
    for z, z_star in zip(observed, expected, strict=True):
        total += _log(beam_probability(z, z_star, model, z_max))
    return total


def table_index(r, resolution, length):
    """min(round(r / resolution), length - 1); Python's round is half to even."""
    q = r / resolution
    if q >= length - 1:  # also inf, which round() refuses
        return length - 1
    return round(q)


def table_log_likelihood(observed, expected, table, resolution):
    """Sum over beams of log table[observed index, expected index], in beam order."""
    rows, cols = len(table), len(table[0])
    total = 0.0
    for z, z_star in zip(observed, expected, strict=True):
        p = table[table_index(z, resolution, rows)][table_index(z_star, resolution, cols)]
        total += _log(float(p))
    return total
