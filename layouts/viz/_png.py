"""PNG bytes of an RGBA image, compressed in parallel: the slow part of saving a picture as PNG.

A 9-inch figure at 150 dpi is 3 to 6 megapixels; Pillow's encoder tries every row filter and
deflates the rows on one core, which takes longer than matplotlib takes to draw the figure. The
pictures are flat colours, so rows stored as they are (filter 0) deflate as small as filtered
ones at the fastest level; the image is cut into bands of rows, each deflated on its own thread
(zlib lets go of the GIL) and joined into one zlib stream, as ``pigz`` does: every band but the
last ends on a sync flush, so their deflate streams follow each other.

>>> import numpy as np, zlib
>>> img = np.zeros((3, 2, 4), dtype=np.uint8); img[..., 3] = 255; img[1, 1, 0] = 200
>>> png = encode_png(img, dpi=100)
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n", png[12:16], png[16:24]
(True, b'IHDR', b'\\x00\\x00\\x00\\x02\\x00\\x00\\x00\\x03')
"""

from __future__ import annotations

import os
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import LayoutError

#: zlib level: the fastest; on flat-coloured pictures hardly larger than higher levels.
LEVEL = 1
#: Rows of at least this many bytes in all go to one band (smaller images are deflated in one piece).
BAND_BYTES = 1 << 20


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _deflate(raw: memoryview, bands: int) -> bytes:
    """One zlib stream of ``raw``, deflated in ``bands`` pieces at once."""
    if bands <= 1:
        return zlib.compress(raw, LEVEL)
    edges = np.linspace(0, len(raw), bands + 1).astype(np.int64).tolist()

    def band(i: int) -> bytes:
        z = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)        # raw deflate: the header is written once
        last = i == bands - 1
        return z.compress(raw[edges[i]:edges[i + 1]]) + z.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)
    with ThreadPoolExecutor(max_workers=bands) as pool:
        parts = list(pool.map(band, range(bands)))
    return b"\x78\x01" + b"".join(parts) + struct.pack(">I", zlib.adler32(raw) & 0xFFFFFFFF)


def encode_png(rgba: np.ndarray, dpi: float | None = None) -> bytes:
    """PNG bytes of an ``(height, width, 4)`` uint8 RGBA image (8 bits per channel, not interlaced),
    its resolution ``dpi`` recorded when given."""
    rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
    if rgba.ndim != 3 or rgba.shape[2] != 4:
        raise LayoutError(f"encode_png: rgba must be a (height, width, 4) array, got shape {rgba.shape}")
    h, w, _ = rgba.shape
    raw = np.zeros((h, w * 4 + 1), dtype=np.uint8)            # a filter byte (0: none) before each row
    raw[:, 1:] = rgba.reshape(h, w * 4)
    bands = max(1, min(os.cpu_count() or 1, 4, raw.nbytes // BAND_BYTES))
    out = [b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))]
    if dpi is not None:
        ppm = int(round(dpi / 0.0254))
        out.append(_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))
    out.append(_chunk(b"IDAT", _deflate(memoryview(raw).cast("B"), bands)))
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)
