"""Test files run by a second pytest process beside the session (``conftest.py``).

Two such runs share the machine's cores with the main session:

- the bounds-checked rerun of the kernel tests (``test_boundscheck.py``);
- the *side run* (``test_side_run.py``): some test files that the whole
  suite would otherwise run one after another in the main process.

Each writes its report to a file (a pipe could fill up and stop it) and is
waited for by one test at the end of the session, which fails with the tail
of that report if the run failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SRC = ROOT / "src"


class Run:
    """A pytest process started on some test files; its report goes to ``log``."""

    def __init__(self, files: Sequence[Path], env: Mapping[str, str], log: Path) -> None:
        missing = [str(f) for f in files if not f.is_file()]
        assert not missing, f"test files not found: {missing}"
        self.files = list(files)
        self.log = log
        environment = dict(
            os.environ,
            PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
            **env,
        )
        with open(log, "w") as report:
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            self.process = subprocess.Popen(
                command + [str(f) for f in files],
                stdout=report,
                stderr=subprocess.STDOUT,
                env=environment,
                cwd=ROOT,
            )

    def wait(self, timeout: float) -> tuple[int, str]:
        """Wait for the run; return its exit status and the last 60 lines of its report."""
        try:
            self.process.wait(timeout=timeout)
        finally:
            self.stop()
        lines = self.log.read_text(errors="replace").splitlines()
        return self.process.returncode, "\n".join(lines[-60:])

    def stop(self) -> None:
        """Kill the run if it is still going (the session ended without waiting for it)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
