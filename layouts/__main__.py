"""Command line: ``python -m layouts tour`` and ``python -m layouts explain SPEC N=.. C=..``."""

from __future__ import annotations

import argparse
import sys

from .errors import LayoutError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m layouts", description="Tensor memory layouts.")
    sub = parser.add_subparsers(dest="command", required=True)
    tour = sub.add_parser("tour", help="walk through the EdgeBoard article's example; write its figures")
    tour.add_argument("--out", default="layouts-tour", help="folder for the PNG figures (default: %(default)s)")
    tour.add_argument("--no-figures", action="store_true", help="print only, draw nothing")
    gallery = sub.add_parser("gallery", help="write every kind of figure as PNG and SVG: python -m layouts gallery DIR")
    gallery.add_argument("dir", help="folder for the figures (created if needed)")
    explain = sub.add_parser("explain", help="describe one layout: python -m layouts explain NCHW16c N=1 C=20 H=5 W=4")
    explain.add_argument("spec")
    explain.add_argument("dims", nargs="*", metavar="AXIS=SIZE", help="sizes, and align:DIM=K / pitch:DIM=STRIDE")
    explain.add_argument("--ascii", action="store_true", help="also print the memory order as text")
    args = parser.parse_args(argv)
    try:
        if args.command == "tour":
            from .tour import run
            run(None if args.no_figures else args.out, figures=not args.no_figures)
        elif args.command == "gallery":
            from .viz.gallery import write_gallery
            for path in write_gallery(args.dir):
                print(f"wrote {path}")
        else:
            layout = _layout_from_words(args.spec, args.dims)
            print(layout.explain())
            if args.ascii:
                from .viz import ascii
                print(ascii(layout))
    except LayoutError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def _layout_from_words(spec: str, words: list[str]):
    from .layout import Layout
    dims: dict = {}
    align: dict = {}
    pitch: dict = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not value.isdigit():
            raise LayoutError(f"expected AXIS=SIZE such as C=16, got {word!r}")
        target = dims
        if key.startswith("align:"):
            target, key = align, key[len("align:"):]
        elif key.startswith("pitch:"):
            target, key = pitch, key[len("pitch:"):]
        target[key] = int(value)
    return Layout(spec, align=align or None, pitch=pitch or None, **dims)


if __name__ == "__main__":
    sys.exit(main())
