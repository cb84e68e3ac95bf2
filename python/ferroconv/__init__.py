"""ferroconv: 2D image correlation and convolution with Rust GPU kernels.

numpy arrays run through the library's host-memory path (the GPU when there is one, else all CPU
cores); CUDA arrays (PyTorch tensors, CuPy arrays, anything with ``__cuda_array_interface__``,
and DLPack-only arrays such as JAX's, viewed through torch or CuPy) run where they are, without
copies, queued on the framework's current stream.

Axes: the image is the last two axes, unless the last axis has at most 4 entries: then it is the
channels and the image is the two before it. So ``(H, W)``, ``(H, W, C)``, ``(N, H, W, C)`` and
PyTorch's ``(N, C, H, W)`` work as they come; every other axis is a batch axis. ``axes=(y, x)``
names the image axes explicitly (the other axes are then batch axes). Every channel is filtered,
alpha included.

Modes (scipy.ndimage's names; what lies beyond the edges):
  ``reflect``   d c b a | a b c d | d c b a   (edge repeated; OpenCV BORDER_REFLECT, numpy symmetric)
  ``mirror``    d c b | a b c d | c b a       (edge not repeated; OpenCV BORDER_REFLECT_101)
  ``nearest``   a a a | a b c d | d d d       (OpenCV BORDER_REPLICATE, numpy edge)
  ``wrap``      b c d | a b c d | a b c       (OpenCV BORDER_WRAP)
  ``constant``  k k k | a b c d | k k k       (k = cval; OpenCV BORDER_CONSTANT)

Dtypes: uint8, uint16 and float32 are computed as they are; float64 is computed in float32 and
returned as float64 (big-endian arrays in native order). Integer results are rounded to the
nearest integer and clamped to the type's range (scipy truncates and wraps around).

A filter longer than the image costs what the image costs: its taps are folded, per axis, by the
mode's period (or into the edge taps), exactly, to at most ``2n + 1`` taps for ``n`` samples.
Every parameter is checked before any work; NaN raises (scipy takes a NaN sigma or size as 0).
"""

from __future__ import annotations

import sys

import numpy as np

from . import _fold, _native, _params
from ._cuda import _check_output as _check_cuda_output
from ._cuda import (
    _cuda_info,
    _framework,
    _is_cuda,
    _is_dlpack_cuda,
    _narrow_cuda,
    _run_cuda,
    _run_dlpack,
    _torch_stream,
    _write_into,
)
from ._cv import (
    BORDER_CONSTANT,
    BORDER_DEFAULT,
    BORDER_REFLECT,
    BORDER_REFLECT_101,
    BORDER_REPLICATE,
    BORDER_WRAP,
    CV_8U,
    CV_16S,
    CV_16U,
    CV_32F,
    CV_64F,
    filter2d,
)
from ._numpy import _check_output, _dtype_name, _host_empty, _layout, _narrow, _native_order, _pool, _run_numpy
from ._params import MODES

__all__ = [
    "correlate",
    "convolve",
    "filter2d",
    "gaussian_filter",
    "uniform_filter",
    "sobel",
    "Filter2D",
    "gpu_available",
    "BORDER_CONSTANT",
    "BORDER_REPLICATE",
    "BORDER_REFLECT",
    "BORDER_WRAP",
    "BORDER_REFLECT_101",
    "BORDER_DEFAULT",
    "CV_8U",
    "CV_16U",
    "CV_16S",
    "CV_32F",
    "CV_64F",
]

# The library's border of each mode.
_NATIVE = {"reflect": "symmetric", "mirror": "reflect", "nearest": "replicate", "wrap": "wrap", "constant": "constant"}
# The largest level of the integer sample types.
_LEVELS = {"u8": 255, "u16": 65535}
# The library's largest side of a rank-1 filter, and the farthest its taps reach from the centre.
_MAX_SIDE = 1023
_MAX_REACH = _MAX_SIDE // 2


def gpu_available() -> bool:
    """Whether a GPU can be used (CUDA device 0 opens)."""
    return _native.gpu_available()


class Filter2D:
    """A 2D filter and a mode, planned once and called many times: ``f = Filter2D(w, "mirror");
    f(x)``. It keeps its kernels, its chosen variant and its buffers from call to call (one plan
    for host arrays, one per CUDA device, and one per image size where the filter is longer than
    the image and runs folded). Same arguments as :func:`correlate`, read-only after construction
    (``weights`` is a read-only copy). ``radius`` is the farthest any tap reaches from the output
    pixel (the ``depth`` a chunked caller needs)."""

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
        # The taps as the library takes them (None past its largest side: such weights only run
        # folded, on images they are longer than).
        self._taps = w.astype(np.float32).ravel().tolist() if max(w.shape) <= _MAX_SIDE else None
        self._plans = {}
        self._shapes = {}
        # (height, width) -> (fold key, taps, shape, origin) of the filter as it runs on them.
        self._fits = {}
        # Per (shape, dtype, device, axes) of a packed torch tensor or CuPy array that runs as it
        # is: (native plan, row pitch in bytes, width, height, channels, sample type, images).
        self._direct = {}

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
                    f"{_MAX_SIDE} for a rank-1 (separable) filter (it is not longer than the {h}x{w} image)"
                )
            fit = (None, self._taps, shape, self._origin)
        self._fits[(h, w)] = fit
        return fit

    def _plan(self, device, cval, h, w):
        key, taps, shape, origin = self._fit(h, w)
        plan = self._plans.get((device, cval, key))
        if plan is None:
            try:
                plan = _native.Plan(taps, shape, origin, self._border, cval, device)
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

    def __call__(self, input, output=None, axes=None, stream=None):
        # The common case first, in as few steps as Python allows: a packed CUDA tensor or CuPy
        # array already seen, into a new result on the framework's current stream.
        if output is None and stream is None:
            t = type(input)
            torch = sys.modules.get("torch")
            if torch is not None and t is torch.Tensor and input.is_cuda:
                device = input.get_device()
                direct = self._direct.get((input.shape, input.dtype, device, axes))
                if direct is not None and input.is_contiguous():
                    plan, pitch, w, h, c, name, n = direct
                    result = torch.empty_like(input)
                    plan.run_device(input.data_ptr(), pitch, result.data_ptr(), pitch, w, h, c, name, n, _torch_stream(torch, device))
                    return result
            cupy = sys.modules.get("cupy")
            if cupy is not None and t is cupy.ndarray:
                direct = self._direct.get((input.shape, input.dtype, input.device.id, axes))
                if direct is not None and input.flags.c_contiguous:
                    plan, pitch, w, h, c, name, n = direct
                    result = cupy.empty_like(input)
                    plan.run_device(input.data.ptr, pitch, result.data.ptr, pitch, w, h, c, name, n, cupy.cuda.get_current_stream().ptr)
                    return result
        stream = _params.stream(stream)
        if _is_cuda(input):
            return _run_cuda(self, input, output, axes, stream)
        if _is_dlpack_cuda(input):
            return _run_dlpack(self, input, output, axes, stream)
        return _run_numpy(self, input, output, axes)


def correlate(input, weights, mode="reflect", cval=0.0, output=None, axes=None, stream=None, origin=0):
    """Correlates ``input`` with ``weights`` (2D, any shape up to 127x127, or up to 1023x1023
    where they are rank 1, ``outer(wy, wx)``, which the separable passes run; longer than the
    image on an axis, folded to at most ``2n + 1`` taps first), as ``scipy.ndimage.correlate``
    and ``cupyx.scipy.ndimage.correlate`` do on the image axes.

    input: a numpy array, or a CUDA array (PyTorch, CuPy, ``__cuda_array_interface__``) filtered
        where it is, on ``stream`` (a raw CUDA stream handle) or else the framework's current
        stream; the call returns without synchronizing.
    mode: ``reflect``, ``mirror``, ``nearest``, ``wrap`` or ``constant`` (with ``cval``); see the
        module's docstring.
    output: an array of the input's shape and dtype (and kind: numpy for numpy, a CUDA array of
        the same framework and device for CUDA) to write into, else a new one. It may overlap
        the input: the result is then computed apart and copied in.
    axes: the two image axes ``(y, x)``; by default the last two, or the two before a last axis of
        at most 4 entries (channels).
    origin: scipy's: the filter is centred on tap ``(rows // 2 + oy, cols // 2 + ox)`` (one value
        for both axes, or ``(oy, ox)``); each within ``-(k // 2) .. (k - 1) // 2``. The square
        of odd side centred on that tap, which the kernels run, is at most 127x127. Past 31x31
        a filter that is not rank 1 runs on the GPU for float32 and float64 arrays only (in
        blocks of taps on the tensor cores), and for every dtype on the CPU.

    Returns the result, of the input's shape and dtype (the same kind of array). uint8, uint16
    and float32 run as they are; float64 runs in float32 and comes back as float64; integer
    results are rounded and clamped.
    """
    return Filter2D(weights, mode, cval, origin)(input, output=output, axes=axes, stream=stream)


def convolve(input, weights, mode="reflect", cval=0.0, output=None, axes=None, stream=None, origin=0):
    """Convolves ``input`` with ``weights``: :func:`correlate` with the weights flipped on both
    axes and the origin moved as ``scipy.ndimage.convolve`` moves it (negated, and one tap more
    on an even side)."""
    w = _params.weights(weights)
    oy, ox = _params.origin(origin, w.shape)
    flipped = tuple(-o - (1 - k % 2) for k, o in zip(w.shape, (oy, ox)))
    return correlate(input, w[::-1, ::-1], mode, cval, output, axes, stream, flipped)


def _image_size(input, axes):
    """(height, width) of the images of ``input``, checked (not empty)."""
    if _is_cuda(input) or _is_dlpack_cuda(input):
        if not hasattr(input, "shape"):
            raise TypeError(f"input must have a shape, got {type(input).__name__}")
        shape = tuple(int(s) for s in input.shape)
    else:
        shape = np.asarray(input).shape
    _, (n, h, w, _) = _layout(shape, axes)
    if h == 0 or w == 0 or n == 0:
        raise ValueError(f"an empty image: shape {shape}")
    return h, w


def _separable(factors, mode, cval):
    """The plan of the 2D weights ``outer(fy, fx)`` of 1D factors ``(taps, centre)``."""
    (ty, cy), (tx, cx) = factors
    w = np.outer(ty, tx)
    w.flags.writeable = False
    f = Filter2D.__new__(Filter2D)
    f._setup(w, mode, cval, (cy - len(ty) // 2, cx - len(tx) // 2))
    return f


def _check_reach(shapes, size, what):
    """Raises where rank-1 weights of these ``(taps, centre)`` per axis, folded for ``size``,
    reach farther than the library's separable passes."""
    reach = max(max(c, k - 1 - c) for k, c in shapes)
    if reach > _MAX_REACH:
        (ky, _), (kx, _) = shapes
        raise ValueError(
            f"{what} needs {ky}x{kx} taps on a {size[0]}x{size[1]} image (folded where longer than the "
            f"image), reaching {reach} from the centre: at most {_MAX_REACH} ({_MAX_SIDE} taps a side)"
        )


def gaussian_filter(
    input, sigma, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None, axes=None, stream=None
):
    """``scipy.ndimage.gaussian_filter`` on the image axes only: a Gaussian of standard deviation
    ``sigma`` (one value, or ``(sigma_y, sigma_x)``), cut at ``truncate`` standard deviations (or
    at ``radius``) as scipy cuts it, each axis sized by its own sigma; an axis whose sigma is at
    most 1e-15 (0 or negative) is left as it is, as scipy leaves it. Any sigma runs in at most
    ``2n + 1`` taps on an axis of ``n`` samples (the Gaussian folded by the mode); the library's
    separable passes take up to 1023 (sigma up to 127 at ``truncate=4`` on images of 512 or
    more). Arrays, modes and dtypes as in :func:`correlate`."""
    size = _image_size(input, axes)
    mode = _params.mode(mode)
    _params.cval(cval)
    sigmas = _params.sigma(sigma)
    radii = _params.radius_per_axis(radius)
    reaches = []
    for s, r, axis in zip(sigmas, radii, ("y", "x")):
        if s <= _params.SIGMA_MIN:
            reaches.append(None)
        else:
            reaches.append(_fold.gaussian_reach(s, _params.gaussian_radius(s, truncate, r, axis)))
    shapes = [(1, 0) if r is None else _fold.folded_shape(2 * r + 1, r, n, mode) for r, n in zip(reaches, size)]
    _check_reach(shapes, size, f"sigma {sigma}")
    factors = [
        (np.ones(1), 0) if r is None else _fold.gaussian(s, r, n, mode) for s, r, n in zip(sigmas, reaches, size)
    ]
    return _separable(factors, mode, cval)(input, output=output, axes=axes, stream=stream)


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, *, axes=None, stream=None):
    """``scipy.ndimage.uniform_filter`` on the image axes only: the mean over a ``size`` window
    (one size, or ``(size_y, size_x)``; an even side is centred as scipy centres it; a size is
    truncated to an integer, and an axis of size at most 1 is left as it is, as scipy does). A
    window longer than the image is folded by the mode (at most ``2n + 1`` taps); past that, up
    to 1023. Arrays, modes and dtypes as in :func:`correlate`."""
    hw = _image_size(input, axes)
    mode = _params.mode(mode)
    _params.cval(cval)
    sizes = _params.size(size)
    shapes = [_fold.folded_shape(k, k // 2, n, mode) for k, n in zip(sizes, hw)]
    _check_reach(shapes, hw, f"size {size}")
    factors = [_fold.uniform(k, n, mode) for k, n in zip(sizes, hw)]
    return _separable(factors, mode, cval)(input, output=output, axes=axes, stream=stream)


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0, *, axes=None, stream=None):
    """``scipy.ndimage.sobel`` on the image axes only: the derivative along image axis ``axis``
    (0 or -2: along y; 1 or -1: along x) with [-1, 0, 1], then smoothed across with [1, 2, 1]
    (in ``constant`` mode each pass reads ``cval`` past the edges, as scipy's passes do).
    Unsigned results are clamped at 0 (scipy wraps them around): use a float dtype for signed
    derivatives. Arrays and modes as in :func:`correlate`."""
    a = _params.integer(axis, "axis")
    if a not in (0, 1, -1, -2):
        raise ValueError(f"axis names an image axis: 0 or -2 (y), 1 or -1 (x); got {axis}")
    hw = _image_size(input, axes)
    mode = _params.mode(mode)
    cval = _params.cval(cval)
    along_y = a in (0, -2)
    d, s = np.array([-1.0, 0.0, 1.0]), np.array([1.0, 2.0, 1.0])
    if mode == "constant" and cval != 0:
        # The smoothing pass reads cval past the edges, not the derivative of cval (0).
        first = d.reshape(3, 1) if along_y else d.reshape(1, 3)
        second = s.reshape(1, 3) if along_y else s.reshape(3, 1)

        def passes(work):
            return correlate(correlate(work, first, mode, cval, axes=axes, stream=stream), second, mode, cval, axes=axes, stream=stream)

        return _via_float32(input, output, passes)
    factors = [_fold.fold_taps(d if along_y else s, 1, hw[0], mode), _fold.fold_taps(s if along_y else d, 1, hw[1], mode)]
    return _separable(factors, mode, cval)(input, output=output, axes=axes, stream=stream)


def _via_float32(input, output, run):
    """``run(work)`` on ``input`` as float32 (numpy, torch or CuPy), its result rounded back to
    the input's dtype as :func:`correlate` rounds, and written into ``output`` where given."""
    if _is_dlpack_cuda(input) and not _is_cuda(input):
        raise TypeError("this call takes numpy, torch or CuPy arrays (view a DLPack-only array through torch or CuPy)")
    if _is_cuda(input):
        kind, xp = _framework(input)
        dt = _cuda_info(input)[2]
        if output is not None:
            _check_cuda_output(kind, input, output)
        result = _narrow_cuda(kind, xp, run(input.float() if kind == "torch" else input.astype(xp.float32)), input.dtype, dt)
        return result if output is None else _write_into(kind, result, output, "output")
    x = _native_order(np.asarray(input))
    _dtype_name(x.dtype)
    if output is not None:
        _check_output(output, x.shape, x.dtype)
    result = _narrow(run(x.astype(np.float32)), x.dtype)
    if output is None:
        return result
    output[...] = result
    return output
