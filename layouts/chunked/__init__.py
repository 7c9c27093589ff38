"""Larger than memory and beyond one machine: ``.npy`` files, dask arrays, zarr stores.

* :func:`convert_file`: a ``.npy`` file to another, in a new layout, in bounded memory,
  crash-safe (temporary file + atomic rename), with a progress bar on long work.
* ``layouts.convert(d, src, dst)`` with a ``dask.array.Array`` ``d`` returns a lazy dask array
  in ``dst``'s layout, chunks planned for it (:func:`layouts.chunked.dask.convert_dask`); zarr
  stores go through dask (``da.from_zarr`` / ``.to_zarr``).

Both cut the conversion into boxes that are whole blocks of both layouts (:mod:`._boxes`)
and run the in-memory plans and numba kernels on each. Importing this package imports only
numpy; dask, distributed, zarr and tqdm load inside the functions that use them.
"""

from .budget import parse_memory
from .npy import convert_file
from .recover import recover

__all__ = ["convert_file", "parse_memory", "recover"]
