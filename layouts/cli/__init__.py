"""The command line, ``layouts`` (or ``python -m layouts``): one module per group of commands.

:mod:`.main` parses the arguments and words every error as one line; :mod:`.files` holds
``convert``, ``info`` and ``recover`` on files, :mod:`.smem` the ``smem`` command, :mod:`.tour`
the tour and :mod:`.tune` the ``tune`` command.
"""

from .main import main

__all__ = ["main"]
