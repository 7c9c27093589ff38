"""What a 2-D ``cv::Mat`` header says about memory: ``step`` (bytes per row), ``step1``,
``elem_size``, ``elem_size1``, ``total``, ``is_continuous``, ``is_submatrix``, for a numpy image or
(rows, cols, type, step). ROIs keep their parent's step; ``locate_roi`` and ``adjust_roi`` behave
as ``Mat::locateROI`` / ``Mat::adjustROI``; :attr:`MatLayout.layout` is the same memory as a
:class:`layouts.Layout` (HWC with a row pitch).

>>> m = MatLayout.create(512, 512, "CV_32FC3")
>>> m.step, m.elem_size, m.elem_size1, m.step1, m.is_continuous
(6144, 12, 4, 1536, True)
"""

from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np

from ...errors import LayoutError, LayoutTypeError
from ..._args import bool_arg, int_arg, ndarray_arg
from .types import encoding, type_name

__all__ = ["MatLayout"]

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
        from ...named.layout import Layout

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
            raise LayoutTypeError(f"buffer must be bytes or a numpy array, got {type(buffer).__name__}")
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
