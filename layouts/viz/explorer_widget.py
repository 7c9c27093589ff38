"""The explorer's picture as an anywidget: the SVG shown by a small JavaScript module that answers
hovers and clicks in the browser.

The Python side sends the SVG of :func:`layouts.viz.explorer_svg.explorer_svg` once per spec or
size change, in parts (``parts``: its head, its panels, its tail; the module keeps the panels it
already shows), with a small model of the tensor (``data``: the axis names and sizes, and
every element's offset in each layout); a slider step only sends the chosen element (``number``),
which the module rings by restyling the slots that hold it. Hovering or clicking a slot writes
its element's coordinates and its offset in every layout under the picture without a round trip
to the kernel; a click also sets ``clicked``, which the explorer turns into a slider move.

Needs anywidget (``pip install anywidget``); without it the explorer falls back to an
``ipywidgets.HTML`` picture whose slots carry their hover text as ``<title>``.

>>> from layouts import Layout
>>> tensor_data(["NCHW", "NHWC"], [Layout("NCHW", N=1, C=2, H=1, W=2), Layout("NHWC", N=1, C=2, H=1, W=2)])["offsets"]
[[0, 1, 2, 3], [0, 2, 1, 3]]
"""

from __future__ import annotations

import numpy as np

from ..named.layout import canonical_order

ESM = r"""
function render({ model, el }) {
  const info = document.createElement("div");
  info.className = "layouts-explorer-info";
  info.style.cssText = "font-family:monospace;font-size:12px;min-height:1.4em;margin:2px 0 4px 0;white-space:pre";
  const box = document.createElement("div");
  box.className = "layouts-explorer-picture";
  el.appendChild(info);
  el.appendChild(box);
  let ringed = [], rings = [];
  const describe = (n) => {
    const d = model.get("data");
    const coords = [];
    let m = n;
    for (let i = d.dims.length - 1; i >= 0; i--) { coords[i] = m % d.dims[i]; m = Math.floor(m / d.dims[i]); }
    const where = d.names.map((a, i) => a + "=" + coords[i]).join(", ");
    const offs = d.specs.map((s, j) => s + " offset " + d.offsets[j][n]).join(", ");
    return "element " + n + " = (" + where + "): " + offs;
  };
  const numberOf = (t) => {
    if (!t || !t.classList || !t.classList.contains("sl")) return null;
    const m = /(?:^| )e(\d+)(?: |$)/.exec(t.getAttribute("class"));
    return m ? Number(m[1]) : null;
  };
  const ring = () => {
    for (const r of ringed) r.classList.remove("hi");
    ringed = Array.from(box.querySelectorAll("rect.sl.e" + model.get("number")));
    for (const r of rings) r.remove();
    rings = ringed.map((r) => {  // a copy on top of the neighbours, so the whole ring shows
      r.classList.add("hi");
      const c = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      c.setAttribute("class", "ring");
      c.setAttribute("x", r.getAttribute("x"));
      c.setAttribute("y", r.getAttribute("y"));
      return r.parentNode.appendChild(c);
    });
  };
  let shown = new Map();  // panel text -> its <g>, kept while a redraw shows the same panel again
  const draw = () => {
    const [head, panels, tail] = model.get("parts");
    box.id = model.get("uid");
    box.innerHTML = head + tail;
    const svg = box.querySelector("svg");
    const next = new Map();
    for (const [y, text] of panels) {
      let g = shown.get(text);
      if (g) { shown.delete(text); } else {
        g = document.createElementNS("http://www.w3.org/2000/svg", "g");
        g.innerHTML = text;
      }
      g.setAttribute("transform", "translate(0," + y + ")");
      svg.appendChild(g);
      next.set(text, g);
    }
    shown = next;
    ring();  // also takes the old rings out of the panels kept
  };
  box.addEventListener("mouseover", (ev) => {
    const n = numberOf(ev.target);
    if (n === null) return;
    const text = describe(n);
    info.textContent = text;
    if (!ev.target.querySelector("title")) {
      const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
      title.textContent = text;
      ev.target.appendChild(title);
    }
  });
  box.addEventListener("click", (ev) => {
    const n = numberOf(ev.target);
    if (n === null) return;
    info.textContent = "clicked " + describe(n);
    model.set("clicked", n);
    model.save_changes();
  });
  model.on("change:parts", draw);
  model.on("change:number", ring);
  draw();
}
export default { render };
"""

_CLASS = None


def tensor_data(specs, layouts) -> dict:
    """What the module needs to describe any element: axis names and sizes, each layout's offsets."""
    first = layouts[0]
    order = canonical_order(first.axes)
    sizes = [first.dims[a] for a in order]
    grids = np.unravel_index(np.arange(first.count, dtype=np.int64), sizes)
    coords = {a.lower(): np.asarray(g, dtype=np.int64) for a, g in zip(order, grids)}
    return {"names": [a.lower() for a in order], "dims": sizes, "specs": list(specs),
            "offsets": [np.asarray(L.offset(**coords), dtype=np.int64).reshape(-1).tolist() for L in layouts]}


def picture_class():
    """The anywidget class of the picture (built on first use: anywidget is optional)."""
    global _CLASS
    if _CLASS is None:
        import anywidget
        import traitlets as T

        class ExplorerPicture(anywidget.AnyWidget):
            _esm = ESM
            uid = T.Unicode("").tag(sync=True)
            parts = T.List().tag(sync=True)
            data = T.Dict().tag(sync=True)
            number = T.Int(0).tag(sync=True)
            clicked = T.Int(-1).tag(sync=True)

            @property
            def value(self) -> str:
                """The SVG shown (the parts joined, as :func:`~layouts.viz.explorer_svg.explorer_svg` writes it)."""
                if not self.parts:
                    return ""
                head, panels, tail = self.parts
                return head + "\n".join(f'<g transform="translate(0,{y:.1f})">{p}</g>' for y, p in panels) + tail
        _CLASS = ExplorerPicture
    return _CLASS


def has_anywidget() -> bool:
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False
    return True
