"""Some test files run in a second process beside the rest of the suite.

The whole suite (``python -m pytest``, as CI runs it) would run every test
file one after another in one process, mostly on one core, while the
machine has two or more: its time is that process's. So when a session
collects these files whole (none of their tests left out, none named by
itself on the command line) and selects this test, ``conftest.py`` takes
them out of the session and runs them in a second pytest process started
right after collection, with the same Numba cache; this test, moved to the
end of the session, waits for that run and fails with the tail of its
report if any of its tests failed. Run on their own (``python -m pytest
tests/test_bodies.py``) or in any narrower selection, the files run in the
session as usual, and this test is skipped.

The files are chosen so that the two processes seldom need the same kernels
at the same time (each family compiles once, into the shared cache: the
session compiles the walk's families first, ``SHARED_FAMILIES``, while the
side run begins with files that do not use them; the side run compiles the
bodies and the casts, which the session meets minutes later), and so that
the side run and the bounds-checked rerun (``test_boundscheck.py``) take
about as long as the rest of the session: the style checks (ruff and
mypy), the loaders' fuzzing, the geometry primitives, the CUDA device code,
the bodies and the shape casts, then the array producers, the API's
fuzzing, Dask and the visibility scene. In a fresh clone on a 2-core
machine (d61070e, three processes on two cores) the side run's first six
files took 341 s, the rerun 476 s and the session 547 s, ending alone; with
the next three files the session took 495 s and the side run 394 s (600 s
and 490 s in a slower run), so the scene's two files followed (about 45 s
of the session's).
"""

from pathlib import Path

import pytest

from background import Run

#: The side run started at collection (none when the files run in the session).
SIDE_RUN = pytest.StashKey[Run]()
#: What the side run reported, once it passed.
SIDE_SUMMARY = pytest.StashKey[str]()

SIDE_TESTS = (
    "test_style.py",
    "test_fuzz_loaders.py",
    "test_geometry.py",
    "internal/test_cuda_device_code.py",
    "test_bodies.py",
    "test_casts.py",
    # last: by the time the side run reaches them the session has compiled what they load
    "test_arrays.py",
    "test_fuzz_api.py",
    "test_dask.py",
    "test_visibility_scene.py",  # the scene family: compiled by the session's first tests
    "internal/test_scene_expansion.py",
)
#: The kernel families (``tilecast.startup.FAMILIES``) that both processes need: the
#: session compiles them first (``conftest.py``), while the side run starts with the
#: files that do not use them.
SHARED_FAMILIES = (
    "single rays (raycast, raycast_all, line_of_sight, traverse)",
    "raycast_many, scan on a Grid",
)


def start_side_run(files: list[Path], folder: Path) -> Run:
    """Start the side run on ``files``; its report goes to ``folder``."""
    # no compile workers: the session and the bounds-checked rerun run beside it
    return Run(files, {"TILECAST_COMPILE_JOBS": "1"}, folder / "side-run.txt")


def test_side_run_passes(request):
    run = request.config.stash.get(SIDE_RUN, None)
    if run is None:
        pytest.skip("the side run's files ran in this session")
    returncode, tail = run.wait(timeout=3600)
    assert returncode == 0, f"tests run beside the session failed:\n{tail}"
    # the run's summary line ("N passed in ..."), shown at the end of the session's report
    request.config.stash[SIDE_SUMMARY] = tail.splitlines()[-1]
