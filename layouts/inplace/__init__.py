"""Conversions inside a tensor's own memory: :func:`convert_inplace` and its planner.

The front end (:mod:`.front`) checks the call and runs the plan; the planner (:mod:`.plan`)
turns a permutation into passes, each done by one of the methods of :mod:`.methods` in bounded
memory; :mod:`.run` runs them so that whatever stops a run, the buffer holds the source or the
result; :mod:`.signals` holds signals to the points where a run can stop cleanly, and
:mod:`.faultpoints` stops it on purpose in tests; :mod:`.tune` measures the methods' costs.

>>> import numpy as np
>>> from layouts.inplace import convert_inplace, plan_inplace
>>> x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
>>> convert_inplace(x, "NCHW", "NHWC").shape
(2, 4, 5, 3)
>>> [p.method for p in plan_inplace("NCHW", "CHWN", (128, 64, 56, 56), "float32", threads=1).passes]
['split']
"""

from .front import convert_inplace, plan_inplace
from .methods import MIN_BUDGET, scratch_budget
from .plan import InplacePlan, Pass

__all__ = ["convert_inplace", "plan_inplace", "scratch_budget", "InplacePlan", "Pass", "MIN_BUDGET"]
