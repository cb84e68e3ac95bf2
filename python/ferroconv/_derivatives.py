"""scipy.ndimage's derivative filters, with scipy's signatures and results: ``sobel``,
``prewitt``, ``laplace``, ``gaussian_laplace`` and ``gaussian_gradient_magnitude``. As in
scipy, each term is stored in the output's dtype before terms are combined (integers truncated,
then added or squared in that dtype)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _engine, _params, _xp
from ._params import Array, ArrayLike, Axes, Device, Mode, Output, PerAxis
from ._front import axis_index, check_axes, folded, front, identity, modes, passes, real_cval, seq, writes_into
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


@front(real_output=True)
def _sobel(shape, in_name, out_name, axis, mode, channel_axis, cval=0.0):
    return _gradient(shape, in_name, out_name, axis, np.array([1.0, 2.0, 1.0]), mode, channel_axis, cval)


@front(real_output=True)
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
        roots = square and store == "float32" and kind.name != "numpy" and len(terms) in (2, 3)
        results = []
        for term in terms:
            hypot = getattr(term, "hypot", None) if roots and len(terms) == 2 and results else None
            if hypot is not None:
                # The second of two terms' filter stores the root of both squares.
                done = hypot(kind, x, results[0])
                if done is not None:
                    return done
            results.append(kind.cast(term(kind, x), store))
        if roots:
            # One kernel squares, sums and roots float32 CUDA terms, as numpy rounds them.
            done = _engine.magnitude(kind, results)
            if done is not None:
                return done
        total = None
        for t in results:
            if square:
                t = t * t
            total = t if total is None else total + t
        if square:
            if _xp.is_int(out_name):
                return kind.cast(kind.astype(total, "float64") ** 0.5, out_name)
            return total**0.5
        return total

    return prog


def _window(term, axis, reach):
    """The taps of ``term`` (a list of 1D passes) along ``axis`` in a window of ``reach`` taps
    either side of the centre ([1] at the centre where no pass is along it), or None where two
    are."""
    found = [p for p in term if p[0] == axis]
    v = np.zeros(2 * reach + 1)
    if not found:
        v[reach] = 1.0
    elif len(found) == 1:
        _, taps, centre, _, _ = found[0]
        v[reach - centre : reach - centre + len(taps)] = taps
    else:
        return None
    return v


def _plane_sum(shape, in_name, out_name, terms, cval):
    """The program of scipy's sum of ``terms`` (each a list of 1D passes) as one 2D filter of
    their summed outer products, for float results, where every pass is along one of two
    neighbouring axes whose later axes hold at most 4 entries, under one mode, and no second
    pass of a term reads a nonzero ``cval`` past the edges of the first's result (then the sum
    is the same up to float rounding); else None."""
    passes_ = [p for term in terms for p in term]
    axes = sorted({p[0] for p in passes_})
    mode = {p[3] for p in passes_}
    if (
        _xp.is_int(out_name)
        or len(axes) != 2
        or axes[1] != axes[0] + 1
        or len(mode) != 1
        or any(p[4] is not None for p in passes_)
        or not _engine.fusable(shape, axes[0])
        or ("constant" in mode and cval != 0 and any(len(t) > 1 for t in terms))
    ):
        return None
    reach = [max(max(p[2], len(p[1]) - 1 - p[2]) for p in passes_ if p[0] == a) for a in axes]
    weights = 0.0
    for term in terms:
        rows, cols = _window(term, axes[0], reach[0]), _window(term, axes[1], reach[1])
        if rows is None or cols is None:
            return None
        weights = weights + np.outer(rows, cols)
    name = in_name if in_name == out_name and in_name in _engine.HALF_DTYPES else _xp.compute_name(out_name, in_name)
    step = _engine.plane_step(shape, name, axes[0], weights, tuple(reach), mode.pop(), cval, fallback=False)
    if step is None:
        return None

    def prog(kind, x, out=None):
        work = kind.astype(x, name)
        return step(kind, work) if out is None else step(kind, work, out)

    return writes_into(prog, step, name)


@front(real_output=True)
def _laplace(shape, in_name, out_name, mode, axes, channel_axis, cval=0.0):
    axes = check_axes(axes, len(shape), channel_axis)
    if not axes:
        return identity
    m = modes(mode, len(axes))
    steps = [[(a, *folded(_SECOND, 1, shape[a], ma), ma, None)] for a, ma in zip(axes, m)]
    return _plane_sum(shape, in_name, out_name, steps, cval) or _summed(
        [passes(shape, in_name, _term_name(out_name), t, cval) for t in steps], out_name
    )


def laplace(
    input: Array, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *, axes: Axes = None,
    channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None,
) -> Array:
    """``scipy.ndimage.laplace``: the sum over the axes of the second differences [1, -2, 1]."""
    return _laplace(input, mode, axes, channel_axis, cval=real_cval(cval, True), output=output, stream=stream, device=device)


def _gaussian_terms(shape, sigma, order, mode, axes, channel_axis, kwargs):
    """The 1D passes of each axis's Gaussian derivative of ``order`` (smoothing along the other
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
        terms.append(_gaussian_passes(shape, sigmas, orders, [ma] * ndim, radii, truncate, range(ndim)))
    return terms


def _programs(shape, in_name, out_name, terms, cval):
    """The programs of ``terms``' passes, each result stored as :func:`_summed` adds it."""
    return [passes(shape, in_name, _term_name(out_name), t, cval) for t in terms]


@front(real_output=True)
def _gaussian_laplace(shape, in_name, out_name, sigma, mode, axes, channel_axis, kwargs, cval=0.0):
    filtered = check_axes(axes, len(shape), channel_axis)
    [_sigma(s) for s in seq(sigma, len(filtered), "sigma")]
    if not filtered:
        return identity
    terms = _gaussian_terms(shape, sigma, 2, mode, axes, channel_axis, kwargs)
    return _plane_sum(shape, in_name, out_name, terms, cval) or _summed(_programs(shape, in_name, out_name, terms, cval), out_name)


def gaussian_laplace(
    input: Array, sigma: PerAxis, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None, **kwargs: Any,
) -> Array:
    """``scipy.ndimage.gaussian_laplace``: the sum over the axes of the second derivative of a
    Gaussian along each (``truncate`` and ``radius`` as :func:`gaussian_filter` takes them)."""
    return _gaussian_laplace(input, sigma, mode, axes, channel_axis, tuple(sorted(kwargs.items())), cval=real_cval(cval, True), output=output, stream=stream, device=device)


@front(real_output=True)
def _gaussian_gradient_magnitude(shape, in_name, out_name, sigma, mode, axes, channel_axis, kwargs, cval=0.0):
    if not check_axes(axes, len(shape), channel_axis):
        return identity
    terms = _gaussian_terms(shape, sigma, 1, mode, axes, channel_axis, kwargs)
    return _summed(_programs(shape, in_name, out_name, terms, cval), out_name, square=True)


def gaussian_gradient_magnitude(
    input: Array, sigma: PerAxis, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, device: Device = None, **kwargs: Any,
) -> Array:
    """``scipy.ndimage.gaussian_gradient_magnitude``: the root of the sum over the axes of the
    squared first derivative of a Gaussian along each."""
    return _gaussian_gradient_magnitude(
        input, sigma, mode, axes, channel_axis, tuple(sorted(kwargs.items())), cval=real_cval(cval, True), output=output, stream=stream, device=device
    )
