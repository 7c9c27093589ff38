"""What the copy engine knows and measures of this CPU: the machine profile (:mod:`.profile`),
the reference machines (:mod:`.machines`), measuring it (:mod:`.tune`, :mod:`.wisdom`), thread
placement (:mod:`.affinity`) and numba's cache of the kernels (:mod:`.jit_cache`)."""
