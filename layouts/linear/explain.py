"""A linear layout in words: what each input bit does to the tensor index, and its CuTe form.

On a 2-D tensor ``dim0`` is the row and ``dim1`` the column (Triton's convention: the shape is
``[rows, cols]``), so a basis ``(1, 0)`` "moves one row down" and ``(0, 2)`` "two columns right";
a basis touching both dims, or a value that is not a single bit, mixes bits (a swizzle); a zero
basis is a broadcast.

>>> from layouts.linear import LinearLayout
>>> L = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [1, 0]]}, ["dim0", "dim1"])
>>> print(explain(L))
register x lane -> dim0 x dim1 (2 x 4): 8 inputs onto 8 elements, invertible
  register bit 0 (register 1) -> (0, 1): one column right
  lane bit 0 (lane 1) -> (0, 2): 2 columns right
  lane bit 1 (lane 2) -> (1, 0): one row down
CuTe form: (2,(2,2)):(2,(4,1)) ((register, lane) -> dim0 + 2 * dim1: CuTe's column-major index of the 2 x 4 tile)

A shared layout (offset -> element) reads as CuTe's element -> offset, its swizzle in words:

>>> S = LinearLayout.from_bases({"offset": [[0, 1], [0, 2], [1, 1], [2, 2]]}, ["dim0", "dim1"])
>>> for line in explain(S).splitlines()[-2:]:
...     print(line)
CuTe form: Sw<2,0,2> o 0 o (4,4):(4,1) (read as memory: element -> offset, the inverse of offset -> element)
  Sw<2,0,2>: offset bits 2..3 are XOR-ed into bits 0..1: every 4 offsets (a row) the 4 runs of 1 element are permuted by the row number mod 4
"""

from typing import Sequence

from .layout import LinearLayout

_ONE = {"row": "one row down", "column": "one column right"}


def _steps(value: int, unit: str) -> str:
    bits = [i for i in range(value.bit_length()) if value >> i & 1]
    if unit == "offset":                  # memory: a new bit adds, a bit shared with others is a swizzle
        if len(bits) == 1:
            return "the next offset (+1)" if value == 1 else f"{value} offsets further (+{value})"
        return f"offset XOR {value} (flips offset bits {', '.join(map(str, bits))}: a swizzle)"
    if value == 1:
        return _ONE.get(unit, f"one step along {unit}")
    if len(bits) == 1:
        return (f"{value} rows down" if unit == "row" else f"{value} columns right" if unit == "column"
                else f"{value} steps along {unit}")
    return f"flips bits {', '.join(map(str, bits))} of the {unit} index (XOR {value})"


def _units(out_dims: Sequence[str]) -> list:
    """Triton's standard dims read as a tensor: the last two are the row and the column."""
    names = list(out_dims)
    if len(names) >= 2 and names == [f"dim{i}" for i in range(len(names))]:
        return names[:-2] + ["row", "column"]
    return names


def basis_words(basis: Sequence[int], out_dims: Sequence[str]) -> str:
    """What one basis does, in words.

    >>> basis_words((1, 2), ["dim0", "dim1"])
    'one row down and 2 columns right (a swizzle: it moves along both dims)'
    >>> basis_words((0, 0), ["dim0", "dim1"])
    'nothing: a broadcast (inputs differing only in this bit hold the same element)'
    >>> basis_words((2, 0, 1), ["dim0", "dim1", "dim2"])
    '2 steps along dim0 and one column right (a swizzle: it mixes 2 dims)'
    >>> basis_words((9,), ["offset"])
    'offset XOR 9 (flips offset bits 0, 3: a swizzle)'
    """
    units = _units(out_dims)
    moves = [_steps(v, u) for v, u in zip(basis, units) if v]
    if not moves:
        return "nothing: a broadcast (inputs differing only in this bit hold the same element)"
    text = " and ".join(moves)
    if len(moves) > 1:
        text += (" (a swizzle: it moves along both dims)" if len(units) == 2 else
                 f" (a swizzle: it mixes {len(moves)} dims)")
    return text


def explain(layout: LinearLayout) -> str:
    """Every basis of ``layout`` in words, then its CuTe form when it has one (see the module)."""
    from ..errors import LayoutError
    from .bridges import to_cute
    ins = " x ".join(layout.in_dim_names) or "(no in-dims)"
    outs = " x ".join(layout.out_dim_names) or "(no out-dims)"
    sizes = " x ".join(str(s) for s in layout.out_dims.values())
    kind = ("invertible" if layout.is_invertible() else
            "surjective (a broadcast: some elements are held more than once)" if layout.is_surjective() else
            "injective, not surjective (some elements are reached by no input)" if layout.is_injective() else
            "neither injective nor surjective")
    lines = [f"{ins} -> {outs} ({sizes}): {layout.total_in_size} inputs onto {layout.total_out_size} "
             f"elements, {kind}"]
    names = layout.out_dim_names
    for name, rows in layout.bases.items():
        if not rows:
            lines.append(f"  {name} has size 1 (no bits)")
        for i, b in enumerate(rows):
            shown = f"({', '.join(map(str, b))})" if len(b) != 1 else str(b[0])
            lines.append(f"  {name} bit {i} ({name} {1 << i}) -> {shown}: {basis_words(b, names)}")
    try:
        form = to_cute(layout)
    except LayoutError as e:
        lines.append(f"No CuTe form: {e}")
    else:
        lines.append(f"CuTe form: {form} ({_cute_reading(layout)})")
        swizzle = getattr(form, "outer", None)
        if swizzle is not None and hasattr(swizzle, "bits") and swizzle.bits:
            lines.append("  " + swizzle_words(swizzle.bits, swizzle.base, swizzle.shift))
    return "\n".join(lines)


def _cute_reading(layout: LinearLayout) -> str:
    """What the CuTe form maps: its modes and the index it gives."""
    names, sizes = layout.out_dim_names, list(layout.out_dims.values())
    if "offset" in layout.in_dim_names:
        return "read as memory: element -> offset, the inverse of offset -> element"
    modes = ", ".join(layout.in_dim_names)
    if names == ["offset"]:
        return f"({modes}) -> offset"
    if len(names) == 1:
        return f"({modes}) -> {names[0]}"
    terms, stride = [names[0]], sizes[0]
    for name, size in zip(names[1:], sizes[1:]):
        terms.append(f"{stride} * {name}")
        stride *= size
    tile = " x ".join(map(str, sizes))
    return f"({modes}) -> {' + '.join(terms)}: CuTe's column-major index of the {tile} tile"


def swizzle_words(bits: int, base: int, shift: int) -> str:
    """CuTe's ``Swizzle<B, M, S>`` in words.

    >>> print(swizzle_words(3, 0, 3))
    Sw<3,0,3>: offset bits 3..5 are XOR-ed into bits 0..2: every 8 offsets (a row) the 8 runs of 1 element are permuted by the row number mod 8
    """
    lo, hi = base + shift, base + shift + bits - 1
    run, row = 1 << base, 1 << (base + shift)
    return (f"Sw<{bits},{base},{shift}>: offset bits {lo}..{hi} are XOR-ed into bits {base}..{base + bits - 1}: "
            f"every {row} offsets (a row) the {1 << bits} runs of {run} element{'s' if run > 1 else ''} are "
            f"permuted by the row number mod {1 << bits}")
