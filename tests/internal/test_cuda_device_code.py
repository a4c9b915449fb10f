"""The device kernels of tilecast.cuda compile for a real GPU, and without fused multiply-adds.

The simulator (``tests/cuda_simulator.py``) runs the kernels as Python, so
it would hide device code that cannot compile, and it cannot show how NVVM
rounds. Here the kernels are compiled to PTX for compute capability 8.0
(NVVM from the CUDA toolkit wheels; no GPU or driver needed) exactly as
:func:`tilecast._kernels.gpu.compile_exact` compiles them, and the PTX must
hold no ``fma.`` instruction: the walk's exactness relies on the rounding of
separate multiplies and adds (its filters, Dekker's products). Without
``no_contraction`` NVVM does fuse them, which the first test shows.
"""

import types as pytypes

import numpy as np
import pytest

cuda = pytest.importorskip("numba.cuda", reason="the cuda extra (numba-cuda) is not installed")
numba = pytest.importorskip("numba")
if numba.config.ENABLE_CUDASIM:
    pytest.skip("compiles real PTX: not under the simulator", allow_module_level=True)

from numba import types  # noqa: E402


def _nvvm_present():
    try:
        from numba.cuda.cudadrv import nvvm

        nvvm.NVVM()
    except Exception:
        return False
    return True


pytestmark = pytest.mark.skipif(not _nvvm_present(), reason="libNVVM (the CUDA toolkit) absent")


@pytest.fixture(scope="module")
def gpu():
    # device functions compile for the current device's compute capability;
    # without a GPU, name one (the kernels themselves get cc explicitly)
    import numba.cuda.dispatcher as dispatcher

    saved = dispatcher.get_current_device
    dispatcher.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=(8, 0))
    from tilecast._kernels import gpu

    yield gpu
    dispatcher.get_current_device = saved


def _ptx(kernel, signature, exact=True):
    from tilecast._kernels import gpu

    if not exact:
        return cuda.compile_ptx(kernel.py_func, signature, cc=(8, 0))[0]
    with gpu.no_contraction():
        return cuda.compile_ptx(kernel.py_func, signature, cc=(8, 0))[0]


def _signatures():
    from tilecast._kernels import walk

    f8, i8 = types.float64, types.int64
    return {
        "cast_rays": (walk.MAP_TYPE, walk.BATCH_TYPE, walk.HITS_TYPE, types.boolean[::1],
                      i8[::1]),
        "cast_beams": (walk.MAP_TYPE, f8[:, ::1], f8[::1], f8, types.float32[::1],
                       types.uint8[::1], i8[::1]),
        "table_sums": (f8[::1], i8, f8[:, ::1], i8[::1], f8, f8, f8[::1]),
    }  # fmt: skip


def _multiply_add(values, out):
    """A product and a sum: the pattern NVVM fuses, as in the walk's filters."""
    out[0] = values[0] * values[1] + values[2]


_MULTIPLY_ADD = (types.float64[::1], types.float64[::1])


def test_nvvm_fuses_without_the_option(gpu):
    """The checks below can fail: compiled the default way, a product and a sum are fused
    (shown on a one-line kernel: the walk's own kernels take a minute each to compile)."""
    assert "fma.rn.f64" in cuda.compile_ptx(_multiply_add, _MULTIPLY_ADD, cc=(8, 0))[0]
    with gpu.no_contraction():
        ptx = cuda.compile_ptx(_multiply_add, _MULTIPLY_ADD, cc=(8, 0))[0]
    assert "fma." not in ptx and "mul.rn.f64" in ptx and "add.rn.f64" in ptx


@pytest.mark.parametrize("name", ["cast_rays", "cast_beams", "table_sums"])
def test_kernels_compile_without_fma(gpu, name):
    ptx = _ptx(getattr(gpu, name), _signatures()[name])
    assert ".entry" in ptx
    assert "fma." not in ptx
    if name != "table_sums":
        assert "div.rn.f64" in ptx  # IEEE division (not the approximate one of fast math)
    if name == "cast_rays":
        assert "sqrt.rn.f64" in ptx  # the ray's norm, correctly rounded as on the CPU
        assert "div.approx" not in ptx and "ftz" not in ptx


def test_the_device_walk_is_the_cpu_walk(gpu):
    """Retargeted, not rewritten: each device helper runs the CPU helper's own code."""
    from tilecast._kernels import walk

    assert gpu.walk_first.py_func.__code__ is walk.walk_first.py_func.__code__
    assert gpu.cast_ray.py_func.__code__ is walk.cast_ray.py_func.__code__
    calls = gpu.walk_first.py_func.__globals__
    assert calls["_step"].py_func.__code__ is walk._step.py_func.__code__
    assert calls["_step"] is not walk._step  # the device version, not the CPU dispatcher


@pytest.fixture
def no_driver(gpu, monkeypatch):
    """Compile kernels as on a GPU of compute capability 8.0, up to loading them (no driver)."""
    import numba.cuda.codegen as codegen
    import numba.cuda.dispatcher as dispatcher

    device = pytypes.SimpleNamespace(compute_capability=(8, 0))
    monkeypatch.setattr(cuda, "get_current_device", lambda: device)
    monkeypatch.setattr(codegen.CUDACodeLibrary, "_ensure_cc", lambda self, cc: cc or (8, 0))
    monkeypatch.setattr(dispatcher._Kernel, "bind", lambda self: None)  # loading needs a driver
    return gpu


def _beam_args():
    import numpy as np

    from tilecast import Grid
    from tilecast._walkmap import walk_map

    view, _ = walk_map(Grid([[0, 1]]))
    return (view, np.zeros((1, 3)), np.zeros(2), 5.0, np.zeros(2), np.zeros(2, np.uint8),
            np.zeros(1, np.int64))  # fmt: skip


def test_compile_exact_compiles_what_the_launch_runs(no_driver):
    """The production path: the kernel compiled for the launch's argument types, its PTX
    checked; without the option, the same check refuses the kernel."""
    gpu = no_driver
    args = _beam_args()
    compiled = gpu.compile_exact(gpu.cast_beams, args)
    assert compiled is gpu.compile_exact(gpu.cast_beams, args)  # once per signature
    assert compiled.argument_types == tuple(gpu.cast_beams.typeof_pyval(a) for a in args)
    assert "fma." not in compiled.inspect_asm((8, 0))


def test_compile_exact_refuses_fused_code(no_driver, monkeypatch):
    """Without the option, compile_exact's check refuses the kernel (a one-line kernel here)."""
    import contextlib

    gpu = no_driver
    monkeypatch.setattr(gpu, "no_contraction", contextlib.nullcontext)
    monkeypatch.setattr(gpu, "_compiled", {})
    kernel = cuda.jit(_multiply_add)
    with pytest.raises(RuntimeError, match="fused multiply-adds"):
        gpu.compile_exact(kernel, (np.zeros(3), np.zeros(1)))
