"""Collection rules for the whole run (the tests, and the doctests of ``src/tilecast``).

``tilecast.cuda`` and its kernels (``_kernels/gpu.py``) need the ``cuda``
extra (numba-cuda); where it is not installed their doctests are not
collected (``tests/test_cuda.py`` skips itself there).
"""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("numba.cuda") is None:  # pragma: no cover - the extra is installed
    collect_ignore += ["src/tilecast/cuda.py", "src/tilecast/_kernels/gpu.py"]
