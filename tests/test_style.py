"""The code base is ruff clean: ``ruff check`` and ``ruff format --check`` (config in pyproject)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    exe = shutil.which("ruff")
    if exe:
        return [exe]
    probe = subprocess.run(
        [sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True
    )
    if probe.returncode == 0:
        return [sys.executable, "-m", "ruff"]
    pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")


def _targets() -> list[str]:
    targets = [name for name in ("src", "tests", "benchmarks") if (ROOT / name).is_dir()]
    targets += sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.py"))
    return targets


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(command):
    ruff = _ruff()
    targets = _targets()
    assert "src" in targets and "tests" in targets
    result = subprocess.run(
        [*ruff, *command, *targets], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert result.returncode == 0, (
        f"ruff {' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    )


def test_mypy_strict_passes_on_the_package():
    """The public API type-checks: ``mypy`` with the strict config of pyproject.toml."""
    probe = subprocess.run(
        [sys.executable, "-m", "mypy", "--version"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        pytest.skip("mypy is not installed (pip install -e '.[test]' brings it)")
    result = subprocess.run(
        [sys.executable, "-m", "mypy"], capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    assert result.returncode == 0, f"mypy failed:\n{result.stdout}\n{result.stderr}"
