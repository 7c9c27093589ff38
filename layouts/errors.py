"""The one exception type of the package.

Every message names what was wrong (the axis, the value) and what was expected.

>>> from layouts.errors import LayoutError
>>> issubclass(LayoutError, ValueError)
True
"""


class LayoutError(ValueError):
    """A spec, a size, a coordinate, an offset or an array that does not fit a layout."""
