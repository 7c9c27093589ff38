"""Triton's own code for a ``convert_layout``: compiled on the CPU by the triton wheel, run by a
small PTX emulator of our own.

A Gluon kernel loads a 2-D tensor in a source encoding, converts it with ``gl.convert_layout``
into a destination encoding and stores it. :func:`compile_conversions` compiles any number of
such kernels to PTX in ONE child process (the wheel aborts its process on input it refuses; the
child names each case on stderr before compiling it, so a death says which case killed it;
nothing is cached on disk). :func:`emulate` then runs the PTX for every thread of the CTA:
global memory holds element ``i`` = ``i`` (row-major), in an integer type of the element's
width, and the run reads back

* :attr:`Run.byte_offset` -- for every element, the byte of shared memory where Triton's code
  stored it (read from the values stored, so it is the layout the code really uses);
* :attr:`Run.accesses` -- every shared-memory instruction with its per-lane addresses and width,
  warp by warp;
* :attr:`Run.output` -- the tensor the kernel wrote, which must equal its input (a self-check of
  the emulator and of the layout read).

Semantics come from the PTX ISA (docs.nvidia.com/cuda/parallel-thread-execution): integer
arithmetic modulo the type's width, ``bfe``/``bfi``/``prmt`` as specified there, and the warp-wide
``ldmatrix``/``stmatrix``, whose 8x8 matrix of 16-bit elements is held by lane ``l`` as row
``l // 4``, columns ``2 * (l % 4)`` and ``2 * (l % 4) + 1`` (transposed with ``.trans``), and
whose row ``r`` of matrix ``i`` lives at the address lane ``8 * i + r`` gives. The emulator runs
straight-line code only; every warp runs one phase (the code between two ``bar.sync``) before
the next warp starts it, so a read of a value another warp has not yet stored would show. An
instruction it does not know raises :class:`UnknownInstruction` naming it.

Tests plant defects by replacing an entry of :data:`ALU` or of the handlers, or
:func:`matrix_position` / :func:`row_lane`.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# ---------------------------------------------------------------- describing the encodings


def encoding_spec(layout: Any) -> dict:
    """The JSON the child turns into a Gluon layout: an encoding of ``layouts.linear.triton`` by
    its class name and fields, or a ``LinearLayout`` (in-dims register/lane/warp[/block], out-dims
    dim0, dim1) as ``DistributedLinearLayout``."""
    if hasattr(layout, "_fields"):
        args = {}
        for name in layout._fields:
            value = getattr(layout, name)
            args[name] = encoding_spec(value) if hasattr(value, "_fields") else json.loads(json.dumps(value))
        return {"cls": type(layout).__name__, "args": args}
    bases = layout.bases
    return {"linear": {dim: [list(map(int, b)) for b in bases.get(dim, ())] for dim in ("register", "lane", "warp", "block")},
            "shape": [int(s) for s in layout.out_dims.values()]}


@dataclass
class Compiled:
    ptx: str
    num_warps: int
    shared_bytes: int


_CHILD = "--compile-conversions"


def compile_conversions(jobs: list[dict], timeout: float = 600) -> list[Compiled]:
    """Compile every job ``{"src": spec, "dst": spec, "shape": [M, N], "element_bytes": 1|2|4,
    "capability": 80|90}`` to PTX in one child process; raises ``RuntimeError`` naming the case
    that killed the child."""
    with tempfile.TemporaryDirectory(prefix="layouts-triton-ptx-") as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache, TRITON_DEFAULT_FP_FUSION="1")
        run = subprocess.run([sys.executable, os.path.abspath(__file__), _CHILD], input=json.dumps(jobs),
                             capture_output=True, text=True, timeout=timeout, env=env)
    if run.returncode != 0:
        started = [ln for ln in run.stderr.splitlines() if ln.startswith("CASE ")]
        which = int(started[-1].split()[1]) if started else None
        case = jobs[which] if which is not None else None
        tail = "\n".join(ln for ln in run.stderr.splitlines() if "leaked" not in ln)[-2000:]
        raise RuntimeError(f"the triton wheel died (rc {run.returncode}) compiling case {which}: {case!r}\n{tail}")
    return [Compiled(**c) for c in json.loads(run.stdout)]


def _convert_kernel(inp, out, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):  # noqa: F821
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))  # noqa: F821
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))  # noqa: F821
    x = gl.load(inp + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0))  # noqa: F821
    y = gl.convert_layout(x, DST)  # noqa: F821
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, DST))  # noqa: F821
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, DST))  # noqa: F821
    gl.store(out + gl.expand_dims(rows, 1) * N + gl.expand_dims(cols, 0), y)  # noqa: F821


def _child() -> None:
    """Runs in the child: compile each job to PTX (the backend's stages up to "ptx", no cache)."""
    global gl
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    kernel = gluon.jit(_convert_kernel)

    def layout(spec):
        if "linear" in spec:
            b = spec["linear"]
            return gl.DistributedLinearLayout(b["register"], b["lane"], b["warp"], b["block"], spec["shape"])
        args = {k: layout(v) if isinstance(v, dict) else v for k, v in spec["args"].items()}
        return getattr(gl, spec["cls"])(**args)

    def warps(lay):
        if hasattr(lay, "warp_bases"):
            return 1 << len(lay.warp_bases)
        if hasattr(lay, "warps_per_cta"):
            return math.prod(lay.warps_per_cta)
        return warps(lay.parent)

    out = []
    for i, job in enumerate(json.load(sys.stdin)):
        sys.stderr.write(f"CASE {i}\n")
        sys.stderr.flush()
        src, dst = layout(job["src"]), layout(job["dst"])
        num_warps = warps(src)
        dtype = {1: "i8", 2: "i16", 4: "i32"}[job["element_bytes"]]
        target = GPUTarget("cuda", job["capability"], 32)
        backend = make_backend(target)
        signature = {"inp": "*" + dtype, "out": "*" + dtype, "M": "constexpr", "N": "constexpr",
                     "SRC": "constexpr", "DST": "constexpr"}
        source = GluonASTSource(fn=kernel, signature=signature,
                                constexprs={"M": job["shape"][0], "N": job["shape"][1], "SRC": src, "DST": dst})
        options = backend.parse_options(dict(num_warps=num_warps, **source.parse_options()))
        stages: dict = {}
        backend.add_stages(stages, options, source.language)
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        module = source.make_ir(target, options, backend.get_codegen_implementation(options),
                                backend.get_module_map(), context)
        metadata = {"target": target, **options.__dict__}
        names = list(stages)
        for name in names[names.index(source.ext) + 1:names.index("ptx") + 1]:
            module = stages[name](module, metadata)
        out.append({"ptx": module, "num_warps": num_warps, "shared_bytes": int(metadata.get("shared", 0))})
    sys.stdout.write(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)            # skip the wheel's teardown (nanobind's leak report)


# ---------------------------------------------------------------- parsing PTX


class UnknownInstruction(Exception):
    """The emulator met an instruction (or operand) it does not implement."""


@dataclass
class Instruction:
    text: str
    guard: tuple[str, bool] | None      # (predicate register, negated)
    opcode: str                          # "ld", "mad", ...
    modifiers: list[str]                 # the dotted parts after the opcode
    operands: list[str]


_OPERAND_SPLIT = re.compile(r",(?![^{]*\})(?![^\[]*\])")


def parse(ptx: str) -> tuple[list[Instruction], dict[str, int]]:
    """The entry function's instructions in order, and each register's width in bits (1 for a
    predicate)."""
    body = ptx[ptx.index(".entry"):]
    body = body[body.index("{", body.index(")")) + 1:]
    body = re.sub(r"//[^\n]*", "", body)
    widths: dict[str, int] = {}
    program = []
    depth = 1
    for raw in re.split(r"[;\n]", body):
        line = raw.strip()
        while line.startswith("{") or line.startswith("}"):
            depth += 1 if line[0] == "{" else -1
            line = line[1:].strip()
        if depth == 0:
            break
        if not line or line.startswith(".loc") or line.startswith(".file") or re.match(r"^\$?[\w.]+:$", line):
            continue
        if line.startswith(".reg"):
            _declare(line, widths)
            continue
        if line.startswith("."):
            raise UnknownInstruction(f"directive in the kernel body: {line!r}")
        program.append(_instruction(line))
    return program, widths


def _declare(line: str, widths: dict[str, int]) -> None:
    m = re.match(r"\.reg\s+\.(\w+)\s+(.+)$", line)
    if not m:
        raise UnknownInstruction(f"register declaration {line!r}")
    kind, names = m.groups()
    bits = 1 if kind == "pred" else int(re.sub(r"\D", "", kind))
    for name in names.split(","):
        name = name.strip()
        ranged = re.match(r"(%\w+)<(\d+)>$", name)
        if ranged:
            for k in range(int(ranged.group(2))):
                widths[f"{ranged.group(1)}{k}"] = bits
        else:
            widths[name] = bits


def _instruction(line: str) -> Instruction:
    guard = None
    m = re.match(r"@(!?)(%\w+)\s+(.*)$", line)
    if m:
        guard = (m.group(2), m.group(1) == "!")
        line = m.group(3)
    head, _, rest = line.partition(" ")
    parts = head.split(".")
    operands = [op.strip() for op in _OPERAND_SPLIT.split(rest.strip())] if rest.strip() else []
    return Instruction(line, guard, parts[0], parts[1:], operands)


# ---------------------------------------------------------------- the machine

_U64 = np.uint64

#: binary integer operations by opcode, on uint64 arrays (the result is cut to the type's width)
ALU: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}


def matrix_position(lane: np.ndarray, half: np.ndarray, trans: bool) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of an 8x8 ``ldmatrix``/``stmatrix`` matrix that lane ``lane`` holds in the
    ``half``-th 16-bit half of its register (PTX ISA, "Warp-level matrix load instruction:
    ldmatrix": row ``lane // 4``, columns ``2 * (lane % 4) + half``; swapped with ``.trans``)."""
    row, col = lane // 4, 2 * (lane % 4) + half
    return (col, row) if trans else (row, col)


def row_lane(matrix: int, row: np.ndarray) -> np.ndarray:
    """The lane whose address names row ``row`` of matrix ``matrix`` of an ``ldmatrix``/``stmatrix``
    (PTX ISA: threads 0-7 give matrix 0's rows, 8-15 matrix 1's, ...)."""
    return 8 * matrix + row


def wavefronts(access: SharedAccess, banks: int = 32) -> int:
    """The wavefronts of one warp's shared access by NVIDIA's bank model: the lanes split into
    phases of 128 bytes (32 lanes of 4 bytes, 16 of 8, 8 of 16: one 8x8 matrix of ldmatrix /
    stmatrix); in a phase, the most distinct 4-byte words any bank serves."""
    per_phase = 32 if access.bytes_per_lane <= 4 else 128 // access.bytes_per_lane
    words_per_lane = max(1, access.bytes_per_lane // 4)
    total = 0
    for first in range(0, 32, per_phase):
        lanes = access.addresses[first:first + per_phase]
        words = {int(a) // 4 + k for a in lanes if a >= 0 for k in range(words_per_lane)}
        if words:
            total += max(sum(1 for w in words if w % banks == b) for b in range(banks))
    return total


def _mask(bits: int) -> np.uint64:
    return _U64((1 << bits) - 1) if bits < 64 else _U64(0xFFFFFFFFFFFFFFFF)


def _signed(x: np.ndarray, bits: int) -> np.ndarray:
    x = (x & _mask(bits)).astype(np.int64) if bits < 64 else x.view(np.int64)
    if bits < 64:
        x = np.where(x >= (1 << (bits - 1)), x - (1 << bits), x)
    return x


def _type_bits(modifier: str) -> int:
    return 1 if modifier == "pred" else int(modifier[1:])


_TYPES = re.compile(r"^[bsuf](8|16|32|64)$|^pred$")


@dataclass
class SharedAccess:
    """One shared-memory instruction of one warp: ``addresses[lane]`` (bytes from the start of the
    scratch; -1 where the lane takes no part) and ``bytes_per_lane`` (16 for each ``ldmatrix`` /
    ``stmatrix`` row)."""
    instruction: str
    warp: int
    store: bool
    addresses: np.ndarray
    bytes_per_lane: int


@dataclass
class Run:
    output: np.ndarray                   # the tensor the kernel stored, row-major (M, N)
    byte_offset: np.ndarray | None       # (M, N): the shared byte where each element was stored
    round: np.ndarray | None             # (M, N): in which pass over the scratch (bar.sync-delimited)
    accesses: list[SharedAccess]
    instructions: int                    # instructions executed, summed over warps
    scratch_bytes: int

    @property
    def through_shared_memory(self) -> bool:
        return self.byte_offset is not None

    def element_offsets(self, element_bytes: int) -> np.ndarray:
        """(M, N) shared offsets in elements, later passes over the scratch placed after earlier."""
        assert self.byte_offset is not None and self.round is not None, "the kernel does not use shared memory"
        return (self.round * self.scratch_bytes + self.byte_offset) // element_bytes


_SHARED_BASE = 1 << 20           # the shared window's address of global_smem
_GENERIC_SHARED = 1 << 40        # where a generic address of shared memory starts
_REGION = 1 << 32                # global regions: 1 input, 2 output, 3.. other pointers
_SPECIAL = {"%tid.y": 0, "%tid.z": 0, "%ctaid.x": 0, "%ctaid.y": 0, "%ctaid.z": 0, "%nctaid.x": 1,
            "%nctaid.y": 1, "%nctaid.z": 1, "%ntid.y": 1, "%ntid.z": 1}


class Machine:
    """The CTA's state during one run: registers (one uint64 per thread), global and shared memory."""

    def __init__(self, widths: dict[str, int], num_warps: int, inputs: np.ndarray, element_bytes: int):
        self.widths = widths
        self.threads = 32 * num_warps
        self.regs: dict[str, np.ndarray] = {}
        self.global_mem = {1: inputs.astype("<u" + str(element_bytes)).view(np.uint8).copy(),
                           2: np.zeros(inputs.size * element_bytes, np.uint8)}
        self.written = np.zeros(inputs.size * element_bytes, bool)
        self.shared = np.zeros(256 * 1024, np.uint8)
        self.passes: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}   # pass -> (bytes, stored)
        self.phase = 0
        self.warp_barriers = 0
        self.accesses: list[SharedAccess] = []
        self.instructions = 0
        self.lanes = slice(0, 0)

    def stored_in_pass(self) -> tuple[np.ndarray, np.ndarray]:
        """What the current pass over the scratch stored (a pass ends at bar.sync, or for one warp
        at bar.warp.sync): its bytes, and which of them it stored."""
        key = (self.phase, self.warp_barriers)
        if key not in self.passes:
            self.passes[key] = (np.zeros(self.shared.size, np.uint8), np.zeros(self.shared.size, bool))
        return self.passes[key]

    # -- operands
    def read(self, op: str, bits: int) -> np.ndarray:
        n = self.lanes.stop - self.lanes.start
        if op.startswith("%"):
            if op in self.regs:
                return self.regs[op][self.lanes] & _mask(bits)
            if op == "%tid.x":
                return np.arange(self.lanes.start, self.lanes.stop, dtype=_U64)
            if op == "%laneid":
                return np.arange(self.lanes.start, self.lanes.stop, dtype=_U64) % _U64(32)
            if op == "%ntid.x":
                return np.full(n, self.threads, _U64)
            if op in _SPECIAL:
                return np.full(n, _SPECIAL[op], _U64)
            if op in self.widths:
                raise UnknownInstruction(f"register {op} read before it is written")
            raise UnknownInstruction(f"operand {op}")
        if op == "global_smem":
            return np.full(n, _SHARED_BASE, _U64)
        if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)U?", op):
            value = int(op.rstrip("U"), 0)
            return np.full(n, value % (1 << 64), _U64) & _mask(bits)
        raise UnknownInstruction(f"operand {op}")

    def write(self, op: str, value: np.ndarray, bits: int, guard: np.ndarray | None) -> None:
        if op == "_":
            return
        if not op.startswith("%") or op not in self.widths:
            raise UnknownInstruction(f"destination {op}")
        width = self.widths[op]
        value = value.astype(bool) if width == 1 else value & _mask(min(bits, width) if width > 1 else 64)
        full = self.regs.setdefault(op, np.zeros(self.threads, bool if width == 1 else _U64))
        if guard is None:
            full[self.lanes] = value
        else:
            full[self.lanes] = np.where(guard, value, full[self.lanes])

    def address(self, op: str) -> np.ndarray:
        m = re.fullmatch(r"\[\s*([%\w.]+)\s*(?:\+\s*(-?\w+))?\s*\]", op)
        if not m:
            raise UnknownInstruction(f"address {op}")
        base = self.read(m.group(1), 64)
        return base + _U64(int(m.group(2) or "0", 0) % (1 << 64))


def _vector(op: str) -> list[str]:
    return [x.strip() for x in op.strip("{} ").split(",")] if op.startswith("{") else [op]


def _step(m: Machine, ins: Instruction) -> None:
    guard = None
    if ins.guard:
        g = m.regs.get(ins.guard[0])
        if g is None:
            raise UnknownInstruction(f"predicate {ins.guard[0]} read before it is written: {ins.text}")
        guard = ~g[m.lanes] if ins.guard[1] else g[m.lanes]
    handler = _HANDLERS.get(ins.opcode)
    if handler is None:
        raise UnknownInstruction(f"the emulator does not know {ins.opcode!r}: {ins.text}")
    handler(m, ins, guard)


def _bits(ins: Instruction) -> int:
    types = [t for t in ins.modifiers if _TYPES.match(t)]
    if not types:
        raise UnknownInstruction(f"no operand type in {ins.text}")
    return _type_bits(types[-1])


def _alu(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    d, a, b = ins.operands
    if bits == 1:
        result = ALU[ins.opcode](m.read(a, 64).astype(_U64), m.read(b, 64).astype(_U64))
        m.write(d, result & _U64(1), 1, guard)
    else:
        m.write(d, ALU[ins.opcode](m.read(a, bits), m.read(b, bits)), bits, guard)


def _mul_like(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    signed = any(t.startswith("s") for t in ins.modifiers if _TYPES.match(t))
    mode = [x for x in ins.modifiers if x in ("lo", "wide", "hi")]
    if mode not in (["lo"], ["wide"]):
        raise UnknownInstruction(f"the emulator knows {ins.opcode}.lo and .wide only: {ins.text}")
    a, b = m.read(ins.operands[1], bits), m.read(ins.operands[2], bits)
    if signed:
        a, b = _signed(a, bits).view(_U64), _signed(b, bits).view(_U64)
    out_bits = 2 * bits if mode == ["wide"] else bits
    product = a * b
    if ins.opcode == "mad":
        product = product + m.read(ins.operands[3], out_bits)
    m.write(ins.operands[0], product, out_bits, guard)


def _shift(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    d, a, b = ins.operands
    x, n = m.read(a, bits), np.minimum(m.read(b, 32), _U64(bits))
    if ins.opcode == "shl":
        out = np.where(n >= bits, _U64(0), x << np.minimum(n, _U64(63)))
    elif ins.modifiers[0][0] == "s":
        out = (_signed(x, bits) >> np.minimum(n, _U64(63)).astype(np.int64)).view(_U64)
    else:
        out = np.where(n >= bits, _U64(0), x >> np.minimum(n, _U64(63)))
    m.write(d, out, bits, guard)


def _not(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    if bits == 1:
        m.write(ins.operands[0], ~m.regs[ins.operands[1]][m.lanes], 1, guard)
    else:
        m.write(ins.operands[0], ~m.read(ins.operands[1], bits), bits, guard)


def _mov(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    d, a = ins.operands
    if d.startswith("{"):                      # unpack: the first register takes the low bits
        parts = _vector(d)
        step = bits // len(parts)
        x = m.read(a, bits)
        for k, p in enumerate(parts):
            m.write(p, x >> _U64(k * step), step, guard)
    elif a.startswith("{"):                    # pack
        parts = _vector(a)
        step = bits // len(parts)
        x = np.zeros(m.lanes.stop - m.lanes.start, _U64)
        for k, p in enumerate(parts):
            x |= m.read(p, step) << _U64(k * step)
        m.write(d, x, bits, guard)
    elif bits == 1:
        m.write(d, m.regs[a][m.lanes], 1, guard)
    else:
        m.write(d, m.read(a, bits), bits, guard)


def _cvt(m: Machine, ins: Instruction, guard) -> None:
    types = [t for t in ins.modifiers if _TYPES.match(t)]
    if len(types) != 2 or any(t[0] == "f" for t in types) or len(ins.modifiers) != 2:
        raise UnknownInstruction(f"the emulator does not know {ins.text}")
    (dt, st), (d, a) = types, ins.operands
    x = m.read(a, _type_bits(st))
    if st[0] == "s":
        x = _signed(x, _type_bits(st)).view(_U64)
    m.write(d, x, _type_bits(dt), guard)


def _cvta(m: Machine, ins: Instruction, guard) -> None:
    if "shared" not in ins.modifiers and "global" not in ins.modifiers:
        raise UnknownInstruction(f"the emulator does not know {ins.text}")
    bits = _bits(ins)
    x = m.read(ins.operands[1], bits)
    if "shared" in ins.modifiers:
        x = x - _U64(_GENERIC_SHARED) if "to" in ins.modifiers else x + _U64(_GENERIC_SHARED)
    m.write(ins.operands[0], x, bits, guard)


def _bfe(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    d, a, b, c = ins.operands
    x = m.read(a, bits)
    pos, length = m.read(b, 32) & _U64(0xFF), m.read(c, 32) & _U64(0xFF)
    out = np.zeros_like(x)
    for k in range(bits):                      # bit k of d: bit pos+k of a, or a's sign/zero past its msb
        src = np.minimum(pos + _U64(k), _U64(bits - 1))
        bit = (x >> src) & _U64(1)
        beyond = pos + _U64(k) > _U64(bits - 1)
        if ins.modifiers[0][0] == "u":
            bit = np.where(beyond, _U64(0), bit)
        fill = (x >> _U64(bits - 1)) & _U64(1) if ins.modifiers[0][0] == "s" else _U64(0)
        top = np.minimum(pos + length - _U64(1), _U64(bits - 1)) if ins.modifiers[0][0] == "s" else None
        if top is not None:
            sign = (x >> top) & _U64(1)
            fill = np.where(length == 0, _U64(0), sign)
        bit = np.where(_U64(k) < length, bit, fill)
        out |= bit << _U64(k)
    m.write(d, out, bits, guard)


def _bfi(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    d, a, b, c, e = ins.operands
    x, y = m.read(a, bits), m.read(b, bits)
    pos, length = m.read(c, 32) & _U64(0xFF), m.read(e, 32) & _U64(0xFF)
    out = y.copy()
    for k in range(bits):
        inside = (_U64(k) >= pos) & (_U64(k) < pos + length)
        src = (x >> (_U64(k) - np.minimum(pos, _U64(k)))) & _U64(1)
        out = np.where(inside, (out & ~(_U64(1) << _U64(k))) | (src << _U64(k)), out)
    m.write(d, out, bits, guard)


def _prmt(m: Machine, ins: Instruction, guard) -> None:
    if len(ins.modifiers) != 1:
        raise UnknownInstruction(f"the emulator knows prmt's default mode only: {ins.text}")
    d, a, b, c = ins.operands
    pool = m.read(a, 32) | (m.read(b, 32) << _U64(32))        # bytes 0-3 from a, 4-7 from b
    selector = m.read(c, 32)
    out = np.zeros_like(pool)
    for k in range(4):
        nibble = (selector >> _U64(4 * k)) & _U64(0xF)
        byte = (pool >> (_U64(8) * (nibble & _U64(7)))) & _U64(0xFF)
        sign = np.where((byte >> _U64(7)) & _U64(1) == 1, _U64(0xFF), _U64(0))
        out |= np.where(nibble >= 8, sign, byte) << _U64(8 * k)
    m.write(d, out, 32, guard)


_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
            "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}


def _setp(m: Machine, ins: Instruction, guard) -> None:
    cmp, *rest = ins.modifiers
    if cmp not in _COMPARE or len(rest) != 1 or len(ins.operands) != 3:
        raise UnknownInstruction(f"the emulator does not know {ins.text}")
    bits = _type_bits(rest[0])
    a, b = m.read(ins.operands[1], bits), m.read(ins.operands[2], bits)
    if rest[0][0] == "s":
        a, b = _signed(a, bits), _signed(b, bits)
    m.write(ins.operands[0], _COMPARE[cmp](a, b), 1, guard)


def _selp(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    d, a, b, p = ins.operands
    m.write(d, np.where(m.regs[p][m.lanes], m.read(a, bits), m.read(b, bits)), bits, guard)


def _ld_param(m: Machine, ins: Instruction, guard) -> None:
    name = re.fullmatch(r"\[\s*(\w+)\s*\]", ins.operands[1])
    index = int(name.group(1).rsplit("_", 1)[1]) if name else -1
    if index < 0:
        raise UnknownInstruction(f"parameter {ins.text}")
    m.write(ins.operands[0], np.full(m.lanes.stop - m.lanes.start, (index + 1) * _REGION, _U64), 64, guard)


def _lanes_active(m: Machine, guard) -> np.ndarray:
    n = m.lanes.stop - m.lanes.start
    return np.ones(n, bool) if guard is None else guard


def _global(m: Machine, ins: Instruction, guard, store: bool) -> None:
    bits = _bits(ins)
    width = bits // 8
    addr_op, regs = (ins.operands[0], ins.operands[1]) if store else (ins.operands[1], ins.operands[0])
    regs_list = _vector(regs)
    addr = m.address(addr_op)
    active = _lanes_active(m, guard)
    region, offset = addr // _U64(_REGION), (addr % _U64(_REGION)).astype(np.int64)
    want = 2 if store else 1
    if np.any(active & (region != want)):
        raise UnknownInstruction(f"{ins.text} reaches outside the {'output' if store else 'input'} tensor")
    mem = m.global_mem[want]
    for k, reg in enumerate(regs_list):
        where = offset[active] + k * width
        if np.any(where + width > mem.size) or np.any(where < 0):
            raise UnknownInstruction(f"{ins.text} reaches past the tensor")
        if store:
            value = m.read(reg, bits)[active]
            for j in range(width):
                mem[where + j] = ((value >> _U64(8 * j)) & _U64(0xFF)).astype(np.uint8)
                m.written[where + j] = True
        else:
            value = np.zeros(len(where), _U64)
            for j in range(width):
                value |= mem[where + j].astype(_U64) << _U64(8 * j)
            full = np.zeros(len(active), _U64)
            full[active] = value
            m.write(reg, full, bits, active)


def _shared_address(m: Machine, ins: Instruction, op: str) -> np.ndarray:
    addr = m.address(op).astype(np.int64) - _SHARED_BASE
    return addr


def _record(m: Machine, ins: Instruction, store: bool, addresses: np.ndarray, active: np.ndarray, width: int) -> None:
    lanes = np.where(active, addresses, -1)
    start = m.lanes.start
    for w in range(0, len(lanes), 32):
        m.accesses.append(SharedAccess(ins.text, (start + w) // 32, store, lanes[w:w + 32].copy(), width))


def _store_bytes(m: Machine, ins: Instruction, where: np.ndarray, value: np.ndarray, width: int) -> None:
    if np.any(where < 0) or np.any(where + width > m.shared.size):
        raise UnknownInstruction(f"{ins.text} stores outside the scratch")
    pass_bytes, pass_stored = m.stored_in_pass()
    for j in range(width):
        byte = ((value >> _U64(8 * j)) & _U64(0xFF)).astype(np.uint8)
        at = where + j
        again = pass_stored[at]
        if np.any(pass_bytes[at][again] != byte[again]):
            raise AssertionError(f"{ins.text}: two values stored at one shared byte in one pass")
        order = np.argsort(at, kind="stable")
        same_byte = np.diff(at[order]) == 0
        if np.any(same_byte & (np.diff(byte[order].astype(np.int64)) != 0)):
            raise AssertionError(f"{ins.text}: two lanes store different values at one shared byte")
        m.shared[at] = byte
        pass_bytes[at] = byte
        pass_stored[at] = True


def _load_bytes(m: Machine, ins: Instruction, where: np.ndarray, width: int) -> np.ndarray:
    if np.any(where < 0) or np.any(where + width > m.shared.size):
        raise UnknownInstruction(f"{ins.text} loads outside the scratch")
    value = np.zeros(len(where), _U64)
    for j in range(width):
        value |= m.shared[where + j].astype(_U64) << _U64(8 * j)
    return value


def _shared(m: Machine, ins: Instruction, guard, store: bool) -> None:
    bits = _bits(ins)
    width = bits // 8
    addr_op, regs = (ins.operands[0], ins.operands[1]) if store else (ins.operands[1], ins.operands[0])
    regs_list = _vector(regs)
    addr = _shared_address(m, ins, addr_op)
    active = _lanes_active(m, guard)
    if np.any(addr[active] % (width * len(regs_list))):
        raise UnknownInstruction(f"{ins.text}: a misaligned address")
    _record(m, ins, store, addr, active, width * len(regs_list))
    for k, reg in enumerate(regs_list):
        where = addr[active] + k * width
        if store:
            _store_bytes(m, ins, where, m.read(reg, bits)[active], width)
        else:
            full = np.zeros(len(active), _U64)
            full[active] = _load_bytes(m, ins, where, width)
            m.write(reg, full, bits, active)


def _matrices(ins: Instruction) -> tuple[int, bool]:
    counts = [int(x[1:]) for x in ins.modifiers if re.fullmatch(r"x[124]", x)]
    if len(counts) != 1 or "m8n8" not in ins.modifiers or "b16" not in ins.modifiers:
        raise UnknownInstruction(f"the emulator knows m8n8 .b16 matrices only: {ins.text}")
    return counts[0], "trans" in ins.modifiers


def _matrix(m: Machine, ins: Instruction, guard, store: bool) -> None:
    """ldmatrix / stmatrix on each warp of the current lanes."""
    if guard is not None:
        raise UnknownInstruction(f"a predicated warp-wide matrix instruction: {ins.text}")
    count, trans = _matrices(ins)
    addr_op, regs = (ins.operands[0], ins.operands[1]) if store else (ins.operands[1], ins.operands[0])
    regs_list = _vector(regs)
    if len(regs_list) != count:
        raise UnknownInstruction(f"{ins.text}: {count} matrices need {count} registers")
    addr = _shared_address(m, ins, addr_op)
    supplying = np.arange(len(addr)) % 32 < 8 * count
    if np.any(addr[supplying] % 16):
        raise UnknownInstruction(f"{ins.text}: a row address not 16-byte aligned")
    _record(m, ins, store, addr, supplying, 16)
    lane = np.arange(32)
    loaded = [np.zeros(len(addr), _U64) for _ in regs_list]
    for w in range(0, len(addr), 32):
        rows_of = addr[w:w + 32]
        for i, reg in enumerate(regs_list):
            held = m.read(reg, 32)[w:w + 32] if store else None
            for half in (0, 1):
                row, col = matrix_position(lane, np.full(32, half), trans)
                where = rows_of[row_lane(i, row)] + 2 * col
                if store:
                    _store_bytes(m, ins, where, held >> _U64(16 * half), 2)
                else:
                    loaded[i][w:w + 32] |= (_load_bytes(m, ins, where, 2) & _U64(0xFFFF)) << _U64(16 * half)
    if not store:
        for reg, value in zip(regs_list, loaded):
            m.write(reg, value, 32, None)


def _neg(m: Machine, ins: Instruction, guard) -> None:
    bits = _bits(ins)
    m.write(ins.operands[0], _U64(0) - m.read(ins.operands[1], bits), bits, guard)


def _shfl(m: Machine, ins: Instruction, guard) -> None:
    """shfl.sync (PTX ISA): lane ``j`` by the mode from ``b`` and the clamp/segment mask ``c``; a
    lane whose ``j`` falls outside its segment keeps its own value."""
    mode = [x for x in ins.modifiers if x in ("idx", "bfly", "up", "down")]
    if guard is not None or len(ins.operands) != 5 or "|" in ins.operands[0] or len(mode) != 1:
        raise UnknownInstruction(f"the emulator does not know {ins.text}")
    if np.any(m.read(ins.operands[4], 32) != _U64(0xFFFFFFFF)):
        raise UnknownInstruction(f"shfl with a partial member mask: {ins.text}")
    lane = (np.arange(m.lanes.start, m.lanes.stop) % 32).astype(np.int64)
    a = m.read(ins.operands[1], 32)
    b = (m.read(ins.operands[2], 32) & _U64(31)).astype(np.int64)
    c = m.read(ins.operands[3], 32).astype(np.int64)
    clamp, segmask = c & 31, (c >> 8) & 31
    max_lane, min_lane = (lane & segmask) | (clamp & ~segmask), lane & segmask
    j = {"idx": min_lane | (b & ~segmask), "bfly": lane ^ b, "up": lane - b, "down": lane + b}[mode[0]]
    inside = j >= max_lane if mode[0] == "up" else j <= max_lane
    j = np.where(inside, j, lane)
    m.write(ins.operands[0], a[j], 32, None)


def _warp_barrier(m: Machine, ins: Instruction, guard) -> None:
    """bar.warp.sync with every lane: a warp already runs in lockstep here; it ends the warp's pass."""
    if guard is not None or ins.modifiers != ["warp", "sync"] or ins.operands != ["-1"]:
        raise UnknownInstruction(f"the emulator does not know {ins.text}")
    m.warp_barriers += 1


def _nothing(m: Machine, ins: Instruction, guard) -> None:
    return None


def _memory(m: Machine, ins: Instruction, guard) -> None:
    space = [x for x in ins.modifiers if x in ("global", "shared", "param")]
    if len(space) != 1 or (ins.opcode == "st" and space[0] == "param"):
        raise UnknownInstruction(f"the emulator does not know {ins.text}")
    store = ins.opcode == "st"
    if space[0] == "param":
        _ld_param(m, ins, guard)
    elif space[0] == "global":
        _global(m, ins, guard, store)
    else:
        _shared(m, ins, guard, store)


_HANDLERS: dict[str, Callable[[Machine, Instruction, Any], None]] = {
    **{op: _alu for op in ALU}, "mul": _mul_like, "mad": _mul_like, "shl": _shift, "shr": _shift,
    "not": _not, "mov": _mov, "cvt": _cvt, "cvta": _cvta, "bfe": _bfe, "bfi": _bfi, "prmt": _prmt,
    "setp": _setp, "selp": _selp, "ld": _memory, "st": _memory,
    "ldmatrix": lambda m, i, g: _matrix(m, i, g, False), "stmatrix": lambda m, i, g: _matrix(m, i, g, True),
    "bar": _warp_barrier, "ret": _nothing, "neg": _neg, "shfl": _shfl,
}


def _phases(program: list[Instruction]) -> list[list[Instruction]]:
    phases: list[list[Instruction]] = [[]]
    for ins in program:
        if ins.opcode == "bar" and ins.modifiers == ["warp", "sync"]:
            phases[-1].append(ins)
        elif ins.opcode in ("bar", "barrier"):
            if ins.modifiers[:1] != ["sync"] or ins.guard or ins.operands not in (["0"], []):
                raise UnknownInstruction(f"the emulator knows a CTA-wide bar.sync 0 only: {ins.text}")
            phases.append([])
        elif ins.opcode in ("bra", "call", "exit"):
            raise UnknownInstruction(f"the emulator runs straight-line code only: {ins.text}")
        else:
            phases[-1].append(ins)
    return phases


def _execute(program: list[Instruction], widths: dict[str, int], num_warps: int, values: np.ndarray,
             element_bytes: int) -> Machine:
    m = Machine(widths, num_warps, values, element_bytes)
    for m.phase, phase in enumerate(_phases(program)):
        for warp in range(num_warps):
            m.lanes, m.warp_barriers = slice(32 * warp, 32 * warp + 32), 0
            for ins in phase:
                _step(m, ins)
            m.instructions += len(phase)
    return m


def emulate(ptx: str, shape: tuple[int, int], element_bytes: int, num_warps: int) -> Run:
    """Run the conversion kernel's PTX with element ``i`` (row-major) holding ``i``: as many runs
    as it takes to tell every element apart (run ``k`` holds digit ``k`` of ``i`` in base
    ``2 ** (8 * element_bytes)``), the values each pass left in shared memory combined into each
    element's byte offset. Raises ``AssertionError`` when the layout read is not a function of
    the element (an element stored at two offsets, two values stored at one byte in a pass)."""
    program, widths = parse(ptx)
    size = shape[0] * shape[1]
    index = np.arange(size, dtype=np.int64)
    bits = 8 * element_bytes
    runs = max(1, math.ceil(max(1, (size - 1).bit_length()) / bits))
    machines = [_execute(program, widths, num_warps, (index >> (bits * k)) & ((1 << bits) - 1), element_bytes)
                for k in range(runs)]
    first = machines[0]
    if not first.written.all():
        raise AssertionError("the kernel left part of the output tensor unwritten")
    output = np.zeros(size, np.int64)
    for k, mach in enumerate(machines):
        output |= mach.global_mem[2].view("<u" + str(element_bytes)).astype(np.int64) << (bits * k)
    if not first.passes:
        return Run(output.reshape(shape), None, None, first.accesses, first.instructions, 0)
    byte_offset, rounds, scratch = _layout_read(machines, size, element_bytes)
    return Run(output.reshape(shape), byte_offset.reshape(shape), rounds.reshape(shape), first.accesses,
               first.instructions, scratch)


def _layout_read(machines: list[Machine], size: int, element_bytes: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Each element's (byte offset, pass) from what each pass left in shared memory: the
    ``element_bytes`` bytes at an aligned offset spell one digit of the element's index per run."""
    offset = np.full(size, -1, np.int64)
    rounds = np.full(size, -1, np.int64)
    bits = 8 * element_bytes
    scratch = 0
    for p, key in enumerate(sorted(machines[0].passes)):
        stored = machines[0].passes[key][1]
        slots = np.flatnonzero(stored.reshape(-1, element_bytes).all(axis=1))
        if np.any(stored.reshape(-1, element_bytes).any(axis=1) != stored.reshape(-1, element_bytes).all(axis=1)):
            raise AssertionError(f"pass {p} stored part of an element")
        element = np.zeros(slots.size, np.int64)
        for k, mach in enumerate(machines):
            digit = mach.passes[key][0].view("<u" + str(element_bytes))[slots].astype(np.int64)
            element |= digit << (bits * k)
        if np.any(element >= size) or np.unique(element).size != element.size:
            raise AssertionError(f"pass {p} stored an element at two offsets, or a value that is no element")
        if np.any(offset[element] >= 0):
            raise AssertionError(f"pass {p} stored again elements an earlier pass stored")
        offset[element] = slots * element_bytes
        rounds[element] = p
        if slots.size:
            scratch = max(scratch, int(slots.max() + 1) * element_bytes)
    if np.any(offset < 0):
        raise AssertionError(f"{int(np.sum(offset < 0))} elements never reached shared memory")
    return offset, rounds, scratch


if __name__ == "__main__" and sys.argv[1:] == [_CHILD]:
    _child()
