"""``LinearLayout``: Triton's linear layouts, a map from named hardware bits to named tensor indices
that is linear over GF(2).

``bases[in_dim][i]`` is the image of ``in_dim = 2**i`` (all other in-dims 0), one integer per
out-dim; the image of any other input is the XOR of the bases of its set bits. Dims are ordered
minor to major; sizes are powers of two. Semantics follow Triton 3.9.0
(``include/triton/Tools/LinearLayout.h``); every bad input is a :class:`~layouts.LayoutError`,
never an abort.

Every operation is a method of the class, its law in its docstring: construction, queries, bits,
``apply``, text, and the algebra, reshaping, memory and words, whose methods are one call each of
the module that does the work (:mod:`~layouts.linear.algebra`, :mod:`~layouts.linear.reshape`,
:mod:`~layouts.linear.kind`, :mod:`~layouts.linear.explain`).

>>> from layouts.linear import LinearLayout
>>> L = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0]]}, ["dim0", "dim1"])
>>> L.out_dims
{'dim0': 2, 'dim1': 8}
>>> L(register=1, lane=5)
{'dim0': 1, 'dim1': 3}
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import LayoutError, LayoutTypeError, show, type_name
from . import gf2
from .args import MAX_BITS, Bases, Dims, bases_arg, check_bits, index_arg, is_pow2, log2, name_arg


def _from_parts(bases: Any, outs: Any) -> "LinearLayout":
    """A pickled layout back (see LinearLayout.__reduce__)."""
    return LinearLayout.from_bases(bases, outs, require_surjective=False)


class LinearLayout:
    """A linear layout over GF(2), immutable and hashable; see the module docstring.

    ``LinearLayout(bases, out_dims, require_surjective=True)`` is :meth:`from_bases`;
    ``LinearLayout()`` is :meth:`empty`.

    >>> LinearLayout.identity_1d(4, "lane", "dim0") * LinearLayout.identity_1d(2, "warp", "dim0")
    LinearLayout({'lane': [[1], [2]], 'warp': [[4]]}, {'dim0': 8})
    """

    __slots__ = ("_bases", "_outs", "_surjective", "_packed", "_tables")
    _bases: Bases
    _outs: Dims
    _surjective: Optional[bool]
    _packed: Optional[List[int]]
    _tables: dict

    def __init__(self, bases: Any = None, out_dims: Any = None, *, require_surjective: bool = True):
        if bases is None and out_dims is None:
            self._set((), (), True)
            return
        made = LinearLayout.from_bases({} if bases is None else bases, () if out_dims is None else out_dims,
                                       require_surjective=require_surjective)
        self._set(made._bases, made._outs, made._surjective)

    def _set(self, bases: Bases, outs: Dims, surjective: Optional[bool]) -> None:
        object.__setattr__(self, "_bases", bases)
        object.__setattr__(self, "_outs", outs)
        object.__setattr__(self, "_surjective", surjective)
        object.__setattr__(self, "_packed", None)
        object.__setattr__(self, "_tables", {})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("LinearLayout is immutable")

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its bases and out-dims, checked again when loaded."""
        return (_from_parts, (self._bases, self._outs))

    def __copy__(self) -> "LinearLayout":
        return self              # immutable: a copy is the same value

    def __deepcopy__(self, memo: Any) -> "LinearLayout":
        return self

    # ----------------------------------------------------------------- construction
    @classmethod
    def _trusted(cls, bases: Bases, outs: Dims, surjective: Optional[bool] = None) -> "LinearLayout":
        """A layout from checked parts (internal results); ``surjective`` computed when needed."""
        layout = cls.__new__(cls)
        layout._set(bases, outs, surjective)
        return layout

    @classmethod
    def from_bases(cls, bases: Any, out_dims: Any, require_surjective: bool = True) -> "LinearLayout":
        """A layout from its bases: ``{in_dim: [[v_out0, v_out1, ...], ...]}`` (or a list of pairs).

        ``out_dims`` is a list of names (each size inferred: the next power of two above its
        largest basis value) or a dict ``{name: size}``. A layout that does not reach every output
        is refused unless ``require_surjective=False``.

        >>> LinearLayout.from_bases({"in": [[1], [2]]}, ["out"]).out_dims
        {'out': 4}
        >>> LinearLayout.from_bases({"in": [[1], [4]]}, ["out"])
        Traceback (most recent call last):
        layouts.errors.LayoutError: the layout is not surjective: out-dim 'out' (size 8) is not reached by every value; pass require_surjective=False to allow it
        """
        if not isinstance(require_surjective, bool):
            raise LayoutTypeError(f"require_surjective must be True or False, got {show(require_surjective)}")
        checked, outs = bases_arg(bases, out_dims)
        layout = cls._trusted(checked, outs)
        layout._check_size()
        if require_surjective and not layout.is_surjective():
            raise LayoutError(f"the layout is not surjective: {layout._unreached()} is not reached by every "
                              f"value; pass require_surjective=False to allow it")
        return layout

    def _check_size(self) -> None:
        for side, total, dims in (("input", self.total_in_bits, self.in_dims),
                                  ("output", self.total_out_bits, self.out_dims)):
            if total > MAX_BITS:
                bits = ", ".join(f"{n!r} {log2(s)}" for n, s in dims.items())
                raise LayoutError(f"a linear layout has at most {MAX_BITS} {side} bits (Triton's matrix "
                                  f"limit); this one has {total} ({side} dims and their bits: {bits})")

    def _unreached(self) -> str:
        image = gf2.rref(self._packed_bases())
        start = 0
        for name, size in self._outs:
            k = log2(size)
            for bit in range(k):
                probe = 1 << (start + bit)
                for row in image:
                    if probe & row & -row:
                        probe ^= row
                if probe and not any(probe == row for row in image):
                    return f"out-dim {name!r} (size {size})"
            start += k
        return "some out-dim"

    @classmethod
    def empty(cls) -> "LinearLayout":
        """The layout with no dims: the identity of ``*``.

        >>> LinearLayout.empty().total_in_size
        1
        """
        return cls._trusted((), (), True)

    @classmethod
    def _one_dim(cls, size: Any, stride: Any, in_dim: Any, out_dim: Any, *, broadcast: bool = False,
                 out_size: Any = 1) -> "LinearLayout":
        """``x -> stride * x`` for ``x < size`` onto ``out_dim`` of ``stride * size``, or when
        ``broadcast`` (``stride`` unused) ``x -> 0`` onto ``out_size``: strided_1d's and zeros_1d's
        checks, in one order."""
        in_dim, out_dim = name_arg("in_dim", in_dim), name_arg("out_dim", out_dim)
        what = f"size of in-dim {in_dim!r}"
        size = index_arg(what, size)
        if not broadcast:
            stride = index_arg(f"stride of in-dim {in_dim!r}", stride)
        if size == 0:
            return cls.empty()
        if not is_pow2(size):
            raise LayoutError(f"{what} must be a power of two (or 0), got {size}")
        if not broadcast and not is_pow2(stride):
            raise LayoutError(f"stride of in-dim {in_dim!r} must be a power of two, got {stride} (the size "
                              f"of out-dim {out_dim!r} is stride * size; use zeros_1d for a broadcast)")
        check_bits(what, log2(size), "input")          # before building 2**60 of anything
        if broadcast:
            return cls.from_bases(((in_dim, ((0,),) * log2(size)),), ((out_dim, out_size),),
                                  require_surjective=False)
        check_bits("stride * size", log2(stride) + log2(size), "output")
        rows = tuple((stride << i,) for i in range(log2(size)))
        return cls.from_bases(((in_dim, rows),), ((out_dim, stride * size),), require_surjective=False)

    @classmethod
    def strided_1d(cls, size: int, stride: int, in_dim: str, out_dim: str) -> "LinearLayout":
        """``L(x) = stride * x`` for ``x < size``, onto an out-dim of ``stride * size`` (both powers
        of two; not surjective when ``stride > 1``, as in Triton).

        >>> LinearLayout.strided_1d(4, 2, "offset", "dim0")(offset=3)
        {'dim0': 6}
        """
        return cls._one_dim(size, stride, in_dim, out_dim)

    @classmethod
    def identity_1d(cls, size: int, in_dim: str, out_dim: str) -> "LinearLayout":
        """``L(x) = x`` for ``x < size`` (a power of two; 0 gives the empty layout, as in Triton).

        >>> LinearLayout.identity_1d(8, "lane", "dim0").bases
        {'lane': ((1,), (2,), (4,))}
        """
        return cls.strided_1d(size, 1, in_dim, out_dim)

    @classmethod
    def zeros_1d(cls, size: int, in_dim: str, out_dim: str, out_size: int = 1) -> "LinearLayout":
        """``L(x) = 0`` for ``x < size``: a broadcast onto an out-dim of ``out_size``.

        >>> LinearLayout.zeros_1d(4, "register", "dim0").bases
        {'register': ((0,), (0,))}
        """
        return cls._one_dim(size, None, in_dim, out_dim, broadcast=True, out_size=out_size)

    # ----------------------------------------------------------------- queries
    @property
    def bases(self) -> Dict[str, Tuple[Tuple[int, ...], ...]]:
        """``{in_dim: ((v_out0, ...), ...)}``, in-dims minor to major."""
        return dict(self._bases)

    @property
    def in_dims(self) -> Dict[str, int]:
        """``{in_dim: size}``, minor to major."""
        return {name: 1 << len(rows) for name, rows in self._bases}

    @property
    def out_dims(self) -> Dict[str, int]:
        """``{out_dim: size}``, minor to major."""
        return dict(self._outs)

    @property
    def in_dim_names(self) -> List[str]:
        return [name for name, _ in self._bases]

    @property
    def out_dim_names(self) -> List[str]:
        return [name for name, _ in self._outs]

    def _in_rows(self, dim: str) -> Tuple[Tuple[int, ...], ...]:
        for name, rows in self._bases:
            if name == dim:
                return rows
        raise LayoutError(f"in-dim {dim!r} is not in the layout (in-dims: {self.in_dim_names})")

    def has_in_dim(self, dim: str) -> bool:
        return any(name == dim for name, _ in self._bases)

    def has_out_dim(self, dim: str) -> bool:
        return any(name == dim for name, _ in self._outs)

    def in_dim_size(self, dim: str) -> int:
        """The size of in-dim ``dim``.

        >>> LinearLayout.identity_1d(8, "lane", "dim0").in_dim_size("lane")
        8
        """
        return 1 << len(self._in_rows(name_arg("dim", dim)))

    def out_dim_size(self, dim: str) -> int:
        """The size of out-dim ``dim``."""
        name_arg("dim", dim)
        for name, size in self._outs:
            if name == dim:
                return size
        raise LayoutError(f"out-dim {dim!r} is not in the layout (out-dims: {self.out_dim_names})")

    def out_dim_index(self, dim: str) -> int:
        names = self.out_dim_names
        if dim not in names:
            raise LayoutError(f"out-dim {dim!r} is not in the layout (out-dims: {names})")
        return names.index(dim)

    @property
    def total_in_bits(self) -> int:
        return sum(len(rows) for _, rows in self._bases)

    @property
    def total_out_bits(self) -> int:
        return sum(log2(size) for _, size in self._outs)

    @property
    def total_in_size(self) -> int:
        return 1 << self.total_in_bits

    @property
    def total_out_size(self) -> int:
        return 1 << self.total_out_bits

    @property
    def num_in_dims(self) -> int:
        return len(self._bases)

    @property
    def num_out_dims(self) -> int:
        return len(self._outs)

    def basis(self, in_dim: str, i: int, out_dim: str) -> int:
        """``bases[in_dim][i]`` for ``out_dim``: the image of ``in_dim = 2**i`` (Triton's getBasis).

        >>> LinearLayout.from_bases({"lane": [[0, 1], [1, 0]]}, ["dim0", "dim1"]).basis("lane", 1, "dim0")
        1
        """
        rows = self._in_rows(name_arg("in_dim", in_dim))
        i = index_arg("i", i)
        if not 0 <= i < len(rows):
            raise LayoutError(f"in-dim {in_dim!r} has {len(rows)} bases (bits 0..{len(rows) - 1}); "
                              f"there is no basis {i}")
        return rows[i][self.out_dim_index(name_arg("out_dim", out_dim))]

    # ----------------------------------------------------------------- bits
    def _packed_bases(self) -> List[int]:
        """Each basis as one int: the out-dims' bits concatenated, minor dim lowest (a matrix column)."""
        if self._packed is None:
            shifts = []
            s = 0
            for _, size in self._outs:
                shifts.append(s)
                s += log2(size)
            packed = [sum(v << sh for v, sh in zip(basis, shifts)) for _, rows in self._bases for basis in rows]
            object.__setattr__(self, "_packed", packed)
        return self._packed

    def _unpack(self, packed: int) -> Tuple[int, ...]:
        out = []
        for _, size in self._outs:
            out.append(packed & (size - 1))
            packed >>= log2(size)
        return tuple(out)

    def is_surjective(self) -> bool:
        """Does every output value have a preimage? (GF(2) rank == output bits)

        >>> LinearLayout.zeros_1d(4, "register", "dim0", out_size=2).is_surjective()
        False
        """
        if self._surjective is None:
            object.__setattr__(self, "_surjective", gf2.rank(self._packed_bases()) == self.total_out_bits)
        return self._surjective

    def is_injective(self) -> bool:
        """Do distinct inputs give distinct outputs? (rank == input bits)

        >>> LinearLayout.zeros_1d(4, "register", "dim0").is_injective()
        False
        """
        return gf2.rank(self._packed_bases()) == self.total_in_bits

    def is_invertible(self) -> bool:
        """Surjective with as many inputs as outputs.

        >>> LinearLayout.identity_1d(4, "in", "out").is_invertible()
        True
        """
        return self.is_surjective() and self.total_in_bits == self.total_out_bits

    def matrix(self):
        """The GF(2) matrix as a numpy uint8 array: one row per output bit (out-dims minor to major,
        low bit first), one column per input bit (in-dims in order), Triton's ``getMatrix`` order.

        >>> LinearLayout.from_bases({"in": [[1], [3]]}, ["out"]).matrix().tolist()
        [[1, 1], [0, 1]]
        """
        import numpy as np
        packed = self._packed_bases()
        m = np.zeros((self.total_out_bits, len(packed)), dtype=np.uint8)
        for c, col in enumerate(packed):
            for r in range(self.total_out_bits):
                m[r, c] = (col >> r) & 1
        return m

    # ----------------------------------------------------------------- apply
    def __call__(self, *args: Mapping[str, Any], **coords: Any) -> Dict[str, Any]:
        """``L(register=3, lane=5)`` or ``L({"register": 3})``: see :meth:`apply`."""
        if len(args) > 1 or (args and coords):
            raise LayoutTypeError("call a LinearLayout with in-dims as keywords, or with one dict")
        return self.apply(args[0] if args else coords)

    def apply(self, coords: Mapping[str, Any]) -> Dict[str, Any]:
        """The output for the given inputs (in-dims left out are 0): Python ints for ints, int64
        arrays for arrays (broadcast together, vectorised, exact).

        >>> import numpy as np
        >>> L = LinearLayout.from_bases({"in": [[1, 1], [2, 0], [0, 1]]}, ["a", "b"])
        >>> L.apply({"in": 3})
        {'a': 3, 'b': 1}
        >>> L.apply({"in": np.arange(4)})["a"].tolist()
        [0, 1, 2, 3]
        """
        fast = _apply.fast_arrays(self, coords)          # a whole tile of int64 arrays: one compiled pass
        return fast if fast is not None else _apply.apply(self, coords)

    # ----------------------------------------------------------------- equality and text
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._bases == other._bases and self._outs == other._outs

    def __hash__(self) -> int:
        return hash((self._bases, self._outs))

    def equal_ignoring_out_dim_sizes(self, other: "LinearLayout") -> bool:
        """Same bases and out-dim names, whatever the out-dim sizes (Triton's equalIgnoringOutDimSizes)."""
        if not isinstance(other, LinearLayout):
            raise LayoutTypeError(f"other must be a LinearLayout, got {type_name(other)}")
        return self._bases == other._bases and self.out_dim_names == other.out_dim_names

    def __repr__(self) -> str:
        """Python that rebuilds the layout (``eval(repr(L)) == L``).

        >>> LinearLayout.from_bases({"x": [[1]]}, {"out": 4}, require_surjective=False)
        LinearLayout({'x': [[1]]}, {'out': 4}, require_surjective=False)
        """
        bases = {name: [list(b) for b in rows] for name, rows in self._bases}
        flag = "" if self.is_surjective() else ", require_surjective=False"
        return f"LinearLayout({bases}, {dict(self._outs)}{flag})"

    def __str__(self) -> str:
        """Triton's ``toString``: each in-dim bit and its image, then the out-dims."""
        outs = "[" + ", ".join(f"{n} (size {s})" for n, s in self._outs) + "]"
        if not self._bases:
            return "(empty layout)" if not self._outs else f"(empty layout with out-dims {outs})"
        lines = []
        for name, rows in self._bases:
            if not rows:
                lines.append(f" - {name} is a size 1 dimension")
                continue
            parts = [f"{name}={1 << i} -> ({', '.join(map(str, b))})" for i, b in enumerate(rows)]
            lines.append(" - " + "\n   ".join(parts))
        return "\n".join(lines) + f"\nwhere out dims are: {outs}"

    # ----------------------------------------------------------------- memory (layouts.kinds)
    def offsets(self):
        """The offset of each element, in index order (coordinates -> offset; see memory_map).

        >>> LinearLayout.from_bases({"offset": [[0, 1], [1, 0]]}, ["dim0", "dim1"]).offsets().tolist()
        [0, 2, 1, 3]
        """
        from .kind import LinearKind
        return LinearKind(self).offsets()

    def explain(self) -> str:
        """Each basis in words and the CuTe form, when there is one (:mod:`layouts.linear.explain`).

        >>> print(LinearLayout.identity_1d(2, "lane", "dim0").explain().splitlines()[1])
          lane bit 0 (lane 1) -> 1: one step along dim0
        """
        return _explain.explain(self)

    # ----------------------------------------------------------------- the algebra (layouts.linear.algebra)
    def __mul__(self, other: "LinearLayout") -> "LinearLayout":
        """Triton's ``operator*``: ``self`` on the low bits of every shared dim (:func:`~.algebra.multiply`)."""
        if not isinstance(other, LinearLayout):
            raise LayoutTypeError(f"a LinearLayout multiplies only another LinearLayout, got {type_name(other)} "
                                  f"{show(other)} on the right")
        return _algebra.multiply(self, other)

    def __rmul__(self, other: Any) -> "LinearLayout":
        raise LayoutTypeError(f"a LinearLayout multiplies only another LinearLayout, got {type_name(other)} "
                              f"{show(other)} on the left")

    def compose(self, outer: "LinearLayout") -> "LinearLayout":
        """``outer(self(x))``: self's out-dims must be outer's in-dims (sizes <= outer's).

        >>> a = LinearLayout.identity_1d(4, "in", "mid")
        >>> a.compose(LinearLayout.strided_1d(4, 2, "mid", "out"))(**{"in": 3})
        {'out': 6}
        """
        return _algebra.compose(self, outer)

    def invert_and_compose(self, outer: "LinearLayout") -> "LinearLayout":
        """``C`` with ``self(x) == outer(C(x))``, the smallest such preimage (Triton's
        invertAndCompose; ``outer`` must be surjective).

        >>> a = LinearLayout.identity_1d(4, "in", "out")
        >>> a.invert_and_compose(LinearLayout.strided_1d(4, 1, "reg", "out")).bases
        {'in': ((1,), (2,))}
        """
        return _algebra.invert_and_compose(self, outer)

    def invert(self) -> "LinearLayout":
        """The inverse of an invertible layout: out-dims become in-dims.

        >>> LinearLayout.from_bases({"in": [[2], [1]]}, ["out"]).invert().bases
        {'out': ((2,), (1,))}
        """
        return _algebra.invert(self)

    def pseudoinvert(self) -> "LinearLayout":
        """A right inverse ``B`` of a surjective layout: ``self(B(y)) == y`` (Triton's pseudoinvert).

        >>> L = LinearLayout.from_bases({"in": [[1], [0], [2]]}, ["out"])
        >>> L.pseudoinvert()(out=3)
        {'in': 5}
        """
        return _algebra.pseudoinvert(self)

    def free_variable_masks(self) -> Dict[str, int]:
        """Per in-dim, a mask of the input bits that can change without changing the output.

        >>> LinearLayout.from_bases({"in": [[1], [0], [2]]}, ["out"]).free_variable_masks()
        {'in': 2}
        """
        return _algebra.free_variable_masks(self)

    def num_consecutive_in_out(self) -> int:
        """How many consecutive values of the first in-dim map to consecutive values of the first
        out-dim (a vector width), Triton's getNumConsecutiveInOut.

        >>> LinearLayout.from_bases({"register": [[1], [2], [8]], "lane": [[4]]}, ["dim0"]).num_consecutive_in_out()
        4
        """
        return _algebra.num_consecutive_in_out(self)

    def quotient(self, dims: Any) -> Optional["LinearLayout"]:
        """The layout on the other dims when this one is the identity on ``dims`` and mixes them
        with nothing else; ``None`` otherwise.

        >>> L = LinearLayout.identity_1d(4, "in", "out") * LinearLayout.identity_1d(2, "b", "b")
        >>> L.quotient(["b"]) == LinearLayout.identity_1d(4, "in", "out")
        True
        """
        return _algebra.quotient(self, dims)

    def is_trivial_over(self, dims: Any) -> bool:
        return _algebra.is_trivial_over(self, dims)

    # ----------------------------------------------------------------- reshaping (layouts.linear.reshape)
    def reshape_ins(self, new_in_dims: Any) -> "LinearLayout":
        """The in bits, in dim order, re-split into ``[(name, size), ...]``.

        >>> LinearLayout.identity_1d(8, "in", "out").reshape_ins([("a", 2), ("b", 4)]).bases
        {'a': ((1,),), 'b': ((2,), (4,))}
        """
        return _reshape.reshape_ins(self, new_in_dims)

    def reshape_outs(self, new_out_dims: Any) -> "LinearLayout":
        """The out bits, in dim order, re-split into ``[(name, size), ...]``.

        >>> LinearLayout.identity_1d(8, "in", "out").reshape_outs([("a", 2), ("b", 4)]).bases
        {'in': ((1, 0), (0, 1), (0, 2))}
        """
        return _reshape.reshape_outs(self, new_out_dims)

    def flatten_ins(self) -> "LinearLayout":
        """One in-dim, named after the first."""
        if not self._bases:
            return self
        return _reshape.reshape_ins(self, [(self._bases[0][0], self.total_in_size)])

    def flatten_outs(self) -> "LinearLayout":
        """One out-dim, named after the first."""
        if not self._outs:
            return self
        return _reshape.reshape_outs(self, [(self._outs[0][0], self.total_out_size)])

    def transpose_ins(self, order: Sequence[str]) -> "LinearLayout":
        """The in-dims reordered (the map is unchanged; reshape and ``*`` see the new order)."""
        return _reshape.transpose_ins(self, order)

    def transpose_outs(self, order: Sequence[str]) -> "LinearLayout":
        """The out-dims reordered."""
        return _reshape.transpose_outs(self, order)

    def sublayout(self, in_dims: Any, out_dims: Any) -> "LinearLayout":
        """Only these in-dims (the others read as 0) and out-dims; out sizes unchanged.

        >>> L = LinearLayout.from_bases({"a": [[1, 0]], "b": [[0, 1], [1, 2]]}, ["x", "y"])
        >>> L.sublayout(["b"], ["y"]).bases
        {'b': ((1,), (2,))}
        """
        return _reshape.sublayout(self, in_dims, out_dims)

    def sublayout_is_zero(self, in_dims: Any, out_dims: Any) -> bool:
        return all(not any(b) for rows in _reshape.sublayout(self, in_dims, out_dims).bases.values() for b in rows)

    def concat_ins(self, other: "LinearLayout") -> "LinearLayout":
        """Both layouts' in-dims side by side (disjoint), over the same out-dims."""
        return _reshape.concat_ins(self, other)

    def concat_outs(self, other: "LinearLayout") -> "LinearLayout":
        """Both layouts' out-dims side by side (disjoint), from the same in-dims."""
        return _reshape.concat_outs(self, other)

    def remove_zero_bases_along_dim(self, dim: str) -> "LinearLayout":
        """In-dim ``dim`` without its zero bases (a broadcast register dropped)."""
        return _reshape.remove_zero_bases_along_dim(self, dim)

    def resize_in_dim(self, dim: str, size: int) -> "LinearLayout":
        """In-dim ``dim`` cut to its first ``log2(size)`` bases."""
        return _reshape.resize_in_dim(self, dim, size)

    def resize_out_dim(self, dim: str, size: int) -> "LinearLayout":
        """Out-dim ``dim`` cut to ``size``: basis values at or above it become 0 (Triton's resizeOutDim)."""
        return _reshape.resize_out_dim(self, dim, size)

    def rename_in_dim(self, old: str, new: str) -> "LinearLayout":
        """In-dim ``old`` called ``new``, in the same place."""
        return _reshape.rename_dim(self, old, new, side="in")

    def rename_out_dim(self, old: str, new: str) -> "LinearLayout":
        """Out-dim ``old`` called ``new``, in the same place."""
        return _reshape.rename_dim(self, old, new, side="out")

    def __layouts_kind__(self) -> Any:
        """The answers of this layout, read as memory, to the protocol of :mod:`layouts.kinds`."""
        from .kind import LinearKind
        return LinearKind(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """Jupyter's display: the picture of :func:`layouts.viz.draw_linear` and :meth:`explain`."""
        from ..hooks import service
        return service("mimebundle")(self, include=include, exclude=exclude)


# the modules that do the work of the methods above: they build layouts, so they import this
# module, and are imported after the class they need
from . import algebra as _algebra, apply as _apply, explain as _explain, reshape as _reshape  # noqa: E402
