"""OpenCV: type codes, a Mat's memory layout (step, ROI), and ``blobFromImages`` in one pass.

* Type codes in both encodings: OpenCV 4.x packs the channel count above 3 depth bits
  (``CV_8UC3 == 16``), OpenCV 5.x above 5 bits (``CV_8UC3 == 64``) and adds the depths 16BF, Bool,
  64U, 64S, 32U. :data:`CV4` and :data:`CV5` hold the two; the module functions take
  ``version=5`` (the default, what ``cv2`` 5 uses) or ``version=4``.
* :class:`MatLayout`: what a ``cv::Mat`` header says about memory -- ``step`` (bytes per row),
  ``step1``, ``elem_size``, ``elem_size1``, ``total``, ``is_continuous``, ``is_submatrix`` --
  for a numpy image or (rows, cols, type, step); ROIs keep their parent's step, ``locate_roi`` and
  ``adjust_roi`` behave as ``Mat::locateROI`` / ``Mat::adjustROI``; :attr:`MatLayout.layout` is the
  same memory as a :class:`layouts.Layout` (HWC with a row pitch).
* :func:`blob_from_images`: ``cv2.dnn.blobFromImages`` (mean subtracted first, then scaled; swapRB
  swaps channels 0 and 2 and takes mean/scale in the swapped order) in one fused pass, NCHW or NHWC.

Numbers below are the 5.x encoding unless ``version=4`` is given.

>>> make_type("8U", 3), make_type("8U", 3, version=4)
(64, 16)
>>> type_name(69), elem_size(69), elem_size1(69)
('CV_32FC3', 12, 4)
>>> m = MatLayout.create(512, 512, "CV_32FC3")
>>> m.step, m.elem_size, m.elem_size1, m.step1, m.is_continuous
(6144, 12, 4, 1536, True)
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Optional, Sequence

import numpy as np

from ..errors import LayoutError, LayoutTypeError
from ._args import bool_arg, dtype_arg, int_arg, kind, ndarray_arg, number_arg, show_int, str_arg, threads_arg

__all__ = [
    "TypeEncoding", "CV4", "CV5", "encoding", "make_type", "depth_of", "channels_of", "elem_size",
    "elem_size1", "type_name", "parse_type", "type_from_dtype", "dtype_of", "MatLayout",
    "blob_from_images",
]

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
            raise TypeError(f"depth must be a depth code (int) or a name such as 'CV_32F', got "
                            f"{kind(depth)}")
        if not 0 <= depth < len(self.depths):
            raise LayoutError(f"depth code {show_int(depth)} is not an OpenCV {self.version}.x depth; "
                              f"expected 0..{len(self.depths) - 1}")
        return int(depth)

    def make_type(self, depth, cn: int) -> int:
        """``CV_MAKETYPE(depth, cn)``; ``cn`` in 1..cn_max (512 in 4.x, 128 in 5.x)."""
        d = self.depth_code(depth)
        if isinstance(cn, (bool, np.bool_)) or not isinstance(cn, (int, np.integer)):
            raise TypeError(f"cn (channel count) must be an int, got {kind(cn)}")
        if not 1 <= cn <= self.cn_max:
            raise LayoutError(f"channel count {show_int(cn)} out of range: OpenCV {self.version}.x "
                              f"allows 1..{self.cn_max}")
        return d + ((int(cn) - 1) << self.cn_shift)

    def _check(self, type_code) -> int:
        if isinstance(type_code, str):
            return self.parse(type_code)
        if isinstance(type_code, (bool, np.bool_)) or not isinstance(type_code, (int, np.integer)):
            raise TypeError(f"type must be an OpenCV type code (int) or a name such as 'CV_8UC3', "
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
            raise TypeError(f"type name must be a str such as 'CV_8UC3', got {kind(name)}")
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
        raise TypeError(f"version must be 4 or 5, got {kind(version)}")
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


# --- Mat ----------------------------------------------------------------------------------------
_INT_MAX = 2**31 - 1
_SIZE_MAX = 2**63 - 1  # what a byte offset can be on a 64-bit machine (numpy's intp)


@dataclasses.dataclass(frozen=True)
class MatLayout:
    """What a 2-D ``cv::Mat`` header says about memory, in bytes, relative to ``datastart``.

    ``offset`` is ``data - datastart`` (non-zero for an ROI), ``end`` is ``dataend - datastart``
    (the parent's extent, which is how ``locateROI`` finds the whole image), ``step`` the bytes
    from one row to the next. Build one with :meth:`create` or :meth:`from_array`; take ROIs
    with :meth:`roi`.

    >>> m = MatLayout.create(4, 6, "CV_8UC3")
    >>> r = m.roi(x=1, y=2, width=3, height=2)
    >>> r.step, r.offset, r.is_continuous, r.is_submatrix
    (18, 39, False, True)
    >>> r.locate_roi()
    ((6, 4), (1, 2))
    >>> r.adjust_roi(1, 1, 1, 1).locate_roi()     # grows by one on every side, clipped
    ((6, 4), (0, 1))
    """

    rows: int
    cols: int
    type: int
    step: int
    offset: int = 0
    end: Optional[int] = None
    submatrix: bool = False
    version: int = 5

    def __post_init__(self):
        enc = encoding(self.version)
        object.__setattr__(self, "type", enc._check(self.type))
        for name in ("rows", "cols"):  # int in OpenCV
            object.__setattr__(self, name, int_arg(f"Mat {name}", getattr(self, name), lo=0,
                                                   hi=_INT_MAX))
        for name in ("step", "offset"):  # size_t, bytes
            object.__setattr__(self, name, int_arg(f"Mat {name}", getattr(self, name), lo=0,
                                                   hi=_SIZE_MAX))
        if self.end is not None:
            object.__setattr__(self, "end", int_arg("Mat end", self.end, lo=0, hi=_SIZE_MAX))
        object.__setattr__(self, "submatrix", bool_arg("submatrix", self.submatrix))
        minstep = self.cols * self.elem_size
        if self.step < minstep:
            raise LayoutError(f"Mat step {self.step} bytes is less than a row of {self.cols} x "
                              f"{self.elem_size} bytes ({minstep}); expected step >= {minstep}")
        if self.step % self.elem_size1:
            raise LayoutError(f"Mat step {self.step} is not a multiple of elemSize1 "
                              f"{self.elem_size1} (\"Step must be a multiple of esz1\")")
        own_end = self.offset + (self._dataend_rel() if self.rows and self.cols else 0)
        if self.end is None:
            object.__setattr__(self, "end", own_end)
        elif self.end < own_end:
            raise LayoutError(f"Mat end {self.end} is before the last element's end {own_end}")

    def _dataend_rel(self) -> int:
        return (self.rows - 1) * self.step + self.cols * self.elem_size

    # constructors -------------------------------------------------------------------------
    @classmethod
    def create(cls, rows: int, cols: int, type, step: Optional[int] = None,
               version: int = 5) -> "MatLayout":
        """``Mat(rows, cols, type)`` (step = cols * elemSize) or ``Mat(rows, cols, type, data,
        step)``: a user step must be >= a row and a multiple of elemSize1, and is kept as given
        (OpenCV 4/5 ``matrix.cpp``; 3.x replaced it by the row size when ``rows == 1``)."""
        enc = encoding(version)
        t = enc._check(type)
        rows = int_arg("rows", rows, lo=0, hi=_INT_MAX)
        cols = int_arg("cols", cols, lo=0, hi=_INT_MAX)
        if step is None:
            step = cols * enc.elem_size(t)
        return cls(rows, cols, t, step, version=version)

    @classmethod
    def from_array(cls, image: np.ndarray, parent: Optional[np.ndarray] = None,
                   version: int = 5) -> "MatLayout":
        """The Mat that ``cv2`` makes of a numpy image: (rows, cols) or (rows, cols, channels),
        pixels contiguous, rows ``image.strides[0]`` bytes apart. With ``parent`` (the array an
        ROI was sliced from) the result is an ROI of it, so ``locate_roi`` finds the offset."""
        img = ndarray_arg("image", image)
        if img.ndim not in (2, 3):
            raise LayoutError(f"an OpenCV image is 2-D or 3-D (rows, cols[, channels]); got shape "
                              f"{img.shape}")
        cn = img.shape[2] if img.ndim == 3 else 1
        t = encoding(version).from_dtype(img.dtype, cn)
        item = img.itemsize
        if img.ndim == 3 and img.shape[2] > 1 and img.strides[2] != item:
            raise LayoutError(f"channels are {img.strides[2]} bytes apart; a Mat needs them "
                              f"adjacent ({item} bytes)")
        if img.shape[1] > 1 and img.strides[1] != cn * item:
            raise LayoutError(f"pixels are {img.strides[1]} bytes apart; a Mat needs them "
                              f"adjacent ({cn * item} bytes)")
        step = img.strides[0] if img.shape[0] > 1 else img.shape[1] * cn * item
        if step < 0:
            raise LayoutError(f"rows have a negative step ({step} bytes); a Mat cannot")
        if parent is None:
            return cls(img.shape[0], img.shape[1], t, step, version=version)
        whole = cls.from_array(ndarray_arg("parent", parent), version=version)
        if whole.type != t or (img.shape[0] > 1 and whole.step != step):
            raise LayoutError(f"image is not an ROI of this parent: type {type_name(t, version)} "
                              f"step {step} vs parent {type_name(whole.type, version)} step "
                              f"{whole.step}")
        # where the image starts inside the parent, checked before any Mat is built from it
        off = img.__array_interface__["data"][0] - parent.__array_interface__["data"][0]
        rows, cols, esz = img.shape[0], img.shape[1], whole.elem_size
        y, x_bytes = divmod(off, whole.step) if whole.step else (0, off)
        x, rem = divmod(x_bytes, esz)
        if off < 0 or rem or y + rows > whole.rows or x + cols > whole.cols:
            raise LayoutError(
                f"image is not an ROI of this parent: it starts {off} bytes from the parent's "
                f"first element, and a {rows}x{cols} ROI of a {whole.rows}x{whole.cols} parent "
                f"(step {whole.step}, {esz} bytes per pixel) must start at y*step + x*{esz} with "
                f"y + rows <= {whole.rows} and x + cols <= {whole.cols}")
        return cls(rows, cols, t, whole.step, offset=off, end=whole.end,
                   submatrix=rows < whole.rows or cols < whole.cols, version=version)

    # the header's numbers --------------------------------------------------------------------
    @property
    def depth(self) -> int:
        return encoding(self.version).depth(self.type)

    @property
    def channels(self) -> int:
        return encoding(self.version).channels(self.type)

    @property
    def elem_size(self) -> int:
        """``elemSize()``: bytes per element (``step[1]``)."""
        return encoding(self.version).elem_size(self.type)

    @property
    def elem_size1(self) -> int:
        """``elemSize1()``: bytes per channel."""
        return encoding(self.version).elem_size1(self.type)

    @property
    def step1(self) -> int:
        """``step1()``: the step in channels (``step / elemSize1``)."""
        return self.step // self.elem_size1

    @property
    def steps(self) -> tuple:
        """``(step[0], step[1])`` in bytes."""
        return (self.step, self.elem_size)

    @property
    def total(self) -> int:
        """``total()``: rows * cols (elements, not channels)."""
        return self.rows * self.cols

    @property
    def shape(self) -> tuple:
        """numpy's shape of the image: ``(rows, cols, channels)``."""
        return (self.rows, self.cols, self.channels)

    @property
    def is_continuous(self) -> bool:
        """``isContinuous()``, as ``updateContinuityFlag`` computes it for 2 dims: from the first
        dim longer than 1, each dim must fill the next one's step exactly (a single row always
        does), and the element count times channels must fit in an int."""
        size, step = (self.rows, self.cols), (self.step, self.elem_size)
        i = next((k for k, n in enumerate(size) if n > 1), len(size))
        t = size[min(i, len(size) - 1)] * self.channels
        j = len(size) - 1
        while j > i:
            t *= size[j]
            if step[j] * size[j] < step[j - 1]:
                break
            j -= 1
        return j <= i and t <= _INT_MAX

    @property
    def is_submatrix(self) -> bool:
        """``isSubmatrix()``: made as an ROI smaller than its parent."""
        return self.submatrix

    # ROIs -----------------------------------------------------------------------------------
    def roi(self, x: int, y: int, width: int, height: int) -> "MatLayout":
        """``Mat(m, Rect(x, y, width, height))``: same step, data moved to (x, y)."""
        x, y = int_arg("x", x, -_INT_MAX, _INT_MAX), int_arg("y", y, -_INT_MAX, _INT_MAX)
        width = int_arg("width", width, -_INT_MAX, _INT_MAX)
        height = int_arg("height", height, -_INT_MAX, _INT_MAX)
        if not (0 <= x and 0 <= width and x + width <= self.cols and 0 <= y and 0 <= height
                and y + height <= self.rows):
            raise LayoutError(f"ROI x={x} y={y} width={width} height={height} is outside the "
                              f"{self.cols}x{self.rows} (cols x rows) Mat")
        return dataclasses.replace(
            self, rows=height, cols=width, offset=self.offset + y * self.step + x * self.elem_size,
            submatrix=self.submatrix or width < self.cols or height < self.rows)

    def locate_roi(self) -> tuple:
        """``locateROI``: ``((whole_width, whole_height), (x, y))`` of this ROI in its parent."""
        esz = self.elem_size
        d1, d2 = self.offset, self.end
        if self.step <= 0:
            raise LayoutError("locate_roi needs step > 0")
        oy = d1 // self.step
        ox = (d1 - self.step * oy) // esz
        minstep = (ox + self.cols) * esz
        h = max((d2 - minstep) // self.step + 1, oy + self.rows)
        w = max((d2 - self.step * (h - 1)) // esz, ox + self.cols)
        return (w, h), (ox, oy)

    def adjust_roi(self, dtop: int, dbottom: int, dleft: int, dright: int) -> "MatLayout":
        """``adjustROI``: move each edge outwards (positive) or inwards, clipped to the parent."""
        dtop, dbottom = (int_arg(k, v, -_INT_MAX, _INT_MAX) for k, v in
                         (("dtop", dtop), ("dbottom", dbottom)))
        dleft, dright = (int_arg(k, v, -_INT_MAX, _INT_MAX) for k, v in
                         (("dleft", dleft), ("dright", dright)))
        (ww, wh), (ox, oy) = self.locate_roi()
        row1 = min(max(oy - dtop, 0), wh)
        row2 = max(0, min(oy + self.rows + dbottom, wh))
        col1 = min(max(ox - dleft, 0), ww)
        col2 = max(0, min(ox + self.cols + dright, ww))
        row1, row2 = min(row1, row2), max(row1, row2)
        col1, col2 = min(col1, col2), max(col1, col2)
        return dataclasses.replace(
            self, rows=row2 - row1, cols=col2 - col1,
            offset=self.offset + (row1 - oy) * self.step + (col1 - ox) * self.elem_size)

    # the same memory as a Layout ---------------------------------------------------------
    @property
    def layout(self):
        """This Mat's memory as a :class:`layouts.Layout`: ``HWC`` with an H pitch of ``step1``.

        Offsets are counted from ``data`` (this Mat's first element), in channels.

        >>> MatLayout.create(2, 3, "CV_32FC3", step=48).layout.strides
        {'H': 12, 'W': 3, 'C': 1}
        """
        from layouts import Layout

        packed = self.cols * self.channels
        pitch = {"H": self.step1} if self.rows > 1 and self.step1 != packed else None
        return Layout("HWC", H=self.rows, W=self.cols, C=self.channels, pitch=pitch)

    def view(self, buffer) -> np.ndarray:
        """A numpy (rows, cols, channels) view onto ``buffer``, the memory from ``datastart``
        (bytes or an array of this Mat's depth)."""
        dt = encoding(self.version).dtype(self.type)
        if isinstance(buffer, (bytes, bytearray, memoryview)):
            buf = np.frombuffer(buffer, dtype=np.uint8)
        elif isinstance(buffer, np.ndarray):
            if not buffer.flags.c_contiguous:
                raise LayoutError("buffer must be contiguous memory (the Mat's bytes from "
                                  f"datastart on), got an array with strides {buffer.strides}")
            buf = buffer.reshape(-1)
        else:
            raise TypeError(f"buffer must be bytes or a numpy array, got {type(buffer).__name__}")
        if buf.dtype == np.uint8 and dt != np.uint8:
            if buf.size % dt.itemsize:
                raise LayoutError(f"buffer has {buf.size} bytes, not a whole number of "
                                  f"{dt.itemsize}-byte {dt} channels")
            buf = buf.view(dt)
        if buf.dtype != dt:
            raise LayoutError(f"buffer dtype {buf.dtype} does not match {type_name(self.type, self.version)}")
        need = -(-self.end // dt.itemsize)
        if buf.size < need:
            raise LayoutError(f"buffer holds {buf.size} elements; the Mat reaches {need} "
                              f"({self.end} bytes from datastart)")
        start = self.offset // dt.itemsize
        return self.layout.view(buf[start: start + self.layout.span])


# --- blobFromImages --------------------------------------------------------------------------
def _scalar4(value, what: str) -> np.ndarray:
    """OpenCV's ``Scalar`` from Python: a number fills only channel 0 (``Scalar(v)``), a sequence
    up to 4 values, the rest 0."""
    return np.array(_scalar4_list(value, what))


def _plain(x) -> bool:
    """A Python int or float (bool is neither): what :func:`number_arg` takes as it is."""
    return type(x) is float or type(x) is int


def _scalar4_list(value, what: str) -> list:
    """:func:`_scalar4` as a list of four Python floats (the same checks; plain numbers skip
    the per-value call)."""
    if value is None:
        return [0.0, 0.0, 0.0, 0.0]
    if isinstance(value, np.ndarray):
        if value.ndim > 1:
            raise LayoutError(f"{what} must be a number or a flat sequence of up to 4 numbers, "
                              f"got shape {value.shape}")
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) > 4:
            raise LayoutError(f"{what} has {len(value)} values; an OpenCV Scalar holds at most 4")
        if all(type(x) is float or type(x) is int for x in value):
            v = [float(x) for x in value]
        else:
            v = [number_arg(f"{what}[{i}]", x, finite=False) for i, x in enumerate(value)]
        return v + [0.0] * (4 - len(v))
    return [float(value) if _plain(value) else number_arg(what, value, finite=False), 0.0, 0.0, 0.0]


def _images_array(images):
    """``([4-D NHWC batch], N)`` for an array, ``([HWC images], N)`` for a list."""
    if isinstance(images, np.ndarray):
        if images.ndim == 4:
            return [images], images.shape[0]
        if images.ndim in (2, 3):
            raise LayoutError(f"images: got one array of shape {images.shape}; pass a list of "
                              "images (or a 4-D N,H,W,C batch)")
        raise LayoutError(f"images: expected a list of HWC images or an NHWC array, got shape "
                          f"{images.shape}")
    if not isinstance(images, (list, tuple)):
        raise TypeError(f"images must be a list of images or a 4-D numpy array, got "
                        f"{type(images).__name__}")
    imgs = []
    for i, im in enumerate(images):
        if not isinstance(im, np.ndarray):
            raise TypeError(f"image {i} must be a numpy array, got {type(im).__name__}")
        imgs.append(im)
    if not imgs:
        raise LayoutError("images is empty; expected at least one image")
    if all(im.ndim == 3 for im in imgs):
        return imgs, len(imgs)  # HWC images as they are (no per-image views: ~1 us each)
    out = []
    for i, im in enumerate(imgs):
        if im.ndim == 2:
            im = im[:, :, None]
        if im.ndim != 3:
            raise LayoutError(f"image {i} has shape {im.shape}; expected (rows, cols[, channels])")
        out.append(im)
    return out, len(out)


_SUPPORTED = {np.dtype(t) for t in ("uint8", "int8", "uint16", "int16", "int32", "float32",
                                    "float64")}
#: what OpenCV's resize takes with INTER_LINEAR (it has no int8 or int32 linear resize)
_RESIZABLE = {np.dtype(t) for t in ("uint8", "uint16", "int16", "float32", "float64")}


def _memory_bytes() -> int:
    """Physical memory of this machine (a bound for what one call may allocate)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 2**40


def _check_size(size):
    """``(width, height)``: two ints, both > 0 (resize) or both 0 (no resize), within int."""
    if isinstance(size, (str, bytes)) or not isinstance(size, (tuple, list, np.ndarray)):
        raise TypeError(f"size must be (width, height), got {kind(size)}")
    if len(size) != 2:
        raise LayoutError(f"size has {len(size)} values; expected (width, height)")
    w, h = (int_arg(f"size {name}", v, lo=0, hi=_INT_MAX) for name, v in
            zip(("width", "height"), size))
    if (w == 0) != (h == 0):
        raise LayoutError(f"size=({w}, {h}): width and height must both be > 0 (resize to them) "
                          "or both 0 (no resize)")
    return w, h


def _resize(img, size, crop):
    """OpenCV's resize / centre crop inside blobFromImages, done by cv2 itself."""
    import cv2

    w, h = size
    ih, iw = img.shape[:2]
    if (iw, ih) == (w, h):
        return img
    squeeze = img.ndim == 3 and img.shape[2] == 1
    if crop:
        f = max(np.float32(w) / np.float32(iw), np.float32(h) / np.float32(ih))
        r = cv2.resize(img, None, fx=float(f), fy=float(f), interpolation=cv2.INTER_LINEAR)
        x0, y0 = int(0.5 * (r.shape[1] - w)), int(0.5 * (r.shape[0] - h))
        r = r[y0:y0 + h, x0:x0 + w]
    else:
        r = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    if squeeze and r.ndim == 2:
        r = r[:, :, None]
    return r


_PP = []


def _kernel_module():
    """:mod:`layouts.kernels.preprocess` (imported on first use: it brings numba)."""
    if not _PP:
        from layouts.kernels import preprocess

        _PP.append(preprocess)
    return _PP[0]


def _scan_list(images, out):
    """A list (or tuple) of plain ndarrays checked in one compiled pass, or None.

    Returns ``(images, N, P, dtype, (H, W, C), overlaps)`` when every image is an exact
    ``np.ndarray`` of image 0's shape (2-D, or 3-D with 1, 3 or 4 channels) and dtype object,
    a supported native dtype, whole-element aligned; ``overlaps``: one shares memory bounds with
    ``out`` (an exact ndarray, else not looked at). ``images`` is a tuple holding the arrays
    while the kernel reads them by id; ``P`` the kernel's parameter array (perm and output
    filled in later). None: take the checked Python path, which also words every error.
    """
    if type(images) is np.ndarray:
        return _scan_batch(images, out)
    if (type(images) is not list and type(images) is not tuple) or not images:
        return None
    im0 = images[0]
    if type(im0) is not np.ndarray or (out is not None and type(out) is not np.ndarray):
        return None
    pp = _kernel_module()
    dt = im0.dtype
    if not pp.FAST or dt not in pp.PROTO:  # PROTO: the supported dtypes, native order
        return None
    shape = im0.shape
    if len(shape) == 3:
        H, W, C = shape
        if C != 3 and C != 1 and C != 4:
            return None
    elif len(shape) == 2:
        (H, W), C = shape, 1
    else:
        return None
    images = tuple(images)  # our own references: the list may change, the tuple cannot
    P = pp.params(len(images), 1, out, C, H, W, dt.itemsize, range(C), images)
    r = pp.scan_list(P)
    if r < 0:
        return None
    return images, len(images), P, dt, (H, W, C), r == 1


def _scan_batch(images, out):
    """:func:`_scan_list` for one N,H,W,C array (an exact, aligned ndarray of a supported
    native dtype with 1, 3 or 4 channels), or None."""
    if images.ndim != 4 or (out is not None and type(out) is not np.ndarray):
        return None
    pp = _kernel_module()
    dt = images.dtype
    if not pp.FAST or dt not in pp.PROTO or not images.flags.aligned:
        return None
    N, H, W, C = images.shape
    if C != 3 and C != 1 and C != 4:
        return None
    keep = (images,)  # P holds this tuple's id: it must live as long as P
    P = pp.params(N, 0, None, C, H, W, dt.itemsize, range(C), keep)
    overlaps = out is not None and np.may_share_memory(out, images)
    return keep, N, P, dt, (H, W, C), overlaps


#: ``perm`` (the output channel of each source channel) by (channels, swap_rb)
_PERMS = {(C, swap): ([2, 1, 0, 3][:C] if swap and C >= 3 else list(range(C))) for C in (1, 3, 4)
          for swap in (False, True)}


def blob_from_images(images, scalefactor=1.0, size=None, mean=None, swap_rb: bool = False,
                     crop: bool = False, layout: str = "NCHW", out=None,
                     threads=None, dtype=None) -> np.ndarray:
    """``cv2.dnn.blobFromImages`` in one fused pass: HWC images -> a float32 or float16
    NCHW/NHWC blob.

    ``out[n, c] = (image[..., c'] - mean[c]) * scalefactor[c]`` with ``c' = c`` or, when
    ``swap_rb``, channels 0 and 2 exchanged -- so ``mean`` and ``scalefactor`` are in the output
    (RGB) order, as in OpenCV. Like OpenCV's ``Scalar``, a single number for ``mean`` subtracts
    from channel 0 only; a single ``scalefactor`` scales every channel.

    Parameters
    ----------
    images : list of arrays (rows, cols[, 1|3|4]) or one (N, rows, cols, C) array
        uint8/int8/uint16/int16/int32/float32/float64; any strides (ROIs, flipped views).
        All must share size, channels and dtype.
    size : (width, height), optional
        Resize (and, with ``crop``, centre-crop) each image first -- done by ``cv2`` itself.
    layout : ``"NCHW"`` (OpenCV's) or ``"NHWC"``, or any order of those four letters.
    out : float32 or float16 array of the blob's shape, optional (written in place, and returned).
    dtype : ``np.float32`` (OpenCV's) or ``np.float16``, optional; default ``out``'s dtype, else
        float32. float16 is computed in float32 and rounded once, to nearest even, in the same
        pass: bitwise OpenCV's float32 blob cast by ``astype(np.float16)``.
    threads : None (automatic), or at most this many threads; outputs below
        ``layouts.kernels.preprocess.PAR_MIN_BYTES`` run on the calling thread only (a second
        thread costs more than it saves there).

    A list of plain arrays is checked and converted in compiled code (each image's address,
    shape and strides read there), so many small crops cost little more than their bytes.

    >>> img = np.array([[[10, 20, 30]]], np.uint8)          # one BGR pixel
    >>> blob_from_images([img], 0.5, mean=(1, 2, 3), swap_rb=True)[0, :, 0, 0].tolist()
    [14.5, 9.0, 3.5]
    >>> blob_from_images([img], 1 / 3, dtype=np.float16)[0, :, 0, 0].tolist()
    [3.333984375, 6.66796875, 10.0]
    """
    dtype = _blob_dtype(dtype, out)
    scan = _scan_list(images, out)  # lists of plain arrays, or one 4-D array
    if scan is None:
        images_is_batch = isinstance(images, np.ndarray)
        batches, n = _images_array(images)
    swap_rb, crop = bool_arg("swap_rb", swap_rb), bool_arg("crop", crop)
    threads = threads_arg(threads)
    str_arg("layout", layout)
    if layout != "NCHW" and not (len(layout) == 4 and set(layout) == set("NCHW")):
        raise LayoutError(f"layout={layout[:20]!r}; expected 'NCHW', 'NHWC' or another order of "
                          "N, C, H, W")
    mean4 = _scalar4_list(mean, "mean")
    if isinstance(scalefactor, (list, tuple)) or (isinstance(scalefactor, np.ndarray)
                                                  and scalefactor.ndim):
        scale4 = _scalar4_list(scalefactor, "scalefactor")  # per channel, unset ones 0 as in Scalar
    else:  # one number scales every channel
        scale4 = [float(scalefactor) if _plain(scalefactor) else
                  number_arg("scalefactor", scalefactor, finite=False)] * 4
    if out is not None:
        ndarray_arg("out", out)
    if scan is not None:
        # every image checked already (same shape and dtype, supported, native, aligned)
        if size is None or _check_size(size) == (0, 0):
            return _blob_scanned(scan, mean4, scale4, swap_rb, layout, out, threads, dtype)
        images_is_batch = isinstance(images, np.ndarray)
        batches, n = _images_array(images)  # resized below: the checked path
    return _blob_checked(images, images_is_batch, batches, n, np.array(mean4), np.array(scale4),
                         swap_rb, crop, size, layout, out, threads, dtype)


_BLOB_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))


def _blob_dtype(dtype, out) -> np.dtype:
    """The blob's element type: ``dtype`` (float32 or float16), else ``out``'s, else float32."""
    if dtype is None:
        if isinstance(out, np.ndarray) and out.dtype in _BLOB_DTYPES:
            return out.dtype
        return _BLOB_DTYPES[0]
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise LayoutTypeError(f"dtype must be np.float32 or np.float16, got {kind(dtype)}") from None
    if dt not in _BLOB_DTYPES:
        raise LayoutError(f"dtype={dt}: a blob is float32 (OpenCV's) or float16, not {dt}")
    return dt


def _new_or_out(shape, layout, n, C, H, W, out, dtype):
    """The blob: a new ``dtype`` array of ``shape``, or ``out`` checked against it."""
    if out is None:
        try:
            return np.empty(shape, dtype)  # every element is written: no zero fill
        except MemoryError:
            raise LayoutError(f"the blob {shape} ({layout}) needs {dtype.itemsize * n * C * H * W} bytes, "
                              "more than this machine can allocate") from None
    blob = out
    if not isinstance(blob, np.ndarray) or blob.shape != shape or blob.dtype != dtype:
        raise LayoutError(f"out must be a {dtype} array of shape {shape} ({layout}); got "
                          f"{getattr(blob, 'dtype', type(blob).__name__)} "
                          f"{getattr(blob, 'shape', '')}")
    if not blob.flags.writeable:
        raise LayoutError(f"out is read-only; pass a writable {dtype} array")
    return blob


def _blob_scanned(scan, mean4, scale4, swap_rb, layout, out, threads, dtype):
    """blob_from_images for a list or 4-D array that passed :func:`_scan_list`, no resize."""
    pp = _kernel_module()

    keep, n, P, dt, (H, W, C), overlaps = scan  # keep: the arrays P holds ids of
    perm = _PERMS[C, swap_rb]
    shape = ((n, C, H, W) if layout == "NCHW" else
             tuple({"N": n, "C": C, "H": H, "W": W}[a] for a in layout))
    blob = _new_or_out(shape, layout, n, C, H, W, out, dtype)
    if out is not None:
        if overlaps:
            raise LayoutError("out overlaps an input image; blob_from_images needs a separate output")
    nchw = blob if layout == "NCHW" else blob.transpose([layout.index(a) for a in "NCHW"])
    if out is not None and not out.flags.c_contiguous and any(s < 0 or s % dtype.itemsize for s in nchw.strides):
        raise LayoutError(f"out must have non-negative whole-element strides, got {nchw.strides}")
    if n * H * W * C and dtype == np.float16 and not pp.HALF_NATIVE:   # no float16 instruction
        np.copyto(blob, _blob_scanned(scan, mean4, scale4, swap_rb, layout, None, threads, _BLOB_DTYPES[0]),
                  casting="same_kind")
    elif n * H * W * C:
        P[3] = id(nchw)
        P[7] = dtype.itemsize
        P[pp.HDR:pp.HDR + C] = perm
        pp.fill(P)  # addresses and strides into P while the GIL is held
        F = np.array([mean4[p] for p in perm] + [scale4[p] for p in perm], np.float32)
        pp.run(P, F, dt, nchw, threads)
    return blob


def _blob_checked(images, images_is_batch, batches, n, mean4, scale4, swap_rb, crop, size,
                  layout, out, threads, dtype):
    """blob_from_images for everything else: each image looked at in Python (and words every
    error), resized by cv2 when ``size`` asks, then :func:`~layouts.kernels.preprocess.normalize_into`."""
    # every image's dtype and channels before OpenCV's resize sees any of them
    first = batches[0]
    dt = first.dtype
    if dt.newbyteorder("=") not in _SUPPORTED:
        raise LayoutError(f"image dtype {dt} not supported; expected one of "
                          f"{', '.join(sorted(str(d) for d in _SUPPORTED))}")
    if first.shape[-1] not in (1, 3, 4):
        raise LayoutError(f"images have {first.shape[-1]} channels; blobFromImages takes 1, 3 or 4")
    if not images_is_batch:
        for i, b in enumerate(batches):
            if b.shape[2] != first.shape[2] or b.dtype != dt:
                raise LayoutError(f"image {i} is {b.shape} {b.dtype}; image 0 is {first.shape} "
                                  f"{dt}: all images must have the same channels and dtype")
    originals = list(batches)  # what out must not overlap
    if not dt.isnative:  # numba and OpenCV read native byte order: one copy, values kept
        batches = [b.astype(dt.newbyteorder("=")) for b in batches]
        if images_is_batch:
            images = batches[0]
    if size is not None:
        size = _check_size(size)
        if size != (0, 0):
            if dt.newbyteorder("=") not in _RESIZABLE:
                raise LayoutError(f"size={size}: OpenCV's linear resize takes "
                                  f"{', '.join(sorted(str(d) for d in _RESIZABLE))} images, not "
                                  f"{dt}; resize them yourself or drop size=")
            C0, itemsize = first.shape[-1], dt.itemsize
            need = n * C0 * size[0] * size[1] * (4 + itemsize)  # the blob and the resized images
            if need > _memory_bytes():
                raise LayoutError(f"size={size}: {n} resized images and their blob need {need} "
                                  f"bytes, more than this machine's {_memory_bytes()} bytes of "
                                  "memory")
            for i, b in enumerate(batches if not images_is_batch else [batches[0][0]]):
                if b.shape[0] == 0 or b.shape[1] == 0:
                    raise LayoutError(f"image {i} is empty ({b.shape}); it cannot be resized "
                                      f"to {size}")
            batches = [_resize(im, size, crop) for im in
                       (batches[0] if images_is_batch else batches)]
            images_is_batch = False
    from layouts.kernels.preprocess import normalize_into

    first = batches[0]  # the 4-D batch, or image 0
    H, W, C = first.shape[-3:]
    if not images_is_batch:
        for i, b in enumerate(batches):
            if b.shape != (H, W, C) or b.dtype != first.dtype:
                raise LayoutError(f"image {i} is {b.shape} {b.dtype}; image 0 is {(H, W, C)} "
                                  f"{first.dtype}: all images must match (resize them, or pass size=)")
    perm = np.arange(C)
    if swap_rb and C >= 3:
        perm[[0, 2]] = [2, 0]
    dims = {"N": n, "C": C, "H": H, "W": W}
    shape = tuple(dims[a] for a in layout)  # what Layout(layout, ...).shape gives, ~25 us less
    blob = _new_or_out(shape, layout, n, C, H, W, out, dtype)
    if out is not None and any(np.may_share_memory(blob, im) for im in originals):
        raise LayoutError("out overlaps an input image; blob_from_images needs a separate output")
    nchw = blob.transpose([layout.index(a) for a in "NCHW"])  # logical N, C, H, W view
    # one kernel call for the whole batch: the 4-D array itself, or the images as they are
    images = images if images_is_batch else batches
    normalize_into(nchw, images, mean4[:C], scale4[:C], perm, threads=threads)
    return blob
