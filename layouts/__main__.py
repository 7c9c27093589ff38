"""``python -m layouts``: the command line of :mod:`layouts.cli`."""

import sys

from .cli.main import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m layouts"))
