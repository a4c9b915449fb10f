"""Compiled (Numba) kernels, one module per family; only the public modules call them."""
