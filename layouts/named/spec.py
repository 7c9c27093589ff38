"""The layout grammar: turn a spec string into the list of physical dims it names.

Grammar (outermost dim first, innermost last):

* An upper-case letter is a logical axis stored at that place: ``"NCHW"``, ``"NHWC"``,
  ``"CHWN"``, ``"OIHW"``, ``"HWIO"``, ``"NDHWC"``. Any letter may be an axis.
* A number followed by a lower-case letter is an inner block of that axis (the oneDNN/TVM
  convention): ``"NCHW16c"`` stores channel ``c`` at outer index ``c // 16`` and block
  index ``c % 16``. An axis may be blocked more than once (``"OIHW4i16o4i"``); the blocks
  then split the axis's index from the outside in.
* A lower-case letter without a number is a plain axis, so oneDNN tags read as they are
  written: ``"nChw16c"`` is ``"NCHW16c"``.
* Ascend's ``X1 ... X0`` pair (``"NC1HWC0"``) is an outer part ``X1`` and a block ``X0``
  whose size is the parameter ``X0=`` of the layout (16 unless given).

>>> parse("NCHW16c").names
('N', 'C', 'H', 'W', '16c')
>>> parse("nChw8c") == parse("NCHW8c")
True
>>> parse("NC1HWC0").names
('N', 'C1', 'H', 'W', 'C0')
>>> parse("NCHWN")
Traceback (most recent call last):
...
layouts.errors.LayoutError: spec 'NCHWN': axis N appears twice (at positions 0 and 4); each axis is stored once, blocks of it are written as <number><letter> such as '16n'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..errors import LayoutError, LayoutTypeError, type_name

#: Block size of an Ascend ``X0`` dim when the layout does not say (``C0=16``).
DEFAULT_ASCEND_BLOCK = 16
#: The most physical dims a spec may have (numpy 2's limit on array dims).
MAX_DIMS = 64
#: The most digits a block size may have (a layout addresses fewer than 2**63 elements).
MAX_BLOCK_DIGITS = 18


@dataclass(frozen=True)
class Dim:
    """One physical dim of a spec.

    ``axis`` is the logical axis (an upper-case letter). ``block`` is ``None`` for the
    axis's outer part, an int for a fixed inner block, or the name of the parameter that
    sets the block size (``"C0"`` in Ascend's ``NC1HWC0``). ``name`` is how the spec wrote it.
    """

    axis: str
    block: int | str | None
    name: str

    @property
    def is_block(self) -> bool:
        return self.block is not None


@dataclass(frozen=True)
class Spec:
    """A parsed spec: its physical dims (outermost first) and its logical axes."""

    text: str
    dims: tuple[Dim, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Physical dim names, outermost first."""
        return tuple(d.name for d in self.dims)

    @property
    def axes(self) -> tuple[str, ...]:
        """Logical axes in the order their outer parts are stored."""
        return tuple(d.axis for d in self.dims if not d.is_block)

    @property
    def canonical(self) -> str:
        """The spec written with upper-case axes (``"nChw16c"`` -> ``"NCHW16c"``)."""
        out = []
        for d in self.dims:
            if d.is_block and isinstance(d.block, int):
                out.append(f"{d.block}{d.axis.lower()}")
            else:
                out.append(d.name)
        return "".join(out)

    def blocks_of(self, axis: str) -> tuple[Dim, ...]:
        """The inner blocks of ``axis``, outermost first."""
        return tuple(d for d in self.dims if d.is_block and d.axis == axis)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Spec):
            return NotImplemented
        return self.canonical == other.canonical

    def __hash__(self) -> int:
        return hash(self.canonical)


def parse(spec: str | Spec) -> Spec:
    """Parse a spec string (cached). See the module docstring for the grammar."""
    if isinstance(spec, Spec):
        return spec
    if not isinstance(spec, str):
        raise LayoutTypeError(f"a layout spec must be a string such as 'NCHW' or a Layout, got {type_name(spec)}")
    if len(spec) > 4 * MAX_DIMS:
        raise LayoutError(f"spec {spec[:40]!r}... is {len(spec)} characters long; a spec has at most {MAX_DIMS} dims")
    return _parse(spec)


@lru_cache(maxsize=512)
def _parse(text: str) -> Spec:
    if not text:
        raise LayoutError("empty layout spec: expected axis letters such as 'NCHW' or 'NCHW16c'")
    dims: list[Dim] = []
    outer_at: dict[str, int] = {}
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isascii() and ch.isalpha() and ch.isupper() and _ascend_digit(text, i) is not None:
            axis, digit = ch, text[i + 1]
            if digit == "1":
                if axis in outer_at:
                    raise LayoutError(f"spec {text!r}: axis {axis} appears twice (at positions {outer_at[axis]} and {i})")
                outer_at[axis] = i
                dims.append(Dim(axis, None, f"{axis}1"))
            else:
                if not any(d.name == f"{axis}1" for d in dims) or any(d.name == f"{axis}0" for d in dims):
                    raise LayoutError(f"spec {text!r}: {axis}0 at position {i} needs one outer part {axis}1 before it (Ascend's NC1HWC0)")
                dims.append(Dim(axis, f"{axis}0", f"{axis}0"))
            i += 2
            continue
        if ch.isascii() and ch.isdigit():
            j = i
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
            number = text[i:j]
            if len(number.lstrip("0")) > MAX_BLOCK_DIGITS:
                raise LayoutError(
                    f"spec {text[:40]!r}: block size at position {i} has {len(number)} digits; "
                    f"a block holds fewer than 10**{MAX_BLOCK_DIGITS} elements"
                )
            follower = text[j] if j < len(text) else ""
            if not (follower.isascii() and follower.islower()):
                raise LayoutError(
                    f"spec {text!r}: number {number!r} at position {i} must be followed by a lower-case axis letter "
                    f"(a block such as '16c'), or be the 1/0 of an Ascend pair such as 'C1'...'C0'"
                )
            size = int(number)
            if size == 0:
                raise LayoutError(f"spec {text!r}: block '{number}{follower}' at position {i} has size 0; a block size must be >= 1")
            dims.append(Dim(follower.upper(), size, f"{size}{follower}"))
            i = j + 1
            continue
        if ch.isascii() and ch.isalpha():
            axis = ch.upper()
            if axis in outer_at:
                raise LayoutError(
                    f"spec {text!r}: axis {axis} appears twice (at positions {outer_at[axis]} and {i}); each axis is "
                    f"stored once, blocks of it are written as <number><letter> such as '16{axis.lower()}'"
                )
            outer_at[axis] = i
            dims.append(Dim(axis, None, axis))
            i += 1
            continue
        raise LayoutError(
            f"spec {text!r}: unexpected character {ch!r} at position {i}; expected axis letters, "
            f"blocks such as '16c', or Ascend's 'C1'/'C0'"
        )
    if len(dims) > MAX_DIMS:
        raise LayoutError(f"spec {text[:40]!r} has {len(dims)} dims; a spec has at most {MAX_DIMS} (numpy's limit on array dims)")
    for d in dims:
        if d.is_block and d.axis not in outer_at:
            raise LayoutError(f"spec {text!r}: block {d.name!r} has no axis {d.axis}; add {d.axis} where its outer part is stored")
    for axis in outer_at:
        names = [d.name for d in dims if d.axis == axis]
        if f"{axis}1" in names and f"{axis}0" not in names:
            raise LayoutError(f"spec {text!r}: Ascend outer part {axis}1 needs its block {axis}0 after it")
    seen: dict[str, int] = {}
    unique = []
    for d in dims:  # an axis blocked twice by the same size: keep dim names unique
        seen[d.name] = seen.get(d.name, 0) + 1
        unique.append(d if seen[d.name] == 1 else Dim(d.axis, d.block, f"{d.name}#{seen[d.name]}"))
    return Spec(text, tuple(unique))


def _ascend_digit(text: str, i: int) -> str | None:
    """The '1' or '0' of an Ascend pair right after the letter at ``i``, if that is what stands there."""
    if i + 1 < len(text) and text[i + 1] in "01":
        after = text[i + 2] if i + 2 < len(text) else ""
        if not (after.isascii() and after.isdigit()) and not (after.isascii() and after.islower()):
            return text[i + 1]
    return None
