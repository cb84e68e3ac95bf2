"""numpy arrays: the axes' layout, the dtypes, and the library's host-memory path (the GPU when
there is one, else all CPU cores), with a pool of dead results' memory for large results."""

from __future__ import annotations

import contextlib
import math
import threading

import numpy as np

from . import _native, _params
from ._params import type_name

_DTYPES = {
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float16): "f16",
}


class _BFloat16:
    """The stand-in numpy dtype of torch's bfloat16 tensors (numpy has none)."""

    name = "bfloat16"
    kind = "f"
    itemsize = 2


BF16 = _BFloat16()


def _image_axes(shape, axes):
    """(y, x, c): the image axes and the channel axis (None) of an array of this shape."""
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"an image needs at least 2 axes, the array has {nd}")
    if axes is not None:
        y, x = _params.axes(axes, nd)
        return y, x, None
    if nd >= 3 and shape[-1] <= 4:
        return nd - 3, nd - 2, nd - 1
    return nd - 2, nd - 1, None


def _dtype_name(dtype):
    if dtype is BF16:
        return "bf16", BF16
    dt = np.dtype(dtype)
    if dt in _DTYPES:
        return _DTYPES[dt], dt
    if dt == np.float64:
        return "f32", np.dtype(np.float32)
    raise TypeError(f"unsupported dtype {dt}: uint8, uint16, float16, float32 or float64 (computed in float32)")


def _compute(f, dtype):
    """(sample type name, computed dtype, the library's constant) of a call on ``dtype``: an
    integer type whose range cannot hold the mode's ``cval`` is computed in float32 (and rounded
    and clamped back), and so are half floats where the kernels do not take the filter."""
    name, compute = _dtype_name(dtype)
    cval = f._level(name)
    if cval is None or name in ("f16", "bf16") and not f._runs_half():
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
    images = math.prod(shape[a] for a in batch)
    channels = shape[c] if c is not None else 1
    return order, (images, shape[y], shape[x], channels)


def _native_order(x):
    """``x`` in its dtype's native byte order (big-endian data, FITS's, converted), as scipy
    returns it."""
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


def _check_output(output, shape, dtype, name="output"):
    """The caller's numpy ``output``: an array of the input's shape and dtype (either byte order)."""
    if not isinstance(output, np.ndarray):
        raise TypeError(f"{name} must be a numpy.ndarray for a numpy input, got {type_name(output)}")
    if output.shape != shape or output.dtype.newbyteorder("=") != dtype:
        raise ValueError(f"{name} must be {shape} {dtype}, got {output.shape} {output.dtype}")
    if not output.flags.writeable:
        raise ValueError(f"{name} is read-only")


# Shapes of packed arrays a plan keeps its short way for (forgotten all at once past this many).
_HOSTS_KEPT = 16


def _packed_apart(output, x):
    """``output`` where a plan writes it as it is (a packed, writable numpy array of ``x``'s shape
    and dtype that shares no memory with ``x``), else None."""
    if (
        type(output) is np.ndarray
        and output.shape == x.shape
        and output.dtype == x.dtype
        and output.flags.c_contiguous
        and output.flags.writeable
        and not np.may_share_memory(x, output)
    ):
        return output
    return None


# The device numpy calls of this thread run on (``device=``; None: the first GPU, else the CPU).
_HOST = threading.local()


def host_device():
    """The device of this thread's numpy calls (``_params.device``'s values)."""
    return getattr(_HOST, "device", None)


@contextlib.contextmanager
def _on(device):
    saved = host_device()
    _HOST.device = device
    try:
        yield
    finally:
        _HOST.device = saved


def on_device(device, input):
    """The context in which a call's numpy arrays are filtered on ``device`` (``device=`` of the
    public functions). A CUDA array is filtered where it is: ``device`` must be None or its own
    device's index."""
    if device is None:
        return contextlib.nullcontext()
    at = getattr(input, "__dlpack_device__", None)
    if at is not None and at()[0] != 1:  # not kDLCPU: a device array
        own = at()[1]
        if device != own or isinstance(device, bool):
            raise ValueError(f"device={device!r}: the input is a CUDA array on device {own}, filtered where it is")
        return contextlib.nullcontext()
    return _on(_params.device(device, _native.device_count()))


def _run_numpy(f, input, output, axes):
    device = host_device()
    if axes is None and type(input) is np.ndarray and input.flags.c_contiguous:
        # A packed array of a shape and dtype this plan ran as it is before: straight on it, into
        # a new result or a packed output apart from it.
        known = f._hosts.get((input.shape, input.dtype, device))
        if known is not None:
            result = _host_empty(input.shape, input.dtype) if output is None else _packed_apart(output, input)
            if result is not None:
                plan, name, (n, h, w, c) = known
                plan.run_host(input.ctypes.data, w * c, result.ctypes.data, w * c, w, h, c, name, n)
                return result
    x = _native_order(np.asarray(input))
    name, compute, cval = _compute(f, x.dtype)
    order, (n, h, w, c) = _layout(x.shape, axes)
    if h == 0 or w == 0 or n == 0:
        raise ValueError(f"an empty image: shape {x.shape}")
    if output is not None:
        _check_output(output, x.shape, x.dtype)
    plan = f._plan(device, cval, h, w)
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
        and output.dtype == compute
        and output.flags.c_contiguous
        # An output that overlaps the input would be written while the input is read.
        and not np.may_share_memory(work, output)
    )
    # The caller's packed output of the computed dtype is written in place.
    result = output.reshape(ni, h, w, ci) if direct else _host_empty((ni, h, w, ci), compute)
    plan.run_host(work.ctypes.data, w * ci, result.ctypes.data, w * ci, w, h, ci, name, ni)
    packed = x is input and x.flags.c_contiguous and compute == x.dtype and order == list(range(x.ndim))
    if axes is None and packed and not planes:
        # Kept (for a bounded number of shapes) for the short way above.
        if len(f._hosts) >= _HOSTS_KEPT:
            f._hosts.clear()
        f._hosts[(x.shape, x.dtype, device)] = (plan, name, (ni, h, w, ci))
    if direct:
        return output
    if planes:
        result = np.moveaxis(result.reshape(n, c, h, w), 1, 3)
    inverse = np.argsort(order)
    shaped = np.transpose(result.reshape([x.shape[a] for a in order]), inverse)
    if output is None:
        return _narrow(shaped, x.dtype)
    output[...] = _narrow(shaped, x.dtype)
    return output


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


def set_pool_max(n: int) -> int:
    """Sets ``_POOL_MAX`` (the pool emptied where it holds more); returns the previous value."""
    global _POOL_MAX
    if n < 0:
        raise ValueError(f"max_bytes must be at least 0, got {n}")
    previous, _POOL_MAX = _POOL_MAX, n
    if _pool_kept[0] > n:
        _pool.clear()
        _pool_kept[0] = 0
    return previous


def _host_empty(shape, dtype):
    """``np.empty(shape, dtype)``, for large arrays from the memory of results that have died
    (a caching allocator, as PyTorch's and CuPy's are for device memory). A fresh array's pages
    are faulted in (and zeroed by the system) at its first touch, which for a 256 MiB result
    costs more than the filter; a result of a size seen before lands in pages already there.
    At most ``_POOL_MAX`` bytes are kept."""
    dtype = np.dtype(dtype)
    n = math.prod(shape) * dtype.itemsize
    if n < _POOL_MIN:
        return np.empty(shape, dtype)
    free = _pool.get(n)
    try:
        raw = free.pop()
        _pool_kept[0] -= n
    except (AttributeError, IndexError):
        raw = np.empty(n, np.uint8)
    return np.asarray(_Pooled(raw, tuple(int(s) for s in shape), dtype))
