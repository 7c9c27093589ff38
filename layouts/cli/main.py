"""Command line: ``layouts tour``, ``layouts explain SPEC N=.. C=..``, ``layouts smem --tile 32x32 ...``,
``layouts --version``, ...
(also ``python -m layouts``).

Every user mistake -- an unknown subcommand or option, a malformed ``AXIS=SIZE``, a layout the
core refuses, a folder that cannot be written -- prints one ``<prog>: error: ...`` line on stderr
and exits with status 2, never a traceback. ``--help`` works for the program and each subcommand.

The examples live in tests/test_cli.py.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import textwrap
from pathlib import Path

from ..errors import LayoutError

#: A size word's digits: plain ASCII, and few enough that int() is instant and exact.
_SIZE = re.compile(r"[0-9]{1,18}")
_EPILOG_COPY = """examples:
  {prog} explain-copy NCHW NHWC N=128 C=64 H=56 W=56 --dtype uint8
  {prog} explain-copy NCHW CHWN N=256 C=3 H=32 W=32 --threads 2
  {prog} explain-copy NCHW NCHW16c N=1 C=20 H=5 W=4 --strategies"""
_EPILOG_TUNE = """examples:
  {prog} tune                  # about a minute; saves the profile for this CPU
  {prog} tune --quick --out my-profile.json
  LAYOUTS_PROFILE=my-profile.json {prog} explain-copy NCHW NHWC N=8 C=64 H=32 W=32"""
_EPILOG_EXPLAIN = """examples:
  {prog} explain NCHW16c N=1 C=20 H=5 W=4
  {prog} explain NHWC N=1 C=3 H=5 W=4 align:H=16 --ascii
  {prog} explain HWC H=4 W=6 C=3 pitch:H=24"""


def _wrapped(text: str) -> str:
    """A description as a paragraph of lines that fit a terminal (the raw formatter, kept for the
    examples under each command, would print it as one line)."""
    return textwrap.fill(text, width=90)


def _prog() -> str:
    """``layouts`` when run as the console script, ``python -m layouts`` when run as a module."""
    argv0 = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if argv0 in ("", "-c", "__main__.py", "-m") or argv0.endswith(".py"):
        return "python -m layouts"
    return argv0


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Tensor memory layouts: where element (n, c, h, w) lives, and how "
                               "layouts convert.")
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"layouts {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{tour,explain,gallery,explain-copy,tune,convert,info,recover,smem}")
    tour = sub.add_parser(
        "tour", help="walk through the EdgeBoard article's example; write its figures",
        description="Print the article's formulas, physical orders, a blocked and a pitched "
                    "layout and a conversion; write the figures as PNG files.")
    tour.add_argument("--out", default="layouts-tour", metavar="FOLDER",
                      help="folder for the PNG figures, created if missing (default: %(default)s)")
    tour.add_argument("--no-figures", action="store_true", help="print only, draw nothing")
    gallery = sub.add_parser(
        "gallery", help="write every kind of figure as PNG and SVG",
        description=_wrapped("Write the article figure, a blocked layout with padding, pitched rows, a "
                    "conversion, a comparison and OIHW vs HWIO weights, each as PNG and SVG."),
        epilog=f"example:\n  {prog} gallery figures/", formatter_class=argparse.RawDescriptionHelpFormatter)
    gallery.add_argument("dir", metavar="FOLDER", help="folder for the figures (created if needed)")
    explain = sub.add_parser(
        "explain", help=f"describe one layout: {prog} explain NCHW16c N=1 C=20 H=5 W=4",
        description="Print a layout's physical shape, strides, offset formula and padding.",
        epilog=_EPILOG_EXPLAIN.format(prog=prog),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    explain.add_argument("spec", help="a layout spec: NCHW, NHWC, NCHW16c, nChw8c, NC1HWC0, ...")
    explain.add_argument("dims", nargs="*", metavar="AXIS=SIZE",
                         help="sizes such as C=16, and align:DIM=K / pitch:DIM=STRIDE")
    explain.add_argument("--ascii", action="store_true", help="also print the memory order as text")
    copy = sub.add_parser(
        "explain-copy", help=f"which kernel converts: {prog} explain-copy NCHW NHWC N=8 C=64 H=32 W=32",
        description=_wrapped("Print, for each copy a conversion makes, the strategy the registry chooses on this "
                    "machine, its parameters, its threads and why every strategy before it declined. "
                    "Nothing is allocated at full size, compiled or copied."),
        epilog=_EPILOG_COPY.format(prog=prog), formatter_class=argparse.RawDescriptionHelpFormatter)
    copy.add_argument("src", help="source layout spec, e.g. NCHW")
    copy.add_argument("dst", help="destination layout spec, e.g. NHWC")
    copy.add_argument("dims", nargs="*", metavar="AXIS=SIZE", help="the logical sizes, e.g. N=8 C=64 H=32 W=32")
    copy.add_argument("--dtype", default="float32", help="element type (default: %(default)s)")
    copy.add_argument("--threads", type=int, default=None, help="threads asked for (default: the package setting)")
    copy.add_argument("--strategies", action="store_true", help="also list every registered strategy")
    copy.add_argument("--inplace", action="store_true",
                      help="explain the in-place plan (convert_inplace: passes and their strategies) instead")
    copy.add_argument("--profile", default=None, metavar="KIND",
                      help="plan as on a reference machine (epyc-avx512, xeon-avx512, epyc-avx2, epyc-zen5) instead of this one")
    tune = sub.add_parser(
        "tune", help="measure this machine's copy thresholds and costs and save a profile",
        description=_wrapped("Time the copy strategies against each other at growing sizes and save the thresholds "
                    "where each starts to win (small_bytes, thread_min_bytes, nt_min_bytes, group_min_bytes), "
                    "the in-place planner's costs against np.copyto (inplace_cost_*, inplace_chunk_cost_*, "
                    "inplace_alias_penalty_*) and the OpenCV blob's thread rule (blob_thread_min_bytes, "
                    "blob_chunk_bytes) as this CPU's profile, which later processes load."),
        epilog=_EPILOG_TUNE.format(prog=prog), formatter_class=argparse.RawDescriptionHelpFormatter)
    tune.add_argument("--quick", action="store_true", help="fewer, smaller sizes (seconds; for a check)")
    tune.add_argument("--out", default=None, metavar="FILE",
                      help="where to save the profile (default: the per-user cache file for this CPU)")
    tune.add_argument("--dry-run", action="store_true", help="measure and print, save nothing")
    recover = sub.add_parser(
        "recover", help="repair a .npy file left by a killed in-place conversion",
        description="Bring a .npy file that a killed convert_file(..., inplace=True) left marked back to a valid "
                    ".npy from its journal: rolled forward to the destination layout or back to the source, "
                    "whichever the journal allows; prints which.")
    recover.add_argument("path", metavar="PATH", help="the marked .npy file")
    from .files import add_commands
    add_commands(sub)
    from .smem import add_command as add_smem
    add_smem(sub, prog)
    return parser


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    prog = prog or _prog()
    parser = _parser(prog)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2, already printed by argparse)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        if args.command == "tour":
            out = None if args.no_figures else _writable_folder(args.out)
            from .tour import run
            run(out, figures=not args.no_figures)
        elif args.command == "gallery":
            from ..viz.gallery import write_gallery
            for path in write_gallery(args.dir):
                print(f"wrote {path}")
        elif args.command == "explain-copy":
            _explain_copy(args)
        elif args.command == "tune":
            _tune(args)
        elif args.command == "convert":
            from .files import run_convert
            print(run_convert(args, _dims_from_words))
        elif args.command == "info":
            from .files import describe_file
            print(describe_file(args.path))
        elif args.command == "smem":
            from .smem import run_smem
            print(run_smem(args))
        elif args.command == "recover":
            from ..chunked import recover
            outcome = recover(args.path)
            what = "the destination layout" if outcome == "converted" else "the source layout, as before"
            print(f"{args.path}: {outcome} (it holds {what})")
        else:
            layout = _layout_from_words(args.spec, args.dims)
            print(layout.explain())
            if args.ascii:
                from ..viz import ascii
                print(ascii(layout))
    except BrokenPipeError:  # the reader went away (`... | head`): not an error of ours
        try:  # Python's recipe: point stdout at devnull so the exit-time flush does not fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except (LayoutError, ValueError, TypeError, OSError, MemoryError) as err:
        print(f"{prog}: error: {_message(err)}", file=sys.stderr)
        return 2
    except ImportError as err:
        print(f"{prog}: error: {err} (an optional dependency is missing)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def _message(err: BaseException) -> str:
    if isinstance(err, OSError) and err.filename is not None:
        if err.strerror and str(err.filename) in err.strerror:  # a message of ours that names the path already
            return err.strerror
        return f"cannot access {err.filename}: {err.strerror or err}"
    if isinstance(err, MemoryError):
        return "not enough memory for this layout"
    text = str(err) or type(err).__name__
    return text if len(text) <= 2000 else text[:2000] + "..."


def _writable_folder(folder: str) -> Path:
    """``folder``, created if missing, checked to be a writable directory before the tour prints."""
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            raise NotADirectoryError(20, "not a folder", str(path))
        probe = path / ".layouts-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise LayoutError(f"cannot write {err.filename or path}: {err.strerror or err}") from None
    return path


def _explain_copy(args: argparse.Namespace) -> None:
    import numpy as np
    try:
        dtype = np.dtype(args.dtype)
    except (TypeError, ValueError, SyntaxError):
        raise LayoutError(f"--dtype {args.dtype[:40]!r} is not a numpy dtype; expected e.g. float32, uint8") from None
    if dtype.hasobject or dtype.itemsize == 0 or dtype.shape != ():
        raise LayoutError(f"--dtype {args.dtype[:40]!r} has no fixed-size elements to move (objects, empty or "
                          "subarray dtype)")
    src = _layout_from_words(args.src, args.dims)
    dims = dict(src.dims)
    if args.threads is not None and args.threads < 1:
        raise LayoutError(f"--threads {args.threads} must be 1 or more (leave it out for the package setting)")
    from ..kernels import current, use_profile
    from ..conversion.explain import explain_conversion
    from ..kernels.explain import strategies_table
    from ..kernels.machine.profile import reference
    prof = current() if args.profile is None else reference(args.profile)
    print(f"profile: {prof.source} | CPU {prof.cpu_name} ({', '.join(prof.cpu_features) or 'no SIMD features read'}), "
          f"{prof.cpus} CPUs, L1d {prof.l1d_bytes >> 10} KiB {prof.l1d_ways}-way, L2 {prof.l2_bytes >> 10} KiB, "
          f"L3 {prof.l3_bytes >> 20} MiB")
    if args.strategies:
        print("strategies, in the order they are tried:\n" + strategies_table())
    print(f"{args.src} -> {args.dst}, {dtype}, {' '.join(f'{k}={v}' for k, v in dims.items())}")
    if args.inplace:
        from ..inplace.explain import explain_inplace
        with use_profile(prof):
            print(explain_inplace(src.shape, dtype, args.src, args.dst, threads=args.threads, **dims))
        return
    with use_profile(prof):
        for e in explain_conversion(src.shape, dtype, args.src, args.dst, threads=args.threads, **dims):
            print(e)


def _tune(args: argparse.Namespace) -> None:
    from ..kernels.machine import profile
    from ..kernels.tune import measured_table, report
    from .tune import tune_all
    if args.out is not None and (not args.out.strip() or Path(args.out).is_dir()):
        raise LayoutError(f"--out {args.out[:80]!r} is not a file name; expected e.g. my-profile.json")
    out = None if args.dry_run else Path(args.out) if args.out else profile.default_path()
    if out is not None:
        _writable_folder(str(out.parent))
    prof, found = tune_all(quick=args.quick)
    print(report(prof, found))
    if out is not None:
        profile.save(prof, out, measured_table(found))
        print(f"\nsaved {out}" + ("" if args.out is None else f"; use it with LAYOUTS_PROFILE={out}"))
        from ..kernels.tune import fill_wisdom
        from ..kernels.machine.wisdom import path
        print(f"\nwisdom (the fastest way of each common conversion, measured), in {path()}:")
        for case, decided in fill_wisdom(prof, quick=args.quick):
            print(f"  {case}: {decided}")


def _dims_from_words(words: list[str]) -> dict:
    """``AXIS=SIZE`` words as sizes (no align:/pitch: here: a file's layouts are plain or blocked)."""
    dims, align, pitch = _words(words)
    if align or pitch:
        raise LayoutError("align:AXIS= and pitch:AXIS= describe padded rows, which a .npy file does not hold; give "
                          "sizes only, e.g. C=3")
    return dims


def _layout_from_words(spec: str, words: list[str]):
    from ..named.layout import Layout
    dims, align, pitch = _words(words)
    long = re.search(r"[0-9]{19,}", spec)
    if long:
        raise LayoutError(f"spec {spec[:20]!r}... has a block size of {len(long.group())} digits; "
                          "expected a size below 10**18")
    return Layout(spec, align=align or None, pitch=pitch or None, **dims)


def _words(words: list[str]) -> tuple[dict, dict, dict]:
    dims: dict = {}
    align: dict = {}
    pitch: dict = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise LayoutError(f"expected AXIS=SIZE such as C=16, got {word[:40]!r}")
        if not _SIZE.fullmatch(value):
            if value.isascii() and value.isdigit():
                raise LayoutError(f"size {key}={value[:12]}... has {len(value)} digits; expected "
                                  f"a size below 10**18")
            raise LayoutError(f"expected AXIS=SIZE with a whole number such as C=16, got "
                              f"{word[:40]!r}")
        target = dims
        if key.startswith("align:"):
            target, key = align, key[len("align:"):]
        elif key.startswith("pitch:"):
            target, key = pitch, key[len("pitch:"):]
        if key in target:
            raise LayoutError(f"{word[:40]!r} gives {key} a second time")
        target[key] = int(value)
    return dims, align, pitch
