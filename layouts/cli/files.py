"""The command line's file commands: ``convert`` (:func:`layouts.convert_file`) and ``info``.

``layouts convert SRC_PATH SRC DST_PATH DST [AXIS=SIZE ...]`` converts a ``.npy`` file into
another (or, with ``--inplace`` and the same path, in its own bytes); ``layouts info FILE.npy``
says what a file holds: its shape and dtype, the layouts its shape reads as, and whether an
interrupted in-place run marked it (and what ``layouts recover`` would make of it).

>>> import numpy as np, os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "x.npy"); np.save(p, np.zeros((2, 3, 32, 32), np.float32))
>>> print(describe_file(p))                                 # doctest: +ELLIPSIS
x.npy: a .npy file, shape (2, 3, 32, 32), float32, 24576 bytes of data (header 128 bytes)
  read as NCHW: N=2 C=3 H=32 W=32   <- likely: C is the smallest of C, H, W and H, W are alike
  read as NHWC: N=2 H=3 W=32 C=32
  read as CHWN: C=2 H=3 W=32 N=32
...
"""

from __future__ import annotations

import argparse
import os

__all__ = ["add_commands", "run_convert", "describe_file"]

#: plain readings offered for a file's shape, by rank (blocked ones are found from the shape)
READINGS = {4: ("NCHW", "NHWC", "CHWN"), 5: ("NCDHW", "NDHWC"), 3: ("CHW", "HWC"), 2: ("HW",)}


def add_commands(sub) -> None:
    """Add ``convert`` and ``info`` to the command line's subparsers."""
    convert = sub.add_parser(
        "convert", help="convert a .npy file from one layout to another (layouts.convert_file)",
        description="Convert the .npy file SRC_PATH, stored in layout SRC, into DST_PATH in layout DST, in bounded "
                    "memory. The result is written to a temporary file beside DST_PATH and renamed over it, so an "
                    "interrupted run leaves no partial DST_PATH. With --inplace and DST_PATH the same file, the file "
                    "is converted in its own bytes as a journaled transaction (see `recover`).")
    convert.add_argument("src_path", metavar="SRC_PATH", help="the .npy file to read")
    convert.add_argument("src", metavar="SRC", help="its layout spec, e.g. NCHW")
    convert.add_argument("dst_path", metavar="DST_PATH", help="the .npy file to write (SRC_PATH again with --inplace)")
    convert.add_argument("dst", metavar="DST", help="the layout spec to write, e.g. NHWC or NCHW16c")
    convert.add_argument("dims", nargs="*", metavar="AXIS=SIZE",
                         help="sizes the file's shape cannot tell, e.g. C=3 for a blocked source")
    convert.add_argument("--inplace", action="store_true",
                         help="convert each tile in one buffer; with DST_PATH = SRC_PATH, the file in its own bytes")
    convert.add_argument("--memory", default="256MB", metavar="M",
                         help="memory budget for the tiles, e.g. 64MB, 1GiB (default: %(default)s)")
    convert.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                         help="a progress bar (default: shown in a terminal for 256 MB of output and more)")
    convert.add_argument("--no-fsync", dest="fsync", action="store_false",
                         help="leave flushing to the OS: faster, but no promise after a power cut")
    convert.add_argument("--replace-readonly", action="store_true",
                         help="replace a DST_PATH that has no write permission (refused otherwise); the result keeps its mode")
    info = sub.add_parser(
        "info", help="what a .npy file holds: shape, dtype, the layouts it reads as, an interrupted run",
        description="Print a .npy file's shape and dtype, the layouts its shape reads as (which one is likely), and "
                    "whether an interrupted in-place conversion marked it, with what `recover` would do.")
    info.add_argument("path", metavar="FILE", help="a .npy file")


def run_convert(args: argparse.Namespace, words_to_dims) -> str:
    """Run ``layouts convert``; the line to print."""
    from ..chunked import convert_file
    from ..errors import LayoutError

    dims = words_to_dims(args.dims)
    same = os.path.exists(args.dst_path) and os.path.exists(args.src_path) and \
        os.path.samefile(args.src_path, args.dst_path)
    if same and not args.inplace:
        raise LayoutError(f"DST_PATH {args.dst_path!r} is SRC_PATH; pass --inplace to convert the file in its own "
                          f"bytes, or give another DST_PATH")
    try:
        convert_file(args.src_path, args.src, args.dst_path, args.dst, memory=args.memory, progress=args.progress,
                     fsync=args.fsync, inplace=args.inplace, replace_readonly=args.replace_readonly, **dims)
    except LayoutError as err:  # the keywords as this command spells them
        text = str(err).replace("replace_readonly=True", "--replace-readonly").replace("inplace=True", "--inplace")
        raise LayoutError(text.replace("memory=", "--memory ")) from None
    import numpy as np

    y = np.load(args.dst_path, mmap_mode="r")
    how = "in place" if same else f"from {args.src_path}"
    return f"{args.dst_path}: {args.src} -> {args.dst} {how}; shape {tuple(y.shape)}, {y.dtype}"


def describe_file(path: str) -> str:
    """The text ``layouts info`` prints for ``path``."""
    from ..chunked.filelock import open_regular
    from ..chunked.npyformat import INTERRUPTED_MAGIC, read_header
    from ..errors import LayoutError

    fd = open_regular(path, "FILE", os.O_RDONLY)
    try:
        head = os.pread(fd, 4096, 0)
        if head.startswith(INTERRUPTED_MAGIC):
            return _marked(path, head)
        try:
            shape, dtype, offset = read_header(fd, path)
        except LayoutError as err:
            raise LayoutError(str(err).replace("src_path", "FILE")) from None
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    name = os.path.basename(path)
    data = size - offset
    lines = [f"{name}: a .npy file, shape {tuple(shape)}, {dtype}, {data} bytes of data (header {offset} bytes)"]
    lines += _readings(tuple(shape))
    lines.append("  not marked by an interrupted in-place run: np.load reads it as it is")
    return "\n".join(lines)


def _readings(shape: tuple[int, ...]) -> list[str]:
    """The plain layouts of the rank and any blocked one the last axis suggests, with the sizes each reads."""
    lines = []
    likely = None
    for spec in READINGS.get(len(shape), ()):
        sizes = dict(zip(spec, shape))
        if len(shape) in (3, 4) and sizes["C"] <= min(sizes["H"], sizes["W"]) and \
                max(sizes["H"], sizes["W"]) <= 4 * min(sizes["H"], sizes["W"]) and likely is None:
            likely = spec
        lines.append((spec, " ".join(f"{a}={n}" for a, n in sizes.items())))
    out = [f"  read as {spec}: {text}" + ("   <- likely: C is the smallest of C, H, W and H, W are alike"
                                         if spec == likely else "") for spec, text in lines]
    if len(shape) == 5 and shape[-1] in (4, 8, 16, 32, 64):
        b = shape[-1]
        out.append(f"  read as NCHW{b}c (blocked channels): N={shape[0]} C={shape[1] * b} (padded) H={shape[2]} "
                   f"W={shape[3]}, {shape[1]} blocks of {b}; pass C= for the true channel count")
    if not out:
        out.append(f"  {len(shape)}-D: name its axes in order, one letter each (e.g. {'NCHW'[:len(shape)] or 'X'})")
    return out


def _marked(path: str, head: bytes) -> str:
    from ..chunked.journal import Journal
    from ..chunked.recover import marked_journal
    from ..errors import LayoutError

    jpath, _ = marked_journal(path, head, os.stat(path))
    lines = [f"{os.path.basename(path)}: MARKED by an interrupted in-place conversion (np.load refuses it)"]
    try:
        journal = Journal.open(jpath)
    except (OSError, LayoutError, ValueError):
        lines.append(f"  its journal {os.path.basename(jpath)!r} is missing or unreadable: the data is a partial "
                     f"permutation that cannot be repaired; restore the file from a copy")
        return "\n".join(lines)
    meta = journal.meta
    journal.close()
    start, end = _header_shape(meta.get("start_header", "")), _header_shape(meta.get("end_header", ""))
    outcome = meta.get("outcome", "converted")
    lines.append(f"  before the run: shape {start}; at the end of its journal ({outcome}): shape {end}")
    lines.append(f"  run `layouts recover {path}` to make it a valid .npy again ({outcome}, as its journal allows)")
    return "\n".join(lines)


def _header_shape(hexed: str) -> str:
    """``"(shape), dtype"`` of a hex-encoded ``.npy`` header, read by numpy's own reader."""
    import io

    import numpy as np

    try:
        f = io.BytesIO(bytes.fromhex(hexed))
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(f)
        return f"{tuple(shape)}, {dtype}"
    except (ValueError, TypeError, OSError):
        return "unknown"
