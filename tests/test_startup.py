"""Start-up: the compile notice (logger ``tilecast``), ``warmup`` and ``tilecast warmup``."""

import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

from tilecast import warmup
from tilecast.cli import main
from tilecast.startup import FAMILIES

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = """
import logging, sys
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s|%(message)s")
import tilecast
print(tilecast.line((0, 0), (3, 1)).tolist())
"""


def _run_child(cache_dir):
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(cache_dir),
        PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    result = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_a_compile_is_logged_once_and_a_cache_load_is_silent(tmp_path):
    cold = _run_child(tmp_path)
    notices = [line for line in cold if line.startswith("tilecast|compiling")]
    assert notices == ["tilecast|compiling lines.fill_line8 (first use after install; cached "
                       "for later runs)"]  # fmt: skip
    assert cold[-1] == "[[0, 0], [1, 0], [2, 1], [3, 1]]"
    warm = _run_child(tmp_path)  # the same cache: loaded, not compiled
    assert warm == ["[[0, 0], [1, 0], [2, 1], [3, 1]]"]


def test_warmup_runs_every_family_and_reports_seconds():
    seconds = warmup(progress=False)
    assert list(seconds) == [name for name, _ in FAMILIES]
    assert all(value >= 0.0 for value in seconds.values())


def test_warmup_progress_bar_ends_with_every_family_ready(capsys):
    warmup()
    err = capsys.readouterr().err
    assert f"{len(FAMILIES)}/{len(FAMILIES)} ready in" in err


def test_cli_warmup_prints_the_families(capsys):
    assert main(["warmup", "--quiet", "--times"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" s  ", 1)[1] for line in out] == [name for name, _ in FAMILIES]


class _FakeWorker:
    """A worker process that was started but compiles nothing (exit code 1)."""

    started: ClassVar[list[list[str]]] = []

    def __init__(self, command, **options):
        assert options["env"]["TILECAST_COMPILE_JOBS"] == "1"  # workers compile one at a time
        self.command = command
        _FakeWorker.started.append(command)

    def wait(self, timeout=None):
        return 1


def _fake_subprocess():
    from types import SimpleNamespace

    return SimpleNamespace(
        Popen=_FakeWorker,
        DEVNULL=subprocess.DEVNULL,
        PIPE=subprocess.PIPE,
        TimeoutExpired=subprocess.TimeoutExpired,
    )


def test_a_cold_warmup_shares_family_groups_with_workers(monkeypatch):
    """Groups sharing no kernels go to workers; this process takes the longest, then
    waits for the workers and loads (here, compiles: the fake workers did nothing)."""
    from tilecast._kernels import jobs

    warmup(progress=False)  # every family loaded here first: only warmup's workers are faked
    _FakeWorker.started = []
    monkeypatch.setenv("TILECAST_COMPILE_JOBS", "2")
    monkeypatch.setattr(jobs, "loaded", lambda dispatcher, types: False)  # a cold cache
    monkeypatch.setattr(jobs, "subprocess", _fake_subprocess())
    seconds = warmup(progress=False)
    assert sorted(seconds) == sorted(name for name, _ in FAMILIES)
    assert len(_FakeWorker.started) == 1
    names = _FakeWorker.started[0][4:]  # python -c <body> <root> <families...>
    assert "circle_cast, box_cast, move_and_slide" not in names  # the longest: here
    assert {"visibility_polygon", "VisibilityScene", "scan_many", "fov", "lines",
            "point_in_polygon"} <= set(names)  # fmt: skip
    # every group whole: the walk's families together, the fov's together
    assert {"raycast_many, scan on a Grid", "scan_likelihood"} <= set(names)
    assert "fov_many and fov_counts" in names


def test_a_warm_cache_or_one_job_starts_no_warmup_worker(monkeypatch):
    from tilecast._kernels import jobs

    _FakeWorker.started = []
    monkeypatch.setattr(jobs, "subprocess", _fake_subprocess())
    monkeypatch.setenv("TILECAST_COMPILE_JOBS", "2")
    warmup(progress=False)  # this test process has every kernel already
    monkeypatch.setenv("TILECAST_COMPILE_JOBS", "1")
    warmup(progress=False)
    assert _FakeWorker.started == []


def test_every_family_is_in_one_warmup_group():
    from tilecast.startup import _GROUPS

    grouped = [name for names, _ in _GROUPS for name in names]
    assert sorted(grouped) == sorted(name for name, _ in FAMILIES)


def test_the_compile_notice_ignores_functions_without_a_module():
    """A jitted function made by ``exec`` has no ``__module__``: its compile must not
    trip tilecast's compile listener (installed for every Numba compile)."""
    from numba import njit

    import tilecast._kernels  # installs the listener

    namespace: dict = {"__name__": None}
    exec("def twice(x):\n    return 2 * x\n", namespace)
    namespace["twice"].__module__ = None
    assert tilecast._kernels is not None
    assert njit(namespace["twice"])(21) == 42
