"""Session hooks: two runs of test files start in the background (``background.py``).

``tests/test_boundscheck.py`` reruns the kernel tests in a subprocess with
Numba's bounds checks, which recompiles every kernel (minutes, mostly on one
core). When that test is selected, its subprocess starts right after
collection and the test itself moves to the end of the session, so the rerun
and the rest of the suite share the machine's cores instead of taking turns.

``tests/test_side_run.py`` does the same for some test files of the suite
itself, when the session collects them whole: they leave the session and
run in a second process beside it.

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
import test_side_run
from background import TESTS

#: Test files some of whose tests the session left out (``-k``, ``-m``, ``--deselect``).
_THINNED = pytest.StashKey[set[Path]]()
#: The folder of the background runs' caches and reports.
_FOLDER = pytest.StashKey[Path]()


def _is_boundscheck(item: pytest.Item) -> bool:
    return item.get_closest_marker("boundscheck") is not None


def _is_side_run(item: pytest.Item) -> bool:
    return getattr(item, "function", None) is test_side_run.test_side_run_passes


def _waits_for_a_run(item: pytest.Item) -> bool:
    """The tests that wait for a background run: they go last."""
    return _is_boundscheck(item) or _is_side_run(item)


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
    last = [item for item in items if _waits_for_a_run(item)]
    if last:
        items[:] = [item for item in items if not _waits_for_a_run(item)] + last


def pytest_deselected(items):
    """Note the files whose tests were thinned out: the side run takes only whole files."""
    if items:
        thinned = items[0].config.stash.setdefault(_THINNED, set())
        thinned.update(Path(item.path) for item in items)


def _side_files(session: pytest.Session) -> list[Path]:
    """The side run's files that this session collected whole (empty: no side run)."""
    config = session.config
    if not any(map(_is_side_run, session.items)):
        return []
    thinned = config.stash.get(_THINNED, set())
    named = {Path(arg.split("::")[0]).resolve() for arg in config.args if "::" in arg}
    collected = {Path(item.path) for item in session.items}
    files = [TESTS / name for name in test_side_run.SIDE_TESTS]
    return [f for f in files if f in collected and f not in thinned and f not in named]


def pytest_collection_finish(session):
    """Start the background runs once the selection is final (``-m``, ``-k`` and
    ``--deselect`` applied); the side run's files leave the session."""
    config = session.config
    if config.option.collectonly:
        return
    side_files = _side_files(session)
    rerun = any(map(_is_boundscheck, session.items))
    if not side_files and not rerun:
        return
    folder = config.stash[_FOLDER] = Path(tempfile.mkdtemp(prefix="tilecast-tests-"))
    if rerun:
        cache = folder / "numba-cache"
        config.stash[test_boundscheck.BACKGROUND] = (test_boundscheck.start_run(cache), cache)
    if side_files:
        session.items[:] = [item for item in session.items if Path(item.path) not in side_files]
        config.stash[test_side_run.SIDE_RUN] = test_side_run.start_side_run(side_files, folder)
        _compile_shared_families()


def _compile_shared_families() -> None:
    """Compile (or load) the walk's families here, while the side run starts with
    files that do not need them: the side run's later files then load them from
    the cache instead of compiling them a second time beside this process."""
    from tilecast.startup import run_families

    try:
        run_families(list(test_side_run.SHARED_FAMILIES))
    except Exception:  # the tests that use these families will say what failed
        pass


def pytest_sessionfinish(session, exitstatus):
    """Stop the runs the session did not wait for (it ended early), and remove their files."""
    config = session.config
    rerun = config.stash.get(test_boundscheck.BACKGROUND, None)
    if rerun is not None:
        rerun[0].stop()
    side = config.stash.get(test_side_run.SIDE_RUN, None)
    if side is not None:
        side.stop()
    folder = config.stash.get(_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how many tests the side run passed (they are not in the session's count)."""
    summary = config.stash.get(test_side_run.SIDE_SUMMARY, None)
    if summary is not None:
        files = ", ".join(path.name for path in config.stash[test_side_run.SIDE_RUN].files)
        terminalreporter.write_line(f"side run ({files}): {summary.strip('= ')}")
