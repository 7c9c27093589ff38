"""The command line's ``smem`` command: shared-memory bank conflicts from a kernel's parameters
(:mod:`layouts.smem`), without a GPU.

``layouts smem --tile 32x32 --dtype float32 --access columns`` builds the tile as a CuTe layout
(rows of ``--pitch`` elements, optionally under ``--swizzle B,M,S``), the warp's access (a thread
map down the columns or along the rows, or a named instruction: ``--ldmatrix x4``), and prints
what :func:`layouts.smem.conflicts` finds: the wavefronts, the ideal, the ways, the vector width
and the explanation; ``--best`` adds :func:`layouts.smem.best_swizzle`'s choice and ``--png`` draws
:func:`layouts.viz.draw_banks`.

>>> print(tile_layout(parse_tile("8x64"), pitch=None, swizzle=parse_swizzle("3,3,3")))
Sw<3,3,3> o 0 o (8,64):(64,1)
>>> print(thread_map("columns", (32, 32), vector=1))         # thread t, value v: row t, column v
(32,32):(1,32)
>>> element_bytes("bf16"), element_bytes("float32")
(2, 4)
"""

from __future__ import annotations

import argparse
import re

from ..errors import LayoutError

__all__ = ["add_command", "run_smem", "run_convert", "parse_encoding", "parse_tile", "parse_swizzle", "element_bytes", "tile_layout", "thread_map"]

#: Element sizes of the type names kernels use that numpy does not know (and the usual ones).
DTYPE_BYTES = {"float16": 2, "half": 2, "fp16": 2, "f16": 2, "bfloat16": 2, "bf16": 2, "float32": 4, "float": 4,
               "fp32": 4, "f32": 4, "tf32": 4, "float64": 8, "double": 8, "fp64": 8, "f64": 8, "float8": 1,
               "fp8": 1, "float8_e4m3": 1, "float8_e5m2": 1, "e4m3": 1, "e5m2": 1, "int8": 1, "uint8": 1,
               "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8}
#: The largest tile the command takes: more than the shared memory of any NVIDIA GPU (228 KiB per SM on H100).
MAX_TILE_BYTES = 256 * 1024
#: Widths of one request of one thread: the shared-memory loads and stores there are (LDS.32/64/128, ...).
WIDTHS = (1, 2, 4, 8, 16)
_DESCRIPTION = """\
Count the shared-memory wavefronts a warp's access to a tile takes (32 banks of 4 bytes; a
request split into phases by its width; ldmatrix one 8x8 matrix of 16-byte rows per phase),
say which threads collide and why, and optionally find the swizzle that removes the conflicts
(--best) or draw the banks (--png). The tile is ROWS x COLS elements, row-major with rows
--pitch elements apart, under --swizzle."""
_EPILOG = """examples:
  {prog} smem --tile 32x32 --dtype float32 --access columns             # 32-way
  {prog} smem --tile 32x32 --dtype float32 --pitch 33 --access columns  # padded: 1-way
  {prog} smem --tile 8x64 --dtype float16 --ldmatrix x4                  # 8-way
  {prog} smem --tile 8x64 --dtype float16 --swizzle 3,3,3 --ldmatrix x4 --png banks.png
  {prog} smem --tile 32x32 --dtype float32 --access columns --best
  {prog} smem convert "BlockedLayout([1,8],[4,8],[4,1],[1,0])" \\
      "NVMMADistributedLayout([2,0],[4,1],[16,8])" --shape 64x64 --bits 8"""


def add_command(sub, prog: str) -> None:
    """Add ``smem`` to the command line's subparsers."""
    smem = sub.add_parser(
        "smem", help=f"shared-memory bank conflicts of a tile: {prog} smem --tile 32x32 --dtype float32 --access columns",
        usage="%(prog)s --tile ROWSxCOLS [options]", description=_DESCRIPTION, epilog=_EPILOG.format(prog=prog),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    smem.error = _one_line_error(f"{prog} smem")
    smem.add_argument("verb", nargs="*", metavar="convert SRC DST",
                      help="what a convert_layout from SRC to DST costs (Triton encodings, e.g. "
                           "\"BlockedLayout([1,8],[4,8],[4,1],[1,0])\"), with --shape and --bits")
    smem.add_argument("--tile", default=None, metavar="ROWSxCOLS", help="the tile in elements, e.g. 32x32 or 8x64")
    smem.add_argument("--shape", default=None, metavar="ROWSxCOLS", help="convert: the tensor's shape, e.g. 64x64")
    smem.add_argument("--bits", type=_int_word("--bits"), default=16, metavar="BITS",
                      help="convert: bits per element, 8, 16 or 32 (default: %(default)s)")
    smem.add_argument("--warps", type=_int_word("--warps"), default=None, metavar="N",
                      help="convert: the warps both layouts must have (a check)")
    smem.add_argument("--sm", type=_int_word("--sm"), default=None, metavar="CC",
                      help="convert: compute capability, 80 or 90 (sm_80 has no stmatrix; default: 90)")
    smem.add_argument("--dtype", default="float16", metavar="TYPE",
                      help="element type: float16, bfloat16, float32, float64, int8, fp8, ... (default: %(default)s)")
    smem.add_argument("--pitch", type=_int_word("--pitch"), default=None, metavar="ELEMENTS",
                      help="elements from one row to the next (default: COLS; COLS+1 is the classic padding)")
    smem.add_argument("--swizzle", default=None, metavar="B,M,S",
                      help="CuTe's Swizzle<B,M,S> over the element offsets, e.g. 3,3,3 (bits [M+S, M+S+B) XOR "
                           "into bits [M, M+B))")
    how = smem.add_mutually_exclusive_group()
    how.add_argument("--access", choices=("rows", "columns"), default=None,
                     help="thread t reads along the rows (consecutive threads, consecutive columns) or down the "
                          "columns (thread t row t); --width bytes per request (default: rows)")
    how.add_argument("--ldmatrix", choices=("x1", "x2", "x4"), default=None,
                     help="the tile read by ldmatrix.x1/x2/x4 (16-byte rows, one 8x8 matrix per phase)")
    how.add_argument("--stmatrix", choices=("x1", "x2", "x4"), default=None, help="the tile written by stmatrix")
    smem.add_argument("--trans", action="store_true", help="ldmatrix/stmatrix .trans")
    smem.add_argument("--width", type=_int_word("--width"), default=None, metavar="BYTES",
                      help="bytes of one request of one thread for --access: 1, 2, 4, 8 or 16 (default: one element)")
    smem.add_argument("--write", action="store_true", help="the --access is a store (for --best), not a load")
    smem.add_argument("--best", action="store_true",
                      help="also search the swizzle with the fewest wavefronts for this access (best_swizzle)")
    smem.add_argument("--png", default=None, metavar="FILE", help="draw the banks and the worst phase to FILE")
    smem.add_argument("--phase", type=_int_word("--phase"), default=None, metavar="K",
                      help="with --png: mark phase K instead of the worst")


def _one_line_error(prog: str):
    """A usage mistake as one ``<prog>: error: ...`` line and status 2 (argparse would print the usage first)."""
    def error(message: str):
        import sys
        print(f"{prog}: error: {message} (see {prog} --help)", file=sys.stderr)
        raise SystemExit(2)
    return error


def _int_word(name: str):
    def parse(word: str) -> int:
        if not re.fullmatch(r"[0-9]{1,9}", word):
            raise argparse.ArgumentTypeError(f"expected a whole number, got {word[:40]!r}")
        return int(word)
    parse.__name__ = name  # argparse names the option in its message
    return parse


def parse_tile(word: str) -> tuple[int, int]:
    """``"32x32"`` -> ``(32, 32)``: rows and columns in elements."""
    m = re.fullmatch(r"\s*([0-9]{1,6})\s*[xX*,]\s*([0-9]{1,6})\s*", word)
    if not m or int(m.group(1)) == 0 or int(m.group(2)) == 0:
        raise LayoutError(f"--tile {word[:40]!r}: expected ROWSxCOLS, two positive whole numbers, e.g. 32x32")
    return int(m.group(1)), int(m.group(2))


def parse_swizzle(word: str | None):
    """``"3,3,3"`` -> ``layouts.cute.Swizzle(3, 3, 3)``; None stays None."""
    if word is None:
        return None
    m = re.fullmatch(r"\s*(?:Sw<)?([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*>?\s*", word)
    if not m:
        raise LayoutError(f"--swizzle {word[:40]!r}: expected B,M,S, three whole numbers, e.g. 3,3,3")
    from ..cute import Swizzle
    return Swizzle(*(int(g) for g in m.groups()))


def element_bytes(dtype: str) -> int:
    """Bytes per element of a type name (kernel spellings such as ``bf16`` and ``fp8`` included)."""
    name = dtype.strip().lower()
    if name in DTYPE_BYTES:
        return DTYPE_BYTES[name]
    import numpy as np
    try:
        found = np.dtype(name)
    except (TypeError, ValueError, SyntaxError):
        found = None
    if found is None or found.hasobject or found.itemsize == 0 or found.shape != () or found.kind in "USVMm":
        raise LayoutError(f"--dtype {dtype[:40]!r} is not an element type; expected e.g. float16, bfloat16, "
                          "float32, int8, fp8")
    return int(found.itemsize)


def tile_layout(tile: tuple[int, int], pitch: int | None, swizzle):
    """The tile as a CuTe layout: ``(rows, cols):(pitch, 1)``, under ``swizzle`` when given."""
    from ..cute import Layout, composition
    rows, cols = tile
    pitch = cols if pitch is None else pitch
    if pitch < cols:
        raise LayoutError(f"--pitch {pitch} is less than the tile's {cols} columns: rows would overlap; expected "
                          f"{cols} or more")
    layout = Layout((rows, cols), (pitch, 1))
    return layout if swizzle is None else composition(swizzle, layout)


def thread_map(how: str, tile: tuple[int, int], vector: int):
    """The warp's thread-value layout over the tile (value = flat colexicographic element index):
    each thread takes ``vector`` consecutive elements of a row (``rows``) or of a column
    (``columns``) per request, consecutive threads the next ones, 32 threads per request."""
    import numpy as np

    from ..cute import Layout
    rows, cols = tile
    size = rows * cols
    if size % (32 * vector):
        raise LayoutError(f"--tile {rows}x{cols} has {size} elements; 32 threads reading {vector} element"
                          f"{'s' if vector > 1 else ''} each need a multiple of {32 * vector}")
    if (cols if how == "rows" else rows) % vector:
        raise LayoutError(f"--width: a request of {vector} elements would run past the end of a "
                          f"{'row' if how == 'rows' else 'column'} of {cols if how == 'rows' else rows}")
    requests = size // (32 * vector)
    # index j along the chosen order: thread t, value (e, k) -> e + vector*t + 32*vector*k
    along = (Layout((32, requests), (1, 32)) if vector == 1 else
             Layout((32, (vector, requests)), (vector, (1, 32 * vector))))
    if how == "columns":
        return along                       # colexicographic is column order already
    # row-major j = c + cols*r -> r + rows*c, as an array: CuTe's composition of the two is not
    # defined for every tile (32 x 33, say)
    j = np.array([along(t, v) for t in range(32) for v in range(vector * requests)], dtype=np.int64)
    return (j // cols + rows * (j % cols)).reshape(32, vector * requests)


def _access(args, ebytes: int, tile: tuple[int, int]):
    from .. import smem
    for name in ("ldmatrix", "stmatrix"):
        size = getattr(args, name)
        if size is not None:
            make = getattr(smem, name)
            return make(**{size: True, "trans": args.trans}), f"{name}.{size}{'.trans' if args.trans else ''}"
    if args.trans:
        raise LayoutError("--trans goes with --ldmatrix or --stmatrix, not with --access")
    how = args.access or "rows"
    width = ebytes if args.width is None else args.width
    if width not in WIDTHS or width % ebytes:
        raise LayoutError(f"--width {width}: expected a request of 1, 2, 4, 8 or 16 bytes holding whole "
                          f"{ebytes}-byte elements")
    instruction = (smem.sts if args.write else smem.lds)(width)
    acc = smem.Access(threads=thread_map(how, tile, width // ebytes), width_bytes=instruction)
    where = "down the columns" if how == "columns" else "along the rows"
    return acc, f"{instruction}: {'stores' if args.write else 'loads'} {where}, {width} bytes per thread"


def run_smem(args: argparse.Namespace) -> str:
    """The report ``layouts smem`` prints for parsed arguments (the picture written when asked)."""
    from .. import smem
    if getattr(args, "verb", None):
        return run_convert(args)
    if args.tile is None:
        raise LayoutError("the following arguments are required: --tile (or: smem convert SRC DST --shape ROWSxCOLS)")
    tile = parse_tile(args.tile)
    ebytes = element_bytes(args.dtype)
    if tile[0] * tile[1] * ebytes > MAX_TILE_BYTES:
        raise LayoutError(f"--tile {tile[0]}x{tile[1]} of {args.dtype} is {tile[0] * tile[1] * ebytes} bytes, more than "
                          f"any GPU's shared memory; expected at most {MAX_TILE_BYTES} bytes (256 KiB)")
    if args.phase is not None and args.png is None:
        raise LayoutError("--phase chooses the phase of the picture: give --png FILE too")
    layout = tile_layout(tile, args.pitch, parse_swizzle(args.swizzle))
    acc, what = _access(args, ebytes, tile)
    r = smem.conflicts(layout, acc, element_bytes=ebytes)
    verdict = "conflict-free" if r.ways <= 1 else f"{r.ways}-way bank conflict in the worst phase"
    lines = [f"shared layout: {r.memory.describe()}   ({args.dtype}, {ebytes}-byte elements; 32 banks of 4 bytes)",
             f"access: {what}",
             f"wavefronts: {r.wavefronts}",
             f"ideal: {r.ideal}",
             f"ways: {r.ways}   ({verdict})",
             f"vector width: {r.vector_bytes} bytes",
             "", r.explain().rstrip()]
    if args.best:
        lines += [""] + _best(args, acc, what, tile, ebytes)
    if args.png is not None:
        from ..viz import save
        from ..viz.banks import draw_banks
        save(draw_banks(layout, acc, element_bytes=ebytes, phase=args.phase), args.png)
        lines += ["", f"wrote {args.png}"]
    return "\n".join(lines)


def _best(args, acc, what: str, tile: tuple[int, int], ebytes: int) -> list:
    from .. import smem
    writes = args.write or args.stmatrix is not None
    best = smem.best_swizzle(reads=[] if writes else [acc], writes=[acc] if writes else [],
                             shape=tile, element_bytes=ebytes)
    lines = [f"best_swizzle for this access on a {tile[0]}x{tile[1]} tile of {args.dtype} (the widest vectors, "
             "then the fewest wavefronts):",
             f"  cute:   {best.cute if best.cute is not None else '(none: not a CuTe swizzle of a row-major tile)'}",
             f"  triton: {best.triton if best.triton is not None else '(none: not a Triton shared encoding)'}"]
    for r in best.conflicts:
        lines.append(f"  {what}: wavefronts {r.wavefronts}, ideal {r.ideal}, {r.ways}-way, "
                     f"vector width {r.vector_bytes} bytes")
    return lines


def parse_encoding(text: str):
    """A Triton encoding of :mod:`layouts.linear.triton` from its Python spelling, read without
    evaluating code: one call of an encoding class whose arguments are numbers, booleans, lists
    or tuples of them, or another such call (a parent layout).

    >>> parse_encoding("BlockedLayout([1, 8], [4, 8], [4, 1], order=[1, 0])")
    BlockedLayout(size_per_thread=[1, 8], threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0], cga_layout=[])
    >>> parse_encoding("__import__('os')")
    Traceback (most recent call last):
    ...
    layouts.errors.LayoutError: __import__ is not a layout of layouts.linear.triton (BlockedLayout, ...)
    """
    import ast
    if len(text) > 2000:
        raise LayoutError(f"an encoding of {len(text)} characters is too long (2000 at most)")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise LayoutError(f"{text[:60]!r} is not a Python call of an encoding: {e.msg}") from None
    return _build(tree)


def _build(node):
    import ast
    from ..linear import triton as tt
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in tt.__all__ or not name.endswith("Layout"):
            shown = name if name is not None else ast.unparse(node.func)[:40]
            raise LayoutError(f"{shown} is not a layout of layouts.linear.triton (BlockedLayout, ...)")
        args = [_build(a) for a in node.args]
        kwargs = {k.arg: _build(k.value) for k in node.keywords if k.arg is not None}
        if len(kwargs) != len(node.keywords):
            raise LayoutError("**keywords are not allowed in an encoding")
        return getattr(tt, name)(*args, **kwargs)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_build(e) for e in node.elts]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, bool)) or (
            isinstance(node, ast.Constant) and node.value is None):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -_build(node.operand)
    raise LayoutError(f"{ast.unparse(node)[:40]!r}: an encoding's arguments are numbers, booleans, lists and "
                      f"encodings")


def run_convert(args: argparse.Namespace) -> str:
    """``layouts smem convert SRC DST --shape RxC --bits B``: the plan of the conversion, in words."""
    from .. import smem
    words = list(args.verb)
    if words[0] != "convert" or len(words) != 3:
        raise LayoutError(f"expected: smem convert SRC DST --shape ROWSxCOLS; got {' '.join(words)[:80]!r}")
    if args.shape is None:
        raise LayoutError("smem convert needs --shape ROWSxCOLS, the tensor's shape")
    try:
        shape = parse_tile(args.shape)
    except LayoutError:
        raise LayoutError(f"--shape {args.shape[:40]!r}: expected ROWSxCOLS, e.g. 64x64") from None
    if args.bits not in (8, 16, 32, 64):
        raise LayoutError(f"--bits {args.bits}: expected 8, 16, 32 or 64")
    src, dst = parse_encoding(words[1]), parse_encoding(words[2])
    plan = smem.layout_conversion(src, dst, shape, element_bytes=args.bits // 8, num_warps=args.warps,
                                  capability=args.sm)
    return plan.explain()
