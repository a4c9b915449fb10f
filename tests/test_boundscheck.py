"""Run the kernel tests once more with Numba's bounds checking switched on.

The compiled kernels skip bounds checks for speed, so an index error there would
read or write out of bounds silently. This test reruns the kernel test files in
a subprocess with ``NUMBA_BOUNDSCHECK=1`` and an empty ``NUMBA_CACHE_DIR`` (so
every kernel is recompiled with the checks, not loaded from the normal cache);
any out-of-bounds access then raises ``IndexError`` and fails a test there.

It takes a few minutes (every kernel compiles from scratch), so it carries the
``boundscheck`` marker: CI's plain ``python -m pytest`` runs it, and during
development ``python -m pytest -m "not boundscheck"`` leaves it out.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SRC = ROOT / "src"

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
    "test_mapping.py",
    "test_visibility_scene.py",
    "test_concurrency.py",
    "internal/test_walk.py",
    "internal/test_farwalk.py",
    "internal/test_sensor_kernel.py",
    "internal/test_scene_expansion.py",
    "internal/test_kernel_entry_points.py",
)


@pytest.mark.boundscheck
def test_kernel_tests_pass_with_numba_boundscheck(tmp_path):
    missing = [name for name in KERNEL_TESTS if not (TESTS / name).is_file()]
    assert not missing, f"kernel test files not found: {missing}"
    files = [str(TESTS / name) for name in KERNEL_TESTS]
    env = dict(
        os.environ,
        NUMBA_BOUNDSCHECK="1",
        NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"),
        PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=1800,
    )
    tail = "\n".join((result.stdout + result.stderr).splitlines()[-60:])
    assert result.returncode == 0, f"kernel tests failed under NUMBA_BOUNDSCHECK=1:\n{tail}"
    # The cache really was the fresh one: the kernels were compiled into it.
    assert any((tmp_path / "numba-cache").rglob("*.nbi")), "no kernel was compiled"
