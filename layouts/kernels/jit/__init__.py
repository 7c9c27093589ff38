"""The copy engine's compiled loops: numba code only (``@njit`` kernels and ``@intrinsic``
vector operations), each called by the strategy of the same name in :mod:`..strategies`."""
