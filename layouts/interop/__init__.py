"""Thin edges to the systems users come from: Caffe, OpenCV, EdgeBoard (Paddle-Lite FPGA), PyTorch.

Each submodule builds :class:`layouts.Layout` values from a foreign description (a Caffe blob
shape, an OpenCV type and step, an FPGA alignment rule, a torch tensor's strides) and hands arrays
back through :func:`layouts.convert`. Import the one you need::

    from layouts.interop import caffe, opencv, edgeboard, torch

Nothing here is imported by ``import layouts``; ``cv2``, ``torch`` and ``protobuf`` are imported
only inside the functions that need them.
"""
