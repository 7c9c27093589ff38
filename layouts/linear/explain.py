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
CuTe form: (2,(2,2)):(2,(4,1)) (the out-dims flattened, dim0 fastest)
"""

from typing import Sequence

from .layout import LinearLayout

_ONE = {"row": "one row down", "column": "one column right"}


def _steps(value: int, unit: str) -> str:
    if value == 1:
        return _ONE.get(unit, f"one step along {unit}")
    if value & (value - 1) == 0:
        return (f"{value} rows down" if unit == "row" else f"{value} columns right" if unit == "column"
                else f"{value} steps along {unit}")
    bits = [i for i in range(value.bit_length()) if value >> i & 1]
    return f"flips bits {', '.join(map(str, bits))} of the {unit} index (XOR {value})"


def basis_words(basis: Sequence[int], out_dims: Sequence[str]) -> str:
    """What one basis does, in words.

    >>> basis_words((1, 2), ["dim0", "dim1"])
    'one row down and 2 columns right (a swizzle: it moves along both dims)'
    >>> basis_words((0, 0), ["dim0", "dim1"])
    'nothing: a broadcast (inputs differing only in this bit hold the same element)'
    """
    units = ["row", "column"] if list(out_dims) == ["dim0", "dim1"] else list(out_dims)
    moves = [_steps(v, u) for v, u in zip(basis, units) if v]
    if not moves:
        return "nothing: a broadcast (inputs differing only in this bit hold the same element)"
    text = " and ".join(moves)
    if len(moves) > 1:
        text += " (a swizzle: it moves along both dims)" if len(moves) == 2 else " (it mixes several dims)"
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
        how = ("read as memory: element -> offset, the inverse of offset -> element"
               if "offset" in layout.in_dim_names else
               f"the out-dims flattened, {names[0]} fastest" if len(names) > 1 else f"out-dim {names[0]}")
        lines.append(f"CuTe form: {form} ({how})")
    return "\n".join(lines)
