"""scipy.ndimage's correlations and smoothing filters, with scipy's signatures and results:
``correlate``, ``convolve``, ``correlate1d``, ``convolve1d``, ``gaussian_filter``,
``gaussian_filter1d``, ``uniform_filter`` and ``uniform_filter1d``. Each takes numpy arrays and
CUDA arrays (torch, CuPy) of any number of axes; ``stream`` (a raw CUDA stream handle) and
``channel_axis`` (an axis of channels, not filtered) are the package's own keywords."""

from __future__ import annotations

from typing import Any, Optional

import math
import numbers

import numpy as np

from . import _engine, _fold, _params, _xp
from ._params import Array, ArrayLike, Axes, Device, Mode, Output, PerAxis
from ._front import axis_index, check_axes, folded, front, modes, passes, real_cval, seq, whole_level, writes_into


def _weights(value, ndim=None, name="weights"):
    """Finite weights as float64 (complex128 where complex), at least one tap on every axis."""
    if value is None:
        raise TypeError(f"{name} must be an array of numbers, got {_params.type_name(value)}")
    a = _params.host_array(value)
    if a.dtype.kind in "SU":
        # Numbers written as text, which scipy's float64 conversion reads as numpy parses them.
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an array of numbers, got {_params.type_name(value)} {value!r:.40}") from None
    if a.dtype.kind == "O":
        try:
            a = a.astype(np.complex128 if any(isinstance(v, complex) for v in a.flat) else np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be an array of numbers, got dtype {a.dtype}") from None
    if a.dtype.kind not in "biufc":
        raise TypeError(f"{name} must be an array of numbers, got dtype {a.dtype}")
    w = np.array(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64)
    if ndim is not None and w.ndim != ndim or w.size == 0:
        raise RuntimeError("no filter weights given" if ndim == 1 else f"{name} must not be empty, got shape {w.shape}")
    # A finite sum is the quick proof (NaN and infinities never sum to a finite number).
    if not np.isfinite(w.sum()) and not np.isfinite(w).all():
        raise ValueError(f"{name} must be finite")
    return w


def _origin(value, k, name="origin"):
    o = _params.integer(value, name)
    if not -(k // 2) <= o <= (k - 1) // 2:
        raise ValueError(f"invalid {name} {o}: it must satisfy -(k // 2) <= {name} <= (k - 1) // 2 for {k} taps")
    return o


class Weights:
    """Weights as a key of the kept programs: small ones by value; larger ones are no key (their
    calls are planned again, at a cost small against the filter's)."""

    __slots__ = ("w", "_key")
    LARGEST_KEY = 4096

    def __init__(self, w):
        self.w = w
        self._key = (w.shape, w.dtype.str, w.tobytes()) if w.size <= self.LARGEST_KEY else None

    def __hash__(self):
        if self._key is None:
            raise TypeError("weights too large to be a key")
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, Weights) and self._key is not None and self._key == other._key


def _dense_program(shape, in_name, out_name, w, origins, mode, cval, convolution):
    """The N-D correlation of real arrays with ``w`` (weights of every axis) as scipy computes
    it: in one pass, the result cast once."""
    if w.dtype.kind == "c":
        return _complex_weights(shape, in_name, out_name, w, origins, mode, cval, convolution)
    if convolution:
        w = w[(slice(None, None, -1),) * w.ndim]
        origins = [-o - (1 - k % 2) for o, k in zip(origins, w.shape)]
    centre = [k // 2 + o for k, o in zip(w.shape, origins)]
    for axis, n in enumerate(shape):
        if _fold.folds(w.shape[axis], centre[axis], n, mode):
            w, centre[axis] = _fold._fold_axis(w, axis, centre[axis], n, mode)
    axes = [a for a in range(len(shape)) if w.shape[a] > 1]
    direct = in_name in _engine.HALF_DTYPES or in_name in _engine.KERNEL_DTYPES and whole_level(in_name, mode, cval)
    if in_name == out_name and direct and len(axes) <= 2:
        # Half floats, 8- and 16-bit samples into their own dtype, on the kernels as they are.
        step = _direct_dense(shape, in_name, w, centre, axes, mode, cval)
        if step is not None:
            return writes_into(lambda kind, x, out=None: step(kind, kind.contiguous(x), *([out] if out is not None else [])), step, in_name)
    comp = _xp.compute_name(out_name, in_name)
    # The widening of an integer result rides on the taps (the same to float32's rounding).
    w = np.ascontiguousarray(w) * _xp.widening(comp, out_name, w)
    step = _engine.dense_step(shape, comp, w, tuple(centre), mode, cval)
    return writes_into(lambda kind, x, out=None: step(kind, kind.astype(x, comp), *([out] if out is not None else [])), step, comp)


def _direct_dense(shape, name, w, centre, axes, mode, cval):
    """The kernels' step of weights on at most two neighbouring axes on samples of ``name``,
    or None."""
    if not shape:
        return None
    sq = np.ascontiguousarray(w.reshape([w.shape[a] for a in axes] or [1]))
    if len(axes) <= 1:
        axis = axes[0] if axes else len(shape) - 1
        return _engine.line_step(shape, name, axis, sq.ravel(), centre[axis] if axes else 0, mode, cval)
    a, b = axes
    if b != a + 1 or not _engine.fusable(shape, a):
        return None
    return _engine.plane_step(shape, name, a, sq, (centre[a], centre[b]), mode, cval)


def _complex_weights(shape, in_name, out_name, w, origins, mode, cval, convolution):
    """The program of (real, imaginary) parts with complex weights, as scipy combines them (the
    weights conjugated for a correlation)."""
    if not convolution:
        w = w.conj()
    part = _xp.COMPLEX_PARTS.get(out_name, out_name)
    in_part = _xp.COMPLEX_PARTS.get(in_name, in_name)

    def prog(weights, c):
        return _dense_program(shape, in_part, part, np.ascontiguousarray(weights), origins, mode, c, convolution)

    if in_name not in _xp.COMPLEX_PARTS:
        if isinstance(cval, complex):
            raise ValueError("Cannot provide a complex-valued cval when the input is real.")
        re, im = prog(w.real, cval), prog(w.imag, cval)
        return lambda kind, x: (re(kind, x), im(kind, x))
    cr, ci = float(np.real(cval)), float(np.imag(cval))
    rr, ii, ri, ir = prog(w.real, cr), prog(w.imag, ci), prog(w.imag, cr), prog(w.real, ci)

    def both(kind, x):
        # scipy filters the imaginary part into a result of its own dtype (``output=None``),
        # which it adds to the output's parts: the same rounding here.
        re, im = (kind.contiguous(p) for p in kind.parts(x))
        return rr(kind, re) - kind.cast(ii(kind, im), in_part), ri(kind, re) + kind.cast(ir(kind, im), in_part)

    return both


@front
def _correlate(shape, in_name, out_name, weights, mode, origin, axes, channel_axis, convolution, cval=0.0):
    ndim = len(shape)
    axes = check_axes(axes, ndim, channel_axis)
    if not isinstance(mode, str):
        raise RuntimeError("A sequence of modes is not supported")
    mode = _params.mode(mode)
    w = weights.w
    if w.ndim != len(axes):
        hint = " (to filter the last two axes, pass axes=(-2, -1))" if w.ndim == 2 and ndim > 2 else ""
        raise RuntimeError(f"weights.ndim ({w.ndim}) must match len(axes) ({len(axes)}){hint}")
    # The weights' axes follow the sorted axes; the origins the given order.
    others = tuple(a for a in range(ndim) if a not in axes)
    full = np.expand_dims(w, others) if others else w
    # As scipy: the origins follow the given axes, except where every axis is filtered: then
    # they follow the array's axes.
    given = seq(origin, len(axes), "origin")
    if not convolution and any(isinstance(o, (bool, np.bool_)) for o in given):
        # scipy's correlate takes no bool origin (its convolve, negating it first, does).
        raise TypeError(f"origin must be an integer, got {origin!r}")
    origins = [0] * ndim
    for o, a in zip(given, axes if others else range(ndim)):
        origins[a] = _origin(o, full.shape[a])
    return _dense_program(shape, in_name, out_name, full, origins, mode, cval, convolution)


def correlate(
    input: Array, weights: ArrayLike, output: Output = None, mode: Mode = "reflect", cval: float = 0.0,
    origin: PerAxis = 0, *, axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.correlate``: the N-D correlation of ``input`` with ``weights`` (one axis
    per filtered axis: every axis, or ``axes``, whose sorted order the weights' axes follow)."""
    w = _weights(weights)
    return _correlate(
        input, Weights(w), mode, origin, axes, channel_axis, False, cval=real_cval(cval, True),
        output=output, stream=stream, device=device, complex_weights=w.dtype.kind == "c",
    )


def convolve(
    input: Array, weights: ArrayLike, output: Output = None, mode: Mode = "reflect", cval: float = 0.0,
    origin: PerAxis = 0, *, axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.convolve``: :func:`correlate` with the weights flipped on every axis and
    the origins moved as scipy moves them (negated, one tap more on an even side)."""
    w = _weights(weights)
    return _correlate(
        input, Weights(w), mode, origin, axes, channel_axis, True, cval=real_cval(cval, True),
        output=output, stream=stream, device=device, complex_weights=w.dtype.kind == "c",
    )


@front
def _line(shape, in_name, out_name, weights, axis, mode, origin, convolution, cval=0.0):
    axis = axis_index(axis, len(shape))
    w = weights.w
    m = _params.mode(mode)
    if w.dtype.kind == "c":
        full = np.expand_dims(w, tuple(a for a in range(len(shape)) if a != axis))
        origins = [0] * len(shape)
        origins[axis] = origin
        return _complex_weights(shape, in_name, out_name, full, origins, m, cval, convolution)
    if convolution:
        w, origin = w[::-1], -origin - (1 - len(w) % 2)
    taps, centre = folded(w, len(w) // 2 + origin, shape[axis], m)
    return passes(shape, in_name, out_name, [(axis, taps, centre, m, None)], cval)


def correlate1d(
    input: Array, weights: ArrayLike, axis: int = -1, output: Output = None, mode: str = "reflect", cval: float = 0.0,
    origin: int = 0, *, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.correlate1d``: the lines along ``axis`` correlated with 1D ``weights``."""
    w = _weights(weights, 1)
    o = _origin(origin, len(w))
    return _line(input, Weights(w), axis, mode, o, False, cval=real_cval(cval, True), output=output, stream=stream, device=device, complex_weights=w.dtype.kind == "c")


def convolve1d(
    input: Array, weights: ArrayLike, axis: int = -1, output: Output = None, mode: str = "reflect", cval: float = 0.0,
    origin: int = 0, *, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.convolve1d``: :func:`correlate1d` with the weights reversed."""
    w = _weights(weights, 1)
    o = _origin(origin, len(w))
    return _line(input, Weights(w), axis, mode, o, True, cval=real_cval(cval, True), output=output, stream=stream, device=device, complex_weights=w.dtype.kind == "c")


class _Sigma(float):
    """A sigma, with ``s2``, sigma² as scipy's taps square it: in the sigma's own type where it
    is a numpy float16 or float32 (then ``-0.5 / s2`` is rounded to that type too, ``c``)."""

    s2: float
    c: float


def _sigma(value):
    s = _params.real(value, "sigma")
    if s == math.inf:
        raise ValueError("sigma must be finite, got inf")
    sigma = _Sigma(s)
    own = getattr(value, "dtype", None) in (np.float16, np.float32) and np.ndim(value) == 0
    v = np.asarray(value)[()] if own else s
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        s2 = v * v
        sigma.s2, sigma.c = float(s2), float(-0.5 / s2) if s2 != 0 else -math.inf
    return sigma


def _order(value):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (float, np.floating)) and value == 0:
        value = 0  # scipy takes 0.0 (and no other float) as 0
    if isinstance(value, (bool, np.bool_)):
        if value:  # scipy's derivative taps take no bool; False is its order 0
            raise TypeError("order must be an integer, got bool True")
        value = 0
    o = _params.integer(value, "order")
    if o < 0:
        raise ValueError("order must be non-negative")
    return o


# Taps of a Gaussian derivative formed at a time, at most (then summed into the folded window).
_CHUNK = 1 << 20
# The most taps of a Gaussian derivative (sigma past about 5e8 at the default truncate): past
# them scipy's own taps take more memory than a machine has, and the call raises.
_MAX_DERIVATIVE_TAPS = 1 << 32


def _gaussian_taps(s, order, radius, truncate, n, mode):
    """(taps, centre) of scipy's Gaussian of sigma ``s`` (a :class:`_Sigma`) and ``order`` (its
    derivative) for ``correlate1d``, folded for ``n`` samples (a derivative's taps formed and
    folded a chunk at a time)."""
    r = _params.gaussian_radius(s, truncate, radius, "filtered")
    s2, c = s.s2, s.c
    if s2 == 0.0 or not math.isfinite(c):
        # scipy's taps are then NaN (0 times an infinity): a deliberate difference.
        raise ValueError(f"sigma {s} is too small: 1 / sigma**2 is not a float64")
    if order == 0:
        s = abs(float(s))
        return _fold.gaussian(s, _fold.gaussian_reach(s, r), n, mode, c)
    if 2 * r + 1 > _MAX_DERIVATIVE_TAPS:
        raise ValueError(f"sigma {s} with order {order} needs {2 * r + 1} taps: at most {_MAX_DERIVATIVE_TAPS}")
    # The order-th derivative of phi is q(x) phi(x), q from q' - q x / s^2, starting at 1.
    q = np.zeros(order + 1)
    q[0] = 1.0
    for _ in range(order):
        q = np.append(q[1:] * np.arange(1, order + 1), 0.0) - np.concatenate(([0.0], q[:-1])) / s2
    lo, hi, period = _fold.window(n, mode)
    if not _fold.folds(2 * r + 1, r, n, mode):
        x = np.arange(-r, r + 1, dtype=np.float64)
        phi = np.exp(c * (x * x))
        return np.polynomial.polynomial.polyval(x, q)[::-1] * phi[::-1] / phi.sum(), r
    # Folded: correlate1d's taps are the reversed derivative, tap t at offset -x.
    acc, total = np.zeros(hi - lo + 1), 0.0
    for start in range(-r, r + 1, _CHUNK):
        x = np.arange(start, min(r + 1, start + _CHUNK), dtype=np.float64)
        phi = np.exp(c * (x * x))
        total += float(phi.sum())
        acc += np.bincount(_fold._index((-x).astype(np.int64), lo, hi, period), weights=np.polynomial.polynomial.polyval(x, q) * phi, minlength=acc.size)
    return acc / total, -lo


def _gaussian_passes(shape, sigmas, orders, mode_list, radii, truncate, axes):
    passes = []
    for a, s, o, m, r in zip(axes, sigmas, orders, mode_list, radii):
        if s > _params.SIGMA_MIN:
            taps, centre = _gaussian_taps(s, o, r, truncate, shape[a], m)
            passes.append((a, taps, centre, m, None))
    return passes


@front(real_output=True)
def _gaussian(shape, in_name, out_name, sigma, order, mode, truncate, radius, axes, channel_axis, cval=0.0):
    axes = check_axes(axes, len(shape), channel_axis)
    k = len(axes)
    sigmas = [_sigma(s) for s in seq(sigma, k, "sigma")]
    orders = [_order(o) for o in seq(order, k, "order")]
    steps = _gaussian_passes(shape, sigmas, orders, modes(mode, k), seq(radius, k, "radius"), truncate, axes)
    return passes(shape, in_name, out_name, steps, cval)


def gaussian_filter(
    input: Array, sigma: PerAxis, order: PerAxis = 0, output: Output = None, mode: Mode = "reflect",
    cval: float = 0.0, truncate: float = 4.0, *, radius: Optional[PerAxis] = None, axes: Axes = None,
    channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.gaussian_filter``: a Gaussian (or its ``order``-th derivative) of standard
    deviation ``sigma`` along every axis (or ``axes``), each a 1D pass, cut at ``truncate``
    standard deviations or at ``radius``; an axis of sigma at most 1e-15 is left as it is. Any
    sigma runs in at most ``2n + 1`` taps on an axis of ``n`` samples (folded by the mode)."""
    return _gaussian(
        input, sigma, order, mode, _params.real(truncate, "truncate"), radius, axes, channel_axis,
        cval=real_cval(cval, True), output=output, stream=stream, device=device,
    )


def gaussian_filter1d(
    input: Array, sigma: float, axis: int = -1, order: int = 0, output: Output = None, mode: str = "reflect",
    cval: float = 0.0, truncate: float = 4.0, *, radius: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.gaussian_filter1d``: :func:`gaussian_filter` along one axis."""
    if not isinstance(mode, str):
        raise RuntimeError("mode must be a string for a filter along one axis")
    _sigma(sigma)  # checked first, as scipy's float(sigma); kept as given (its type is in the taps)
    return _gaussian1d(
        input, sigma, axis, _order(order), mode, _params.real(truncate, "truncate"), radius,
        cval=real_cval(cval, True), output=output, stream=stream, device=device,
    )


@front
def _gaussian1d(shape, in_name, out_name, sigma, axis, order, mode, truncate, radius, cval=0.0):
    a = axis_index(axis, len(shape))
    m = _params.mode(mode)
    # As scipy's: every sigma is taken (its square in the Gaussian), none leaves the axis alone.
    taps, centre = _gaussian_taps(_sigma(sigma), order, radius, truncate, shape[a], m)
    return passes(shape, in_name, out_name, [(a, taps, centre, m, None)], cval)


def _size(value, name="size"):
    """A filter size: scipy truncates it to an integer; NaN raises."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        k = int(value)
    else:
        s = _params.real(value, name)
        if math.isinf(s):
            raise ValueError(f"{name} must be finite, got {value!r}")
        k = int(s)
    if k > _params.SIZE_MAX:
        raise ValueError(f"{name} must be at most 2**63 - 1, got {value!r}")
    return k


def _uniform_pass(axis, k, origin, n, mode, out_name):
    """A box of ``k`` taps on an axis of ``n`` (None for one tap: nothing to do, the origin
    checked): for an integer output the counts, then a division (so a mean that is a whole
    number is one exactly, as scipy's running sum gives it)."""
    o = _origin(origin, k)
    if k == 1:
        return None
    taps, centre = _fold.uniform(k, n, mode, k // 2 + o)
    if _xp.is_int(out_name):
        return axis, np.rint(taps * k), centre, mode, float(k)
    return axis, taps, centre, mode, None


@front
def _uniform(shape, in_name, out_name, size, mode, origin, axes, channel_axis, cval=0.0):
    axes = check_axes(axes, len(shape), channel_axis)
    k = len(axes)
    sizes = seq(size, k, "size")
    origins = seq(origin, k, "origin")
    # As scipy: an axis whose size is more than 1 is filtered with the size truncated.
    steps = [
        _uniform_pass(a, whole, o, shape[a], m, out_name)
        for a, s, whole, o, m in zip(axes, sizes, [_size(s) for s in sizes], origins, modes(mode, k))
        if _params.real(s, "size") > 1
    ]
    steps = [p for p in steps if p is not None]
    return passes(shape, in_name, out_name, steps, cval)


def uniform_filter(
    input: Array, size: PerAxis = 3, output: Output = None, mode: Mode = "reflect", cval: float = 0.0,
    origin: PerAxis = 0, *, axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.uniform_filter``: the mean over a box of ``size`` along every axis (or
    ``axes``), one 1D pass an axis; an axis of size at most 1 is left as it is."""
    return _uniform(input, size, mode, origin, axes, channel_axis, cval=real_cval(cval, True), output=output, stream=stream, device=device)


@front
def _uniform1d(shape, in_name, out_name, size, axis, mode, origin, cval=0.0):
    a = axis_index(axis, len(shape))
    step = _uniform_pass(a, size, origin, shape[a], _params.mode(mode), out_name)
    return passes(shape, in_name, out_name, [] if step is None else [step], cval)


def uniform_filter1d(
    input: Array, size: int, axis: int = -1, output: Output = None, mode: str = "reflect", cval: float = 0.0,
    origin: int = 0, *, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.uniform_filter1d``: :func:`uniform_filter` along one axis."""
    if isinstance(size, (float, np.floating)) and math.isnan(size):
        raise ValueError("size must not be NaN")
    k = _params.integer(size, "size")
    if k < 1:
        raise RuntimeError("incorrect filter size")
    if not isinstance(mode, str):
        raise RuntimeError("mode must be a string for a filter along one axis")
    return _uniform1d(input, k, axis, mode, origin, cval=real_cval(cval, True), output=output, stream=stream, device=device)
