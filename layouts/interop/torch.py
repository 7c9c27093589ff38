"""The old name of :mod:`layouts.interop.pytorch`, kept importable.

``from layouts.interop import torch`` binds the name ``torch`` to this module and hides the real
``torch`` in the caller's namespace; import ``layouts.interop.pytorch`` instead.

>>> from layouts.interop import torch as old, pytorch
>>> old.convert_tensor is pytorch.convert_tensor
True
"""

from .pytorch import *  # noqa: F401,F403
from .pytorch import FORMATS, __all__  # noqa: F401
