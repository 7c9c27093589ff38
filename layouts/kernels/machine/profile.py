"""The machine profile: what the copy strategies know about this CPU, and every tuning constant.

A :class:`MachineProfile` holds the CPU's name and SIMD features (read once from llvmlite, the
LLVM numba compiles with), its cache sizes (from Linux's sysfs; defaults elsewhere) and every
threshold and block size by which the strategies of :mod:`.registry` choose, each a named field
with a default. (What stays in the strategy modules are structural constants no machine changes:
the work-item chunk of small-c, the minimum work items of a tile split.)

The active profile is, in order: the one :func:`use_profile` sets for the current thread (or
async task) inside its ``with`` block; the one :func:`set_profile` sets for the process; the file
named by ``$LAYOUTS_PROFILE`` (or the reference machine it names, :mod:`.machines`); the file
``python -m layouts tune`` saved for this CPU
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
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ...errors import LayoutError, LayoutWarning
from .machines import REFERENCES

__all__ = ["MachineProfile", "detect", "reference", "current", "set_profile", "use_profile", "load", "save",
           "default_path"]

#: SIMD features the profile records (llvmlite names), when the CPU has them
FEATURES = ("sse4.2", "avx", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512vbmi", "neon", "sve")


@dataclass(frozen=True)
class MachineProfile:
    """The CPU and the tuning constants of the copy strategies (bytes unless named otherwise).

    Hardware (read by :func:`detect`): ``cpu_name``, ``cpu_features``, ``cpus``, the L1d and L2
    geometry (``l1d_bytes``, ``l1d_ways``, ``l1d_line_bytes``, ``l2_*``) and ``l3_bytes``. Tuning: the fields below; ``python -m layouts tune`` measures the
    ones marked *tuned* on this machine. ``source`` says where the profile came from.
    """

    cpu_name: str = "generic"
    cpu_features: tuple[str, ...] = ()
    cpus: int = 1
    l1d_bytes: int = 32 << 10
    #: L1d associativity and line size: which source rows share cache sets depends on both
    l1d_ways: int = 8
    l1d_line_bytes: int = 64
    l2_bytes: int = 1 << 20
    l2_ways: int = 16
    l2_line_bytes: int = 64
    l3_bytes: int = 32 << 20

    #: the LLVM-shuffle tile strategies (False: scalar tiles only; ``LAYOUTS_PLAIN_KERNELS=1``)
    simd: bool = True
    #: strategy names never chosen (tests and ``tune`` turn strategies off by name)
    disabled: tuple[str, ...] = ()
    #: *tuned*: copies smaller than this are one ``np.copyto``, whose call costs less than a kernel's
    small_bytes: int = 64 << 10
    #: *tuned*: ... except when np.copyto would loop over at least this many rows of 2 to 4
    #: elements (dst's last axis, strided in src: one RGB image NCHW->NHWC), each a loop of its own
    small_short_rows: int = 4096
    #: *tuned*: ... or would move at least this many units one at a time through a stride (a
    #: transpose with long rows: numpy's cost is per unit, so 64 KiB of uint8 cost it 4x float32's)
    small_units: int = 16 << 10
    #: *tuned*: copies smaller than this run on one thread: below, starting and splitting cost a
    #: second thread more than it gains on a memory-bound copy
    thread_min_bytes: int = 8 << 20
    #: *tuned*: per strategy, ``"name=bytes"`` entries that replace ``thread_min_bytes`` for it:
    #: the tile transposes gain from a second thread only later, and the C=3 (de)interleaves
    #: (small-c, staged) already run near np.copyto on one thread, so they stay there
    thread_min_bytes_by_strategy: tuple[str, ...] = ("simd-tiles=16777216", "small-c=268435456", "staged=268435456")
    #: *tuned*: outputs at least this large are written with non-temporal stores, which bypass the
    #: cache: a win once the output cannot stay in it, a loss when it is read back at once
    #: (:func:`defaults_for` lowers it where AVX-512 stores are measured to win earlier)
    nt_min_bytes: int = 8 << 20
    #: smaller outputs, from this size, are written with non-temporal stores too when this process
    #: has not written them within ``recent_write_us``: after other work they are out of the cache,
    #: and plain stores would read each line first (:mod:`.recency`; :func:`defaults_for` sets a
    #: quarter of the L2; ``nt_min_bytes`` or more: never)
    cold_nt_min_bytes: int = 512 << 10
    #: ... an output written this recently (microseconds) is judged still cached: plain stores
    recent_write_us: int = 1000
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
    #: much of j, so each source line is used up while it is cached
    block_j_aliased_bytes: int = 1024
    #: long dst rows whose src rows span at most this: blocks of all of j (NCHW16c->NCHW, C=64
    #: NHWC->NCHW in u8/f16), each source line read once per tile row
    block_j_long_bytes: int = 128
    #: the same for tiles with plain stores (a copy whose output stays in cache): measured apart,
    #: with outputs not in cache when the copy starts, where one line into each of many dst rows
    #: a step (all of j) write-allocates lines the prefetcher does not see coming
    block_j_plain_bytes: int = 128
    #: short dst rows: all of i by this much of j per block (few source streams)
    block_j_short_bytes: int = 8192
    #: in-cache copies whose source rows share L1 sets (fewer stay cached than a full tile has
    #: rows, by the L1 geometry) into dst rows that follow each other use narrower tiles; into
    #: far-apart dst rows (NHWC->CHWN) narrow stores lose, so the rule stays off there. *tuned*;
    #: :func:`defaults_for` turns it off for L1s of 12 ways, where `tune` found full tiles faster
    narrow_when_aliased: bool = True
    #: 4- and 8-byte transposes take tiles of whole source lines (:mod:`.wide`, where
    #: :func:`.geometry.widened` says): fewer loads a line; :func:`defaults_for` turns it on with
    #: AVX-512, whose 32 vector registers hold a pair of tiles (32 lines)
    wide_tiles: bool = False
    #: dst rows of one or two tile groups that follow each other (NCHW16c in uint8 or float16,
    #: NCHW8c in float32) take tiles of whole 64-byte lines (:func:`.geometry.line_tiling`); off:
    #: the one- and two-group tiles
    line_tiles: bool = True
    #: non-temporal tiles of small transposes (one cache block a batch index) take consecutive
    #: batch indices in groups of about this many bytes, read row by row through the group; 0: never
    batch_group_bytes: int = 1 << 20
    #: ... when at least this many fit in a group (larger transposes stream long rows already)
    batch_group_min: int = 8
    #: rows shorter than a tile (``short-rows``, NHWC<->CHWN with C=3) may walk the group's long row
    #: in blocks, the tile rows (scatter) or columns (gather) of a block one after another, so that
    #: fewer rows stream at once: a block holds this many bytes in L1 (the gather's source lines,
    #: the scatter's dst row offsets); 0: one tile a block, every row streaming side by side.
    #: Which wins depends on the core, so the planner measures both (:mod:`.wisdom`)
    short_rows_block_bytes: int = 0
    #: the scalar-tile strategy's (i, j) block in bytes of i and j
    plain_block_bytes: int = 256
    #: small channel counts on the strided side: pixels staged per chunk (cache-resident scratch)
    stage_bytes: int = 4 << 20
    #: *tuned*: OpenCV blobs (:func:`~layouts.interop.opencv.blob_from_images`): outputs smaller than this
    #: are made on one thread (the fused pass moves memory faster than a second, busy core helps)
    blob_thread_min_bytes: int = 16 << 20
    #: *tuned*: ... above it threads take row chunks of this many output bytes from a shared counter
    blob_chunk_bytes: int = 256 << 10
    #: ... and only as many threads as there are cores no other task runs on (``/proc/loadavg``)
    blob_load_aware: bool = True
    #: *tuned*: word-grouped uint8/uint16 transposes only for outputs at least this large: below,
    #: the extra pass through a word scratch costs more than the shorter tiles save
    group_min_bytes: int = 24 << 20
    #: ... or this large when the source rows are a multiple of 4 KiB apart (64x64 planes, CHWN's
    #: N rows): byte tiles then re-read every line from L2 and grouping wins early
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
    #: copies at least this large, of a shape not measured before, are timed in the few ways the
    #: rules could take and the fastest kept (:mod:`.wisdom`); 0 measures nothing (deterministic)
    measure_min_bytes: int = 32 << 20

    #: in place (:mod:`layouts.inplace.methods`): the scratch floor a small tensor may use
    inplace_min_budget: int = 64 << 10
    #: the shortest element cycle-following moves (a shorter one needs too large a visited bitset)
    inplace_chunk_min: int = 16
    #: bytes of the budget kept for the call's Python objects (at most an eighth of it)
    inplace_slack: int = 8 << 10
    #: bytes a worker's scratch adds for alignment
    inplace_pad: int = 192
    #: merged dims up to which the order of passes is searched exhaustively (greedy above)
    inplace_search_max_dims: int = 6
    #: *tuned*: costs, in thousandths of a memcpy of the tensor: a scratch pass, a square swap,
    #: a CKG pass, a scratch reorder of three or more runs
    inplace_cost_scratch: int = 2500
    inplace_cost_square: int = 2000
    inplace_cost_ckg: int = 8000
    inplace_cost_reorder: int = 3000
    #: *tuned*: cycle-following, by chunk length: from 4 KiB, 2 KiB, 1 KiB, 256 bytes, and shorter
    inplace_chunk_cost_4k: int = 1100
    inplace_chunk_cost_2k: int = 1200
    inplace_chunk_cost_1k: int = 1500
    inplace_chunk_cost_256: int = 2400
    inplace_chunk_cost_short: int = 3500
    #: *tuned*: added to a reorder whose rows lie a multiple of 4 KiB (2 KiB) apart: they share cache sets
    inplace_alias_penalty_4k: int = 1000
    inplace_alias_penalty_2k: int = 300
    #: files (:mod:`layouts.chunked`): a dense source tile is read through a memory map, not preadv
    file_map_source: bool = True
    #: destination tile buffers of convert_file: 2 writes one tile in a thread while the next
    #: converts (the default where there are 2 CPUs or more: with the writer kept off the
    #: converting thread's CPU it won every round with fsync, to NHWC and to CHWN)
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
HARDWARE = ("cpu_name", "cpu_features", "cpus", "l1d_bytes", "l1d_ways", "l1d_line_bytes", "l2_bytes",
            "l2_ways", "l2_line_bytes", "l3_bytes")


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
    for name in ("cpus", "l1d_bytes", "l1d_ways", "l1d_line_bytes", "l2_bytes", "l2_ways", "l2_line_bytes"):
        if getattr(p, name) < 1:
            raise LayoutError(f"profile field {name} must be >= 1, got {getattr(p, name)}")
    from ..registry import STRATEGIES          # (the registry does not import this module)
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


def _cache_geometry(base: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> dict[str, int]:
    """Size, ways and line of CPU 0's L1d and L2, and the L3 size, from Linux sysfs; {} elsewhere.

    A level whose files are missing or unreadable keeps the defaults (a VM may hide some)."""
    out: dict[str, int] = {}
    try:
        dirs = sorted(base.glob("index*"))
    except OSError:
        return out
    for d in dirs:
        try:
            level = (d / "level").read_text().strip()
            kind = (d / "type").read_text().strip()
            size = (d / "size").read_text().strip().upper()
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
            n = int(size.rstrip("KMG")) * mult
        except (OSError, ValueError):
            continue
        if level == "1" and kind in ("Data", "Unified"):
            prefix = "l1d"
        elif level == "2" and kind in ("Data", "Unified"):
            prefix = "l2"
        elif level == "3":
            out["l3_bytes"] = n
            continue
        else:
            continue
        out[f"{prefix}_bytes"] = n
        for name, file in (("ways", "ways_of_associativity"), ("line_bytes", "coherency_line_size")):
            try:
                value = int((d / file).read_text().strip())
            except (OSError, ValueError):
                continue
            if value > 0:        # 0 ways means fully associative or unknown: keep the default
                out[f"{prefix}_{name}"] = value
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
              **_cache_geometry())
    return defaults_for(hw, x86=x86)


def defaults_for(hardware: dict, *, x86: bool, source: str = "defaults") -> MachineProfile:
    """The default tuning for a machine with these :data:`HARDWARE` fields (where measurements
    on the project's machines differ by CPU feature, the feature decides)."""
    by_machine = {"cold_nt_min_bytes": hardware.get("l2_bytes", MachineProfile.l2_bytes) // 4}
    if "avx512bw" in hardware.get("cpu_features", ()):   # `tune` on an AVX-512 EPYC: NT stores win earlier
        by_machine["nt_min_bytes"] = 4 << 20
    if "avx512f" in hardware.get("cpu_features", ()):       # measured on a Xeon: the design notes
        by_machine["wide_tiles"] = True
    if hardware.get("l1d_ways", MachineProfile.l1d_ways) >= 12:   # `tune` on a Zen 5 and a Xeon: full tiles win
        by_machine["narrow_when_aliased"] = False
    if hardware.get("cpus", 1) >= 2:                      # a second CPU for convert_file's writes
        by_machine["file_write_buffers"] = 2
    return MachineProfile(**hardware, simd=not _env_plain(), nt_stores=x86, source=source, **by_machine)


def reference(kind: str) -> MachineProfile:
    """The default profile of the reference machine ``kind`` (one of
    :data:`~layouts.kernels.machine.machines.REFERENCES`), with the tuning :func:`detect` would choose on
    it, and no measuring (:mod:`.wisdom`): tests pin one instead of reading the host."""
    if not isinstance(kind, str) or kind not in REFERENCES:
        raise LayoutError(f"no reference machine {kind!r}; kinds: {', '.join(REFERENCES)}")
    return defaults_for(REFERENCES[kind], x86=True, source=f"reference:{kind}").replace(measure_min_bytes=0)


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
        try:
            tmp.unlink(missing_ok=True)
        except OSError:         # a folder this account cannot look into: the error above says why
            pass
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
        return reference(env) if env in REFERENCES else load(env)
    path = default_path()
    try:
        saved = path.is_file()
    except OSError as err:  # a home this account cannot read (another user's, HOME=/): no profile
        warnings.warn(f"the machine profile {path} cannot be read ({err.strerror or err}); this CPU's defaults "
                      f"are used (LAYOUTS_PROFILE names another file)", LayoutWarning, stacklevel=3)
        saved = False
    if saved:
        try:
            return load(path)
        except LayoutError:  # another machine's (or a broken, or unreadable) file: the defaults, as `explain-copy` says
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
