"""Reference machines: the CPU kinds this project is built and tested on, as machine profiles.

A test that checks which strategy or tile a copy takes pins one of these instead of reading the
host, so it passes on every CPU; ``LAYOUTS_PROFILE=<kind>`` (or ``explain-copy --profile <kind>``)
plans as if on that machine, which answers "what would run there" from any computer. Only the
planning changes: the kernels are compiled for the host either way, so results are the same bytes.

=================  ====================  ===========================  ===========  ======
kind               CPU (llvmlite name)   SIMD                         L1d          L2
=================  ====================  ===========================  ===========  ======
``epyc-avx512``    AMD EPYC (znver4)     AVX-512 (f, bw, vl, vbmi)    32 KiB 8-way 1 MiB
``xeon-avx512``    Intel Xeon            AVX-512 (f, bw, vl, vbmi)    48 KiB       2 MiB
                   (emeraldrapids)                                    12-way
``epyc-avx2``      AMD EPYC (znver3)     AVX2                         32 KiB 8-way 512 KiB
``epyc-zen5``      AMD EPYC (znver5)     AVX-512 (f, bw, vl, vbmi)    48 KiB       1 MiB
                                                                      12-way
=================  ====================  ===========================  ===========  ======

This module is the table; :func:`layouts.kernels.machine.profile.reference` builds the profile.

>>> from layouts.kernels.machine.profile import reference
>>> p = reference("xeon-avx512")
>>> (p.l1d_bytes >> 10, p.l1d_ways, p.nt_min_bytes >> 20, p.source)
(48, 12, 4, 'reference:xeon-avx512')
>>> reference("epyc-avx2").nt_min_bytes >> 20
8
"""

from __future__ import annotations

__all__ = ["REFERENCES"]

_AVX512 = ("sse4.2", "avx", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512vbmi")

#: kind -> the hardware fields of a :class:`~layouts.kernels.machine.profile.MachineProfile` (2 CPUs, as
#: the project's machines have)
REFERENCES: dict[str, dict] = {
    "epyc-avx512": dict(cpu_name="znver4", cpu_features=_AVX512, cpus=2,
                        l1d_bytes=32 << 10, l1d_ways=8, l1d_line_bytes=64,
                        l2_bytes=1 << 20, l2_ways=8, l2_line_bytes=64, l3_bytes=32 << 20),
    "xeon-avx512": dict(cpu_name="emeraldrapids", cpu_features=_AVX512, cpus=2,
                        l1d_bytes=48 << 10, l1d_ways=12, l1d_line_bytes=64,
                        l2_bytes=2 << 20, l2_ways=16, l2_line_bytes=64, l3_bytes=300 << 20),
    "epyc-avx2": dict(cpu_name="znver3", cpu_features=("sse4.2", "avx", "avx2"), cpus=2,
                      l1d_bytes=32 << 10, l1d_ways=8, l1d_line_bytes=64,
                      l2_bytes=512 << 10, l2_ways=8, l2_line_bytes=64, l3_bytes=32 << 20),
    # Zen 5: the Xeon's L1d geometry with the EPYC's L2, so the two caches' rules part ways here
    "epyc-zen5": dict(cpu_name="znver5", cpu_features=_AVX512, cpus=2,
                      l1d_bytes=48 << 10, l1d_ways=12, l1d_line_bytes=64,
                      l2_bytes=1 << 20, l2_ways=16, l2_line_bytes=64, l3_bytes=32 << 20),
}

