"""Error-free float arithmetic shared by the exact predicates (Numba).

``two_sum`` and ``two_prod`` return a double and its exact rounding error
(Knuth; Dekker with Veltkamp splitting, exact unless a product overflows or
underflows). ``expansion_sign`` sums any number of doubles exactly
(Shewchuk's grow-expansion with zero elimination) and returns the sign.
Their scratch arrays come from :func:`scratch`, which
:mod:`tilecast._kernels.gpu` replaces by a local array on a CUDA device
(no heap there).
"""

from __future__ import annotations

import numpy as np

from tilecast._kernels import internal

_SPLITTER = 134217729.0  # 2**27 + 1


@internal
def two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@internal
def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


@internal
def two_prod(a, b):
    p = a * b
    ahi, alo = _split(a)
    bhi, blo = _split(b)
    return p, ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo


@internal(inline="always")  # Numba IR inlining: on the CPU, exactly np.empty(n) in place
def scratch(n):
    """``n`` doubles of scratch (on a CUDA device: a local array of 16, the walk's size)."""
    return np.empty(n)


@internal
def expansion_sign(terms):
    """Sign (-1, 0, 1) of the exact sum of the doubles in ``terms``."""
    # h stays a non-overlapping expansion sorted by magnitude, so its sign is
    # the sign of its largest non-zero component.
    h = scratch(terms.shape[0])
    m = 0
    for k in range(terms.shape[0]):
        q = terms[k]
        n = 0
        for idx in range(m):
            q, small = two_sum(q, h[idx])
            if small != 0.0:
                h[n] = small
                n += 1
        h[n] = q
        m = n + 1
    for idx in range(m - 1, -1, -1):
        if h[idx] > 0.0:
            return 1
        if h[idx] < 0.0:
            return -1
    return 0
