"""Conversions between layouts: :func:`layouts.convert`'s front end (:mod:`.front`), reusable
conversions (:mod:`.converter`), the plan of views it copies (:mod:`.plan`) and its execution
(:mod:`.execute`), who moves the bytes (:mod:`.loading`: numpy until numba's kernels
pay for their load) and its repeat calls (:mod:`.replays`)."""
