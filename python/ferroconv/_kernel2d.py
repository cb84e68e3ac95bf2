"""The plan of one 2D filter on images ``(images, height, width, channels)``: the library's
``Plan`` per device and per fold of the filter, run on numpy arrays (the host path) or on CUDA
arrays where they are. Integer samples are rounded and clamped (OpenCV's arithmetic): the
scipy-named functions give it float32 only, and ``ferroconv.cv`` its own dtypes."""

from __future__ import annotations

import sys

import numpy as np

from . import _fold, _native, _params
from ._cuda import _is_cuda, _is_dlpack_cuda, _run_cuda, _run_dlpack, _torch_stream
from ._numpy import _run_numpy

# The library's border of each mode.
_NATIVE = {"reflect": "symmetric", "mirror": "reflect", "nearest": "replicate", "wrap": "wrap", "constant": "constant"}
# The largest level of the integer sample types.
_LEVELS = {"u8": 255, "u16": 65535}
# The library's largest side of a rank-1 filter.
MAX_SIDE = 1023


class Kernel2D:
    """A 2D filter and a mode, planned once and called many times on images: one library plan
    for host arrays, one per CUDA device, and one per image size where the filter is longer than
    the image and runs folded. The axes: the last two, or the two before a last axis of at most 4
    entries (interleaved channels), or ``axes=(y, x)``."""

    def __init__(self, weights, mode: str = "reflect", cval: float = 0.0, origin=0):
        self._setup(_params.weights(weights), mode, cval, origin)

    def _setup(self, w, mode, cval, origin):
        """The plan of read-only float64 weights ``w``, checked as the library runs them (on an
        image they are longer than, folded) when first planned for an image's size."""
        self._origin = _params.origin(origin, w.shape)
        self._mode = _params.mode(mode)
        self._cval = _params.cval(cval)
        self._weights = w
        self._centre = tuple(k // 2 + o for k, o in zip(w.shape, self._origin))
        self._radius = max(max(c, k - 1 - c) for k, c in zip(w.shape, self._centre))
        self._border = _NATIVE[self._mode]
        # Integer results rounded to the nearest level (OpenCV's), or truncated (scipy's cast).
        self._truncate = False
        # The taps as the library takes them (None past its largest side: such weights only run
        # folded, on images they are longer than).
        self._taps = w.astype(np.float32).ravel().tolist() if max(w.shape) <= MAX_SIDE else None
        self._plans = {}
        self._shapes = {}
        # (height, width) -> (fold key, taps, shape, origin) of the filter as it runs on them.
        self._fits = {}
        # Per (shape, dtype, device, axes) of a packed torch tensor or CuPy array that runs as it
        # is: (native plan, row pitch in bytes, width, height, channels, sample type, images).
        self._direct = {}
        # Per (shape, dtype) of a packed numpy array that runs as it is: (native plan, sample
        # type, (images, height, width, channels)).
        self._hosts = {}

    weights = property(lambda self: self._weights.view(), doc="The weights (a read-only float64 copy).")
    mode = property(lambda self: self._mode, doc="The mode's name (scipy's).")
    cval = property(lambda self: self._cval, doc="The constant of mode ``constant``.")
    origin = property(lambda self: self._origin, doc="scipy's origin ``(oy, ox)``.")
    radius = property(lambda self: self._radius, doc="The farthest any tap reaches from the output pixel.")

    def __repr__(self):
        rows, cols = self._weights.shape
        return (
            f"Filter2D(weights=<{rows}x{cols} float64>, mode={self._mode!r}, cval={self._cval!r}, "
            f"origin={self._origin})"
        )

    def _level(self, name):
        """The library's constant for samples of type ``name`` (in that type's own levels, as
        the library's ``Border::Constant`` takes it), or None where that type cannot hold
        ``cval`` (not a whole level of its range): the call then computes in float32."""
        if self._mode != "constant":
            return 0.0
        top = _LEVELS.get(name)
        if top is None or (self._cval.is_integer() and 0 <= self._cval <= top):
            return self._cval
        return None

    def _runs_half(self):
        """Whether the kernels read and write half-float samples (float16, bfloat16) of this
        filter as they are: ``blocked-4x2`` (and float16's ``tensor-f16``) to 31 x 31, the
        separable variants for 1D taps (to 1023); other filters compute them in float32."""
        return max(self._weights.shape) <= 31 or min(self._weights.shape) == 1

    def _fit(self, h, w):
        """(fold key, taps, shape, origin) of the filter on ``h x w`` images: folded on each axis
        it overreaches (the key names the sizes it was folded for), else as it is."""
        fit = self._fits.get((h, w))
        if fit is not None:
            return fit
        shape, centre = self._weights.shape, self._centre
        fy, fx = (_fold.folds(k, c, n, self._mode) for k, c, n in zip(shape, centre, (h, w)))
        if fy or fx:
            folded, (cy, cx) = _fold.fold_weights(self._weights, centre, (h, w), self._mode)
            origin = (cy - folded.shape[0] // 2, cx - folded.shape[1] // 2)
            taps = folded.astype(np.float32).ravel().tolist()
            fit = ((h if fy else None, w if fx else None), taps, folded.shape, origin)
        else:
            if self._taps is None:
                raise ValueError(
                    f"a {shape[0]}x{shape[1]} filter is not supported: each side from 1 to 127, or to "
                    f"{MAX_SIDE} for a rank-1 (separable) filter (it is not longer than the {h}x{w} image)"
                )
            fit = (None, self._taps, shape, self._origin)
        self._fits[(h, w)] = fit
        return fit

    def _plan(self, device, cval, h, w):
        key, taps, shape, origin = self._fit(h, w)
        plan = self._plans.get((device, cval, key))
        if plan is None:
            try:
                more = {"truncate": True} if self._truncate else {}
                plan = _native.Plan(taps, shape, origin, self._border, cval, device, **more)
            except ValueError as e:
                if key is None:
                    raise
                rows, cols = self._weights.shape
                raise ValueError(f"{e} (the {rows}x{cols} weights folded for a {h}x{w} image)") from None
            self._plans[(device, cval, key)] = plan
        return plan

    @property
    def variant(self):
        """The GPU variant the host plan chose for its last shape (None on the CPU)."""
        plans = [p for (device, *_), p in self._plans.items() if device is None]
        return plans[-1].variant if plans else None

    def _short_way(self, input, view, axes=None):
        """The result of a packed CUDA tensor or CuPy array of a shape ``view`` already run (the
        array itself of that shape, or viewed as it), into a new array of the input's shape on
        the framework's current stream; None where the call takes the long way."""
        t = type(input)
        torch = sys.modules.get("torch")
        if torch is not None and t is torch.Tensor and input.is_cuda:
            device = input.get_device()
            direct = self._direct.get((view, input.dtype, device, axes))
            if direct is None or not input.is_contiguous():
                return None
            plan, pitch, w, h, c, name, n = direct
            result = torch.empty_like(input)
            plan.run_device(input.data_ptr(), pitch, result.data_ptr(), pitch, w, h, c, name, n, _torch_stream(torch, device))
            return result
        cupy = sys.modules.get("cupy")
        if cupy is not None and t is cupy.ndarray:
            direct = self._direct.get((view, input.dtype, input.device.id, axes))
            if direct is None or not input.flags.c_contiguous:
                return None
            plan, pitch, w, h, c, name, n = direct
            result = cupy.ndarray(input.shape, input.dtype)
            plan.run_device(input.data.ptr, pitch, result.data.ptr, pitch, w, h, c, name, n, cupy.cuda.get_current_stream().ptr)
            return result
        return None

    def _hypot_way(self, input, view, with_):
        """``with_`` holding ``sqrt(with_ * with_ + r * r)``, ``r`` this filter's float32 result
        of a packed CUDA tensor or CuPy array of a shape ``view`` already run (``with_`` a packed
        float32 array of the result's shape apart from the input), on the framework's current
        stream, rounded as numpy rounds each step; None where the call cannot (``with_`` then
        unchanged)."""
        t = type(input)
        torch = sys.modules.get("torch")
        if torch is not None and t is torch.Tensor and input.is_cuda and type(with_) is t:
            device = input.get_device()
            fits = input.is_contiguous() and with_.is_contiguous() and with_.get_device() == device
            ptrs, stream = (input.data_ptr(), with_.data_ptr()), lambda: _torch_stream(torch, device)
        else:
            cupy = sys.modules.get("cupy")
            if cupy is None or t is not cupy.ndarray or type(with_) is not t:
                return None
            device = input.device.id
            fits = input.flags.c_contiguous and with_.flags.c_contiguous and with_.device.id == device
            ptrs, stream = (input.data.ptr, with_.data.ptr), lambda: cupy.cuda.get_current_stream().ptr
        direct = self._direct.get((view, input.dtype, device, None))
        if direct is None or not fits or with_.dtype != input.dtype or with_.shape != input.shape or ptrs[0] == ptrs[1]:
            return None
        plan, _, w, h, c, name, n = direct
        if name != "f32" or not plan.run_device_hypot(ptrs[0], ptrs[1], ptrs[1], w, h, c, n, stream()):
            return None
        return with_

    def __call__(self, input, output=None, axes=None, stream=None):
        # The common case first, in as few steps as Python allows: a packed CUDA tensor or CuPy
        # array already seen, into a new result on the framework's current stream.
        if output is None and stream is None:
            result = self._short_way(input, input.shape, axes)
            if result is not None:
                return result
        stream = _params.stream(stream)
        if _is_cuda(input):
            return _run_cuda(self, input, output, axes, stream)
        if _is_dlpack_cuda(input):
            return _run_dlpack(self, input, output, axes, stream)
        return _run_numpy(self, input, output, axes)
