"""The package's version, in a module of its own so that any layer may read it without importing
the package face (which loads every public entry).
"""

__version__ = "0.1.0"
