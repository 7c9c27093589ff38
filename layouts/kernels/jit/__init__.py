"""The copy engine's compiled loops: numba code only (kernels and the vector intrinsics they
inline), each called by the strategy of the same name in :mod:`..strategies`."""
