"""Where the tiles of a transpose go, and which rectangles are left for the edges: the one place.

A transpose ``dst[b*dB + j*dJ + i] = src[b*sB + i*sI + j]`` (dst contiguous along i, src along j)
is covered by register tiles of ``TI`` rows of i by ``TL`` columns of j (:mod:`.simd`: every
stored tile row is one 64-byte line). :func:`tiling` decides, in Python, the rectangle the full
tiles cover (``i`` in ``[ia, ie)``, ``j`` in ``[ja, je)``), the cache blocks they are walked in and
the *edge* rectangles left over; the numba kernels only walk what they are given, so the edge
geometry is never written twice.

Variants (the tile family a kernel of :mod:`.transpose` or :mod:`.lines` runs):

======================  ===========================================================================
``tiles``               K groups of L x L zips per tile, plain stores
``tiles-nt``            the same, non-temporal 64-byte aligned stores; tiles start at the first i
                        (``peel``) whose dst address is 64-byte aligned in every row
``tiles-wide``          as tiles for 4- and 8-byte units, each tile a whole source line wide
                        (:func:`widened`, :mod:`.wide`)
``tiles-nt-wide``       the same, non-temporal
``straddle-nt``         as tiles-nt for dst rows that follow each other (``dJ == ni``): the line
                        that straddles rows j and j+1 is one tile too, so no row has a scalar head
                        or tail
``narrow1``             dst rows shorter than a full tile: tiles of one group (L rows of i)
``narrow2``             ... of two groups (2L rows of i)
``lines``               dst rows of exactly one or two groups that follow each other (NCHW16c in
                        uint8 or float16, NCHW8c in float32): all of i by several groups of j a
                        tile, stored as whole lines of consecutive dst rows (:func:`line_tiling`)
``lines-nt``            the same, non-temporal, from the first column ``ja`` whose row starts a line
``lines-nt-shifted``    two-group rows 16 bytes off a line: each stored line joins two tile lines
``lines-nt-each``       batch indices that start their rows at other places in a line: each finds
                        its own start in the kernel, which copies its columns before and after
======================  ===========================================================================

>>> t = tiling(ni=64, nj=100, dJ=64, dst_batch_strides=(6400,), unit_bytes=4, dst_addr=16,
...            stream=True, profile=__import__("layouts.kernels.machine.profile", fromlist=["x"]).reference("epyc-avx512"))
>>> t.variant, (t.ia, t.ie, t.je, t.js), t.edges
('straddle-nt', (12, 60, 100, 96), ((60, 64, 96, 100, 0), (0, 12, 0, 1, 0), (0, 12, 97, 100, 0)))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["TILE_SHAPE", "WIDE_SIDE", "WIDE_PLAIN_MAX_ROW_BYTES", "WIDE_ALL_J_MAX_ROW_BYTES", "Tiling", "tiling",
           "widened", "line_tiling", "scalar_tiling", "edge_elements"]

#: (L, K) per unit bit width: L x L zip transposes on 128-bit vectors, K of them side by side,
#: so that every stored tile row is one 64-byte line (``K * L * bits == 512``)
TILE_SHAPE = {8: (16, 4), 16: (8, 4), 32: (4, 4), 64: (2, 4)}


@dataclass(frozen=True)
class Tiling:
    """Full tiles over ``[ia, ie) x [ja, je)`` walked in blocks of ``Bi x Bj``; ``edges``: the
    rectangles ``(i0, i1, j0, j1, narrow)`` left over (``narrow``: copied by one-group tiles)."""

    variant: str
    TI: int
    TL: int
    ia: int
    ie: int
    je: int
    js: int
    Bi: int
    Bj: int
    peel: int
    edges: tuple[tuple[int, int, int, int, int], ...]
    why: str
    ja: int = 0

    @property
    def nblocks(self) -> int:
        """Cache blocks of i (work items per batch index); one, maybe empty, when straddling tiles
        alone cover the rows."""
        return max(1, -(-(self.ie - self.ia) // self.Bi))


def rows_cached(row_bytes: int, profile) -> int:
    """How many source rows ``row_bytes`` apart can stay in L1 together: the L1 sets they fall
    in (``sets / gcd(row_lines, sets)``; one when they are a multiple of the set span apart)
    times the ways, with the geometry the profile read from the machine.

    >>> from layouts.kernels.machine.profile import reference
    >>> [rows_cached(3072, reference(k)) for k in ("epyc-avx512", "xeon-avx512")]
    [32, 48]
    """
    line = profile.l1d_line_bytes
    sets = max(1, profile.l1d_bytes // line // profile.l1d_ways)
    if row_bytes <= 0 or row_bytes % line:
        return sets * profile.l1d_ways
    return sets // math.gcd(row_bytes // line, sets) * profile.l1d_ways


def _blocks(ni: int, nj: int, TI: int, TL: int, unit_bytes: int, src_row_bytes: int, profile,
            plain: bool = False) -> tuple[int, int]:
    """Cache blocks (Bi, Bj) in units, multiples of the tile: long dst rows go in blocks of
    ``block_i_long_bytes`` by one tile column (all of j when the src rows are short -- at most
    ``block_j_long_bytes``, ``block_j_plain_bytes`` for ``plain`` stores -- and the block's rows
    would not stay in L1, ``block_j_aliased_bytes`` when the src rows are a multiple of 4 KiB
    apart; where a source line spans several tile columns, fewer rows of i, so that its lines stay
    in L1 for the next column); short dst rows take all of i by ``block_j_short_bytes`` of j."""
    if ni * unit_bytes >= profile.long_row_bytes:
        Bi = max(TI, profile.block_i_long_bytes // unit_bytes // TI * TI)
        Bj = TL
        if src_row_bytes % 4096 == 0:       # every source row in the same cache sets: use up each line
            Bj = max(TL, min(nj // TL * TL, profile.block_j_aliased_bytes // unit_bytes // TL * TL))
        # short source rows: all of j, each source line read once per tile row, unless the rows
        # of one block stay in L1 from one tile column to the next (a third of it left for the
        # rest): then one column at a time writes fewer dst rows at once (NCHW16c -> NCHW)
        held = Bi * min(src_row_bytes, -(-nj * unit_bytes // 64) * 64)
        short = profile.block_j_plain_bytes if plain else profile.block_j_long_bytes
        if nj * unit_bytes <= short and held * 3 > profile.l1d_bytes * 2:
            Bj = max(TL, nj // TL * TL)
        elif Bj * unit_bytes < profile.l1d_line_bytes <= src_row_bytes and src_row_bytes % 4096 and ni > Bi:
            # each source line serves several tile columns: keep the block's lines in L1 from one
            # column to the next (two thirds of what their sets hold), not re-read from L2; a
            # block that covers all of i keeps it (small transposes taken together per work item)
            Bi = max(TI, min(Bi, rows_cached(src_row_bytes, profile) * 2 // 3 // TI * TI))
    else:
        Bi = max(TI, -(-ni // TI) * TI)
        Bj = max(TL, profile.block_j_short_bytes // unit_bytes // TL * TL)
    return Bi, Bj


def _split_narrow(rect: tuple[int, int, int, int], je: int, L: int) -> list[tuple[int, int, int, int, int]]:
    """An i-edge ``(a0, a1, 0, nj)`` as narrow tiles over whole groups of L rows (j < je) plus
    scalar rest."""
    a0, a1, j0, j1 = rect
    wn = (a1 - a0) // L * L
    if not wn or je == 0:
        return [(a0, a1, j0, j1, 0)]
    out = [(a0, a0 + wn, 0, je, 1)]
    if j1 > je:
        out.append((a0, a0 + wn, je, j1, 0))
    if a1 > a0 + wn:
        out.append((a0 + wn, a1, j0, j1, 0))
    return out


def line_tiling(ni: int, nj: int, dJ: int, dst_batch_strides: tuple[int, ...], unit_bytes: int, dst_addr: int,
                stream: bool, profile, per_index: bool = False) -> Tiling | None:
    """Tiles of whole 64-byte lines for dst rows of one or two tile groups that follow each other
    (NCHW16c in uint8 or float16, NCHW8c in float32, NCHW32c in uint8), or None where they do
    not apply.

    A one-group tile reads 16 bytes of each source row and stores 16-byte rows; these read
    ``K // groups`` times as much of each row and store whole lines, with non-temporal stores for
    a large output whose lines the tiles can meet (every batch index's rows equally aligned):
    the first ``ja`` columns, up to a line, and the last are edges. Two-group rows (32 bytes)
    16 bytes off a line, as in numpy's own arrays, take ``lines-nt-shifted``: each line stored
    joins the last lane of one tile line to the first three of the next. Where batch indices align
    their rows differently (H*W odd in NCHW16c) and each is a work item of its own (``per_index``),
    ``lines-nt-each`` makes both choices per batch index, in the kernel, and copies the columns
    before and after the tiles itself.

    >>> from layouts.kernels.machine.profile import reference
    >>> t = line_tiling(16, 3136, 16, (50176,), 1, 16, True, reference("epyc-avx512"))   # uint8 NCHW16c
    >>> t.variant, (t.TI, t.TL), (t.ja, t.je), t.edges
    ('lines-nt', (16, 64), (3, 3075), ((0, 16, 0, 3, 0), (0, 16, 3075, 3136, 0)))
    """
    L, K = TILE_SHAPE[8 * unit_bytes]
    gi = ni // L
    if not profile.line_tiles or dJ != ni or ni % L or gi not in (1, 2):    # K = 4 lanes: 2 or 4 groups of j
        return None
    TL = K // gi * L
    row = ni * unit_bytes
    if nj < TL:
        return None
    ja, variant = 0, "lines"
    why = ("an output that stays in cache: plain stores" if not stream
           else "a large output, but this CPU has no non-temporal stores" if not profile.nt_stores
           else "a large output whose rows no line tile can meet: plain stores")
    lane = 16
    if (stream and profile.nt_stores and per_index and any((x * unit_bytes) % 64 for x in dst_batch_strides)
            and (dst_addr % lane == 0 or any((x * unit_bytes) % lane for x in dst_batch_strides))):
        # some batch index's rows can meet a line, each at its own place: the kernel finds it
        variant, je, edges = "lines-nt-each", nj, ()
        why = ("a large output whose batch indices start their rows at other places in a line: non-temporal "
               "stores from where each index's rows meet one")
    else:
        if stream and profile.nt_stores and all((x * unit_bytes) % 64 == 0 for x in dst_batch_strides):
            if dst_addr % row == 0 and nj - ((-dst_addr) % 64) // row >= TL:
                ja = ((-dst_addr) % 64) // row
                variant = "lines-nt"
                why = "a large output: non-temporal stores" + (f" from column {ja}" if ja else "")
            elif gi == 2 and dst_addr % lane == 0 and nj - ((lane - dst_addr) % 64) // row >= TL:
                ja = ((lane - dst_addr) % 64) // row          # tiles start one lane past a line
                variant = "lines-nt-shifted"
                why = ("a large output whose rows start 16 bytes off a line: non-temporal stores of lines that "
                       "join two tile lines" + (f", from column {ja}" if ja else ""))
        je = ja + (nj - ja) // TL * TL
        edges = tuple(e for e in ((0, ni, 0, ja, 0), (0, ni, je, nj, 0)) if e[3] > e[2])
    why = f"dst rows of {ni} units that follow each other: tiles of {TL} of them, stored as whole lines; " + why
    return Tiling(variant, ni, TL, 0, ni, je, 0, ni, TL, 0, edges, why, ja)


def tiling(ni: int, nj: int, dJ: int, dst_batch_strides: tuple[int, ...], unit_bytes: int, dst_addr: int,
           stream: bool, profile, sI: int = 0, lines: bool = False, per_index: bool = False) -> Tiling | str:
    """The SIMD tiling of a ``dI == sJ == 1`` transpose, or why there is none (a string).

    ``dst_addr``: the address of dst's first element (its alignment decides the peel);
    ``stream``: the output is large (non-temporal stores where the alignment allows); ``sI``: the
    source row stride in units (its alignment to 4 KiB decides the column blocks); ``lines``: the
    caller runs the line tiles of :func:`line_tiling` (dst rows shorter than a tile), ``per_index``
    with each batch index a work item of its own."""
    L, K = TILE_SHAPE[8 * unit_bytes]
    TI, TL = K * L, L
    if nj < TL:
        return f"fewer than {TL} columns of j (nj={nj}) for one tile"
    if ni < L:
        return f"dst rows of {ni} units are shorter than one tile group ({L})"
    if lines and ni < TI:
        t = line_tiling(ni, nj, dJ, dst_batch_strides, unit_bytes, dst_addr, stream, profile, per_index)
        if t is not None:
            return t
    peel, variant = 0, "tiles"
    why = "full tiles, plain stores"
    cap = rows_cached(sI * unit_bytes, profile) if profile.narrow_when_aliased and not stream else TI
    if ni >= TI and cap < TI and K > 1 and cap >= L and dJ == ni:   # (narrow stores into far rows lose)
        variant, TI = ("narrow2", 2 * L) if cap >= 2 * L and K > 2 else ("narrow1", L)
        why = (f"source rows {sI * unit_bytes} bytes apart share L1 sets (only {cap} stay cached): tiles of "
               f"{TI} rows")
    elif ni < TI:
        variant, TI = ("narrow2", 2 * L) if ni >= 2 * L and K > 2 else ("narrow1", L)
        why = f"dst rows of {ni} units: tiles of {TI // L} group(s) of {L}"
    elif stream and not profile.nt_stores:
        why = "a large output, but this CPU has no non-temporal stores"
    elif stream:
        aligned = (dJ * unit_bytes) % 64 == 0 and all((x * unit_bytes) % 64 == 0 for x in dst_batch_strides)
        if not aligned:
            why = "a large output whose rows are not 64-byte multiples: plain stores"
        else:
            peel = ((-dst_addr) % 64) // unit_bytes
            if (peel and profile.straddle and dJ == ni and ni % TI == 0
                    and ni * unit_bytes < profile.long_row_bytes and nj > TL):
                variant, why = "straddle-nt", "a large output in rows that follow each other, not 64-byte aligned"
            elif peel == 0 or ni >= 4 * TI:
                variant = "tiles-nt"
                why = "a large output: non-temporal stores" + (f", rows peeled by {peel}" if peel else "")
            else:
                peel = 0
                why = "a large output, but short misaligned rows: plain stores"
    Bi, Bj = _blocks(ni, nj, TI, TL, unit_bytes, sI * unit_bytes, profile, plain=not variant.endswith("-nt"))
    ia = peel
    ie = ia + (ni - ia) // TI * TI
    je = nj // TL * TL
    js = 0
    if variant == "straddle-nt":
        js = (nj - 1) // TL * TL
        edges = [(ie, ni, js, nj, 0), (0, ia, 0, 1, 0), (0, ia, js + 1, nj, 0), (ia, ie, je, nj, 0)]
    else:
        edges = [(ia, ie, je, nj, 0)]
        for r in ((0, ia, 0, nj), (ie, ni, 0, nj)):
            edges += _split_narrow(r, je, L)
    if ie <= ia and variant != "straddle-nt":     # straddling tiles alone may cover a short row
        return f"no full tile of {TI} rows fits in i (ni={ni}, peel {peel})"
    edges = tuple(e for e in edges if e[1] > e[0] and e[3] > e[2])
    return Tiling(variant, TI, TL, ia, ie, je, js, Bi, Bj, peel, edges, why)


#: unit bytes -> side of the whole-line tiles of :mod:`.wide` (one line of units)
WIDE_SIDE = {4: 16, 8: 8}
#: the one-lane variant -> its whole-line one
_WIDENED = {"tiles": "tiles-wide", "tiles-nt": "tiles-nt-wide"}
#: plain-store (in-cache) copies take whole-line tiles only from source rows at most this far
#: apart: their loads save the most there, while from long rows, read whole by either tile, the
#: wide tile's extra lane shuffles cost more than they save (see the design notes)
WIDE_PLAIN_MAX_ROW_BYTES = 2048
#: streamed whole-line tiles into long dst rows walk all of j at each step of i where the source
#: rows are at most this long: the source is then read in order, once, and each dst row gets two
#: lines a step (measured from 256-byte to 4 KiB rows; see the design notes)
WIDE_ALL_J_MAX_ROW_BYTES = 4096


def widened(t: Tiling, ni: int, nj: int, unit_bytes: int, src_row_bytes: int, profile) -> Tiling | None:
    """``t`` (a ``tiles`` or ``tiles-nt`` tiling taken alone, not in batch groups) with the tiles
    of whole source lines of :mod:`.wide` (``tiles-wide``, ``tiles-nt-wide``): for 4- and 8-byte
    units where the profile has ``wide_tiles`` and every column of j falls in a full tile (and,
    with plain stores, the source rows are at most :data:`WIDE_PLAIN_MAX_ROW_BYTES` apart); else
    None. The same rows of i and edges; blocks for tiles ``N`` columns wide (streamed into long
    dst rows from source rows of at most :data:`WIDE_ALL_J_MAX_ROW_BYTES`: all of j a block).

    >>> from layouts.kernels.machine.profile import reference
    >>> p = reference("xeon-avx512")
    >>> t = tiling(3136, 64, 3136, (200704,), 4, 0, True, p, sI=64)         # float32 NHWC -> NCHW
    >>> w = widened(t, 3136, 64, 4, 256, p)
    >>> t.variant, (t.TI, t.TL), w.variant, (w.TI, w.TL), (w.Bi, w.Bj), w.edges == t.edges
    ('tiles-nt', (16, 4), 'tiles-nt-wide', (16, 16), (512, 64), True)
    >>> widened(t, 3136, 64, 4, 256, p.replace(wide_tiles=False)) is None
    True
    """
    N = WIDE_SIDE.get(unit_bytes)
    if t.variant not in _WIDENED or not profile.wide_tiles or N is None or t.ja or nj % N or t.TI != N:
        return None
    if t.variant == "tiles" and src_row_bytes > WIDE_PLAIN_MAX_ROW_BYTES:
        return None
    Bi, Bj = _blocks(ni, nj, t.TI, N, unit_bytes, src_row_bytes, profile, plain=t.variant == "tiles")
    if (t.variant == "tiles-nt" and ni * unit_bytes >= profile.long_row_bytes
            and nj * unit_bytes <= WIDE_ALL_J_MAX_ROW_BYTES):
        Bj = nj
    return Tiling(_WIDENED[t.variant], t.TI, N, t.ia, t.ie, t.je, t.js, Bi, Bj, t.peel, t.edges,
                  t.why + f"; tiles of {N} whole source lines", t.ja)


def scalar_tiling(ni: int, nj: int, unit_bytes: int, profile) -> Tiling:
    """Cache blocks of scalar copies over the whole of i and j (any strides): no edges."""
    b = max(1, profile.plain_block_bytes // unit_bytes)
    return Tiling("scalar", 1, 1, 0, ni, nj, 0, min(b, ni), min(b, nj), 0, (), "scalar cache blocks")


def edge_elements(t: Tiling) -> int:
    """Elements in the edges of one batch index."""
    return sum((i1 - i0) * (j1 - j0) for i0, i1, j0, j1, _ in t.edges)
