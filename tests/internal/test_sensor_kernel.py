"""The beam kernel's shortcuts, checked against the same kernel without them.

White-box: these call ``tilecast._kernels.sensor`` directly. The public
``scan_likelihood`` is checked against the book's formulas in
``tests/reference/sensor.py`` (``tests/test_sensor.py``).
"""

import math

import numpy as np
import pytest

from tilecast import BeamModel

MODEL = BeamModel(0.75, 0.01, 0.07, 0.12, sigma_hit=0.4, lambda_short=0.3)


def close(a, b):
    """Equal log-likelihoods up to rounding (a few ulps per beam), -inf included."""
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def _densities(observed, expected, model, max_range, skip):
    """The beam kernel's density per (reading, expected) pair, with its hit-part skip
    (``skip``) or computing the hit part wherever exp does not round to 0."""
    from tilecast._kernels import sensor as kernels

    sigma, rate = model.sigma_hit, model.lambda_short
    observed = np.asarray(observed, dtype=np.float64)
    scale, hit_peak, short_top, flat, hit_skip = kernels.beam_terms(
        observed, model._weights(), sigma, rate, max_range
    )
    if not skip:
        hit_skip[:] = kernels._EXP_ZERO if hit_peak > 0.0 else -1.0
    out = []
    for b, (z, e) in enumerate(zip(observed, expected, strict=True)):
        out.append(kernels.beam_density(z, e, flat[b], short_top[b], hit_peak, scale, sigma,
                                        rate, max_range, hit_skip[b]))  # fmt: skip
    return np.array(out)


@pytest.mark.parametrize(
    "model",
    [MODEL, BeamModel(0.75, 0.01, 0.07, 0.12, sigma_hit=8.0, lambda_short=0.01),
     BeamModel(0.9, 0.0, 0.0, 1e-9, sigma_hit=2.0, lambda_short=1.0),
     BeamModel(1.0, 0.5, 0.0, 0.3, sigma_hit=50.0, lambda_short=0.1)],
)  # fmt: skip
def test_the_skipped_hit_part_changes_no_bit(model):
    """The beam kernel leaves out the hit part where adding it cannot change
    the density; every density is the one computed with it, bit for bit,
    around the threshold too (readings 25 to 60 sigmas from the expected)."""
    from tilecast._kernels import sensor as kernels

    max_range = 500.0
    rng = np.random.default_rng(4)
    expected = rng.uniform(0.0, max_range, 4000)
    expected[:200] = max_range
    t = rng.uniform(-60.0, 60.0, 4000)
    t[::2] = np.sign(t[::2]) * rng.uniform(25.0, 60.0, 2000)
    observed = np.clip(expected + t * model.sigma_hit, 0.0, max_range)
    observed[::97] = max_range
    with_skip = _densities(observed, expected, model, max_range, skip=True)
    without = _densities(observed, expected, model, max_range, skip=False)
    assert np.array_equal(with_skip.view(np.int64), without.view(np.int64))
    # the skip did happen, for pairs whose hit part exp would still have computed
    g = 0.5 * ((observed - expected) / model.sigma_hit) ** 2
    assert ((g > 40.0) & (g <= kernels._EXP_ZERO)).sum() > 500


def test_beam_log_likelihood_is_the_sum_of_the_logs():
    """One log per pose (the densities multiplied, the exponent kept apart):
    the sum of the per-beam logs to 1e-14, with densities that are zero,
    subnormal or huge among them, and thousands of beams."""
    from tilecast._kernels.sensor import beam_log_likelihood

    rng = np.random.default_rng(6)
    # readings this many sigmas from the expected range: exp(-g) normal, then
    # subnormal (g in (708, 745)), then zero (g > 746)
    sigmas = np.array([0.0, 1.0, 5.0, 30.0, 37.7, 38.0, 38.5, 40.0])
    only_hit = BeamModel(1.0, 0.0, 0.0, 0.0, sigma_hit=1.0, lambda_short=1.0)
    huge = BeamModel(1.0, 0.0, 0.0, 0.5, sigma_hit=1e-305, lambda_short=1.0)
    for model, max_range, n_beams in [(MODEL, 20.0, 3000), (only_hit, 200.0, 8),
                                      (huge, 10.0, 8)]:  # fmt: skip
        observed = rng.uniform(0.0, max_range, n_beams)
        if n_beams == len(sigmas):
            observed[:] = 100.0 if max_range > 100.0 else 5.0
        offsets = np.tile(sigmas, n_beams // len(sigmas) + 1)[:n_beams] * model.sigma_hit
        # pose 0: every offset; pose 1: the normal ones only; pose 2: exact readings
        expected = np.stack([observed + offsets, observed + np.minimum(offsets, 30.0),
                             observed, observed + rng.normal(0.0, 3.0, n_beams),
                             observed - offsets])  # fmt: skip
        expected = np.clip(expected, 0.0, max_range)
        got = np.empty(len(expected))
        beam_log_likelihood(expected.reshape(-1), n_beams, observed, model._weights(),
                            model.sigma_hit, model.lambda_short, max_range, got)  # fmt: skip
        for p, row in enumerate(expected):
            densities = _densities(observed, row, model, max_range, skip=False)
            with np.errstate(divide="ignore"):
                want = math.fsum(np.log(densities))
            assert close(got[p], want), (p, got[p], want)
            assert math.isinf(want) or math.isclose(got[p], want, rel_tol=1e-14, abs_tol=1e-13)
        if model is only_hit:
            densities = _densities(observed, expected[0], model, max_range, skip=False)
            assert 0.0 < densities.min(where=densities > 0, initial=1.0) < 2.2250738585072014e-308
            assert got[0] == -math.inf and math.isfinite(got[1])
        if model is huge:
            assert _densities(observed, expected[2], model, max_range, skip=False).min() > 2.0**1000
