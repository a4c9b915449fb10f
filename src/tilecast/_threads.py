"""Parallel batches on Python threads running GIL-free compiled kernels.

The batch kernels (``raycast_many``, ``scan``, ``scan_many``) are compiled
with ``nogil=True`` and take a range of rays ``lo .. hi``; this module splits
a batch into such ranges and runs them on a small pool of Python threads.
Compared with Numba's ``prange`` this keeps the first compile seconds
shorter (no parallel-loop lowering), does not depend on Numba's threading
layer (any layer, and many Python threads calling in at once, are fine),
and gives the same answers whatever the thread count: each ray is cast by
the same code whichever task it falls in.

The thread count is ``NUMBA_NUM_THREADS`` when set (Numba's own setting),
else the number of CPUs this process may use.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

__all__ = [
    "MIN_TASK", "TASK", "numba_parallel", "run_each", "run_shared", "run_tasks", "share_count",
    "task_size", "thread_count",
]  # fmt: skip

#: Most rays per task: a batch is cut into at least two tasks per thread
#: while each keeps MIN_TASK rays (a lane-kernel task ends with its last rays
#: in flight alone, which costs about as much as a hundred rays).
TASK = 8192
#: Fewest rays per task: below this a thread's hand-over costs more than it saves.
MIN_TASK = 1024

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def thread_count() -> int:
    """Return the number of threads a batch uses.

    ``NUMBA_NUM_THREADS`` is read on every call (a test or a program may set
    it at run time); the CPUs this process may use are asked of the system
    at most once a second (``os.sched_getaffinity`` costs a few microseconds,
    as much as a small scan's own work), so a change of affinity is seen
    within a second.

    Examples
    --------
    >>> thread_count() >= 1
    True
    """
    setting = _setting()
    cached = _count
    if setting == cached[0] and (setting or time.monotonic() < cached[2]):
        return cached[1]
    count = _usable_cpus() if not (setting.strip().isdigit() and int(setting) > 0) else int(setting)
    _remember(setting, count)
    return count


_AFFINITY_TTL = 1.0  # seconds a count of usable CPUs is kept


def _setting() -> str:
    """``NUMBA_NUM_THREADS`` as set now ("" if not).

    ``os.environ.get`` costs a microsecond or more (it encodes the key and
    goes through two Mapping layers); the environment's own dict of bytes,
    which ``os.environ`` keeps current on every change, answers in a tenth
    of that. Elsewhere than CPython on POSIX: ``os.environ.get``.
    """
    if _ENV_DATA is None:
        return os.environ.get("NUMBA_NUM_THREADS", "")
    value = _ENV_DATA.get(_ENV_KEY)
    return "" if value is None else os.fsdecode(value)


try:  # CPython's os._Environ on POSIX: a bytes dict and the key as it is stored
    _ENV_DATA: dict[Any, Any] | None = os.environ._data  # type: ignore[attr-defined]
    _ENV_KEY: Any = os.environ.encodekey("NUMBA_NUM_THREADS")
except AttributeError:
    _ENV_DATA, _ENV_KEY = None, None
# (NUMBA_NUM_THREADS as read, the thread count, when the CPU count expires);
# one tuple, replaced whole, so that threads read a consistent triple
_count: tuple[str | None, int, float] = (None, 1, 0.0)


def _remember(setting: str, count: int) -> None:
    global _count
    _count = (setting, count, time.monotonic() + _AFFINITY_TTL)


def _usable_cpus() -> int:
    """Return the number of CPUs this process may use (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def task_size(n: int) -> int:
    """Return the rays per task for a batch of ``n`` rays.

    About two tasks per thread, within ``[MIN_TASK, TASK]``.

    Examples
    --------
    >>> task_size(10) == MIN_TASK
    True
    >>> task_size(10**7) == TASK
    True
    """
    wanted = -(-n // (2 * thread_count()))
    return max(min(wanted, TASK), MIN_TASK)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(thread_count(), thread_name_prefix="tilecast")
        return _pool


def run_tasks(task: Callable[[int, int], object], n: int, size: int | None = None) -> None:
    """Call ``task(lo, hi)`` over ``0 .. n`` in ranges of ``size`` items, in parallel.

    ``size`` defaults to :func:`task_size` of ``n``.

    A batch of one task runs on the calling thread. Exceptions from a task
    are raised here.

    Examples
    --------
    >>> seen = []
    >>> run_tasks(lambda lo, hi: seen.append((lo, hi)), 300)
    >>> seen
    [(0, 300)]
    """
    size = task_size(n) if size is None else max(1, size)
    if n <= size or thread_count() == 1:
        task(0, n)
        return
    futures = [_executor().submit(task, lo, min(n, lo + size)) for lo in range(0, n, size)]
    for future in futures:
        future.result()


def run_each(task: Callable[[int], object], count: int) -> None:
    """Call ``task(0)``, ..., ``task(count - 1)`` at once: one on this thread, the rest on the pool.

    For work already split into ``count`` parts (at most :func:`thread_count`),
    such as the strides of ``fov_counts``. Exceptions from a task are raised here.

    Examples
    --------
    >>> seen = []
    >>> run_each(seen.append, 3)
    >>> sorted(seen)
    [0, 1, 2]
    """
    futures = [_executor().submit(task, t) for t in range(1, count)]
    try:
        if count > 0:
            task(0)
    finally:
        for future in futures:
            future.result()


def share_count(n: int) -> int:
    """Return how many threads share ``n`` items: one per ``MIN_TASK``, at most all of them.

    Examples
    --------
    >>> share_count(10)
    1
    >>> share_count(10**6) == thread_count()
    True
    """
    return min(thread_count(), max(1, n // MIN_TASK))


def run_shared(task: Callable[[], object], n: int) -> None:
    """Call ``task()`` on up to :func:`thread_count` threads that share ``n`` items of work.

    For kernels that take their work from a shared counter (the lane walk,
    :func:`tilecast._kernels.lanes.cast_lanes_at`): every call works until
    the counter runs out, so the calling thread alone would do it all. One
    call runs here, one per other thread goes to the pool (:func:`share_count`
    calls in all: none to the pool for fewer than ``2 * MIN_TASK`` items);
    calls the pool has not started by the time this thread's call returns
    are cancelled, their work being done. Exceptions from a call are raised
    here.

    Examples
    --------
    >>> import threading
    >>> lock, left, done = threading.Lock(), [5000], []
    >>> def task():
    ...     while True:
    ...         with lock:
    ...             if left[0] == 0:
    ...                 return
    ...             left[0] -= 1
    ...             done.append(1)
    >>> run_shared(task, 5000)
    >>> len(done)
    5000
    """
    futures = [_executor().submit(task) for _ in range(1, share_count(n))]
    try:
        task()
    finally:
        for future in futures:
            if not future.cancel():
                future.result()


# ------------------------------------------------ Numba's own parallel kernels
# A few kernels (visibility_polygon's ray method, beam_directions) still use
# Numba's parallel loops. Numba's "workqueue" threading layer (the
# one left when neither TBB nor OpenMP is installed) aborts the process when
# two Python threads enter parallel code at once; those calls are serialised.
_numba_parallel_lock = threading.Lock()
_layer_is_threadsafe: bool | None = None


def _threadsafe_layer() -> bool:
    """Say whether Numba's threading layer is safe for many threads (known after first use)."""
    global _layer_is_threadsafe
    if _layer_is_threadsafe is None:
        from numba.np.ufunc.parallel import threading_layer

        try:
            layer = threading_layer()  # type: ignore[no-untyped-call]  # numba: untyped
        except ValueError:  # not chosen yet: the first parallel call chooses it
            return False
        _layer_is_threadsafe = layer != "workqueue"
    return _layer_is_threadsafe


@contextmanager
def numba_parallel() -> Iterator[None]:
    """Run a Numba ``parallel=True`` kernel call; serialised where the threading layer needs it.

    Examples
    --------
    >>> from tilecast._threads import numba_parallel
    >>> with numba_parallel():
    ...     pass  # call the parallel kernel here
    """
    if _threadsafe_layer():
        yield
        return
    with _numba_parallel_lock:
        yield
