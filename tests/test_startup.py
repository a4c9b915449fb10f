"""Start-up: the compile notice (logger ``tilecast``), ``warmup`` and ``tilecast warmup``."""

import os
import subprocess
import sys
from pathlib import Path

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
