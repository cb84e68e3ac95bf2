"""N-D filters on the 2D kernels, without copies: a 1D pass along any axis, and a 2D filter on two
neighbouring axes, each a view of the contiguous array as ``(images, height, width, channels)``.

A pass along axis ``a`` of shape ``S``, with ``inner = prod(S[a+1:])`` entries after it:
``inner == 1`` is a row pass (taps ``1 x k``) over ``prod(S[:a])`` rows of ``S[a]`` samples;
``inner`` of 3 or 4 the same with that many interleaved channels; any other ``inner`` a column pass
(taps ``k x 1``) over ``prod(S[:a])`` images of ``S[a]`` rows of ``inner`` samples. A 2D filter on
axes ``(a, a + 1)`` takes ``prod(S[a+2:])`` (1, 3 or 4) as channels. Weights of more axes run as a
sum of 2D filters of shifted slabs. The kernels compute float32, and float64 on CUDA arrays (a
filter of one or two neighbouring axes, each side to 127 taps); float64 numpy arrays run on the
library's CPU plan in float64 (a filter of one or two neighbouring axes, any length), and so do
float32 numpy arrays' 1D passes, in float32, where there is no GPU; other float64 results and
filters the kernels do not take are computed element-wise in the array's own framework, in its
dtype.

Every filter arrives here as taps folded for the axis they run on (``_fold``), so any filter
runs in at most ``2n + 1`` taps on an axis of ``n`` samples."""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict

import numpy as np

from . import _cuda, _native, _numpy, _xp
from ._kernel2d import _NATIVE, MAX_SIDE, Kernel2D

# The library's largest side of a filter that is not rank 1.
_MAX_DENSE = 127
# Plans kept: the least recently used goes past this many.
CACHE_SIZE = 64
_plans = OrderedDict()


def plan(weights, centre, mode, cval):
    """The kept plan of float64 2D ``weights`` centred on tap ``centre`` (made on first use, the
    least recently used dropped past ``CACHE_SIZE``), or None where the kernels do not take them.
    Its integer results are truncated as scipy casts them (float32 results are the same either
    way)."""
    key = (weights.shape, weights.tobytes(), centre, mode, cval)
    p = _plans.get(key)
    if p is not None:
        _plans.move_to_end(key)
        return p
    ky, kx = weights.shape
    if max(ky, kx) > MAX_SIDE or (min(ky, kx) > 1 and max(ky, kx) > _MAX_DENSE and not _rank1(weights)):
        return None
    w = np.array(weights, dtype=np.float64)
    w.flags.writeable = False
    origin = (centre[0] - ky // 2, centre[1] - kx // 2)
    p = Kernel2D.__new__(Kernel2D)
    try:
        # The library's own check of the filter (its reach from the centre, its shape).
        _native.check_filter(w.astype(np.float32).ravel().tolist(), (ky, kx), origin)
        p._setup(w, mode, cval, origin)
    except ValueError:
        return None
    p._truncate = True
    _plans[key] = p
    if len(_plans) > CACHE_SIZE:
        _plans.popitem(last=False)
    return p


def _casts_as_scipy(w, name):
    """Whether every GPU variant runs ``w`` on 8- or 16-bit samples ``name`` (dense filters to
    31x31, rank-1 ones to the longest) and their truncating store wraps its results as scipy's
    cast does: results of magnitude below 2**22 levels, as the store takes them (no NaN)."""
    big = not np.abs(w).sum() * np.iinfo(np.dtype(name)).max < 2.0**22
    return not big and (min(w.shape) == 1 or max(w.shape) <= 31 or _rank1(w))


def _rank1(w):
    s = np.linalg.svd(w, compute_uv=False)
    return s[1:].max(initial=0.0) <= 1e-7 * s[0]


def _prod(shape):
    return int(math.prod(shape))


def _kept(key, weights, centre, mode, cval):
    """The plan of ``key`` (made again where it was dropped)."""
    p = _plans.get(key)
    if p is None:
        return plan(weights, centre, mode, cval)
    _plans.move_to_end(key)
    return p


def _kernel_step(shape, comp, weights, centre, mode, cval, view):
    """A step running the plan of 2D ``weights`` on arrays of ``shape`` (of dtype ``comp``)
    viewed as ``view`` (images, height, width, channels), or None where the kernels do not take
    them."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if (comp in ("uint8", "uint16") and not _casts_as_scipy(weights, comp)) or plan(weights, centre, mode, cval) is None:
        return None
    key = (weights.shape, weights.tobytes(), centre, mode, cval)

    def step(kind, x, out=None):
        p = _kept(key, weights, centre, mode, cval)
        if out is None:
            result = p._short_way(x, view)
            return p(x.reshape(view)).reshape(shape) if result is None else result
        p(x.reshape(view), output=out.reshape(view))
        return out

    def hypot(kind, x, with_):
        return _kept(key, weights, centre, mode, cval)._hypot_way(x, view, with_)

    # A step that writes into a given array of its input's dtype and shape, and one that stores
    # the root of its result's square and another's (``Kernel2D._hypot_way``).
    step.into = True
    step.hypot = hypot
    return step


# The half floats, which the kernels read and write as they are (computed in float32) where
# they take the filter (``Kernel2D._runs_half``), else in float32 through a copy.
HALF_DTYPES = ("float16", "bfloat16")
# The dtypes the kernels read and write: float32, the half floats, and 8- and 16-bit samples
# (their results truncated as scipy casts them, the plans' ``truncate``).
KERNEL_DTYPES = ("float32", "uint8", "uint16") + HALF_DTYPES


# The longest side of an image the library takes.
_MAX_IMAGE_SIDE = 1 << 18

# The float64 kernel's longest side, and the float64 plans kept (per filter and device).
_MAX_SIDE_64 = 127
_plans64 = OrderedDict()


def _plan64(w, centre, mode, cval, device):
    """The kept float64 plan of 2D weights ``w`` (float64, contiguous) on GPU ``device``."""
    key = (w.shape, w.tobytes(), centre, mode, cval, device)
    p = _plans64.get(key)
    if p is None:
        p = _plans64[key] = _native.Plan64(w.ravel().tolist(), w.shape, centre, _NATIVE[mode], float(cval), device)
        if len(_plans64) > CACHE_SIZE:
            _plans64.popitem(last=False)
    else:
        _plans64.move_to_end(key)
    return p


def _f64_step(weights, centre, mode, cval, view, fallback):
    """A step correlating float64 arrays viewed as ``view`` (images, height, width, channels)
    with 2D ``weights`` centred on ``centre``: numpy arrays on the library's float64 CPU plan,
    CUDA arrays on the float64 kernel, or by ``fallback`` where the kernel does not take the
    filter or view. It writes into a given float64 array of its input's shape (``out``)."""
    n, h, w, c = view
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    centre = tuple(int(i) for i in centre)
    host = _native.CpuPlan(weights.ravel().tolist(), weights.shape, centre, _NATIVE[mode], float(cval))
    kernel = max(weights.shape) <= _MAX_SIDE_64 and c in (1, 3, 4) and h <= 65535 * 32 and n * c <= 65535

    def step(kind, x, out=None):
        if kind.name == "numpy":
            return _host_run(host.run_f64, _F64, view, x, out)
        if not kernel:
            result = fallback(kind, x)
        else:
            x = kind.contiguous(x)
            p = _plan64(weights, centre, mode, cval, _cuda._device_of(kind.name, x))
            result = kind.empty(x.shape, "float64", x)
            stream = _cuda._current_stream(kind.name, kind.xp, x)
            p.run_device(_cuda._cuda_info(x)[0], _cuda._cuda_info(result)[0], w, h, c, n, int(stream))
        return result if out is None else kind.copy_into(out, result)

    step.into = True
    return step


_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


def _host_run(run, dtype, view, x, out):
    """numpy ``x`` (of ``view``'s size) filtered by ``run`` (a CPU plan's run of ``dtype``
    samples) in ``dtype``: into ``out`` where given (through a new array where ``out`` is not a
    packed native array of ``dtype`` apart from ``x``), else into a new array."""
    n, h, w, c = view
    if x.dtype != dtype or not x.flags.c_contiguous:
        x = np.ascontiguousarray(x, dtype=dtype)
    if out is not None and out.dtype == dtype and out.flags.c_contiguous and not np.may_share_memory(x, out):
        run(x.ctypes.data, out.ctypes.data, w, h, c, n)
        return out
    result = _numpy._host_empty(x.shape, dtype)
    run(x.ctypes.data, result.ctypes.data, w, h, c, n)
    if out is None:
        return result
    out[...] = result
    return out


def _cpu32_step(weights, centre, mode, cval, view, other):
    """A step correlating float32 numpy arrays viewed as ``view`` with 2D ``weights`` on the
    library's CPU plan (in float32), and other arrays by ``other``."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    host = _native.CpuPlan(weights.ravel().tolist(), weights.shape, tuple(int(i) for i in centre), _NATIVE[mode], float(cval))

    def step(kind, x, out=None):
        if kind.name == "numpy":
            return _host_run(host.run_f32, _F32, view, x, out)
        if out is None:
            return other(kind, x)
        if getattr(other, "into", False):
            return other(kind, x, out)
        return kind.copy_into(out, other(kind, x))

    step.into = True
    return step


def line_step(shape, comp, axis, taps, centre, mode, cval):
    """A step correlating arrays of ``shape`` (contiguous, of dtype ``comp``) along ``axis``
    with 1D ``taps`` centred on tap ``centre`` (folded for the axis), in their dtype; for 8- and
    16-bit samples on the kernels only (None where they do not take the taps). Without a GPU,
    float32 numpy arrays run on the library's CPU plan."""
    taps = np.asarray(taps, dtype=np.float64)
    k = len(taps)
    inner, outer = _prod(shape[axis + 1 :]), _prod(shape[:axis])
    if inner in (1, 3, 4):
        w, at, view = taps.reshape(1, k), (0, centre), (1, outer, shape[axis], inner)
    else:
        # Columns wider than an image's side run as 4 or 3 interleaved channels of a narrower one.
        c = next((c for c in (1, 4, 3) if inner % c == 0 and inner // c <= _MAX_IMAGE_SIDE), 1)
        w, at, view = taps.reshape(k, 1), (centre, 0), (outer, shape[axis], inner // c, c)
    dense = lambda kind, x: _dense(kind, x, (axis,), taps, (centre,), mode, cval)  # noqa: E731
    if max(view[1], view[2]) > _MAX_IMAGE_SIDE:
        # Lines longer than an image's side: element-wise in float.
        return dense if comp in ("float32", "float64") else None
    if comp in KERNEL_DTYPES:
        step = _kernel_step(shape, comp, w, at, mode, cval, view)
        if comp == "float32" and not _native.gpu_available():
            return _cpu32_step(w, at, mode, cval, view, step or dense)
        if step is not None or comp != "float32":
            return step
    if comp == "float64":
        return _f64_step(w, at, mode, cval, view, dense)
    return dense


def plane_step(shape, comp, axis, weights, centre, mode, cval, fallback=True):
    """A step correlating arrays of ``shape`` with 2D ``weights`` on axes ``(axis, axis + 1)``,
    whose later axes hold 1, 3 or 4 entries; element-wise where the kernels do not take them
    (float only, and only with ``fallback``: else None), and where a side passes an image's."""
    view = (_prod(shape[:axis]), shape[axis], shape[axis + 1], _prod(shape[axis + 2 :]))
    dense = lambda kind, x: _dense(kind, x, (axis, axis + 1), weights, centre, mode, cval)  # noqa: E731
    if max(view[1], view[2]) > _MAX_IMAGE_SIDE:
        return dense if fallback and comp in ("float32", "float64") else None
    if comp in KERNEL_DTYPES:
        step = _kernel_step(shape, comp, weights, tuple(centre), mode, cval, view)
        if step is not None or comp != "float32" or not fallback:
            return step
    if comp == "float64":
        return _f64_step(weights, centre, mode, cval, view, dense)
    return dense


def fusable(shape, axis):
    """Whether axes ``(axis, axis + 1)`` run as one 2D filter (at most 4 entries after them)."""
    return _prod(shape[axis + 2 :]) in (1, 3, 4)


def _dense(kind, x, axes, weights, centre, mode, cval):
    """``x`` correlated with ``weights`` on ``axes`` element-wise: the sum over the taps of each
    tap times ``x`` shifted (the axes extended by ``mode``), in ``x``'s dtype."""
    padded = x
    for a, k, c in zip(axes, weights.shape, centre):
        padded = _xp.pad(kind, padded, a, c, k - 1 - c, mode, cval)
    acc = None
    for index in itertools.product(*(range(k) for k in weights.shape)):
        t = float(weights[index])
        sl = [slice(None)] * x.ndim
        for a, i in zip(axes, index):
            sl[a] = slice(i, i + x.shape[a])
        term = padded[tuple(sl)] * t
        acc = term if acc is None else acc.__iadd__(term)
    return kind.contiguous(acc)


def dense_step(shape, comp, w, centre, mode, cval):
    """A step correlating arrays of ``shape`` (contiguous, of dtype ``comp``) with weights ``w``
    of every axis (folded for ``shape``), centred on tap ``centre`` (one per axis)."""
    axes = [a for a in range(len(shape)) if w.shape[a] > 1]
    sq = w.reshape([w.shape[a] for a in axes])
    c = tuple(centre[a] for a in axes)
    if not axes:
        t = float(w.reshape(-1)[0])
        return lambda kind, x: kind.contiguous(x * t)
    if len(axes) == 1:
        return line_step(shape, comp, axes[0], sq, c[0], mode, cval)
    if comp == "float64" and len(axes) == 2 and axes[1] == axes[0] + 1 and fusable(shape, axes[0]):
        return plane_step(shape, comp, axes[0], sq, c, mode, cval)
    if comp != "float32":
        return lambda kind, x: _dense(kind, x, axes, sq, c, mode, cval)
    *lead, a, b = axes
    if b != a + 1 or not fusable(shape, a):
        # Two axes apart: the array moved so that they are the last two, and back.
        order = [i for i in range(len(shape)) if i not in (a, b)] + [a, b]
        back = [int(i) for i in np.argsort(order)]
        inner = dense_step(tuple(shape[i] for i in order), comp, w.transpose(order), tuple(centre[i] for i in order), mode, cval)

        def moved(kind, x):
            y = inner(kind, kind.contiguous(_transpose(kind, x, order)))
            return kind.contiguous(_transpose(kind, y, back))

        return moved
    if not lead:
        return plane_step(shape, comp, a, sq, c, mode, cval)
    # More axes: a 2D filter of each slab of the leading axes' offsets, summed.
    slabs = [
        (index, plane_step(shape, comp, a, np.ascontiguousarray(sq[index]), c[-2:], mode, cval))
        for index in itertools.product(*(range(k) for k in sq.shape[:-2]))
    ]

    def summed(kind, x):
        padded = x
        for ax, k, cc in zip(lead, sq.shape, c):
            padded = _xp.pad(kind, padded, ax, cc, k - 1 - cc, mode, cval)
        acc = None
        for index, step in slabs:
            sl = [slice(None)] * x.ndim
            for ax, i in zip(lead, index):
                sl[ax] = slice(i, i + x.shape[ax])
            term = step(kind, kind.contiguous(padded[tuple(sl)]))
            acc = term if acc is None else acc.__iadd__(term)
        return acc

    return summed


def _transpose(kind, x, order):
    return x.permute(*order) if kind.name == "torch" else kind.xp.transpose(x, order)


# The magnitude kernel of each device.
_magnitudes = {}


def magnitude(kind, terms):
    """``sqrt(sum(t * t for t in terms))`` of two or three float32 CUDA arrays of one shape, on
    the library's magnitude kernel (rounded as numpy rounds each step), into a new array; None
    where the kernel does not take them (numpy arrays, other dtypes or counts)."""
    if kind.name == "numpy" or len(terms) not in (2, 3) or any(kind.name_of(t) != "float32" for t in terms):
        return None
    terms = [kind.contiguous(t) for t in terms]
    out = kind.empty(terms[0].shape, "float32", terms[0])
    ptrs = [_cuda._cuda_info(t)[0] for t in terms + [out]]
    if any(p % 16 for p in ptrs):
        return None
    device = _cuda._device_of(kind.name, out)
    k = _magnitudes.get(device)
    if k is None:
        k = _magnitudes[device] = _native.Magnitude(device)
    stream = _cuda._current_stream(kind.name, kind.xp, out)
    k.run_device(ptrs[:-1], ptrs[-1], _prod(out.shape), int(stream))
    return out
