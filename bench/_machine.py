"""What machine and software a benchmark ran on: CPU model, SIMD features, caches, versions.

>>> info = machine_info()
>>> sorted(info)[:3]
['cache', 'cores', 'cpu_model']
"""

import os
import platform

__all__ = ["machine_info", "describe"]

SIMD = ("avx2", "avx512f", "avx512bw", "avx512vbmi")


def _cpuinfo():
    model, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k == "model name" and model is None:
                    model = v.strip()
                elif k in ("flags", "Features") and not flags:
                    flags = set(v.split())
    except OSError:
        pass
    return model or platform.processor() or "?", flags


def _caches():
    out = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in sorted(os.listdir(base)):
            if not d.startswith("index"):
                continue
            rd = lambda n: open(os.path.join(base, d, n)).read().strip()
            typ = rd("type")
            if typ != "Instruction":
                out[f"L{rd('level')}"] = rd("size")
    except OSError:
        pass
    return out


def _version(mod):
    try:
        return __import__(mod).__version__
    except Exception:
        return None


def machine_info():
    """A dict: cpu_model, /proc/cpuinfo SIMD flags, llvmlite's host CPU and features, caches,
    cores, and the versions of python/numpy/numba/llvmlite/torch/cv2."""
    model, flags = _cpuinfo()
    info = dict(cpu_model=model, cores=os.cpu_count(), cache=_caches(),
                cpuinfo_flags={f: f in flags for f in SIMD})
    try:
        import llvmlite.binding as llb
        info["llvm_host_cpu"] = llb.get_host_cpu_name()
        feats = llb.get_host_cpu_features()
        info["llvm_features"] = {f: bool(feats.get(f, False)) for f in SIMD}
    except Exception as e:          # llvmlite missing or too old: say so
        info["llvm_host_cpu"] = f"? ({type(e).__name__})"
    info["versions"] = {m: _version(m) for m in ("numpy", "numba", "llvmlite", "torch", "cv2")}
    info["versions"]["python"] = platform.python_version()
    return info


def describe(info):
    """Markdown lines for the top of the benchmark output."""
    flags = " ".join(f for f, on in info["cpuinfo_flags"].items() if on) or "none of " + "/".join(SIMD)
    llf = " ".join(f for f, on in info.get("llvm_features", {}).items() if on)
    cache = ", ".join(f"{k} {v}" for k, v in info["cache"].items())
    vers = ", ".join(f"{k} {v}" for k, v in info["versions"].items() if v)
    return [f"- CPU: {info['cpu_model']}, {info['cores']} cores seen, caches {cache or '?'}",
            f"- SIMD (/proc/cpuinfo): {flags}; llvmlite host CPU {info['llvm_host_cpu']} ({llf})",
            f"- versions: {vers}"]


def set_profile_fields(text):
    """Run under the current profile with some fields changed: ``"recent_write_us=0,nt_min_bytes=4194304"``
    (ints; what a benchmark compares one store policy against another with)."""
    if not text:
        return
    from layouts.kernels.machine import profile
    fields = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        fields[name.strip()] = int(value)
    profile.set_profile(profile.current().replace(**fields))
