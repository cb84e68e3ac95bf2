"""ferroconv's thirteen scipy.ndimage filters on dask arrays, lazily, chunk by chunk.

``from ferroconv import dask as fd; fd.gaussian_filter(darr, 2.0)`` takes the package's
signature with a dask array first and returns a lazy dask array equal to one call of
``ferroconv.gaussian_filter`` on the whole array (so to scipy's). Each block runs the package's
function on its chunk: numpy chunks where the package runs numpy arrays (the GPU, else the CPU),
CuPy chunks on the worker's current device (on a ``dask_cuda.LocalCUDACluster`` each worker has
its own GPU as device 0).

How: one ``map_overlap``, each chunk widened on every filtered axis by what the filter reads on
each side of a sample (its radius, moved by ``origin``; for filters of several passes or terms,
the most any term reads), and trimmed back. The array's own edges are filtered in the asked mode
by the package itself (``boundary='none'``), which is exact for every mode but ``wrap``
(``grid-wrap``): there dask's ``boundary='periodic'`` brings the other end of the array. An axis
that is one chunk is filtered whole (no overlap). An axis whose chunks are smaller than the
filter's reach is rechunked first, neighbouring chunks merged until each holds at least the
reach (one more for a filter that reads on one side only; one chunk if the axis is shorter than
twice that), so the result's chunks may be larger than the input's; so is, to one chunk, an axis
filtered both in ``wrap`` and in another mode (``gaussian_laplace`` and
``gaussian_gradient_magnitude`` with a mode per axis use each axis's mode along every axis).

Parameters are checked when the function is called, by the package's own checks, before any
graph is built. ``output=`` is a dtype or None (a dask result cannot be written into an
array). ``stream=`` is passed to each block: a raw handle is only meaningful in the process
that made it (dask's threaded scheduler). The blocks' callable is a module-level function in a
``functools.partial``, so it pickles for ``distributed``.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Optional

import numpy as np

try:
    import dask.array as da
    from dask.array.utils import meta_from_array
except ImportError as e:  # pragma: no cover - only without dask
    raise ImportError("ferroconv.dask needs dask: pip install 'dask[array]'") from e

from . import _fold, _params
from ._front import axis_index, check_axes, seq
from ._params import Array, ArrayLike, Axes, Mode, Output, PerAxis

__all__ = list(_params.FUNCTIONS)


def _block(x, name, args, kwargs):
    """One chunk filtered by the package's ``name`` (what each task of the graph runs)."""
    import ferroconv

    return getattr(ferroconv, name)(x, *args, **kwargs)


def _merged(chunks, least: int):
    """The chunks of one axis, neighbours merged until each holds at least ``least`` samples;
    one chunk where the axis is shorter than ``2 * least``."""
    if min(chunks) >= least:
        return tuple(chunks)
    total = sum(chunks)
    if total < 2 * least:
        return (total,)
    out, acc = [], 0
    for c in chunks:
        acc += c
        if acc >= least:
            out.append(acc)
            acc = 0
    if acc:
        out[-1] += acc
    return tuple(out)


def _plan(x, reach):
    """(array rechunked where needed, depth, boundary) for ``map_overlap``; ``reach`` maps an
    axis to ((samples read before, after), the modes filtering it)."""
    chunks = list(x.chunks)
    depth, boundary = {}, {}
    for a in range(x.ndim):
        (before, after), modes = reach.get(a, ((0, 0), set()))
        # Each chunk holds at least the reach; one more where a side reads nothing, as the array's
        # edge chunk in ``mirror`` reads ``before`` samples inside (a chunk of ``before`` has one too few).
        least = max(before, after) + (min(before, after) == 0)
        depth[a], boundary[a] = 0, "none"
        if before == after == 0 or len(chunks[a]) == 1:
            continue
        wrap = {m == "wrap" for m in modes}
        chunks[a] = (x.shape[a],) if len(wrap) > 1 else _merged(chunks[a], least)
        if len(chunks[a]) == 1:
            continue
        if True in wrap:
            # dask's periodic boundary takes a depth alike on both sides.
            depth[a], boundary[a] = max(before, after), "periodic"
        else:
            depth[a] = (before, after) if before != after else before
    if tuple(chunks) != x.chunks:
        x = x.rechunk(tuple(chunks))
    return x, depth, boundary


def _dask_input(input, name):
    if not isinstance(input, da.Array):
        raise TypeError(
            f"ferroconv.dask.{name} takes a dask array, got {_params.type_name(input)} "
            f"(ferroconv.{name} takes numpy, torch and CuPy arrays)"
        )
    return input


def _lazy(name, input, args, kwargs, reach):
    """The dask array of ``ferroconv.<name>(input, *args, **kwargs)``: the parameters checked
    now (by the package, on an empty array of the input's rank and dtype, which also gives the
    result's dtype), then ``reach(ndim)`` (see :func:`_plan`) sizes the overlap."""
    import ferroconv

    x = _dask_input(input, name)
    if any(math.isnan(c) for cs in x.chunks for c in cs):
        raise ValueError(f"ferroconv.dask.{name} needs known chunk sizes: call compute_chunk_sizes() first")
    output = kwargs.get("output")
    if output is not None and not isinstance(output, (str, type, np.dtype)):
        raise TypeError(
            f"output must be a dtype or None for a dask array, got {_params.type_name(output)} "
            "(compute the result, or store it with dask.array.store)"
        )
    probe = np.empty((0,) * x.ndim, dtype=x.dtype)
    dtype = getattr(ferroconv, name)(probe, *args, **kwargs).dtype
    func = functools.partial(_block, name=name, args=tuple(args), kwargs=dict(kwargs))
    meta = meta_from_array(x._meta, ndim=x.ndim, dtype=dtype)
    token = f"ferroconv-{name}"
    if x.ndim == 0 or x.size == 0:
        return x.map_blocks(func, dtype=dtype, meta=meta, token=token)
    x, depth, boundary = _plan(x, reach(x.ndim))
    return x.map_overlap(
        func, depth=depth, boundary=boundary, trim=True, allow_rechunk=False, dtype=dtype, meta=meta, token=token
    )


# What each filter reads around a sample, per axis: ((before, after), {modes}). The parameters
# were checked by the package before these run.


def _sides(k: int, origin, convolution: bool = False):
    """(before, after) of ``k`` taps at ``origin``, as correlate (or convolve) centres them."""
    o = _params.integer(origin, "origin")
    if convolution:
        o = -o - (1 - k % 2)
    centre = k // 2 + o
    return centre, k - 1 - centre


def _gauss_reach(sigma, order, truncate, radius) -> int:
    s = _params.real(sigma, "sigma")
    r = _params.gaussian_radius(s, truncate, radius, "filtered")
    return _fold.gaussian_reach(abs(s), r) if order == 0 else r


def _dense_reach(weights, mode, origin, axes, channel_axis, convolution):
    def reach(ndim):
        shape = np.shape(weights)
        ax = check_axes(axes, ndim, channel_axis)
        # As the package: the weights' axes follow the sorted axes, the origins the given axes
        # (the array's axes where every axis is filtered).
        given = seq(origin, len(ax), "origin")
        origins = dict(zip(ax if len(ax) < ndim else range(ndim), given))
        m = {_params.mode(mode)}
        return {a: (_sides(k, origins[a], convolution), m) for k, a in zip(shape, sorted(ax))}

    return reach


def _line_reach(weights, axis, mode, origin, convolution):
    return lambda ndim: {axis_index(axis, ndim): (_sides(len(np.ravel(weights)), origin, convolution), {_params.mode(mode)})}


def _gaussian_reach(sigma, order, mode, truncate, radius, axes, channel_axis):
    def reach(ndim):
        ax = check_axes(axes, ndim, channel_axis)
        k = len(ax)
        out = {}
        params = zip(ax, seq(sigma, k, "sigma"), seq(order, k, "order"), seq(mode, k, "mode"), seq(radius, k, "radius"))
        for a, s, o, m, r in params:
            if _params.real(s, "sigma") > _params.SIGMA_MIN:
                r = _gauss_reach(s, int(o), truncate, r)
                out[a] = ((r, r), {_params.mode(m)})
        return out

    return reach


def _uniform_reach(size, mode, origin, axes, channel_axis):
    from ._ndimage import _size

    def reach(ndim):
        ax = check_axes(axes, ndim, channel_axis)
        k = len(ax)
        out = {}
        for a, s, o, m in zip(ax, seq(size, k, "size"), seq(origin, k, "origin"), seq(mode, k, "mode")):
            if _params.real(s, "size") > 1:
                out[a] = (_sides(_size(s), o), {_params.mode(m)})
        return out

    return reach


def _gradient_reach(axis, mode, channel_axis):
    def reach(ndim):
        c = None if channel_axis is None else axis_index(channel_axis, ndim, "channel_axis")
        m = seq(mode, ndim, "mode")
        return {a: ((1, 1), {_params.mode(m[a])}) for a in range(ndim) if a != c}

    return reach


def _laplace_reach(mode, axes, channel_axis):
    def reach(ndim):
        ax = check_axes(axes, ndim, channel_axis)
        return {a: ((1, 1), {_params.mode(m)}) for a, m in zip(ax, seq(mode, len(ax), "mode"))}

    return reach


def _gaussian_terms_reach(sigma, mode, axes, channel_axis, kwargs, order):
    """As the package's ``gaussian_laplace`` (``order`` 2) and ``gaussian_gradient_magnitude``
    (1): a term per filtered axis, each a Gaussian along every axis of a sigma, in that axis's
    mode."""

    def reach(ndim):
        ax = check_axes(axes, ndim, channel_axis)
        if not ax:
            return {}
        truncate = _params.real(kwargs.get("truncate", 4.0), "truncate")
        if order == 1 and channel_axis is None or len(ax) == ndim:
            sigmas = seq(sigma, ndim, "sigma")
        else:
            sigmas = [0.0] * ndim
            for s, a in zip(seq(sigma, len(ax), "sigma"), ax):
                sigmas[a] = s
        radii = seq(kwargs.get("radius"), ndim, "radius")
        modes = {_params.mode(m) for m in seq(mode, len(ax), "mode")}
        out = {}
        for a, s, r in zip(range(ndim), sigmas, radii):
            if _params.real(s, "sigma") > _params.SIGMA_MIN:
                r = _gauss_reach(s, order, truncate, r)
                out[a] = ((r, r), modes)
        return out

    return reach


# The thirteen functions: the package's signatures, a dask array first.


def correlate(
    input: Array, weights: ArrayLike, output: Output = None, mode: Mode = "reflect", cval: float = 0.0,
    origin: PerAxis = 0, *, axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.correlate` of a dask array, lazily (see the module's documentation)."""
    kw = dict(output=output, mode=mode, cval=cval, origin=origin, axes=axes, channel_axis=channel_axis, stream=stream)
    return _lazy("correlate", input, (weights,), kw, _dense_reach(weights, mode, origin, axes, channel_axis, False))


def convolve(
    input: Array, weights: ArrayLike, output: Output = None, mode: Mode = "reflect", cval: float = 0.0,
    origin: PerAxis = 0, *, axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.convolve` of a dask array, lazily (see the module's documentation)."""
    kw = dict(output=output, mode=mode, cval=cval, origin=origin, axes=axes, channel_axis=channel_axis, stream=stream)
    return _lazy("convolve", input, (weights,), kw, _dense_reach(weights, mode, origin, axes, channel_axis, True))


def correlate1d(
    input: Array, weights: ArrayLike, axis: int = -1, output: Output = None, mode: str = "reflect", cval: float = 0.0,
    origin: int = 0, *, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.correlate1d` of a dask array, lazily (see the module's documentation)."""
    kw = dict(axis=axis, output=output, mode=mode, cval=cval, origin=origin, stream=stream)
    return _lazy("correlate1d", input, (weights,), kw, _line_reach(weights, axis, mode, origin, False))


def convolve1d(
    input: Array, weights: ArrayLike, axis: int = -1, output: Output = None, mode: str = "reflect", cval: float = 0.0,
    origin: int = 0, *, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.convolve1d` of a dask array, lazily (see the module's documentation)."""
    kw = dict(axis=axis, output=output, mode=mode, cval=cval, origin=origin, stream=stream)
    return _lazy("convolve1d", input, (weights,), kw, _line_reach(weights, axis, mode, origin, True))


def gaussian_filter(
    input: Array, sigma: PerAxis, order: PerAxis = 0, output: Output = None, mode: Mode = "reflect",
    cval: float = 0.0, truncate: float = 4.0, *, radius: Optional[PerAxis] = None, axes: Axes = None,
    channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.gaussian_filter` of a dask array, lazily (see the module's documentation)."""
    kw = dict(order=order, output=output, mode=mode, cval=cval, truncate=truncate, radius=radius, axes=axes,
              channel_axis=channel_axis, stream=stream)
    reach = _gaussian_reach(sigma, order, mode, truncate, radius, axes, channel_axis)
    return _lazy("gaussian_filter", input, (sigma,), kw, reach)


def gaussian_filter1d(
    input: Array, sigma: float, axis: int = -1, order: int = 0, output: Output = None, mode: str = "reflect",
    cval: float = 0.0, truncate: float = 4.0, *, radius: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.gaussian_filter1d` of a dask array, lazily (see the module's documentation)."""
    kw = dict(axis=axis, order=order, output=output, mode=mode, cval=cval, truncate=truncate, radius=radius, stream=stream)

    def reach(ndim):
        r = _gauss_reach(sigma, int(order), truncate, radius)
        return {axis_index(axis, ndim): ((r, r), {_params.mode(mode)})}

    return _lazy("gaussian_filter1d", input, (sigma,), kw, reach)


def uniform_filter(
    input: Array, size: PerAxis = 3, output: Output = None, mode: Mode = "reflect", cval: float = 0.0,
    origin: PerAxis = 0, *, axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.uniform_filter` of a dask array, lazily (see the module's documentation)."""
    kw = dict(size=size, output=output, mode=mode, cval=cval, origin=origin, axes=axes, channel_axis=channel_axis, stream=stream)
    return _lazy("uniform_filter", input, (), kw, _uniform_reach(size, mode, origin, axes, channel_axis))


def uniform_filter1d(
    input: Array, size: int, axis: int = -1, output: Output = None, mode: str = "reflect", cval: float = 0.0,
    origin: int = 0, *, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.uniform_filter1d` of a dask array, lazily (see the module's documentation)."""
    kw = dict(axis=axis, output=output, mode=mode, cval=cval, origin=origin, stream=stream)

    def reach(ndim):
        return {axis_index(axis, ndim): (_sides(_params.integer(size, "size"), origin), {_params.mode(mode)})}

    return _lazy("uniform_filter1d", input, (size,), kw, reach)


def sobel(
    input: Array, axis: int = -1, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.sobel` of a dask array, lazily (see the module's documentation)."""
    kw = dict(axis=axis, output=output, mode=mode, cval=cval, channel_axis=channel_axis, stream=stream)
    return _lazy("sobel", input, (), kw, _gradient_reach(axis, mode, channel_axis))


def prewitt(
    input: Array, axis: int = -1, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.prewitt` of a dask array, lazily (see the module's documentation)."""
    kw = dict(axis=axis, output=output, mode=mode, cval=cval, channel_axis=channel_axis, stream=stream)
    return _lazy("prewitt", input, (), kw, _gradient_reach(axis, mode, channel_axis))


def laplace(
    input: Array, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *, axes: Axes = None,
    channel_axis: Optional[int] = None, stream: Optional[int] = None,
) -> Array:
    """:func:`ferroconv.laplace` of a dask array, lazily (see the module's documentation)."""
    kw = dict(output=output, mode=mode, cval=cval, axes=axes, channel_axis=channel_axis, stream=stream)
    return _lazy("laplace", input, (), kw, _laplace_reach(mode, axes, channel_axis))


def gaussian_laplace(
    input: Array, sigma: PerAxis, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, **kwargs: Any,
) -> Array:
    """:func:`ferroconv.gaussian_laplace` of a dask array, lazily (see the module's documentation)."""
    kw = dict(output=output, mode=mode, cval=cval, axes=axes, channel_axis=channel_axis, stream=stream, **kwargs)
    reach = _gaussian_terms_reach(sigma, mode, axes, channel_axis, kwargs, 2)
    return _lazy("gaussian_laplace", input, (sigma,), kw, reach)


def gaussian_gradient_magnitude(
    input: Array, sigma: PerAxis, output: Output = None, mode: Mode = "reflect", cval: float = 0.0, *,
    axes: Axes = None, channel_axis: Optional[int] = None, stream: Optional[int] = None, **kwargs: Any,
) -> Array:
    """:func:`ferroconv.gaussian_gradient_magnitude` of a dask array, lazily (see the module's
    documentation)."""
    kw = dict(output=output, mode=mode, cval=cval, axes=axes, channel_axis=channel_axis, stream=stream, **kwargs)
    reach = _gaussian_terms_reach(sigma, mode, axes, channel_axis, kwargs, 1)
    return _lazy("gaussian_gradient_magnitude", input, (sigma,), kw, reach)
