"""Exact sums of products of doubles over the whole double range (Numba).

A *wide* number is a pair of arrays ``(m, e)``: the exact value ``sum(m[i] *
2**e[i])``, each ``m[i]`` a double of magnitude in ``[0.5, 1)`` and ``e[i]``
an int64. Products of two components are error-free on the mantissas
(``two_prod`` of numbers near 1 neither overflows nor underflows), so unlike
plain expansions (:func:`tilecast._kernels.exact.expansion_sign`) nothing
is lost when a product of the inputs falls below the subnormals or beyond
the largest double (a direction ``(1, 5e-324)``, a coordinate of ``1e300``).

:func:`w_compress` sums the components exactly, a chunk of nearby exponents
at a time (each chunk a Shewchuk expansion scaled to its largest exponent),
and :func:`w_sign` gives the exact sign the same way, dropping what lies far
below a non-zero partial sum. Used by the exact contact times of the shape
casts (:mod:`tilecast._kernels.surds`); the hot paths keep their float
filters and only fall back to these.
"""

from __future__ import annotations

import math

import numpy as np

from tilecast._kernels import internal
from tilecast._kernels.exact import two_prod, two_sum

#: Within one chunk the exponents span at most this many bits (exact scaling).
_SPAN = 900


@internal
def w_of(x):
    """The wide number of one double."""
    m = np.empty(1)
    e = np.empty(1, np.int64)
    if x == 0.0:
        return m[:0], e[:0]
    f, k = math.frexp(x)
    m[0], e[0] = f, k
    return m, e


@internal
def w_terms(terms, n):
    """The wide sum of the doubles ``terms[:n]``."""
    m = np.empty(n)
    e = np.empty(n, np.int64)
    c = 0
    for i in range(n):
        if terms[i] != 0.0:
            f, k = math.frexp(terms[i])
            m[c], e[c] = f, k
            c += 1
    return m[:c], e[:c]


@internal
def w_add(a, b, sign_b):
    """``a + sign_b * b`` (``sign_b`` 1 or -1), compressed."""
    na, nb = a[0].shape[0], b[0].shape[0]
    m = np.empty(na + nb)
    e = np.empty(na + nb, np.int64)
    m[:na], e[:na] = a[0], a[1]
    for i in range(nb):
        m[na + i], e[na + i] = sign_b * b[0][i], b[1][i]
    return w_compress(m, e)


@internal
def w_neg(a):
    return -a[0], a[1].copy()


@internal
def w_mul(a, b):
    """``a * b`` exactly, compressed."""
    na, nb = a[0].shape[0], b[0].shape[0]
    m = np.empty(2 * na * nb)
    e = np.empty(2 * na * nb, np.int64)
    c = 0
    for i in range(na):
        for j in range(nb):
            p, err = two_prod(a[0][i], b[0][j])
            k = a[1][i] + b[1][j]
            f, s = math.frexp(p)
            m[c], e[c] = f, k + s
            c += 1
            if err != 0.0:
                f, s = math.frexp(err)
                m[c], e[c] = f, k + s
                c += 1
    return w_compress(m[:c], e[:c])


@internal
def _flush(acc, na, base, om, oe, no):
    for j in range(na - 1, -1, -1):
        if acc[j] != 0.0:
            f, s = math.frexp(acc[j])
            om[no], oe[no] = f, base + s
            no += 1
    return no


@internal
def _grow(acc, na, q):
    """Add ``q`` to the expansion ``acc[:na]`` (increasing magnitude, no zeros); new length."""
    nn = 0
    for j in range(na):
        q, small = two_sum(q, acc[j])
        if small != 0.0:
            acc[nn] = small
            nn += 1
    if q != 0.0:
        acc[nn] = q
        nn += 1
    return nn


@internal
def _by_exponent(e):
    """The indices of ``e`` by decreasing exponent (a heap sort: small code, ``n log n``)."""
    n = e.shape[0]
    order = np.arange(n)
    for start in range(n // 2 - 1, -1, -1):
        _sift(order, e, start, n)
    for end in range(n - 1, 0, -1):
        order[0], order[end] = order[end], order[0]
        _sift(order, e, 0, end)
    return order


@internal
def _sift(order, e, root, n):
    """Sift ``order[root]`` down the min-heap (by ``e``) of ``order[:n]``."""
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and e[order[child + 1]] < e[order[child]]:
            child += 1
        if e[order[child]] >= e[order[root]]:
            return
        order[root], order[child] = order[child], order[root]
        root = child


@internal
def w_compress(m, e):
    """The same value with fewer components: exact sums of chunks of nearby exponents."""
    n = m.shape[0]
    if n <= 1:
        return m, e
    order = _by_exponent(e)
    acc = np.empty(n)
    om = np.empty(n)
    oe = np.empty(n, np.int64)
    na = 0
    no = 0
    base = e[order[0]]
    for idx in order:
        if base - e[idx] > _SPAN:
            no = _flush(acc, na, base, om, oe, no)
            na = 0
            base = e[idx]
        na = _grow(acc, na, math.ldexp(m[idx], e[idx] - base))
    no = _flush(acc, na, base, om, oe, no)
    return om[:no], oe[:no]


@internal
def w_sign(a):
    """Exact sign (-1, 0, 1) of a wide number."""
    m, e = a
    n = m.shape[0]
    if n == 0:
        return 0
    order = _by_exponent(e)
    acc = np.empty(n)
    na = 0
    base = e[order[0]]
    for idx in order:
        if base - e[idx] > _SPAN:
            if na == 0:
                base = e[idx]
            else:
                # the partial sum is at least about its largest part; what is left
                # is below n * 2**e[idx]: far below, the partial sum decides
                s = math.frexp(acc[na - 1])[1]
                if base + s - e[idx] > _SPAN or s >= 0:
                    break
                for j in range(na):
                    acc[j] = math.ldexp(acc[j], -s)
                base += s
        na = _grow(acc, na, math.ldexp(m[idx], e[idx] - base))
    if na == 0:
        return 0
    return 1 if acc[na - 1] > 0.0 else -1


@internal
def w_value(a):
    """A double within a few ulps of the value (inf or 0 beyond the double range)."""
    m, e = a
    total = 0.0
    for i in range(m.shape[0] - 1, -1, -1):
        total += math.ldexp(m[i], e[i])
    return total
