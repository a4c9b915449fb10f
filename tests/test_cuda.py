"""tilecast.cuda (DESIGN 23): bit for bit the CPU's answers, on Numba's CUDA simulator.

CI has no GPU. Numba reads ``NUMBA_ENABLE_CUDASIM`` when it is first
imported, so the simulator cases (``tests/cuda_simulator.py``) run in a
subprocess of their own; the PTX that a real GPU would run is checked in
``tests/internal/test_cuda_device_code.py``.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba.cuda", reason="the cuda extra (numba-cuda) is not installed")

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def _python(code_or_args, **env):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(HERE)]), **env}
    args = code_or_args if isinstance(code_or_args, list) else ["-c", code_or_args]
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          env=environment, timeout=1200)  # fmt: skip


def test_on_the_cuda_simulator():
    """Every case of tests/cuda_simulator.py passes (bit for bit the CPU calls)."""
    run = _python(
        ["-m", "pytest", str(HERE / "cuda_simulator.py"), "-q", "-p", "no:cacheprovider"],
        NUMBA_ENABLE_CUDASIM="1",
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout


def test_without_numba_cuda_the_import_says_what_to_install():
    code = (
        "import sys; sys.modules['numba.cuda'] = None\n"
        "try:\n    import tilecast.cuda\nexcept ImportError as e:\n    print('ImportError:', e)\n"
    )
    run = _python(code)
    assert "ImportError:" in run.stdout and "pip install 'tilecast[cuda]'" in run.stdout


def test_without_a_gpu_a_call_says_what_to_install():
    run = _python(
        "import numba.cuda, numpy as np\n"
        "if numba.cuda.is_available(): print('has a GPU')\n"
        "else:\n"
        "    import tilecast, tilecast.cuda as tc\n"
        "    class Fake:\n"
        "        __cuda_array_interface__ = {'shape': (1, 2), 'typestr': '<f8', 'data': (0, False),"
        " 'version': 3}\n"
        "    try:\n"
        "        tc.raycast_many(tilecast.Grid([[0]]), Fake(), Fake())\n"
        "    except ImportError as e:\n"
        "        print('ImportError:', e)\n"
    )
    if "has a GPU" in run.stdout:
        pytest.skip("a GPU is present")
    assert "ImportError:" in run.stdout and "NVIDIA driver" in run.stdout, run.stderr[-2000:]


def test_host_arrays_are_refused_by_name():
    import numpy as np

    import tilecast
    import tilecast.cuda as tc

    grid = tilecast.Grid([[0, 1]])
    with pytest.raises(TypeError, match=r"origins is on the host \(numpy.ndarray\)"):
        tc.raycast_many(grid, np.zeros((1, 2)), np.ones((1, 2)))
    with pytest.raises(TypeError, match="poses is on the host"):
        tc.scan_likelihood(grid, [(0.5, 0.5, 0.0)], [0.0], [1.0], max_range=2.0,
                           table=[[1.0]], table_resolution=1.0)  # fmt: skip
