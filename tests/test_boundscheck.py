"""Run the kernel tests once more with Numba's bounds checking switched on.

The compiled kernels skip bounds checks for speed, so an index error there would
read or write out of bounds silently. This test reruns the kernel test files in
a subprocess with ``NUMBA_BOUNDSCHECK=1`` and an empty ``NUMBA_CACHE_DIR`` (so
every kernel is recompiled with the checks, not loaded from the normal cache);
any out-of-bounds access then raises ``IndexError`` and fails a test there.
Its hypothesis tests run at most ``conftest.BOUNDSCHECK_EXAMPLES`` examples
each (the same tests and code paths; the main run checks the answers with
the full numbers).

It takes a few minutes (every kernel compiles from scratch, mostly on one
core), so the run starts in the background as soon as the session has
collected this test (``tests/conftest.py``), beside the rest of the suite,
and the test, moved to the end of the session, waits for it and checks its
outcome. It carries the ``boundscheck`` marker: CI's plain
``python -m pytest`` runs it, and during development
``python -m pytest -m "not boundscheck"`` leaves it out (and starts nothing).
"""

from pathlib import Path

import pytest

from background import TESTS, Run

#: The background run started at collection: (the run, its cache folder).
BACKGROUND = pytest.StashKey[tuple[Run, Path]]()

# The kernels' own tests. test_stack.py and test_spatial_hash.py are left out
# (the suite's time): every batch call walks the lanes' MapStack path that a
# stack takes (a map is a stack of one, test_batch.py), and the hash's kernels
# are those test_bodies.py runs against its oracle.
KERNEL_TESTS = (
    "test_batch.py",
    "test_fov.py",
    "test_lines.py",
    "test_geometry.py",
    "test_visibility.py",
    "test_visibility_sort.py",
    "test_tiles.py",
    "test_tilebatch.py",
    "test_sensor.py",
    "test_scan_shapes.py",
    "test_mapping.py",
    "test_visibility_scene.py",
    "test_concurrency.py",
    "test_bodies.py",
    "test_casts.py",
    "internal/test_walk.py",
    "internal/test_farwalk.py",
    "internal/test_sensor_kernel.py",
    "internal/test_scene_expansion.py",
    "internal/test_kernel_entry_points.py",
)


def start_run(cache_dir: Path) -> Run:
    """Start the kernel tests under ``NUMBA_BOUNDSCHECK=1``, compiling into ``cache_dir``."""
    env = dict(
        NUMBA_BOUNDSCHECK="1",
        NUMBA_CACHE_DIR=str(cache_dir),
        TILECAST_BOUNDSCHECK_RUN="1",  # conftest.py: at most BOUNDSCHECK_EXAMPLES per test
        TILECAST_COMPILE_JOBS="1",  # no compile workers: the session runs beside it
    )
    cache_dir.mkdir(parents=True, exist_ok=True)
    return Run([TESTS / name for name in KERNEL_TESTS], env, cache_dir.parent / "report.txt")


@pytest.mark.boundscheck
def test_kernel_tests_pass_with_numba_boundscheck(request, tmp_path):
    run = request.config.stash.get(BACKGROUND, None)
    if run is None:  # not started at collection (run on its own, or from another runner)
        run = (start_run(tmp_path / "numba-cache"), tmp_path / "numba-cache")
    process, cache_dir = run
    returncode, tail = process.wait(timeout=1800)
    assert returncode == 0, f"kernel tests failed under NUMBA_BOUNDSCHECK=1:\n{tail}"
    # The cache really was the fresh one: the kernels were compiled into it.
    assert any(cache_dir.rglob("*.nbi")), "no kernel was compiled"
