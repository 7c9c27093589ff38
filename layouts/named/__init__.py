"""The framework kind: a layout named by a spec string (``"NCHW"``, ``"NCHW16c"``, pitched rows).

Its grammar (:mod:`.spec`), the :class:`~layouts.Layout` value object (:mod:`.layout`), offsets
and their inverse, its words and formulas, and reading a layout back from an array's strides
(:mod:`.infer`). The public names are re-exported by :mod:`layouts`.
"""
