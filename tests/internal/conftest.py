"""White-box tests: they read tilecast's private modules and compare product code with product code.

The tests one level up check the public API against the independent oracles
of ``tests/reference``; these check internals (the compiled walk against the
exact far-range walk, kernel entry points, the compile jobs, the scene's
triangulation, the beam kernel's skip). Their helpers (``farwalk``) and the
shared ones (``reference``, ``strategies``) are importable from here.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
