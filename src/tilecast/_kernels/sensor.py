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

from tilecast._kernels.intrinsics import bits_float, float_bits

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
        out[p] = table_sum(ranges, p * n_beams, n_beams, log_rows, row_of_beam, resolution, last)


@njit(cache=True, inline="always")
def table_sum(ranges, base, n_beams, log_rows, row_of_beam, resolution, last):
    """One pose's sum of :func:`table_log_likelihood`: its beams from ``ranges[base]`` on, in order
    (also the thread of ``tilecast.cuda``'s table kernel)."""
    total = 0.0
    for b in range(n_beams):
        index = np.int64(rint(min(ranges[base + b] / resolution, last)))
        total += log_rows[row_of_beam[b], index]
    return total


@njit(cache=True, inline="always")
def rint(x):
    """``np.rint`` (half to even); on a CUDA device, which has no ``rint`` ufunc, its own."""
    return np.rint(x)


# erf(x) rounds to 1.0 for x >= 6 (1 - erf(6) is about 2e-17, below half an ulp
# of 1), and exp(-g) to 0.0 for g > 746: both are skipped there, same numbers.
_ERF_ONE = 6.0
_EXP_ZERO = 746.0
# The hit part is skipped where it is below half an ulp of the density
# without it (so adding it changes no bit): ``g`` beyond
# ln(hit_peak / mass_floor) - ln(flat) + 54 ln 2, plus this margin (far
# above the rounding of the few operations that bound involves).
_SKIP_MARGIN = 1e-6
# Densities multiplied into the running product (outside: their log is added).
_PRODUCT_LO = 2.2250738585072014e-308  # the smallest normal float
_PRODUCT_HI = 2.0**1000
_LN2 = math.log(2.0)
_MANTISSA = (1 << 52) - 1
_EXPONENT_ONE = 1023 << 52  # the exponent bits of 1.0


@njit(cache=True, inline="always")
def hit_skip_threshold(hit_peak, mass_floor, flat):
    """The ``g`` beyond which the hit part cannot change a density whose other parts sum to
    at least ``flat`` (``_EXP_ZERO`` at most; -1.0, never computed, when ``hit_peak`` is 0).

    The hit part is ``hit_peak * exp(-g) / mass`` with ``mass >= mass_floor``;
    below ``flat * 2**-54`` it is under half an ulp of any sum at least
    ``flat``, and round-to-nearest leaves that sum as it is.
    """
    if hit_peak == 0.0:
        return -1.0
    if not flat > 0.0:
        return _EXP_ZERO
    bound = math.log(hit_peak / mass_floor) - math.log(flat) + 54.0 * _LN2 + _SKIP_MARGIN
    return bound if bound < _EXP_ZERO else _EXP_ZERO  # NaN too: never skip on a NaN bound


@njit(cache=True, inline="always")
def beam_density(z, expected, flat, short_top, hit_peak, scale, sigma, rate, max_range,
                 hit_skip):  # fmt: skip
    """p(z | expected) of one beam: ``flat`` (the max or random part), then the
    hit part (where ``g <= hit_skip``), then the short part, added in that order."""
    density = flat
    t = (z - expected) / sigma
    g = 0.5 * t * t
    if g <= hit_skip:
        # the Gaussian's mass on [0, max_range]: (erf(a) + erf(c)) / 2
        a = (max_range - expected) * scale
        c = expected * scale
        erf_a = 1.0 if a >= _ERF_ONE else math.erf(a)
        erf_c = 1.0 if c >= _ERF_ONE else math.erf(c)
        density += hit_peak * math.exp(-g) / (0.5 * (erf_a + erf_c))
    if z <= expected and expected > 0.0:
        density += short_top / -math.expm1(-rate * expected)
    return density


@njit(cache=True)
def beam_terms(observed, weights, sigma, rate, max_range):
    """What the beam model's densities share: ``(scale, hit_peak, short_top,
    flat, hit_skip)``, the last three per beam (the short part's numerator,
    the max or random part, :func:`hit_skip_threshold`)."""
    scale = 1.0 / (sigma * math.sqrt(2.0))
    hit_peak = weights[0] / (sigma * _SQRT_2PI)
    # the Gaussian's mass on [0, max_range] is at least this, erf being concave
    mass_floor = 0.5 * math.erf(max_range * scale) * (1.0 - 1e-12)
    n_beams = observed.shape[0]
    short_top = np.empty(n_beams)
    flat = np.empty(n_beams)
    hit_skip = np.empty(n_beams)
    for b in range(n_beams):
        z = observed[b]
        short_top[b] = weights[1] * rate * math.exp(-rate * z)
        flat[b] = weights[2] if z == max_range else weights[3] / max_range
        hit_skip[b] = hit_skip_threshold(hit_peak, mass_floor, flat[b])
    return scale, hit_peak, short_top, flat, hit_skip


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
    per beam.

    Two savings, neither of which changes a density: ``erf`` and ``exp``
    are skipped where they round to 1 and 0, and the hit part where it is
    too small to change the density's bits (:func:`hit_skip_threshold`; the
    Gaussian's mass is at least ``erf(max_range * scale) / 2``, erf being
    concave). And one logarithm per pose rather than per beam: the
    densities are multiplied, the product's exponent moved into an integer
    after each step (so it never overflows or underflows), and the log
    taken at the end; a density that is zero, subnormal or huge has its own
    log added instead (zero gives ``-inf``, as the sum of logs does). The
    product rounds once per beam: a relative error of at most about
    ``B * 1.1e-16`` on the likelihood, so that much (absolute) on its log,
    the order of the rounding of a sum of ``B`` logs.
    """
    scale, hit_peak, short_top, flat, hit_skip = beam_terms(observed, weights, sigma, rate,
                                                            max_range)  # fmt: skip
    for p in range(out.shape[0]):
        base = p * n_beams
        apart = 0.0  # the logs of the densities kept out of the product
        product = 1.0  # in [1, 2): the mantissa of the densities' product
        exponent = 0  # and its power of two
        for b in range(n_beams):
            density = beam_density(observed[b], ranges[base + b], flat[b], short_top[b], hit_peak,
                                   scale, sigma, rate, max_range, hit_skip[b])  # fmt: skip
            if density >= _PRODUCT_LO and density <= _PRODUCT_HI:
                bits = float_bits(product * density)
                exponent += (bits >> 52) - 1023
                product = bits_float((bits & _MANTISSA) | _EXPONENT_ONE)
            else:  # rare: zero (-inf), subnormal, huge, NaN
                apart += math.log(density)
        out[p] = apart + (exponent * _LN2 + math.log(product))
