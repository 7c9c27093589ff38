"""The machine profile: what the copy strategies know about this CPU, and every tuning constant.

A :class:`MachineProfile` holds the CPU's name and SIMD features (read once from llvmlite, the
LLVM numba compiles with), its cache sizes (from Linux's sysfs; defaults elsewhere) and every
threshold and block size by which the strategies of :mod:`.registry` choose, each a named field
with a default. (What stays in the strategy modules are structural constants no machine changes:
the work-item chunk of small-c, the minimum work items of a tile split.)

The active profile is, in order: the one :func:`use_profile` sets for the current thread (or
async task) inside its ``with`` block; the one :func:`set_profile` sets for the process; the file
named by ``$LAYOUTS_PROFILE``; the file ``python -m layouts tune`` saved for this CPU
(:func:`default_path`); the defaults for this CPU (:func:`detect`). ``LAYOUTS_PLAIN_KERNELS=1``
turns the SIMD tiles off whatever the file says.

>>> p = detect()
>>> p.thread_min_bytes > 0 and p.source
'defaults'
>>> q = p.replace(nt_min_bytes=0)
>>> with use_profile(q):
...     current().nt_min_bytes
0
>>> current() is q
False
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import json
import os
import platform
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..errors import LayoutError

__all__ = ["MachineProfile", "detect", "current", "set_profile", "use_profile", "load", "save",
           "default_path"]

#: SIMD features the profile records (llvmlite names), when the CPU has them
FEATURES = ("sse4.2", "avx", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512vbmi", "neon", "sve")


@dataclass(frozen=True)
class MachineProfile:
    """The CPU and the tuning constants of the copy strategies (bytes unless named otherwise).

    Hardware (read by :func:`detect`): ``cpu_name``, ``cpu_features``, ``cpus``, ``l1d_bytes``,
    ``l2_bytes``, ``l3_bytes``. Tuning: the fields below; ``python -m layouts tune`` measures the
    ones marked *tuned* on this machine. ``source`` says where the profile came from.
    """

    cpu_name: str = "generic"
    cpu_features: tuple[str, ...] = ()
    cpus: int = 1
    l1d_bytes: int = 32 << 10
    l2_bytes: int = 1 << 20
    l3_bytes: int = 32 << 20

    #: the LLVM-shuffle tile strategies (False: scalar tiles only; ``LAYOUTS_PLAIN_KERNELS=1``)
    simd: bool = True
    #: strategy names never chosen (tests and ``tune`` turn strategies off by name)
    disabled: tuple[str, ...] = ()
    #: *tuned*: copies smaller than this are one ``np.copyto`` (its call costs less than a kernel's;
    #: ``tune`` on the AVX-512 EPYC: kernels 0.37x at 31 KB, 1.34x at 64 KB)
    small_bytes: int = 64 << 10
    #: *tuned*: copies smaller than this run on one thread. Two ``tune`` runs on the 2-vCPU AVX-512
    #: EPYC, 2 threads / 1 thread: at 1 MB 0.47-0.62x everywhere; at 4 MB 0.72-1.14x; at 8 MB
    #: 0.86-1.47x (the tile transposes still lose there, hence their own 16 MB below)
    thread_min_bytes: int = 8 << 20
    #: *tuned*: per strategy, ``"name=bytes"`` entries that replace ``thread_min_bytes`` for it
    #: (a memory-bound strategy may gain nothing from a second core at any size): the tile
    #: transposes lose below 16 MB; the C=3 (de)interleaves (small-c, staged) already run at
    #: 0.8-1.1 of np.copyto on one thread and lost with a second one on 224x224 images up to
    #: 38.5 MB in bench/run.py (0.71-1.06x; tune's 32x32 images gained from 8 MB): 256 MB
    thread_min_bytes_by_strategy: tuple[str, ...] = ("simd-tiles=16777216", "small-c=268435456", "staged=268435456")
    #: *tuned*: outputs at least this large are written with non-temporal stores (they bypass the
    #: cache: a win once the output cannot stay in it, a loss when it is read back at once);
    #: 8 MB measured on an AVX2 EPYC, 2-4 MB on the AVX-512 one (:func:`detect` picks by features)
    nt_min_bytes: int = 8 << 20
    #: non-temporal stores exist (x86); elsewhere the tile strategies use plain stores
    nt_stores: bool = True
    #: tiles may straddle two dst rows that follow each other, so a 16-byte aligned ``out``
    #: streams as well as a 64-byte aligned one
    straddle: bool = True
    #: dst rows at least this long count as long: blocks of ``block_i_long_bytes`` of i by one tile
    #: column (dst rows written in long runs, the source block re-read from L2)
    long_row_bytes: int = 1024
    block_i_long_bytes: int = 2048
    #: ... but when the src rows are a multiple of 4 KiB apart (CHWN's N rows of C*H*W), they all
    #: fall in the same L1 sets and a one-column block re-reads each line from L2: blocks of this
    #: much of j (256x3x32x32 f32 NCHW->CHWN 0.19 -> 0.55 of np.copyto; NHWC->NCHW, 256-byte src
    #: rows, loses with it: 0.89 -> 0.47)
    block_j_aliased_bytes: int = 1024
    #: long dst rows whose src rows span at most this: blocks of all of j (NCHW16c->NCHW, C=64
    #: NHWC->NCHW in u8/f16), each source line read once per tile row
    block_j_long_bytes: int = 128
    #: short dst rows: all of i by this much of j per block (few source streams)
    block_j_short_bytes: int = 8192
    #: in-cache copies whose source rows share L1 sets (fewer stay cached than a full tile has
    #: rows) into dst rows that follow each other use narrower tiles: 8x64x32x32 NCHW->NHWC
    #: 0.29 -> 0.41-0.49 of np.copyto (f32), 0.22 -> 0.36 (f16); 256x3x32x32 NCHW->CHWN f16
    #: 0.24 -> 0.33. Into far-apart dst rows (NHWC->CHWN) narrow stores lost (0.25 -> 0.12)
    narrow_when_aliased: bool = True
    #: the scalar-tile strategy's (i, j) block in bytes of i and j
    plain_block_bytes: int = 256
    #: small channel counts on the strided side: pixels staged per chunk (cache-resident scratch)
    stage_bytes: int = 4 << 20
    #: *tuned*: word-grouped uint8/uint16 transposes only for outputs at least this large: below,
    #: the extra pass loses (64x3x224x224 u8 NCHW->CHWN at 9.6 MB: 0.51 -> 0.35 of np.copyto on an
    #: AVX2 EPYC, 0.62 -> 0.42 on the AVX-512 one; 32x64x56x56 NCHW->NHWC at 6.4 MB 0.75 -> 0.57)
    group_min_bytes: int = 24 << 20
    #: ... or this large when the source rows are a multiple of 4 KiB apart (HW = 64x64 planes,
    #: CHWN's N rows): byte tiles then re-read every line from L2 and grouping wins early
    #: (16x64x64x64 u8 NCHW->NHWC at 4 MB: 0.20 -> 0.34 of np.copyto)
    group_aliased_min_bytes: int = 1 << 20
    #: ... and chunked axes at least this long
    group_min_cols: int = 2048
    #: ... with a word scratch of this size per chunk (L2-resident)
    group_scratch_bytes: int = 512 << 10
    #: the edges of a single transpose (no batch axes) are copied by ``np.copyto`` of strided views
    #: when there are at most this many rectangles ...
    edge_max_calls: int = 64
    #: ... holding at most 1/edge_max_fraction of the elements; otherwise (and with batch axes, per
    #: batch index while its rows are in cache) by the tile kernel itself
    edge_max_fraction: int = 64

    #: in place (:mod:`layouts.inplace_methods`): the scratch floor a small tensor may use
    inplace_min_budget: int = 64 << 10
    #: the shortest element cycle-following moves (a shorter one needs too large a visited bitset)
    inplace_chunk_min: int = 16
    #: bytes of the budget kept for the call's Python objects (at most an eighth of it)
    inplace_slack: int = 8 << 10
    #: bytes a worker's scratch adds for alignment
    inplace_pad: int = 192
    #: merged dims up to which the order of passes is searched exhaustively (greedy above)
    inplace_search_max_dims: int = 6
    #: estimated costs, in thousandths of a memcpy of the tensor: a scratch pass, a square swap,
    #: a CKG pass, a scratch reorder of three or more runs
    inplace_cost_scratch: int = 2500
    inplace_cost_square: int = 2000
    inplace_cost_ckg: int = 8000
    inplace_cost_reorder: int = 3000
    #: cycle-following, by chunk length: from 4 KiB, 2 KiB, 1 KiB, 256 bytes, and shorter
    inplace_chunk_cost_4k: int = 1100
    inplace_chunk_cost_2k: int = 1200
    inplace_chunk_cost_1k: int = 1500
    inplace_chunk_cost_256: int = 2400
    inplace_chunk_cost_short: int = 3500
    #: added to a reorder whose rows lie a multiple of 4 KiB (2 KiB) apart: they share cache sets
    inplace_alias_penalty_4k: int = 1000
    inplace_alias_penalty_2k: int = 300
    #: files (:mod:`layouts.chunked`): a dense source tile is read through a memory map, not preadv
    file_map_source: bool = True
    #: destination tile buffers of convert_file: 2 writes one tile in a thread while the next converts
    file_write_buffers: int = 1

    source: str = field(default="defaults", compare=False)

    def __post_init__(self) -> None:
        _checked(self)

    def replace(self, **changes: Any) -> "MachineProfile":
        """A copy with ``changes``; unknown names are refused with the list of fields."""
        names = {f.name for f in dataclasses.fields(self)}
        bad = sorted(set(changes) - names)
        if bad:
            raise LayoutError(f"MachineProfile has no field {', '.join(bad)}; fields: {', '.join(sorted(names))}")
        return dataclasses.replace(self, **changes)

    def thread_min(self, strategy: str) -> int:
        """The size from which ``strategy`` runs on more than one thread."""
        for entry in self.thread_min_bytes_by_strategy:
            name, _, value = entry.partition("=")
            if name == strategy:
                return int(value)
        return self.thread_min_bytes

    @property
    def machine_key(self) -> str:
        """What must match for a saved profile to apply: CPU name, features and CPU count."""
        return f"{self.cpu_name}|{'+'.join(self.cpu_features)}|{self.cpus}"

    def tuning(self) -> dict[str, Any]:
        """The tuning fields and their values (what :func:`save` writes besides the machine)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in HARDWARE and f.name != "source"}


#: the fields that describe the machine (not tuning: a saved profile's tuning table may not set them)
HARDWARE = ("cpu_name", "cpu_features", "cpus", "l1d_bytes", "l2_bytes", "l3_bytes")


def _checked(p: MachineProfile) -> MachineProfile:
    """``p`` if every field has its type (ints in [0, 2**62], names known), else a LayoutError
    naming the field."""
    for f in dataclasses.fields(p):
        v = getattr(p, f.name)
        if f.type == "int" and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 1 << 62):
            raise LayoutError(f"profile field {f.name} must be an int in [0, 2**62], got {v!r}")
        if f.type == "bool" and not isinstance(v, bool):
            raise LayoutError(f"profile field {f.name} must be True or False, got {v!r}")
        if f.type == "str" and not isinstance(v, str):
            raise LayoutError(f"profile field {f.name} must be a string, got {v!r}")
        if f.type.startswith("tuple") and (not isinstance(v, tuple) or not all(isinstance(s, str) for s in v)):
            raise LayoutError(f"profile field {f.name} must be a tuple of names, got {v!r}")
    if p.cpus < 1:
        raise LayoutError(f"profile field cpus must be >= 1, got {p.cpus}")
    from .registry import STRATEGIES          # (the registry does not import this module)
    names = {s.name for s in STRATEGIES}
    for name in p.disabled:
        if name not in names:
            raise LayoutError(f"profile field disabled names {name!r}, not a strategy; strategies: "
                              f"{', '.join(sorted(names))}")
    for entry in p.thread_min_bytes_by_strategy:
        name, sep, value = entry.partition("=")
        if not sep or not value.isascii() or not value.isdigit() or len(value) > 18:
            raise LayoutError(f"profile field thread_min_bytes_by_strategy holds {entry!r}; expected 'strategy=bytes'")
        if name not in names:
            raise LayoutError(f"profile field thread_min_bytes_by_strategy names {name!r}, not a strategy; "
                              f"strategies: {', '.join(sorted(names))}")
    return p


def _cache_sizes() -> dict[str, int]:
    """L1d / L2 / L3 sizes of CPU 0 from Linux sysfs; {} elsewhere."""
    out = {}
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    try:
        for d in sorted(base.glob("index*")):
            level = (d / "level").read_text().strip()
            kind = (d / "type").read_text().strip()
            size = (d / "size").read_text().strip().upper()
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
            n = int(size.rstrip("KMG")) * mult
            if level == "1" and kind in ("Data", "Unified"):
                out["l1d_bytes"] = n
            elif level in ("2", "3"):
                out[f"l{level}_bytes"] = n
    except (OSError, ValueError):
        return {}
    return out


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def detect() -> MachineProfile:
    """This machine's hardware fields (llvmlite's host CPU name and features, sysfs caches) and
    the default tuning for it."""
    try:
        import llvmlite.binding as llvm
        name = llvm.get_host_cpu_name()
        flat = llvm.get_host_cpu_features().flatten()
        have = {f[1:] for f in flat.split(",") if f.startswith("+")}
    except Exception:  # noqa: BLE001 - an exotic llvmlite: a generic profile still works
        name, have = "generic", set()
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")
    hw = dict(cpu_name=str(name), cpu_features=tuple(f for f in FEATURES if f in have), cpus=_cpus(),
              **_cache_sizes())
    by_features = {}
    if "avx512bw" in hw["cpu_features"]:     # measured with `tune` on a 2-vCPU AVX-512 EPYC (znver4)
        by_features = dict(nt_min_bytes=4 << 20)
    return MachineProfile(**hw, simd=not _env_plain(), nt_stores=x86, **by_features)


def _env_plain() -> bool:
    """``LAYOUTS_PLAIN_KERNELS=1``: the scalar tiles only (the SIMD tiles off)."""
    return os.environ.get("LAYOUTS_PLAIN_KERNELS", "0") not in ("", "0")


def default_path() -> Path:
    """Where ``python -m layouts tune`` saves this user's profile (``$XDG_CACHE_HOME/layouts``)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "layouts" / "profile.json"


def save(profile: MachineProfile, path: str | os.PathLike, measured: dict | None = None) -> Path:
    """Write ``profile`` as JSON (machine, tuning and what ``tune`` measured) to ``path``."""
    if not isinstance(profile, MachineProfile):
        raise LayoutError(f"save takes a MachineProfile, got {type(profile).__name__}")
    path = Path(path)
    if str(path) in ("", ".") or path.is_dir():
        raise LayoutError(f"cannot save the profile to {str(path)!r}: it is a folder; name a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"format": 1, "machine": profile.machine_key,
           "hardware": {k: getattr(profile, k) for k in HARDWARE},
           "tuning": {k: list(v) if isinstance(v, tuple) else v for k, v in profile.tuning().items()},
           "measured": measured or {}}
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(doc, indent=1))
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def load(path: str | os.PathLike, *, any_machine: bool = False) -> MachineProfile:
    """The profile saved at ``path`` on top of this machine's defaults.

    A profile saved on another CPU is refused unless ``any_machine`` (a test can pass a profile
    explicitly); unknown or mistyped tuning fields are refused by name."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as err:
        raise LayoutError(f"cannot read the profile {path}: {type(err).__name__}: {str(err)[:200]}") from None
    if not isinstance(doc, dict) or doc.get("format") != 1 or not isinstance(doc.get("tuning"), dict):
        raise LayoutError(f"{path} is not a layouts profile (expected format 1 with a 'tuning' table)")
    here = detect()
    if not any_machine and doc.get("machine") != here.machine_key:
        raise LayoutError(f"the profile {path} was measured on {doc.get('machine')!r}, this machine is "
                          f"{here.machine_key!r}; run `python -m layouts tune` here")
    tuning = {k: tuple(v) if isinstance(v, list) else v for k, v in doc["tuning"].items()}
    bad = sorted(k for k in tuning if k in HARDWARE or k == "source")
    if bad:
        raise LayoutError(f"the profile {path} sets {', '.join(bad)} in its tuning table; those describe the "
                          "machine and are read from it")
    p = here.replace(**tuning, source=str(path))
    return p.replace(simd=False) if _env_plain() else p


_lock = threading.Lock()
_active: MachineProfile | None = None
#: the profile of a ``with use_profile(p):`` block, per thread and async task
_override: contextvars.ContextVar[MachineProfile | None] = contextvars.ContextVar("layouts_profile", default=None)


def _from_files() -> MachineProfile:
    env = os.environ.get("LAYOUTS_PROFILE")
    if env:
        return load(env)
    path = default_path()
    if path.is_file():
        try:
            return load(path)
        except LayoutError:  # another machine's (or a broken) file: the defaults, as `explain-copy` says
            pass
    return detect()


def current() -> MachineProfile:
    """The active profile (see the module doc for the order; the files are read once per process)."""
    p = _override.get()
    if p is not None:
        return p
    global _active
    p = _active
    if p is None:
        with _lock:
            if _active is None:
                _active = _from_files()
            p = _active
    return p


def _checked_arg(profile: object, what: str) -> MachineProfile:
    if not isinstance(profile, MachineProfile):
        raise LayoutError(f"{what} takes a MachineProfile, got {type(profile).__name__}")
    return profile


def set_profile(profile: MachineProfile | None) -> None:
    """Make ``profile`` the process's profile for every later copy (None: read the files again).
    A :func:`use_profile` block of a thread still wins inside that block."""
    global _active
    if profile is not None:
        _checked_arg(profile, "set_profile")
    with _lock:
        _active = profile


@contextlib.contextmanager
def use_profile(profile: MachineProfile) -> Iterator[MachineProfile]:
    """``with use_profile(p):`` copies made by this thread (or async task) inside the block use
    ``p``; other threads keep theirs, and the block's end restores this thread's previous one.
    Copies a strategy hands to the kernel threads use the profile their caller had."""
    token = _override.set(_checked_arg(profile, "use_profile"))
    try:
        yield profile
    finally:
        _override.reset(token)
