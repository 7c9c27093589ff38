"""What the copy engine knows of this CPU: the machine profile (:mod:`.profile`), the reference
machines (:mod:`.machines`), the measured choices of the planner (:mod:`.wisdom`) and numba's
cache of the kernels (:mod:`.jit_cache`)."""
