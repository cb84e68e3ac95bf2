"""scipy.ndimage's derivative filters, with scipy's signatures and results: ``sobel``,
``prewitt``, ``laplace``, ``gaussian_laplace`` and ``gaussian_gradient_magnitude``. As in
scipy, each term is stored in the output's dtype before terms are combined (integers truncated,
then added or squared in that dtype)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _params, _xp
from ._params import Array, ArrayLike, Axes, Device, Mode, Output, PerAxis
from ._front import axis_index, check_axes, folded, front, modes, passes, real_cval, seq
from ._ndimage import _gaussian_passes, _sigma

_DIFF = np.array([-1.0, 0.0, 1.0])
_SECOND = np.array([1.0, -2.0, 1.0])


def _gradient(shape, in_name, out_name, axis, smooth, mode, channel_axis, cval):
    ndim = len(shape)
    a = axis_index(axis, ndim)
    c = None if channel_axis is None else axis_index(channel_axis, ndim, "channel_axis")
    if a == c:
        raise ValueError(f"axis {axis} is the channel_axis")
    m = modes(mode, ndim)
    steps = [(a, *folded(_DIFF, 1, shape[a], m[a]), m[a], None)]
    steps += [(i, *folded(smooth, 1, shape[i], m[i]), m[i], None) for i in range(ndim) if i not in (a, c)]
    return passes(shape, in_name, out_name, steps, cval)


@front
def _sobel(shape, in_name, out_name, axis, mode, channel_axis, cval=0.0):
    return _gradient(shape, in_name, out_name, axis, np.array([1.0, 2.0, 1.0]), mode, channel_axis, cval)


@front
def _prewitt(shape, in_name, out_name, axis, mode, channel_axis, cval=0.0):
    return _gradient(shape, in_name, out_name, axis, np.array([1.0, 1.0, 1.0]), mode, channel_axis, cval)


def sobel(
    input: Array, axis: int = -1, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.sobel``: the derivative along ``axis`` ([-1, 0, 1]) smoothed along every
    other axis but ``channel_axis`` ([1, 2, 1]); each 1D pass reads ``cval`` past the edges."""
    return _sobel(input, axis, mode, channel_axis, cval=real_cval(cval, True), output=output, stream=stream, device=device)


def prewitt(
    input: Array, axis: int = -1, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.prewitt``: as :func:`sobel`, smoothed with [1, 1, 1]."""
    return _prewitt(input, axis, mode, channel_axis, cval=real_cval(cval, True), output=output, stream=stream, device=device)


def _term_name(out_name):
    """The dtype each term of a sum is stored in: the output's, but float32 for float16 and
    bfloat16 outputs (terms of opposite signs rounded to a half float would lose the sum)."""
    return "float32" if out_name in ("float16", "bfloat16") else out_name


def _summed(terms, out_name, square=False):
    """The program of scipy's sum of the programs ``terms`` (each result cast to the output's
    dtype first), squared first where ``square``, then its square root (computed in float, cast
    back)."""
    store = _term_name(out_name)

    def prog(kind, x):
        total = None
        for term in terms:
            t = kind.cast(term(kind, x), store)
            if square:
                t = t * t
            total = t if total is None else total + t
        if square:
            if _xp.is_int(out_name):
                return kind.cast(kind.astype(total, "float64") ** 0.5, out_name)
            return total**0.5
        return total

    return prog


@front
def _laplace(shape, in_name, out_name, mode, axes, channel_axis, cval=0.0):
    axes = check_axes(axes, len(shape), channel_axis)
    if not axes:
        return lambda kind, x: x
    m = modes(mode, len(axes))
    term = _term_name(out_name)
    terms = [passes(shape, in_name, term, [(a, *folded(_SECOND, 1, shape[a], ma), ma, None)], cval) for a, ma in zip(axes, m)]
    return _summed(terms, out_name)


def laplace(
    input: Array, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *, axes: Axes = None,
    channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.laplace``: the sum over the axes of the second differences [1, -2, 1]."""
    return _laplace(input, mode, axes, channel_axis, cval=real_cval(cval, True), output=output, stream=stream, device=device)


def _gaussian_terms(shape, in_name, out_name, sigma, order, mode, axes, channel_axis, cval, kwargs):
    """The programs of each axis's Gaussian derivative of ``order`` (smoothing along the other
    axes), as scipy's ``generic_laplace`` and ``generic_gradient_magnitude`` call
    ``gaussian_filter``."""
    kwargs = dict(kwargs)
    unknown = set(kwargs) - {"truncate", "radius"}
    if unknown:
        raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    truncate = _params.real(kwargs.get("truncate", 4.0), "truncate")
    radius = kwargs.get("radius")
    ndim = len(shape)
    axes = check_axes(axes, ndim, channel_axis)
    if order == 1 and channel_axis is None or len(axes) == ndim:
        # scipy's gradient magnitude smooths along every axis, whatever ``axes`` are; and with
        # every axis filtered, its sigmas follow the array's axes.
        sigmas = [_sigma(s) for s in seq(sigma, ndim, "sigma")]
    else:
        sigmas = [0.0] * ndim
        for s, a in zip(seq(sigma, len(axes), "sigma"), axes):
            sigmas[a] = _sigma(s)
    m = modes(mode, len(axes))
    radii = seq(radius, ndim, "radius")
    terms = []
    for a, ma in zip(axes, m):
        orders = [order if i == a else 0 for i in range(ndim)]
        steps = _gaussian_passes(shape, sigmas, orders, [ma] * ndim, radii, truncate, range(ndim))
        terms.append(passes(shape, in_name, _term_name(out_name), steps, cval))
    return terms


@front
def _gaussian_laplace(shape, in_name, out_name, sigma, mode, axes, channel_axis, kwargs, cval=0.0):
    filtered = check_axes(axes, len(shape), channel_axis)
    [_sigma(s) for s in seq(sigma, len(filtered), "sigma")]
    if not filtered:
        return lambda kind, x: x
    return _summed(_gaussian_terms(shape, in_name, out_name, sigma, 2, mode, axes, channel_axis, cval, kwargs), out_name)


def gaussian_laplace(
    input: Array, sigma: PerAxis, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None, **kwargs: Any,
) -> Array:
    """``scipy.ndimage.gaussian_laplace``: the sum over the axes of the second derivative of a
    Gaussian along each (``truncate`` and ``radius`` as :func:`gaussian_filter` takes them)."""
    return _gaussian_laplace(input, sigma, mode, axes, channel_axis, tuple(sorted(kwargs.items())), cval=real_cval(cval, True), output=output, stream=stream, device=device)


@front
def _gaussian_gradient_magnitude(shape, in_name, out_name, sigma, mode, axes, channel_axis, kwargs, cval=0.0):
    if not check_axes(axes, len(shape), channel_axis):
        return lambda kind, x: x
    terms = _gaussian_terms(shape, in_name, out_name, sigma, 1, mode, axes, channel_axis, cval, kwargs)
    return _summed(terms, out_name, square=True)


def gaussian_gradient_magnitude(
    input: Array, sigma: PerAxis, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None, **kwargs: Any,
) -> Array:
    """``scipy.ndimage.gaussian_gradient_magnitude``: the root of the sum over the axes of the
    squared first derivative of a Gaussian along each."""
    return _gaussian_gradient_magnitude(
        input, sigma, mode, axes, channel_axis, tuple(sorted(kwargs.items())), cval=real_cval(cval, True), output=output, stream=stream, device=device
    )
