"""ferroconv: 2D image correlation and convolution with Rust GPU kernels.

numpy arrays run through the library's host-memory path (the GPU when there is one, else all CPU
cores); CUDA arrays (PyTorch tensors, CuPy arrays, anything with ``__cuda_array_interface__``)
run where they are, without copies, queued on the framework's current stream.

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
]

MODES = ("reflect", "mirror", "nearest", "wrap", "constant")
# Modes the kernels run as they are, by the library's border names. `reflect` (edge repeated)
# and `constant` with a value other than 0 run on a padded copy with the `valid` border.
_NATIVE = {"mirror": "reflect", "nearest": "replicate", "wrap": "wrap"}

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

_DTYPES = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.float32): "f32"}


def gpu_available() -> bool:
    """Whether a GPU can be used (CUDA device 0 opens)."""
    return _native.gpu_available()


class Filter2D:
    """A 2D filter and a mode, planned once and called many times: ``f = Filter2D(w, "mirror");
    f(x)``. It keeps its kernels, its chosen variant and its buffers from call to call (one plan
    for host arrays, one per CUDA device). Same arguments as :func:`correlate`."""

    def __init__(self, weights, mode: str = "reflect", cval: float = 0.0):
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] % 2 == 0:
            raise ValueError(
                f"weights must be a square 2D array of odd size (1x1 to 31x31), got shape {w.shape}"
            )
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}': one of {', '.join(MODES)}")
        self.weights = w
        self.mode = mode
        self.cval = float(cval)
        self.radius = w.shape[0] // 2
        padded = mode == "reflect" or (mode == "constant" and self.cval != 0.0)
        self._pad = padded and self.radius > 0
        if mode == "constant" and not self._pad:
            self._border = "zero"
        elif self._pad:
            self._border = "valid"
        else:
            self._border = _NATIVE.get(mode, "zero")
        self._taps = [float(t) for t in w.astype(np.float32).ravel()]
        self._plans = {}
        self._shapes = {}

    def _plan(self, device):
        plan = self._plans.get(device)
        if plan is None:
            plan = _native.Plan(self._taps, self.weights.shape[0], self._border, device)
            self._plans[device] = plan
        return plan

    @property
    def variant(self):
        """The GPU variant the host plan chose for its last shape (None on the CPU)."""
        plan = self._plans.get(None)
        return plan.variant if plan is not None else None

    def __call__(self, input, output=None, axes=None, stream=None):
        if _is_cuda(input):
            return _run_cuda(self, input, output, axes, stream)
        return _run_numpy(self, input, output, axes)


def correlate(input, weights, mode="reflect", cval=0.0, output=None, axes=None, stream=None):
    """Correlates ``input`` with the square ``weights`` (odd size, 1x1 to 31x31), as
    ``scipy.ndimage.correlate`` and ``cupyx.scipy.ndimage.correlate`` do on the image axes.

    input: a numpy array, or a CUDA array (PyTorch, CuPy, ``__cuda_array_interface__``) filtered
        where it is, on ``stream`` (a raw CUDA stream handle) or else the framework's current
        stream; the call returns without synchronizing.
    mode: ``reflect``, ``mirror``, ``nearest``, ``wrap`` or ``constant`` (with ``cval``); see the
        module's docstring.
    output: an array of the input's shape and dtype to write into, else a new one.
    axes: the two image axes ``(y, x)``; by default the last two, or the two before a last axis of
        at most 4 entries (channels).

    Returns the result, of the input's shape and dtype (the same kind of array). uint8, uint16
    and float32 run as they are; float64 runs in float32 and comes back as float64; integer
    results are rounded and clamped.
    """
    return Filter2D(weights, mode, cval)(input, output=output, axes=axes, stream=stream)


def convolve(input, weights, mode="reflect", cval=0.0, output=None, axes=None, stream=None):
    """Convolves ``input`` with ``weights``: :func:`correlate` with the weights flipped on both
    axes, as ``scipy.ndimage.convolve`` does for odd sizes."""
    w = np.asarray(weights)
    return correlate(input, w[::-1, ::-1], mode, cval, output, axes, stream)


def filter2d(src, ddepth, kernel, dst=None, anchor=None, delta=0, borderType=BORDER_DEFAULT):
    """``cv2.filter2D``'s call: correlates ``src`` (H x W or H x W x C) with ``kernel``.
    ``ddepth`` must be -1 (the input's depth); ``anchor`` the centre and ``delta`` 0."""
    if ddepth != -1:
        raise ValueError("ddepth must be -1 (the input's depth)")
    if anchor not in (None, (-1, -1)) or delta != 0:
        raise ValueError("anchor must be the kernel's centre and delta 0")
    mode = _CV_MODES.get(borderType)
    if mode is None:
        raise ValueError(f"unsupported borderType {borderType}")
    return correlate(src, kernel, mode, 0.0, output=dst)


def _square(wy, wx):
    """The 2D weights ``outer(wy, wx)``, the shorter side padded with zeros to a square."""
    r = max(len(wy), len(wx)) // 2
    pad = lambda v: np.pad(np.asarray(v, dtype=np.float64), (r - len(v) // 2,) * 2)
    return np.outer(pad(wy), pad(wx))


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
    at ``radius``) as scipy cuts it. The filter is at most 31 x 31: sigma up to 3.75 at
    ``truncate=4``. Arrays, modes and dtypes as in :func:`correlate`."""
    sy, sx = _per_axis(sigma, "sigma")
    ry, rx = (None, None) if radius is None else tuple(int(r) for r in _per_axis(radius, "radius"))
    w = _square(_gaussian_1d(sy, truncate, ry), _gaussian_1d(sx, truncate, rx))
    return correlate(input, w, mode, cval, output, axes, stream)


def uniform_filter(input, size=3, output=None, mode="reflect", cval=0.0, *, axes=None, stream=None):
    """``scipy.ndimage.uniform_filter`` on the image axes only: the mean over a ``size`` window
    (one odd size, or ``(size_y, size_x)``, up to 31). Arrays, modes and dtypes as in
    :func:`correlate`."""
    ky, kx = (int(k) for k in _per_axis(size, "size"))
    if ky % 2 == 0 or kx % 2 == 0 or ky < 1 or kx < 1:
        raise ValueError(f"size must be odd (the window centred on each pixel), got {(ky, kx)}")
    return correlate(input, _square(np.full(ky, 1 / ky), np.full(kx, 1 / kx)), mode, cval, output, axes, stream)


def sobel(input, axis=-1, output=None, mode="reflect", cval=0.0, *, axes=None, stream=None):
    """``scipy.ndimage.sobel`` on the image axes only: the derivative along image axis ``axis``
    (0 or -2: along y; 1 or -1: along x) with [-1, 0, 1], smoothed across with [1, 2, 1].
    Unsigned results are clamped at 0 (scipy wraps them around): use a float dtype for signed
    derivatives. Arrays and modes as in :func:`correlate`."""
    if axis not in (0, 1, -1, -2):
        raise ValueError(f"axis names an image axis: 0 or -2 (y), 1 or -1 (x); got {axis}")
    d, s = [-1.0, 0.0, 1.0], [1.0, 2.0, 1.0]
    w = _square(d, s) if axis in (0, -2) else _square(s, d)
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


def _layout(shape, axes):
    """The permutation that puts the batch axes first, then y, x and the channels, and the
    (images, height, width, channels) the permuted array is viewed as."""
    y, x, c = _image_axes(shape, axes)
    batch = [a for a in range(len(shape)) if a not in (y, x, c)]
    order = batch + [y, x] + ([c] if c is not None else [])
    images = int(np.prod([shape[a] for a in batch], dtype=np.int64)) if batch else 1
    channels = shape[c] if c is not None else 1
    return order, (images, shape[y], shape[x], channels)


def _pad_numpy(x, r, mode, cval):
    """``x`` (images, H, W, C) padded by ``r`` on both image axes for the modes that run as
    `valid`: edge-repeating reflection or a constant."""
    width = ((0, 0), (r, r), (r, r), (0, 0))
    if mode == "reflect":
        return np.pad(x, width, mode="symmetric")
    return np.pad(x, width, mode="constant", constant_values=cval)


def _run_numpy(f, input, output, axes):
    x = np.asarray(input)
    name, compute = _dtype_name(x.dtype)
    order, (n, h, w, c) = _layout(x.shape, axes)
    if h == 0 or w == 0 or n == 0:
        raise ValueError(f"an empty image: shape {x.shape}")
    work = np.ascontiguousarray(np.transpose(x, order).reshape(n, h, w, c), dtype=compute)
    planes = c not in (1, 3)
    if planes:
        # Other channel counts, and RGBA (whose alpha the kernels copy instead of filtering),
        # run as one gray image per channel.
        work = np.ascontiguousarray(np.moveaxis(work, 3, 1)).reshape(n * c, h, w, 1)
    if f._pad:
        work = _pad_numpy(work, f.radius, f.mode, f.cval)
    ni, hi, wi, ci = work.shape
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
    result = output.reshape(ni, h, w, ci) if direct else np.empty((ni, h, w, ci), dtype=compute)
    f._plan(None).run_host(
        work.ctypes.data, wi * ci, result.ctypes.data, w * ci, wi, hi, ci, name, ni
    )
    if direct:
        return output
    if planes:
        result = np.moveaxis(result.reshape(n, c, h, w), 1, 3)
    inverse = np.argsort(order)
    shaped = np.transpose(result.reshape([x.shape[a] for a in order]), inverse)
    if output is None:
        return np.ascontiguousarray(shaped, dtype=x.dtype)
    out = np.asarray(output)
    if out.shape != x.shape or out.dtype != x.dtype:
        raise ValueError(f"output must be {x.shape} {x.dtype}, got {out.shape} {out.dtype}")
    out[...] = shaped
    return out


def _is_cuda(a):
    return hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray)


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


def _current_stream(kind, xp, input):
    if kind == "torch":
        return xp.cuda.current_stream(input.device).cuda_stream
    return xp.cuda.get_current_stream().ptr


def _shape_info(f, shape, dt, axes):
    """What a call on arrays of this shape, dtype and axes needs, worked out once per plan:
    the sample type's name and computed dtype, the axes' order, (images, height, width,
    channels), and whether the array runs as it is (batch axes first, then the image and 1 or
    3 interleaved channels, a native dtype, a border the kernels have)."""
    key = (shape, dt, axes)
    info = f._shapes.get(key)
    if info is None:
        name, compute = _dtype_name(dt)
        order, dims = _layout(shape, axes)
        direct = compute == dt and dims[3] in (1, 3) and not f._pad and order == list(range(len(shape)))
        info = (name, compute, order, dims, direct)
        f._shapes[key] = info
    return info


def _run_cuda(f, input, output, axes, stream):
    kind, xp = _framework(input)
    ptr, shape, dt, contiguous = _cuda_info(input)
    name, compute, order, (n, h, w, c), direct = _shape_info(f, shape, dt, axes)
    device = input.device.index if kind == "torch" else input.device.id
    if stream is None:
        stream = _current_stream(kind, xp, input)
    size = compute.itemsize
    # The common case runs on the caller's memory as it is, packed.
    if direct and contiguous and (output is None or _cuda_info(output)[1:] == (shape, dt, True)):
        result = xp.empty_like(input) if output is None else output
        f._plan(device).run_device(ptr, w * c * size, _cuda_info(result)[0], w * c * size, w, h, c, name, n, int(stream))
        return result
    if kind == "torch":
        work = input.permute(*order).reshape(n, h, w, c)
        if dt == np.float64:
            work = work.float()
        if c not in (1, 3):
            work = work.permute(0, 3, 1, 2).reshape(n * c, h, w, 1)
        work = work.contiguous()
    else:
        work = xp.transpose(input, order).reshape(n, h, w, c)
        if dt == np.float64:
            work = work.astype(xp.float32)
        if c not in (1, 3):
            work = xp.moveaxis(work, 3, 1).reshape(n * c, h, w, 1)
        work = xp.ascontiguousarray(work)
    if f._pad:
        work = _pad_cuda(kind, xp, work, f.radius, f.mode, f.cval)
    ni, hi, wi, ci = (int(s) for s in work.shape)
    if kind == "torch":
        result = xp.empty((ni, h, w, ci), dtype=work.dtype, device=work.device)
    else:
        result = xp.empty((ni, h, w, ci), dtype=work.dtype)
    f._plan(device).run_device(
        _cuda_info(work)[0], wi * ci * size, _cuda_info(result)[0], w * ci * size, wi, hi, ci, name, ni, int(stream)
    )
    if c not in (1, 3):
        result = result.reshape(n, c, h, w)
        result = result.permute(0, 2, 3, 1) if kind == "torch" else xp.moveaxis(result, 1, 3)
    inverse = [int(i) for i in np.argsort(order)]
    shaped = result.reshape([shape[a] for a in order])
    shaped = shaped.permute(*inverse) if kind == "torch" else xp.transpose(shaped, inverse)
    if dt == np.float64:
        shaped = shaped.double() if kind == "torch" else shaped.astype(xp.float64)
    if output is None:
        return shaped.contiguous() if kind == "torch" else xp.ascontiguousarray(shaped)
    if tuple(output.shape) != tuple(shape):
        raise ValueError(f"output must have shape {tuple(shape)}, got {tuple(output.shape)}")
    if kind == "torch":
        output.copy_(shaped)
    else:
        output[...] = shaped
    return output


def _pad_cuda(kind, xp, x, r, mode, cval):
    """`_pad_numpy` for torch and CuPy arrays (images, H, W, C), on the array's device."""
    n, h, w, c = (int(s) for s in x.shape)
    if mode == "reflect":
        def index(size):
            # numpy's `symmetric` padding: the sequence repeats every 2·size, mirrored.
            m = np.arange(-r, size + r) % (2 * size)
            return np.where(m < size, m, 2 * size - 1 - m)

        if kind == "torch":
            iy = xp.as_tensor(index(h), device=x.device)
            ix = xp.as_tensor(index(w), device=x.device)
            return x.index_select(1, iy).index_select(2, ix).contiguous()
        return xp.ascontiguousarray(xp.take(xp.take(x, xp.asarray(index(h)), axis=1), xp.asarray(index(w)), axis=2))
    if kind == "torch":
        out = xp.full((n, h + 2 * r, w + 2 * r, c), cval, dtype=x.dtype, device=x.device)
    else:
        out = xp.full((n, h + 2 * r, w + 2 * r, c), cval, dtype=x.dtype)
    out[:, r : r + h, r : r + w] = x
    return out
