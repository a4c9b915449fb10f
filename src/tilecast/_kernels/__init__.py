"""Compiled (Numba) kernels, one module per family; called only after validation."""
