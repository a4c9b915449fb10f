"""Compile a family's independent kernels side by side: here and in worker processes.

A family's first use after installation compiles several kernels that do not
need each other to compile: a kernel called through its address
(:func:`tilecast._kernels.intrinsics.caller_of`) is needed only when its
caller runs. Numba compiles one function at a time per process (a global
lock), so on a machine with more than one core :func:`compile_together`
hands some of those kernels to short-lived worker processes
(running :func:`work`). A worker compiles them into Numba's
on-disk cache while this process compiles the rest; this process then loads
the workers' code from the cache. Nothing depends on a worker: whatever is
not in the cache when the workers are done (one failed, the cache is not
writable) is compiled here, as it would have been without them.

``TILECAST_COMPILE_JOBS`` sets how many processes may compile at once (this
one included; default: the number of cores, at most 4); ``1`` turns the
workers off. Workers are not used from a frozen application or an embedded
interpreter (:func:`python_executable`), nor when the kernels cannot be
cached; a worker that takes far longer than expected (:func:`patience`) is
stopped, and this process compiles its share.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

_logger = logging.getLogger("tilecast")

#: One kernel to compile: the dispatcher, its argument types, and about how
#: many seconds its first compile takes on a 2-core machine (to share the
#: work out; only the proportions matter).
Unit = tuple[Any, tuple[Any, ...], float]

_START_SECONDS = 1.0  # a worker's start: Python, NumPy, Numba, the kernel module
_MAX_JOBS = 4
_one_at_a_time = threading.RLock()  # two threads' first calls: one shares out the work


def python_executable() -> bool:
    """Is ``sys.executable`` a Python interpreter that can start a worker?

    Not in a frozen application, nor where the interpreter is embedded in
    another program (``sys.executable`` is then that program: a server, an
    editor), which a worker must never start.

    Examples
    --------
    >>> from tilecast._kernels.jobs import python_executable
    >>> python_executable()  # this interpreter (the doctests run under Python)
    True
    """
    if getattr(sys, "frozen", False) or not sys.executable:
        return False
    name = sys.executable.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.startswith(("python", "pypy"))


def job_count() -> int:
    """How many processes may compile at once (``TILECAST_COMPILE_JOBS``, else the cores).

    Always 1 where no worker can be started (:func:`python_executable`).

    Examples
    --------
    >>> import os
    >>> from tilecast._kernels.jobs import job_count
    >>> saved = os.environ.get("TILECAST_COMPILE_JOBS")
    >>> os.environ["TILECAST_COMPILE_JOBS"] = "1"  # no workers
    >>> job_count()
    1
    >>> _ = os.environ.pop("TILECAST_COMPILE_JOBS") if saved is None else None
    >>> os.environ.update({} if saved is None else {"TILECAST_COMPILE_JOBS": saved})
    """
    if not python_executable():
        return 1
    given = os.environ.get("TILECAST_COMPILE_JOBS", "").strip()
    if given:
        try:
            return max(1, int(given))
        except ValueError:
            _logger.warning("TILECAST_COMPILE_JOBS=%r is not an integer; compiling here", given)
            return 1
    return max(1, min(os.cpu_count() or 1, _MAX_JOBS))


def patience(seconds: float) -> float:
    """How long to wait for a worker given about ``seconds`` of work, before compiling here.

    Examples
    --------
    >>> from tilecast._kernels.jobs import patience
    >>> patience(5.0)  # a minute, plus four times the expected work
    80.0
    """
    return 60.0 + 4.0 * seconds


def argument_types(dispatcher: Any, args: Sequence[Any]) -> tuple[Any, ...]:
    """The argument types a call ``dispatcher(*args)`` compiles for (Numba's typing of values).

    Examples
    --------
    >>> import numpy as np
    >>> from tilecast._kernels.jobs import argument_types
    >>> from tilecast._kernels.visibility import prepare_walls
    >>> argument_types(prepare_walls, (np.zeros((2, 4)), 1.5, True))
    (Array(float64, 2, 'C', False, aligned=True), float64, bool)
    """
    return tuple(dispatcher.typeof_pyval(a) for a in args)


def loaded(dispatcher: Any, types: tuple[Any, ...]) -> bool:
    """Is the kernel compiled in this process, or now loaded from the cache? (False: unknown)."""
    if types in dispatcher.overloads:
        return True
    try:  # Numba's own cache lookup (Dispatcher.compile's first step), without compiling
        from numba.core.compiler_lock import global_compiler_lock

        with global_compiler_lock:
            cres = dispatcher._cache.load_overload(types, dispatcher.targetctx)
            if cres is None:
                return False
            dispatcher._cache_hits[types] += 1
            dispatcher.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            dispatcher.add_overload(cres)
            return True
    except Exception:  # a Numba without these internals: compile as usual
        return False


def _cacheable(dispatcher: Any) -> bool:
    cache = getattr(dispatcher, "_cache", None)
    return cache is not None and type(cache).__name__ != "NullCache"


def share(items: list[Any], jobs: int, key: Callable[[Any], float]) -> list[list[Any]]:
    """Split items of ``key(item)`` seconds into at most ``jobs`` groups, longest first.

    Group 0 stays in this process; every other group is a worker's and
    starts with the cost of starting one, so a worker is used only when it
    shortens the estimated wall time. Empty worker groups are left out.

    Examples
    --------
    >>> from tilecast._kernels.jobs import share
    >>> share([("a", 0.5), ("b", 5.0), ("c", 4.5)], 2, key=lambda item: item[1])
    [[('b', 5.0), ('a', 0.5)], [('c', 4.5)]]
    """
    groups: list[list[Any]] = [[] for _ in range(jobs)]
    load = [0.0] + [_START_SECONDS] * (jobs - 1)
    for item in sorted(items, key=lambda i: -key(i)):
        g = min(range(jobs), key=lambda k: load[k] + key(item))
        groups[g].append(item)
        load[g] += key(item)
    return [groups[0]] + [g for g in groups[1:] if g]


def python_command(code: str, *args: str) -> list[str]:
    """``python -c code *args`` run with this process's tilecast first on ``sys.path``.

    The same tilecast, hence the same kernel cache. In ``code``,
    ``sys.argv[2:]`` are ``args``.

    Examples
    --------
    >>> from tilecast._kernels.jobs import python_command
    >>> python_command("pass", "a")[-1]
    'a'
    """
    import tilecast

    root = str(Path(tilecast.__file__).resolve().parent.parent)
    prelude = "import sys; sys.path.insert(0, sys.argv[1]); "
    return [sys.executable, "-c", prelude + code, root, *args]


def start(
    command: list[str], *, payload: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes] | None:
    """Start a quiet worker process (``payload`` on its standard input); None if it cannot start."""
    try:
        worker = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL if payload is None else subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),
        )
    except (OSError, ValueError):
        return None
    if payload is None:
        return worker
    try:
        assert worker.stdin is not None
        worker.stdin.write(payload)
        worker.stdin.close()
    except OSError:  # it died at once: nothing to wait for
        worker.kill()
        worker.wait()
        return None
    return worker


def _worker_command() -> list[str]:
    return python_command("from tilecast._kernels.jobs import work; sys.exit(work())")


def _start_worker(units: list[Unit]) -> subprocess.Popen[bytes] | None:
    payload = pickle.dumps(
        [(u[0].py_func.__module__, u[0].py_func.__qualname__, tuple(u[1])) for u in units]
    )
    return start(_worker_command(), payload=payload)


def _name(unit: Unit) -> str:
    function = unit[0].py_func
    return f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}"


def compile_together(units: Sequence[Unit]) -> None:
    """Make every unit compiled in this process: loaded, compiled here, or by a worker.

    Units already compiled or in the cache are only loaded. The rest are
    shared between this process and up to ``job_count() - 1`` workers; this
    process compiles its share, waits for the workers, then loads (or, if a
    worker failed, compiles) theirs.

    Examples
    --------
    >>> from tilecast._kernels.jobs import compile_together
    >>> from tilecast._kernels.visibility import FINISH_SIGNATURE, finish_walls
    >>> compile_together([(finish_walls, FINISH_SIGNATURE.args, 0.7)])
    >>> FINISH_SIGNATURE.args in finish_walls.overloads
    True
    """
    with _one_at_a_time:
        _compile_pending([u for u in units if not loaded(u[0], tuple(u[1]))])


def _compile_pending(pending: list[Unit]) -> None:
    jobs = job_count()
    if len(pending) < 2 or jobs < 2 or not all(_cacheable(u[0]) for u in pending):
        for unit in pending:
            unit[0].compile(tuple(unit[1]))
        return
    here, *elsewhere = share(pending, jobs, key=lambda unit: unit[2])
    workers = []
    for group in elsewhere:
        worker = _start_worker(group)
        if worker is None:
            here.extend(group)
        else:
            _logger.info("compiling %s in a worker process", ", ".join(_name(u) for u in group))
            workers.append((worker, group))
    for unit in here:
        unit[0].compile(tuple(unit[1]))
    for worker, group in workers:
        try:
            worker.wait(timeout=patience(sum(unit[2] for unit in group)))
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        for unit in group:  # from the cache; compiled here if the worker left it out
            unit[0].compile(tuple(unit[1]))


def work() -> int:
    """A worker's body: compile the kernels named on standard input into the cache."""
    import importlib

    requests = pickle.loads(sys.stdin.buffer.read())
    logging.getLogger("tilecast").setLevel(logging.WARNING)
    for module_name, qualname, types in requests:
        dispatcher = importlib.import_module(module_name)
        for part in qualname.split("."):
            dispatcher = getattr(dispatcher, part)
        dispatcher.compile(tuple(types))
    return 0
