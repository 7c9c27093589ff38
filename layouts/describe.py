"""How a :class:`~layouts.layout.Layout` describes itself: its offset formula, a few lines of
explanation, its Jupyter picture and its CuTe form. A mixin whose methods import what they use
(:mod:`layouts.explain`, :mod:`layouts.viz`, :mod:`layouts.cute`) only when called.

>>> from layouts import Layout
>>> Layout("NHWC", N=2, C=16, H=5, W=4).formula()
'n*HWC + h*WC + w*C + c'
"""

from __future__ import annotations

from typing import Any

__all__ = ["Describe"]


class Describe:
    """:meth:`formula`, :meth:`explain`, :meth:`to_cute` and Jupyter's display, for Layout."""

    __slots__ = ()

    def formula(self, numeric: bool = False) -> str:
        """The offset as a formula, as the EdgeBoard article writes it.

        >>> from layouts import Layout
        >>> Layout("CHWN", N=2, C=16, H=5, W=4).formula()
        'c*HWN + h*WN + w*N + n'
        >>> Layout("NCHW16c", N=1, C=32, H=5, W=4).formula()
        'n*C1*H*W*16 + c1*H*W*16 + h*W*16 + w*16 + c0'
        >>> Layout("NHWC", N=2, C=16, H=5, W=4).formula(numeric=True)
        'n*320 + h*64 + w*16 + c'
        """
        from .explain import formula
        return formula(self, numeric=numeric)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """Jupyter's rich display: a picture (drawn lazily by :mod:`layouts.viz`) and plain text."""
        from .viz.rich import mimebundle
        return mimebundle(self, include=include, exclude=exclude)

    def explain(self) -> str:
        """A few lines that say what this layout is: shape, strides, padding, formula."""
        from .explain import explain
        return explain(self)

    def to_cute(self) -> Any:
        """This layout as a CuTe layout (:mod:`layouts.cute`): one mode per axis in canonical order,
        a blocked axis hierarchical with its innermost block first.

        >>> from layouts import Layout
        >>> print(Layout("NCHW16c", N=1, C=32, H=2, W=2).to_cute())
        (1,(16,2),2,2):(128,(1,64),32,16)
        """
        from .cute.bridge import to_cute
        return to_cute(self)
