"""``Filter2D``: :func:`correlate` of 2D weights planned once and called many times."""

from __future__ import annotations

import math
import sys

import numpy as np

from typing import Optional

from . import _engine, _numpy, _params
from ._cuda import _torch_stream
from ._front import check_axes, whole_level
from ._ndimage import correlate
from ._numpy import _run_numpy
from ._params import Array, ArrayLike, Axes, Device, Output, PerAxis


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
        centre = self._centre = tuple(k // 2 + o for k, o in zip(w.shape, self._origin))
        self._radius = max(max(c, k - 1 - c) for k, c in zip(w.shape, centre))
        # The float32 plan of unfolded weights (None where the kernels do not take them as they are).
        self._plan = _engine.plan(w, centre, self._mode, self._cval)
        # Per (type, shape, dtype, device, channel axis) of a packed input: the view the plan runs
        # it as (None: the general way).
        self._views = {}
        # Per such (type, shape, device): the plan's launch of the view (what the plan keeps for
        # its own short way), so that a repeated call launches it with no view made.
        self._runs = {}

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

    def _keep_run(self, key, view, dtype, device):
        """Keeps the launch the plan made for ``view`` of a packed array (``key``), if it did."""
        run = self._plan._direct.get((view, dtype, device, None))
        if run is not None:
            self._runs[key] = run

    def _view(self, name, shape, channel_axis):
        """The view (:func:`_images`) the plan runs a packed array of dtype ``name`` and ``shape``
        as, or None where the call takes the general way (other channel axes, the filter folded
        on a smaller image, weights the kernels do not take as they are, or 8- and 16-bit samples
        whose results the kernels do not give as scipy does)."""
        if self._plan is None or not self._runs_dtype(name):
            return None
        view = _images(shape, channel_axis)
        if view is None or view[1] * view[2] == 0 or self._plan._fit(view[1], view[2])[0] is not None:
            return None
        return view

    def _runs_dtype(self, name):
        """Whether the plan's kernels give this call's results for samples of dtype ``name``."""
        if name == "float32":
            return True
        if name in ("float16", "bfloat16"):
            return self._plan._runs_half()
        return name in ("uint8", "uint16") and whole_level(name, self._mode, self._cval) and _engine._casts_as_scipy(
            self._weights, name
        )

    def _run64(self, key, shape, channel_axis, device):
        """The float64 kernel's launch of a packed float64 CUDA array (``key``) on its last two
        axes (or the two before channels last), kept; None where the call takes the general way
        (weights longer than the image, or longer than the kernel takes)."""
        view, (ky, kx) = _images(shape, channel_axis), self._weights.shape
        if view is None:
            return None
        n, h, w, c = view
        if max(ky, kx) > _engine._MAX_SIDE_64 or h < ky or w < kx or h > 65535 * 32 or n * c > 65535 or n == 0:
            return None
        plan = _engine._plan64(self._weights, self._centre, self._mode, self._cval, device)
        run = self._runs[key] = (_Launch64(plan), 0, w, h, c, "float64", n)
        return run

    def _view_for(self, key, name, shape, channel_axis):
        """The view of a packed array (``key``: its type, shape, dtype, device and channel
        axis), made once."""
        view = self._views.get(key, False)
        if view is False:
            view = self._views[key] = self._view(name, tuple(shape), channel_axis)
        return view

    def __call__(
        self, input: Array, output: Output = None, *, axes: Axes = None, channel_axis: Optional[int] = None,
        stream: Optional[int] = None, device: Device = None,
    ) -> Array:
        if device is not None:
            with _numpy.on_device(device, input):
                return self(input, output, axes=axes, channel_axis=channel_axis, stream=stream)
        if output is None and stream is None and axes is None:
            t = type(input)
            torch = sys.modules.get("torch")
            if torch is not None and t is torch.Tensor and input.is_cuda:
                device = input.get_device()
                key = (t, input.shape, input.dtype, device, channel_axis)
                # The plan's launch of this shape, once it ran it: straight on the tensor.
                run = self._runs.get(key)
                if run is None and input.dtype is torch.float64 and input.is_contiguous():
                    run = self._run64(key, input.shape, channel_axis, device)
                if run is not None and input.is_contiguous():
                    plan, pitch, w, h, c, name, n = run
                    result = torch.empty_like(input)
                    plan.run_device(input.data_ptr(), pitch, result.data_ptr(), pitch, w, h, c, name, n, _torch_stream(torch, device))
                    return result
                if input.is_contiguous():
                    view = self._view_for(key, str(input.dtype)[6:], input.shape, channel_axis)
                    if view is not None:
                        result = self._plan(input.view(view)).view(input.shape)
                        self._keep_run(key, view, input.dtype, device)
                        return result
            elif t.__module__.startswith("cupy") and input.flags.c_contiguous:
                device = input.device.id
                key = (t, input.shape, input.dtype, device, channel_axis)
                run = self._runs.get(key)
                if run is None and input.dtype == np.float64:
                    run = self._run64(key, input.shape, channel_axis, device)
                if run is not None:
                    plan, pitch, w, h, c, name, n = run
                    result = t(input.shape, input.dtype)
                    stream = sys.modules["cupy"].cuda.get_current_stream().ptr
                    plan.run_device(input.data.ptr, pitch, result.data.ptr, pitch, w, h, c, name, n, stream)
                    return result
                view = self._view_for(key, input.dtype.name, input.shape, channel_axis)
                if view is not None:
                    result = self._plan(input.reshape(view)).reshape(input.shape)
                    self._keep_run(key, view, input.dtype, device)
                    return result
        if (
            stream is None
            and axes is None
            and type(input) is np.ndarray
            and input.flags.c_contiguous
            and input.dtype.isnative
            # A packed output of the input's shape and dtype is written in place (the plan
            # checks it for overlap); any other takes the general way.
            and (
                output is None
                or type(output) is np.ndarray
                and output.shape == input.shape
                and output.dtype == input.dtype
                and output.flags.c_contiguous
            )
        ):
            key = (np.ndarray, input.shape, input.dtype, None, channel_axis)
            view = self._view_for(key, input.dtype.name, input.shape, channel_axis)
            if view is not None:
                if output is None:
                    return _run_numpy(self._plan, input.reshape(view), None, None).reshape(input.shape)
                _run_numpy(self._plan, input.reshape(view), output.reshape(view), None)
                return output
        nd = len(getattr(input, "shape", np.shape(input)))
        if axes is None:
            axes = [a for a in range(nd) if a != (None if channel_axis is None else channel_axis % max(nd, 1))][-2:]
            channel_axis = None
        check_axes(axes, nd, channel_axis)
        return correlate(
            input, self._weights, output, self._mode, self._cval, self._origin, axes=axes, channel_axis=channel_axis,
            stream=stream,
        )


def _images(shape, channel_axis):
    """The ``(images, height, width, channels)`` view of a packed array of ``shape`` filtered on
    its last two axes (``channel_axis`` None) or on the two before its last (``channel_axis`` the
    last, of 1, 3 or 4 entries), or None for other channel axes."""
    nd = len(shape)
    if channel_axis is None and nd >= 2:
        (h, w), c, lead = shape[-2:], 1, shape[:-2]
    elif channel_axis in (-1, nd - 1) and nd >= 3 and shape[-1] in (1, 3, 4):
        (h, w, c), lead = shape[-3:], shape[:-3]
    else:
        return None
    return (math.prod(lead), h, w, c)


class _Launch64:
    """A float64 plan behind the float32 plans' ``run_device`` arguments (pitch and dtype name
    unused: packed float64 samples)."""

    __slots__ = ("plan",)

    def __init__(self, plan):
        self.plan = plan

    def run_device(self, src, _pitch, dst, _pitch_out, w, h, c, _name, n, stream):
        self.plan.run_device(src, dst, w, h, c, n, stream)
