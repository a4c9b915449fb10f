"""The one walk on a CUDA device (numba-cuda): the CPU kernels' own functions, retargeted.

Nothing of the walk is written again here. :func:`device_function` takes a
compiled CPU helper (an ``internal`` or ``njit`` dispatcher), rebuilds its
Python function with a globals dict in which every helper it calls is that
helper's device version (made the same way, recursively), and compiles it
with ``cuda.jit(device=True)``. So the device walk runs the source of
:mod:`tilecast._kernels.walk`, :mod:`tilecast._kernels.exact` and
:mod:`tilecast._walkspec`, with two replacements chosen per target:

- :func:`~tilecast._kernels.exact.scratch` (the exact predicate's 16
  doubles, twice) is a local array, not a heap one;
- ``call_walk`` (the CPU kernels call the walk through its address) is the
  device walk itself.

Exactness on the device: NVVM contracts ``a * b + c`` into a fused
multiply-add by default, which would change the rounding the walk's filters
and Dekker products are proven with. :func:`compile_exact` compiles a kernel
with NVVM's ``-fma=0`` (and numba-cuda's default: no fast math, IEEE
division and square root) and checks that the PTX holds no ``fma.``; its
PTX is cached with the kernel, so the launch uses exactly that code.

The kernels (one thread per ray or beam, one per pose for the table sum):
:func:`cast_rays` (``tilecast.cuda.raycast_many``), :func:`cast_beams`
(``scan_many``, and the ranges of ``scan_likelihood``) and
:func:`table_sums` (``scan_likelihood`` with a table). A thread whose ray
the compiled walk cannot decide (UNSAFE: beyond the proven range, or a beam
angle beyond the polynomial sine's range) flags its row; the caller
finishes those rows on the CPU.
"""

from __future__ import annotations

import dis
import math
import threading
import types as pytypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from numba import cuda, float64
from numba.core.dispatcher import Dispatcher

from tilecast._kernels import beams, exact, sensor, walk
from tilecast._walkspec import DONE, FOUND, UNSAFE

_devices: dict[Any, Any] = {}  # CPU function -> its device version


def device_function(function: Any, replace: dict[Any, Any] | None = None) -> Any:
    """The CUDA device version of a compiled CPU helper (and of every helper it calls).

    ``replace`` maps CPU functions (their Python functions) to device
    functions to use instead of retargeting them.
    """
    table = dict(_devices if replace is None else {**_devices, **replace})
    made = _retarget(function, table)
    _devices.update(table)
    return made


def _retarget(function: Any, table: dict[Any, Any]) -> Any:
    source = getattr(function, "py_func", function)
    if source in table:
        return table[source]
    names = dict(source.__globals__)
    for name in _global_names(source.__code__):
        value = names.get(name)
        if _is_key(value) and value in table:  # a replacement (e.g. call_walk)
            names[name] = table[value]
        elif isinstance(value, Dispatcher):
            names[name] = _retarget(value, table)
    rebuilt = pytypes.FunctionType(
        source.__code__, names, source.__name__, source.__defaults__, source.__closure__
    )
    rebuilt.__qualname__ = source.__qualname__
    made = cuda.jit(device=True)(rebuilt)
    table[source] = made
    return made


def _global_names(code: Any) -> set[str]:
    """The global names a function's code reads (not its attribute names)."""
    return {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}


def _is_key(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


# ------------------------------------------------------- the per-target parts
@cuda.jit(device=True, inline="always")
def _local_scratch(n):
    # inlined into the caller (Numba IR), so the array lives in the caller's frame; the walk
    # (exact_order and its expansion_sign) is the only caller, with n = 16
    return cuda.local.array(16, float64)


walk_first = device_function(walk.walk_first, {exact.scratch.py_func: _local_scratch})


@cuda.jit(device=True)
def _call_walk(walk_at, m, ray):
    """The CPU kernels' ``call_walk(address, map, ray)``: here the device walk itself."""
    return walk_first(m, ray)


@cuda.jit(device=True)
def _floor(x):
    """``np.floor`` of a double, as a double."""
    return float(math.floor(x))


@cuda.jit(device=True)
def rint(x):
    """``np.rint`` of a non-negative double (round half to even), exactly: the table's index."""
    below = math.floor(x)
    rest = x - below  # exact (Sterbenz, or rest == x below 1)
    if rest > 0.5 or (rest == 0.5 and below % 2.0 != 0.0):
        return below + 1.0
    return below


cast_ray = device_function(walk.cast_ray, {walk.call_walk: _call_walk})
first_ray = device_function(walk.first_ray)
sincos_near = device_function(beams.sincos_near, {beams.floor.py_func: _floor})
table_sum = device_function(sensor.table_sum, {sensor.rint.py_func: rint})


# ------------------------------------------------------------------ kernels
@cuda.jit
def cast_rays(m, rays, out, hit, unsafe):
    """Thread k: ray k of ``rays`` (:class:`RayBatch`) into row k of ``out``
    (:class:`FirstHits`) and ``hit[k]``; counts UNSAFE rows in ``unsafe[0]``."""
    k = cuda.grid(1)
    if k < hit.shape[0]:
        if not _checked(k, rays) or cast_ray(k, m, rays, out, 0):
            out.status[k] = UNSAFE
            cuda.atomic.add(unsafe, 0, 1)
        hit[k] = out.status[k] == DONE and out.distance[k] < math.inf


@cuda.jit(device=True)
def _checked(k, rays):
    """Ray k can be walked: finite numbers, a direction, a range (the CPU call checks these
    before its kernel runs; here a bad row is flagged, and the CPU call on it raises)."""
    o = k // rays.origin_stride
    d = k if rays.directions.shape[0] != 1 else 0
    limit = rays.max_distances[k if rays.max_distances.shape[0] != 1 else 0]
    x0, y0 = rays.origins[o, 0], rays.origins[o, 1]
    dx, dy = rays.directions[d, 0], rays.directions[d, 1]
    finite = math.isfinite(x0) and math.isfinite(y0) and math.isfinite(dx) and math.isfinite(dy)
    return finite and (dx != 0.0 or dy != 0.0) and limit >= 0.0


@cuda.jit
def cast_beams(m, poses, angles, max_range, ranges, status, unsafe):
    """Thread k: beam ``k % B`` of pose ``k // B``, its range (``max_range`` on a
    miss) into ``ranges[k]`` (float64 or float32, rounded once), as ``scan_many``.

    The direction is the scans' ``sincos(theta + angle)``; an angle beyond
    the polynomial's range (where the CPU takes libm's) or an UNSAFE walk
    sets ``status[k]`` and counts in ``unsafe[0]``.
    """
    k = cuda.grid(1)
    n_beams = angles.shape[0]
    if k < ranges.shape[0]:
        q = k // n_beams
        x = poses[q, 2] + angles[k - q * n_beams]
        finite = math.isfinite(poses[q, 0]) and math.isfinite(poses[q, 1])
        if not (finite and abs(x) < beams.SINCOS_RANGE):
            status[k] = UNSAFE
            cuda.atomic.add(unsafe, 0, 1)
            return
        s, c = sincos_near(x)
        a = walk_first(m, first_ray(poses[q, 0], poses[q, 1], c, s, max_range, 0, False))
        status[k] = UNSAFE if a.status == UNSAFE else DONE
        if a.status == UNSAFE:
            cuda.atomic.add(unsafe, 0, 1)
        reading = a.distance if a.status == FOUND else math.inf
        ranges[k] = min(reading, max_range)


@cuda.jit
def table_sums(ranges, n_beams, log_rows, row_of_beam, resolution, last, out):
    """Thread p: pose p's table log-likelihood into ``out[p]``, as
    :func:`tilecast._kernels.sensor.table_log_likelihood` (beams in order)."""
    p = cuda.grid(1)
    if p < out.shape[0]:
        out[p] = table_sum(ranges, p * n_beams, n_beams, log_rows, row_of_beam, resolution, last)


# ------------------------------------------------------ compiling without FMA
_lock = threading.Lock()


@contextmanager
def no_contraction() -> Iterator[None]:
    """While active, NVVM compiles with ``-fma=0``: no multiply-add is fused.

    numba-cuda exposes no option for it (its ``fastmath=True`` turns fusing
    on; its default leaves NVVM's, which fuses); the option goes in where
    numba-cuda hands its options to NVVM, for this thread's compiles only.
    """
    from numba.cuda.cudadrv import nvvm

    original: Callable[..., Any] = nvvm.compile_ir
    owner = threading.get_ident()

    def compile_ir(llvmir: Any, **options: Any) -> Any:
        if threading.get_ident() == owner:
            options["fma"] = False
        return original(llvmir, **options)

    with _lock:
        nvvm.compile_ir = compile_ir
        try:
            yield
        finally:
            nvvm.compile_ir = original


def launch(kernel: Any, n: int, args: tuple[Any, ...], threads: int = 128) -> None:
    """Run ``kernel`` on ``args`` with one thread per item (``n`` of them), as compiled by
    :func:`compile_exact` (never a version NVVM compiled with its defaults)."""
    blocks = max(1, -(-n // threads))
    from numba import config

    if config.ENABLE_CUDASIM:  # the simulator compiles nothing
        kernel[blocks, threads](*args)
        return
    compile_exact(kernel, args)
    # the launch finds that compiled kernel (its signature is the launch's own typing); were
    # it to compile another, that one too would be compiled without FMA
    with no_contraction():
        kernel[blocks, threads](*args)


def compile_exact(kernel: Any, args: tuple[Any, ...]) -> Any:
    """Compile ``kernel`` for the types of ``args`` without FMA (once); check its PTX.

    Returns the compiled kernel. The PTX is generated here and cached in the
    kernel's code library, so that launching it links exactly this code.
    """
    signature = tuple(kernel.typeof_pyval(a) for a in args)  # as a launch types them
    with _lock:
        compiled = _compiled.get((kernel, signature))
    if compiled is not None:
        return compiled
    with no_contraction():
        compiled = kernel.compile(signature)  # generates the PTX (for the current device)
        ptx = compiled.inspect_asm(cuda.get_current_device().compute_capability)
    if "fma." in ptx:  # never expected: the answers would not be the CPU's
        raise RuntimeError(f"tilecast: {kernel.__name__} was compiled with fused multiply-adds")
    with _lock:
        _compiled[(kernel, signature)] = compiled
    return compiled


_compiled: dict[tuple[Any, ...], Any] = {}
