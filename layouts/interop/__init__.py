"""Thin edges to the systems users come from: Caffe, OpenCV, EdgeBoard (Paddle-Lite FPGA), PyTorch.

Each submodule builds :class:`layouts.Layout` values from a foreign description (a Caffe blob
shape, an OpenCV type and step, an FPGA alignment rule, a torch tensor's strides) and hands arrays
back through :func:`layouts.convert`. Import the one you need::

    from layouts.interop import caffe, opencv, edgeboard, pytorch

(``pytorch``, not ``torch``: that name would hide the real ``torch`` module in your namespace;
``layouts.interop.torch`` stays importable as an alias.) Every public function checks its
arguments first: a wrong kind is a ``TypeError``, a wrong value a :class:`layouts.LayoutError`
naming the argument, before numpy, cv2, protobuf or torch see it.

Nothing here is imported by ``import layouts``; ``cv2``, ``torch`` and ``protobuf`` are imported
only inside the functions that need them.
"""
