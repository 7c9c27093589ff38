"""The methods of :class:`~layouts.linear.LinearLayout` that other modules do the work of: the
algebra (:mod:`~layouts.linear.algebra`), reshaping (:mod:`~layouts.linear.reshape`), memory
(:mod:`~layouts.linear.memory`) and words (:mod:`~layouts.linear.explain`).

Those modules take layouts and build layouts, so they import :mod:`~layouts.linear.layout`; were
the class to import them back, even inside a method, the package would be one import cycle. So
each method is written here, a call of the function that does the work, and
:func:`bind_methods` sets them on the class when the package loads (``layouts/linear/__init__.py``,
the one module that imports both sides). ``L.compose(M)`` is ``algebra.compose(L, M)``.

>>> from layouts.linear import LinearLayout
>>> LinearLayout.compose.__qualname__, LinearLayout.compose.__module__
('LinearLayout.compose', 'layouts.linear.methods')
"""

import inspect
from typing import Any, Dict, Optional, Sequence

from ..errors import LayoutTypeError, show, type_name
from . import algebra, reshape
from .explain import explain as explain_layout
from .kind import LinearKind
from .layout import LinearLayout


class _Methods:
    """LinearLayout's methods, written as a class so that they read as methods (``self`` is the
    layout); :func:`bind_methods` moves them onto :class:`LinearLayout`."""

    # ----------------------------------------------------------------- memory (layouts.kinds)
    def offsets(self):
        """The offset of each element, in index order (coordinates -> offset; see memory_map).

        >>> LinearLayout.from_bases({"offset": [[0, 1], [1, 0]]}, ["dim0", "dim1"]).offsets().tolist()
        [0, 2, 1, 3]
        """
        return LinearKind(self).offsets()

    def explain(self) -> str:
        """Each basis in words and the CuTe form, when there is one (:mod:`layouts.linear.explain`).

        >>> print(LinearLayout.identity_1d(2, "lane", "dim0").explain().splitlines()[1])
          lane bit 0 (lane 1) -> 1: one step along dim0
        """
        return explain_layout(self)

    # ----------------------------------------------------------------- the algebra (layouts.linear.algebra)
    def __mul__(self, other: "LinearLayout") -> "LinearLayout":
        """Triton's ``operator*``: ``self`` on the low bits of every shared dim (:func:`~.algebra.multiply`)."""
        if not isinstance(other, LinearLayout):
            raise LayoutTypeError(f"a LinearLayout multiplies only another LinearLayout, got {type_name(other)} "
                                  f"{show(other)} on the right")
        return algebra.multiply(self, other)

    def __rmul__(self, other: Any) -> "LinearLayout":
        raise LayoutTypeError(f"a LinearLayout multiplies only another LinearLayout, got {type_name(other)} "
                              f"{show(other)} on the left")

    def compose(self, outer: "LinearLayout") -> "LinearLayout":
        """``outer(self(x))``: self's out-dims must be outer's in-dims (sizes <= outer's).

        >>> a = LinearLayout.identity_1d(4, "in", "mid")
        >>> a.compose(LinearLayout.strided_1d(4, 2, "mid", "out"))(**{"in": 3})
        {'out': 6}
        """
        return algebra.compose(self, outer)

    def invert_and_compose(self, outer: "LinearLayout") -> "LinearLayout":
        """``C`` with ``self(x) == outer(C(x))``, the smallest such preimage (Triton's
        invertAndCompose; ``outer`` must be surjective).

        >>> a = LinearLayout.identity_1d(4, "in", "out")
        >>> a.invert_and_compose(LinearLayout.strided_1d(4, 1, "reg", "out")).bases
        {'in': ((1,), (2,))}
        """
        return algebra.invert_and_compose(self, outer)

    def invert(self) -> "LinearLayout":
        """The inverse of an invertible layout: out-dims become in-dims.

        >>> LinearLayout.from_bases({"in": [[2], [1]]}, ["out"]).invert().bases
        {'out': ((2,), (1,))}
        """
        return algebra.invert(self)

    def pseudoinvert(self) -> "LinearLayout":
        """A right inverse ``B`` of a surjective layout: ``self(B(y)) == y`` (Triton's pseudoinvert).

        >>> L = LinearLayout.from_bases({"in": [[1], [0], [2]]}, ["out"])
        >>> L.pseudoinvert()(out=3)
        {'in': 5}
        """
        return algebra.pseudoinvert(self)

    def free_variable_masks(self) -> Dict[str, int]:
        """Per in-dim, a mask of the input bits that can change without changing the output.

        >>> LinearLayout.from_bases({"in": [[1], [0], [2]]}, ["out"]).free_variable_masks()
        {'in': 2}
        """
        return algebra.free_variable_masks(self)

    def num_consecutive_in_out(self) -> int:
        """How many consecutive values of the first in-dim map to consecutive values of the first
        out-dim (a vector width), Triton's getNumConsecutiveInOut.

        >>> LinearLayout.from_bases({"register": [[1], [2], [8]], "lane": [[4]]}, ["dim0"]).num_consecutive_in_out()
        4
        """
        return algebra.num_consecutive_in_out(self)

    def quotient(self, dims: Any) -> Optional["LinearLayout"]:
        """The layout on the other dims when this one is the identity on ``dims`` and mixes them
        with nothing else; ``None`` otherwise.

        >>> L = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(2, "b", "b")
        >>> L.quotient(["b"]) == LinearLayout.identity_1d(4, "in", "out")
        True
        """
        return algebra.quotient(self, dims)

    def is_trivial_over(self, dims: Any) -> bool:
        return algebra.is_trivial_over(self, dims)

    # ----------------------------------------------------------------- reshaping (layouts.linear.reshape)
    def reshape_ins(self, new_in_dims: Any) -> "LinearLayout":
        """The in bits, in dim order, re-split into ``[(name, size), ...]``.

        >>> LinearLayout.identity_1d(8, "in", "out").reshape_ins([("a", 2), ("b", 4)]).bases
        {'a': ((1,),), 'b': ((2,), (4,))}
        """
        return reshape.reshape_ins(self, new_in_dims)

    def reshape_outs(self, new_out_dims: Any) -> "LinearLayout":
        """The out bits, in dim order, re-split into ``[(name, size), ...]``.

        >>> LinearLayout.identity_1d(8, "in", "out").reshape_outs([("a", 2), ("b", 4)]).bases
        {'in': ((1, 0), (0, 1), (0, 2))}
        """
        return reshape.reshape_outs(self, new_out_dims)

    def flatten_ins(self) -> "LinearLayout":
        """One in-dim, named after the first."""
        if not self._bases:
            return self
        return reshape.reshape_ins(self, [(self._bases[0][0], self.total_in_size)])

    def flatten_outs(self) -> "LinearLayout":
        """One out-dim, named after the first."""
        if not self._outs:
            return self
        return reshape.reshape_outs(self, [(self._outs[0][0], self.total_out_size)])

    def transpose_ins(self, order: Sequence[str]) -> "LinearLayout":
        """The in-dims reordered (the map is unchanged; reshape and ``*`` see the new order)."""
        return reshape.transpose_ins(self, order)

    def transpose_outs(self, order: Sequence[str]) -> "LinearLayout":
        """The out-dims reordered."""
        return reshape.transpose_outs(self, order)

    def sublayout(self, in_dims: Any, out_dims: Any) -> "LinearLayout":
        """Only these in-dims (the others read as 0) and out-dims; out sizes unchanged.

        >>> L = LinearLayout.from_bases({"a": [[1, 0]], "b": [[0, 1], [1, 2]]}, ["x", "y"])
        >>> L.sublayout(["b"], ["y"]).bases
        {'b': ((1,), (2,))}
        """
        return reshape.sublayout(self, in_dims, out_dims)

    def sublayout_is_zero(self, in_dims: Any, out_dims: Any) -> bool:
        return all(not any(b) for rows in reshape.sublayout(self, in_dims, out_dims).bases.values() for b in rows)

    def concat_ins(self, other: "LinearLayout") -> "LinearLayout":
        """Both layouts' in-dims side by side (disjoint), over the same out-dims."""
        return reshape.concat_ins(self, other)

    def concat_outs(self, other: "LinearLayout") -> "LinearLayout":
        """Both layouts' out-dims side by side (disjoint), from the same in-dims."""
        return reshape.concat_outs(self, other)

    def remove_zero_bases_along_dim(self, dim: str) -> "LinearLayout":
        """In-dim ``dim`` without its zero bases (a broadcast register dropped)."""
        return reshape.remove_zero_bases_along_dim(self, dim)

    def resize_in_dim(self, dim: str, size: int) -> "LinearLayout":
        """In-dim ``dim`` cut to its first ``log2(size)`` bases."""
        return reshape.resize_in_dim(self, dim, size)

    def resize_out_dim(self, dim: str, size: int) -> "LinearLayout":
        """Out-dim ``dim`` cut to ``size``: basis values at or above it become 0 (Triton's resizeOutDim)."""
        return reshape.resize_out_dim(self, dim, size)

    def rename_in_dim(self, old: str, new: str) -> "LinearLayout":
        """In-dim ``old`` called ``new``, in the same place."""
        return reshape.rename_dim(self, old, new, side="in")

    def rename_out_dim(self, old: str, new: str) -> "LinearLayout":
        """Out-dim ``old`` called ``new``, in the same place."""
        return reshape.rename_dim(self, old, new, side="out")


def bind_methods(cls: type) -> None:
    """Set each method of :class:`_Methods` on ``cls`` under its own name, named as the class's
    (called once, by the package's front).

    >>> from layouts.linear import LinearLayout
    >>> LinearLayout.identity_1d(4, "in", "out").flatten_outs().out_dims
    {'out': 4}
    """
    for name, method in vars(_Methods).items():
        if inspect.isfunction(method):
            method.__qualname__ = f"{cls.__name__}.{name}"
            setattr(cls, name, method)
