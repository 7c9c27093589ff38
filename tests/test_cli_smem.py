"""``python -m layouts smem`` (issue 42): the numbers it prints are the hardware's, counted here by hand.

The oracle is a brute-force count written out below from the contract's model (the NVIDIA CUDA
C++ Programming Guide's shared-memory section and the PTX ISA's ldmatrix): 32 banks of 4 bytes; a
request of 4 bytes or less is one phase of 32 threads, 8 bytes two phases of 16, 16 bytes four
of 8; ldmatrix one phase per 8x8 matrix, thread t of the phase giving its row t; a phase takes as
many wavefronts as the most distinct 4-byte words any bank holds. The tile's offsets are written
by hand too (``r * pitch + c``, then CuTe's Swizzle<B,M,S>: bits [M+S, M+S+B) XOR into [M, M+B)).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROG = "python -m layouts"


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "layouts", "smem", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)


def _numbers(out: str) -> dict:
    found = {key: int(m.group(1)) for key, pat in (
        ("wavefronts", r"^wavefronts: (\d+)$"), ("ideal", r"^ideal: (\d+)$"), ("ways", r"^ways: (\d+)\b"),
        ("vector_bytes", r"^vector width: (\d+) bytes$")) if (m := re.search(pat, out, re.M))}
    assert len(found) == 4, out
    return found


# -- the oracle ---------------------------------------------------------------------------------

def offset(r: int, c: int, pitch: int, swizzle: tuple | None) -> int:
    o = r * pitch + c
    if swizzle is not None:
        b, m, s = swizzle
        o ^= ((o >> (m + s)) & ((1 << b) - 1)) << m
    return o


def count(phases: list, pitch: int, swizzle: tuple | None, eb: int) -> dict:
    """Wavefronts of ``phases`` (each a list of per-thread lists of (row, col) cells), ideal, ways."""
    per_phase = []
    for phase in phases:
        words: dict = {}
        for cells in phase:
            for r, c in cells:
                for byte in range(eb):
                    w = (offset(r, c, pitch, swizzle) * eb + byte) // 4
                    words.setdefault(w % 32, set()).add(w)
        per_phase.append(max(len(ws) for ws in words.values()))
    return {"wavefronts": sum(per_phase), "ideal": len(per_phase), "ways": max(per_phase)}


def columns_phases(rows: int, cols: int) -> list:
    """One 4-byte request per column k: thread t reads row t (32 rows, 32 threads: one phase)."""
    assert rows == 32
    return [[[(t, k)] for t in range(32)] for k in range(cols)]


def ldmatrix_phases(rows: int, cols: int) -> list:
    """ldmatrix on an 8-row tile of halves: each 8x8 matrix (8 columns) one phase, thread t its row t."""
    assert rows == 8
    return [[[(t, 8 * m + j) for j in range(8)] for t in range(8)] for m in range(cols // 8)]


def rows_phases(rows: int, cols: int, vector: int, eb: int) -> list:
    """Thread t takes ``vector`` consecutive elements of the row-major order per request, 32 threads a
    request, split into phases of 128 bytes' worth of threads."""
    per_phase = 32 if vector * eb <= 4 else 128 // (vector * eb)
    size = rows * cols
    out = []
    for start in range(0, size, 32 * vector):
        for first in range(0, 32, per_phase):
            out.append([[divmod(start + vector * t + e, cols) for e in range(vector)]
                        for t in range(first, first + per_phase)])
    return out


# -- the contract's known answers -------------------------------------------------------------

@pytest.mark.parametrize("args,pitch,swizzle,ways", [
    (("--pitch", "32"), 32, None, 32),        # row-major float32 32x32 read by columns: 32-way
    (("--pitch", "33"), 33, None, 1),         # padded to 33: 1-way
    (("--swizzle", "5,0,5"), 32, (5, 0, 5), 1),  # Swizzle<5,0,5>: 1-way
])
def test_float32_tile_read_by_columns(args, pitch, swizzle, ways):
    out = _run("--tile", "32x32", "--dtype", "float32", "--access", "columns", *args)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    want = count(columns_phases(32, 32), pitch, swizzle, 4)
    assert want["ways"] == ways and want["ideal"] == 32
    got = _numbers(out.stdout)
    assert {k: got[k] for k in want} == want
    # a thread holds one row: 128 contiguous bytes, so the widest access is the hardware's 16 B when the
    # rows start 16-byte aligned (pitch 32); 4 B when they do not (pitch 33: row 1 starts at byte 132) or
    # when the swizzle reorders a row (Swizzle<5,0,5>: row 1 holds columns 1, 0, 3, 2, ...)
    assert got["vector_bytes"] == (16 if pitch == 32 and swizzle is None else 4)
    assert f"{ways}-way" in out.stdout or (ways == 1 and "conflict-free" in out.stdout)


@pytest.mark.parametrize("swizzle,ways", [(None, 8), ((3, 3, 3), 1)])
def test_cutlass_half_tile_read_by_ldmatrix_x4(swizzle, ways):
    args = ["--swizzle", ",".join(map(str, swizzle))] if swizzle else []
    out = _run("--tile", "8x64", "--dtype", "float16", "--ldmatrix", "x4", *args)
    assert out.returncode == 0, out.stderr
    want = count(ldmatrix_phases(8, 64), 64, swizzle, 2)
    assert want["ways"] == ways and want["ideal"] == 8       # 8 matrices: two ldmatrix.x4
    got = _numbers(out.stdout)
    assert {k: got[k] for k in want} == want and got["vector_bytes"] == 16
    if ways > 1:  # the explanation names the banks and the threads: rows 128 bytes apart share banks 0-3
        assert re.search(r"bank 0: threads 0-7 ", out.stdout), out.stdout


@pytest.mark.parametrize("words", [("--ldmatrix", "x1"), ("--ldmatrix", "x2", "--trans"), ("--stmatrix", "x4"),
                                   ("--stmatrix", "x2", "--trans")])
def test_every_matrix_instruction_reads_rows_of_16_bytes(words):
    # x1/x2/x4 change how many matrices one instruction takes, .trans which register gets which element, and
    # stmatrix the direction: none changes the addresses of a phase, so the count is ldmatrix's
    out = _run("--tile", "8x64", "--dtype", "float16", "--pitch", "72", *words)
    assert out.returncode == 0, out.stderr
    got = _numbers(out.stdout)
    want = count(ldmatrix_phases(8, 64), 72, None, 2)
    assert {k: got[k] for k in want} == want and want["ways"] == 1      # rows 144 bytes apart: 4 banks on each


def test_phase_marks_the_asked_phase_in_the_picture(tmp_path):
    png = tmp_path / "phase3.png"
    out = _run("--tile", "8x64", "--ldmatrix", "x4", "--png", str(png), "--phase", "3")
    assert out.returncode == 0 and png.read_bytes()[:4] == b"\x89PNG", out.stderr
    bad = _run("--tile", "8x64", "--ldmatrix", "x4", "--png", str(png), "--phase", "8")
    assert bad.returncode == 2 and "phase is 8; this access has 8 phases" in bad.stderr


@pytest.mark.parametrize("tile,dtype,eb,width,pitch", [("8x64", "float16", 2, 16, 64), ("16x32", "bf16", 2, 4, 40),
                                                       ("32x32", "float64", 8, 8, 32), ("8x128", "int8", 1, 1, 128),
                                                       ("32x33", "float32", 4, 4, 33), ("24x40", "float16", 2, 2, 40)])
def test_rows_access_against_the_count(tile, dtype, eb, width, pitch):
    rows, cols = map(int, tile.split("x"))
    out = _run("--tile", tile, "--dtype", dtype, "--access", "rows", "--width", str(width), "--pitch", str(pitch))
    assert out.returncode == 0, out.stderr
    want = count(rows_phases(rows, cols, width // eb, eb), pitch, None, eb)
    got = _numbers(out.stdout)
    assert {k: got[k] for k in want} == want, (want, got)


def test_best_finds_a_conflict_free_swizzle_and_png_is_written(tmp_path):
    png = tmp_path / "banks.png"
    out = _run("--tile", "32x32", "--dtype", "float32", "--access", "columns", "--best", "--png", str(png))
    assert out.returncode == 0, out.stderr
    best = out.stdout[out.stdout.index("best_swizzle for this access"):]
    # every column read takes at least one wavefront, and exactly one with the bank of (r, c) a
    # permutation of each column's rows (e.g. Swizzle<5,0,5>), so the minimum is 32 wavefronts, 1-way
    assert re.search(r"wavefronts 32, ideal 32, 1-way", best), best
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"wrote {png}" in out.stdout


# -- errors: one line, status 2, no traceback ----------------------------------------------------

@pytest.mark.parametrize("args,words", [
    (("--tile", "32"), "--tile '32': expected ROWSxCOLS"),
    (("--tile", "32x32", "--dtype", "float33"), "--dtype 'float33' is not an element type"),
    (("--tile", "32x32", "--dtype", "float32", "--access", "columns", "--width", "8"), "width"),
    (("--tile", "32x32", "--pitch", "31"), "--pitch 31 is less than the tile's 32 columns"),
    (("--tile", "8x64", "--access", "diag"), "--access: invalid choice"),
])
def test_errors_in_a_subprocess(args, words):
    out = _run(*args)
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.startswith(f"{PROG}") and ": error: " in out.stderr
    assert words is None or words in out.stderr, out.stderr


@pytest.mark.parametrize("args,words", [
    (["--tile", "32x32", "--dtype", "str"], "--dtype 'str' is not an element type"),
    (["--tile", "0x32"], "--tile '0x32'"),
    (["--tile", "32x32", "--swizzle", "3,3"], "--swizzle '3,3': expected B,M,S"),
    (["--tile", "30x30"], "--tile 30x30 has 900 elements"),
    (["--tile", "4096x4096", "--dtype", "float32"], "is 67108864 bytes, more than any GPU's shared memory"),
    (["--tile", "999999x999999"], "more than any GPU's shared memory"),
    (["--tile", "32x32", "--width", "3"], "--width 3"),
    (["--tile", "32x32", "--trans"], "--trans goes with --ldmatrix"),
    (["--tile", "32x32", "--phase", "2"], "--phase chooses the phase of the picture"),
    (["--tile", "32x32", "--pitch", "-1"], "argument --pitch"),
    (["--access", "rows"], "required: --tile"),
    (["--tile", "32x32", "--ldmatrix", "x4", "--access", "rows"], "not allowed with"),
    (["--tile", "32x32", "--dtype", "float32", "--png", "/nonexistent-dir/x.png"], "/nonexistent-dir/x.png"),
])
def test_errors_in_process(args, words, capsys):
    from layouts.__main__ import main
    assert main(["smem", *args], prog="layouts") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("layouts") and ": error: " in err and words in err, err


def test_help_lists_the_options_and_examples():
    out = subprocess.run([sys.executable, "-m", "layouts", "smem", "--help"], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert out.returncode == 0 and out.stdout.startswith(f"usage: {PROG} smem")
    for word in ("--tile", "--pitch", "--swizzle", "--ldmatrix", "--best", "--png", "examples:"):
        assert word in out.stdout


# -- layouts smem convert -------------------------------------------------------------------------
_BLOCKED = "BlockedLayout([1,8],[4,8],[4,1],[1,0])"
_MMA = "NVMMADistributedLayout([2,0],[4,1],[16,8])"


def test_convert_prints_the_plan_of_a_conversion_through_shared_memory():
    out = _run("convert", _BLOCKED, _MMA, "--shape", "64x64", "--bits", "8", "--warps", "4")
    assert out.returncode == 0, out.stderr
    from layouts import smem
    from layouts.linear import triton as tt
    plan = smem.layout_conversion(tt.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]),
                                  tt.NVMMADistributedLayout([2, 0], [4, 1], [16, 8]), (64, 64), element_bytes=1)
    assert out.stdout.strip() == plan.explain()
    assert "through shared memory" in out.stdout and f"Together {plan.wavefronts} wavefronts" in out.stdout


@pytest.mark.parametrize("src, dst, path", [
    (_MMA, "DotOperandLayout(0, NVMMADistributedLayout([2,0],[4,1],[16,8]), 2)", "nothing to do"),
    ("BlockedLayout([1,1],[32,1],[1,1],[1,0])", "BlockedLayout([1,1],[16,2],[1,1],[1,0])", "by warp shuffles"),
])
def test_convert_without_shared_memory(src, dst, path):
    out = _run("convert", src, dst, "--shape", "32x32")
    assert out.returncode == 0, out.stderr
    assert path in out.stdout.splitlines()[0]


@pytest.mark.parametrize("words, message", [
    (["convert", "__import__('os').system('true')", _MMA, "--shape", "64x64"], "is not a layout of"),
    (["convert", "BlockedLayout(open('x'))", _MMA, "--shape", "64x64"], "is not a layout of"),
    (["convert", "BlockedLayout([1,8],[4,8],[4,1],order=x)", _MMA, "--shape", "64x64"], "arguments are numbers"),
    (["convert", _BLOCKED, _MMA], "needs --shape"),
    (["convert", _BLOCKED, "--shape", "64x64"], "expected: smem convert SRC DST"),
    (["convert", _BLOCKED, _MMA, "--shape", "64"], "--shape '64'"),
    (["convert", _BLOCKED, _MMA, "--shape", "64x64", "--bits", "12"], "--bits 12"),
    (["convert", _BLOCKED, _MMA, "--shape", "64x64", "--warps", "8"], "num_warps=8"),
    (["convert", _BLOCKED, "NVMMASharedLayout(128, 16)", "--shape", "64x64"], "shared encoding"),
    (["convert", "BlockedLayout([1,8],[4,8]", _MMA, "--shape", "64x64"], "is not a Python call"),
    (["--dtype", "float32"], "required: --tile"),
])
def test_convert_refuses_with_one_line(words, message):
    out = _run(*words)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
