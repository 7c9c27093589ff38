"""Rows: dst and src share their innermost axis (a pitched copy, a crop, a padded channel block):
one loop per row, rows walked by an odometer (:mod:`..rows`)."""

from __future__ import annotations

from ..runtime.pool import run_items
from ..records import ROWS, batch_axes, record
from ..strategy import Choice, Strategy


def consider(task, profile):
    p = task.plan
    if p.kind != "rows":
        return "the innermost axes differ (a transpose)" if p.kind == "transpose" else f"a {p.kind} plan"
    args = record(ROWS, n=p.n, dI=p.dI, sI=p.sI)
    batch = batch_axes(p.batch)
    nwork = p.nbatch

    def run(dst, src, d, s, nth):
        from ..jit.rows import rows_kernel
        run_items(rows_kernel, (d, s, args, batch), (), nwork, nth)

    return Choice("rows", f"a shared innermost axis: {nwork} rows of {p.n} units",
                  {"n": p.n, "dI": p.dI, "sI": p.sI, "rows": nwork}, run, work_items=nwork, repeatable=True)


STRATEGY = Strategy("rows", "dst and src share the innermost axis: one loop per row", (), consider)
