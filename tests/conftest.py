"""Session hooks: the bounds-checked rerun of the kernel tests starts in the background.

``tests/test_boundscheck.py`` reruns the kernel tests in a subprocess with
Numba's bounds checks, which recompiles every kernel (minutes, mostly on one
core). When that test is selected, its subprocess starts right after
collection and the test itself moves to the end of the session, so the rerun
and the rest of the suite share the machine's cores instead of taking turns.

In that rerun (``TILECAST_BOUNDSCHECK_RUN`` set) every hypothesis test runs
at most ``BOUNDSCHECK_EXAMPLES`` examples: the rerun looks for reads and
writes out of bounds on the same tests and the same code paths, while the
exactness of the answers is checked with the full number of examples by the
main run (the suite's time: the rerun recompiles every kernel, and
bounds-checked code runs slower).
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

import test_boundscheck


def _is_boundscheck(item: pytest.Item) -> bool:
    return item.get_closest_marker("boundscheck") is not None


#: The most examples a hypothesis test runs in the bounds-checked rerun.
BOUNDSCHECK_EXAMPLES = 25


def _fewer_examples(items: list[pytest.Item]) -> None:
    """Cap every hypothesis test's examples at BOUNDSCHECK_EXAMPLES (the rerun only)."""
    from hypothesis import settings

    for item in items:
        test = getattr(item, "obj", None)
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)  # @settings/@given's
        if chosen is not None and chosen.max_examples > BOUNDSCHECK_EXAMPLES:
            test._hypothesis_internal_use_settings = settings(  # type: ignore[union-attr]
                chosen, max_examples=BOUNDSCHECK_EXAMPLES
            )


def pytest_collection_modifyitems(session, config, items):
    """Move the bounds-checked rerun to the end of the session (in the rerun: fewer examples)."""
    if os.environ.get("TILECAST_BOUNDSCHECK_RUN"):
        _fewer_examples(items)
    chosen = [item for item in items if _is_boundscheck(item)]
    if not chosen:
        return
    items[:] = [item for item in items if not _is_boundscheck(item)] + chosen


def pytest_collection_finish(session):
    """Start the rerun once the selection is final (``-m``, ``-k`` and ``--deselect`` applied)."""
    if session.config.option.collectonly or not any(map(_is_boundscheck, session.items)):
        return
    folder = Path(tempfile.mkdtemp(prefix="tilecast-boundscheck-"))
    process = test_boundscheck.start_run(folder / "numba-cache")
    session.config.stash[test_boundscheck.BACKGROUND] = (process, folder / "numba-cache")


def pytest_sessionfinish(session, exitstatus):
    """Stop a rerun the session did not wait for (it ended early), and remove its cache."""
    run = session.config.stash.get(test_boundscheck.BACKGROUND, None)
    if run is None:
        return
    process, cache_dir = run
    if process.poll() is None:
        process.kill()
        process.wait()
    shutil.rmtree(cache_dir.parent, ignore_errors=True)
