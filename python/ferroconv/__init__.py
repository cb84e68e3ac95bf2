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
returned as float64. Integer results are rounded to the nearest integer and clamped to the
type's range (scipy truncates and wraps around).
"""

from __future__ import annotations

import sys

import numpy as np

from . import _native

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

MODES = ("reflect", "mirror", "nearest", "wrap", "constant")
# The library's border of each mode.
_NATIVE = {"reflect": "symmetric", "mirror": "reflect", "nearest": "replicate", "wrap": "wrap", "constant": "constant"}
# The largest level of the integer sample types.
_LEVELS = {"u8": 255, "u16": 65535}

# OpenCV's border constants (same values as cv2's).
BORDER_CONSTANT = 0
BORDER_REPLICATE = 1
BORDER_REFLECT = 2
BORDER_WRAP = 3
BORDER_REFLECT_101 = 4
BORDER_DEFAULT = BORDER_REFLECT_101
_CV_MODES = {
    BORDER_CONSTANT: "constant",
    BORDER_REPLICATE: "nearest",
    BORDER_REFLECT: "reflect",
    BORDER_WRAP: "wrap",
    BORDER_REFLECT_101: "mirror",
}

# OpenCV's depth constants (same values as cv2's) and their dtypes.
CV_8U, CV_16U, CV_16S, CV_32F, CV_64F = 0, 2, 3, 5, 6
_CV_DEPTHS = {CV_8U: np.uint8, CV_16U: np.uint16, CV_16S: np.int16, CV_32F: np.float32, CV_64F: np.float64}

_DTYPES = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.float32): "f32"}


def gpu_available() -> bool:
    """Whether a GPU can be used (CUDA device 0 opens)."""
    return _native.gpu_available()


class Filter2D:
    """A 2D filter and a mode, planned once and called many times: ``f = Filter2D(w, "mirror");
    f(x)``. It keeps its kernels, its chosen variant and its buffers from call to call (one plan
    for host arrays, one per CUDA device). Same arguments as :func:`correlate`. ``radius`` is the
    farthest any tap reaches from the output pixel (the ``depth`` a chunked caller needs)."""

    def __init__(self, weights, mode: str = "reflect", cval: float = 0.0, origin=0):
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 2 or w.size == 0:
            raise ValueError(f"weights must be a 2D array (1x1 to 127x127), got shape {w.shape}")
        oy, ox = (int(o) for o in _per_axis(origin, "origin"))
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}': one of {', '.join(MODES)}")
        self.weights = w
        self.mode = mode
        self.cval = float(cval)
        if not np.isfinite(self.cval):
            raise ValueError(f"cval must be finite, got {cval}")
        self.origin = (oy, ox)
        self.radius = max(max(k // 2 + o, k - 1 - (k // 2 + o)) for k, o in zip(w.shape, self.origin))
        self._border = _NATIVE[mode]
        self._taps = [float(t) for t in w.astype(np.float32).ravel()]
        # Checks the shape and origin now, not at the first call.
        _native.check_filter(self._taps, w.shape, self.origin)
        self._plans = {}
        self._shapes = {}
        # Per (shape, dtype, device, axes) of a packed torch tensor or CuPy array that runs as it
        # is: (native plan, row pitch in bytes, width, height, channels, sample type, images).
        self._direct = {}

    def _cval(self, name):
        """The library's constant for samples of type ``name`` (the scale of float32 samples:
        integer levels over their maximum), or None where that type cannot hold ``cval`` (not
        a whole level of its range): the call then computes in float32."""
        if self.mode != "constant":
            return 0.0
        top = _LEVELS.get(name)
        if top is None:
            return self.cval
        if self.cval.is_integer() and 0 <= self.cval <= top:
            return self.cval / top
        return None

    def _plan(self, device, cval):
        key = (device, cval)
        plan = self._plans.get(key)
        if plan is None:
            plan = _native.Plan(self._taps, self.weights.shape, self.origin, self._border, cval, device)
            self._plans[key] = plan
        return plan

    @property
    def variant(self):
        """The GPU variant the host plan chose for its last shape (None on the CPU)."""
        plans = [p for (device, _), p in self._plans.items() if device is None]
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
        if _is_cuda(input):
            return _run_cuda(self, input, output, axes, stream)
        if _is_dlpack_cuda(input):
            return _run_dlpack(self, input, output, axes, stream)
        return _run_numpy(self, input, output, axes)


def correlate(input, weights, mode="reflect", cval=0.0, output=None, axes=None, stream=None, origin=0):
    """Correlates ``input`` with ``weights`` (2D, any shape up to 127x127, or up to 1023x1023
    where they are rank 1, ``outer(wy, wx)``, which the separable passes run), as
    ``scipy.ndimage.correlate`` and ``cupyx.scipy.ndimage.correlate`` do on the image axes.

    input: a numpy array, or a CUDA array (PyTorch, CuPy, ``__cuda_array_interface__``) filtered
        where it is, on ``stream`` (a raw CUDA stream handle) or else the framework's current
        stream; the call returns without synchronizing.
    mode: ``reflect``, ``mirror``, ``nearest``, ``wrap`` or ``constant`` (with ``cval``); see the
        module's docstring.
    output: an array of the input's shape and dtype to write into, else a new one.
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
    w = np.asarray(weights)
    if w.ndim != 2:
        raise ValueError(f"weights must be a 2D array (1x1 to 127x127), got shape {w.shape}")
    flipped = tuple(-int(o) - (1 - k % 2) for k, o in zip(w.shape, _per_axis(origin, "origin")))
    return correlate(input, w[::-1, ::-1], mode, cval, output, axes, stream, flipped)


def filter2d(src, ddepth, kernel, dst=None, anchor=None, delta=0, borderType=BORDER_DEFAULT):
    """``cv2.filter2D``'s call: correlates ``src`` (H x W or H x W x C) with ``kernel`` (any
    shape up to 127x127) placed on ``anchor`` ``(x, y)``, a tap of the kernel (default
    ``(-1, -1)``: its centre, ``(cols // 2, rows // 2)``), and adds ``delta``.

    ddepth: ``-1`` (the input's dtype), or ``CV_8U``, ``CV_16U``, ``CV_16S``, ``CV_32F``,
        ``CV_64F`` (cv2's values). Another depth, or a ``delta``, computes in sample counts as
        OpenCV does: the samples as float32 (0-255 for uint8), correlated, ``delta`` added,
        then converted (integers rounded and saturated). So ``CV_16S`` and ``CV_32F`` keep a
        derivative's sign where ``-1`` on uint8 clamps it at 0.
    """
    k = np.asarray(kernel)
    if k.ndim != 2:
        raise ValueError(f"kernel must be a 2D array, got shape {k.shape}")
    ax, ay = (-1, -1) if anchor is None else (int(a) for a in anchor)
    rows, cols = k.shape
    origin = (0 if ay == -1 else ay - rows // 2, 0 if ax == -1 else ax - cols // 2)
    mode = _CV_MODES.get(borderType)
    if mode is None:
        raise ValueError(f"unsupported borderType {borderType}")
    kind, xp = _framework(src) if _is_cuda(src) else ("numpy", np)
    dt = _cuda_info(src)[2] if kind != "numpy" else np.asarray(src).dtype
    if ddepth == -1:
        target = np.dtype(dt)
    elif ddepth in _CV_DEPTHS:
        target = np.dtype(_CV_DEPTHS[ddepth])
    else:
        raise ValueError(f"unsupported ddepth {ddepth}: -1, CV_8U, CV_16U, CV_16S, CV_32F or CV_64F")
    if target == dt and delta == 0:
        return correlate(src, k, mode, 0.0, output=dst, origin=origin)
    if kind == "numpy":
        counts = correlate(np.asarray(src, dtype=np.float32), k, mode, 0.0, origin=origin) + np.float32(delta)
        result = _narrow(counts, target)
    else:
        work = src.float() if kind == "torch" else src.astype(xp.float32)
        counts = correlate(work, k, mode, 0.0, origin=origin) + delta
        framework_dtype = getattr(xp, target.name) if kind == "torch" else target
        result = _narrow_cuda(kind, xp, counts, framework_dtype, target)
    return result if dst is None else _write_into(kind, result, dst, "dst")


def _write_into(kind, result, output, name):
    """``result`` copied into the caller's array ``output`` (of its shape), which is returned."""
    if tuple(output.shape) != tuple(result.shape):
        raise ValueError(f"{name} must have shape {tuple(result.shape)}, got {tuple(output.shape)}")
    if kind == "torch":
        output.copy_(result)
    else:
        output[...] = result
    return output


def _per_axis(value, what):
    v = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if v.size == 1:
        return float(v[0]), float(v[0])
    if v.size == 2:
        return float(v[0]), float(v[1])
    raise ValueError(f"{what} takes one value or one per image axis (y, x), got {v.size}")


def _gaussian_1d(sigma, truncate, radius):
    r = int(truncate * sigma + 0.5) if radius is None else int(radius)
    if sigma == 0 or r == 0:
        return np.ones(1)
    x = np.arange(-r, r + 1)
    phi = np.exp(-0.5 / (sigma * sigma) * x * x)
    return phi / phi.sum()


def gaussian_filter(
    input, sigma, output=None, mode="reflect", cval=0.0, truncate=4.0, *, radius=None, axes=None, stream=None
):
    """``scipy.ndimage.gaussian_filter`` on the image axes only: a Gaussian of standard deviation
    ``sigma`` (one value, or ``(sigma_y, sigma_x)``), cut at ``truncate`` standard deviations (or
    at ``radius``) as scipy cuts it, each axis sized by its own sigma. Each side is at most 1023
    (sigma up to 127 at ``truncate=4``): the filter is rank 1, which the separable passes run.
    Arrays, modes and dtypes as in :func:`correlate`."""
    sy, sx = _per_axis(sigma, "sigma")
    ry, rx = (None, None) if radius is None else tuple(int(r) for r in _per_axis(radius, "radius"))
    w = np.outer(_gaussian_1d(sy, truncate, ry), _gaussian_1d(sx, truncate, rx))
    return correlate(input, w, mode, cval, output, axes, stream)


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, *, axes=None, stream=None):
    """``scipy.ndimage.uniform_filter`` on the image axes only: the mean over a ``size`` window
    (one size, or ``(size_y, size_x)``, 1 to 1023; an even side is centred as scipy centres it).
    Arrays, modes and dtypes as in :func:`correlate`."""
    ky, kx = (int(k) for k in _per_axis(size, "size"))
    if ky < 1 or kx < 1:
        raise ValueError(f"size must be at least 1 on each axis, got {(ky, kx)}")
    return correlate(input, np.full((ky, kx), 1 / (ky * kx)), mode, cval, output, axes, stream)


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0, *, axes=None, stream=None):
    """``scipy.ndimage.sobel`` on the image axes only: the derivative along image axis ``axis``
    (0 or -2: along y; 1 or -1: along x) with [-1, 0, 1], smoothed across with [1, 2, 1].
    Unsigned results are clamped at 0 (scipy wraps them around): use a float dtype for signed
    derivatives. Arrays and modes as in :func:`correlate`."""
    if axis not in (0, 1, -1, -2):
        raise ValueError(f"axis names an image axis: 0 or -2 (y), 1 or -1 (x); got {axis}")
    d, s = [-1.0, 0.0, 1.0], [1.0, 2.0, 1.0]
    w = np.outer(d, s) if axis in (0, -2) else np.outer(s, d)
    return correlate(input, w, mode, cval, output, axes, stream)


def _image_axes(shape, axes):
    """(y, x, c): the image axes and the channel axis (None) of an array of this shape."""
    nd = len(shape)
    if axes is not None:
        y, x = (a % nd if -nd <= a < nd else None for a in axes)
        if y is None or x is None or y == x:
            raise ValueError(f"axes {axes} do not name two distinct axes of a {nd}-D array")
        return y, x, None
    if nd < 2:
        raise ValueError(f"an image needs at least 2 axes, the array has {nd}")
    if nd >= 3 and shape[-1] <= 4:
        return nd - 3, nd - 2, nd - 1
    return nd - 2, nd - 1, None


def _dtype_name(dtype):
    dt = np.dtype(dtype)
    if dt in _DTYPES:
        return _DTYPES[dt], dt
    if dt == np.float64:
        return "f32", np.dtype(np.float32)
    raise TypeError(f"unsupported dtype {dt}: uint8, uint16, float32 or float64 (computed in float32)")


def _compute(f, dtype):
    """(sample type name, computed dtype, the library's constant) of a call on ``dtype``: an
    integer type whose range cannot hold the mode's ``cval`` is computed in float32 (and rounded
    and clamped back)."""
    name, compute = _dtype_name(dtype)
    cval = f._cval(name)
    if cval is None:
        return "f32", np.dtype(np.float32), f.cval
    return name, compute, cval


def _narrow(a, dtype):
    """Float results as ``dtype``: integers rounded to the nearest and clamped to the range.
    Results already of ``dtype`` are only made contiguous (``rint`` of integers would compute in
    float16, slowly)."""
    if a.dtype == dtype:
        return np.ascontiguousarray(a)
    if np.dtype(dtype).kind in "ui":
        info = np.iinfo(dtype)
        a = np.clip(np.rint(a), info.min, info.max)
    return np.ascontiguousarray(a, dtype=dtype)


def _layout(shape, axes):
    """The permutation that puts the batch axes first, then y, x and the channels, and the
    (images, height, width, channels) the permuted array is viewed as."""
    y, x, c = _image_axes(shape, axes)
    batch = [a for a in range(len(shape)) if a not in (y, x, c)]
    order = batch + [y, x] + ([c] if c is not None else [])
    images = int(np.prod([shape[a] for a in batch], dtype=np.int64)) if batch else 1
    channels = shape[c] if c is not None else 1
    return order, (images, shape[y], shape[x], channels)


def _run_numpy(f, input, output, axes):
    x = np.asarray(input)
    name, compute, cval = _compute(f, x.dtype)
    order, (n, h, w, c) = _layout(x.shape, axes)
    if h == 0 or w == 0 or n == 0:
        raise ValueError(f"an empty image: shape {x.shape}")
    work = np.ascontiguousarray(np.transpose(x, order).reshape(n, h, w, c), dtype=compute)
    planes = c not in (1, 3, 4)
    if planes:
        # Other channel counts run as one gray image per channel.
        work = np.ascontiguousarray(np.moveaxis(work, 3, 1)).reshape(n * c, h, w, 1)
    ni, ci = work.shape[0], work.shape[3]
    direct = (
        output is not None
        and not planes
        and order == list(range(x.ndim))
        and isinstance(output, np.ndarray)
        and output.shape == x.shape
        and output.dtype == compute
        and output.flags.c_contiguous
        and output.flags.writeable
    )
    # The caller's packed output of the computed dtype is written in place.
    result = output.reshape(ni, h, w, ci) if direct else _host_empty((ni, h, w, ci), compute)
    f._plan(None, cval).run_host(
        work.ctypes.data, w * ci, result.ctypes.data, w * ci, w, h, ci, name, ni
    )
    if direct:
        return output
    if planes:
        result = np.moveaxis(result.reshape(n, c, h, w), 1, 3)
    inverse = np.argsort(order)
    shaped = np.transpose(result.reshape([x.shape[a] for a in order]), inverse)
    if output is None:
        return _narrow(shaped, x.dtype)
    out = np.asarray(output)
    if out.shape != x.shape or out.dtype != x.dtype:
        raise ValueError(f"output must be {x.shape} {x.dtype}, got {out.shape} {out.dtype}")
    out[...] = _narrow(shaped, x.dtype)
    return out


# Host results of at least this many bytes come from the pool of ``_host_empty``.
_POOL_MIN = 1 << 20
# The most bytes of results the pool keeps for reuse.
_POOL_MAX = 1 << 30
# Byte counts -> 1-D uint8 arrays whose results have died, and their total.
_pool = {}
_pool_kept = [0]


class _Pooled:
    """The owner (an array's ``base``) of a result's memory taken from the pool: when the last
    array viewing it dies, the memory goes back to the pool instead of to the system."""

    __slots__ = ("raw", "__array_interface__")

    def __init__(self, raw, shape, dtype):
        self.raw = raw
        self.__array_interface__ = {"data": (raw.ctypes.data, False), "shape": shape, "typestr": dtype.str, "version": 3}

    def __del__(self):
        raw, n = self.raw, self.raw.nbytes
        try:
            if _pool_kept[0] + n <= _POOL_MAX:
                _pool.setdefault(n, []).append(raw)
                _pool_kept[0] += n
        except TypeError:
            pass  # at interpreter exit, the module's globals may be gone (None) first


def _host_empty(shape, dtype):
    """``np.empty(shape, dtype)``, for large arrays from the memory of results that have died
    (a caching allocator, as PyTorch's and CuPy's are for device memory). A fresh array's pages
    are faulted in (and zeroed by the system) at its first touch, which for a 256 MiB result
    costs more than the filter; a result of a size seen before lands in pages already there.
    At most ``_POOL_MAX`` bytes are kept."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if n < _POOL_MIN:
        return np.empty(shape, dtype)
    free = _pool.get(n)
    try:
        raw = free.pop()
        _pool_kept[0] -= n
    except (AttributeError, IndexError):
        raw = np.empty(n, np.uint8)
    return np.asarray(_Pooled(raw, tuple(int(s) for s in shape), dtype))


def _is_cuda(a):
    return hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray)


# DLPack's device type of CUDA memory.
_KDLCUDA = 2


def _is_dlpack_cuda(a):
    """Whether ``a`` is an array on a CUDA device that only DLPack describes (JAX, ...)."""
    device = getattr(a, "__dlpack_device__", None)
    return device is not None and hasattr(a, "__dlpack__") and device()[0] == _KDLCUDA


def _run_dlpack(f, input, output, axes, stream):
    """A DLPack array: viewed without a copy as a torch tensor (or a CuPy array), which takes
    the producer's work in order on its stream; the result goes back to the caller's kind through
    its array namespace's ``from_dlpack`` (the array API standard's), or into ``output=``."""
    try:
        import torch

        view = torch.from_dlpack
    except ImportError:
        try:
            import cupy

            view = cupy.from_dlpack
        except ImportError:
            raise TypeError("a DLPack-only CUDA array needs torch or CuPy installed to be viewed") from None
    out = None if output is None else view(output)
    result = _run_cuda(f, view(input), out, axes, stream)
    if output is not None:
        return output
    namespace = getattr(input, "__array_namespace__", None)
    if namespace is None:
        return result
    return namespace().from_dlpack(result)


def _framework(a):
    mod = type(a).__module__.split(".")[0]
    if mod == "torch":
        import torch

        return "torch", torch
    if mod == "cupy":
        import cupy

        return "cupy", cupy
    raise TypeError(f"unsupported CUDA array type {type(a).__name__}: PyTorch tensors or CuPy arrays")


def _cuda_info(a):
    """(pointer, shape, numpy dtype, contiguous) of a CUDA array, read from its own attributes
    (faster than building ``__cuda_array_interface__``'s dict)."""
    if type(a).__module__.startswith("torch"):
        dt = _TORCH_DTYPES().get(a.dtype)
        if dt is None:
            raise TypeError(f"unsupported dtype {a.dtype}: uint8, uint16, float32 or float64 (computed in float32)")
        return a.data_ptr(), tuple(a.shape), dt, a.is_contiguous()
    return a.data.ptr, a.shape, a.dtype, a.flags.c_contiguous


_torch_dtypes = None


def _TORCH_DTYPES():
    global _torch_dtypes
    if _torch_dtypes is None:
        import torch

        _torch_dtypes = {
            torch.uint8: np.dtype(np.uint8),
            torch.float32: np.dtype(np.float32),
            torch.float64: np.dtype(np.float64),
        }
        if hasattr(torch, "uint16"):
            _torch_dtypes[torch.uint16] = np.dtype(np.uint16)
    return _torch_dtypes


def _torch_stream(torch, device):
    """The raw handle of torch's current stream on CUDA device ``device`` (an index)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        return torch.cuda.current_stream(device).cuda_stream
    return raw(device)


def _current_stream(kind, xp, input):
    if kind == "torch":
        return _torch_stream(xp, input.device.index)
    return xp.cuda.get_current_stream().ptr


def _shape_info(f, shape, dt, axes):
    """What a call on arrays of this shape, dtype and axes needs, worked out once per plan:
    the sample type's name and computed dtype, the axes' order, (images, height, width,
    channels), the library's constant, and whether the array runs as it is (batch axes first,
    then the image and 1, 3 or 4 interleaved channels, computed in its own dtype)."""
    key = (shape, dt, axes)
    info = f._shapes.get(key)
    if info is None:
        name, compute, cval = _compute(f, dt)
        order, dims = _layout(shape, axes)
        direct = compute == dt and dims[3] in (1, 3, 4) and order == list(range(len(shape)))
        info = (name, compute, cval, order, dims, direct)
        f._shapes[key] = info
    return info


def _run_cuda(f, input, output, axes, stream):
    kind, xp = _framework(input)
    ptr, shape, dt, contiguous = _cuda_info(input)
    name, compute, cval, order, (n, h, w, c), direct = _shape_info(f, shape, dt, axes)
    device = input.device.index if kind == "torch" else input.device.id
    if stream is None:
        stream = _current_stream(kind, xp, input)
    size = compute.itemsize
    # The common case runs on the caller's memory as it is, packed.
    if direct and contiguous and (output is None or _cuda_info(output)[1:] == (shape, dt, True)):
        result = xp.empty_like(input) if output is None else output
        plan = f._plan(device, cval)
        plan.run_device(ptr, w * c * size, _cuda_info(result)[0], w * c * size, w, h, c, name, n, int(stream))
        # The next call of this shape takes the short way in ``Filter2D.__call__``.
        f._direct[(input.shape, input.dtype, device, axes)] = (plan, w * c * size, w, h, c, name, n)
        return result
    if kind == "torch":
        work = input.permute(*order).reshape(n, h, w, c)
        if compute != dt:
            work = work.float()
        if c not in (1, 3, 4):
            work = work.permute(0, 3, 1, 2).reshape(n * c, h, w, 1)
        work = work.contiguous()
    else:
        work = xp.transpose(input, order).reshape(n, h, w, c)
        if compute != dt:
            work = work.astype(xp.float32)
        if c not in (1, 3, 4):
            work = xp.moveaxis(work, 3, 1).reshape(n * c, h, w, 1)
        work = xp.ascontiguousarray(work)
    ni, ci = int(work.shape[0]), int(work.shape[3])
    if kind == "torch":
        result = xp.empty((ni, h, w, ci), dtype=work.dtype, device=work.device)
    else:
        result = xp.empty((ni, h, w, ci), dtype=work.dtype)
    f._plan(device, cval).run_device(
        _cuda_info(work)[0], w * ci * size, _cuda_info(result)[0], w * ci * size, w, h, ci, name, ni, int(stream)
    )
    if c not in (1, 3, 4):
        result = result.reshape(n, c, h, w)
        result = result.permute(0, 2, 3, 1) if kind == "torch" else xp.moveaxis(result, 1, 3)
    inverse = [int(i) for i in np.argsort(order)]
    shaped = result.reshape([shape[a] for a in order])
    shaped = shaped.permute(*inverse) if kind == "torch" else xp.transpose(shaped, inverse)
    if compute != dt:
        shaped = _narrow_cuda(kind, xp, shaped, input.dtype, dt)
    if output is None:
        return shaped.contiguous() if kind == "torch" else xp.ascontiguousarray(shaped)
    return _write_into(kind, shaped, output, "output")


def _narrow_cuda(kind, xp, a, dtype, np_dtype):
    """:func:`_narrow` for torch and CuPy arrays (``dtype`` the framework's, ``np_dtype`` numpy's)."""
    if np_dtype.kind in "ui":
        info = np.iinfo(np_dtype)
        a = a.round().clamp(info.min, info.max) if kind == "torch" else xp.clip(xp.rint(a), info.min, info.max)
    return a.to(dtype) if kind == "torch" else a.astype(dtype)
