"""An interactive explorer for Jupyter: pick specs, dims and one element; see it in every layout.

:func:`explore` builds ipywidgets (an optional extra: ``pip install layouts-toolkit[widgets]``) around an
:class:`ExplorerModel`, which holds the whole state and does all the work without widgets: the
widget callbacks only call the model's setters, and the picture and the formulas are read from the
model. So the model can be driven (and tested) without a browser:

>>> m = ExplorerModel(["NCHW", "NHWC"], dict(N=2, C=16, H=5, W=4))
>>> m.set_element(n=1, c=1, h=0, w=1)
>>> m.number, m.offsets()
(341, {'NCHW': 341, 'NHWC': 337})
>>> print(m.formulas()[1])
NHWC: offset = n*HWC + h*WC + w*C + c = 1*320 + 0*64 + 1*16 + 1*1 = 337
"""

from __future__ import annotations

import itertools

from ..errors import LayoutError, LayoutTypeError
from ..named.layout import Layout, canonical_order
from . import _checks

#: The largest tensor the explorer draws (its picture is drawn again on every spec or size change).
MAX_EXPLORE_CELLS = 4096

_IDS = itertools.count(1)


class ExplorerModel:
    """Specs, dims and a chosen element; the offsets, formulas and figure that follow from them."""

    def __init__(self, specs=("NCHW", "NHWC", "CHWN"), dims=None):
        self.specs: list = []
        self.dims: dict = {}
        self.element: dict = {}
        self.layouts: list = []
        self.set_dims_and_specs(specs, dims if dims is not None else dict(N=2, C=16, H=5, W=4))

    # ---------------------------------------------------------------- setters (the callbacks call these)
    def set_dims_and_specs(self, specs, dims) -> None:
        specs = _parse_specs(specs)
        if not isinstance(dims, dict):
            raise LayoutTypeError(f"dims must be a dict of axis sizes such as dict(N=2, C=16, H=5, W=4), got {type(dims).__name__}")
        layouts = [Layout(s, **dims) for s in specs]
        axes = set(layouts[0].axes)
        for s, L in zip(specs, layouts):
            if set(L.axes) != axes:
                raise LayoutError(f"spec {s!r} has axes {''.join(L.axes)}, {specs[0]!r} has {''.join(layouts[0].axes)}: "
                                  f"the explorer shows one tensor in several layouts")
            _checks.check_nonempty(L)
        total = sum(L.size for L in layouts) + layouts[0].count
        if total > MAX_EXPLORE_CELLS:
            raise LayoutError(f"the explorer draws at most {MAX_EXPLORE_CELLS} cells; these layouts need {total}: "
                              f"choose smaller dims")
        self.specs, self.layouts = specs, layouts
        self.dims = dict(layouts[0].dims)
        old = self.element
        self.element = {a.lower(): min(max(int(old.get(a.lower(), 0)), 0), self.dims[a] - 1)
                        for a in canonical_order(layouts[0].axes)}

    def set_specs(self, specs) -> None:
        self.set_dims_and_specs(specs, self.dims)

    def set_dims(self, **dims) -> None:
        new = dict(self.dims)
        for k, v in dims.items():
            key = k.upper() if k.upper() in new else k
            if key not in new:
                raise LayoutError(f"set_dims: the tensor has no axis {k}; its axes are {', '.join(new)}")
            new[key] = _checks.check_int(v, k, 1, "a positive size", allow_none=False)
        self.set_dims_and_specs(self.specs, new)

    def set_element(self, **coords) -> None:
        new = dict(self.element)
        for k, v in coords.items():
            key = k.lower()
            if key not in new:
                raise LayoutError(f"set_element: the tensor has no axis {k}; its coordinates are {', '.join(new)}")
            v = _checks.check_int(v, key, 0, "a coordinate >= 0", allow_none=False)
            extent = self.dims[key.upper()]
            if v >= extent:
                raise LayoutError(f"set_element: {key}={v} is outside 0..{extent - 1}")
            new[key] = v
        self.element = new

    # ---------------------------------------------------------------- what the picture reads
    @property
    def number(self) -> int:
        """The chosen element's logical number (row-major over the canonical axes)."""
        n = 0
        for a in canonical_order(self.layouts[0].axes):
            n = n * self.dims[a] + self.element[a.lower()]
        return n

    def offsets(self) -> dict:
        return {s: int(L.offset(**self.element)) for s, L in zip(self.specs, self.layouts)}

    def formulas(self) -> list:
        """Each layout's offset formula, its terms evaluated for the chosen element, and the sum."""
        import numpy as np
        from ._model import coordinate_names
        out = []
        for s, L in zip(self.specs, self.layouts):
            off = int(L.offset(**self.element))
            digits = [int(d[0]) for d in L.dim_indices(np.array([off], dtype=np.int64))]
            terms = " + ".join(f"{d}*{st}" for d, st in zip(digits, L.stride_tuple))
            names = coordinate_names(L)
            where = ""
            if any(n not in self.element for n in names):  # blocked: say what c1, c0 are
                where = "   (" + ", ".join(f"{n}={d}" for n, d in zip(names, digits) if n not in self.element) + ")"
            out.append(f"{s}: offset = {L.formula()} = {terms} = {off}{where}")
        return out

    def figure(self):
        """The logical panel and every layout's memory strip, the chosen element boxed in each."""
        return self.picture()[0]

    def picture(self):
        """(figure, panels): the figure of :meth:`figure` and its cell panels, each a dict with its
        Axes, cell corners ``x``, ``y``, the element held by each cell (-1: padding) and its ring."""
        import numpy as np
        from . import _model, _style
        from ._figure import pack
        from .compose import (LETTERS, _with_key, choose_cell, logical_panel, resolve_color_by, rows_by_width,
                              strip_panel)
        first = self.layouts[0]
        axis = resolve_color_by(first, "auto")
        extent = first.dims[axis] if axis else 1
        cell_in = choose_cell(self.layouts, "logical", None)
        logical = logical_panel(first, label="logical", axis=axis, extent=extent, cell_in=cell_in,
                                highlight=[self.number], title=self._logical_title())
        panels = [logical]
        for i, (s, L) in enumerate(zip(self.specs, self.layouts)):
            off = int(L.offset(**self.element))
            m = LETTERS[i % len(LETTERS)]
            panels.append(strip_panel(L, label="logical", axis=axis, extent=extent, wrap=None, marker=m,
                                      title=self._strip_title(i, off), cell_in=cell_in, highlight=[off]))
        grid = rows_by_width(panels, _style.FIGURE_WIDTH, cell_in)
        _model.check_cells(sum(int(p.cols * p.rows) for row in grid for p in row), "the explorer's picture")
        fig = pack(_with_key(grid, axis, extent, cell_in, _style.FIGURE_WIDTH), cell_in=cell_in)
        out = [dict(ax=logical.axes, x=logical.geom.x, y=logical.geom.y, number=np.arange(first.count),
                    artists=logical.artists)]
        for p in panels[1:]:
            k = np.arange(p.model.layout.size)
            out.append(dict(ax=p.axes, x=k % p.wrap, y=k // p.wrap, number=np.asarray(p.model.number), artists=p.artists))
        return fig, out

    def _logical_title(self) -> str:
        el = ", ".join(f"{k}={v}" for k, v in self.element.items())
        return f"logical tensor {''.join(canonical_order(self.layouts[0].axes))}: element {self.number} = ({el}) boxed"

    def _strip_title(self, i: int, off: int) -> str:
        from .compose import LETTERS, describe
        m = LETTERS[i % len(LETTERS)]
        return f"({m}) {describe(self.layouts[i])}   -> {off}"

    def hover_texts(self) -> list:
        """What hovering element ``n`` says, for every logical number n: its coordinates and its
        offset in every layout ('341 = (n=1, c=1, h=0, w=1): NCHW offset 341, NHWC offset 337')."""
        import numpy as np
        first = self.layouts[0]
        order = canonical_order(first.axes)
        grids = np.unravel_index(np.arange(first.count, dtype=np.int64), [self.dims[a] for a in order])
        coords = {a.lower(): np.asarray(g, dtype=np.int64) for a, g in zip(order, grids)}
        offsets = [np.asarray(L.offset(**coords), dtype=np.int64).tolist() for L in self.layouts]
        cols = [coords[a.lower()].tolist() for a in order]
        names = [a.lower() for a in order]
        out = []
        for n in range(first.count):
            where = ", ".join(f"{a}={c[n]}" for a, c in zip(names, cols))
            offs = ", ".join(f"{s} offset {o[n]}" for s, o in zip(self.specs, offsets))
            out.append(f"element {n} = ({where}): {offs}")
        return out


def _parse_specs(specs) -> list:
    if isinstance(specs, str):
        specs = [s.strip() for s in specs.replace(";", ",").split(",")]
    if isinstance(specs, Layout) or not hasattr(specs, "__iter__"):
        raise LayoutTypeError(f"specs must be layout names ('NCHW, NHWC' or a list of them), got {type(specs).__name__}")
    out = []
    for s in specs:
        if not isinstance(s, str):
            raise LayoutTypeError(f"specs must be layout names (str), got {type(s).__name__} {s!r}")
        if s:
            out.append(s)
    if not out:
        raise LayoutError("specs: give at least one layout name, such as 'NCHW, NHWC'")
    return out


class Explorer:
    """The widgets around an :class:`ExplorerModel`; shows itself in Jupyter (``.widget``).

    The picture is written straight to SVG from the models (:mod:`layouts.viz.explorer_svg`, no
    matplotlib) once per spec or size change, one slot per cell; a slider step only restyles the
    slots of the chosen element and rewrites the formula lines. With anywidget installed the
    picture is an :mod:`~layouts.viz.explorer_widget` whose JavaScript answers hovers and clicks
    in the browser: hovering or clicking a slot of any panel shows its element's coordinates and
    its offset in every layout, and a click moves the sliders to that element. Without anywidget
    it is an ``ipywidgets.HTML`` whose slots carry that text as a hover tooltip.
    """

    def __init__(self, model: ExplorerModel, dpi: int = 100):
        import ipywidgets as W
        from .explorer_widget import has_anywidget, picture_class
        self.model = model
        self.dpi = dpi
        self.uid = f"layouts-explorer-{next(_IDS)}"
        self.spec_text = W.Text(value=", ".join(model.specs), description="specs", continuous_update=False,
                                layout=W.Layout(width="420px"))
        self.dim_inputs: dict = {}
        self.sliders: dict = {}
        self.scripted = has_anywidget()
        if self.scripted:
            self.picture = picture_class()(uid=self.uid)
            self.picture.observe(self._on_click, names="clicked")
        else:
            self.picture = W.HTML()
        self.highlight = W.HTML()
        self.formula_box = W.HTML()
        self.message = W.HTML()
        self.dims_box = W.HBox()
        self.sliders_box = W.VBox()
        self.spec_text.observe(self._on_specs, names="value")
        self._build_axis_widgets()
        self.widget = W.VBox([self.spec_text, self.dims_box, self.sliders_box, self.message, self.formula_box,
                              self.highlight, self.picture])
        self.widget.add_class("layouts-explorer")
        self._figure_key = None
        self._figure = None
        self.redraw()

    # ---------------------------------------------------------------- callbacks
    def _on_specs(self, change) -> None:
        self._apply(lambda: self.model.set_specs(change["new"]))

    def _on_dim(self, change) -> None:
        axis = change["owner"].description
        self._apply(lambda: self.model.set_dims(**{axis: change["new"]}))

    def _on_slider(self, change) -> None:
        axis = change["owner"].description
        self._apply(lambda: self.model.set_element(**{axis: change["new"]}), rebuild=False)

    def _on_click(self, change) -> None:
        """A slot was clicked in the browser: choose its element (the sliders follow)."""
        n = change["new"]
        if n is None or n < 0:
            return
        self.picture.clicked = -1  # so a second click on the same slot is a change again
        self.select(int(n))

    def select(self, number: int) -> None:
        """Choose the element with logical number ``number`` (what a click on its slot does)."""
        import numpy as np
        from ._model import element_numbers
        n = int(element_numbers(self.model.layouts[0], [number])[0])
        order = canonical_order(self.model.layouts[0].axes)
        coords = np.unravel_index(n, [self.model.dims[a] for a in order])
        self._apply(lambda: self.model.set_element(**{a.lower(): int(c) for a, c in zip(order, coords)}), rebuild=False)
        self._sync_sliders()

    def _apply(self, action, rebuild: bool = True) -> None:
        try:
            action()
        except (LayoutError, TypeError) as err:
            self.message.value = f"<span style='color:#b00'>{_html(str(err))}</span>"
            return
        self.message.value = ""
        if rebuild:
            self._build_axis_widgets()
            self.redraw()
        else:
            self.show_element()

    # ---------------------------------------------------------------- widgets follow the model
    def _build_axis_widgets(self) -> None:
        import ipywidgets as W
        axes = list(self.model.dims)
        if list(self.dim_inputs) != axes:
            for w in list(self.dim_inputs.values()) + list(self.sliders.values()):
                w.unobserve_all()
            self.dim_inputs = {a: W.BoundedIntText(value=self.model.dims[a], min=1, max=MAX_EXPLORE_CELLS, description=a,
                                                   layout=W.Layout(width="130px")) for a in axes}
            self.sliders = {a.lower(): W.IntSlider(value=0, min=0, max=max(self.model.dims[a] - 1, 0), description=a.lower(),
                                                   continuous_update=False) for a in axes}
            for w in self.dim_inputs.values():
                w.observe(self._on_dim, names="value")
            for w in self.sliders.values():
                w.observe(self._on_slider, names="value")
            self.dims_box.children = list(self.dim_inputs.values())
            self.sliders_box.children = list(self.sliders.values())
        for a, w in self.dim_inputs.items():
            with w.hold_trait_notifications():
                w.value = self.model.dims[a]
        self._sync_sliders()
        if self.spec_text.value != ", ".join(self.model.specs):
            self.spec_text.unobserve(self._on_specs, names="value")
            self.spec_text.value = ", ".join(self.model.specs)
            self.spec_text.observe(self._on_specs, names="value")

    def _sync_sliders(self) -> None:
        for a, w in self.sliders.items():
            w.unobserve(self._on_slider, names="value")
            w.max = max(self.model.dims[a.upper()] - 1, 0)
            w.value = self.model.element[a]
            w.observe(self._on_slider, names="value")

    def redraw(self) -> None:
        """Draw the picture again (specs or sizes changed): the SVG with its slots, then the element."""
        from .explorer_svg import explorer_parts, explorer_svg
        if self.scripted:
            from .explorer_widget import tensor_data
            with self.picture.hold_sync():
                self.picture.data = tensor_data(self.model.specs, self.model.layouts)
                self.picture.number = self.model.number
                head, panels, tail = explorer_parts(self.model, self.uid)
                self.picture.parts = [head, [list(p) for p in panels], tail]
        else:
            svg = explorer_svg(self.model, self.uid, titles=self.model.hover_texts())
            self.picture.value = f'<div id="{self.uid}" class="layouts-explorer-picture">{svg}</div>'
        self.show_element()

    def show_element(self) -> None:
        """Show the chosen element (a slider moved): restyle its slots, rewrite the formulas."""
        from ._overlay import highlight_css
        number = self.model.number
        if self.scripted:
            self.picture.number = number
        self.highlight.value = highlight_css(self.uid, number)
        self.formula_box.value = "<pre style='margin:0'>" + _html("\n".join(self.model.formulas())) + "</pre>"

    @property
    def last_figure(self):
        """The matplotlib figure of the current state (:meth:`ExplorerModel.figure`, the chosen
        element ringed), built when asked for: the browser's picture does not need it."""
        key = (tuple(self.model.specs), tuple(self.model.dims.items()), tuple(self.model.element.items()))
        if key != self._figure_key:
            self._figure, self._figure_key = self.model.figure(), key
        return self._figure

    @property
    def image(self):
        """Deprecated: the picture is now an SVG in :attr:`picture` (an ``ipywidgets.HTML``)
        whose highlights :attr:`highlight` restyles; ``image`` was the PNG redrawn every step."""
        import warnings
        warnings.warn("Explorer.image is now Explorer.picture (an SVG drawn once per spec or size change)",
                      DeprecationWarning, stacklevel=2)
        return self.picture

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def explore(specs=("NCHW", "NHWC", "CHWN"), **dims) -> Explorer:
    """An interactive explorer for Jupyter: a text box of specs, a size box per axis, a slider per
    coordinate; the chosen element is boxed in the logical panel and in every memory strip, and each
    layout's offset formula is evaluated for it (term by term).

    ``dims`` default to the EdgeBoard article's N=2, C=16, H=5, W=4. Needs ipywidgets
    (``pip install layouts-toolkit[widgets]``). Everything it shows comes from ``explorer.model``
    (an :class:`ExplorerModel`), which works without widgets.
    """
    model = ExplorerModel(specs, dims or None)
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        raise ImportError("layouts.viz.explore needs ipywidgets: pip install 'layouts-toolkit[widgets]' "
                          "(or use layouts.viz.ExplorerModel without widgets)") from None
    return Explorer(model)
