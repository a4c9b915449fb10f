"""The one loader of compiled kernel families (imports nothing of tilecast).

Public modules reach it through :mod:`tilecast._engine`; the engine's own
helpers (:mod:`tilecast._walkmap`) import it directly.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_families: dict[str, ModuleType] = {}


def kernels(family: str) -> ModuleType:
    """Return the compiled kernel module ``tilecast._kernels.<family>``, loaded on first use.

    Loading a family imports Numba and loads (or, after an install, compiles)
    its kernels; ``import tilecast`` itself loads none.

    Examples
    --------
    >>> kernels("geometry").__name__
    'tilecast._kernels.geometry'
    """
    module = _families.get(family)
    if module is None:
        module = importlib.import_module(f"tilecast._kernels.{family}")
        _families[family] = module
    return module
