"""``Filter2D``: :func:`correlate` of 2D weights planned once and called many times."""

from __future__ import annotations

import sys

import numpy as np

from typing import Optional

from . import _engine, _params
from ._front import check_axes
from ._ndimage import correlate
from ._params import Array, ArrayLike, Axes, Output, PerAxis


class Filter2D:
    """``f = Filter2D(w, "mirror"); f(x)``: :func:`correlate` with 2D ``weights`` on two axes of
    each call's input (the last two, or ``axes=(y, x)``; ``channel_axis=`` an axis of channels
    to leave out), the weights checked and their plans kept (per device, and per image size
    where they are longer than the image and run folded). Its attributes are read-only
    (``weights`` is a read-only float64 copy); ``radius`` is the farthest any tap reaches from
    the output pixel (the ``depth`` a chunked caller needs)."""

    def __init__(self, weights: ArrayLike, mode: str = "reflect", cval: float = 0.0, origin: PerAxis = 0) -> None:
        w = _params.weights(weights)
        self._origin = _params.origin(origin, w.shape)
        self._mode = _params.mode(mode)
        self._cval = _params.cval(cval)
        self._weights = w
        centre = tuple(k // 2 + o for k, o in zip(w.shape, self._origin))
        self._radius = max(max(c, k - 1 - c) for k, c in zip(w.shape, centre))
        # The float32 plan of unfolded weights (None where the kernels do not take them as they are).
        self._plan = _engine.plan(w, centre, self._mode, self._cval)
        # Per (type, shape, dtype, device) of a packed float32 input whose last two axes are the
        # filtered ones: the view the plan runs it as.
        self._views = {}

    weights = property(lambda self: self._weights.view(), doc="The weights (a read-only float64 copy).")
    mode = property(lambda self: self._mode, doc="The mode's name (scipy's).")
    cval = property(lambda self: self._cval, doc="The constant of mode ``constant``.")
    origin = property(lambda self: self._origin, doc="scipy's origin ``(oy, ox)``.")
    radius = property(lambda self: self._radius, doc="The farthest any tap reaches from the output pixel.")

    @property
    def variant(self):
        """The GPU variant the plan chose for host arrays' last shape (None on the CPU)."""
        return None if self._plan is None else self._plan.variant

    def __repr__(self):
        rows, cols = self._weights.shape
        return (
            f"Filter2D(weights=<{rows}x{cols} float64>, mode={self._mode!r}, cval={self._cval!r}, "
            f"origin={self._origin})"
        )

    def _view(self, x, shape):
        """The ``(images, height, width, 1)`` view of a packed float32 array of ``shape`` filtered
        on its last two axes, or None where the call takes the general way (the filter folded on
        a smaller image, or weights the kernels do not take as they are)."""
        if self._plan is None or len(shape) < 2:
            return None
        h, w = shape[-2], shape[-1]
        if h * w == 0 or self._plan._fit(h, w)[0] is not None:
            return None
        n = 1
        for s in shape[:-2]:
            n *= s
        return (n, h, w, 1)

    def __call__(
        self, input: Array, output: Output = None, *, axes: Axes = None, channel_axis: Optional[int] = None,
        stream: Optional[int] = None,
    ) -> Array:
        if output is None and stream is None and axes is None and channel_axis is None:
            t = type(input)
            torch = sys.modules.get("torch")
            if torch is not None and t is torch.Tensor and input.is_cuda and input.dtype is torch.float32:
                key = (t, input.shape, input.get_device())
                view = self._views.get(key)
                if view is None and input.is_contiguous():
                    view = self._views.setdefault(key, self._view(input, tuple(input.shape)))
                if view is not None and input.is_contiguous():
                    return self._plan(input.view(view)).view(input.shape)
            elif t.__module__.startswith("cupy") and input.dtype == np.float32 and input.flags.c_contiguous:
                key = (t, input.shape, input.device.id)
                view = self._views.get(key)
                if view is None:
                    view = self._views.setdefault(key, self._view(input, input.shape))
                if view is not None:
                    return self._plan(input.reshape(view)).reshape(input.shape)
            elif t is np.ndarray and input.dtype == np.float32 and input.flags.c_contiguous:
                view = self._views.get((t, input.shape))
                if view is None:
                    view = self._views.setdefault((t, input.shape), self._view(input, input.shape))
                if view is not None:
                    return self._plan(input.reshape(view)).reshape(input.shape)
        nd = len(getattr(input, "shape", np.shape(input)))
        if axes is None:
            axes = [a for a in range(nd) if a != (None if channel_axis is None else channel_axis % max(nd, 1))][-2:]
            channel_axis = None
        check_axes(axes, nd, channel_axis)
        return correlate(
            input, self._weights, output, self._mode, self._cval, self._origin, axes=axes, channel_axis=channel_axis,
            stream=stream,
        )

