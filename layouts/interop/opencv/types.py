"""OpenCV type codes in both encodings: 4.x packs the channel count above 3 depth bits
(``CV_8UC3 == 16``), 5.x above 5 bits (``CV_8UC3 == 64``) and adds the depths 16BF, Bool, 64U, 64S,
32U. :data:`CV4` and :data:`CV5` hold the two; the module functions take ``version=5`` (the
default, what ``cv2`` 5 uses) or ``version=4``.

>>> make_type("8U", 3), make_type("8U", 3, version=4)
(64, 16)
>>> type_name(69), elem_size(69), elem_size1(69)
('CV_32FC3', 12, 4)
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from ...errors import LayoutError, LayoutTypeError
from ..._args import dtype_arg
from ...errors import kind, number as show_int

__all__ = ["TypeEncoding", "CV4", "CV5", "encoding", "make_type", "depth_of", "channels_of", "elem_size",
           "elem_size1", "type_name", "parse_type", "type_from_dtype", "dtype_of", "elem_size_of"]

# depth name -> (code, bytes per channel, numpy dtype or None)
_DEPTHS_4 = (("8U", 1, "uint8"), ("8S", 1, "int8"), ("16U", 2, "uint16"), ("16S", 2, "int16"),
             ("32S", 4, "int32"), ("32F", 4, "float32"), ("64F", 8, "float64"),
             ("16F", 2, "float16"))
_DEPTHS_5 = _DEPTHS_4 + (("16BF", 2, None), ("Bool", 1, "bool"), ("64U", 8, "uint64"),
                         ("64S", 8, "int64"), ("32U", 4, "uint32"))

_NAME = re.compile(r"^(?:CV_)?(8U|8S|16U|16S|32S|32F|64F|16F|16BF|Bool|64U|64S|32U)"
                   r"(?:C(?:([0-9]{1,6})|\(([0-9]{1,6})\)))?$")


@dataclasses.dataclass(frozen=True)
class TypeEncoding:
    """One OpenCV type-code encoding: ``type = depth + ((cn - 1) << cn_shift)``.

    >>> CV4.make_type(CV4.depth_code("32F"), 3), CV5.make_type(5, 3)
    (21, 69)
    >>> CV5.channels(CV5.parse("CV_16BFC(7)")), CV5.elem_size(CV5.parse("CV_16BFC(7)"))
    (7, 14)
    """

    version: int
    cn_shift: int
    cn_max: int
    depths: tuple  # ((name, size1, numpy dtype name or None), ...) indexed by depth code

    @property
    def depth_max(self) -> int:
        return 1 << self.cn_shift

    @property
    def type_mask(self) -> int:
        return self.depth_max * self.cn_max - 1

    def depth_code(self, depth) -> int:
        """A depth code from a code or a name (``"32F"``, ``"CV_32F"``)."""
        if isinstance(depth, str):
            name = depth[3:] if depth.startswith("CV_") else depth
            for code, (n, _, _) in enumerate(self.depths):
                if n == name:
                    return code
            raise LayoutError(f"depth {depth[:40]!r} is not an OpenCV {self.version}.x depth; "
                              f"expected one of {', '.join('CV_' + d[0] for d in self.depths)}")
        if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)):
            raise LayoutTypeError(f"depth must be a depth code (int) or a name such as 'CV_32F', got "
                            f"{kind(depth)}")
        if not 0 <= depth < len(self.depths):
            raise LayoutError(f"depth code {show_int(depth)} is not an OpenCV {self.version}.x depth; "
                              f"expected 0..{len(self.depths) - 1}")
        return int(depth)

    def make_type(self, depth, cn: int) -> int:
        """``CV_MAKETYPE(depth, cn)``; ``cn`` in 1..cn_max (512 in 4.x, 128 in 5.x)."""
        d = self.depth_code(depth)
        if isinstance(cn, (bool, np.bool_)) or not isinstance(cn, (int, np.integer)):
            raise LayoutTypeError(f"cn (channel count) must be an int, got {kind(cn)}")
        if not 1 <= cn <= self.cn_max:
            raise LayoutError(f"channel count {show_int(cn)} out of range: OpenCV {self.version}.x "
                              f"allows 1..{self.cn_max}")
        return d + ((int(cn) - 1) << self.cn_shift)

    def _check(self, type_code) -> int:
        if isinstance(type_code, str):
            return self.parse(type_code)
        if isinstance(type_code, (bool, np.bool_)) or not isinstance(type_code, (int, np.integer)):
            raise LayoutTypeError(f"type must be an OpenCV type code (int) or a name such as 'CV_8UC3', "
                            f"got {kind(type_code)}")
        if not 0 <= type_code <= self.type_mask:
            raise LayoutError(f"type code {show_int(type_code)} out of range for OpenCV {self.version}.x:"
                              f" expected 0..{self.type_mask}")
        t = int(type_code)
        if (t & (self.depth_max - 1)) >= len(self.depths):
            raise LayoutError(f"type code {t} has depth {t & (self.depth_max - 1)}, which "
                              f"OpenCV {self.version}.x does not define")
        return t

    def depth(self, type_code) -> int:
        """``CV_MAT_DEPTH``."""
        return self._check(type_code) & (self.depth_max - 1)

    def channels(self, type_code) -> int:
        """``CV_MAT_CN``."""
        return (self._check(type_code) >> self.cn_shift) + 1

    def elem_size1(self, type_code) -> int:
        """``CV_ELEM_SIZE1``: bytes of one channel."""
        return self.depths[self.depth(type_code)][1]

    def elem_size(self, type_code) -> int:
        """``CV_ELEM_SIZE``: bytes of one element (all channels)."""
        return self.channels(type_code) * self.elem_size1(type_code)

    def name(self, type_code) -> str:
        """``"CV_8UC3"``, ``"CV_8UC5"``: spelled as OpenCV's ``typeToString`` writes it
        (``"%sC%d"`` of the depth name and the channel count, for every count)."""
        d, cn = self.depth(type_code), self.channels(type_code)
        return f"CV_{self.depths[d][0]}C{cn}"

    def parse(self, name: str) -> int:
        """``"CV_8UC3"``, ``"8UC3"``, ``"CV_8UC(5)"`` (the ``CV_8UC(n)`` macro's spelling),
        ``"CV_32F"`` (one channel) -> type code."""
        if not isinstance(name, str):
            raise LayoutTypeError(f"type name must be a str such as 'CV_8UC3', got {kind(name)}")
        m = _NAME.match(name.strip())
        if m is None:
            raise LayoutError(f"type name {name[:40]!r} not understood; expected e.g. 'CV_8UC3', "
                              "'CV_32FC1', 'CV_16UC5'")
        cn = int(m.group(2) or m.group(3) or 1)
        return self.make_type(m.group(1), cn)

    def from_dtype(self, dtype, cn: int = 1) -> int:
        """The type code of numpy ``dtype`` with ``cn`` channels."""
        dt = dtype_arg("dtype", dtype)
        for code, (_, _, npname) in enumerate(self.depths):
            if npname is not None and np.dtype(npname) == dt:
                return self.make_type(code, cn)
        raise LayoutError(f"numpy dtype {dt} has no OpenCV {self.version}.x depth")

    def dtype(self, type_code) -> np.dtype:
        """The numpy dtype of one channel (16BF has none: LayoutError)."""
        name, _, npname = self.depths[self.depth(type_code)]
        if npname is None:
            raise LayoutError(f"CV_{name} has no numpy dtype")
        return np.dtype(npname)


CV4 = TypeEncoding(4, 3, 512, _DEPTHS_4)
CV5 = TypeEncoding(5, 5, 128, _DEPTHS_5)


def encoding(version: int = 5) -> TypeEncoding:
    """:data:`CV4` or :data:`CV5`."""
    if isinstance(version, (bool, np.bool_)) or not isinstance(version, (int, np.integer, str)):
        raise LayoutTypeError(f"version must be 4 or 5, got {kind(version)}")
    if version in (4, "4", "4.x"):
        return CV4
    if version in (5, "5", "5.x"):
        return CV5
    shown = repr(version[:20]) if isinstance(version, str) else show_int(version)
    raise LayoutError(f"OpenCV type encoding version {shown} not known; expected 4 or 5")


def make_type(depth, cn: int = 1, version: int = 5) -> int:
    """``CV_MAKETYPE(depth, cn)``; depth as a code or a name (``"8U"``, ``"CV_32F"``)."""
    return encoding(version).make_type(depth, cn)


def depth_of(type_code, version: int = 5) -> int:
    return encoding(version).depth(type_code)


def channels_of(type_code, version: int = 5) -> int:
    return encoding(version).channels(type_code)


def elem_size(type_code, version: int = 5) -> int:
    """Bytes per element, from a code or name; see :func:`elem_size_of` for a numpy dtype."""
    return encoding(version).elem_size(type_code)


def elem_size1(type_code, version: int = 5) -> int:
    return encoding(version).elem_size1(type_code)


def type_name(type_code, version: int = 5) -> str:
    return encoding(version).name(type_code)


def parse_type(name: str, version: int = 5) -> int:
    return encoding(version).parse(name)


def type_from_dtype(dtype, cn: int = 1, version: int = 5) -> int:
    return encoding(version).from_dtype(dtype, cn)


def dtype_of(type_code, version: int = 5) -> np.dtype:
    return encoding(version).dtype(type_code)


def elem_size_of(dtype, cn: int = 1) -> tuple:
    """``(elemSize, elemSize1)`` in bytes for numpy ``dtype`` with ``cn`` channels.

    >>> elem_size_of(np.float32, 3)
    (12, 4)
    """
    t = CV5.from_dtype(dtype, cn)
    return CV5.elem_size(t), CV5.elem_size1(t)
