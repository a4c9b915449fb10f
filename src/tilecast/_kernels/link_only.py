"""Helpers that are compiled only into their callers (a shorter first compile).

Numba compiles every compiled function a kernel calls as a library of its own: LLVM
optimises that library with all of its callees linked in, then emits its
machine code, before the caller links the same code again and optimises
and emits it once more. A helper that only other kernels call never runs
from its own library, so for a deep helper tree (the walk, the hash's ray
query, the exact contacts) most of a family's first compile was spent
optimising and emitting code nobody runs: about 40 % of the bodies family.

:func:`link_only_options` gives :func:`tilecast._kernels.internal` the
options that compile a helper into a library that is only linked: it is
typed and lowered as usual (with the function passes Numba runs on every
module), then handed to its callers, which optimise and emit it with the
rest of their code as before. Such a helper has no machine code of its own
and cannot be cached (it is compiled again, cheaply, only when one of its
callers is); the kernels that call it are cached as before.

A helper declared ``@internal(inline="always")`` is compiled the same way into
an :class:`InlinedLibrary`, whose functions carry LLVM's ``alwaysinline``:
LLVM inlines it into every caller when the caller is optimised. Numba's own
``inline="always"`` inlines at the level of its IR instead, typing the
inlined body again at every call site, and nested helpers again inside
each of those: the hash's per-cell visit (four levels deep) took the bodies
family from 96 s to 137 s of compile on one core, for the same machine code.

This leans on Numba internals (the compiler pipeline, its code library and
the CPU context's ``get_executable``). Where they are not as expected,
:func:`link_only_options` gives ``None`` and helpers compile as ordinary
cached functions: slower to compile, the same code. Setting the environment
variable ``TILECAST_LINK_ONLY=0`` does the same.
"""

from __future__ import annotations

import os
import threading
from typing import Any

_OPTIONS: dict[str, Any] | None = None
_INLINED: dict[str, Any] | None = None
_TRIED = False
_LOCK = threading.Lock()


def _build() -> dict[str, Any] | None:
    from numba import _dynfunc
    from numba.core import codegen, cpu
    from numba.core.compiler import CompilerBase, DefaultPassBuilder
    from numba.core.compiler_machinery import AnalysisPass, register_pass
    from numba.core.typed_passes import AnnotateTypes

    library_class = codegen.JITCodeLibrary

    class LinkOnlyLibrary(library_class):  # type: ignore[misc, valid-type]
        """A code library that is only linked into its callers' (never emitted itself)."""

        tilecast_link_only = True

        def finalize(self) -> None:
            self._raise_if_finalized()
            seen: set[int] = set()
            for library in self._linking_libraries:
                if id(library) in seen:
                    continue
                seen.add(id(library))
                self._reload_init.update(library._reload_init)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
            self._finalized = True

        def get_pointer_to_function(self, name: str) -> int:
            return 0  # no machine code of its own

    class InlinedLibrary(LinkOnlyLibrary):
        """A link-only library whose functions LLVM inlines into every caller."""

        def add_ir_module(self, ir_module: Any) -> None:
            for function in ir_module.functions:
                if not function.is_declaration:
                    function.attributes.discard("noinline")
                    function.attributes.add("alwaysinline")
            super().add_ir_module(ir_module)

    def compiler_for(library_class: type, pass_name: str) -> type:
        """Numba's nopython pipeline, lowering into a ``library_class`` library."""

        @register_pass(mutates_CFG=False, analysis_only=True)
        class UseLibrary(AnalysisPass):  # type: ignore[misc]
            _name = pass_name

            def __init__(self) -> None:
                AnalysisPass.__init__(self)

            def run_pass(self, state: Any) -> bool:
                if state.library is None:
                    state.library = library_class(
                        state.targetctx.codegen(), state.func_id.func_qualname
                    )
                return False

        class Compiler(CompilerBase):  # type: ignore[misc]
            def define_pipelines(self) -> list[Any]:
                pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
                pipeline.add_pass_after(UseLibrary, AnnotateTypes)
                pipeline.finalize()
                return [pipeline]

        return Compiler

    LinkOnlyCompiler = compiler_for(LinkOnlyLibrary, "tilecast_link_only_library")
    InlinedCompiler = compiler_for(InlinedLibrary, "tilecast_inlined_library")

    from numba.core.registry import cpu_target

    probe = LinkOnlyLibrary(cpu_target.target_context.codegen(), "tilecast_probe")
    for name in ("_linking_libraries", "_final_module", "_reload_init", "_finalized",
                 "_raise_if_finalized", "_get_module_for_linking"):  # fmt: skip
        getattr(probe, name)  # an AttributeError: this Numba's internals differ

    get_executable = cpu.CPUContext.get_executable

    def get_executable_or_stub(self: Any, library: Any, fndesc: Any, env: Any) -> Any:
        if not getattr(library, "tilecast_link_only", False):
            return get_executable(self, library, fndesc, env)
        # What Numba gives any function compiled without its Python wrapper
        # (a function object at address 0, never called), without setting the
        # environment's address in machine code that does not exist.
        name = fndesc.qualname.split(".")[-1]
        return _dynfunc.make_function(fndesc.lookup_module(), name, "", 0, env, (library,))

    if not getattr(cpu.CPUContext.get_executable, "_tilecast_link_only", False):
        get_executable_or_stub._tilecast_link_only = True  # type: ignore[attr-defined]
        cpu.CPUContext.get_executable = get_executable_or_stub
    global _INLINED
    _INLINED = {"pipeline_class": InlinedCompiler}
    return {"pipeline_class": LinkOnlyCompiler}


def link_only_options() -> dict[str, Any] | None:
    """Numba options that compile a helper only into its callers, or None where unavailable.

    Examples
    --------
    >>> options = link_only_options()
    >>> options is None or sorted(options) == ["pipeline_class"]
    True
    """
    global _OPTIONS, _TRIED
    if os.environ.get("TILECAST_LINK_ONLY", "1") == "0":
        return None
    with _LOCK:  # one build: one library class, one patch of get_executable
        if not _TRIED:
            try:
                _OPTIONS = _build()
            except (ImportError, AttributeError, TypeError, ValueError):
                _OPTIONS = None
            _TRIED = True
    return _OPTIONS


def inlined_options() -> dict[str, Any] | None:
    """Like :func:`link_only_options`, for a helper LLVM inlines into every caller.

    Examples
    --------
    >>> options = inlined_options()
    >>> options is None or options != link_only_options()
    True
    """
    return _INLINED if link_only_options() is not None else None
