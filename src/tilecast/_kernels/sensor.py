"""Scan log-likelihoods from exact ranges: the beam model and the table (Numba).

Each kernel takes the ranges of a chunk of poses, flat ``(m * B,)`` and
already clipped at ``max_range`` (as ``scan_many`` returns them), and writes
one log-likelihood per pose: the sum over beams, in beam order, of
``log p(observed_b | expected_b)``. Both run without the GIL, on the threads
that cast the chunk (``tilecast.batch.scan_in_chunks``); each is compiled for
one type signature, and neither calls the walk, so they compile in about a
second.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_SQRT_2PI = math.sqrt(2.0 * math.pi)


@njit(cache=True, nogil=True, error_model="numpy")
def table_log_likelihood(ranges, n_beams, log_rows, row_of_beam, resolution, last, out):
    """out[p] = sum_b log_rows[row_of_beam[b], min(rint(range / resolution), last)].

    ``log_rows`` holds the logarithms of the table rows the observed scan
    uses (one per distinct observed index), ``last`` is the last expected
    index as a float. Ranges are non-negative (``inf`` allowed), so the index
    is within the row; ``np.rint`` rounds half to even, as NumPy does.
    """
    for p in range(out.shape[0]):
        base = p * n_beams
        total = 0.0
        for b in range(n_beams):
            index = np.int64(np.rint(min(ranges[base + b] / resolution, last)))
            total += log_rows[row_of_beam[b], index]
        out[p] = total


# erf(x) rounds to 1.0 for x >= 6 (1 - erf(6) is about 2e-17, below half an ulp
# of 1), and exp(-g) to 0.0 for g > 746: both are skipped there, same numbers.
_ERF_ONE = 6.0
_EXP_ZERO = 746.0


@njit(cache=True, nogil=True, error_model="numpy")
def beam_log_likelihood(ranges, n_beams, observed, weights, sigma, rate, max_range, out):
    """out[p] = sum_b log p(observed_b | ranges[p * B + b]) under the beam model.

    Probabilistic Robotics, section 6.3: ``weights`` are (z_hit, z_short,
    z_max, z_rand), already divided by their sum; ``observed`` is already
    ``min(reading, max_range)`` (finite ``max_range`` only). The hit part is
    a Gaussian (``sigma``) normalised on [0, max_range], the short part an
    exponential (``rate``) normalised on [0, expected] (none when expected
    is 0), the max part a point mass at max_range, the random part uniform
    on [0, max_range). What depends on the reading alone is worked out once
    per beam; ``erf`` and ``exp`` are skipped where they round to 1 and 0.
    """
    z_hit = weights[0]
    z_short = weights[1]
    scale = 1.0 / (sigma * math.sqrt(2.0))
    hit_peak = z_hit / (sigma * _SQRT_2PI)
    # per beam: the short part's numerator, and the max or random part
    short_top = np.empty(n_beams)
    flat = np.empty(n_beams)
    for b in range(n_beams):
        z = observed[b]
        short_top[b] = z_short * rate * math.exp(-rate * z)
        flat[b] = weights[2] if z == max_range else weights[3] / max_range
    for p in range(out.shape[0]):
        base = p * n_beams
        total = 0.0
        for b in range(n_beams):
            z = observed[b]
            expected = ranges[base + b]
            density = flat[b]
            t = (z - expected) / sigma
            g = 0.5 * t * t
            if g <= _EXP_ZERO and z_hit > 0.0:
                # the Gaussian's mass on [0, max_range]: (erf(a) + erf(c)) / 2
                a = (max_range - expected) * scale
                c = expected * scale
                erf_a = 1.0 if a >= _ERF_ONE else math.erf(a)
                erf_c = 1.0 if c >= _ERF_ONE else math.erf(c)
                density += hit_peak * math.exp(-g) / (0.5 * (erf_a + erf_c))
            if z <= expected and expected > 0.0:
                density += short_top[b] / -math.expm1(-rate * expected)
            total += math.log(density)
        out[p] = total
