"""Compiled (Numba) kernels, one module per family; called only after validation.

Importing this package (which every kernel module does first) installs one
listener on Numba's compile events: when a tilecast kernel starts compiling
(a cache miss, i.e. its first use after installation), the logger
``tilecast`` says so once, at INFO level. Loading from the cache is silent.
:func:`internal` compiles the helpers that only other kernels call.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from numba.core import event

_logger = logging.getLogger("tilecast")


class _CompileNotice(event.Listener):  # type: ignore[misc]
    """Log the start of each top-level compile of a tilecast kernel."""

    def __init__(self) -> None:
        self._depth = threading.local()

    def on_start(self, ev: event.Event) -> None:
        depth = getattr(self._depth, "value", 0)
        self._depth.value = depth + 1
        if depth:
            return  # a helper compiled for the kernel being compiled
        dispatcher = ev.data.get("dispatcher")
        function = getattr(dispatcher, "py_func", None)
        module = getattr(function, "__module__", None) or ""
        if module.startswith("tilecast."):
            _logger.info(
                "compiling %s.%s (first use after install; cached for later runs)",
                module.rsplit(".", 1)[-1],
                function.__name__,
            )

    def on_end(self, ev: event.Event) -> None:
        self._depth.value = getattr(self._depth, "value", 1) - 1


event.register("numba:compile", _CompileNotice())


def internal(
    function: Any = None, *, signature: Any = None, by_address: bool = False, **options: Any
) -> Any:
    """Compile a kernel that only other kernels call: ``@internal`` or ``@internal(**options)``.

    Compiled only into the kernels that call it (:mod:`tilecast._kernels.link_only`:
    no machine code, no cache entry of its own), with Numba's other
    ``options`` as given. A kernel called through its address
    (:func:`tilecast._kernels.intrinsics.caller_of`) needs code of its own:
    ``by_address=True`` (cached), or a ``signature`` (a tuple of argument
    types), and it is then compiled for that one signature when its module is
    imported. Numba gives every compiled function a Python entry wrapper and
    a C wrapper, with their own machine code; a function never called from
    Python needs neither, and leaving them out shortens the first compile
    (about a tenth for the walk). ``inline="always"`` has LLVM inline the
    helper into its callers (:mod:`tilecast._kernels.link_only`), not
    Numba's IR inliner (slow to compile, the same machine code).
    """
    from numba import njit

    from tilecast._kernels.link_only import link_only_options

    signatures = [] if signature is None else [signature]
    # Called only from other kernels, a helper needs no code of its own: it is
    # compiled into its callers alone (link_only); one called through its
    # address (a signature) needs its own machine code, cached.
    link_only = link_only_options() if signature is None and not by_address else None
    if link_only is not None and options.get("inline") == "always":
        from tilecast._kernels.link_only import inlined_options

        options = {k: v for k, v in options.items() if k != "inline"}
        link_only = inlined_options()
    decorate = njit(
        *signatures,
        cache=link_only is None,
        no_cpython_wrapper=True,
        no_cfunc_wrapper=True,
        **(link_only or {}),
        **options,
    )

    def compiled(py_func: Any) -> Any:
        return _without_literal_copies(decorate(py_func))

    return compiled if function is None else compiled(function)


def _without_literal_copies(dispatcher: Any) -> Any:
    """Make kernels compile ``dispatcher`` for the plain types of the constants they pass it.

    A kernel that calls another with a constant integer or bool (``f(x, 1)``,
    ``f(x, True)``) has Numba compile a copy of the callee for that literal
    (``Literal[int](1)``) besides the one for ``int64``, each with its own
    machine code and everything it calls linked in again. Typed as its plain
    type, the constant is converted at the call, as a variable would be, and
    the callee is compiled once.
    """
    from numba.core.types import unliteral

    typed = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        return typed(tuple(unliteral(a) for a in args), {k: unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher
