"""The values of CUTLASS's atom traits (``include/cute/atom/*_traits_sm*.hpp``), as data.

Each module holds one family's facts -- the shapes and strides CUTLASS writes in its headers --
and :mod:`layouts.cute.atoms` turns them into :class:`~layouts.cute.atoms.MMAAtom` and
:class:`~layouts.cute.atoms.CopyAtom` objects. A layout is written ``(shape, stride)``.

- :mod:`.mma_sync`: warp-level ``mma.sync`` atoms of SM70, SM75, SM80, SM89, SM90 and SM120;
- :mod:`.wgmma`: SM90's warpgroup ``wgmma.mma_async`` atoms (a family over N and operand types);
- :mod:`.umma`: SM100's ``tcgen05.mma`` atoms (a family over M, N and the CTA pair);
- :mod:`.copies`: ``ldmatrix``/``stmatrix``/``movmatrix``, TMEM loads and stores, ``tcgen05.cp``,
  ``cp.async`` and SM100's 256-bit loads;
- :mod:`.tma`: the shared-memory swizzle modes of TMA and of the GMMA/UMMA descriptors.
"""
