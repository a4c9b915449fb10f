"""Compiled (Numba) kernels, one module per family; callers validate all input first."""
