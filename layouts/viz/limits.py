"""How large a picture may be: one limit for every drawing, checked before anything is built, and
when Jupyter is shown SVG (crisp, searchable) rather than PNG.

Set the limit here to draw larger layouts (``layouts.viz.limits.MAX_CELLS = 200_000``): every
picture reads it when it is drawn.

>>> MAX_CELLS >= MAX_SVG_CELLS
True
"""

#: The most cells a picture may have (grid cells, memory slots and logical elements together);
#: past it drawing raises a LayoutError instead of grinding.
MAX_CELLS = 50_000
#: Cells past which a picture leaves out its cell labels (they would be too small to read).
MAX_LABELS = 1024
#: Cells up to which Jupyter is offered an SVG; larger pictures are PNG.
MAX_SVG_CELLS = 1536
#: An SVG larger than this many bytes is replaced by the PNG of the same figure.
MAX_SVG_BYTES = 150_000
