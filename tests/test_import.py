"""``import tilecast`` stays light: no Numba, pygame or Pillow until a function needs them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("numba", "llvmlite", "pygame", "PIL")

PROBE = """
import json, sys
import {module}
print(json.dumps({{
    "file": {module}.__file__,
    "heavy": sorted(m for m in {heavy!r} if m in sys.modules),
}}))
"""


def _probe(module: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module, heavy=HEAVY)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "module",
    ["tilecast", "tilecast.io", "tilecast.render", "tilecast.cli", "tilecast.play"],
)
def test_import_pulls_in_no_heavy_dependency(module):
    report = _probe(module)
    # The probe must have imported this checkout, not some other installed copy.
    assert Path(report["file"]).resolve().is_relative_to(SRC.resolve())
    assert report["heavy"] == []


def test_kernels_still_load_on_first_use():
    code = (
        "import sys, tilecast\n"
        "assert 'numba' not in sys.modules\n"
        "grid = tilecast.Grid([[False, True]])\n"
        "print(int(tilecast.fov(grid, (0, 0)).sum()), 'numba' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["2", "True"]
