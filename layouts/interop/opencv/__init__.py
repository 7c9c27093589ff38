"""OpenCV: type codes, a Mat's memory layout (step, ROI), and ``blobFromImages`` in one pass.

One module a job: :mod:`.types` (type codes), :mod:`.mat` (:class:`MatLayout`), :mod:`.blob`
(:func:`blob_from_images`, its fused kernel in :mod:`.blob_kernel`).


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

from .blob import blob_from_images
from .mat import MatLayout
from .types import (CV4, CV5, TypeEncoding, channels_of, depth_of, dtype_of, elem_size, elem_size1,
                    elem_size_of, encoding, make_type, parse_type, type_from_dtype, type_name)

__all__ = [
    "TypeEncoding", "CV4", "CV5", "encoding", "make_type", "depth_of", "channels_of", "elem_size",
    "elem_size1", "type_name", "parse_type", "type_from_dtype", "dtype_of", "MatLayout",
    "blob_from_images", "elem_size_of",
]
